/* What every transfer does, in both loops: options, body to the output file (paced with
 * --consume-rate) or, with --collect, into memory first, the request body from the --upload file,
 * the record. */
#include "bench.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* With --consume-rate: sleeps until the bytes consumed since the body's first chunk no longer run
 * ahead of the rate. The consumer blocks inside curl's callback, so curl stops reading the socket
 * and TCP holds the server back: libcurl's own backpressure, at no memory cost. */
static void keep_pace(struct bench_results *results, size_t consumed) {
    uint64_t now = bench_now_ns();
    if (results->pace_start_ns == 0) results->pace_start_ns = now;
    results->paced_bytes += (int64_t)consumed;
    uint64_t due = results->pace_start_ns + (uint64_t)((double)results->paced_bytes * 1e9 / (double)results->consume_rate);
    if (due <= now) return;
    uint64_t wait = due - now;
    struct timespec request = {.tv_sec = (time_t)(wait / 1000000000u), .tv_nsec = (long)(wait % 1000000000u)};
    struct timespec remaining;
    while (nanosleep(&request, &remaining) != 0 && errno == EINTR) request = remaining;
}

/* Writes all of `length` bytes to `fd`; 0, or -1 when the file refuses them. */
static int write_all(int fd, const char *data, size_t length) {
    while (length > 0) {
        ssize_t written = write(fd, data, length);
        if (written < 0) {
            if (errno == EINTR) continue;
            return -1;
        }
        data += written;
        length -= (size_t)written;
    }
    return 0;
}

/* Streams body bytes to the output descriptor as they arrive; with --upload, keeps the start of
 * the (short) response body instead: the receiver's count of body bytes. */
static size_t write_body(char *data, size_t size, size_t count, void *context) {
    struct bench_results *results = context;
    size_t total = size * count;
    if (results->upload_fd >= 0) {
        size_t room = sizeof results->reply - 1 - results->reply_length;
        size_t take = total < room ? total : room;
        memcpy(results->reply + results->reply_length, data, take);
        results->reply_length += take;
        results->reply[results->reply_length] = '\0';
        return total;
    }
    if (write_all(results->output_fd, data, total) != 0) return 0; /* curl: CURLE_WRITE_ERROR */
    results->bytes += (int64_t)total;
    if (results->consume_rate > 0) keep_pace(results, total);
    return total;
}

/* With --collect: appends body bytes to the transfer's buffer. The first chunk reserves room for
 * the Content-Length curl read in the head (CURLINFO_CONTENT_LENGTH_DOWNLOAD_T, -1 without one);
 * a body longer than that, or without a length, doubles the buffer as it grows. */
static size_t collect_body(char *data, size_t size, size_t count, void *context) {
    struct bench_body *body = context;
    size_t total = size * count;
    if (total > body->capacity - body->length) {
        size_t wanted = body->length + total;
        if (body->capacity == 0) {
            curl_off_t declared = -1;
            curl_easy_getinfo(body->easy, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T, &declared);
            if (declared > 0 && (size_t)declared > wanted) wanted = (size_t)declared;
        } else if (wanted < 2 * body->capacity) {
            wanted = 2 * body->capacity;
        }
        char *grown = realloc(body->data, wanted);
        if (grown == NULL) return 0; /* curl: CURLE_WRITE_ERROR */
        body->data = grown;
        body->capacity = wanted;
    }
    memcpy(body->data + body->length, data, total);
    body->length += total;
    return total;
}

void bench_finish_body(struct bench_body *body) {
    struct bench_results *results = body->results;
    if (body->length > 0 && write_all(results->output_fd, body->data, body->length) == 0)
        results->bytes += (int64_t)body->length;
    free(body->data);
    body->data = NULL;
    body->length = 0;
    body->capacity = 0;
}

/* Reads the next slice of the --upload file into curl's buffer; 0 at its end. */
static size_t read_body(char *buffer, size_t size, size_t count, void *context) {
    struct bench_results *results = context;
    for (;;) {
        ssize_t got = read(results->upload_fd, buffer, size * count);
        if (got >= 0) return (size_t)got;
        if (errno != EINTR) return CURL_READFUNC_ABORT;
    }
}

/* Moves back in the --upload file when curl must send the body again. */
static int seek_body(void *context, curl_off_t offset, int origin) {
    struct bench_results *results = context;
    if (origin != SEEK_SET) return CURL_SEEKFUNC_CANTSEEK;
    return lseek(results->upload_fd, (off_t)offset, SEEK_SET) == (off_t)offset ? CURL_SEEKFUNC_OK : CURL_SEEKFUNC_FAIL;
}

void bench_prepare_transfer(struct bench_results *results) {
    if (results->upload_fd >= 0) lseek(results->upload_fd, 0, SEEK_SET);
    results->reply_length = 0;
    results->reply[0] = '\0';
    results->pace_start_ns = 0;
    results->paced_bytes = 0;
}

/* The one share every handle is given (a handle takes one), or NULL when there is nothing to share:
 *   --cookies: one cookie jar for every handle, as a CurlBridge transport has;
 *   --fresh-handle --mode easy: the connection, DNS and TLS session caches, which a reused easy
 *   handle (or a multi handle) keeps by itself; without them every new handle would open a new
 *   connection, and the baseline would measure connection setup instead of a request.
 * The loops are single-threaded, so the share needs no lock callbacks. */
