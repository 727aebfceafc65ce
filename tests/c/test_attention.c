/* Scaled dot-product attention (rs_attention_run) without torch: forward
 * (out, lse) and backward (grad q, k, v) against a float64 reference
 * written here, with grouped-query heads, an additive mask that broadcasts
 * over heads, causal masking, rows of lengths that are not multiples of 16,
 * fully masked rows (out 0, lse -inf, gradients 0), strided views,
 * dropout (the reference applies the mask that rs_rng_uniform gives for
 * the same seed and offset, as russet/attention.h defines it), and clear
 * failures on bad arguments. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "ctest.h"
#include "engine/engine.h"

typedef struct prob {
    int b, hq, hk, l, s, e, ev, causal, masked;
    double drop; /* dropout probability (0: none) */
} prob;

static int64_t n4(int a, int b, int c, int d) { return (int64_t)a * b * c * d; }

/* reference: out, lse; and for the output gradient g: dq, dk, dv; keep
 * (dropout, else NULL): each probability's factor, 0 or 1 / (1 - p), at
 * ((b Hq + h) L + i) S + j */
static void reference(const prob *p, const double *q, const double *k, const double *v, const double *mask,
                      const double *keep, const double *g, double scale, double *out, double *lse, double *dq,
                      double *dk, double *dv) {
    int grp = p->hq / p->hk;
    memset(dq, 0, sizeof(double) * (size_t)n4(p->b, p->hq, p->l, p->e));
    memset(dk, 0, sizeof(double) * (size_t)n4(p->b, p->hk, p->s, p->e));
    memset(dv, 0, sizeof(double) * (size_t)n4(p->b, p->hk, p->s, p->ev));
    double *sc = malloc(sizeof(double) * (size_t)(p->s + 1)), *dp = malloc(sizeof(double) * (size_t)(p->s + 1));
    for (int b = 0; b < p->b; ++b)
        for (int h = 0; h < p->hq; ++h)
            for (int i = 0; i < p->l; ++i) {
                int hk = h / grp;
                const double *qi = q + ((int64_t)(b * p->hq + h) * p->l + i) * p->e;
                double m = -INFINITY;
                for (int j = 0; j < p->s; ++j) {
                    const double *kj = k + ((int64_t)(b * p->hk + hk) * p->s + j) * p->e;
                    double d = 0;
                    for (int t = 0; t < p->e; ++t) d += qi[t] * kj[t];
                    sc[j] = d * scale + (mask ? mask[(int64_t)i * p->s + j] : 0);
                    if (p->causal && j > i) sc[j] = -INFINITY;
                    if (sc[j] > m) m = sc[j];
                }
                double sum = 0;
                for (int j = 0; j < p->s; ++j) sum += sc[j] == -INFINITY ? 0 : exp(sc[j] - m);
                int64_t row = (int64_t)(b * p->hq + h) * p->l + i;
                lse[row] = sum > 0 ? m + log(sum) : -INFINITY;
                double *oi = out + row * p->ev;
                const double *gi = g + row * p->ev;
                for (int t = 0; t < p->ev; ++t) oi[t] = 0;
                if (sum == 0) continue;
                const double *kr = keep ? keep + row * p->s : NULL;
                for (int j = 0; j < p->s; ++j) {
                    double pr = sc[j] == -INFINITY ? 0 : exp(sc[j] - lse[row]);
                    sc[j] = pr;
                    const double *vj = v + ((int64_t)(b * p->hk + hk) * p->s + j) * p->ev;
                    for (int t = 0; t < p->ev; ++t) oi[t] += pr * (kr ? kr[j] : 1.0) * vj[t];
                }
                double dsum = 0; /* D = g . out */
                for (int t = 0; t < p->ev; ++t) dsum += gi[t] * oi[t];
                for (int j = 0; j < p->s; ++j) {
                    const double *vj = v + ((int64_t)(b * p->hk + hk) * p->s + j) * p->ev;
                    double d = 0;
                    for (int t = 0; t < p->ev; ++t) d += gi[t] * vj[t];
                    const double kf = kr ? kr[j] : 1.0; /* the dropped p's gradient back to p's */
                    dp[j] = sc[j] * (kf * d - dsum);
                    double *dvj = dv + ((int64_t)(b * p->hk + hk) * p->s + j) * p->ev;
                    for (int t = 0; t < p->ev; ++t) dvj[t] += sc[j] * kf * gi[t];
                    const double *kj = k + ((int64_t)(b * p->hk + hk) * p->s + j) * p->e;
                    double *dkj = dk + ((int64_t)(b * p->hk + hk) * p->s + j) * p->e;
                    for (int t = 0; t < p->e; ++t) {
                        dq[row * p->e + t] += scale * dp[j] * kj[t];
                        dkj[t] += scale * dp[j] * qi[t];
                    }
                }
            }
    free(sc);
    free(dp);
}

