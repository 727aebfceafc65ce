/* rng.c: Philox4x32-10 random fills (kernels/rng.comp; the stream layout
 * is described in kernels/common/philox.glsl). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/engine.h"
#include "params/rng.h"
#include "params/multinomial_check.h"

void rs_philox4x32_10(const uint32_t ctr_in[4], const uint32_t key_in[2], uint32_t out[4]) {
    uint32_t c[4] = {ctr_in[0], ctr_in[1], ctr_in[2], ctr_in[3]};
    uint32_t k0 = key_in[0], k1 = key_in[1];
    for (int r = 0; r < 10; ++r) {
        uint64_t p0 = (uint64_t)0xD2511F53u * c[0], p1 = (uint64_t)0xCD9E8D57u * c[2];
        uint32_t hi0 = (uint32_t)(p0 >> 32), lo0 = (uint32_t)p0;
        uint32_t hi1 = (uint32_t)(p1 >> 32), lo1 = (uint32_t)p1;
        uint32_t n[4] = {hi1 ^ c[1] ^ k0, lo1, hi0 ^ c[3] ^ k1, lo0};
        memcpy(c, n, sizeof c);
        k0 += 0x9E3779B9u;
        k1 += 0xBB67AE85u;
    }
    memcpy(out, c, sizeof c);
}

/* Every call draws one Philox block per 1, 2 or 4 elements at counter
 * (offset / 4, block): advancing the offset by 4 moves to fresh counters. */
uint64_t rs_rng_offset_increment(int64_t numel) { return numel > 0 ? 4 : 0; }

typedef struct rng_push { RS_RNG_PUSH } rng_push;


static int is_floating(rs_dtype dt) {
    switch (dt) {
    case RS_FLOAT16: case RS_FLOAT32: case RS_FLOAT64: case RS_BFLOAT16:
    case RS_FLOAT8_E5M2: case RS_FLOAT8_E4M3FN: case RS_FLOAT8_E5M2FNUZ:
    case RS_FLOAT8_E4M3FNUZ: case RS_FLOAT8_E8M0FNU:
        return 1;
    default:
        return 0;
    }
}


/* One launch of rng.comp over views[0] (dst) and, for the distributions
 * that read or write more, views[1] (src) and views[2] (dst2). */
static rs_status rng_launch_n(rs_stream *s, const rs_tensor *const *views, int nviews, int dist, int fp64,
                              uint64_t seed, uint64_t offset, uint64_t a, uint64_t b, uint64_t c) {
    static const char *const names[3] = {"dst", "src", "mask"};
    rs_layout l;
    rs_status st = rs_layout_make_n(views, names, nviews, &l);
    if (st != RS_OK) return st;
    if (l.numel == 0) return RS_OK;
    const rs_tensor *src = nviews > 1 ? views[1] : views[0];
    /* dropout on contiguous float32 views with out and x 16-byte aligned
     * and the mask 4: whole blocks as words (rng.comp's WORDS;
     * RUSSET_DROPOUT_WORDS=0, a tuning knob read once, turns it off) */
    static int words_on = -1;
    if (words_on < 0) words_on = rs_env_flag("RUSSET_DROPOUT_WORDS", 1);
    int words = words_on && dist == DIST_DROPOUT && l.ndim == 0 && views[0]->dtype == RS_FLOAT32 &&
                ((views[0]->address | views[1]->address) & 15u) == 0 && (views[2]->address & 3u) == 0;
    char defines[96];
    snprintf(defines, sizeof defines, "DST_DT=%d;SRC_DT=%d;DIST=%d;FP64=%d;WORDS=%d", (int)views[0]->dtype,
             (int)src->dtype, dist, fp64, words);
    rs_kernel *k = NULL;
    if ((st = rs_kernel_get(rs_stream_device(s), "rng.comp", defines, &k)) != RS_OK) return st;
    rng_push pc = {views[0]->address, nviews > 1 ? views[1]->address : 0, nviews > 2 ? views[2]->address : 0, 0,
                   (uint64_t)l.numel, seed, offset, a, b, c, (uint32_t)l.ndim, 0};
    if ((st = rs_layout_upload(s, &l, nviews, &pc.params)) != RS_OK) return st;
    /* elements per thread: see the K of rng.comp */
    uint64_t per = (dist == DIST_RANDOM32 || dist >= DIST_SAMPLE || (dist <= DIST_NORMAL && !fp64)) ? 4 : 2;
    rs_access acc[3];
    for (int i = 0; i < nviews; ++i) acc[i] = rs_tensor_access(views[i], i != 1);
    return rs_launch(s, k, ((uint64_t)l.numel + per - 1) / per, &pc, sizeof pc, acc, nviews);
}

