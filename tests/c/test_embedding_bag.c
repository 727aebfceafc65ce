/* The embedding-bag engine (russet/embedding_bag.h) without torch, against a
 * host loop written from the contract: sum (with per-sample weights),
 * mean and max over bags with padding, an empty bag, a trailing offset
 * (include_last_offset), int32 indices, a strided weight, a NaN that counts
 * only first in max, no columns (counts only); out-of-range indices and
 * offsets raise at the sync; bad arguments fail clearly. float32 (exact
 * order, so exact results). The forward's offset2bag, and the backward
 * (the weight's gradient, every mode, each position's bag from offset2bag
 * or from the offsets, with scale_grad_by_freq; the per-sample weights'
 * gradient) against the contract's loops on the forward's own results. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "ctest.h"
#include "engine/engine.h"

enum { N = 7, D = 3, L = 8 };

/* bags [1 2] [] [2 4 0] [5 2 2] (positions 0-1, -, 2-4, 5-7); padding 2 */
static const int64_t IDX[L] = {1, 2, 2, 4, 0, 5, 2, 2};
static const int64_t OFF[5] = {0, 2, 2, 5, 8};

/* the contract's loop for bag b over [s, e) of column c */
static void ref_bag(int mode, const float *w, int ws0, const float *psw, int64_t pad, int64_t s, int64_t e, int c,
                    float *out, int64_t *count, int64_t *best) {
    float acc = 0;
    *count = 0, *best = 0;
    for (int64_t p = s; p < e; ++p) {
        const int64_t i = IDX[p];
        if (i == pad) continue;
        float v = w[i * ws0 + c];
        if (mode == RS_EBAG_MAX) {
            if (*count == 0 || v > acc) acc = v, *best = i;
        } else {
            if (psw) v = v * psw[p];
            acc = acc + v;
        }
        ++*count;
    }
    if (mode == RS_EBAG_MEAN) acc = acc / (float)(*count > 0 ? *count : 1);
    *out = acc;
}

/* the weight's gradient (N, D) by the contract's loops from the forward's
 * results: rows scaled and summed in position order (sum, mean), or each
 * bag's maxima (max) */
static void ref_grad(int mode, const float *g, const float *psw, int64_t pad, int freq, const int64_t *bag,
                     const int64_t *bs, const int64_t *mi, int64_t nb, float *gw) {
    memset(gw, 0, sizeof(float) * N * D);
    if (mode == RS_EBAG_MAX) {
        for (int64_t b = 0; b < nb; ++b)
            for (int c = 0; c < D; ++c)
                if (bs[b] > 0) gw[mi[b * D + c] * D + c] += g[b * D + c];
        return;
    }
    int64_t count[N] = {0};
    for (int p = 0; p < L; ++p) ++count[IDX[p]];
    for (int p = 0; p < L; ++p) {
        if (IDX[p] == pad) continue;
        for (int c = 0; c < D; ++c) {
            float v = g[bag[p] * D + c];
            if (psw || freq || mode == RS_EBAG_MEAN) {
                float sc = 1.0f;
                int has = 0;
                if (psw) sc = psw[p], has = 1;
                if (freq) sc = has ? sc / (float)count[IDX[p]] : 1.0f / (float)count[IDX[p]], has = 1;
                if (mode == RS_EBAG_MEAN) {
                    const float n = (float)(bs[bag[p]] > 1 ? bs[bag[p]] : 1);
                    sc = has ? sc / n : 1.0f / n;
                }
                v = v * sc;
            }
            gw[IDX[p] * D + c] += v;
        }
    }
}

/* the backward on the forward's results (all int64 here): the weight's
 * gradient, and for sum with per-sample weights their gradient; each
 * position's bag from offset2bag (o2b) or from the offsets */
