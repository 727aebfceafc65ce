/* The pointwise engine without torch: expressions over strided, broadcast
 * and scalar operands, for each opmath type the profile allows, checked
 * against values computed here. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ctest.h"
#include "engine/engine.h"

static rs_tensor vec(uint64_t addr, rs_dtype dt, int64_t n) {
    rs_tensor t;
    memset(&t, 0, sizeof t);
    t.address = addr;
    t.dtype = dt;
    t.ndim = 1;
    t.sizes[0] = n;
    t.strides[0] = 1;
    return t;
}

TEST(float_add_with_alpha_and_scalar) {
    rs_device *dev = ctest_device();
    rs_stream *s = ctest_stream(dev);
    enum { N = 300 };
    float a[N], b[N], out[N];
    for (int i = 0; i < N; i++) a[i] = (float)i * 0.5f, b[i] = (float)(N - i);
    uint64_t da, db, dout;
    CHECK_OK(rs_alloc(dev, sizeof a, s, &da));
    CHECK_OK(rs_alloc(dev, sizeof b, s, &db));
    CHECK_OK(rs_alloc(dev, sizeof out, s, &dout));
    CHECK_OK(rs_memcpy_htod(s, da, a, sizeof a));
    CHECK_OK(rs_memcpy_htod(s, db, b, sizeof b));
    rs_pointwise p;
    memset(&p, 0, sizeof p);
    p.name = "add";
    p.expr = "rs_add(a, b, s0)";
    p.common = p.compute = p.result = RS_FLOAT32;
    p.ninputs = 2;
    p.out = vec(dout, RS_FLOAT32, N);
    p.in[0] = vec(da, RS_FLOAT32, N);
    p.in[1] = vec(db, RS_FLOAT32, N);
    p.nscalars = 1;
    p.s[0][0].f = 2.0f;
    CHECK_OK(rs_pointwise_run(s, &p));
    CHECK_OK(rs_memcpy_dtoh(s, out, dout, sizeof out));
    for (int i = 0; i < N; i++) CHECK(out[i] == a[i] + 2.0f * b[i]);
    /* b as a scalar operand, a read backwards (negative stride) */
    p.is_scalar[1] = 1;
    p.scalar[1][0].f = 10.0f;
    p.in[0].address = da + (N - 1) * 4;
    p.in[0].strides[0] = -1;
    CHECK_OK(rs_pointwise_run(s, &p));
    CHECK_OK(rs_memcpy_dtoh(s, out, dout, sizeof out));
    for (int i = 0; i < N; i++) CHECK(out[i] == a[N - 1 - i] + 20.0f);
    rs_free(dev, da);
    rs_free(dev, db);
    rs_free(dev, dout);
}

TEST(int8_wraps_and_broadcasts) {
    rs_device *dev = ctest_device();
    rs_stream *s = ctest_stream(dev);
    /* out[i][j] = a[i] * b[j] in int8 (wrapping), a broadcast as a column */
    int8_t a[4] = {100, -100, 7, -1}, b[3] = {2, 3, -128}, out[12];
    uint64_t da, db, dout;
    CHECK_OK(rs_alloc(dev, 4, s, &da));
    CHECK_OK(rs_alloc(dev, 3, s, &db));
    CHECK_OK(rs_alloc(dev, 12, s, &dout));
    CHECK_OK(rs_memcpy_htod(s, da, a, 4));
    CHECK_OK(rs_memcpy_htod(s, db, b, 3));
    rs_pointwise p;
    memset(&p, 0, sizeof p);
    p.name = "mul";
    p.expr = "rs_mul(a, b)";
    p.common = RS_INT8;
    p.compute = p.result = RS_INT64;
    p.ninputs = 2;
    rs_tensor t = {.address = dout, .dtype = RS_INT8, .ndim = 2, .sizes = {4, 3}, .strides = {3, 1}};
    p.out = t;
    t.address = da;
    t.strides[0] = 1;
    t.strides[1] = 0;
    p.in[0] = t;
    t.address = db;
    t.strides[0] = 0;
    t.strides[1] = 1;
    p.in[1] = t;
    CHECK_OK(rs_pointwise_run(s, &p));
    CHECK_OK(rs_memcpy_dtoh(s, out, dout, 12));
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 3; j++) CHECK(out[i * 3 + j] == (int8_t)(uint8_t)((int)a[i] * (int)b[j]));
    rs_free(dev, da);
    rs_free(dev, db);
    rs_free(dev, dout);
}

