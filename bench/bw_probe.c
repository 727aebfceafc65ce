/* bw_probe.c: times variants of the bandwidth-bound kernels (copy.comp's
 * float32 -> float16 path, pointwise.comp's 16-byte path with exp and add,
 * softmax.comp on 4096 x 4096) through their tuning defines, with the C core
 * only (no torch: it builds in seconds on the GPU machine; bench/gpu.sh
 * probe). Each variant's output is checked against the first variant's (the
 * production one) or against a host computation. A tool for tuning, not a
 * benchmark against a peer: bench_pointwise.py and bench_reduce.py give the
 * ratios to torch CUDA. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "engine/engine.h"
#include "russet/russet.h"
#include "probe_common.h"

typedef struct copy_push {
    uint64_t dst, src, params, numel;
    uint32_t ndim, pad;
} copy_push;

typedef struct pw_push {
    uint64_t out, in[4], params, numel, s[4], err;
    uint32_t ndim, site;
} pw_push;

typedef struct sm_push {
    uint64_t a, b, out, outer, n, inner, err;
    uint32_t tpo, site;
} sm_push;

static rs_device *dev;
static rs_stream *s;

/* best time of one dispatch: `per` dispatches between syncs, best of 10,
 * after 0.2 s of the same work (an idle H200 runs its SMs at a fraction of
 * their clock, and ramps up under load) */
static double time_kernel(rs_kernel *k, uint32_t groups, const void *pc, uint32_t size, const rs_access *acc,
                          int nacc) {
    uint32_t g[3] = {groups, 1, 1};
    const int per = 50;
    double t_warm = now();
    while (now() - t_warm < 0.2) {
        for (int i = 0; i < 10; i++) DIE(rs_dispatch(s, k, g, pc, size, acc, nacc));
        DIE(rs_stream_synchronize(s));
    }
    double best = 1e30;
    for (int r = 0; r < 10; r++) {
        double t0 = now();
        for (int i = 0; i < per; i++) DIE(rs_dispatch(s, k, g, pc, size, acc, nacc));
        DIE(rs_stream_synchronize(s));
        double t = (now() - t0) / per;
        if (t < best) best = t;
    }
    return best;
}

/* best time of one round of `per` dispatches and one sync (bench_pointwise.py
 * times torch the same way with per = 10), after the same warm-up */
static double time_round(rs_kernel *k, uint32_t groups, const void *pc, uint32_t size, const rs_access *acc,
                         int nacc, int per) {
    uint32_t g[3] = {groups, 1, 1};
    double t_warm = now(), best = 1e30;
    while (now() - t_warm < 0.2) {
        for (int i = 0; i < per; i++) DIE(rs_dispatch(s, k, g, pc, size, acc, nacc));
        DIE(rs_stream_synchronize(s));
    }
    for (int r = 0; r < 20; r++) {
        double t0 = now();
        for (int i = 0; i < per; i++) DIE(rs_dispatch(s, k, g, pc, size, acc, nacc));
        DIE(rs_stream_synchronize(s));
        double t = now() - t0;
        if (t < best) best = t;
    }
    return best;
}

static rs_kernel *kernel(const char *src, const char *defines) {
    rs_kernel *k = NULL;
    if (rs_kernel_get(dev, src, defines, &k) != RS_OK) {
        printf("  %-60s compile failed: %s\n", defines, rs_last_error());
        return NULL;
    }
    return k;
}

static uint32_t groups_for(uint64_t items) {
    uint64_t g = (items + 255) / 256;
    return (uint32_t)(g > (1u << 22) ? (1u << 22) : g);
}

/* float64 exp through the 16-byte path against the host's exp: max
 * relative error */
