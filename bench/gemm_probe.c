/* gemm_probe.c: times variants of the float16 cooperative-matrix kernel
 * (kernels/gemm_coopmat.comp, defines VARIANT and FN) and rs_gemm itself on
 * an 8192^3 float16 GEMM, with the C core only (no torch: it builds in
 * seconds on the GPU machine; bench/gpu.sh gemm-probe). Each variant's
 * result is checked on sampled entries against a host computation.
 * A tool for tuning, not a benchmark against a peer: see bench_gemm.py. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "engine/engine.h"
#include "russet/russet.h"

/* kernels/common/gemm.glsl's GemmParams (as src/engine/gemm.c) */
typedef struct gemm_params {
    uint64_t a, b, c, cin;
    int64_t m, n, k, batch;
    int64_t sa[3], sb[3], sc[3], sci[3];
    uint64_t alpha[2], beta[2];
    uint32_t flags, pad;
    int64_t tiles_m, tiles_n;
} gemm_params;

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

#define DIE(st) do { if ((st) != RS_OK) { fprintf(stderr, "line %d: %s\n", __LINE__, rs_last_error()); exit(1); } } while (0)

static uint16_t *ha, *hb, *hc;
static int64_t S = 8192;

static double check(rs_stream *s, uint64_t dc) {
    DIE(rs_memcpy_dtoh(s, hc, dc, (uint64_t)(S * S * 2)));
    double worst = 0;
    for (int t = 0; t < 64; t++) {
        int64_t i = (t * 2654435761u) % S, j = (t * 40503u + 17) % S;
        double acc = 0, mag = 0;
        for (int64_t p = 0; p < S; p++) {
            double v = (double)rs_f16_to_f32(ha[i * S + p]) * rs_f16_to_f32(hb[p * S + j]);
            acc += v;
            mag += fabs(v);
        }
        double e = fabs(rs_f16_to_f32(hc[i * S + j]) - acc) / (mag + 1e-30);
        if (e > worst) worst = e;
    }
    return worst;
}

int main(void) {
    rs_device *dev;
    rs_stream *s;
    DIE(rs_device_get(0, &dev));
    DIE(rs_stream_get(dev, 0, &s));
    size_t bytes = (size_t)(S * S * 2);
    ha = malloc(bytes), hb = malloc(bytes), hc = malloc(bytes);
    uint32_t x = 1;
    for (int64_t i = 0; i < S * S; i++) {
        x = x * 1664525u + 1013904223u;
        ha[i] = rs_f16_from_f32(((x >> 9) & 0xFFFF) / 32768.0f - 1.0f);
        x = x * 1664525u + 1013904223u;
        hb[i] = rs_f16_from_f32(((x >> 9) & 0xFFFF) / 32768.0f - 1.0f);
    }
    uint64_t da, db, dc;
    DIE(rs_alloc(dev, bytes, s, &da));
    DIE(rs_alloc(dev, bytes, s, &db));
    DIE(rs_alloc(dev, bytes, s, &dc));
    DIE(rs_memcpy_htod(s, da, ha, bytes));
    DIE(rs_memcpy_htod(s, db, hb, bytes));
    DIE(rs_stream_synchronize(s));
    double flop = 2.0 * S * S * S;

    struct { const char *defines; int bn; } variants[] = {
        {"DT=5;VEC_A=1;VEC_B=1;VARIANT=0;FN=4", 256},
        {"DT=5;VEC_A=1;VEC_B=1;VARIANT=0;FN=2", 128},
        {"DT=5;VEC_A=1;VEC_B=1;VARIANT=1;FN=4", 256},
        {"DT=5;VEC_A=1;VEC_B=1;VARIANT=1;FN=2", 128},
        {"DT=5;VEC_A=1;VEC_B=1;VARIANT=2;FN=4", 256},  /* multiply-adds alone: the ceiling */
        {"DT=5;VEC_A=1;VEC_B=1;VARIANT=2;FN=2", 128},
    };
    for (size_t v = 0; v < sizeof variants / sizeof variants[0]; v++) {
        rs_kernel *k;
        double t0 = now();
        rs_status st = rs_kernel_get(dev, "gemm_coopmat.comp", variants[v].defines, &k);
        if (st != RS_OK) {
            printf("%-40s compile failed: %s\n", variants[v].defines, rs_last_error());
            continue;
        }
        double tc = now() - t0;
        gemm_params p;
        memset(&p, 0, sizeof p);
        p.a = da, p.b = db, p.c = dc;
        p.m = p.n = p.k = S;
        p.batch = 1;
        p.sa[1] = S, p.sa[2] = 1, p.sb[1] = S, p.sb[2] = 1, p.sc[1] = S, p.sc[2] = 1;
        float one = 1.0f;
        uint32_t ob;
        memcpy(&ob, &one, 4);
        p.alpha[0] = ob;
        p.tiles_m = S / 128;
        p.tiles_n = S / variants[v].bn;
        uint32_t groups[3] = {(uint32_t)p.tiles_n, (uint32_t)p.tiles_m, 1};
        rs_access acc[3] = {{da, bytes, 0}, {db, bytes, 0}, {dc, bytes, 1}};
        double best = 1e30;
        for (int rep = 0; rep < 4; rep++) {
            void *host;
            uint64_t addr;
            DIE(rs_stream_arena(s, sizeof p, &host, &addr));
            memcpy(host, &p, sizeof p);
            DIE(rs_stream_synchronize(s));
            double t1 = now();
            DIE(rs_dispatch(s, k, groups, &addr, 8, acc, 3));
            DIE(rs_stream_synchronize(s));
            double t = now() - t1;
            if (rep > 0 && t < best) best = t;
        }
        printf("%-40s %8.1f TFLOP/s  (compile %.2f s)  max rel err %.2e\n", variants[v].defines,
               flop / best / 1e12, tc, check(s, dc));
        fflush(stdout);
    }
    /* the production path */
    rs_gemm_desc d;
    memset(&d, 0, sizeof d);
    d.dtype = RS_FLOAT16;
    d.batch = 1, d.m = d.n = d.k = S;
    d.a.address = da, d.a.stride[1] = S, d.a.stride[2] = 1;
    d.b.address = db, d.b.stride[1] = S, d.b.stride[2] = 1;
    d.c.address = dc, d.c.stride[1] = S, d.c.stride[2] = 1;
    d.alpha[0].f = 1.0f;
    double best = 1e30;
    for (int rep = 0; rep < 4; rep++) {
        DIE(rs_stream_synchronize(s));
        double t1 = now();
        DIE(rs_gemm(s, &d));
        DIE(rs_stream_synchronize(s));
        if (rep > 0 && now() - t1 < best) best = now() - t1;
    }
    printf("rs_gemm (%s) %8.1f TFLOP/s  max rel err %.2e\n", rs_gemm_kernel_name(s, &d), flop / best / 1e12,
           check(s, dc));
    rs_shutdown();
    return 0;
}
