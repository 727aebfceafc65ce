/* histogram.c: torch.histogram / histogramdd's counts (contract in
 * russet/histogram.h) on kernels/histogram.comp: the flat bin of each point
 * (MODE 0), the counts by the index engines (rs_bincount: exact, rounded
 * once; rs_index_reduce_run: weights summed in input order), then the
 * histogram (MODE 1), divided for density by the sum (rs_reduce_run). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/engine.h"
#include "params/histogram.h"

typedef struct histogram_push { RS_HISTOGRAM_PUSH } histogram_push;

static rs_status check_args(rs_stream *s, const rs_histogram *p, int64_t *total) {
    const rs_dtype dt = p->input.dtype;
    if (dt != RS_FLOAT32 && dt != RS_FLOAT16 && dt != RS_BFLOAT16 && dt != RS_FLOAT64)
        return rs_error(RS_ERR_INVALID, "histogram: no kernel for %s input", rs_dtype_name(dt));
    if (dt == RS_FLOAT64 && !rs_stream_features(s)->has_fp64)
        return rs_error(RS_ERR_UNSUPPORTED, "histogram: float64 needs float64 arithmetic, which this device (or "
                        "profile) lacks");
    if (p->input.ndim != 2 || p->input.sizes[1] != p->n_edges || (p->n_edges > 0 && !p->edges))
        return rs_error(RS_ERR_INVALID, "histogram: input must be (M, N) with N edge tensors");
    *total = 1;
    for (int d = 0; d < p->n_edges; ++d) {
        const rs_tensor *e = &p->edges[d];
        if (e->ndim != 1 || e->dtype != dt || e->sizes[0] < 1)
            return rs_error(RS_ERR_INVALID, "histogram: the edges of dimension %d must be a non-empty 1-d %s tensor",
                            d, rs_dtype_name(dt));
        *total *= e->sizes[0] - 1;
    }
    if (p->hist.dtype != dt || rs_tensor_numel(&p->hist) != *total || !rs_tensor_is_contiguous(&p->hist))
        return rs_error(RS_ERR_INVALID, "histogram: hist must be contiguous %s with %lld elements", rs_dtype_name(dt),
                        (long long)*total);
    if (p->weight.address &&
        (p->weight.ndim != 1 || p->weight.dtype != dt || p->weight.sizes[0] != p->input.sizes[0]))
        return rs_error(RS_ERR_INVALID, "histogram: weight must be (M) of the input's dtype");
    return RS_OK;
}

/* a value of the hist's dtype into every element of t */
static rs_status fill_value(rs_stream *s, const rs_tensor *t, double v) {
    uint64_t bits = 0;
    if (t->dtype == RS_FLOAT64) bits = rs_f64_bits(v);
    else if (t->dtype == RS_FLOAT32) bits = rs_f32_bits((float)v);
    else if (t->dtype == RS_FLOAT16) bits = rs_f16_from_f32((float)v);
    else bits = rs_bf16_from_f32((float)v);
    return rs_fill(s, t, &bits);
}