static CURLSH *shared(const struct bench_args *args) {
    static CURLSH *share;
    int caches = args->fresh_handle && strcmp(args->mode, "easy") == 0;
    if (share != NULL || (!args->cookies && !caches)) return share;
    share = curl_share_init();
    if (share == NULL) return NULL;
    if (args->cookies) curl_share_setopt(share, CURLSHOPT_SHARE, CURL_LOCK_DATA_COOKIE);
    if (caches) {
        curl_share_setopt(share, CURLSHOPT_SHARE, CURL_LOCK_DATA_CONNECT);
        curl_share_setopt(share, CURLSHOPT_SHARE, CURL_LOCK_DATA_DNS);
        curl_share_setopt(share, CURLSHOPT_SHARE, CURL_LOCK_DATA_SSL_SESSION);
    }
    return share;
}

#define SET(option, value) \
    if (code == CURLE_OK) code = curl_easy_setopt(easy, option, value)

CURLcode bench_point_easy(CURL *easy, const struct bench_args *args, struct bench_results *results,
                          struct bench_body *body, char *error_buffer) {
    CURLcode code = CURLE_OK;
    if (args->collect) {
        body->easy = easy;
        body->results = results;
        SET(CURLOPT_WRITEDATA, body);
    } else {
        SET(CURLOPT_WRITEDATA, results);
    }
    SET(CURLOPT_ERRORBUFFER, error_buffer);
    return code;
}

CURLcode bench_join_share(CURL *easy, const struct bench_args *args) {
    CURLcode code = CURLE_OK;
    CURLSH *share = shared(args);
    if (share != NULL) SET(CURLOPT_SHARE, share);
    if (args->cookies) SET(CURLOPT_COOKIEFILE, "");
    return code;
}

CURLcode bench_setup_easy(CURL *easy, const struct bench_args *args, struct bench_results *results,
                          struct bench_body *body, char *error_buffer) {
    CURLcode code = CURLE_OK;
    SET(CURLOPT_URL, args->url);
    SET(CURLOPT_NOSIGNAL, 1L);
    SET(CURLOPT_HTTP_VERSION, (long)CURL_HTTP_VERSION_2TLS);
    SET(CURLOPT_BUFFERSIZE, args->buffer);
    SET(CURLOPT_WRITEFUNCTION, args->collect ? collect_body : write_body);
    if (code == CURLE_OK) code = bench_point_easy(easy, args, results, body, error_buffer);
    SET(CURLOPT_CONNECTTIMEOUT, 30L);
    SET(CURLOPT_TIMEOUT, 120L);
    if (args->cacert != NULL) SET(CURLOPT_CAINFO, args->cacert);
    /* Without a CA directory curl keeps the parsed CA file for later connections (7.87+). */
    if (args->no_ca_path) SET(CURLOPT_CAPATH, NULL);
    if (args->user_agent != NULL) SET(CURLOPT_USERAGENT, args->user_agent);
    if (args->decode) SET(CURLOPT_ACCEPT_ENCODING, "");
    /* A template handle (--template-handle) joins no share: curl_easy_duphandle would give each
     * copy a cookie jar of its own (a copy is made as if the share were not set); each copy joins
     * it instead (bench_join_share). */
    if (!args->template_handle && code == CURLE_OK) code = bench_join_share(easy, args);
    /* Over TLS, wait for a connection being set up to say whether it multiplexes (HTTP/2). */
    if (strncmp(args->url, "https://", 8) == 0) SET(CURLOPT_PIPEWAIT, 1L);
    if (args->upload != NULL) {
        /* A POST with a known length and a read callback, as CurlBridge sends a file body. */
        SET(CURLOPT_POST, 1L);
        SET(CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)results->upload_size);
        SET(CURLOPT_READFUNCTION, read_body);
        SET(CURLOPT_READDATA, results);
        SET(CURLOPT_SEEKFUNCTION, seek_body);
        SET(CURLOPT_SEEKDATA, results);
        if (args->upload_buffer > 0) SET(CURLOPT_UPLOAD_BUFFERSIZE, args->upload_buffer);
    }
    return code;
}
#undef SET

void bench_record(CURL *easy, CURLcode code, uint64_t started_ns, const char *error_buffer,
                  struct bench_results *results) {
    long status = 0;
    curl_easy_getinfo(easy, CURLINFO_RESPONSE_CODE, &status);
    if (code == CURLE_OK && status >= 200 && status < 300 && results->upload_fd >= 0) {
        /* An upload counts only when curl sent, and the receiver read, the whole file. */
        curl_off_t sent = 0;
        curl_easy_getinfo(easy, CURLINFO_SIZE_UPLOAD_T, &sent);
        long long received = results->reply_length > 0 ? strtoll(results->reply, NULL, 10) : -1;
        results->bytes += (int64_t)sent;
        if (sent != results->upload_size || received != results->upload_size) {
            if (results->errors++ == 0)
                snprintf(results->first_error, sizeof results->first_error,
                         "sent %lld, received %lld of the file's %lld bytes", (long long)sent, received,
                         (long long)results->upload_size);
            return;
        }
    }
    if (code == CURLE_OK && status >= 200 && status < 300) {
        results->latencies[results->completed++] = bench_now_ns() - started_ns;
        return;
    }
    if (results->errors++ == 0) {
        if (code != CURLE_OK)
            snprintf(results->first_error, sizeof results->first_error, "curl %d: %s", (int)code,
                     error_buffer[0] ? error_buffer : curl_easy_strerror(code));
        else
            snprintf(results->first_error, sizeof results->first_error, "status %ld", status);
    }
}
