/* multinomial.c: torch.multinomial (rs_multinomial; contract in
 * russet/tensor.h), composed of the engines as ATen's Distributions.cpp
 * composes its ops:
 *   without replacement, or one sample (the Gumbel trick): q = p / e with
 *     e ~ Exp(1) drawn in p's dtype, then the index of the largest q
 *     (argmax) or of the n_sample largest (a sort's first n_sample);
 *   with replacement: c = cumsum(p) in float32, normalized by its last
 *     element, and for each sample the first index whose c reaches u,
 *     u uniform in (0, 1] (searchsorted, CPU's binary search).
 * One Philox draw at (seed, offset) either way. The checks of p's values
 * run first, on the device (rs_multinomial_check: CPU's errors at the
 * next sync). */
#include <string.h>

#include "engine/engine.h"

/* index of the largest q of each row (one sample) or of the k largest,
 * into out: the sort needs a contiguous out, else through `tmp` */
static rs_status largest(rs_stream *s, const rs_tensor *q, int64_t k, const rs_tensor *out, uint64_t tmp) {
    rs_dtype dt = q->dtype;
    if (k == 1) {
        rs_reduce r;
        memset(&r, 0, sizeof r);
        r.name = "multinomial";
        r.op = RS_REDUCE_ARGMAX;
        r.acc = dt == RS_FLOAT64 ? RS_FLOAT64 : RS_FLOAT32;
        r.in = *q;
        r.out2 = *out;
        return rs_reduce_run(s, &r);
    }
    if (!tmp) return rs_sort(s, q, 1, k, NULL, out);
    rs_tensor t = rs_tensor_rows(tmp, RS_INT64, q->sizes[0], k);
    rs_status st = rs_sort(s, q, 1, k, NULL, &t);
    return st == RS_OK ? rs_copy(s, out, &t) : st;
}

rs_status rs_multinomial(rs_stream *s, const rs_tensor *probs, int64_t n_sample, int replacement, uint64_t seed,
                         uint64_t offset, const rs_tensor *out) {
    if (!s || !probs || !out) return rs_error(RS_ERR_INVALID, "rs_multinomial: missing arguments");
    const rs_dtype dt = probs->dtype;
    if (dt != RS_FLOAT32 && dt != RS_FLOAT16 && dt != RS_BFLOAT16 && dt != RS_FLOAT64)
        return rs_error(RS_ERR_INVALID, "rs_multinomial: probabilities of %s", rs_dtype_name(dt));
    if (dt == RS_FLOAT64 && !rs_stream_features(s)->has_fp64)
        return rs_error(RS_ERR_UNSUPPORTED, "rs_multinomial: float64 needs float64 arithmetic, which this device lacks");
    if (probs->ndim != 2 || out->ndim != 2 || out->dtype != RS_INT64)
        return rs_error(RS_ERR_INVALID, "rs_multinomial: expected probabilities (rows, categories) and int64 out "
                        "(rows, samples)");
    const int64_t rows = probs->sizes[0], cats = probs->sizes[1];
    if (out->sizes[0] != rows || out->sizes[1] != n_sample)
        return rs_error(RS_ERR_INVALID, "rs_multinomial: out is (%lld, %lld), expected (%lld, %lld)",
                        (long long)out->sizes[0], (long long)out->sizes[1], (long long)rows, (long long)n_sample);
    if (n_sample < 1 || cats < 1 || (!replacement && n_sample > cats))
        return rs_error(RS_ERR_INVALID, "rs_multinomial: %lld samples of %lld categories%s", (long long)n_sample,
                        (long long)cats, replacement ? "" : " without replacement");
    rs_status st = rs_multinomial_check(s, probs, replacement && n_sample > 1);
    if (st != RS_OK || rows == 0) return st;

    rs_device *dev = rs_stream_device(s);
    const int gumbel = !replacement || n_sample == 1;
    /* scratch: [0] uniforms (float32), [1] q or the cumulative sums, [2] the
     * normalized sums or p as float32, [3] contiguous indices */
    uint64_t tmp[4] = {0, 0, 0, 0};
    const int64_t draws = gumbel ? rows * cats : rows * n_sample;
    const int out_dense = rs_tensor_is_contiguous(out);
    st = rs_alloc(dev, (uint64_t)draws * 4, s, &tmp[0]);
    if (st == RS_OK) st = rs_alloc(dev, (uint64_t)(rows * cats) * (gumbel ? rs_dtype_size(dt) : 4), s, &tmp[1]);
    if (st == RS_OK && !gumbel) st = rs_alloc(dev, (uint64_t)(rows * cats) * 4, s, &tmp[2]);
    if (st == RS_OK && !out_dense && n_sample > 1) st = rs_alloc(dev, (uint64_t)(rows * n_sample) * 8, s, &tmp[3]);
    const rs_tensor u = rs_tensor_rows(tmp[0], RS_FLOAT32, rows, gumbel ? cats : n_sample);
    if (st == RS_OK) st = rs_rng_uniform(s, &u, 0.0, 1.0, seed, offset);
    if (gumbel) {
        /* e = Exp(1) in dt (exponential_'s -log1p(-u)), then q = p / e in place */
        const rs_tensor q = rs_tensor_rows(tmp[1], dt, rows, cats);
        if (st == RS_OK) st = rs_table_op(s, RS_PW_EXPONENTIAL, "multinomial", RS_FLOAT32, &q, 1, &u, 0, NULL, 0, 1, -1.0);
        if (st == RS_OK) st = rs_table_op(s, RS_PW_DIV, "multinomial", dt, &q, 2, probs, 0, &q, 0, 0, 0);
        if (st == RS_OK) st = largest(s, &q, n_sample, out, tmp[3]);
    } else {
        /* c = cumsum(p) in float32 (of p cast to float32, as at::cumsum's
         * dtype=), c / c[last] into tmp[2]; u = 1 - u; the insertion points */
        const rs_tensor c = rs_tensor_rows(tmp[1], RS_FLOAT32, rows, cats);
        const rs_tensor cn = rs_tensor_rows(tmp[2], RS_FLOAT32, rows, cats);
        /* the scan reads contiguous float32: p itself, or cast into tmp[2] */
        const int cast = dt != RS_FLOAT32 || !rs_tensor_is_contiguous(probs);
        if (st == RS_OK && cast) st = rs_copy(s, &cn, probs);
        if (st == RS_OK) st = rs_scan(s, RS_SCAN_SUM, cast ? &cn : probs, &c, NULL);
        rs_tensor last = c;
        last.address += (uint64_t)(cats - 1) * 4;
        last.strides[1] = 0;
        if (st == RS_OK) st = rs_table_op(s, RS_PW_DIV, "multinomial", RS_FLOAT32, &cn, 2, &c, 0, &last, 0, 0, 0);
        if (st == RS_OK) st = rs_table_op(s, RS_PW_SUB, "multinomial", RS_FLOAT32, &u, 2, NULL, 1.0, &u, 0, 1, 1.0);
        const rs_tensor idx = out_dense ? *out : rs_tensor_rows(tmp[3], RS_INT64, rows, n_sample);
        if (st == RS_OK) st = rs_searchsorted(s, &cn, &u, NULL, 0, &idx);
        if (st == RS_OK && !out_dense) st = rs_copy(s, out, &idx);
    }
    for (int i = 0; i < 4; ++i)
        if (tmp[i]) rs_free(dev, tmp[i]);
    return st;
}
