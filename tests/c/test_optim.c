/* The fused Adam/AdamW and Adagrad steps without torch (rs_adam_step_run,
 * rs_adagrad_step_run), against the same steps computed here in double in
 * ATen's order: plain Adam, AdamW with amsgrad, grad_scale and maximize,
 * Adagrad with lr_decay and weight decay; found_inf == 1 leaves every
 * tensor untouched; the steps run without a host wait. Adagrad in
 * float16/bfloat16 under both scalar rules (rounded to the dtype as torch
 * 2.13, kept in float as 2.15). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>

#include "ctest.h"
#include "engine/engine.h"
#include "russet/optim.h"

enum { N = 1000 };

static int close_to(double got, double want, double tol) { return fabs(got - want) <= tol * (1.0 + fabs(want)); }

typedef struct host_state {
    float p[N], g[N], m[N], v[N], vmax[N];
} host_state;

static void fill(host_state *h) {
    for (int i = 0; i < N; i++) {
        h->p[i] = (float)sin(i * 0.37);
        h->g[i] = (float)cos(i * 0.11) * 3.0f;
        h->m[i] = (float)sin(i * 0.05) * 0.1f;
        h->v[i] = (float)(0.01 + 0.01 * cos(i * 0.2) * cos(i * 0.2));
        h->vmax[i] = h->v[i] * (i % 2 ? 2.0f : 0.5f);
    }
}

/* device copies of n host arrays (N floats each) into d, and of the three
 * float32 scalars (step, grad_scale, found_inf) into *ds[i] */
static void upload(rs_device *dev, rs_stream *s, float *const *arrays, int n, uint64_t *d, const float *scalars,
                   uint64_t *const *ds) {
    for (int i = 0; i < n; i++) {
        CHECK_OK(rs_alloc(dev, N * 4, s, &d[i]));
        CHECK_OK(rs_memcpy_htod(s, d[i], arrays[i], N * 4));
    }
    for (int i = 0; i < 3; i++) {
        CHECK_OK(rs_alloc(dev, 4, s, ds[i]));
        CHECK_OK(rs_memcpy_htod(s, *ds[i], &scalars[i], 4));
    }
    CHECK_OK(rs_stream_synchronize(s));
}

/* FusedAdamKernel's step in double: the expected values */
static void reference(host_state *h, const rs_adam_step *a, float step, float scale, int amsgrad) {
    double bc1 = 1 - pow(a->beta1, step), bc2 = 1 - pow(a->beta2, step);
    double step_size = a->lr / bc1, bc2_sqrt = sqrt(bc2);
    for (int i = 0; i < N; i++) {
        double g = h->g[i] / (double)scale;
        h->g[i] = (float)g;
        if (a->maximize) g = -g;
        if (!a->adamw && a->weight_decay != 0) g += h->p[i] * a->weight_decay;
        double m = h->m[i] + (1 - a->beta1) * (g - h->m[i]);
        double v = h->v[i] * a->beta2 + (1 - a->beta2) * g * g;
        h->m[i] = (float)m;
        h->v[i] = (float)v;
        if (amsgrad) {
            v = v > h->vmax[i] ? v : h->vmax[i];
            h->vmax[i] = (float)v;
        }
        double decay = a->adamw ? 1 - a->lr * a->weight_decay : 1.0;
        h->p[i] = (float)(h->p[i] * decay - step_size * m / (sqrt(v) / bc2_sqrt + a->eps));
    }
}

static void run_case(int adamw, int amsgrad, int maximize, int with_scale, float found, float step_count) {
    rs_device *dev = ctest_device();
    rs_stream *s = ctest_stream(dev);
    static host_state h, want, got;
    fill(&h);
    want = h;
    float scale = 8.0f;
    uint64_t d[5], dstep, dscale, dfound;
    float *arrays[5] = {h.p, h.g, h.m, h.v, h.vmax};
    upload(dev, s, arrays, 5, d, (float[3]){step_count, scale, found}, (uint64_t *[3]){&dstep, &dscale, &dfound});

    rs_adam_step a;
    memset(&a, 0, sizeof a);
    a.dtype = RS_FLOAT32;
    a.numel = N;
    a.param = d[0], a.grad = d[1], a.exp_avg = d[2], a.exp_avg_sq = d[3];
    a.max_exp_avg_sq = amsgrad ? d[4] : 0;
    a.step = dstep;
    a.grad_scale = with_scale ? dscale : 0;
    a.found_inf = found >= 0 ? dfound : 0;
    a.lr = 0.01, a.beta1 = 0.9, a.beta2 = 0.999, a.weight_decay = 0.1, a.eps = 1e-8;
    a.adamw = adamw, a.maximize = maximize;
    uint64_t waits = rs_device_host_waits(dev);
    CHECK_OK(rs_adam_step_run(s, &a));
    CHECK(rs_device_host_waits(dev) == waits); /* nothing read on the host */

    if (found != 1.0f) reference(&want, &a, step_count, with_scale ? scale : 1.0f, amsgrad);
    CHECK_OK(rs_memcpy_dtoh(s, got.p, d[0], N * 4));
    CHECK_OK(rs_memcpy_dtoh(s, got.g, d[1], N * 4));
    CHECK_OK(rs_memcpy_dtoh(s, got.m, d[2], N * 4));
    CHECK_OK(rs_memcpy_dtoh(s, got.v, d[3], N * 4));
    CHECK_OK(rs_memcpy_dtoh(s, got.vmax, d[4], N * 4));
    int bad = 0;
    for (int i = 0; i < N; i++) {
        bad += !close_to(got.p[i], want.p[i], 2e-6) || !close_to(got.g[i], want.g[i], 1e-7) ||
               !close_to(got.m[i], want.m[i], 1e-6) || !close_to(got.v[i], want.v[i], 1e-6) ||
               !close_to(got.vmax[i], want.vmax[i], 1e-6);
    }
    if (bad) printf("  adamw %d amsgrad %d maximize %d scale %d found %g step %g: %d elements differ (p[0] %.9g want %.9g)\n",
                    adamw, amsgrad, maximize, with_scale, found, step_count, bad, got.p[0], want.p[0]);
    CHECK(bad == 0);
    for (int i = 0; i < 5; i++) rs_free(dev, d[i]);
    rs_free(dev, dstep), rs_free(dev, dscale), rs_free(dev, dfound);
}

