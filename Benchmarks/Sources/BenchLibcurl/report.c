/* Percentiles and the JSON line, in the same field order as the Swift clients'. */
#include "bench.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int compare(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* Nearest-rank percentile of sorted values; 0 when there are none. */
static uint64_t percentile(const uint64_t *sorted, long count, double fraction) {
    if (count == 0) return 0;
    long rank = (long)(fraction * (double)count);
    if ((double)rank < fraction * (double)count) rank++;
    if (rank < 1) rank = 1;
    if (rank > count) rank = count;
    return sorted[rank - 1];
}

static void print_quoted(const char *text) {
    putchar('"');
    for (const char *c = text; *c; c++) {
        if (*c == '"' || *c == '\\') printf("\\%c", *c);
        else if ((unsigned char)*c < 0x20) printf("\\u%04x", (unsigned char)*c);
        else putchar(*c);
    }
    putchar('"');
}

void bench_print_report(const struct bench_args *args, struct bench_results *results, uint64_t elapsed_ns,
                        uint64_t cpu_ns, int threads_peak) {
    qsort(results->latencies, (size_t)results->completed, sizeof(uint64_t), compare);
    double seconds = (double)elapsed_ns / 1e9;
    double rps = seconds > 0 ? (double)(args->requests - results->errors) / seconds : 0;
    double mbps = seconds > 0 ? (double)results->bytes / seconds / 1e6 : 0;
    char client[32];
    snprintf(client, sizeof client, "libcurl-%s", args->mode);
    printf("{\"client\": ");
    print_quoted(client);
    printf(", \"workload\": ");
    print_quoted(args->workload);
    printf(", \"requests\": %ld, \"concurrency\": %ld, \"errors\": %ld, \"seconds\": %.4f, \"rps\": %.1f, "
           "\"p50_ms\": %.4f, \"p99_ms\": %.4f, \"cpu_ms_per_request\": %.5f, \"peak_rss_mib\": %.2f, "
           "\"threads_peak\": %d, \"bytes\": %lld, \"mb_per_s\": %.1f, \"peak_anon_mib\": %.2f, "
           "\"start_anon_mib\": %.2f}\n",
           args->requests, args->concurrency, results->errors, seconds, rps,
           (double)percentile(results->latencies, results->completed, 0.50) / 1e6,
           (double)percentile(results->latencies, results->completed, 0.99) / 1e6,
           (double)cpu_ns / 1e6 / (double)args->requests, (double)bench_peak_rss_bytes() / 1048576.0, threads_peak,
           (long long)results->bytes, mbps, (double)bench_sampler_peak_anon_bytes() / 1048576.0,
           (double)results->start_anon_bytes / 1048576.0);
    fflush(stdout);
}