/* a (B, H, R, D) view; `padded` rows are D + 3 apart (strided) */
static rs_tensor view4(uint64_t a, int b, int h, int r, int d, int padded) {
    int64_t sizes[4] = {b, h, r, d};
    rs_tensor t = ctest_view(a, RS_FLOAT32, 4, sizes);
    if (padded) {
        t.strides[3] = 1;
        t.strides[2] = d + 3;
        t.strides[1] = (int64_t)r * (d + 3);
        t.strides[0] = (int64_t)h * r * (d + 3);
    }
    return t;
}

static uint64_t upload4(rs_device *dev, rs_stream *s, const double *x, int b, int h, int r, int d, int padded) {
    int w = padded ? d + 3 : d;
    int64_t n = n4(b, h, r, w);
    float *f = calloc((size_t)(n + 1), sizeof(float));
    for (int64_t row = 0; row < (int64_t)b * h * r; ++row)
        for (int t = 0; t < d; ++t) f[row * w + t] = (float)x[row * d + t];
    uint64_t a = ctest_upload(dev, s, f, sizeof(float) * (size_t)(n + 1));
    free(f);
    return a;
}

static int close_to(const char *what, const float *got, const double *want, int64_t rows, int d, int w) {
    for (int64_t row = 0; row < rows; ++row)
        for (int t = 0; t < d; ++t) {
            double g = got[row * w + t], x = want[row * d + t];
            if (isinf(x) ? g != x : fabs(g - x) > 2e-5 * (1 + fabs(x))) {
                fprintf(stderr, "  %s (%lld, %d): %.8g, want %.8g\n", what, (long long)row, t, g, x);
                return 0;
            }
        }
    return 1;
}