static rs_status rng_launch(rs_stream *s, const rs_tensor *view, int dist, int fp64,
                            uint64_t seed, uint64_t offset, uint64_t a, uint64_t b, uint64_t c) {
    return rng_launch_n(s, &view, 1, dist, fp64, seed, offset, a, b, c);
}

static rs_status needs_fp64(const char *op, rs_dtype dt) {
    return rs_error(RS_ERR_UNSUPPORTED, "%s: %s needs shaderFloat64, which this device (profile %s) lacks", op,
                    rs_dtype_name(dt), rs_profile_name(rs_profile_current()));
}

/* uniform_ and normal_ on complex tensors draw their real view, as PyTorch. */
static rs_status float_view(rs_stream *s, const rs_tensor *dst, const char *op, rs_tensor *view,
                            int *fp64) {
    if (!s) return rs_error(RS_ERR_INVALID, "%s: stream is NULL", op);
    if (!dst) return rs_error(RS_ERR_INVALID, "%s: dst is NULL", op);
    if (!rs_dtype_valid((int)dst->dtype))
        return rs_error(RS_ERR_INVALID, "%s: invalid dtype %d", op, (int)dst->dtype);
    rs_status st = rs_view_as_real(dst, view);
    if (st != RS_OK) return st;
    if (!is_floating(view->dtype))
        return rs_error(RS_ERR_INVALID, "%s: not implemented for dtype %s", op,
                        rs_dtype_name(dst->dtype));
    *fp64 = view->dtype == RS_FLOAT64;
    if (*fp64 && !rs_stream_features(s)->has_fp64) return needs_fp64(op, dst->dtype);
    return RS_OK;
}

rs_status rs_rng_uniform(rs_stream *s, const rs_tensor *dst, double from, double to,
                         uint64_t seed, uint64_t offset) {
    rs_tensor v;
    int fp64 = 0;
    rs_status st = float_view(s, dst, "rs_rng_uniform", &v, &fp64);
    if (st != RS_OK) return st;
    if (fp64)
        return rng_launch(s, &v, DIST_UNIFORM, 1, seed, offset, rs_f64_bits(from), rs_f64_bits(to - from),
                          rs_f64_bits(to));
    return rng_launch(s, &v, DIST_UNIFORM, 0, seed, offset, rs_f32_bits((float)from),
                      rs_f32_bits((float)(to - from)), rs_f32_bits((float)to));
}

rs_status rs_rng_normal(rs_stream *s, const rs_tensor *dst, double mean, double std,
                        uint64_t seed, uint64_t offset) {
    rs_tensor v;
    int fp64 = 0;
    rs_status st = float_view(s, dst, "rs_rng_normal", &v, &fp64);
    if (st != RS_OK) return st;
    if (fp64) return rng_launch(s, &v, DIST_NORMAL, 1, seed, offset, rs_f64_bits(mean), rs_f64_bits(std), 0);
    return rng_launch(s, &v, DIST_NORMAL, 0, seed, offset, rs_f32_bits((float)mean), rs_f32_bits((float)std), 0);
}

