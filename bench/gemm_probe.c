/* gemm_probe.c: times variants of the float16 and bfloat16
 * cooperative-matrix kernels and rs_gemm itself on an 8192^3 GEMM, with the
 * C core only (no torch: it builds in seconds on the GPU machine;
 * bench/gpu.sh gemm-probe): the precompiled VK_KHR_cooperative_matrix
 * modules (kernels/spirv/, tile variants; the bfloat16 ones after the
 * float16 ones, on inputs refilled in bfloat16) where the device has the
 * extension, and with `nv` as argument the NV kernel's variants
 * (kernels/gemm_coopmat.comp, VARIANT and FN).
 * Timings: CALLS dispatches per sync (as bench_gemm.py), best of 3.
 * Each result is checked on sampled entries against a host computation;
 * then rs_gemm's float16 and bfloat16 paths are checked in full on edge shapes and every
 * operand layout (k- or m-contiguous A, n- or k-contiguous B, gathered,
 * batched, reduced, alpha, beta * Cin, a transposed C). Exits 1 on a wrong
 * result. A tool for tuning, not a benchmark against a peer: see
 * bench_gemm.py. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "engine/engine.h"
#include "russet/russet.h"
#include "probe_common.h"
#include "params/gemm.h"

/* the GEMM parameter block, as src/engine/gemm.c writes it */
typedef struct gemm_params { RS_GEMM_PARAMS } gemm_params;

static uint16_t *ha, *hb, *hc;
static int64_t S = 8192;
static rs_dtype pdt = RS_FLOAT16; /* float16 or bfloat16: what the host arrays hold */

static float dec16(uint16_t h) { return pdt == RS_BFLOAT16 ? rs_bf16_to_f32(h) : rs_f16_to_f32(h); }
static uint16_t enc16(float f) { return pdt == RS_BFLOAT16 ? rs_bf16_from_f32(f) : rs_f16_from_f32(f); }

static int b_trans; /* hb holds B^T (n-major, k contiguous) */

static double check(rs_stream *s, uint64_t dc) {
    DIE(rs_memcpy_dtoh(s, hc, dc, (uint64_t)(S * S * 2)));
    double worst = 0;
    for (int t = 0; t < 64; t++) {
        int64_t i = (t * 2654435761u) % S, j = (t * 40503u + 17) % S;
        double acc = 0, mag = 0;
        for (int64_t p = 0; p < S; p++) {
            double v = (double)dec16(ha[i * S + p]) * dec16(b_trans ? hb[j * S + p] : hb[p * S + j]);
            acc += v;
            mag += fabs(v);
        }
        double e = fabs(dec16(hc[i * S + j]) - acc) / (mag + 1e-30);
        if (e > worst) worst = e;
    }
    return worst;
}

static int failures;

/* relative to the sum of |products|: a few roundings of the output */
static double tol(void) { return pdt == RS_BFLOAT16 ? 8e-3 : 2e-3; }

#define CALLS 10

/* seconds per call: a warm-up, then the best of 3 runs of CALLS calls per sync */
static double time_gemm(rs_stream *s, const rs_gemm_desc *d) {
    double best = 1e30;
    for (int rep = 0; rep < 4; rep++) {
        int calls = rep ? CALLS : 1;
        DIE(rs_stream_synchronize(s));
        double t1 = now();
        for (int c = 0; c < calls; c++) DIE(rs_gemm(s, d));
        DIE(rs_stream_synchronize(s));
        double t = (now() - t1) / calls;
        if (rep > 0 && t < best) best = t;
    }
    return best;
}

static uint16_t rnd16(uint32_t *x) {
    *x = *x * 1664525u + 1013904223u;
    return enc16(((*x >> 9) & 0xFFFF) / 32768.0f - 1.0f);
}

/* One rs_gemm in float16 or bfloat16 (pdt) with operand layouts la (A: 0 k-contiguous,
 * 1 m-contiguous, 2 every other element along k), lb (B: 0 n-contiguous,
 * 1 k-contiguous, 2 every other element along n), lc (C: 0 row-major,
 * 1 transposed), Cin row-major (use_cin 1) or laid out as C (2), checked in
 * full against the host. */