static int run_case(const prob *p, int padded) {
    int64_t nq = n4(p->b, p->hq, p->l, p->e), nk = n4(p->b, p->hk, p->s, p->e), nv = n4(p->b, p->hk, p->s, p->ev);
    int64_t no = n4(p->b, p->hq, p->l, p->ev), nl = (int64_t)p->b * p->hq * p->l;
    double *q = malloc(sizeof(double) * (size_t)(nq + 1)), *k = malloc(sizeof(double) * (size_t)(nk + 1));
    double *v = malloc(sizeof(double) * (size_t)(nv + 1)), *g = malloc(sizeof(double) * (size_t)(no + 1));
    double *mask = p->masked ? malloc(sizeof(double) * (size_t)(p->l * p->s)) : NULL;
    double *out = malloc(sizeof(double) * (size_t)(no + 1)), *lse = malloc(sizeof(double) * (size_t)(nl + 1));
    double *dq = malloc(sizeof(double) * (size_t)(nq + 1)), *dk = malloc(sizeof(double) * (size_t)(nk + 1));
    double *dv = malloc(sizeof(double) * (size_t)(nv + 1));
    for (int64_t i = 0; i < nq; ++i) q[i] = sin(0.37 * (double)i);
    for (int64_t i = 0; i < nk; ++i) k[i] = cos(0.23 * (double)i);
    for (int64_t i = 0; i < nv; ++i) v[i] = sin(0.11 * (double)i + 1);
    for (int64_t i = 0; i < no; ++i) g[i] = cos(0.07 * (double)i);
    if (mask) /* row 2 fully masked; others a bias */
        for (int i = 0; i < p->l; ++i)
            for (int j = 0; j < p->s; ++j) mask[i * p->s + j] = i == 2 ? -INFINITY : 0.1 * ((i + j) % 5) - 0.2;
    double scale = 1.0 / sqrt((double)p->e);
    rs_device *dev = ctest_device();
    rs_stream *s = ctest_stream(dev);
    /* dropout: the mask of (seed 1234, offset 8) as the contract defines it */
    const uint64_t seed = 1234, offset = 8;
    const int64_t nm = n4(p->b, p->hq, p->l, p->s);
    double *keep = p->drop > 0 ? malloc(sizeof(double) * (size_t)(nm + 1)) : NULL;
    if (keep) {
        float *u = malloc(sizeof(float) * (size_t)(nm + 1));
        uint64_t au = 0;
        int got = rs_alloc(dev, sizeof(float) * (size_t)(nm + 1), s, &au) == RS_OK;
        rs_tensor tu = ctest_view(au, RS_FLOAT32, 1, &nm);
        got = got && rs_rng_uniform(s, &tu, 0.0, 1.0, seed, offset) == RS_OK &&
              rs_memcpy_dtoh(s, u, au, sizeof(float) * (size_t)nm) == RS_OK && rs_stream_synchronize(s) == RS_OK;
        const float thr = (float)(1.0 - p->drop);
        int64_t dropped = 0;
        for (int64_t i = 0; i < nm; ++i) {
            keep[i] = got && u[i] < thr ? 1.0 / (1.0 - p->drop) : 0.0;
            dropped += keep[i] == 0.0;
        }
        if (au) rs_free(dev, au);
        free(u);
        if (!got || fabs((double)dropped / (double)nm - p->drop) > 0.1) {
            fprintf(stderr, "  dropout mask: %s, %lld of %lld dropped\n", got ? "ok" : rs_last_error(),
                    (long long)dropped, (long long)nm);
            free(keep);
            return 0;
        }
    }
    reference(p, q, k, v, mask, keep, g, scale, out, lse, dq, dk, dv);

    uint64_t aq = upload4(dev, s, q, p->b, p->hq, p->l, p->e, padded);
    uint64_t ak = upload4(dev, s, k, p->b, p->hk, p->s, p->e, padded);
    uint64_t av = upload4(dev, s, v, p->b, p->hk, p->s, p->ev, padded);
    uint64_t ag = upload4(dev, s, g, p->b, p->hq, p->l, p->ev, padded);
    uint64_t am = mask ? upload4(dev, s, mask, 1, 1, p->l, p->s, 0) : 0;
    uint64_t ao = 0, al = 0, adq = 0, adk = 0, adv = 0;
    int ok = rs_alloc(dev, sizeof(float) * (size_t)(no + 1), s, &ao) == RS_OK &&
             rs_alloc(dev, sizeof(float) * (size_t)(nl + 1), s, &al) == RS_OK &&
             rs_alloc(dev, sizeof(float) * (size_t)(nq + 1), s, &adq) == RS_OK &&
             rs_alloc(dev, sizeof(float) * (size_t)(nk + 1), s, &adk) == RS_OK &&
             rs_alloc(dev, sizeof(float) * (size_t)(nv + 1), s, &adv) == RS_OK;
    rs_attention a;
    memset(&a, 0, sizeof a);
    a.q = view4(aq, p->b, p->hq, p->l, p->e, padded);
    a.k = view4(ak, p->b, p->hk, p->s, p->e, padded);
    a.v = view4(av, p->b, p->hk, p->s, p->ev, padded);
    a.out = view4(ao, p->b, p->hq, p->l, p->ev, 0);
    if (mask) { /* broadcast over batch and heads */
        a.mask = view4(am, p->b, p->hq, p->l, p->s, 0);
        a.mask.strides[0] = a.mask.strides[1] = 0;
    }
    a.lse = al;
    a.causal = p->causal;
    a.scale = scale;
    a.dropout = p->drop, a.seed = seed, a.offset = offset;
    ok = ok && rs_attention_run(s, &a) == RS_OK;
    a.op = RS_ATTN_BACKWARD;
    a.grad_out = view4(ag, p->b, p->hq, p->l, p->ev, padded);
    a.grad_q = view4(adq, p->b, p->hq, p->l, p->e, 0);
    a.grad_k = view4(adk, p->b, p->hk, p->s, p->e, 0);
    a.grad_v = view4(adv, p->b, p->hk, p->s, p->ev, 0);
    ok = ok && rs_attention_run(s, &a) == RS_OK;
    float *h_o = malloc(sizeof(float) * (size_t)(no + 1)), *h_l = malloc(sizeof(float) * (size_t)(nl + 1));
    float *h_q = malloc(sizeof(float) * (size_t)(nq + 1)), *h_k = malloc(sizeof(float) * (size_t)(nk + 1));
    float *h_v = malloc(sizeof(float) * (size_t)(nv + 1));
    ok = ok && rs_memcpy_dtoh(s, h_o, ao, sizeof(float) * (size_t)no) == RS_OK &&
         rs_memcpy_dtoh(s, h_l, al, sizeof(float) * (size_t)nl) == RS_OK &&
         rs_memcpy_dtoh(s, h_q, adq, sizeof(float) * (size_t)nq) == RS_OK &&
         rs_memcpy_dtoh(s, h_k, adk, sizeof(float) * (size_t)nk) == RS_OK &&
         rs_memcpy_dtoh(s, h_v, adv, sizeof(float) * (size_t)nv) == RS_OK && rs_stream_synchronize(s) == RS_OK;
    if (!ok) fprintf(stderr, "  rs_attention: %s\n", rs_last_error());
    ok = ok && close_to("out", h_o, out, nl, p->ev, p->ev) && close_to("lse", h_l, lse, nl, 1, 1) &&
         close_to("grad q", h_q, dq, (int64_t)p->b * p->hq * p->l, p->e, p->e) &&
         close_to("grad k", h_k, dk, (int64_t)p->b * p->hk * p->s, p->e, p->e) &&
         close_to("grad v", h_v, dv, (int64_t)p->b * p->hk * p->s, p->ev, p->ev);
    uint64_t bufs[10] = {aq, ak, av, ag, am, ao, al, adq, adk, adv};
    for (int i = 0; i < 10; ++i)
        if (bufs[i]) rs_free(dev, bufs[i]);
    free(q), free(k), free(v), free(g), free(mask), free(keep), free(out), free(lse), free(dq), free(dk), free(dv);
    free(h_o), free(h_l), free(h_q), free(h_k), free(h_v);
    return ok;
}

