/* What every transfer does, in both loops: options, body to the output file, the record. */
#include "bench.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* Streams body bytes to the output descriptor as they arrive. */
static size_t write_body(char *data, size_t size, size_t count, void *context) {
    struct bench_results *results = context;
    size_t total = size * count;
    size_t left = total;
    while (left > 0) {
        ssize_t written = write(results->output_fd, data, left);
        if (written < 0) {
            if (errno == EINTR) continue;
            return 0; /* curl fails the transfer with CURLE_WRITE_ERROR */
        }
        data += written;
        left -= (size_t)written;
    }
    results->bytes += (int64_t)total;
    return total;
}

CURLcode bench_setup_easy(CURL *easy, const struct bench_args *args, struct bench_results *results,
                          char *error_buffer) {
    CURLcode code = CURLE_OK;
#define SET(option, value) \
    if (code == CURLE_OK) code = curl_easy_setopt(easy, option, value)
    SET(CURLOPT_URL, args->url);
    SET(CURLOPT_NOSIGNAL, 1L);
    SET(CURLOPT_HTTP_VERSION, (long)CURL_HTTP_VERSION_2TLS);
    SET(CURLOPT_BUFFERSIZE, args->buffer);
    SET(CURLOPT_WRITEFUNCTION, write_body);
    SET(CURLOPT_WRITEDATA, results);
    SET(CURLOPT_ERRORBUFFER, error_buffer);
    SET(CURLOPT_CONNECTTIMEOUT, 30L);
    SET(CURLOPT_TIMEOUT, 120L);
    if (args->cacert != NULL) SET(CURLOPT_CAINFO, args->cacert);
    /* Over TLS, wait for a connection being set up to say whether it multiplexes (HTTP/2). */
    if (strncmp(args->url, "https://", 8) == 0) SET(CURLOPT_PIPEWAIT, 1L);
#undef SET
    return code;
}

void bench_record(CURL *easy, CURLcode code, uint64_t started_ns, const char *error_buffer,
                  struct bench_results *results) {
    long status = 0;
    curl_easy_getinfo(easy, CURLINFO_RESPONSE_CODE, &status);
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
