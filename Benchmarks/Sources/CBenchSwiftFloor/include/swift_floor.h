#ifndef SWIFT_FLOOR_H
#define SWIFT_FLOOR_H
#include <curl/curl.h>

/* A curl write or header callback, implemented in Swift. */
typedef size_t (*swift_floor_callback)(char *data, size_t size, size_t count, void *context);

/* A fresh easy handle with the options `bench-libcurl --mode multi --fresh-handle --collect` sets
 * for the same requests as CurlBridge's defaults (scripts/clients.sh, LIBCURL_SAME_REQUESTS: the
 * user agent, every content encoding, one cookie jar, the CA file without a CA directory), with
 * the body and header lines going to `body` and `header`, and `context` as their data and as the
 * handle's private pointer. NULL when curl cannot make one. */
CURL *swift_floor_easy(const char *url, const char *user_agent, const char *cacert, char *error_buffer,
                       void *context, swift_floor_callback header, swift_floor_callback body);

/* The response's status code, 0 when none arrived. */
long swift_floor_status(CURL *easy);

/* The Content-Length the response declared, -1 when none. */
curl_off_t swift_floor_declared_length(CURL *easy);

/* What CurlBridge's TransferMetrics holds, as curl reports it (times in microseconds). */
struct swift_floor_metrics {
    curl_off_t name_lookup, connect, tls_handshake, pre_transfer, first_byte, total;
    curl_off_t bytes_sent, bytes_received;
    long header_bytes, connects, local_port, remote_port;
    const char *remote_address; /* valid until the handle is cleaned up */
};

/* Reads the metrics of a finished transfer: CurlBridge's 13 curl_easy_getinfo calls. */
void swift_floor_read_metrics(CURL *easy, struct swift_floor_metrics *metrics);

/* The handle's private pointer (its transfer). */
void *swift_floor_context(CURL *easy);

/* The running libcurl's version, e.g. "7.88.1". */
const char *swift_floor_libcurl_version(void);

/* curl_multi_setopt with a long, which Swift cannot pass to the variadic function. */
CURLMcode swift_floor_multi_limit(CURLM *multi, CURLMoption option, long value);

#endif