static void run_backward(rs_ebag_mode mode, const rs_embedding_bag *e, uint64_t dw, const float *wh, const float *ph,
                         int64_t nb, const int64_t *bag, const int64_t *bs, const int64_t *mi, int o2b, int freq) {
    rs_device *dev = ctest_device();
    rs_stream *s = ctest_stream(dev);
    float gh[5 * D], gw[N * D], want[N * D];
    for (int i = 0; i < nb * D; ++i) gh[i] = 0.75f + 0.5f * (float)((i * 5) % 7) - 1.0f * (float)(i % 2);
    uint64_t dg = ctest_upload(dev, s, gh, sizeof(float) * (size_t)(nb * D)), dgw, dpg;
    CHECK_OK(rs_alloc(dev, sizeof gw, s, &dgw));
    CHECK_OK(rs_alloc(dev, sizeof(float) * L, s, &dpg));
    rs_embedding_bag_grad g;
    memset(&g, 0, sizeof g);
    g.mode = mode;
    const int64_t gsz[2] = {nb, D}, wsz[2] = {N, D}, lsz[1] = {L};
    g.grad = ctest_view(dg, RS_FLOAT32, 2, gsz);
    g.indices = e->indices;
    if (o2b) g.offset2bag = e->offset2bag; else g.offsets = e->offsets;
    if (mode != RS_EBAG_SUM) g.bag_size = e->bag_size;
    if (mode == RS_EBAG_MAX) g.max_indices = e->max_indices;
    g.per_sample_weights = e->per_sample_weights;
    g.padding_idx = e->padding_idx;
    g.scale_grad_by_freq = freq;
    g.out = ctest_view(dgw, RS_FLOAT32, 2, wsz);
    CHECK_OK(rs_embedding_bag_backward_run(s, &g));
    CHECK_OK(rs_memcpy_dtoh(s, gw, dgw, sizeof gw));
    ref_grad(mode, gh, e->per_sample_weights.ndim ? ph : NULL, e->padding_idx, freq, bag, bs, mi, nb, want);
    for (int i = 0; i < N * D; ++i)
        if (memcmp(&gw[i], &want[i], 4) != 0 && !(isnan(gw[i]) && isnan(want[i]))) {
            fprintf(stderr, "  backward mode %d o2b %d freq %d pad %lld: gw[%d] %g, want %g\n", (int)mode, o2b, freq,
                    (long long)e->padding_idx, i, gw[i], want[i]);
            CHECK(0);
            break;
        }
    if (mode == RS_EBAG_SUM && e->per_sample_weights.ndim) {
        g.weight = e->weight;
        g.out = ctest_view(dpg, RS_FLOAT32, 1, lsz);
        CHECK_OK(rs_embedding_bag_psw_backward_run(s, &g));
        float pg[L];
        CHECK_OK(rs_memcpy_dtoh(s, pg, dpg, sizeof pg));
        for (int p = 0; p < L; ++p) {
            float acc = 0;
            if (IDX[p] != e->padding_idx)
                for (int c = 0; c < D; ++c) acc += gh[bag[p] * D + c] * wh[IDX[p] * 5 + c];
            const int same = isnan(acc) ? isnan(pg[p]) : memcmp(&acc, &pg[p], 4) == 0;
            if (!same) {
                fprintf(stderr, "  psw backward o2b %d pad %lld: [%d] %g, want %g\n", o2b, (long long)e->padding_idx,
                        p, pg[p], acc);
                CHECK(0);
                break;
            }
        }
    }
    (void)wsz;
    rs_free(dev, dg), rs_free(dev, dgw), rs_free(dev, dpg);
}

