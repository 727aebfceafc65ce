/* gemm_tiled_probe.c: times the float32 tiled GEMM (kernels/gemm.comp,
 * KIND 0) with the C core only (no torch: bench/gpu.sh gemm-tiled-probe):
 * rs_gemm's own choice, then the 128x128 tile's variants (slices 8, 16
 * and 32 deep) dispatched directly, on nn.Linear's
 * training shapes (GPT: 4096 tokens, d 768; the forward x @ W.T, the input
 * gradient dy @ W, the weight gradient dy.T @ x) and 4096^3. Each result
 * is checked on sampled entries against a host computation in double; exits
 * 1 on a wrong one. A tool for tuning, not a benchmark against a peer
 * (bench_gemm.py is). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "engine/engine.h"
#include "russet/russet.h"
#include "probe_common.h"
#include "params/gemm.h"

typedef struct gemm_params { RS_GEMM_PARAMS } gemm_params;

enum { CALLS = 10 };
static int failures;

typedef struct shape {
    const char *what;
    int64_t m, n, k;
    int a_rows; /* A k-contiguous (else m-contiguous) */
    int b_nc;   /* B n-contiguous (else k-contiguous: W.T) */
} shape;

/* the operands of one shape on the device, and the host copies */
typedef struct problem {
    float *a, *b, *c;
    uint64_t da, db, dc;
    rs_gemm_desc d;
} problem;

static float frand(uint32_t *x) {
    *x = *x * 1664525u + 1013904223u;
    return ((*x >> 9) & 0xFFFF) / 32768.0f - 1.0f;
}

static void setup(rs_device *dev, rs_stream *s, const shape *sh, problem *pr) {
    memset(pr, 0, sizeof *pr);
    int64_t m = sh->m, n = sh->n, k = sh->k;
    pr->a = malloc((size_t)(m * k) * 4), pr->b = malloc((size_t)(k * n) * 4), pr->c = malloc((size_t)(m * n) * 4);
    uint32_t x = 7;
    for (int64_t i = 0; i < m * k; i++) pr->a[i] = frand(&x);
    for (int64_t i = 0; i < k * n; i++) pr->b[i] = frand(&x);
    DIE(rs_alloc(dev, (uint64_t)(m * k) * 4, s, &pr->da));
    DIE(rs_alloc(dev, (uint64_t)(k * n) * 4, s, &pr->db));
    DIE(rs_alloc(dev, (uint64_t)(m * n) * 4, s, &pr->dc));
    DIE(rs_memcpy_htod(s, pr->da, pr->a, (uint64_t)(m * k) * 4));
    DIE(rs_memcpy_htod(s, pr->db, pr->b, (uint64_t)(k * n) * 4));
    rs_gemm_desc *d = &pr->d;
    d->dtype = RS_FLOAT32;
    d->batch = 1, d->m = m, d->n = n, d->k = k;
    d->a.address = pr->da, d->b.address = pr->db, d->c.address = pr->dc;
    if (sh->a_rows) d->a.stride[1] = k, d->a.stride[2] = 1;
    else d->a.stride[1] = 1, d->a.stride[2] = m;
    if (sh->b_nc) d->b.stride[1] = n, d->b.stride[2] = 1;
    else d->b.stride[1] = 1, d->b.stride[2] = k;
    d->c.stride[1] = n, d->c.stride[2] = 1;
    d->alpha[0].f = 1.0f;
}

static void teardown(rs_device *dev, problem *pr) {
    rs_free(dev, pr->da), rs_free(dev, pr->db), rs_free(dev, pr->dc);
    free(pr->a), free(pr->b), free(pr->c);
}

