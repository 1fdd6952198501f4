/* The two loops: easy handles in sequence with curl_easy_perform, and a multi handle with N in
 * flight. Each reuses its easy handles from one request to the next, or, with --fresh-handle,
 * makes a new one for every request and cleans it up when the request is done: the safe limit on
 * libcurl < 8.1, where a reused handle keeps a dangling header pointer (curl PR 11103), so a
 * client such as CurlBridge must pay for a handle per request. That handle is made and set up on
 * the request's clock. */
#include "bench.h"

#include <stdio.h>
#include <stdlib.h>

/* A new easy handle with every option set (and `private` as CURLOPT_PRIVATE unless NULL); exits
 * with 1 when curl refuses. With --template-handle, a duplicate of a handle set up once, with only
 * the pointers of this transfer set again: what a client could do instead of setting every option
 * on every fresh handle. */
static CURL *new_easy(const struct bench_args *args, struct bench_results *results, struct bench_body *body,
                      char *error_buffer, void *private) {
    static CURL *template;
    static struct bench_body template_body;
    static char template_error[CURL_ERROR_SIZE];
    if (args->template_handle && template == NULL &&
        ((template = curl_easy_init()) == NULL ||
         bench_setup_easy(template, args, results, &template_body, template_error) != CURLE_OK)) {
        fprintf(stderr, "libcurl-%s: cannot set up the template handle\n", args->mode);
        exit(1);
    }
    CURL *easy = args->template_handle ? curl_easy_duphandle(template) : curl_easy_init();
    CURLcode code = easy == NULL ? CURLE_OUT_OF_MEMORY
                    : args->template_handle ? bench_point_easy(easy, args, results, body, error_buffer)
                                            : bench_setup_easy(easy, args, results, body, error_buffer);
    if (code == CURLE_OK && args->template_handle) code = bench_join_share(easy, args);
    if (code != CURLE_OK || (private != NULL && curl_easy_setopt(easy, CURLOPT_PRIVATE, private) != CURLE_OK)) {
        fprintf(stderr, "libcurl-%s: cannot set up an easy handle\n", args->mode);
        exit(1);
    }
    return easy;
}

void bench_run_easy(const struct bench_args *args, struct bench_results *results) {
    static char error_buffer[CURL_ERROR_SIZE];
    struct bench_body body = {0};
    CURL *easy = args->fresh_handle ? NULL : new_easy(args, results, &body, error_buffer, NULL);
    for (long i = 0; i < args->requests; i++) {
        error_buffer[0] = '\0';
        bench_prepare_transfer(results);
        uint64_t started = bench_now_ns();
        if (args->fresh_handle) easy = new_easy(args, results, &body, error_buffer, NULL);
        CURLcode code = curl_easy_perform(easy);
        if (args->collect) bench_finish_body(&body);
        bench_record(easy, code, started, error_buffer, results);
        if (args->fresh_handle) curl_easy_cleanup(easy);
    }
    if (!args->fresh_handle) curl_easy_cleanup(easy);
}

/* One transfer slot of the multi loop: its easy handle (reused for the slot's next request, or
 * NULL between two fresh ones), its clock, error buffer and, with --collect, body. */
struct slot {
    CURL *easy;
    uint64_t started;
    char error[CURL_ERROR_SIZE];
    struct bench_body body;
};

/* Starts the slot's next request; with --fresh-handle, on a new handle. */
static void start_transfer(CURLM *multi, struct slot *slot, const struct bench_args *args,
                           struct bench_results *results) {
    slot->error[0] = '\0';
    bench_prepare_transfer(results);
    slot->started = bench_now_ns();
    if (slot->easy == NULL) slot->easy = new_easy(args, results, &slot->body, slot->error, slot);
    curl_multi_add_handle(multi, slot->easy);
}

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
        /* Reused handles are made before their first request's clock starts. */
        if (!args->fresh_handle) slot->easy = new_easy(args, results, &slot->body, slot->error, slot);
        start_transfer(multi, slot, args, results);
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
            if (args->collect) bench_finish_body(&slot->body);
            bench_record(slot->easy, code, slot->started, slot->error, results);
            finished++;
            curl_multi_remove_handle(multi, slot->easy);
            if (args->fresh_handle) {
                curl_easy_cleanup(slot->easy);
                slot->easy = NULL;
            }
            if (started < args->requests) {
                start_transfer(multi, slot, args, results);
                started++;
            }
        }
        if (finished < args->requests) curl_multi_poll(multi, NULL, 0, 1000, NULL);
    }
    for (long i = 0; i < args->concurrency; i++)
        if (slots[i].easy != NULL) curl_easy_cleanup(slots[i].easy);
    free(slots);
    curl_multi_cleanup(multi);
}