static void run(rs_ebag_mode mode, int psw_on, int64_t pad, int ilo, int idx32) {
    rs_device *dev = ctest_device();
    rs_stream *s = ctest_stream(dev);
    /* a weight with row stride 5 (a column slice of a (N, 5) matrix); a NaN
     * in row 4, which bag 2 meets after row 2 would (pad -1) or first */
    float wh[N * 5], ph[L];
    for (int i = 0; i < N * 5; ++i) wh[i] = (float)((i * 37) % 11) - 5.0f + 0.25f * (float)(i % 3);
    wh[4 * 5 + 1] = NAN;
    wh[0 * 5 + 1] = NAN; /* bag 2's last row, never first: does not count */
    for (int p = 0; p < L; ++p) ph[p] = 0.5f + 0.125f * (float)p;
    /* offsets (0, 2, 2, 5, 8): 5 bags, the last empty; with
     * include_last_offset 4, the last ending at 8 */
    const int64_t nb = ilo ? 4 : 5, noffs = 5;
    const int64_t *off = OFF;
    int32_t i32[L], o32[5];
    for (int i = 0; i < L; ++i) i32[i] = (int32_t)IDX[i];
    for (int i = 0; i < 5; ++i) o32[i] = (int32_t)off[i];
    const rs_dtype it = idx32 ? RS_INT32 : RS_INT64;
    const size_t isz = idx32 ? 4 : 8;
    uint64_t dw = ctest_upload(dev, s, wh, sizeof wh), dp = ctest_upload(dev, s, ph, sizeof ph);
    uint64_t di = ctest_upload(dev, s, idx32 ? (const void *)i32 : (const void *)IDX, L * isz);
    uint64_t doff = ctest_upload(dev, s, idx32 ? (const void *)o32 : (const void *)off, noffs * isz);
    uint64_t dout, dbs, dmi, do2b;
    CHECK_OK(rs_alloc(dev, isz * L, s, &do2b));
    CHECK_OK(rs_alloc(dev, 4 * (uint64_t)nb * D, s, &dout));
    CHECK_OK(rs_alloc(dev, isz * (uint64_t)nb, s, &dbs));
    CHECK_OK(rs_alloc(dev, isz * (uint64_t)nb * D, s, &dmi));
    rs_embedding_bag e;
    memset(&e, 0, sizeof e);
    e.mode = mode;
    const int64_t wsz[2] = {N, D}, lsz[1] = {L}, osz[1] = {noffs}, bsz[1] = {nb}, bdsz[2] = {nb, D};
    e.weight = ctest_view(dw, RS_FLOAT32, 2, wsz);
    e.weight.strides[0] = 5;
    e.indices = ctest_view(di, it, 1, lsz);
    e.offsets = ctest_view(doff, it, 1, osz);
    if (psw_on) e.per_sample_weights = ctest_view(dp, RS_FLOAT32, 1, lsz);
    e.padding_idx = pad;
    e.out = ctest_view(dout, RS_FLOAT32, 2, bdsz);
    e.bag_size = ctest_view(dbs, it, 1, bsz);
    if (mode == RS_EBAG_MAX) e.max_indices = ctest_view(dmi, it, 2, bdsz);
    e.offset2bag = ctest_view(do2b, it, 1, lsz);
    CHECK_OK(rs_embedding_bag_run(s, &e));
    float out[5 * D];
    int64_t bs[5], mi[5 * D];
    int32_t bs32[5], mi32[5 * D];
    CHECK_OK(rs_memcpy_dtoh(s, out, dout, 4 * (uint64_t)nb * D));
    CHECK_OK(rs_memcpy_dtoh(s, idx32 ? (void *)bs32 : (void *)bs, dbs, isz * (uint64_t)nb));
    if (mode == RS_EBAG_MAX) CHECK_OK(rs_memcpy_dtoh(s, idx32 ? (void *)mi32 : (void *)mi, dmi, isz * (uint64_t)nb * D));
    int64_t bag[L], bs64[5], mi64[5 * D];
    int32_t bag32[L];
    CHECK_OK(rs_memcpy_dtoh(s, idx32 ? (void *)bag32 : (void *)bag, do2b, isz * L));
    for (int p = 0; p < L; ++p) {
        if (idx32) bag[p] = bag32[p];
        int64_t want = -1; /* the bags starting at or before p, minus one */
        for (int b = 0; b < nb; ++b) want += off[b] <= p;
        if (bag[p] != want) {
            fprintf(stderr, "  mode %d ilo %d idx32 %d: offset2bag[%d] %lld, want %lld\n", (int)mode, ilo, idx32, p,
                    (long long)bag[p], (long long)want);
            CHECK(0);
            return;
        }
    }
    for (int b = 0; b < nb; ++b)
        for (int c = 0; c < D; ++c) {
            const int64_t st = off[b], en = b + 1 < noffs ? off[b + 1] : L;
            float want;
            int64_t count, best;
            ref_bag(mode, wh, 5, psw_on ? ph : NULL, pad, st, en, c, &want, &count, &best);
            const float got = out[b * D + c];
            const int same = isnan(want) ? isnan(got) : memcmp(&got, &want, 4) == 0;
            const int64_t gbs = idx32 ? bs32[b] : bs[b];
            const int64_t gmi = mode != RS_EBAG_MAX ? best : idx32 ? mi32[b * D + c] : mi[b * D + c];
            if (!same || gbs != count || gmi != best) {
                fprintf(stderr, "  mode %d psw %d pad %lld ilo %d idx32 %d bag %d col %d: got %g (%lld, %lld), "
                        "want %g (%lld, %lld)\n", (int)mode, psw_on, (long long)pad, ilo, idx32, b, c, got,
                        (long long)gbs, (long long)gmi, want, (long long)count, (long long)best);
                CHECK(0);
                return;
            }
        }
    if (!idx32) { /* the backward on these results */
        for (int b = 0; b < nb; ++b) bs64[b] = bs[b];
        for (int i = 0; i < nb * D; ++i) mi64[i] = mode == RS_EBAG_MAX ? mi[i] : 0;
        for (int o2b = 0; o2b < 2; ++o2b)
            for (int freq = 0; freq < 2; ++freq) run_backward(mode, &e, dw, wh, ph, nb, bag, bs64, mi64, o2b, freq);
    }
    rs_free(dev, dw), rs_free(dev, dp), rs_free(dev, di), rs_free(dev, doff);
    rs_free(dev, dout), rs_free(dev, dbs), rs_free(dev, dmi), rs_free(dev, do2b);
}