TEST(forward_and_backward_against_reference) {
    prob plain = {2, 2, 2, 19, 23, 20, 24, 0, 0, 0};
    CHECK(run_case(&plain, 0));
    prob gqa_mask = {1, 4, 2, 17, 33, 16, 8, 0, 1, 0};
    CHECK(run_case(&gqa_mask, 1));
    prob causal = {1, 3, 1, 35, 35, 70, 40, 1, 0, 0};
    CHECK(run_case(&causal, 0));
    prob causal_mask = {2, 2, 1, 18, 21, 130, 130, 1, 1, 0};
    CHECK(run_case(&causal_mask, 1));
}

TEST(dropout_against_reference_with_the_same_mask) {
    prob plain = {2, 2, 2, 19, 23, 20, 24, 0, 0, 0.3};
    CHECK(run_case(&plain, 0));
    prob gqa_causal_mask = {1, 4, 2, 17, 33, 16, 8, 1, 1, 0.5};
    CHECK(run_case(&gqa_causal_mask, 1));
}

TEST(bad_arguments_fail_clearly) {
    rs_device *dev = ctest_device();
    rs_stream *s = ctest_stream(dev);
    rs_attention a;
    memset(&a, 0, sizeof a);
    a.q = view4(0, 1, 3, 4, 8, 0);
    a.k = view4(0, 1, 2, 4, 8, 0); /* 3 query heads, 2 key heads */
    a.v = view4(0, 1, 2, 4, 8, 0);
    a.out = view4(0, 1, 3, 4, 8, 0);
    a.lse = 1;
    CHECK(rs_attention_run(s, &a) == RS_ERR_INVALID);
    CHECK(strstr(rs_last_error(), "multiple") != NULL);
    a.k = view4(0, 1, 3, 4, 8, 0);
    a.v = view4(0, 1, 3, 4, 8, 0);
    a.k.sizes[3] = 7; /* head dims differ */
    CHECK(rs_attention_run(s, &a) == RS_ERR_INVALID);
    a.k.sizes[3] = 8;
    a.q.sizes[3] = a.k.sizes[3] = 300;
    CHECK(rs_attention_run(s, &a) == RS_ERR_UNSUPPORTED);
    a.q.sizes[3] = a.k.sizes[3] = 8;
    a.dropout = 1.0; /* every probability dropped: not in [0, 1) */
    CHECK(rs_attention_run(s, &a) == RS_ERR_INVALID);
    CHECK(strstr(rs_last_error(), "dropout") != NULL);
    a.dropout = 0.0;
    a.q.dtype = a.k.dtype = a.v.dtype = a.out.dtype = RS_INT32;
    CHECK(rs_attention_run(s, &a) == RS_ERR_UNSUPPORTED);
}

int main(void) {
    RUN(forward_and_backward_against_reference);
    RUN(dropout_against_reference_with_the_same_mask);
    RUN(bad_arguments_fail_clearly);
    CTEST_END();
}
