/* Raw libcurl benchmark client: the physical limit of any curl-based client.
 * Shared declarations of its small files. */
#ifndef BENCH_LIBCURL_H
#define BENCH_LIBCURL_H

#include <stddef.h>
#include <stdint.h>
#include <curl/curl.h>

/* The command line, the same as every other benchmark client's plus --mode and --buffer. */
struct bench_args {
    const char *url;
    long requests;
    long concurrency;
    const char *cacert;   /* NULL: the system store */
    const char *output;   /* "/dev/null" by default */
    const char *workload;
    const char *mode;     /* "easy" or "multi" */
    long buffer;          /* CURLOPT_BUFFERSIZE, 524288 by default */
    int stream;           /* --stream: accepted; libcurl always streams */
};

/* What the requests did; latencies in nanoseconds, one slot per request. */
struct bench_results {
    uint64_t *latencies;
    long completed;      /* latencies filled */
    long errors;
    int64_t bytes;
    char first_error[CURL_ERROR_SIZE + 64];
    int output_fd;
};

/* Parses argv; prints usage and exits with 2 on a bad command line. */
void bench_parse_args(int argc, char **argv, struct bench_args *args);

/* Monotonic clock in nanoseconds. */
uint64_t bench_now_ns(void);

/* The thread sampler: start before the work, stop after; returns the peak, sampler excluded. */
int bench_sampler_start(void);
int bench_sampler_stop(void);

/* Process CPU (user + system) in nanoseconds, and peak RSS in bytes. */
uint64_t bench_cpu_ns(void);
uint64_t bench_peak_rss_bytes(void);

/* Options every handle gets, in both modes. Returns CURLE_OK or the first failure. */
CURLcode bench_setup_easy(CURL *easy, const struct bench_args *args, struct bench_results *results,
                          char *error_buffer);

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