static void edge(rs_device *dev, rs_stream *s, int64_t batch, int64_t m, int64_t n, int64_t k, int la, int lb,
                 int lc, int use_cin, int reduce, float alpha, float beta) {
    int64_t nz = reduce ? 1 : batch, sa[3], sb[3], sc[3], sci[3] = {m * n, n, 1};
    int64_t na = batch * m * k * (la == 2 ? 2 : 1), nb = batch * k * n * (lb == 2 ? 2 : 1), nc = nz * m * n;
    if (la == 0) sa[0] = m * k, sa[1] = k, sa[2] = 1;
    else if (la == 1) sa[0] = m * k, sa[1] = 1, sa[2] = m;
    else sa[0] = 2 * m * k, sa[1] = 2 * k, sa[2] = 2;
    if (lb == 0) sb[0] = k * n, sb[1] = n, sb[2] = 1;
    else if (lb == 1) sb[0] = k * n, sb[1] = 1, sb[2] = k;
    else sb[0] = 2 * k * n, sb[1] = 2 * n, sb[2] = 2;
    if (lc == 0) sc[0] = m * n, sc[1] = n, sc[2] = 1;
    else sc[0] = m * n, sc[1] = 1, sc[2] = m;
    if (use_cin == 2) memcpy(sci, sc, sizeof sc); /* Cin laid out as C */
    uint16_t *a = malloc(na * 2), *b = malloc(nb * 2), *ci = malloc(nc * 2), *c = malloc(nc * 2);
    uint32_t x = (uint32_t)(m * 31 + n * 7 + k + la * 3 + lb * 5);
    for (int64_t i = 0; i < na; i++) a[i] = rnd16(&x);
    for (int64_t i = 0; i < nb; i++) b[i] = rnd16(&x);
    for (int64_t i = 0; i < nc; i++) ci[i] = rnd16(&x);
    uint64_t da, db, dc, dci;
    DIE(rs_alloc(dev, na * 2, s, &da));
    DIE(rs_alloc(dev, nb * 2, s, &db));
    DIE(rs_alloc(dev, nc * 2, s, &dc));
    DIE(rs_alloc(dev, nc * 2, s, &dci));
    DIE(rs_memcpy_htod(s, da, a, na * 2));
    DIE(rs_memcpy_htod(s, db, b, nb * 2));
    DIE(rs_memcpy_htod(s, dci, ci, nc * 2));
    rs_gemm_desc d;
    memset(&d, 0, sizeof d);
    d.dtype = pdt;
    d.batch = batch, d.m = m, d.n = n, d.k = k;
    d.a.address = da, d.b.address = db, d.c.address = dc, d.cin.address = dci;
    memcpy(d.a.stride, sa, sizeof sa);
    memcpy(d.b.stride, sb, sizeof sb);
    memcpy(d.c.stride, sc, sizeof sc);
    memcpy(d.cin.stride, sci, sizeof sci);
    d.alpha[0].f = alpha, d.beta[0].f = beta;
    d.use_cin = use_cin, d.reduce_batch = reduce;
    DIE(rs_gemm(s, &d));
    DIE(rs_memcpy_dtoh(s, c, dc, nc * 2));
    DIE(rs_stream_synchronize(s));
    double worst = 0;
    for (int64_t z = 0; z < nz; z++)
        for (int64_t i = 0; i < m; i++)
            for (int64_t j = 0; j < n; j++) {
                double acc = 0, mag = 0;
                for (int64_t r = 0; r < (reduce ? batch : 1); r++) {
                    int64_t bz = reduce ? r : z;
                    for (int64_t p = 0; p < k; p++) {
                        double v = (double)dec16(a[bz * sa[0] + i * sa[1] + p * sa[2]]) *
                                   dec16(b[bz * sb[0] + p * sb[1] + j * sb[2]]);
                        acc += v;
                        mag += fabs(v);
                    }
                }
                double cv = use_cin ? dec16(ci[z * sci[0] + i * sci[1] + j * sci[2]]) : 0;
                double ref = alpha * acc + beta * cv;
                double scale = fabs(alpha) * mag + fabs(beta * cv) + 1e-6;
                double e = fabs(dec16(c[z * sc[0] + i * sc[1] + j * sc[2]]) - ref) / scale;
                if (e > worst) worst = e;
            }
    int ok = worst < tol();
    failures += !ok;
    printf("  %s  %-28s batch %lld%s m %4lld n %4lld k %4lld A%d B%d C%d cin %d  max err %.2e\n", ok ? "ok  " : "FAIL",
           rs_gemm_kernel_name(s, &d), (long long)batch, reduce ? " (reduced)" : "", (long long)m, (long long)n,
           (long long)k, la, lb, lc, use_cin, worst);
    fflush(stdout);
    rs_free(dev, da), rs_free(dev, db), rs_free(dev, dc), rs_free(dev, dci);
    free(a), free(b), free(c), free(ci);
}