TEST(modes_against_the_contract) {
    for (int mode = RS_EBAG_SUM; mode <= RS_EBAG_MAX; ++mode)
        for (int pad = -1; pad <= 2; pad += 3)
            for (int ilo = 0; ilo < 2; ++ilo)
                for (int i32 = 0; i32 < 2; ++i32) run((rs_ebag_mode)mode, 0, pad, ilo, i32);
    run(RS_EBAG_SUM, 1, -1, 0, 0);
    run(RS_EBAG_SUM, 1, 2, 1, 1);
}

/* out-of-range indices and offsets raise at the sync, naming the value */
TEST(bad_indices_raise_at_the_sync) {
    rs_device *dev = ctest_device();
    rs_stream *s = ctest_stream(dev);
    float wh[N * D] = {0};
    /* idx0, idx1, off0, off1; -1 with no padding_idx (-1 means none) */
    const int64_t cases[4][4] = {{1, 9, 0, 0}, {1, -1, 0, 0}, {1, 2, 1, 2}, {1, 2, 0, 3}};
    const int64_t wants[4] = {9, -1, 1, 3};
    for (int c = 0; c < 4; ++c) {
        const int64_t idx[2] = {cases[c][0], cases[c][1]}, off[2] = {cases[c][2], cases[c][3]};
        uint64_t dw = ctest_upload(dev, s, wh, sizeof wh), di = ctest_upload(dev, s, idx, sizeof idx);
        uint64_t doff = ctest_upload(dev, s, off, sizeof off), dout;
        CHECK_OK(rs_alloc(dev, 4 * 2 * D, s, &dout));
        rs_embedding_bag e;
        memset(&e, 0, sizeof e);
        const int64_t wsz[2] = {N, D}, two[1] = {2}, osz[2] = {2, D};
        e.weight = ctest_view(dw, RS_FLOAT32, 2, wsz);
        e.indices = ctest_view(di, RS_INT64, 1, two);
        e.offsets = ctest_view(doff, RS_INT64, 1, two);
        e.out = ctest_view(dout, RS_FLOAT32, 2, osz);
        e.padding_idx = -1;
        CHECK_OK(rs_embedding_bag_run(s, &e));
        char want[32];
        snprintf(want, sizeof want, "index %lld is out", (long long)wants[c]);
        CHECK(rs_stream_synchronize(s) == RS_ERR_DEVICE_ASSERT && strstr(rs_last_error(), want));
        rs_free(dev, dw), rs_free(dev, di), rs_free(dev, doff), rs_free(dev, dout);
    }
}