TEST(compare_to_bool_and_fp16_output_rounds) {
    rs_device *dev = ctest_device();
    rs_stream *s = ctest_stream(dev);
    enum { N = 64 };
    float a[N];
    uint8_t lt[N];
    uint16_t h[N];
    for (int i = 0; i < N; i++) a[i] = (float)i / 3.0f;
    uint64_t da, dlt, dh;
    CHECK_OK(rs_alloc(dev, sizeof a, s, &da));
    CHECK_OK(rs_alloc(dev, N, s, &dlt));
    CHECK_OK(rs_alloc(dev, 2 * N, s, &dh));
    CHECK_OK(rs_memcpy_htod(s, da, a, sizeof a));
    rs_pointwise p;
    memset(&p, 0, sizeof p);
    p.name = "lt";
    p.expr = "rs_lt(a, b)";
    p.common = p.compute = RS_FLOAT32;
    p.result = RS_BOOL;
    p.ninputs = 2;
    p.out = vec(dlt, RS_BOOL, N);
    p.in[0] = vec(da, RS_FLOAT32, N);
    p.in[1].dtype = RS_FLOAT32;
    p.is_scalar[1] = 1;
    p.scalar[1][0].f = 5.0f;
    CHECK_OK(rs_pointwise_run(s, &p));
    CHECK_OK(rs_memcpy_dtoh(s, lt, dlt, N));
    for (int i = 0; i < N; i++) CHECK(lt[i] == (a[i] < 5.0f));
    /* the result stored into float16 rounds to nearest even */
    p.expr = "rs_mul(a, b)";
    p.result = RS_FLOAT32;
    p.out = vec(dh, RS_FLOAT16, N);
    p.scalar[1][0].f = 1.0f;
    CHECK_OK(rs_pointwise_run(s, &p));
    CHECK_OK(rs_memcpy_dtoh(s, h, dh, 2 * N));
    for (int i = 0; i < N; i++) CHECK(h[i] == rs_f16_from_f32(a[i]));
    rs_free(dev, da);
    rs_free(dev, dlt);
    rs_free(dev, dh);
}

TEST(integer_division_by_zero_raises_at_sync) {
    rs_device *dev = ctest_device();
    rs_stream *s = ctest_stream(dev);
    int64_t a[3] = {7, -7, 1}, b[3] = {2, 2, 0}, out[3];
    uint64_t da, db, dout;
    CHECK_OK(rs_alloc(dev, sizeof a, s, &da));
    CHECK_OK(rs_alloc(dev, sizeof b, s, &db));
    CHECK_OK(rs_alloc(dev, sizeof out, s, &dout));
    CHECK_OK(rs_memcpy_htod(s, da, a, sizeof a));
    CHECK_OK(rs_memcpy_htod(s, db, b, sizeof b));
    rs_pointwise p;
    memset(&p, 0, sizeof p);
    p.name = "aten::div.out_mode";
    p.expr = "rs_div_floor(a, b)";
    p.common = RS_INT64;
    p.compute = p.result = RS_INT64;
    p.ninputs = 2;
    p.out = vec(dout, RS_INT64, 3);
    p.in[0] = vec(da, RS_INT64, 3);
    p.in[1] = vec(db, RS_INT64, 3);
    CHECK_OK(rs_pointwise_run(s, &p));
    rs_status st = rs_stream_synchronize(s);
    CHECK(st == RS_ERR_DEVICE_ASSERT);
    CHECK(strstr(rs_last_error(), "ZeroDivisionError") != NULL);
    CHECK(strstr(rs_last_error(), "aten::div.out_mode") != NULL);
    CHECK_OK(rs_memcpy_dtoh(s, out, dout, sizeof out));
    CHECK(out[0] == 3 && out[1] == -4);
    rs_free(dev, da);
    rs_free(dev, db);
    rs_free(dev, dout);
}

