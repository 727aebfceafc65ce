/* The CTC loss (rs_ctc_loss_*) without torch, against a reference that
 * enumerates every alignment: the likelihood is the sum over the frame
 * paths that collapse (repeats merged, then blanks dropped) to the target,
 * and the gradient exp(lp) - P(path passes (t, c) | target). Strided
 * log_probs, padded and concatenated int32/int64 targets, a sample shorter
 * than T, an empty target, an impossible one under zero_infinity; bad
 * arguments fail clearly, a label out of range raises the device error. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "ctest.h"
#include "engine/engine.h"

enum { T = 5, N = 4, C = 3, LMAX = 3, S = 2 * LMAX + 1 };

static const int64_t kInLen[N] = {5, 4, 5, 2};
static const int64_t kTgLen[N] = {2, 3, 0, 3}; /* sample 3: 3 labels in 2 frames, impossible */
static const int64_t kLabels[N][LMAX] = {{1, 2, 0}, {1, 1, 2}, {0, 0, 0}, {2, 1, 2}};

static int close_to(double got, double want, double tol) {
    if (isinf(want)) return got == want;
    return fabs(got - want) <= tol * (1.0 + fabs(want));
}

/* the frame paths of sample n that collapse to its target: likelihood p and
 * occupancy occ[t][c] (the probability mass through class c at frame t) */
static void reference(const double lp[T][N][C], int n, double *p, double occ[T][C]) {
    int tn = (int)kInLen[n], ln = (int)kTgLen[n];
    *p = 0;
    memset(occ, 0, sizeof(double) * T * C);
    int path[T], total = 1;
    for (int t = 0; t < tn; t++) total *= C;
    for (int code = 0; code < total; code++) {
        int x = code, out[T], k = 0, prev = -1;
        for (int t = 0; t < tn; t++) path[t] = x % C, x /= C;
        for (int t = 0; t < tn; t++) {
            if (path[t] != prev && path[t] != 0) out[k++] = path[t];
            prev = path[t];
        }
        if (k != ln) continue;
        int same = 1;
        for (int j = 0; j < k; j++) same &= out[j] == kLabels[n][j];
        if (!same) continue;
        double q = 1;
        for (int t = 0; t < tn; t++) q *= exp(lp[t][n][path[t]]);
        *p += q;
        for (int t = 0; t < tn; t++) occ[t][path[t]] += q;
    }
}

