/* linalg_probe.c: where the blocked linear-algebra drivers' time goes:
 * rs_cholesky, rs_lu_factor and rs_triangular_solve on one n x n float32
 * matrix, each dispatch timed on the device (russet/profiler.h), summed by
 * kernel name, beside the call's wall time (a sync after it). The C core
 * only, no torch: it builds in seconds on the GPU machine (bench/gpu.sh
 * linalg-probe). A tool for tuning, not a benchmark against a peer:
 * bench/bench_linalg.py gives the ratios to cuSOLVER.
 *     linalg_probe [n ...]     (default 256 1024) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "russet/profiler.h"
#include "russet/russet.h"
#include "probe_common.h"

static rs_tensor matrix(uint64_t address, rs_dtype dt, int64_t rows, int64_t cols) {
    rs_tensor t;
    memset(&t, 0, sizeof t);
    t.address = address, t.dtype = dt, t.ndim = 3;
    t.sizes[0] = 1, t.sizes[1] = rows, t.sizes[2] = cols;
    t.strides[0] = rows * cols, t.strides[1] = cols, t.strides[2] = 1;
    return t;
}

/* (1, len), or (1) for len < 0 */
static rs_tensor vector(uint64_t address, rs_dtype dt, int64_t len) {
    rs_tensor t;
    memset(&t, 0, sizeof t);
    t.address = address, t.dtype = dt, t.ndim = len < 0 ? 1 : 2;
    t.sizes[0] = 1, t.strides[0] = len < 0 ? 1 : len;
    if (len >= 0) t.sizes[1] = len, t.strides[1] = 1;
    return t;
}

typedef struct by_name { char name[64]; int count; double ns; } by_name;

/* the records taken so far, summed by kernel name, largest first */
static void report(rs_device *dev, const char *what, double wall) {
    static rs_kernel_record rec[65536];
    by_name sums[64];
    int ns = 0;
    double total = 0;
    size_t n = rs_profiler_take(dev, rec, sizeof rec / sizeof rec[0]);
    for (size_t i = 0; i < n; ++i) {
        int j = 0;
        while (j < ns && strcmp(sums[j].name, rec[i].name) != 0) ++j;
        if (j == ns && ns < 64) {
            memset(&sums[ns], 0, sizeof sums[ns]);
            memcpy(sums[ns].name, rec[i].name, sizeof sums[ns].name);
            sums[ns].name[sizeof sums[ns].name - 1] = 0;
            ++ns;
        }
        if (j < 64) sums[j].count++, sums[j].ns += (double)(rec[i].end_ns - rec[i].start_ns);
        total += (double)(rec[i].end_ns - rec[i].start_ns);
    }
    for (int a = 0; a < ns; ++a)
        for (int b = a + 1; b < ns; ++b)
            if (sums[b].ns > sums[a].ns) {
                by_name t = sums[a];
                sums[a] = sums[b], sums[b] = t;
            }
    printf("%-28s wall %8.3f ms, %zu dispatches, %8.3f ms on the device\n", what, wall * 1e3, n, total * 1e-6);
    /* the first dispatches in order: one block's steps (every mode of
     * linalg.comp has that one name) */
    printf("    first:");
    for (size_t i = 0; i < n && i < 12; ++i)
        printf(" %.6s %.0f", rec[i].name, (double)(rec[i].end_ns - rec[i].start_ns) * 1e-3);
    printf(" (us)\n");
    for (int a = 0; a < ns; ++a)
        printf("    %-24s %5d x %9.1f us = %8.3f ms\n", sums[a].name, sums[a].count, sums[a].ns * 1e-3 / sums[a].count,
               sums[a].ns * 1e-6);
}

static void probe(rs_device *dev, rs_stream *s, int64_t n) {
    const rs_dtype dt = RS_FLOAT32;
    const size_t bytes = (size_t)(n * n) * 4;
    float *h = malloc(bytes);
    unsigned seed = 1;
    /* symmetric with n on the diagonal: positive definite (its off-diagonal
     * part's eigenvalues are within about 2 sqrt(n) / 2) */
    for (int64_t i = 0; i < n; ++i)
        for (int64_t j = 0; j <= i; ++j) {
            seed = seed * 1664525u + 1013904223u;
            float v = (float)(seed >> 8) / 16777216.0f - 0.5f;
            h[i * n + j] = h[j * n + i] = i == j ? (float)n : v;
        }
    uint64_t da, dw, dp, di;
    DIE(rs_alloc(dev, bytes, s, &da));
    DIE(rs_alloc(dev, bytes, s, &dw));
    DIE(rs_alloc(dev, (uint64_t)n * 4, s, &dp));
    DIE(rs_alloc(dev, 4, s, &di));
    DIE(rs_memcpy_htod(s, da, h, bytes));
    rs_tensor a = matrix(da, dt, n, n), w = matrix(dw, dt, n, n), piv = vector(dp, RS_INT32, n),
              info = vector(di, RS_INT32, -1);
    char what[64];
    for (int round = 0; round < 2; ++round) { /* the first compiles the kernels */
        DIE(rs_stream_synchronize(s));
        if (round) DIE(rs_profiler_start(dev));
        double t0 = now();
        DIE(rs_cholesky(s, &a, 0, &w, &info));
        DIE(rs_stream_synchronize(s));
        double t1 = now();
        if (round) DIE(rs_profiler_stop(dev));
        snprintf(what, sizeof what, "cholesky %lld", (long long)n);
        if (round) report(dev, what, t1 - t0);

        DIE(rs_copy(s, &w, &a));
        DIE(rs_stream_synchronize(s));
        if (round) DIE(rs_profiler_start(dev));
        t0 = now();
        DIE(rs_lu_factor(s, &w, &piv, &info));
        DIE(rs_stream_synchronize(s));
        t1 = now();
        if (round) DIE(rs_profiler_stop(dev));
        snprintf(what, sizeof what, "lu_factor %lld", (long long)n);
        if (round) report(dev, what, t1 - t0);

        /* the triangular solve with 4 right-hand sides, from w's LU */
        uint64_t dx;
        DIE(rs_alloc(dev, (uint64_t)(n * 4) * 4, s, &dx));
        rs_tensor x = matrix(dx, dt, n, 4), src = matrix(da, dt, n, 4);
        src.strides[1] = n; /* a's first 4 columns */
        DIE(rs_copy(s, &x, &src));
        DIE(rs_stream_synchronize(s));
        if (round) DIE(rs_profiler_start(dev));
        t0 = now();
        DIE(rs_lu_solve(s, &w, &piv, 0, &x));
        DIE(rs_stream_synchronize(s));
        t1 = now();
        if (round) DIE(rs_profiler_stop(dev));
        snprintf(what, sizeof what, "lu_solve %lld, 4 rhs", (long long)n);
        if (round) report(dev, what, t1 - t0);
        rs_free(dev, dx);
    }
    rs_free(dev, da), rs_free(dev, dw), rs_free(dev, dp), rs_free(dev, di);
    free(h);
}

int main(int argc, char **argv) {
    rs_device *dev;
    rs_stream *s;
    rs_device_info info;
    probe_open(&dev, &s, &info);
    printf("%s (%s)\n", info.name, info.driver);
    if (argc < 2) {
        probe(dev, s, 256);
        probe(dev, s, 1024);
    }
    for (int i = 1; i < argc; ++i) probe(dev, s, atoll(argv[i]));
    return 0;
}