/* the host inputs in pdt, uploaded to da and db */
static void fill_inputs(rs_stream *s, uint64_t da, uint64_t db) {
    uint32_t x = 1;
    for (int64_t i = 0; i < S * S; i++) {
        ha[i] = rnd16(&x);
        hb[i] = rnd16(&x);
    }
    DIE(rs_memcpy_htod(s, da, ha, (uint64_t)(S * S * 2)));
    DIE(rs_memcpy_htod(s, db, hb, (uint64_t)(S * S * 2)));
    DIE(rs_stream_synchronize(s));
}

/* rs_gemm itself (the production choice) on S^3, B n- then k-contiguous */
static void time_production(rs_stream *s, uint64_t da, uint64_t db, uint64_t dc, double flop) {
    rs_gemm_desc d;
    memset(&d, 0, sizeof d);
    d.dtype = pdt;
    d.batch = 1, d.m = d.n = d.k = S;
    d.a.address = da, d.a.stride[1] = S, d.a.stride[2] = 1;
    d.b.address = db, d.b.stride[1] = S, d.b.stride[2] = 1;
    d.c.address = dc, d.c.stride[1] = S, d.c.stride[2] = 1;
    d.alpha[0].f = 1.0f;
    for (b_trans = 0; b_trans < 2; b_trans++) {
        if (b_trans) d.b.stride[1] = 1, d.b.stride[2] = S; /* x @ w.T: B k-contiguous */
        double best = time_gemm(s, &d);
        double err = check(s, dc);
        failures += !(err < tol());
        printf("rs_gemm %s (%s) %8.1f TFLOP/s  max rel err %.2e%s\n", rs_dtype_name(pdt), rs_gemm_kernel_name(s, &d),
               flop / best / 1e12, err, b_trans ? "  (B transposed)" : "");
        fflush(stdout);
    }
    b_trans = 0;
}

static void run_edges(rs_device *dev, rs_stream *s) {
    printf("edges (rs_gemm, %s, full check against the host):\n", rs_dtype_name(pdt));
    for (int la = 0; la < 3; la++)
        for (int lb = 0; lb < 3; lb++) edge(dev, s, 1, 200, 136, 72, la, lb, 0, 0, 0, 1.0f, 0.0f);
    edge(dev, s, 1, 130, 70, 45, 0, 0, 0, 0, 0, 1.0f, 0.0f);       /* k not a multiple of 8: gathered */
    edge(dev, s, 1, 64, 64, 32, 0, 0, 0, 0, 0, 1.0f, 0.0f);        /* the smallest KHR shape */
    edge(dev, s, 1, 257, 385, 1000, 1, 1, 0, 1, 0, 0.5f, 2.0f);    /* ragged tiles, alpha, beta * Cin */
    edge(dev, s, 3, 136, 200, 96, 0, 1, 1, 1, 0, -1.5f, 0.25f);    /* batched, transposed C */
    edge(dev, s, 4, 128, 128, 64, 0, 0, 0, 1, 1, 1.0f, 1.0f);      /* reduce_batch (addbmm) */
    edge(dev, s, 2, 96, 160, 40, 2, 2, 1, 0, 0, 1.0f, 0.0f);       /* gathered, transposed C */
    edge(dev, s, 2, 136, 264, 100, 1, 1, 1, 2, 0, 0.75f, -1.0f);   /* transposed A, B, C and Cin */
    edge(dev, s, 1, 520, 1032, 264, 0, 0, 0, 1, 0, 1.0f, 1.0f);    /* many ragged tiles, Cin */
    edge(dev, s, 3, 72, 96, 8000, 0, 1, 0, 0, 0, 1.0f, 0.0f);      /* a long k, batched */
    /* shapes the 128x256 tile divides (its whole-tile modules where that
     * tile is chosen or forced), every vector layout; the last one is large
     * enough for the 128x256 tile by default */
    for (int la = 0; la < 2; la++)
        for (int lb = 0; lb < 2; lb++) edge(dev, s, 2, 256, 512, 96, la, lb, 0, 1, 0, 1.0f, 0.5f);
    edge(dev, s, 1, 2048, 2048, 64, 0, 1, 0, 0, 0, 1.0f, 0.0f);
}

