#include "swift_floor.h"

#include <string.h>

/* One cookie jar for every handle, as a CurlBridge transport has; the loop is the only thread
 * that uses handles, so the share needs no lock callbacks. */
static CURLSH *cookie_share(void) {
    static CURLSH *share;
    if (share == NULL && (share = curl_share_init()) != NULL)
        curl_share_setopt(share, CURLSHOPT_SHARE, CURL_LOCK_DATA_COOKIE);
    return share;
}

CURL *swift_floor_easy(const char *url, const char *user_agent, const char *cacert, char *error_buffer,
                       void *context, swift_floor_callback header, swift_floor_callback body) {
    CURL *easy = curl_easy_init();
    if (easy == NULL) return NULL;
    curl_easy_setopt(easy, CURLOPT_URL, url);
    curl_easy_setopt(easy, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(easy, CURLOPT_HTTP_VERSION, (long)CURL_HTTP_VERSION_2TLS);
    curl_easy_setopt(easy, CURLOPT_BUFFERSIZE, 65536L); /* bench-libcurl --collect's, and CurlBridge's for collected bodies */
    curl_easy_setopt(easy, CURLOPT_WRITEFUNCTION, body);
    curl_easy_setopt(easy, CURLOPT_WRITEDATA, context);
    curl_easy_setopt(easy, CURLOPT_HEADERFUNCTION, header);
    curl_easy_setopt(easy, CURLOPT_HEADERDATA, context);
    curl_easy_setopt(easy, CURLOPT_PRIVATE, context);
    curl_easy_setopt(easy, CURLOPT_ERRORBUFFER, error_buffer);
    curl_easy_setopt(easy, CURLOPT_CONNECTTIMEOUT, 30L);
    curl_easy_setopt(easy, CURLOPT_TIMEOUT, 120L);
    if (cacert != NULL) curl_easy_setopt(easy, CURLOPT_CAINFO, cacert);
    curl_easy_setopt(easy, CURLOPT_CAPATH, NULL);
    curl_easy_setopt(easy, CURLOPT_USERAGENT, user_agent);
    curl_easy_setopt(easy, CURLOPT_ACCEPT_ENCODING, "");
    curl_easy_setopt(easy, CURLOPT_SHARE, cookie_share());
    curl_easy_setopt(easy, CURLOPT_COOKIEFILE, "");
    if (strncmp(url, "https://", 8) == 0) curl_easy_setopt(easy, CURLOPT_PIPEWAIT, 1L);
    return easy;
}

long swift_floor_status(CURL *easy) {
    long status = 0;
    curl_easy_getinfo(easy, CURLINFO_RESPONSE_CODE, &status);
    return status;
}

curl_off_t swift_floor_declared_length(CURL *easy) {
    curl_off_t length = -1;
    curl_easy_getinfo(easy, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T, &length);
    return length;
}

void swift_floor_read_metrics(CURL *easy, struct swift_floor_metrics *metrics) {
    memset(metrics, 0, sizeof *metrics);
    curl_easy_getinfo(easy, CURLINFO_NAMELOOKUP_TIME_T, &metrics->name_lookup);
    curl_easy_getinfo(easy, CURLINFO_CONNECT_TIME_T, &metrics->connect);
    curl_easy_getinfo(easy, CURLINFO_APPCONNECT_TIME_T, &metrics->tls_handshake);
    curl_easy_getinfo(easy, CURLINFO_PRETRANSFER_TIME_T, &metrics->pre_transfer);
    curl_easy_getinfo(easy, CURLINFO_STARTTRANSFER_TIME_T, &metrics->first_byte);
    curl_easy_getinfo(easy, CURLINFO_TOTAL_TIME_T, &metrics->total);
    curl_easy_getinfo(easy, CURLINFO_SIZE_UPLOAD_T, &metrics->bytes_sent);
    curl_easy_getinfo(easy, CURLINFO_SIZE_DOWNLOAD_T, &metrics->bytes_received);
    curl_easy_getinfo(easy, CURLINFO_HEADER_SIZE, &metrics->header_bytes);
    curl_easy_getinfo(easy, CURLINFO_NUM_CONNECTS, &metrics->connects);
    curl_easy_getinfo(easy, CURLINFO_LOCAL_PORT, &metrics->local_port);
    curl_easy_getinfo(easy, CURLINFO_PRIMARY_IP, &metrics->remote_address);
    curl_easy_getinfo(easy, CURLINFO_PRIMARY_PORT, &metrics->remote_port);
}

void *swift_floor_context(CURL *easy) {
    char *context = NULL;
    curl_easy_getinfo(easy, CURLINFO_PRIVATE, &context);
    return context;
}

CURLMcode swift_floor_multi_limit(CURLM *multi, CURLMoption option, long value) {
    return curl_multi_setopt(multi, option, value);
}

const char *swift_floor_libcurl_version(void) { return curl_version_info(CURLVERSION_NOW)->version; }
