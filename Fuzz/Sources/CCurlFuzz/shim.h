// libcurl's URL API (curl_url_*), which the fuzz targets use as a second opinion on URLs, and
// libFuzzer's driver entry point, which each target's main calls.
#ifndef CURLBRIDGE_FUZZ_CCURL_SHIM_H
#define CURLBRIDGE_FUZZ_CCURL_SHIM_H
#include <curl/curl.h>
#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));
#endif
