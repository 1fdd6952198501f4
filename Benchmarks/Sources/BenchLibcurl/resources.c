/* Clock, CPU, RSS and the sampler of threads and anonymous memory (reads /proc/self/status every
 * 5 ms on its own thread). */
#include "bench.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

uint64_t bench_now_ns(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec;
}

uint64_t bench_cpu_ns(void) {
    struct rusage usage;
    getrusage(RUSAGE_SELF, &usage);
    return ((uint64_t)usage.ru_utime.tv_sec + (uint64_t)usage.ru_stime.tv_sec) * 1000000000u +
           ((uint64_t)usage.ru_utime.tv_usec + (uint64_t)usage.ru_stime.tv_usec) * 1000u;
}

uint64_t bench_peak_rss_bytes(void) {
    struct rusage usage;
    getrusage(RUSAGE_SELF, &usage);
    return (uint64_t)usage.ru_maxrss * 1024u;
}

/* The Threads: and RssAnon: (kB) lines of /proc/self/status; 0 for what cannot be read. */
static void current_status(int *threads, long *anonymous_kib) {
    *threads = 0;
    *anonymous_kib = 0;
    FILE *file = fopen("/proc/self/status", "r");
    if (file == NULL) return;
    char line[256];
    while (fgets(line, sizeof line, file) != NULL) {
        if (strncmp(line, "Threads:", 8) == 0) sscanf(line + 8, "%d", threads);
        else if (strncmp(line, "RssAnon:", 8) == 0) sscanf(line + 8, "%ld", anonymous_kib);
    }
    fclose(file);
}

uint64_t bench_anon_bytes(void) {
    int threads;
    long anonymous;
    current_status(&threads, &anonymous);
    return (uint64_t)anonymous * 1024u;
}

static atomic_int peak_threads;
static atomic_long peak_anonymous_kib;
static atomic_bool sampling;
static pthread_t sampler_thread;
static int sampler_started;

static void note_peaks(int threads, long anonymous) {
    int seen = atomic_load(&peak_threads);
    while (threads > seen && !atomic_compare_exchange_weak(&peak_threads, &seen, threads)) {
    }
    long seen_anonymous = atomic_load(&peak_anonymous_kib);
    while (anonymous > seen_anonymous && !atomic_compare_exchange_weak(&peak_anonymous_kib, &seen_anonymous, anonymous)) {
    }
}

static void *sample(void *unused) {
    (void)unused;
    while (atomic_load(&sampling)) {
        int threads;
        long anonymous;
        current_status(&threads, &anonymous);
        note_peaks(threads - 1, anonymous); /* not the sampler itself */
        usleep(5000);
    }
    return NULL;
}

int bench_sampler_start(void) {
    int threads;
    long anonymous;
    current_status(&threads, &anonymous);
    atomic_store(&peak_threads, threads);
    atomic_store(&peak_anonymous_kib, anonymous);
    atomic_store(&sampling, 1);
    /* BENCH_SAMPLER=off (instructions.sh): no sampling thread, whose work grows with wall time. */
    const char *setting = getenv("BENCH_SAMPLER");
    if (setting != NULL && strcmp(setting, "off") == 0) return 1;
    sampler_started = pthread_create(&sampler_thread, NULL, sample, NULL) == 0;
    return sampler_started;
}

int bench_sampler_stop(void) {
    atomic_store(&sampling, 0);
    if (sampler_started) pthread_join(sampler_thread, NULL);
    int threads;
    long anonymous;
    current_status(&threads, &anonymous);
    note_peaks(threads, anonymous);
    return atomic_load(&peak_threads);
}

uint64_t bench_sampler_peak_anon_bytes(void) {
    return (uint64_t)atomic_load(&peak_anonymous_kib) * 1024u;
}
