/* Clock, CPU, RSS and the thread sampler (reads /proc/self/status every 5 ms on its own thread). */
#include "bench.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
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

static int current_threads(void) {
    FILE *file = fopen("/proc/self/status", "r");
    if (file == NULL) return 0;
    char line[256];
    int threads = 0;
    while (fgets(line, sizeof line, file) != NULL) {
        if (strncmp(line, "Threads:", 8) == 0) {
            sscanf(line + 8, "%d", &threads);
            break;
        }
    }
    fclose(file);
    return threads;
}

static atomic_int peak_threads;
static atomic_bool sampling;
static pthread_t sampler_thread;
static int sampler_started;

static void *sample(void *unused) {
    (void)unused;
    while (atomic_load(&sampling)) {
        int threads = current_threads() - 1; /* not the sampler itself */
        int seen = atomic_load(&peak_threads);
        while (threads > seen && !atomic_compare_exchange_weak(&peak_threads, &seen, threads)) {
        }
        usleep(5000);
    }
    return NULL;
}

int bench_sampler_start(void) {
    atomic_store(&peak_threads, current_threads());
    atomic_store(&sampling, 1);
    sampler_started = pthread_create(&sampler_thread, NULL, sample, NULL) == 0;
    return sampler_started;
}

int bench_sampler_stop(void) {
    atomic_store(&sampling, 0);
    if (sampler_started) pthread_join(sampler_thread, NULL);
    int now = current_threads();
    int peak = atomic_load(&peak_threads);
    return now > peak ? now : peak;
}