/* the worst error of 64 sampled entries, relative to the sum of |products| */
static double check(rs_stream *s, problem *pr) {
    const rs_gemm_desc *d = &pr->d;
    DIE(rs_memcpy_dtoh(s, pr->c, pr->dc, (uint64_t)(d->m * d->n) * 4));
    double worst = 0;
    for (int t = 0; t < 64; t++) {
        int64_t i = (t * 2654435761u) % d->m, j = (t * 40503u + 17) % d->n;
        double acc = 0, mag = 0;
        for (int64_t p = 0; p < d->k; p++) {
            double v = (double)pr->a[i * d->a.stride[1] + p * d->a.stride[2]] * pr->b[p * d->b.stride[1] + j * d->b.stride[2]];
            acc += v;
            mag += fabs(v);
        }
        double e = fabs(pr->c[i * d->n + j] - acc) / (mag + 1e-30);
        if (e > worst) worst = e;
    }
    return worst;
}

/* seconds a call: a warm-up, then the best of REPS runs of CALLS calls a
 * sync; the worst of them into *worst */
enum { REPS = 6 };
static double worst_rep;
static double best_of(rs_stream *s, void (*call)(rs_stream *, void *), void *arg) {
    double best = 1e30;
    worst_rep = 0;
    for (int rep = 0; rep <= REPS; rep++) {
        int calls = rep ? CALLS : 1;
        DIE(rs_stream_synchronize(s));
        double t1 = now();
        for (int c = 0; c < calls; c++) call(s, arg);
        DIE(rs_stream_synchronize(s));
        double t = (now() - t1) / calls;
        if (rep > 0 && t < best) best = t;
        if (rep > 0 && t > worst_rep) worst_rep = t;
    }
    return best;
}

static void call_gemm(rs_stream *s, void *arg) { DIE(rs_gemm(s, &((problem *)arg)->d)); }

typedef struct variant_call {
    problem *pr;
    rs_kernel *k;
    uint32_t groups[3];
    gemm_params p;
} variant_call;

static void call_variant(rs_stream *s, void *arg) {
    variant_call *v = arg;
    const rs_gemm_desc *d = &v->pr->d;
    void *host;
    uint64_t addr;
    DIE(rs_stream_arena(s, sizeof v->p, &host, &addr));
    memcpy(host, &v->p, sizeof v->p);
    rs_access acc[3] = {{d->a.address, (uint64_t)(d->m * d->k) * 4, 0},
                        {d->b.address, (uint64_t)(d->k * d->n) * 4, 0},
                        {d->c.address, (uint64_t)(d->m * d->n) * 4, 1}};
    DIE(rs_dispatch(s, v->k, v->groups, &addr, 8, acc, 3));
}

static void report(const char *label, const char *kernel, double secs, double err, const problem *pr) {
    const rs_gemm_desc *d = &pr->d;
    double flop = 2.0 * d->m * d->n * d->k;
    int bad = !(err < 1e-5);
    failures += bad;
    printf("  %-34s %-26s %7.3f ms (worst run %7.3f) %6.1f TFLOP/s  err %.1e%s\n", label, kernel, secs * 1e3,
           worst_rep * 1e3, flop / secs / 1e12, err, bad ? "  WRONG" : "");
    fflush(stdout);
}

/* RUSSET_PIPELINE_STATS=1: the driver's statistics of a kernel (registers,
 * spills, ...) on one line */
static void describe(rs_device *dev, rs_kernel *k) {
    static char buf[1 << 16];
    if (!getenv("RUSSET_PIPELINE_STATS")) return;
    if (rs_kernel_describe(dev, k, 0, buf, sizeof buf) != RS_OK) {
        printf("    stats: %s\n", rs_last_error());
        return;
    }
    for (char *c = buf; *c; c++)
        if (*c == '\n') *c = ' ';
    printf("    stats: %s\n", buf);
}