/* RUSSET_PIPELINE_STATS=1: the driver's statistics of each variant
 * (registers, spills, ...) on one line; with PROBE_IR_DIR, the internal
 * representations the driver gives, one file a variant there */
static void describe(rs_device *dev, rs_kernel *k, const char *name) {
    if (!getenv("RUSSET_PIPELINE_STATS")) return;
    const char *dir = getenv("PROBE_IR_DIR");
    size_t cap = (size_t)8 << 20;
    char *buf = malloc(cap);
    if (!buf) return;
    if (rs_kernel_describe(dev, k, dir != NULL, buf, cap) != RS_OK) {
        printf("  stats: %s\n", rs_last_error());
    } else {
        /* the statistics, one line: "name: value" lines joined */
        printf("  stats:");
        for (char *line = buf; *line && strncmp(line, "  representation", 16) != 0;) {
            char *nl = strchr(line, '\n');
            int len = nl ? (int)(nl - line) : (int)strlen(line);
            if (strncmp(line, "  ", 2) == 0) printf(" |%.*s", len - 1, line + 1);
            line = nl ? nl + 1 : line + len;
        }
        printf("\n");
        if (dir) {
            char path[512];
            snprintf(path, sizeof path, "%s/%s.txt", dir, name);
            FILE *f = fopen(path, "w");
            if (f) fputs(buf, f), fclose(f);
        }
    }
    free(buf);
}