TEST(fp64_needs_the_feature_and_bad_expressions_fail) {
    rs_device *dev = ctest_device();
    rs_stream *s = ctest_stream(dev);
    uint64_t d;
    CHECK_OK(rs_alloc(dev, 64, s, &d));
    rs_pointwise p;
    memset(&p, 0, sizeof p);
    p.name = "add";
    p.expr = "rs_add(a, b, s0)";
    p.common = p.compute = p.result = RS_FLOAT64;
    p.ninputs = 2;
    p.out = p.in[0] = p.in[1] = vec(d, RS_FLOAT64, 8);
    p.nscalars = 1;
    p.s[0][0].d = 1.0;
    rs_status st = rs_pointwise_run(s, &p);
    if (rs_device_features(dev)->has_fp64) {
        CHECK(st == RS_OK);
    } else {
        CHECK(st == RS_ERR_UNSUPPORTED);
        CHECK(strstr(rs_last_error(), "shaderFloat64") != NULL);
    }
    /* an expression with no overload for complex: a compile error, twice
     * (the second from the failure cache) */
    p.common = p.compute = p.result = RS_COMPLEX64;
    p.out = p.in[0] = p.in[1] = vec(d, RS_COMPLEX64, 8);
    p.expr = "rs_lt(a, b)";
    p.result = RS_BOOL;
    p.out.dtype = RS_BOOL;
    CHECK(rs_pointwise_run(s, &p) == RS_ERR_COMPILE);
    CHECK(strstr(rs_last_error(), "no matching overloaded function") != NULL);
    CHECK(rs_pointwise_run(s, &p) == RS_ERR_COMPILE);
    CHECK_OK(rs_stream_synchronize(s));
    rs_free(dev, d);
}

/* rs_sqrt_step (ops_math.glsl, the fused optimizers' sqrt on devices whose
 * sqrt is not rounded once): from a start an ulp or two away, in any
 * direction, it gives C's correctly rounded sqrtf, over the binades it
 * serves; and rs_sqrt_cr over every binade and the special values */
TEST(sqrt_rounded_once) {
    rs_device *dev = ctest_device();
    rs_stream *s = ctest_stream(dev);
    enum { N = 1 << 14 };
    float *x = malloc(N * 4), *s0 = malloc(N * 4), *out = calloc(N, 4);
    CHECK(x && s0 && out);
    if (!x || !s0 || !out) return;
    uint32_t seed = 99;
    for (int i = 0; i < N; i++) {
        seed = seed * 1664525u + 1013904223u;
        uint32_t e = 64u + (seed >> 8) % 128u; /* 2^-63 .. 2^64 */
        seed = seed * 1664525u + 1013904223u;
        uint32_t bits = (e << 23) | (seed >> 9);
        memcpy(&x[i], &bits, 4);
        float r = sqrtf(x[i]);
        int off = (int)(i % 5) - 2; /* -2 .. 2 ulp */
        for (; off > 0; off--) r = nextafterf(r, INFINITY);
        for (; off < 0; off++) r = nextafterf(r, 0.0f);
        s0[i] = r;
    }
    uint64_t dx = ctest_upload(dev, s, x, N * 4), ds = ctest_upload(dev, s, s0, N * 4),
             dout = ctest_upload(dev, s, out, N * 4);
    CHECK(dx && ds && dout);
    rs_pointwise p;
    memset(&p, 0, sizeof p);
    p.name = "sqrt_step";
    p.expr = "rs_sqrt_step(a, b)";
    p.common = p.compute = p.result = RS_FLOAT32;
    p.ninputs = 2;
    p.out = vec(dout, RS_FLOAT32, N);
    p.in[0] = vec(dx, RS_FLOAT32, N);
    p.in[1] = vec(ds, RS_FLOAT32, N);
    CHECK_OK(rs_pointwise_run(s, &p));
    CHECK_OK(rs_memcpy_dtoh(s, out, dout, N * 4));
    int bad = 0;
    for (int i = 0; i < N; i++) {
        volatile float want = sqrtf(x[i]);
        if (memcmp(&out[i], (const void *)&want, 4) != 0 && bad++ < 5)
            fprintf(stderr, "  rs_sqrt_step(%a, %a) = %a, want %a\n", x[i], s0[i], out[i], want);
    }
    CHECK(bad == 0);
    /* rs_sqrt_cr: every binade, denormals (read as 0 where flushed), zeros,
     * negatives, infinity, NaN */
    for (int i = 0; i < N; i++) {
        seed = seed * 1664525u + 1013904223u;
        uint32_t bits = (seed >> 8) % 255u << 23 | (seed & 0x7FFFFFu);
        memcpy(&x[i], &bits, 4);
    }
    const float special[] = {0.0f, -0.0f, -1.0f, INFINITY, -INFINITY, NAN, 1e-45f, 3.4e38f, 0x1p-63f, 0x1p64f};
    memcpy(x, special, sizeof special);
    CHECK_OK(rs_memcpy_htod(s, dx, x, N * 4));
    p.name = "sqrt_cr";
    p.expr = "rs_sqrt_cr(a)";
    p.ninputs = 1;
    CHECK_OK(rs_pointwise_run(s, &p));
    CHECK_OK(rs_memcpy_dtoh(s, out, dout, N * 4));
    int keep = (rs_device_features(dev)->preserve_denorm & RS_WIDTH_32) != 0;
    for (int i = 0; i < N; i++) {
        volatile float want = sqrtf(x[i]);
        int ok = memcmp(&out[i], (const void *)&want, 4) == 0 || (isnan(out[i]) && isnan(want)) ||
                 (!keep && fpclassify(x[i]) == FP_SUBNORMAL && out[i] == 0.0f);
        if (!ok && bad++ < 5) fprintf(stderr, "  rs_sqrt_cr(%a) = %a, want %a\n", x[i], out[i], want);
    }
    CHECK(bad == 0);
    free(x), free(s0), free(out);
    rs_free(dev, dx), rs_free(dev, ds), rs_free(dev, dout);
}

