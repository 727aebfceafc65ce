/* The embedding-bag engine (russet/embedding_bag.h) without torch, against a
 * host loop written from the contract: sum (with per-sample weights),
 * mean and max over bags with padding, an empty bag, a trailing offset
 * (include_last_offset), int32 indices, a strided weight, a NaN that counts
 * only first in max, no columns (counts only); out-of-range indices and
 * offsets raise at the sync; bad arguments fail clearly. float32 (exact
 * order, so exact results). */
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
    uint64_t dout, dbs, dmi;
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
    CHECK_OK(rs_embedding_bag_run(s, &e));
    float out[5 * D];
    int64_t bs[5], mi[5 * D];
    int32_t bs32[5], mi32[5 * D];
    CHECK_OK(rs_memcpy_dtoh(s, out, dout, 4 * (uint64_t)nb * D));
    CHECK_OK(rs_memcpy_dtoh(s, idx32 ? (void *)bs32 : (void *)bs, dbs, isz * (uint64_t)nb));
    if (mode == RS_EBAG_MAX) CHECK_OK(rs_memcpy_dtoh(s, idx32 ? (void *)mi32 : (void *)mi, dmi, isz * (uint64_t)nb * D));
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
    rs_free(dev, dw), rs_free(dev, dp), rs_free(dev, di), rs_free(dev, doff);
    rs_free(dev, dout), rs_free(dev, dbs), rs_free(dev, dmi);
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
}

int main(void) {
    RUN(modes_against_the_contract);
    RUN(bad_indices_raise_at_the_sync);
    RUN(bad_arguments_fail_clearly);
    CTEST_END();
}