TEST(adam_step_matches_the_host) {
    run_case(0, 0, 0, 0, -1.0f, 1.0f); /* the first step: the largest bias correction */
    run_case(0, 0, 1, 0, -1.0f, 7.0f);
    run_case(1, 1, 0, 1, 0.0f, 3.0f);
    run_case(1, 0, 0, 1, -1.0f, 1000.0f);
}

TEST(adam_step_skipped_on_found_inf) {
    run_case(1, 1, 0, 1, 1.0f, 3.0f);
}

/* Adagrad: state_sum in h.v; FusedAdagradKernel in double */
static void run_adagrad(int maximize, int with_scale, float found, float step_count) {
    rs_device *dev = ctest_device();
    rs_stream *s = ctest_stream(dev);
    static host_state h, got;
    fill(&h);
    float scale = 4.0f;
    uint64_t d[3], dstep, dscale, dfound;
    float *arrays[3] = {h.p, h.g, h.v};
    upload(dev, s, arrays, 3, d, (float[3]){step_count, scale, found}, (uint64_t *[3]){&dstep, &dscale, &dfound});
    rs_adagrad_step a;
    memset(&a, 0, sizeof a);
    a.dtype = RS_FLOAT32;
    a.numel = N;
    a.param = d[0], a.grad = d[1], a.state_sum = d[2], a.step = dstep;
    a.grad_scale = with_scale ? dscale : 0;
    a.found_inf = found >= 0 ? dfound : 0;
    a.lr = 0.1, a.lr_decay = 0.05, a.weight_decay = 0.1, a.eps = 1e-10, a.maximize = maximize;
    uint64_t waits = rs_device_host_waits(dev);
    CHECK_OK(rs_adagrad_step_run(s, &a));
    CHECK(rs_device_host_waits(dev) == waits);
    CHECK_OK(rs_memcpy_dtoh(s, got.p, d[0], N * 4));
    CHECK_OK(rs_memcpy_dtoh(s, got.g, d[1], N * 4));
    CHECK_OK(rs_memcpy_dtoh(s, got.v, d[2], N * 4));
    double clr = a.lr / (1 + (step_count - 1) * a.lr_decay);
    int bad = 0;
    for (int i = 0; i < N; i++) {
        double p = h.p[i], g = h.g[i], sum = h.v[i];
        if (found != 1.0f) {
            if (with_scale) g /= scale;
            h.g[i] = (float)g;
            if (maximize) g = -g;
            g += p * a.weight_decay;
            sum += g * g;
            p -= clr * g / (sqrt(sum) + a.eps);
        }
        bad += !close_to(got.p[i], p, 2e-6) || !close_to(got.g[i], h.g[i], 1e-7) || !close_to(got.v[i], sum, 1e-6);
    }
    if (bad) printf("  adagrad maximize %d scale %d found %g step %g: %d elements differ\n", maximize, with_scale,
                    found, step_count, bad);
    CHECK(bad == 0);
    for (int i = 0; i < 3; i++) rs_free(dev, d[i]);
    rs_free(dev, dstep), rs_free(dev, dscale), rs_free(dev, dfound);
}

TEST(adagrad_step_matches_the_host) {
    run_adagrad(0, 0, -1.0f, 1.0f);
    run_adagrad(1, 1, 0.0f, 6.0f);
    run_adagrad(0, 1, 1.0f, 2.0f); /* found_inf: untouched */
}

/* Adagrad on a 16-bit dtype against the float arithmetic of ATen's kernel
 * (the scalars rounded to the dtype or not: float_scalars), rounded once.
 * The GPU's sqrt and division may be a few float steps off, so a handful of
 * elements may round the other way; the other rule's reference must differ
 * on many more (the rounded rate moves about one element in ten). */