/* A sync that outlasts RUSSET_SYNC_TIMEOUT fails with a clear error rather
 * than waiting forever; the work itself is left alone and a later sync with
 * no limit (0) sees it finish. (A long kernel, not an endless one: the
 * device must still be torn down cleanly afterwards.) */
TEST(sync_times_out_with_a_clear_error) {
    rs_device *dev = ctest_device();
    rs_stream *s = ctest_stream(dev);
    enum { N = 1 << 22 };
    uint64_t da, dout;
    CHECK_OK(rs_alloc(dev, (uint64_t)N * 4, s, &da));
    CHECK_OK(rs_alloc(dev, (uint64_t)N * 4, s, &dout));
    CHECK_OK(rs_stream_synchronize(s));
    rs_pointwise p;
    memset(&p, 0, sizeof p);
    p.name = "slow";
    p.expr = "rs_op_lgamma(rs_op_igammac(rs_op_exp(a), a))";
    p.common = p.compute = p.result = RS_FLOAT32;
    p.ninputs = 1;
    p.out = vec(dout, RS_FLOAT32, N);
    p.in[0] = vec(da, RS_FLOAT32, N);
    /* the kernel compiles before the limit applies */
    CHECK_OK(rs_pointwise_run(s, &p));
    CHECK_OK(rs_stream_synchronize(s));
    /* more work each round until the sync outlasts the limit: a fast GPU
     * (the H200) finishes three of these before the host reaches the wait */
    rs_status st = RS_OK;
    for (int runs = 3; runs <= 3 << 8 && st == RS_OK; runs *= 4) {
        for (int i = 0; i < runs; i++) CHECK_OK(rs_pointwise_run(s, &p));
        setenv("RUSSET_SYNC_TIMEOUT", "0.000001", 1);
        setenv("RUSSET_SYNC_SPIN_US", "0", 1); /* no polling before the wait (20 ms on a GPU) */
        st = rs_stream_synchronize(s);
        unsetenv("RUSSET_SYNC_SPIN_US");
        setenv("RUSSET_SYNC_TIMEOUT", "0", 1);
        if (st == RS_OK) CHECK_OK(rs_stream_synchronize(s));
    }
    if (st != RS_ERR_VULKAN) fprintf(stderr, "  the timed sync gave %d: %s\n", (int)st, st ? rs_last_error() : "");
    CHECK(st == RS_ERR_VULKAN);
    CHECK(strstr(rs_last_error(), "did not finish") != NULL);
    CHECK(strstr(rs_last_error(), "RUSSET_SYNC_TIMEOUT") != NULL);
    setenv("RUSSET_SYNC_TIMEOUT", "0", 1);
    CHECK_OK(rs_stream_synchronize(s));
    unsetenv("RUSSET_SYNC_TIMEOUT");
    rs_free(dev, da);
    rs_free(dev, dout);
}