/* offsets that decrease raise at the sync (CPU's sum and mean raise) */
TEST(decreasing_offsets_raise) {
    rs_device *dev = ctest_device();
    rs_stream *s = ctest_stream(dev);
    float wh[N * D] = {0};
    const int64_t idx[4] = {1, 2, 3, 4}, off[3] = {0, 3, 1};
    uint64_t dw = ctest_upload(dev, s, wh, sizeof wh), di = ctest_upload(dev, s, idx, sizeof idx);
    uint64_t doff = ctest_upload(dev, s, off, sizeof off), dout;
    CHECK_OK(rs_alloc(dev, 4 * 3 * D, s, &dout));
    rs_embedding_bag e;
    memset(&e, 0, sizeof e);
    const int64_t wsz[2] = {N, D}, four[1] = {4}, three[1] = {3}, osz[2] = {3, D};
    e.weight = ctest_view(dw, RS_FLOAT32, 2, wsz);
    e.indices = ctest_view(di, RS_INT64, 1, four);
    e.offsets = ctest_view(doff, RS_INT64, 1, three);
    e.out = ctest_view(dout, RS_FLOAT32, 2, osz);
    e.padding_idx = -1;
    e.mode = RS_EBAG_SUM;
    CHECK_OK(rs_embedding_bag_run(s, &e));
    CHECK(rs_stream_synchronize(s) == RS_ERR_DEVICE_ASSERT && strstr(rs_last_error(), "non-decreasing"));
    rs_free(dev, dw), rs_free(dev, di), rs_free(dev, doff), rs_free(dev, dout);
}

TEST(bad_arguments_fail_clearly) {
    rs_device *dev = ctest_device();
    rs_stream *s = ctest_stream(dev);
    rs_embedding_bag e;
    memset(&e, 0, sizeof e);
    const int64_t wsz[2] = {N, D}, lsz[1] = {L}, osz[1] = {4}, bdsz[2] = {4, D};
    e.weight = ctest_view(0, RS_FLOAT32, 2, wsz);
    e.indices = ctest_view(0, RS_INT64, 1, lsz);
    e.offsets = ctest_view(0, RS_INT32, 1, osz);
    e.out = ctest_view(0, RS_FLOAT32, 2, bdsz);
    CHECK(rs_embedding_bag_run(s, &e) == RS_ERR_INVALID && strstr(rs_last_error(), "offsets"));
    e.offsets.dtype = RS_INT64;
    e.mode = RS_EBAG_MEAN;
    e.per_sample_weights = ctest_view(0, RS_FLOAT32, 1, lsz);
    CHECK(rs_embedding_bag_run(s, &e) == RS_ERR_INVALID && strstr(rs_last_error(), "mode='sum'"));
    e.per_sample_weights.ndim = 0;
    e.weight.dtype = RS_INT32;
    CHECK(rs_embedding_bag_run(s, &e) == RS_ERR_INVALID && strstr(rs_last_error(), "weights"));
    /* the backward: max without max_indices; offset2bag of the wrong length */
    rs_embedding_bag_grad g;
    memset(&g, 0, sizeof g);
    g.mode = RS_EBAG_MAX;
    g.grad = ctest_view(0, RS_FLOAT32, 2, bdsz);
    g.indices = ctest_view(0, RS_INT64, 1, lsz);
    g.offsets = ctest_view(0, RS_INT64, 1, osz);
    g.bag_size = ctest_view(0, RS_INT64, 1, osz);
    g.out = ctest_view(0, RS_FLOAT32, 2, wsz);
    CHECK(rs_embedding_bag_backward_run(s, &g) == RS_ERR_INVALID && strstr(rs_last_error(), "max_indices"));
    g.mode = RS_EBAG_SUM;
    g.offset2bag = ctest_view(0, RS_INT64, 1, osz);
    CHECK(rs_embedding_bag_backward_run(s, &g) == RS_ERR_INVALID && strstr(rs_last_error(), "offset2bag"));
    CHECK(rs_embedding_bag_psw_backward_run(s, &g) == RS_ERR_INVALID && strstr(rs_last_error(), "weight"));
}

/* embedding_renorm: rows named (with repeats and a negative index) are
 * scaled once where their norm exceeds max_norm, the others untouched;
 * p = 2, 1, inf and 3; a transposed weight; an index out of range raises */