int main(int argc, char **argv) {
    /* arguments: nv (the NV kernel's variants too), noedges, novariants */
    int nv = 0, edges = 1, variants_on = 1;
    for (int i = 1; i < argc; i++) {
        nv |= strcmp(argv[i], "nv") == 0;
        if (strcmp(argv[i], "noedges") == 0) edges = 0;
        if (strcmp(argv[i], "novariants") == 0) variants_on = 0;
    }
    if (getenv("GEMM_PROBE_S")) S = atoll(getenv("GEMM_PROBE_S")); /* a multiple of 256 */
    rs_device *dev;
    rs_stream *s;
    rs_device_info info;
    probe_open(&dev, &s, &info);
    size_t bytes = (size_t)(S * S * 2);
    ha = malloc(bytes), hb = malloc(bytes), hc = malloc(bytes);
    uint64_t da, db, dc;
    DIE(rs_alloc(dev, bytes, s, &da));
    DIE(rs_alloc(dev, bytes, s, &db));
    DIE(rs_alloc(dev, bytes, s, &dc));
    fill_inputs(s, da, db);
    double flop = 2.0 * S * S * S;

    int khr = rs_device_coopmat_khr(dev);
    printf("device %s | %s | VK_KHR_cooperative_matrix 16x16x16 float16: %s, bfloat16: %s\n", info.name, info.driver,
           (khr & RS_COOPMAT_KHR_F16) ? "yes" : "no", (khr & RS_COOPMAT_KHR_BF16) ? "yes" : "no");
    /* KHR modules (tools/build_spirv.py names them; bm x bn tiles), then
     * the NV kernel's; `ceiling`: timing-only variants whose results are wrong */
    struct { const char *src; const char *defines; int bm, bn; int bt; int ceiling; } variants[] = {
        {NULL, "gemm_coopmat_khr_w4x4_a1b1", 128, 256, 0, 0},     /* production: 16 subgroups of 32x64 */
        {NULL, "gemm_coopmat_khr_w4x4_a1b2", 128, 256, 1, 0},
        {NULL, "gemm_coopmat_khr_w4s1_a1b1", 128, 256, 0, 0},     /* 8 subgroups of 64x64 */
        {NULL, "gemm_coopmat_khr_w4s1_a1b2", 128, 256, 1, 0},
        {NULL, "gemm_coopmat_khr_w2s1_a1b1", 128, 128, 0, 0},
        {NULL, "gemm_coopmat_khr_w4x4p1_a1b1", 128, 256, 0, 1},   /* no global loads in the k loop */
        {NULL, "gemm_coopmat_khr_w4x4p2_a1b1", 128, 256, 0, 1},   /* no shared fragment loads */
        {NULL, "gemm_coopmat_khr_w4x4f_a1b1", 128, 256, 0, 0},    /* production, whole tiles: no bounds branch */
        {NULL, "gemm_coopmat_khr_w4x4f_a1b2", 128, 256, 1, 0},
        {NULL, "gemm_coopmat_khr_w2x8f_a1b1", 128, 256, 0, 0},
        {NULL, "gemm_coopmat_khr_w4x4sw8_a1b1", 128, 256, 0, 0},  /* L2 groups of 8 tile rows */
        {NULL, "gemm_coopmat_khr_w8x2_a1b1", 256, 128, 0, 0},     /* 256x128, 16 subgroups of 32x64 */
        {NULL, "gemm_coopmat_khr_w2x8_a1b1", 128, 256, 0, 0},     /* 16 subgroups of 64x32 */
        {NULL, "gemm_coopmat_khr_w2x4_a1b1", 128, 128, 0, 0},     /* 128x128, 8 subgroups of 32x64 */
        {NULL, "gemm_coopmat_khr_w4x4fpf2_a1b1", 128, 256, 0, 0}, /* whole tiles, two slices in flight */
        {NULL, "gemm_coopmat_khr_w4x4fpf2_a1b2", 128, 256, 1, 0},
        /* the device's float16 conversions in the epilogue (right where the
         * start-up check passes): one slice in flight, then production (two) */
        {NULL, "gemm_coopmat_khr_w4x4fh_a1b1", 128, 256, 0, 0},
        {NULL, "gemm_coopmat_khr_w4x4hf_a1b1", 128, 256, 0, 0},
        {NULL, "gemm_coopmat_khr_w4x4hf_a1b2", 128, 256, 1, 0},
        {NULL, "gemm_coopmat_khr_w4x4h_a1b1", 128, 256, 0, 0},     /* bounds-checked */
        /* bfloat16 (inputs refilled in bfloat16 before the first) */
        {NULL, "gemm_coopmat_khr_bf16_w4x4f_a1b1", 128, 256, 0, 0},    /* production: two slices in flight */
        {NULL, "gemm_coopmat_khr_bf16_w4x4f_a1b2", 128, 256, 1, 0},
        {NULL, "gemm_coopmat_khr_bf16_w4x4fone_a1b1", 128, 256, 0, 0}, /* one slice in flight */
        {NULL, "gemm_coopmat_khr_bf16_w2x8f_a1b1", 128, 256, 0, 0},
        {NULL, "gemm_coopmat_khr_bf16_w4x4_a1b1", 128, 256, 0, 0},     /* bounds-checked, two slices in flight */
        {NULL, "gemm_coopmat_khr_bf16_w4x4one_a1b1", 128, 256, 0, 0},  /* bounds-checked, one */
        {"gemm_coopmat.comp", "DT=5;VEC_A=1;VEC_B=1;VARIANT=0;FN=4", 128, 256, 0, 0},
        {"gemm_coopmat.comp", "DT=5;VEC_A=1;VEC_B=1;VARIANT=0;FN=2", 128, 128, 0, 0},
        {"gemm_coopmat.comp", "DT=5;VEC_A=1;VEC_B=1;VARIANT=1;FN=4", 128, 256, 0, 0},
        {"gemm_coopmat.comp", "DT=5;VEC_A=1;VEC_B=1;VARIANT=1;FN=2", 128, 128, 0, 0},
        {"gemm_coopmat.comp", "DT=5;VEC_A=1;VEC_B=1;VARIANT=2;FN=4", 128, 256, 0, 1}, /* multiply-adds alone */
        {"gemm_coopmat.comp", "DT=5;VEC_A=1;VEC_B=1;VARIANT=2;FN=2", 128, 128, 0, 1},
    };
    for (size_t v = 0; v < sizeof variants / sizeof variants[0]; v++) {
        rs_kernel *k;
        if (!variants_on || (variants[v].src ? !nv : !(khr & RS_COOPMAT_KHR_F16))) continue;
        rs_dtype vdt = !variants[v].src && strstr(variants[v].defines, "_bf16_") ? RS_BFLOAT16 : RS_FLOAT16;
        if (vdt == RS_BFLOAT16 && !(khr & RS_COOPMAT_KHR_BF16)) continue;
        if (vdt != pdt) {
            pdt = vdt;
            fill_inputs(s, da, db);
        }
        double t0 = now();
        rs_status st = variants[v].src ? rs_kernel_get(dev, variants[v].src, variants[v].defines, &k)
                                       : rs_kernel_spirv(dev, variants[v].defines, &k);
        if (st != RS_OK) {
            printf("%-40s compile failed: %s\n", variants[v].defines, rs_last_error());
            failures++;
            continue;
        }
        double tc = now() - t0;
        describe(dev, k, variants[v].defines);
        b_trans = variants[v].bt;
        gemm_params p;
        memset(&p, 0, sizeof p);
        p.a = da, p.b = db, p.c = dc;
        p.m = p.n = p.k = S;
        p.batch = 1;
        p.sa[1] = S, p.sa[2] = 1, p.sc[1] = S, p.sc[2] = 1;
        if (b_trans) p.sb[1] = 1, p.sb[2] = S;
        else p.sb[1] = S, p.sb[2] = 1;
        float one = 1.0f;
        uint32_t ob;
        memcpy(&ob, &one, 4);
        p.alpha[0] = ob;
        p.tiles_m = (S + variants[v].bm - 1) / variants[v].bm;
        p.tiles_n = (S + variants[v].bn - 1) / variants[v].bn;
        uint32_t groups[3] = {(uint32_t)p.tiles_n, (uint32_t)p.tiles_m, 1};
        rs_access acc[3] = {{da, bytes, 0}, {db, bytes, 0}, {dc, bytes, 1}};
        double best = 1e30;
        for (int rep = 0; rep < 4; rep++) {
            int calls = rep ? CALLS : 1; /* a warm-up, then CALLS dispatches per sync */
            DIE(rs_stream_synchronize(s));
            double t1 = now();
            for (int c = 0; c < calls; c++) {
                void *host;
                uint64_t addr;
                DIE(rs_stream_arena(s, sizeof p, &host, &addr));
                memcpy(host, &p, sizeof p);
                DIE(rs_dispatch(s, k, groups, &addr, 8, acc, 3));
            }
            DIE(rs_stream_synchronize(s));
            double t = (now() - t1) / calls;
            if (rep > 0 && t < best) best = t;
        }
        double err = check(s, dc);
        int bad = !(err < tol()) && !variants[v].ceiling;
        failures += bad;
        printf("%-40s %8.1f TFLOP/s  (pipeline %.2f s)  max rel err %.2e%s%s\n", variants[v].defines,
               flop / best / 1e12, tc, err, b_trans ? "  (B transposed)" : "",
               bad ? "  WRONG" : variants[v].ceiling ? "  (timing only)" : "");
        fflush(stdout);
    }
    b_trans = 0;
    if (pdt != RS_FLOAT16) {
        pdt = RS_FLOAT16;
        fill_inputs(s, da, db);
    }
    time_production(s, da, db, dc, flop);
    if (edges) run_edges(dev, s);
    if (khr & RS_COOPMAT_KHR_BF16) {
        pdt = RS_BFLOAT16;
        fill_inputs(s, da, db);
        time_production(s, da, db, dc, flop);
        if (edges) run_edges(dev, s);
        pdt = RS_FLOAT16;
    }
    rs_free(dev, da), rs_free(dev, db), rs_free(dev, dc);
    printf("%s\n", failures ? "gemm-probe: WRONG RESULTS" : "gemm-probe: all results match the host");
    rs_shutdown();
    return failures ? 1 : 0;
}