/* rs_pointwise_run_many: a list of contiguous tensors in one launch (torch's
 * _foreach_ ops), with the results of running the descriptions one by one:
 * segments of 0, 1, 5, 300, 1023 and 4 elements, in place (x += 2 y); the
 * same tensor twice (one launch each, in order: one launch would add once);
 * a description with another scalar (its own launch) */
TEST(lists_run_in_one_launch_like_one_by_one) {
    rs_device *dev = ctest_device();
    rs_stream *s = ctest_stream(dev);
    enum { NSEG = 6, TOTAL = 1333 };
    static const int64_t sizes[NSEG] = {0, 1, 5, 300, 1023, 4};
    static float x[TOTAL], y[TOTAL], got[TOTAL];
    for (int i = 0; i < TOTAL; i++) x[i] = (float)i * 0.25f - 7.0f, y[i] = (float)(i % 17) - 3.5f;
    uint64_t dx, dy;
    CHECK_OK(rs_alloc(dev, sizeof x, s, &dx));
    CHECK_OK(rs_alloc(dev, sizeof y, s, &dy));
    CHECK_OK(rs_memcpy_htod(s, dx, x, sizeof x));
    CHECK_OK(rs_memcpy_htod(s, dy, y, sizeof y));
    rs_pointwise ps[NSEG + 2];
    memset(ps, 0, sizeof ps);
    int64_t at = 0;
    for (int t = 0; t < NSEG + 2; t++) {
        /* NSEG segments, then segment 3 again (an alias), then segment 4 with 3 y */
        int seg = t < NSEG ? t : t == NSEG ? 3 : 4;
        int64_t start = 0;
        for (int q = 0; q < seg; q++) start += sizes[q];
        if (t < NSEG) {
            CHECK(start == at);
            at += sizes[t];
        }
        rs_pointwise *p = &ps[t];
        p->name = "add";
        p->expr = "rs_add(a, b, s0)";
        p->common = p->compute = p->result = RS_FLOAT32;
        p->ninputs = 2;
        p->out = p->in[0] = vec(dx + (uint64_t)start * 4, RS_FLOAT32, sizes[seg]);
        p->in[1] = vec(dy + (uint64_t)start * 4, RS_FLOAT32, sizes[seg]);
        p->nscalars = 1;
        p->s[0][0].f = t == NSEG + 1 ? 3.0f : 2.0f;
    }
    CHECK_OK(rs_stream_synchronize(s)); /* an empty batch: the counts below are this call's */
    uint64_t before = rs_stream_pending_dispatches(s);
    CHECK_OK(rs_pointwise_run_many(s, ps, NSEG));
    CHECK(rs_stream_pending_dispatches(s) - before == 1);
    /* segment 5, then 3 twice (one by one: 3 aliases itself), then 4 with 3 y */
    rs_pointwise again[4] = {ps[NSEG - 1], ps[NSEG], ps[NSEG], ps[NSEG + 1]};
    CHECK_OK(rs_stream_synchronize(s));
    before = rs_stream_pending_dispatches(s);
    CHECK_OK(rs_pointwise_run_many(s, again, 4));
    CHECK(rs_stream_pending_dispatches(s) - before == 4);
    CHECK_OK(rs_memcpy_dtoh(s, got, dx, sizeof got));
    int64_t start3 = sizes[0] + sizes[1] + sizes[2], start4 = start3 + sizes[3], start5 = start4 + sizes[4];
    for (int i = 0; i < TOTAL; i++) {
        float want = x[i] + 2.0f * y[i];
        if (i >= start3 && i < start4) want = want + 2.0f * y[i] + 2.0f * y[i];
        if (i >= start4 && i < start5) want = want + 3.0f * y[i];
        if (i >= start5) want = want + 2.0f * y[i];
        CHECK(got[i] == want);
    }
    rs_free(dev, dx);
    rs_free(dev, dy);
}

int main(void) {
    RUN(float_add_with_alpha_and_scalar);
    RUN(int8_wraps_and_broadcasts);
    RUN(compare_to_bool_and_fp16_output_rounds);
    RUN(integer_division_by_zero_raises_at_sync);
    RUN(fp64_needs_the_feature_and_bad_expressions_fail);
    RUN(sqrt_rounded_once);
    RUN(sync_times_out_with_a_clear_error);
    RUN(lists_run_in_one_launch_like_one_by_one);
    CTEST_END();
}
