/* bench-libcurl --mode easy|multi: raw libcurl as the physical limit of a curl-based client.
 *   easy:  one reused easy handle, curl_easy_perform in a sequential loop (--concurrency 1);
 *   multi: --concurrency transfers in flight on one multi handle driven by curl_multi_poll,
 *          each easy handle reused for the next request as soon as it finishes.
 * Bodies are streamed to --output; --buffer sets CURLOPT_BUFFERSIZE (524288 by default, 65536
 * with --collect: the sizes CurlBridge gives curl for a streamed and for a collected body).
 * --fsync flushes --output before the clock stops; --consume-rate paces the body's consumer;
 * --upload POSTs a file read by a read callback (--upload-buffer: CURLOPT_UPLOAD_BUFFERSIZE).
 * The safe baselines (what a client on libcurl < 8.1 must do, see loops.c):
 *   --fresh-handle: a new easy handle per request, every option set, cleaned up when it is done
 *                   (--template-handle: each a curl_easy_duphandle of one set up once, only its
 *                   per-transfer pointers and share set again: priced in INSTRUCTIONS.md, issue 37);
 *   --collect: each body held in memory (room reserved from its Content-Length), then written to
 *              --output whole and freed, as a client that returns bodies does. */
#include "bench.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int main(int argc, char **argv) {
    bench_sampler_start();
    struct bench_args args;
    bench_parse_args(argc, argv, &args);
    if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
        fprintf(stderr, "libcurl: curl_global_init failed\n");
        return 1;
    }
    struct bench_results results = {0};
    results.latencies = calloc((size_t)args.requests, sizeof(uint64_t));
    results.output_fd = open(args.output, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (results.latencies == NULL || results.output_fd < 0) {
        fprintf(stderr, "libcurl: cannot allocate or open %s\n", args.output);
        return 1;
    }
    results.upload_fd = -1;
    results.consume_rate = args.consume_rate;
    if (args.upload != NULL) {
        struct stat status;
        results.upload_fd = open(args.upload, O_RDONLY | O_CLOEXEC);
        if (results.upload_fd < 0 || fstat(results.upload_fd, &status) != 0) {
            fprintf(stderr, "libcurl: cannot open --upload %s\n", args.upload);
            return 1;
        }
        results.upload_size = (int64_t)status.st_size;
    }
    results.start_anon_bytes = bench_anon_bytes();
    uint64_t cpu_before = bench_cpu_ns();
    uint64_t start = bench_now_ns();
    if (strcmp(args.mode, "multi") == 0) bench_run_multi(&args, &results);
    else bench_run_easy(&args, &results);
    if (args.fsync && fsync(results.output_fd) != 0 && results.errors++ == 0)
        snprintf(results.first_error, sizeof results.first_error, "fsync of %s failed", args.output);
    uint64_t elapsed = bench_now_ns() - start;
    uint64_t cpu = bench_cpu_ns() - cpu_before;
    int threads = bench_sampler_stop();
    bench_print_report(&args, &results, elapsed, cpu, threads);
    if (results.errors > 0)
        fprintf(stderr, "libcurl-%s: %ld of %ld requests failed; first: %s\n", args.mode, results.errors,
                args.requests, results.first_error);
    close(results.output_fd);
    if (results.upload_fd >= 0) close(results.upload_fd);
    free(results.latencies);
    curl_global_cleanup();
    return results.errors == 0 ? 0 : 1;
}