static void renorm_case(double p, int transposed) {
    rs_device *dev = ctest_device();
    rs_stream *s = ctest_stream(dev);
    enum { N = 6, D = 70 };
    float w[N * D], got[N * D];
    for (int i = 0; i < N * D; ++i) w[i] = (float)(sin(i * 0.37) * (1 + i / D));
    /* rows 1, 3, 5 (as -1), with repeats; row 0 small: under max_norm */
    for (int j = 0; j < D; ++j) w[j] *= 0.001f;
    const int64_t idx[7] = {3, 1, 3, -1, 0, 1, 5}, isz = 7;
    const double max_norm = 1.5;
    const int64_t wsz[2] = {N, D}, tsz[2] = {D, N};
    float host[N * D]; /* the weight as uploaded: row-major, or transposed storage */
    for (int r = 0; r < N; ++r)
        for (int j = 0; j < D; ++j) host[transposed ? j * N + r : r * D + j] = w[r * D + j];
    uint64_t dw = ctest_upload(dev, s, host, sizeof host), di = ctest_upload(dev, s, idx, sizeof idx);
    rs_tensor tw = transposed ? ctest_view(dw, RS_FLOAT32, 2, tsz) : ctest_view(dw, RS_FLOAT32, 2, wsz);
    if (transposed) {
        tw.sizes[0] = N, tw.sizes[1] = D, tw.strides[0] = 1, tw.strides[1] = N;
    }
    rs_tensor ti = ctest_view(di, RS_INT64, 1, &isz);
    CHECK_OK(rs_embedding_renorm(s, &tw, &ti, max_norm, p));
    CHECK_OK(rs_memcpy_dtoh(s, got, dw, sizeof got));
    CHECK_OK(rs_stream_synchronize(s));
    int bad = 0;
    for (int r = 0; r < N; ++r) {
        const int named = r == 0 || r == 1 || r == 3 || r == 5;
        double norm = 0;
        for (int j = 0; j < D; ++j) {
            const double v = fabs(w[r * D + j]);
            norm = isinf(p) ? fmax(norm, v) : norm + pow(v, p);
        }
        if (!isinf(p)) norm = pow(norm, 1.0 / p);
        const double scale = named && norm > max_norm ? max_norm / (norm + 1e-7) : 1.0;
        for (int j = 0; j < D; ++j) {
            const double want = w[r * D + j] * scale, g = got[transposed ? j * N + r : r * D + j];
            bad += fabs(g - want) > 1e-5 * (1 + fabs(want));
        }
    }
    if (bad) fprintf(stderr, "  renorm p %g transposed %d: %d wrong\n", p, transposed, bad);
    CHECK(bad == 0);
    /* an index past the rows raises at the sync */
    const int64_t past = N;
    CHECK_OK(rs_memcpy_htod(s, di, &past, 8));
    CHECK_OK(rs_embedding_renorm(s, &tw, &ti, max_norm, p));
    CHECK(rs_stream_synchronize(s) == RS_ERR_DEVICE_ASSERT && strstr(rs_last_error(), "out of bounds"));
    rs_free(dev, dw), rs_free(dev, di);
}

TEST(renorm_scales_each_named_row_once) {
    renorm_case(2, 0);
    renorm_case(1, 1);
    renorm_case(INFINITY, 0);
    renorm_case(3, 1);
    /* refused: a float64 weight's general p (no double pow), an integer weight */
    rs_device *dev = ctest_device();
    const int64_t wsz[2] = {2, 2}, isz = 1;
    rs_tensor w = ctest_view(64, RS_FLOAT64, 2, wsz), i = ctest_view(64, RS_INT64, 1, &isz);
    CHECK(rs_embedding_renorm(ctest_stream(dev), &w, &i, 1.0, 3.0) == RS_ERR_UNSUPPORTED);
    w.dtype = RS_INT32;
    CHECK(rs_embedding_renorm(ctest_stream(dev), &w, &i, 1.0, 2.0) == RS_ERR_INVALID);
}

int main(void) {
    RUN(modes_against_the_contract);
    RUN(bad_indices_raise_at_the_sync);
    RUN(decreasing_offsets_raise);
    RUN(bad_arguments_fail_clearly);
    RUN(renorm_scales_each_named_row_once);
    CTEST_END();
}