static float to_f(rs_dtype dt, uint16_t h) { return dt == RS_FLOAT16 ? rs_f16_to_f32(h) : rs_bf16_to_f32(h); }
static uint16_t from_f(rs_dtype dt, float f) { return dt == RS_FLOAT16 ? rs_f16_from_f32(f) : rs_bf16_from_f32(f); }

static void run_adagrad_16(rs_dtype dt, int float_scalars) {
    rs_device *dev = ctest_device();
    rs_stream *s = ctest_stream(dev);
    static uint16_t hp[N], hg[N], hs[N], gp[N], gs[N];
    for (int i = 0; i < N; i++) {
        hp[i] = from_f(dt, (float)sin(i * 0.37));
        hg[i] = from_f(dt, (float)cos(i * 0.11) * 3.0f);
        hs[i] = from_f(dt, (float)(0.5 + 0.4 * cos(i * 0.2)));
    }
    uint64_t d[3], dstep;
    const uint16_t *src[3] = {hp, hg, hs};
    for (int i = 0; i < 3; i++) {
        CHECK_OK(rs_alloc(dev, N * 2, s, &d[i]));
        CHECK_OK(rs_memcpy_htod(s, d[i], src[i], N * 2));
    }
    const float step_count = 3.0f;
    CHECK_OK(rs_alloc(dev, 4, s, &dstep));
    CHECK_OK(rs_memcpy_htod(s, dstep, &step_count, 4));
    rs_adagrad_step a;
    memset(&a, 0, sizeof a);
    a.dtype = dt;
    a.numel = N;
    a.param = d[0], a.grad = d[1], a.state_sum = d[2], a.step = dstep;
    a.lr = 0.1, a.lr_decay = 0.01, a.weight_decay = 0.1, a.eps = 1e-3, a.float_scalars = float_scalars;
    CHECK_OK(rs_adagrad_step_run(s, &a));
    CHECK_OK(rs_memcpy_dtoh(s, gp, d[0], N * 2));
    CHECK_OK(rs_memcpy_dtoh(s, gs, d[2], N * 2));
    int own = 0, other = 0, far = 0;
    for (int rule = 0; rule < 2; rule++) {
        /* rule 1: the scalars in float; rule 0: rounded to the dtype */
        float clr = (float)(a.lr / (1 + (step_count - 1) * a.lr_decay)), wd = (float)a.weight_decay,
              eps = (float)a.eps;
        if (!rule) clr = to_f(dt, from_f(dt, clr)), wd = to_f(dt, from_f(dt, wd)), eps = to_f(dt, from_f(dt, eps));
        for (int i = 0; i < N; i++) {
            float p = to_f(dt, hp[i]), g = to_f(dt, hg[i]) + wd * to_f(dt, hp[i]);
            float sum = to_f(dt, hs[i]) + g * g;
            uint16_t want = from_f(dt, p - clr * g / (sqrtf(sum) + eps));
            int differs = gp[i] != want || gs[i] != from_f(dt, sum);
            if (rule == float_scalars) {
                own += differs;
                far += abs((int)(int16_t)gp[i] - (int)(int16_t)want) > 1;  /* more than one step of the dtype */
            } else {
                other += differs;
            }
        }
    }
    if (own > N / 100 || other < N / 20 || far)
        printf("  adagrad dtype %d float_scalars %d: %d differ from its rule, %d from the other, %d by more than a step\n",
               (int)dt, float_scalars, own, other, far);
    CHECK(own <= N / 100 && other >= N / 20 && far == 0);
    for (int i = 0; i < 3; i++) rs_free(dev, d[i]);
    rs_free(dev, dstep);
}

TEST(adagrad_16_bit_scalar_rules) {
    run_adagrad_16(RS_FLOAT16, 0);
    run_adagrad_16(RS_FLOAT16, 1);
    run_adagrad_16(RS_BFLOAT16, 0);
    run_adagrad_16(RS_BFLOAT16, 1);
}

TEST(adam_step_rejects_bad_arguments) {
    rs_device *dev = ctest_device();
    rs_stream *s = ctest_stream(dev);
    rs_adam_step a;
    memset(&a, 0, sizeof a);
    a.dtype = RS_INT32;
    a.numel = 4;
    CHECK(rs_adam_step_run(s, &a) == RS_ERR_UNSUPPORTED);
    a.dtype = RS_FLOAT32;
    CHECK(rs_adam_step_run(s, &a) == RS_ERR_INVALID); /* no tensors */
    CHECK(strstr(rs_last_error(), "missing") != NULL);
}

int main(void) {
    RUN(adam_step_matches_the_host);
    RUN(adam_step_skipped_on_found_inf);
    RUN(adagrad_step_matches_the_host);
    RUN(adagrad_16_bit_scalar_rules);
    RUN(adam_step_rejects_bad_arguments);
    CTEST_END();
}
