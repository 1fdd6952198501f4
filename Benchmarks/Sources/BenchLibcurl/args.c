#include "bench.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void usage(const char *program, const char *problem) {
    fprintf(stderr,
            "%s\nusage: %s --mode easy|multi --url URL --requests N --concurrency C [--cacert PATH] "
            "[--output PATH] [--workload NAME] [--stream] [--buffer BYTES] [--fsync] [--consume-rate BYTES_PER_S] "
            "[--upload PATH] [--upload-buffer BYTES] [--user-agent TEXT] [--decode] [--cookies] [--no-ca-path] "
            "[--fresh-handle [--template-handle]] [--collect]\n",
            problem, program);
    exit(2);
}

static long positive(const char *program, const char *flag, const char *value) {
    char *end = NULL;
    long number = strtol(value, &end, 10);
    if (end == value || *end != '\0' || number <= 0) {
        char problem[128];
        snprintf(problem, sizeof problem, "%s must be a positive integer", flag);
        usage(program, problem);
    }
    return number;
}

void bench_parse_args(int argc, char **argv, struct bench_args *args) {
    const char *program = argv[0];
    *args = (struct bench_args){.url = NULL, .requests = 1, .concurrency = 1, .cacert = NULL,
                                .output = "/dev/null", .workload = "unnamed", .mode = "easy",
                                .buffer = 0, .stream = 0, .fsync = 0,
                                .consume_rate = 0, .upload = NULL, .upload_buffer = 0,
                                .user_agent = NULL, .decode = 0, .cookies = 0, .no_ca_path = 0,
                                .fresh_handle = 0, .collect = 0, .template_handle = 0};
    for (int i = 1; i < argc; i++) {
        const char *flag = argv[i];
        /* The flags without a value. */
        int *on = strcmp(flag, "--stream") == 0    ? &args->stream
                  : strcmp(flag, "--fsync") == 0   ? &args->fsync
                  : strcmp(flag, "--decode") == 0  ? &args->decode
                  : strcmp(flag, "--cookies") == 0 ? &args->cookies
                  : strcmp(flag, "--no-ca-path") == 0 ? &args->no_ca_path
                  : strcmp(flag, "--fresh-handle") == 0 ? &args->fresh_handle
                  : strcmp(flag, "--collect") == 0 ? &args->collect
                  : strcmp(flag, "--template-handle") == 0 ? &args->template_handle
                                                   : NULL;
        if (on != NULL) {
            *on = 1;
            continue;
        }
        if (i + 1 >= argc) {
            char problem[128];
            snprintf(problem, sizeof problem, "%s needs a value", flag);
            usage(program, problem);
        }
        const char *value = argv[++i];
        if (strcmp(flag, "--url") == 0) args->url = value;
        else if (strcmp(flag, "--requests") == 0) args->requests = positive(program, flag, value);
        else if (strcmp(flag, "--concurrency") == 0) args->concurrency = positive(program, flag, value);
        else if (strcmp(flag, "--cacert") == 0) args->cacert = value;
        else if (strcmp(flag, "--output") == 0) args->output = value;
        else if (strcmp(flag, "--workload") == 0) args->workload = value;
        else if (strcmp(flag, "--buffer") == 0) args->buffer = positive(program, flag, value);
        else if (strcmp(flag, "--consume-rate") == 0) args->consume_rate = positive(program, flag, value);
        else if (strcmp(flag, "--upload") == 0) args->upload = value;
        else if (strcmp(flag, "--upload-buffer") == 0) args->upload_buffer = positive(program, flag, value);
        else if (strcmp(flag, "--user-agent") == 0) args->user_agent = value;
        else if (strcmp(flag, "--mode") == 0) {
            if (strcmp(value, "easy") != 0 && strcmp(value, "multi") != 0) usage(program, "--mode must be easy or multi");
            args->mode = value;
        } else {
            char problem[160];
            snprintf(problem, sizeof problem, "unknown option %.100s", flag);
            usage(program, problem);
        }
    }
    /* Unset: what CurlBridge gives curl, 64 KiB for a body held in memory, 512 KiB otherwise. */
    if (args->buffer == 0) args->buffer = args->collect ? 65536 : 524288;
    if (args->url == NULL || (strncmp(args->url, "http://", 7) != 0 && strncmp(args->url, "https://", 8) != 0))
        usage(program, "--url must be an http:// or https:// URL");
    if (args->concurrency > args->requests) args->concurrency = args->requests;
    if (strcmp(args->mode, "easy") == 0 && args->concurrency != 1)
        usage(program, "--mode easy is one sequential handle: --concurrency must be 1");
    if ((args->upload != NULL || args->consume_rate > 0) && args->concurrency != 1)
        usage(program, "--upload and --consume-rate keep one transfer's state: --concurrency must be 1");
    if (args->template_handle && !args->fresh_handle) usage(program, "--template-handle is a way to make fresh handles: with --fresh-handle");
    if (args->collect && (args->stream || args->upload != NULL || args->consume_rate > 0))
        usage(program, "--collect holds whole bodies: not with --stream, --upload or --consume-rate");
}