static int fp64_check(void) {
    const uint64_t n = 3 * 4096;
    double *hx = malloc(n * 8), *hy = malloc(n * 8);
    uint64_t x = 7;
    for (uint64_t i = 0; i < n; i++) {
        x = x * 6364136223846793005ull + 1442695040888963407ull;
        double u = (double)(x >> 11) / 9007199254740992.0;
        hx[i] = i < 4096 ? (u * 6 - 3) : i < 8192 ? (u * 1400 - 700) : (u * 2 - 1);
    }
    uint64_t da, dout;
    DIE(rs_alloc(dev, n * 8, s, &da));
    DIE(rs_alloc(dev, n * 8, s, &dout));
    DIE(rs_memcpy_htod(s, da, hx, n * 8));
    const char *knobs[] = {"VQ=2", "VQ=1"};
    for (int v = 0; v < 2; v++) {
        char d[300];
        snprintf(d, sizeof d, "NIN=1;NT=2;OUT_DT=7;CM_DT=7;CT_DT=7;RT_DT=7;IN0_DT=7;IN0_S=0;IN0_L=1;"
                 "CONTIG=1;VECW=2;%s;EXPR=rs_op_exp(a)", knobs[v]);
        rs_kernel *k = kernel("pointwise.comp", d);
        if (!k) continue;
        pw_push pc;
        memset(&pc, 0, sizeof pc);
        pc.out = dout, pc.in[0] = da, pc.numel = n, pc.err = rs_device_error_address(dev);
        rs_access acc[2] = {{dout, n * 8, 1}, {da, n * 8, 0}};
        uint32_t g[3] = {groups_for(n / 2), 1, 1};
        DIE(rs_dispatch(s, k, g, &pc, sizeof pc, acc, 2));
        DIE(rs_memcpy_dtoh(s, hy, dout, n * 8));
        double worst = 0;
        uint64_t at = 0;
        for (uint64_t i = 0; i < n; i++) {
            double e = exp(hx[i]);
            if (!isfinite(e) || e == 0) continue;
            double r = fabs(hy[i] - e) / e;
            if (r > worst) worst = r, at = i;
        }
        printf("float64 exp %-14s max rel err %.2e (x = %.17g: got %.17g, host %.17g)\n", knobs[v], worst, hx[at],
               hy[at], exp(hx[at]));
    }
    /* the production path: rs_pointwise_run, as torch.exp calls it */
    rs_pointwise p;
    memset(&p, 0, sizeof p);
    p.name = "exp", p.expr = "rs_op_exp(a)";
    p.common = p.compute = p.result = RS_FLOAT64;
    p.ninputs = 1;
    p.out.address = dout, p.out.dtype = RS_FLOAT64, p.out.ndim = 1, p.out.sizes[0] = (int64_t)n, p.out.strides[0] = 1;
    p.in[0] = p.out, p.in[0].address = da;
    DIE(rs_pointwise_run(s, &p));
    DIE(rs_memcpy_dtoh(s, hy, dout, n * 8));
    double worst = 0;
    uint64_t at = 0;
    for (uint64_t i = 0; i < n; i++) {
        double e = exp(hx[i]);
        if (!isfinite(e) || e == 0) continue;
        double r = fabs(hy[i] - e) / e;
        if (r > worst) worst = r, at = i;
    }
    printf("float64 exp rs_pointwise_run max rel err %.2e (x = %.17g: got %.17g, host %.17g)\n", worst, hx[at],
           hy[at], exp(hx[at]));
    rs_shutdown();
    return 0;
}

