// Typed wrappers for libcurl's variadic calls, which Swift cannot call directly,
// and the few constants that are function-like macros in curl.h.
#ifndef CURLBRIDGE_CCURL_SHIM_H
#define CURLBRIDGE_CCURL_SHIM_H

#include <curl/curl.h>
#include <fcntl.h>
#include <linux/memfd.h>
#include <sys/syscall.h>
#include <unistd.h>

/// An anonymous in-memory file, closed on exec and sealable (memfd_create(2), which Glibc declares
/// only under _GNU_SOURCE); -1 with errno set on failure.
static inline int ccurl_memfd_create(const char *name) {
    return (int)syscall(SYS_memfd_create, name, MFD_CLOEXEC | MFD_ALLOW_SEALING);
}

// Glibc's <fcntl.h> names the seals only under _GNU_SOURCE, and <linux/fcntl.h> clashes with it:
// the kernel's values (include/uapi/linux/fcntl.h).
#ifndef F_ADD_SEALS
#define F_ADD_SEALS (1024 + 9)
#define F_SEAL_SEAL 0x0001
#define F_SEAL_SHRINK 0x0002
#define F_SEAL_GROW 0x0004
#define F_SEAL_WRITE 0x0008
#endif

/// Seals a memfd against every change to its size or contents, and against further seals
/// (fcntl(2) F_ADD_SEALS); -1 with errno set on failure.
static inline int ccurl_seal_contents(int fd) {
    return fcntl(fd, F_ADD_SEALS, F_SEAL_SEAL | F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE);
}

static inline CURLcode ccurl_easy_setopt_long(CURL *handle, CURLoption option, long value) {
    return curl_easy_setopt(handle, option, value);
}

// Restricts a handle to http, and to https too when `https`, with the bit mask
// (`CURLOPT_PROTOCOLS`), deprecated since 7.85 for `CURLOPT_PROTOCOLS_STR` but kept by libcurl:
// the string form parses its list against curl's table of protocols on every call, about 620
// instructions more per request (callgrind).
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
static inline CURLcode ccurl_easy_allow_http(CURL *handle, _Bool https) {
    return curl_easy_setopt(handle, CURLOPT_PROTOCOLS, (long)(https ? CURLPROTO_HTTP | CURLPROTO_HTTPS : CURLPROTO_HTTP));
}
#pragma GCC diagnostic pop

static inline CURLcode ccurl_easy_setopt_off_t(CURL *handle, CURLoption option, curl_off_t value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode ccurl_easy_setopt_string(CURL *handle, CURLoption option, const char *value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode ccurl_easy_setopt_pointer(CURL *handle, CURLoption option, void *value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode ccurl_easy_setopt_slist(CURL *handle, CURLoption option, struct curl_slist *value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode ccurl_easy_setopt_blob(CURL *handle, CURLoption option, struct curl_blob *value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode ccurl_easy_setopt_write_function(CURL *handle, CURLoption option,
                                                        curl_write_callback callback) {
    return curl_easy_setopt(handle, option, callback);
}

static inline CURLcode ccurl_easy_setopt_read_function(CURL *handle, curl_read_callback callback) {
    return curl_easy_setopt(handle, CURLOPT_READFUNCTION, callback);
}

static inline CURLcode ccurl_easy_setopt_seek_function(CURL *handle, curl_seek_callback callback) {
    return curl_easy_setopt(handle, CURLOPT_SEEKFUNCTION, callback);
}

static inline CURLcode ccurl_easy_setopt_xferinfo_function(CURL *handle, curl_xferinfo_callback callback) {
    return curl_easy_setopt(handle, CURLOPT_XFERINFOFUNCTION, callback);
}

static inline CURLcode ccurl_easy_setopt_prereq_function(CURL *handle, curl_prereq_callback callback) {
    return curl_easy_setopt(handle, CURLOPT_PREREQFUNCTION, callback);
}

static const int ccurl_prereqfunc_ok = CURL_PREREQFUNC_OK;
static const int ccurl_prereqfunc_abort = CURL_PREREQFUNC_ABORT;

static inline CURLcode ccurl_easy_getinfo_long(CURL *handle, CURLINFO info, long *value) {
    return curl_easy_getinfo(handle, info, value);
}

static inline CURLcode ccurl_easy_getinfo_off_t(CURL *handle, CURLINFO info, curl_off_t *value) {
    return curl_easy_getinfo(handle, info, value);
}

static inline CURLcode ccurl_easy_getinfo_string(CURL *handle, CURLINFO info, char **value) {
    return curl_easy_getinfo(handle, info, value);
}

static inline CURLcode ccurl_easy_getinfo_pointer(CURL *handle, CURLINFO info, void **value) {
    return curl_easy_getinfo(handle, info, value);
}

static inline CURLMcode ccurl_multi_setopt_long(CURLM *multi, CURLMoption option, long value) {
    return curl_multi_setopt(multi, option, value);
}

static const long ccurl_pause_recv = CURLPAUSE_RECV;
static const long ccurl_pause_send = CURLPAUSE_SEND;
static const size_t ccurl_writefunc_pause = CURL_WRITEFUNC_PAUSE;
static const size_t ccurl_readfunc_pause = CURL_READFUNC_PAUSE;
static const size_t ccurl_readfunc_abort = CURL_READFUNC_ABORT;
static const int ccurl_seekfunc_ok = CURL_SEEKFUNC_OK;
static const int ccurl_seekfunc_fail = CURL_SEEKFUNC_FAIL;
static const int ccurl_seekfunc_cantseek = CURL_SEEKFUNC_CANTSEEK;
static const size_t ccurl_error_size = CURL_ERROR_SIZE;
static const CURLversion ccurl_version_now = CURLVERSION_NOW;

// Share handles (the transport's cookie jar) and cookie lists.

static inline CURLSHcode ccurl_share_setopt_long(CURLSH *share, CURLSHoption option, long value) {
    return curl_share_setopt(share, option, value);
}

static inline CURLSHcode ccurl_share_setopt_lock_functions(CURLSH *share, curl_lock_function lock,
                                                           curl_unlock_function unlock, void *userdata) {
    CURLSHcode result = curl_share_setopt(share, CURLSHOPT_LOCKFUNC, lock);
    if (result == CURLSHE_OK) result = curl_share_setopt(share, CURLSHOPT_UNLOCKFUNC, unlock);
    if (result == CURLSHE_OK) result = curl_share_setopt(share, CURLSHOPT_USERDATA, userdata);
    return result;
}

static inline CURLcode ccurl_easy_setopt_share(CURL *handle, CURLSH *share) {
    return curl_easy_setopt(handle, CURLOPT_SHARE, share);
}

static inline CURLcode ccurl_easy_getinfo_slist(CURL *handle, CURLINFO info, struct curl_slist **value) {
    return curl_easy_getinfo(handle, info, value);
}

static const long ccurl_headeropt_separate = CURLHEADER_SEPARATE;

// Authentication schemes (CURLOPT_HTTPAUTH), which curl.h defines as unsigned long casts.
static const long ccurl_auth_basic = (long)CURLAUTH_BASIC;
static const long ccurl_auth_digest = (long)CURLAUTH_DIGEST;
static const long ccurl_auth_ntlm = (long)CURLAUTH_NTLM;

// curl's verbose output (CURLOPT_DEBUGFUNCTION), for trace-level logging.
static inline CURLcode ccurl_easy_setopt_debug_function(CURL *handle, curl_debug_callback callback) {
    return curl_easy_setopt(handle, CURLOPT_DEBUGFUNCTION, callback);
}

#endif
