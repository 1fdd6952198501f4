/* Raw libcurl benchmark client: the physical limit of any curl-based client.
 * Shared declarations of its small files. */
#ifndef BENCH_LIBCURL_H
#define BENCH_LIBCURL_H

#include <stddef.h>
#include <stdint.h>
#include <curl/curl.h>

/* The command line, the same as every other benchmark client's plus --mode, --buffer,
 * --upload-buffer and the baselines' --fresh-handle and --collect. */
struct bench_args {
    const char *url;
    long requests;
    long concurrency;
    const char *cacert;   /* NULL: the system store */
    const char *output;   /* "/dev/null" by default */
    const char *workload;
    const char *mode;     /* "easy" or "multi" */
    long buffer;          /* CURLOPT_BUFFERSIZE: 524288 by default, 65536 with --collect */
    int stream;           /* --stream: accepted; libcurl always streams */
    int fsync;            /* --fsync: fsync --output before the clock stops */
    long consume_rate;    /* --consume-rate: bytes per second the body's consumer takes; 0: no limit */
    const char *upload;   /* --upload: a file POSTed as the body, read by a read callback; NULL: GET */
    long upload_buffer;   /* --upload-buffer: CURLOPT_UPLOAD_BUFFERSIZE; 0: curl's default (64 KiB) */
    /* What CurlBridge's defaults ask of curl, so that both send the same requests: */
    const char *user_agent; /* --user-agent: CURLOPT_USERAGENT; NULL: none (curl's default) */
    int decode;             /* --decode: CURLOPT_ACCEPT_ENCODING "" (every encoding curl decodes) */
    int cookies;            /* --cookies: the cookie engine, one jar shared by every handle (CURLSH) */
    int no_ca_path;         /* --no-ca-path: CURLOPT_CAPATH NULL, the CA file alone, which curl caches */
    /* The safe baselines, what CurlBridge must do on libcurl 7.88: */
    int fresh_handle;       /* --fresh-handle: a new easy handle per request (init, options, cleanup) */
    int collect;            /* --collect: each body collected in memory, then written to --output */
    int template_handle;    /* --template-handle, with --fresh-handle: each handle a curl_easy_duphandle of
                               one set up once, only its per-transfer pointers and share set again */
};

/* What the requests did; latencies in nanoseconds, one slot per request. */
struct bench_results {
    uint64_t *latencies;
    long completed;      /* latencies filled */
    long errors;
    int64_t bytes;
    char first_error[CURL_ERROR_SIZE + 64];
    int output_fd;
    int upload_fd;          /* -1 without --upload */
    int64_t upload_size;
    char reply[32];         /* with --upload: the start of the response body, the receiver's count */
    size_t reply_length;
    long consume_rate;      /* from the arguments, for the write callback */
    uint64_t pace_start_ns; /* when the current body's first chunk was consumed; 0: not yet */
    int64_t paced_bytes;    /* bytes of the current body consumed so far */
    uint64_t start_anon_bytes; /* anonymous resident memory when the measured part started */
};

/* With --collect: one transfer's body, held in memory as any client that returns a body must hold
 * it. The first chunk reserves room for the declared Content-Length; a longer body (or one without
 * a length) grows the buffer; bench_finish_body hands it to --output and frees it. */
struct bench_body {
    CURL *easy;                     /* the transfer's handle, asked for the declared length */
    struct bench_results *results;  /* --output and the byte count */
    char *data;                     /* malloc'd; NULL before the first chunk */
    size_t length;
    size_t capacity;
};

/* Parses argv; prints usage and exits with 2 on a bad command line. */
void bench_parse_args(int argc, char **argv, struct bench_args *args);

/* Monotonic clock in nanoseconds. */
uint64_t bench_now_ns(void);

/* The sampler: start before the work, stop after; stop returns the peak thread count, sampler
 * excluded. The peak of anonymous resident memory (RssAnon: heap, stacks, buffers) is kept too. */
int bench_sampler_start(void);
int bench_sampler_stop(void);
uint64_t bench_sampler_peak_anon_bytes(void);

/* Anonymous resident memory now, in bytes. */
uint64_t bench_anon_bytes(void);

/* Process CPU (user + system) in nanoseconds, and peak RSS in bytes. */
uint64_t bench_cpu_ns(void);
uint64_t bench_peak_rss_bytes(void);

/* Options every handle gets, in both modes. `body` is the transfer's with --collect (NULL
 * otherwise). Returns CURLE_OK or the first failure. */
CURLcode bench_setup_easy(CURL *easy, const struct bench_args *args, struct bench_results *results,
                          struct bench_body *body, char *error_buffer);

/* The share of bench_setup_easy (the cookie jar, and with --fresh-handle --mode easy the
 * connection, DNS and TLS session caches) and the cookie engine: set on each copy of a template
 * handle, which joins no share itself. */
CURLcode bench_join_share(CURL *easy, const struct bench_args *args);

/* The options of bench_setup_easy that point into one transfer's state (its body or the results,
 * its error buffer): all a duplicate of a handle set up for another transfer needs set again. */
CURLcode bench_point_easy(CURL *easy, const struct bench_args *args, struct bench_results *results,
                          struct bench_body *body, char *error_buffer);

/* Resets what a transfer reads or paces (the upload file's position, the consumer's pace)
 * before each transfer starts; uploads and paced consumers run one transfer at a time. */
void bench_prepare_transfer(struct bench_results *results);

/* With --collect, once a transfer has ended: writes the collected body to --output in one go (as
 * a caller consumes a body it was handed), counts it and frees the buffer. */
void bench_finish_body(struct bench_body *body);

/* Records a finished transfer: success (2xx and CURLE_OK) with its latency, or an error. */
void bench_record(CURL *easy, CURLcode code, uint64_t started_ns, const char *error_buffer,
                  struct bench_results *results);

/* The two loops; each returns when every request is done. */
void bench_run_easy(const struct bench_args *args, struct bench_results *results);
void bench_run_multi(const struct bench_args *args, struct bench_results *results);

/* Prints the JSON line. */
void bench_print_report(const struct bench_args *args, struct bench_results *results, uint64_t elapsed_ns,
                        uint64_t cpu_ns, int threads_peak);

#endif