static void run(int concat, rs_dtype tg_dt) {
    rs_device *dev = ctest_device();
    rs_stream *s = ctest_stream(dev);
    /* log_probs (T, N, C) as a view with a padded class stride of 4 */
    static float lpbuf[T * N * 4];
    double lp[T][N][C];
    for (int t = 0; t < T; t++)
        for (int n = 0; n < N; n++) {
            double z[C], m = 0;
            for (int c = 0; c < C; c++) z[c] = sin(1.3 * t + 2.1 * n + 0.7 * c) * 2, m += exp(z[c]);
            for (int c = 0; c < C; c++) {
                lp[t][n][c] = (float)(z[c] - log(m));
                lpbuf[(t * N + n) * 4 + c] = (float)lp[t][n][c];
            }
        }
    /* targets, int32 or int64: padded (N, LMAX) or every sample's in turn */
    int64_t tg64[N * LMAX];
    int32_t tg32[N * LMAX];
    int64_t ntg = 0;
    for (int n = 0; n < N; n++)
        for (int j = 0; j < (concat ? kTgLen[n] : LMAX); j++)
            tg64[ntg] = kLabels[n][j], tg32[ntg] = (int32_t)kLabels[n][j], ntg++;
    size_t tsz = tg_dt == RS_INT64 ? 8 : 4;
    uint64_t dlp = ctest_upload(dev, s, lpbuf, sizeof lpbuf);
    uint64_t dtg = ctest_upload(dev, s, tg_dt == RS_INT64 ? (void *)tg64 : (void *)tg32, (size_t)ntg * tsz);
    uint64_t dal, dnll, dgo, dgr;
    CHECK_OK(rs_alloc(dev, (uint64_t)N * T * S * 4, s, &dal));
    CHECK_OK(rs_alloc(dev, N * 4, s, &dnll));
    CHECK_OK(rs_alloc(dev, T * N * C * 4, s, &dgr));
    float go[N] = {1.0f, 0.5f, 2.0f, 1.5f};
    dgo = ctest_upload(dev, s, go, sizeof go);

    rs_ctc_loss p;
    memset(&p, 0, sizeof p);
    int64_t lps[3] = {T, N, C}, als[3] = {N, T, S}, nv = N;
    p.log_probs = ctest_view(dlp, RS_FLOAT32, 3, lps);
    p.log_probs.strides[0] = N * 4, p.log_probs.strides[1] = 4, p.log_probs.strides[2] = 1;
    int64_t tgs[2] = {N, LMAX};
    p.targets = concat ? ctest_view(dtg, tg_dt, 1, &ntg) : ctest_view(dtg, tg_dt, 2, tgs);
    p.input_lengths = kInLen;
    p.target_lengths = kTgLen;
    p.blank = 0;
    p.log_alpha = ctest_view(dal, RS_FLOAT32, 3, als);
    p.nll = ctest_view(dnll, RS_FLOAT32, 1, &nv);
    p.grad_out = ctest_view(dgo, RS_FLOAT32, 1, &nv);
    p.grad = ctest_view(dgr, RS_FLOAT32, 3, lps);
    p.zero_infinity = 1;
    CHECK_OK(rs_ctc_loss_forward(s, &p));
    CHECK_OK(rs_ctc_loss_backward(s, &p));
    float nll[N], grad[T * N * C];
    CHECK_OK(rs_memcpy_dtoh(s, nll, dnll, sizeof nll));
    CHECK_OK(rs_memcpy_dtoh(s, grad, dgr, sizeof grad));
    for (int n = 0; n < N; n++) {
        double pr, occ[T][C];
        reference(lp, n, &pr, occ);
        double want = pr > 0 ? -log(pr) : INFINITY;
        if (!close_to(nll[n], want, 1e-5)) fprintf(stderr, "  nll[%d] %g, want %g\n", n, nll[n], want);
        CHECK(close_to(nll[n], want, 1e-5));
        for (int t = 0; t < T; t++)
            for (int c = 0; c < C; c++) {
                double g = 0; /* past the sample's frames, and zero_infinity */
                if (t < kInLen[n] && pr > 0) g = (exp(lp[t][n][c]) - occ[t][c] / pr) * go[n];
                float got = grad[(t * N + n) * C + c];
                if (!close_to(got, g, 1e-5)) fprintf(stderr, "  grad[%d, %d, %d] %g, want %g\n", t, n, c, got, g);
                CHECK(close_to(got, g, 1e-5));
            }
    }

    /* bad arguments, with ATen's messages; dtypes the kernel lacks: UNSUPPORTED */
    rs_ctc_loss bad = p;
    bad.blank = C;
    CHECK(rs_ctc_loss_forward(s, &bad) == RS_ERR_INVALID && strstr(rs_last_error(), "blank"));
    const int64_t too_long[N] = {6, 4, 5, 2};
    bad = p;
    bad.input_lengths = too_long;
    CHECK(rs_ctc_loss_forward(s, &bad) == RS_ERR_INVALID && strstr(rs_last_error(), "input_lengths"));
    bad = p;
    bad.log_alpha.sizes[2] = S - 2;
    CHECK(rs_ctc_loss_forward(s, &bad) == RS_ERR_INVALID);
    bad = p;
    bad.log_probs.dtype = RS_FLOAT16;
    CHECK(rs_ctc_loss_forward(s, &bad) == RS_ERR_UNSUPPORTED);
    if (!concat) {
        bad = p;
        bad.targets.sizes[1] = LMAX - 1;
        CHECK(rs_ctc_loss_forward(s, &bad) == RS_ERR_INVALID && strstr(rs_last_error(), "at least"));
        /* a label past the classes: the device error flag, at the sync */
        int64_t wrong = C;
        uint64_t at = dtg + tsz; /* sample 0's second label */
        if (tg_dt == RS_INT64) CHECK_OK(rs_memcpy_htod(s, at, &wrong, 8));
        else CHECK_OK(rs_memcpy_htod(s, at, &(int32_t){(int32_t)wrong}, 4));
        CHECK_OK(rs_ctc_loss_forward(s, &p));
        CHECK(rs_stream_synchronize(s) == RS_ERR_DEVICE_ASSERT && strstr(rs_last_error(), "out of bounds"));
    }
    rs_free(dev, dlp), rs_free(dev, dtg), rs_free(dev, dal), rs_free(dev, dnll), rs_free(dev, dgo), rs_free(dev, dgr);
}

TEST(padded_int64_targets) { run(0, RS_INT64); }
TEST(concatenated_int32_targets) { run(1, RS_INT32); }
TEST(padded_int32_targets_and_a_bad_label) { run(0, RS_INT32); }

int main(void) {
    RUN(padded_int64_targets);
    RUN(concatenated_int32_targets);
    RUN(padded_int32_targets_and_a_bad_label);
    CTEST_END();
}