int main(int argc, char **argv) {
    rs_device_info info;
    probe_open(&dev, &s, &info);
    if (argc > 1 && strcmp(argv[1], "fp64") == 0) return fp64_check();
    printf("float16 conversions in kernels: %s\n",
           info.float16_conversions > 0 ? "the device's (matched c10's)" : "c10's, in software");
    /* elements (a multiple of 4096 * 4096 / 4 for the softmax rows) */
    const uint64_t N = argc > 1 ? strtoull(argv[1], NULL, 0) : 64ull << 20;
    float *hx = malloc(N * 4), *hy = malloc(N * 4), *hr = malloc(N * 4);
    uint16_t *hh = malloc(N * 2), *hh2 = malloc(N * 2);
    uint32_t x = 12345;
    for (uint64_t i = 0; i < N; i++) {
        x = x * 1664525u + 1013904223u;
        hx[i] = ((x >> 8) / 16777216.0f) * 20.0f - 10.0f;  /* [-10, 10) */
        x = x * 1664525u + 1013904223u;
        hy[i] = ((x >> 8) / 16777216.0f) * 2.0f - 1.0f;
    }
    uint64_t da, db, dout;
    DIE(rs_alloc(dev, N * 4, s, &da));
    DIE(rs_alloc(dev, N * 4, s, &db));
    DIE(rs_alloc(dev, N * 4, s, &dout));
    DIE(rs_memcpy_htod(s, da, hx, N * 4));
    DIE(rs_memcpy_htod(s, db, hy, N * 4));
    DIE(rs_stream_synchronize(s));

    /* ---- the ceiling: vkCmdCopyBuffer of 256 MiB */
    {
        double best = 1e30;
        for (int r = 0; r < 5; r++) {
            DIE(rs_stream_synchronize(s));
            double t0 = now();
            for (int i = 0; i < 20; i++) DIE(rs_memcpy_dtod(s, dout, da, N * 4));
            DIE(rs_stream_synchronize(s));
            double t = (now() - t0) / 20;
            if (t < best) best = t;
        }
        printf("vkCmdCopyBuffer 256 MiB: %.0f GB/s (read + write)\n", 2.0 * N * 4 / best / 1e9);
    }

    /* ---- copy.comp: float32 -> float16, 64M */
    printf("\ncast float32 -> float16, %llu elements (GB/s = 6 bytes an element)\n", (unsigned long long)N);
    for (uint64_t i = 0; i < N; i++) hh[i] = rs_f16_from_f32(hx[i]);
    struct { const char *d; int cq; uint32_t cap; } cv[] = {
        {"CQ=2;CSPLIT=0", 2, 0}, {"CQ=1;CSPLIT=1", 1, 0}, {"CQ=2;CSPLIT=1", 2, 0}, {"CQ=4;CSPLIT=1", 4, 0},
    };
    for (size_t v = 0; v < sizeof cv / sizeof cv[0]; v++) {
        char d[160];
        snprintf(d, sizeof d, "SRC_DT=6;DST_DT=5;CONTIG=1;VEC4=1;%s", cv[v].d);
        rs_kernel *k = kernel("copy.comp", d);
        if (!k) continue;
        copy_push pc = {dout, da, 0, N, 0, 0};
        rs_access acc[2] = {{da, N * 4, 0}, {dout, N * 2, 1}};
        uint64_t items = (N / 4 + cv[v].cq - 1) / cv[v].cq;
        uint32_t groups = groups_for(items);
        if (cv[v].cap && groups > cv[v].cap) groups = cv[v].cap;
        memset(hh2, 0, N * 2);
        DIE(rs_memcpy_htod(s, dout, hh2, N * 2));
        double t = time_kernel(k, groups, &pc, sizeof pc, acc, 2);
        DIE(rs_memcpy_dtoh(s, hh2, dout, N * 2));
        printf("  %-32s %6u groups %7.0f GB/s  %s\n", cv[v].d, groups, 6.0 * N / t / 1e9,
               memcmp(hh, hh2, N * 2) ? "WRONG" : "ok");
        fflush(stdout);
    }

    /* ---- pointwise.comp's 16-byte path, 256 MiB a tensor: every variant
     * timed first, then each checked (a host read between timings slowed
     * the later ones in the first run) */
    printf("\npointwise, 256 MiB a tensor, 16-byte path (GB/s = bytes read + written)\n");
    struct { const char *expr; int nin, dt; const char *knobs; uint32_t cap; } pv[] = {
        {"rs_op_exp(a)", 1, 6, "VQ=2", 0},
        {"rs_op_exp(a)", 1, 6, "VQ=1", 0},
        {"rs_op_exp(a)", 1, 6, "VQ=2;PW_WG=128", 0},
        {"rs_op_exp(a)", 1, 6, "VQ=2;PW_WG=512", 0},
        {"rs_op_exp(a)", 1, 6, "VQ=1;PW_WG=128", 0},
        {"rs_op_exp(a)", 1, 6, "VQ=1;PW_WG=512", 0},
        {"a", 1, 6, "VQ=2", 0},
        {"a", 1, 6, "VQ=1", 0},
        {"a", 1, 6, "VQ=1;PW_WG=128", 0},
        {"a", 1, 6, "VQ=1;PW_WG=512", 0},
        {"a + b", 2, 6, "VQ=2", 0},
        {"a + b", 2, 6, "VQ=1", 0},
        {"a + b", 2, 1, "VQ=2", 0},
        {"a + b", 2, 1, "VQ=1", 0},
        /* float16 (the float32 data's bits as halves: NaNs, infinities and
         * subnormals included), through the conversions the device's check
         * chose (printed above; RUSSET_HW_F16=0 forces c10's software ones) */
        {"a + b", 2, 5, "VQ=1", 0},
        {"a + b", 2, 5, "VQ=2", 0},
    };
    enum { NPV = sizeof pv / sizeof pv[0] };
    rs_kernel *pk[NPV];
    pw_push ppc[NPV];
    uint32_t pgroups[NPV];
    int pnacc[NPV];
    rs_access pacc[3] = {{dout, N * 4, 1}, {da, N * 4, 0}, {db, N * 4, 0}};
    for (int v = 0; v < NPV; v++) {
        char d[400];
        int dt = pv[v].dt, esz = dt == 6 ? 4 : dt == 5 ? 2 : 1, vecw = 16 / esz;
        if (pv[v].nin == 1)
            snprintf(d, sizeof d, "NIN=1;NT=2;OUT_DT=%d;CM_DT=%d;CT_DT=%d;RT_DT=%d;IN0_DT=%d;IN0_S=0;IN0_L=1;"
                     "CONTIG=1;VECW=%d;%s;EXPR=%s", dt, dt, dt, dt, dt, vecw, pv[v].knobs, pv[v].expr);
        else
            snprintf(d, sizeof d, "NIN=2;NT=3;OUT_DT=%d;CM_DT=%d;CT_DT=%d;RT_DT=%d;IN0_DT=%d;IN0_S=0;IN0_L=1;"
                     "IN1_DT=%d;IN1_S=0;IN1_L=2;CONTIG=1;VECW=%d;%s;EXPR=%s", dt, dt, dt, dt, dt, dt, vecw,
                     pv[v].knobs, pv[v].expr);
        pk[v] = kernel("pointwise.comp", d);
        memset(&ppc[v], 0, sizeof ppc[v]);
        ppc[v].out = dout, ppc[v].in[0] = da, ppc[v].in[1] = db, ppc[v].err = rs_device_error_address(dev);
        ppc[v].numel = N * 4 / esz;
        int vq = strstr(pv[v].knobs, "VQ=4") ? 4 : strstr(pv[v].knobs, "VQ=2") ? 2 : 1;
        uint64_t wg = strstr(pv[v].knobs, "PW_WG=128") ? 128 : strstr(pv[v].knobs, "PW_WG=512") ? 512 : 256;
        pgroups[v] = groups_for(N / 4 / vq * 256 / wg);  /* N * 4 bytes in 16-byte words */
        if (pv[v].cap && pgroups[v] > pv[v].cap) pgroups[v] = pv[v].cap;
        pnacc[v] = 1 + pv[v].nin;
    }
    double pt[NPV];
    for (int v = 0; v < NPV; v++)
        if (pk[v]) pt[v] = time_kernel(pk[v], pgroups[v], &ppc[v], sizeof ppc[v], pacc, pnacc[v]);
    float *pref[4] = {NULL, NULL, NULL, NULL};
    for (int v = 0; v < NPV; v++) {
        if (!pk[v]) continue;
        uint32_t g[3] = {pgroups[v], 1, 1};
        DIE(rs_dispatch(s, pk[v], g, &ppc[v], sizeof ppc[v], pacc, pnacc[v]));
        DIE(rs_memcpy_dtoh(s, hr, dout, N * 4));
        int slot = strcmp(pv[v].expr, "rs_op_exp(a)") == 0 ? 0 : strcmp(pv[v].expr, "a + b") != 0 ? -1
                 : pv[v].dt == 6 ? 1 : pv[v].dt == 5 ? 3 : 2;
        const char *verdict = "";
        if (slot >= 0 && !pref[slot]) {
            pref[slot] = malloc(N * 4);
            memcpy(pref[slot], hr, N * 4);
            verdict = "(reference)";
        } else if (slot >= 0) {
            verdict = memcmp(pref[slot], hr, N * 4) ? "DIFFERENT BITS" : "same bits";
        }
        double bytes = (double)N * 4 * (1 + pv[v].nin);
        printf("  %-14s %-5s %-22s %6u groups %7.0f GB/s  %s\n", pv[v].expr, pv[v].dt == 6 ? "f32" : pv[v].dt == 5 ? "f16" : "int8",
               pv[v].knobs, pgroups[v], bytes / pt[v] / 1e9, verdict);
        fflush(stdout);
    }
    if (pk[0])
        printf("  again after the host reads: %s %s %7.0f GB/s\n", pv[0].expr, pv[0].knobs,
               (double)N * 8 / time_kernel(pk[0], pgroups[0], &ppc[0], sizeof ppc[0], pacc, 2) / 1e9);
    if (pk[0]) {
        printf("  %s %s, rounds of 10 dispatches and a sync: %7.0f GB/s\n", pv[0].expr, pv[0].knobs,
               (double)N * 8 * 10 / time_round(pk[0], pgroups[0], &ppc[0], sizeof ppc[0], pacc, 2, 10) / 1e9);
        printf("  one dispatch of 256 elements and a sync: %.1f us\n",
               1e6 * time_round(pk[0], 1, &(pw_push){.out = dout, .in = {da}, .numel = 256,
                                                      .err = rs_device_error_address(dev)},
                                sizeof(pw_push), pacc, 2, 1));
    }
    /* PROBE_QUICK=1: the copy and pointwise kernels only (bench/gpu.sh runs
     * the probe again under each of PROBE_ENVS) */
    if (getenv("PROBE_QUICK") && atoi(getenv("PROBE_QUICK"))) return 0;

    /* ---- softmax.comp over 4096 x 4096 float32, last dim: timed, then
     * the production variant checked against a host softmax in double */
    printf("\nsoftmax float32 (4096, 4096), last dim (GB/s = 2 x 64 MiB)\n");
    const uint64_t C = 4096, R = N / C < 4096 ? N / C : 4096;
    struct { const char *d; uint32_t tpo; } sv[] = {
        {"ROWREG=16;SMVEC=1", 256},
        {"ROWREG=0;SMVEC=0", 64},
    };
    rs_access sacc[2] = {{da, R * C * 4, 0}, {dout, R * C * 4, 1}};
    for (size_t v = 0; v < sizeof sv / sizeof sv[0]; v++) {
        for (int mode = 0; mode < 2; mode++) {
            char d[200];
            snprintf(d, sizeof d, "MODE=%d;A_DT=6;B_DT=6;OUT_DT=6;%s", mode, sv[v].d);
            rs_kernel *k = kernel("softmax.comp", d);
            if (!k) continue;
            sm_push pc;
            memset(&pc, 0, sizeof pc);
            pc.a = pc.b = da, pc.out = dout, pc.outer = R, pc.n = C, pc.inner = 1;
            pc.err = rs_device_error_address(dev);
            pc.tpo = sv[v].tpo;
            uint32_t groups = (uint32_t)((R + 256 / sv[v].tpo - 1) / (256 / sv[v].tpo));
            double t = time_kernel(k, groups, &pc, sizeof pc, sacc, 2);
            printf("  %s %-22s tpo %3u %7.0f GB/s\n", mode ? "log_softmax" : "softmax    ", sv[v].d, sv[v].tpo,
                   2.0 * R * C * 4 / t / 1e9);
            fflush(stdout);
            if (v == 0 && mode == 0) {
                uint32_t g[3] = {groups, 1, 1};
                DIE(rs_dispatch(s, k, g, &pc, sizeof pc, sacc, 2));
                DIE(rs_memcpy_dtoh(s, hr, dout, R * C * 4));
                double worst = 0;
                for (int t2 = 0; t2 < 16; t2++) {
                    uint64_t r = (t2 * 2654435761u) % R;
                    const float *xr = hx + r * C;
                    double m = -INFINITY, sum = 0;
                    for (uint64_t j = 0; j < C; j++) m = xr[j] > m ? xr[j] : m;
                    for (uint64_t j = 0; j < C; j++) sum += exp(xr[j] - m);
                    for (uint64_t j = 0; j < C; j++) {
                        double e = fabs(hr[r * C + j] - exp(xr[j] - m) / sum) / (exp(xr[j] - m) / sum);
                        if (e > worst) worst = e;
                    }
                }
                printf("    (max rel err against double on 16 rows: %.1e)\n", worst);
            }
        }
    }

    /* ---- the radix sort of 16M float32 (src/engine/sort.c): the whole
     * rs_sort, then each of its kernels alone, to see where the time goes */
    {
        const uint64_t n = N / 4 < (16u << 20) ? N / 4 : (16u << 20);
        printf("\nsort of %llu float32 (values and int64 indices)\n", (unsigned long long)n);
        uint64_t vals, inds;
        DIE(rs_alloc(dev, n * 4, s, &vals));
        DIE(rs_alloc(dev, n * 8, s, &inds));
        rs_tensor src, tv, ti;
        memset(&src, 0, sizeof src);
        src.address = da, src.dtype = RS_FLOAT32, src.ndim = 1, src.sizes[0] = (int64_t)n, src.strides[0] = 1;
        tv = src, tv.address = vals;
        ti = src, ti.address = inds, ti.dtype = RS_INT64;
        /* the scatter's rankings (RUSSET_SORT_RANK, RUSSET_SORT_ITEMS): the
         * shared-memory scan, and subgroup ballots with 4 and 8 elements per
         * invocation where the device has ballots */
        static const struct { const char *rank, *items; int r; uint32_t it; } cfgs[3] = {
            {"shared", "4", 1, 4}, {"subgroup", "4", 2, 4}, {"subgroup", "8", 2, 8}};
        int ballots = rs_device_features(dev)->has_subgroup_ballot;
        for (int c = 0; c < 3; c++) {
        if (cfgs[c].r == 2 && !ballots) continue;
        setenv("RUSSET_SORT_RANK", cfgs[c].rank, 1);
        setenv("RUSSET_SORT_ITEMS", cfgs[c].items, 1);
        printf(" ranking %s, %u elements per invocation\n", cfgs[c].rank, cfgs[c].it);
        double best = 1e30;
        for (int r = 0; r < 6; r++) {
            DIE(rs_stream_synchronize(s));
            double t0 = now();
            DIE(rs_sort(s, &src, 0, (int64_t)n, &tv, &ti));
            DIE(rs_stream_synchronize(s));
            double t = now() - t0;
            if (r > 0 && t < best) best = t;
        }
        printf("  rs_sort                      %8.3f ms\n", best * 1e3);
        /* its parts (sort.c's radix_pairs), each timed alone */
        const uint32_t CH = 256 * cfgs[c].it;
        uint64_t nb = (n + CH - 1) / CH;
        uint64_t keys, idx, keys2, idx2, hist, incl;
        DIE(rs_alloc(dev, n * 4, s, &keys));
        DIE(rs_alloc(dev, n * 4, s, &idx));
        DIE(rs_alloc(dev, n * 4, s, &keys2));
        DIE(rs_alloc(dev, n * 4, s, &idx2));
        DIE(rs_alloc(dev, 16 * nb * 4, s, &hist));
        DIE(rs_alloc(dev, 16 * nb * 8, s, &incl));
        typedef struct {
            uint64_t src, keys, idx, keys_out, idx_out, hist, incl, values, indices, err;
            uint32_t n, rows, nb, shift, site, pad;
        } radix_pc;
        uint64_t err = rs_device_error_address(dev);
        uint32_t site = rs_device_error_site(dev, "bw_probe sort");
        /* the first pass reads src (shift 0); a later one the first's output (shift 4) */
        radix_pc rp[2] = {{da, 0, 0, keys, idx, hist, incl, 0, 0, err, (uint32_t)n, 1, (uint32_t)nb, 0, site, 0},
                          {da, keys, idx, keys2, idx2, hist, incl, 0, 0, err, (uint32_t)n, 1, (uint32_t)nb, 4, site, 0}};
        char d2[128], d3[128];
        snprintf(d2, sizeof d2, "MODE=2;IN_DT=6;KEY64=0;DESC=0;ITEMS=%u;RANK=0", cfgs[c].it);
        snprintf(d3, sizeof d3, "MODE=3;IN_DT=6;KEY64=0;DESC=0;ITEMS=%u;RANK=%d", cfgs[c].it, cfgs[c].r);
        rs_kernel *k2 = kernel("sort_radix.comp", d2);
        rs_kernel *k3 = kernel("sort_radix.comp", d3);
        rs_access a2[2][2] = {{{da, n * 4, 0}, {hist, 16 * nb * 4, 1}}, {{keys, n * 4, 0}, {hist, 16 * nb * 4, 1}}};
        rs_access a3[2][6] = {{{da, n * 4, 0}, {da, n * 4, 0}, {hist, 16 * nb * 4, 0}, {incl, 16 * nb * 8, 0},
                               {keys, n * 4, 1}, {idx, n * 4, 1}},
                              {{keys, n * 4, 0}, {idx, n * 4, 0}, {hist, 16 * nb * 4, 0}, {incl, 16 * nb * 8, 0},
                               {keys2, n * 4, 1}, {idx2, n * 4, 1}}};
        uint32_t gcap = (uint32_t)(nb > 65535 ? 65535 : nb);
        if (k2 && k3) {
            rs_tensor th, tin;
            memset(&th, 0, sizeof th);
            th.address = hist, th.dtype = RS_UINT32, th.ndim = 2, th.sizes[0] = 1, th.sizes[1] = (int64_t)(16 * nb);
            th.strides[0] = (int64_t)(16 * nb), th.strides[1] = 1;
            tin = th, tin.address = incl, tin.dtype = RS_INT64;
            double tp[2] = {0, 0};
            for (int q = 0; q < 2; q++) {
                uint32_t g[3] = {gcap, 1, 1};
                /* one real pass first: offsets that match the keys (and, for
                 * q = 0, the keys the later pass reads) */
                DIE(rs_dispatch(s, k2, g, &rp[q], sizeof rp[q], a2[q], 2));
                DIE(rs_scan(s, RS_SCAN_SUM, &th, &tin, NULL));
                DIE(rs_dispatch(s, k3, g, &rp[q], sizeof rp[q], a3[q], 6));
                double t2 = time_kernel(k2, gcap, &rp[q], sizeof rp[q], a2[q], 2);
                double ts = 1e30;
                for (int r = 0; r < 5; r++) {
                    DIE(rs_stream_synchronize(s));
                    double t0 = now();
                    for (int i = 0; i < 20; i++) DIE(rs_scan(s, RS_SCAN_SUM, &th, &tin, NULL));
                    DIE(rs_stream_synchronize(s));
                    double t = (now() - t0) / 20;
                    if (t < ts) ts = t;
                }
                double t3 = time_kernel(k3, gcap, &rp[q], sizeof rp[q], a3[q], 6);
                const char *what = q == 0 ? "first pass (reads src)" : "later pass";
                printf("  %-22s histogram %8.3f ms %6.0f GB/s | scan %8.3f ms (%llu counters) | scatter %8.3f ms %6.0f GB/s\n",
                       what, t2 * 1e3, 4.0 * n / t2 / 1e9, ts * 1e3, (unsigned long long)(16 * nb), t3 * 1e3,
                       (q == 0 ? 12.0 : 16.0) * n / t3 / 1e9);
                tp[q] = t2 + ts + t3;
            }
            printf("  first + 7 x later = %.3f ms; the rest of rs_sort %.3f ms\n", (tp[0] + 7 * tp[1]) * 1e3,
                   (best - tp[0] - 7 * tp[1]) * 1e3);
        }
        rs_free(dev, keys); rs_free(dev, idx); rs_free(dev, keys2); rs_free(dev, idx2);
        rs_free(dev, hist); rs_free(dev, incl);
        }
        unsetenv("RUSSET_SORT_RANK");
        unsetenv("RUSSET_SORT_ITEMS");
    }
    rs_shutdown();
    return 0;
}
