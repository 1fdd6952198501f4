/* The two loops: one reused easy handle in sequence, and a multi handle with N in flight. */
#include "bench.h"

#include <stdio.h>
#include <stdlib.h>

void bench_run_easy(const struct bench_args *args, struct bench_results *results) {
    static char error_buffer[CURL_ERROR_SIZE];
    CURL *easy = curl_easy_init();
    if (easy == NULL || bench_setup_easy(easy, args, results, error_buffer) != CURLE_OK) {
        fprintf(stderr, "libcurl-easy: cannot set up the easy handle\n");
        exit(1);
    }
    for (long i = 0; i < args->requests; i++) {
        error_buffer[0] = '\0';
        bench_prepare_transfer(results);
        uint64_t started = bench_now_ns();
        CURLcode code = curl_easy_perform(easy);
        bench_record(easy, code, started, error_buffer, results);
    }
    curl_easy_cleanup(easy);
}

/* One transfer slot of the multi loop; its easy handle is reused for the next request. */
struct slot {
    CURL *easy;
    uint64_t started;
    char error[CURL_ERROR_SIZE];
};

void bench_run_multi(const struct bench_args *args, struct bench_results *results) {
    CURLM *multi = curl_multi_init();
    struct slot *slots = calloc((size_t)args->concurrency, sizeof *slots);
    if (multi == NULL || slots == NULL) {
        fprintf(stderr, "libcurl-multi: out of memory\n");
        exit(1);
    }
    curl_multi_setopt(multi, CURLMOPT_MAXCONNECTS, args->concurrency);
    curl_multi_setopt(multi, CURLMOPT_MAX_HOST_CONNECTIONS, args->concurrency);
    long started = 0, finished = 0;
    for (long i = 0; i < args->concurrency; i++) {
        struct slot *slot = &slots[i];
        slot->easy = curl_easy_init();
        if (slot->easy == NULL || bench_setup_easy(slot->easy, args, results, slot->error) != CURLE_OK ||
            curl_easy_setopt(slot->easy, CURLOPT_PRIVATE, slot) != CURLE_OK) {
            fprintf(stderr, "libcurl-multi: cannot set up an easy handle\n");
            exit(1);
        }
        bench_prepare_transfer(results);
        slot->started = bench_now_ns();
        curl_multi_add_handle(multi, slot->easy);
        started++;
    }
    /* Every pass finishes transfers or waits in curl_multi_poll; each transfer has a 120 s cap,
     * so the loop ends. */
    while (finished < args->requests) {
        int running = 0;
        if (curl_multi_perform(multi, &running) != CURLM_OK) {
            fprintf(stderr, "libcurl-multi: curl_multi_perform failed\n");
            exit(1);
        }
        CURLMsg *message;
        int queued;
        while ((message = curl_multi_info_read(multi, &queued)) != NULL) {
            if (message->msg != CURLMSG_DONE) continue;
            struct slot *slot = NULL;
            curl_easy_getinfo(message->easy_handle, CURLINFO_PRIVATE, (char **)&slot);
            CURLcode code = message->data.result;
            bench_record(slot->easy, code, slot->started, slot->error, results);
            finished++;
            curl_multi_remove_handle(multi, slot->easy);
            if (started < args->requests) {
                slot->error[0] = '\0';
                bench_prepare_transfer(results);
                slot->started = bench_now_ns();
                curl_multi_add_handle(multi, slot->easy);
                started++;
            }
        }
        if (finished < args->requests) curl_multi_poll(multi, NULL, 0, 1000, NULL);
    }
    for (long i = 0; i < args->concurrency; i++) curl_easy_cleanup(slots[i].easy);
    free(slots);
    curl_multi_cleanup(multi);
}