rs_status rs_rng_random(rs_stream *s, const rs_tensor *dst, int64_t from, uint64_t range,
                        uint64_t seed, uint64_t offset) {
    if (!s) return rs_error(RS_ERR_INVALID, "rs_rng_random: stream is NULL");
    if (!dst) return rs_error(RS_ERR_INVALID, "rs_rng_random: dst is NULL");
    if (!rs_dtype_valid((int)dst->dtype))
        return rs_error(RS_ERR_INVALID, "rs_rng_random: invalid dtype %d", (int)dst->dtype);
    if (rs_dtype_is_complex(dst->dtype))
        return rs_error(RS_ERR_INVALID, "rs_rng_random: not implemented for dtype %s",
                        rs_dtype_name(dst->dtype));
    /* as PyTorch: 64-bit draws once the range reaches 2^32 */
    int dist = (range == 0 || range >= (1ull << 32)) ? DIST_RANDOM64 : DIST_RANDOM32;
    return rng_launch(s, dst, dist, 0, seed, offset, (uint64_t)from, range, 0);
}

/* ---- distributions sampled in one launch (russet/rng.h) */

rs_status rs_rng_sample(rs_stream *s, rs_rng_dist dist, const rs_tensor *dst, const rs_tensor *src, double a,
                        double b, uint64_t seed, uint64_t offset) {
    static const char op[] = "rs_rng_sample";
    if (!s || !dst) return rs_error(RS_ERR_INVALID, "%s: missing arguments", op);
    if ((int)dist < RS_RNG_BERNOULLI || dist > RS_RNG_LOG_NORMAL)
        return rs_error(RS_ERR_INVALID, "%s: unknown distribution %d", op, (int)dist);
    if (!rs_dtype_valid((int)dst->dtype)) return rs_error(RS_ERR_INVALID, "%s: invalid dtype %d", op, (int)dst->dtype);
    const int tensor_p = dist == RS_RNG_BERNOULLI_TENSOR;
    if (tensor_p != (src != NULL))
        return rs_error(RS_ERR_INVALID, "%s: src is the probabilities of BERNOULLI_TENSOR, and only that", op);
    /* continuous values need a floating dst; bernoulli and geometric give integers */
    const int continuous = dist == RS_RNG_EXPONENTIAL || dist == RS_RNG_CAUCHY || dist == RS_RNG_LOG_NORMAL;
    if (rs_dtype_is_complex(dst->dtype) || (continuous && !is_floating(dst->dtype)) || dst->dtype == RS_FLOAT4_E2M1FN_X2)
        return rs_error(RS_ERR_INVALID, "%s: distribution %d not implemented for dtype %s", op, (int)dist,
                        rs_dtype_name(dst->dtype));
    if (tensor_p && !is_floating(src->dtype))
        return rs_error(RS_ERR_INVALID, "%s: probabilities of dtype %s", op, rs_dtype_name(src->dtype));
    /* float64 values computed in float32 where the device has fp64 (as the
     * pointwise transforms always did); without fp64 the adapter samples
     * them on the host. 0/1 and whole numbers convert exactly, so bernoulli
     * and geometric write float64 on every device. */
    if (continuous && dst->dtype == RS_FLOAT64 && !rs_stream_features(s)->has_fp64)
        return needs_fp64(op, dst->dtype);
    float fa = 0.0f, fb = 0.0f;
    switch (dist) {
    case RS_RNG_BERNOULLI: fa = (float)a; break;
    case RS_RNG_EXPONENTIAL: fa = (float)(-1.0 / a); break;
    case RS_RNG_GEOMETRIC: fa = (float)log1p(-a); break;
    case RS_RNG_CAUCHY: case RS_RNG_LOG_NORMAL: fa = (float)a, fb = (float)b; break;
    default: break;
    }
    const rs_tensor *views[2] = {dst, src};
    return rng_launch_n(s, views, tensor_p ? 2 : 1, DIST_SAMPLE + (int)dist, 0, seed, offset, rs_f32_bits(fa),
                        rs_f32_bits(fb), 0);
}

