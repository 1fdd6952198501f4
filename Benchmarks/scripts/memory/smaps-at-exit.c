/* LD_PRELOAD for memory.sh: when the process exits, copies /proc/self/smaps and /proc/self/status
 * to $SMAPS_OUT.smaps and $SMAPS_OUT.status (a process making a few requests peaks at its end). */
#include <stdio.h>
#include <stdlib.h>

static void copy(const char *from, const char *to) {
    FILE *in = fopen(from, "r");
    FILE *out = fopen(to, "w");
    char buffer[65536];
    size_t count;
    if (in && out) {
        while ((count = fread(buffer, 1, sizeof buffer, in)) > 0) fwrite(buffer, 1, count, out);
    }
    if (in) fclose(in);
    if (out) fclose(out);
}

__attribute__((destructor)) static void dump(void) {
    const char *base = getenv("SMAPS_OUT");
    char path[4096];
    if (!base) return;
    snprintf(path, sizeof path, "%s.smaps", base);
    copy("/proc/self/smaps", path);
    snprintf(path, sizeof path, "%s.status", base);
    copy("/proc/self/status", path);
}