int main(int argc, char **argv) {
    /* `small`: every dimension divided by 8 (a quick check on a slow device) */
    int64_t div = 1, quick = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "small") == 0) div = 8;
        quick |= strcmp(argv[i], "quick") == 0; /* `quick`: 4096^3, fc1 forward, a weight gradient */
    }
    static const shape shapes[] = {
        {"4096^3", 4096, 4096, 4096, 1, 1},
        {"4096^3, B transposed", 4096, 4096, 4096, 1, 0},
        {"fc1 forward x @ W.T", 4096, 3072, 768, 1, 0},
        {"fc2 forward x @ W.T", 4096, 768, 3072, 1, 0},
        {"qkv forward x @ W.T", 4096, 2304, 768, 1, 0},
        {"fc2 input grad dy @ W", 4096, 3072, 768, 1, 1},
        {"fc1 input grad dy @ W", 4096, 768, 3072, 1, 1},
        {"fc1 weight grad dy.T @ x", 3072, 768, 4096, 0, 1},
        {"lm head x @ W.T", 4096, 8192, 768, 1, 0},
    };
    rs_device *dev;
    rs_stream *s;
    rs_device_info info;
    probe_open(&dev, &s, &info);
    uint64_t shared = rs_stream_features(s)->max_shared_memory;
    printf("device %s | %s | shared memory %llu bytes\n", info.name, info.driver, (unsigned long long)shared);
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
        if (quick && i != 0 && i != 2 && i != 7) continue;
        problem pr;
        shape sh = shapes[i];
        sh.m /= div, sh.n /= div, sh.k /= div;
        setup(dev, s, &sh, &pr);
        printf("%s: m %lld n %lld k %lld\n", shapes[i].what, (long long)pr.d.m, (long long)pr.d.n, (long long)pr.d.k);
        double t = best_of(s, call_gemm, &pr);
        report("rs_gemm", rs_gemm_kernel_name(s, &pr.d), t, check(s, &pr), &pr);
        /* the 128x128 tile's variants, the whole k in one dispatch; with
         * GEMM_TILED_PROBE_FILE, that kernel file's too (an earlier
         * gemm.comp copied into kernels/ beside it, for a comparison in
         * the same run) */
        const char *files[2] = {"gemm.comp", getenv("GEMM_TILED_PROBE_FILE")};
        for (int fi = 0; fi < 2 && files[fi]; fi++)
            for (int bk = 8; bk <= 32; bk *= 2) {
                if ((unsigned)bk * 256u * 4u > shared) continue;
                char defines[160];
                snprintf(defines, sizeof defines, "DT=%d;KIND=0;TM=8u;TN=8u;BK=%du;VW=4;A_KC=%d;B_NC=%d;VLOAD=1;PART=0",
                         (int)RS_FLOAT32, bk, shapes[i].a_rows, shapes[i].b_nc);
                variant_call v;
                memset(&v, 0, sizeof v);
                v.pr = &pr;
                DIE(rs_kernel_get(dev, files[fi], defines, &v.k));
                if (i == 0) describe(dev, v.k);
                const rs_gemm_desc *d = &pr.d;
                v.p.a = d->a.address, v.p.b = d->b.address, v.p.c = d->c.address;
                v.p.m = d->m, v.p.n = d->n, v.p.k = d->k, v.p.batch = 1;
                for (int j = 0; j < 3; j++) v.p.sa[j] = d->a.stride[j], v.p.sb[j] = d->b.stride[j], v.p.sc[j] = d->c.stride[j];
                float one = 1.0f;
                uint32_t ob;
                memcpy(&ob, &one, 4);
                v.p.alpha[0] = ob;
                v.p.tiles_m = (d->m + 127) / 128, v.p.tiles_n = (d->n + 127) / 128;
                v.groups[0] = (uint32_t)v.p.tiles_n, v.groups[1] = (uint32_t)v.p.tiles_m, v.groups[2] = 1;
                double tv = best_of(s, call_variant, &v);
                char label[48];
                snprintf(label, sizeof label, "128x128 bk %d", bk);
                report(label, files[fi], tv, check(s, &pr), &pr);
            }
        teardown(dev, &pr);
    }
    printf("%s\n", failures ? "gemm-tiled-probe: WRONG RESULTS" : "gemm-tiled-probe: all results match the host");
    rs_shutdown();
    return failures ? 1 : 0;
}