rs_status rs_dropout(rs_stream *s, const rs_tensor *x, double p, uint64_t seed, uint64_t offset,
                     const rs_tensor *out, const rs_tensor *mask) {
    static const char op[] = "rs_dropout";
    if (!s || !x || !out || !mask) return rs_error(RS_ERR_INVALID, "%s: missing arguments", op);
    if (!rs_dtype_valid((int)x->dtype)) return rs_error(RS_ERR_INVALID, "%s: invalid dtype %d", op, (int)x->dtype);
    if (out->dtype != x->dtype || mask->dtype != RS_BOOL)
        return rs_error(RS_ERR_INVALID, "%s: out must have x's dtype (%s) and mask bool, got %s and %s", op,
                        rs_dtype_name(x->dtype), rs_dtype_name(out->dtype), rs_dtype_name(mask->dtype));
    if (!(p >= 0.0 && p <= 1.0)) return rs_error(RS_ERR_INVALID, "%s: p must be in [0, 1], got %g", op, p);
    if (x->dtype != RS_FLOAT32 && x->dtype != RS_FLOAT16 && x->dtype != RS_BFLOAT16 && x->dtype != RS_FLOAT64)
        return rs_error(RS_ERR_UNSUPPORTED, "%s: x of dtype %s", op, rs_dtype_name(x->dtype));
    const int fp64 = x->dtype == RS_FLOAT64;
    if (fp64 && !rs_stream_features(s)->has_fp64) return needs_fp64(op, x->dtype);
    const double keep = 1.0 - p, scale = keep == 0.0 ? 0.0 : 1.0 / keep;
    const rs_tensor *views[3] = {out, x, mask};
    return rng_launch_n(s, views, 3, DIST_DROPOUT, fp64, seed, offset, rs_f32_bits((float)keep),
                        fp64 ? rs_f64_bits(scale) : rs_f32_bits((float)scale), 0);
}

/* ---- torch.multinomial's checks of its probabilities */

typedef struct multinomial_check_push { RS_MULTINOMIAL_CHECK_PUSH } multinomial_check_push;

rs_status rs_multinomial_check(rs_stream *s, const rs_tensor *probs, int replacement) {
    static const char name[] = "multinomial";
    if (!s || !probs) return rs_error(RS_ERR_INVALID, "%s: missing arguments", name);
    const rs_dtype dt = probs->dtype;
    if (dt != RS_FLOAT32 && dt != RS_FLOAT16 && dt != RS_BFLOAT16 && dt != RS_FLOAT64)
        return rs_error(RS_ERR_INVALID, "%s: probabilities of %s", name, rs_dtype_name(dt));
    if (probs->ndim != 2) return rs_error(RS_ERR_INVALID, "%s: probs must be a (rows, categories) view", name);
    if (rs_tensor_numel(probs) == 0) return RS_OK;
    if (probs->sizes[0] >= (1LL << 31) || probs->sizes[1] >= (1LL << 31))
        return rs_error(RS_ERR_UNSUPPORTED, "%s: 2^31 rows or categories or more", name);
    rs_device *dev = rs_stream_device(s);
    rs_scratch sc = {s, {0}, 0};
    const uint64_t fbytes = (uint64_t)(1 + probs->sizes[0]) * 4u;
    multinomial_check_push pc;
    memset(&pc, 0, sizeof pc);
    rs_status st = rs_scratch_take(&sc, fbytes, &pc.flags);
    pc.probs = probs->address;
    pc.err = rs_device_error_address(dev);
    pc.site = rs_device_error_site(dev, name);
    pc.rows = probs->sizes[0], pc.cols = probs->sizes[1];
    pc.row_stride = probs->strides[0], pc.col_stride = probs->strides[1];
    pc.replacement = replacement ? 1u : 0u;
    /* the flags zeroed, every element's class into them, then the verdict */
    rs_tensor flags = rs_tensor_rows(pc.flags, RS_INT32, 1, 1 + probs->sizes[0]);
    static const uint32_t zero = 0;
    if (st == RS_OK) st = rs_fill(s, &flags, &zero);
    rs_access acc[2] = {rs_tensor_access(probs, 0), {pc.flags, fbytes, 1}};
    for (int mode = 0; mode < 2 && st == RS_OK; ++mode) {
        char defines[24];
        snprintf(defines, sizeof defines, "MODE=%d;DT=%d", mode, (int)dt);
        rs_kernel *k = NULL;
        if ((st = rs_kernel_get(dev, "multinomial_check.comp", defines, &k)) != RS_OK) break;
        st = rs_launch(s, k, mode ? 1 : (uint64_t)rs_tensor_numel(probs), &pc, sizeof pc, acc, 2);
    }
    rs_scratch_release(&sc);
    return st;
}