rs_status rs_histogram_run(rs_stream *s, const rs_histogram *p) {
    if (!s || !p) return rs_error(RS_ERR_INVALID, "histogram: missing arguments");
    int64_t total = 0;
    rs_status st = check_args(s, p, &total);
    if (st) return st;
    const rs_dtype dt = p->input.dtype;
    const int64_t M = p->input.sizes[0], N = p->n_edges;
    if (total == 0) return RS_OK;
    const rs_tensor flat_hist = rs_tensor_rows(p->hist.address, dt, 1, total);
    if (N == 0) return fill_value(s, &flat_hist, p->density ? 0.0 / 0.0 : 0.0); /* one bin, 0 (density: 0 / 0) */

    rs_device *dev = rs_stream_device(s);
    const uint64_t es = rs_dtype_size(dt);
    uint64_t idx = 0, counts = 0, sum = 0;
    if ((st = rs_alloc(dev, 8 * (uint64_t)(M ? M : 1), s, &idx)) ||
        (st = rs_alloc(dev, es * (uint64_t)(total + 1), s, &counts)) ||
        (p->density && (st = rs_alloc(dev, es, s, &sum))))
        goto done;
    void *host = NULL;
    uint64_t params = 0;
    if ((st = rs_stream_arena(s, (HP_DIMS + HD_SLOTS * (size_t)N) * sizeof(int64_t), &host, &params))) goto done;
    int64_t *q = host;
    q[HP_M] = M, q[HP_N] = N, q[HP_TOTAL] = total;
    q[HP_XS] = p->input.strides[0], q[HP_XS + 1] = p->input.strides[1];
    int64_t flat = 1;
    for (int64_t d = N - 1; d >= 0; --d) {
        int64_t *h = q + HP_DIMS + HD_SLOTS * d;
        h[HD_NE] = p->edges[d].sizes[0];
        h[HD_ADDR] = (int64_t)p->edges[d].address;
        h[HD_STRIDE] = p->edges[d].strides[0];
        h[HD_FLAT] = flat;
        flat *= p->edges[d].sizes[0] - 1;
    }
    histogram_push pc;
    memset(&pc, 0, sizeof pc);
    pc.input_ = p->input.address;
    pc.idx = idx;
    pc.counts = counts;
    pc.sum = sum;
    pc.hist = p->hist.address;
    pc.params = params;
    /* every edge tensor is read by both modes */
    rs_access *acc = calloc((size_t)N + 4, sizeof *acc);
    if (!acc) {
        st = rs_error(RS_ERR_OOM, "russet: out of host memory");
        goto done;
    }
    int na = 0;
    for (int64_t d = 0; d < N; ++d) acc[na++] = rs_tensor_access(&p->edges[d], 0);
    const int n_edges_acc = na;
    char defines[96];
    rs_kernel *k = NULL;
    if (M > 0) {
        acc[na++] = rs_tensor_access(&p->input, 0);
        acc[na++] = (rs_access){idx, 8 * (uint64_t)M, 1};
        snprintf(defines, sizeof defines, "DT=%d;MODE=0;LINEAR=%d;DENSITY=0", (int)dt, p->linear != 0);
        if ((st = rs_kernel_get(dev, "histogram.comp", defines, &k)) ||
            (st = rs_launch(s, k, (uint64_t)M, &pc, sizeof pc, acc, na)))
            goto free_acc;
    }
    /* the counts: bin `total` holds the skipped points */
    const rs_tensor idx_vec = {.address = idx, .dtype = RS_INT64, .ndim = 1, .sizes = {M}, .strides = {1}};
    const rs_tensor counts_vec = {.address = counts, .dtype = dt, .ndim = 1, .sizes = {total + 1}, .strides = {1}};
    if (M == 0 || p->weight.address) {
        if ((st = fill_value(s, &counts_vec, 0.0))) goto free_acc;
    }
    if (M > 0 && !p->weight.address) {
        st = rs_bincount(s, &idx_vec, NULL, &counts_vec);
    } else if (M > 0) {
        rs_index_reduce r;
        memset(&r, 0, sizeof r);
        r.name = "histogram";
        r.op = RS_IR_SUM;
        r.shared_index = 1;
        r.include_self = 1;
        r.self = counts_vec;
        r.src = p->weight;
        r.index = idx_vec;
        st = rs_index_reduce_run(s, &r);
    }
    if (st) goto free_acc;
    if (p->density) {
        rs_reduce r;
        memset(&r, 0, sizeof r);
        r.name = "histogram";
        r.op = RS_REDUCE_SUM;
        r.acc = dt == RS_FLOAT64 ? RS_FLOAT64 : RS_FLOAT32;
        r.in = rs_tensor_rows(counts, dt, 1, total);
        r.out = rs_tensor_rows(sum, dt, 1, 1);
        if ((st = rs_reduce_run(s, &r))) goto free_acc;
    }
    na = n_edges_acc;
    acc[na++] = (rs_access){counts, es * (uint64_t)total, 0};
    if (p->density) acc[na++] = (rs_access){sum, es, 0};
    acc[na++] = rs_tensor_access(&flat_hist, 1);
    snprintf(defines, sizeof defines, "DT=%d;MODE=1;LINEAR=0;DENSITY=%d", (int)dt, p->density != 0);
    if (!(st = rs_kernel_get(dev, "histogram.comp", defines, &k)))
        st = rs_launch(s, k, (uint64_t)total, &pc, sizeof pc, acc, na);
free_acc:
    free(acc);
done:
    /* freed in stream order: reused only after this stream's work */
    if (idx) rs_free(dev, idx);
    if (counts) rs_free(dev, counts);
    if (sum) rs_free(dev, sum);
    return st;
}
