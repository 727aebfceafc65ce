/* probe_common.h: what the C-core probes in bench/ (bw, gemm, gemm_tiled,
 * linalg; built by bench/gpu.sh's build_probe) share: DIE on a failed call,
 * a monotonic clock, and device 0 with its stream. */
#ifndef BENCH_PROBE_COMMON_H
#define BENCH_PROBE_COMMON_H

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "russet/russet.h"

#define DIE(st) do { if ((st) != RS_OK) { fprintf(stderr, "line %d: %s\n", __LINE__, rs_last_error()); exit(1); } } while (0)

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* device 0, its default stream and (info not NULL) its description */
static void probe_open(rs_device **dev, rs_stream **s, rs_device_info *info) {
    DIE(rs_device_get(0, dev));
    DIE(rs_stream_get(*dev, 0, s));
    if (info) DIE(rs_device_info_get(0, info));
}

#endif
