/* grid_sample.c: the grid-sampling engine (rs_grid_sample_run; contract in
 * russet/grid_sample.h), on kernels/grid_sample.comp.
 *
 * Forward: one launch, an invocation per grid point.
 * Backward: one launch writes, per grid point and corner, the input
 * position read (keys) and the weighted output gradient per channel (src),
 * and the grid's gradient; then the input's gradient is the index sum of
 * src by keys into an (N * D * H * W, C) scratch in the opmath type
 * (rs_index_reduce_run: the contributions to one input element in the
 * order of their grid points and corners, as CPU adds them), copied into
 * grad_input in its dtype and strides. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "engine/engine.h"
#include "params/grid_sample.h"
#include "russet/grid_sample.h"


/* a grid (N, [Do,] Ho, Wo, dims) as 5 strides (n, zo, yo, xo, coordinate),
 * after checking its shape against the output's (N, C, Do, Ho, Wo) */
static rs_status grid_view(const char *what, const rs_tensor *g, int dims, rs_dtype dt, const int64_t out[5],
                           int64_t st[5]) {
    if (g->ndim != dims + 2 || g->dtype != dt)
        return rs_error(RS_ERR_INVALID, "rs_grid_sample: %s must be a %d-d %s tensor (N, %sHo, Wo, %d), got %d-d %s",
                        what, dims + 2, rs_dtype_name(dt), dims == 3 ? "Do, " : "", dims, g->ndim,
                        rs_dtype_name(g->dtype));
    for (int k = 0; k < g->ndim; ++k)
        if (g->sizes[k] < 0 || g->strides[k] < 0)
            return rs_error(RS_ERR_INVALID, "rs_grid_sample: %s has a negative size or stride", what);
    int64_t want[5] = {out[0], out[2], out[3], out[4], dims};
    const int64_t *w = dims == 3 ? want : (int64_t[4]){out[0], out[3], out[4], 2};
    for (int k = 0; k < g->ndim; ++k)
        if (g->sizes[k] != w[k])
            return rs_error(RS_ERR_INVALID, "rs_grid_sample: %s's size %lld at dim %d does not match the output's (%lld)",
                            what, (long long)g->sizes[k], k, (long long)w[k]);
    if (dims == 3) {
        memcpy(st, g->strides, 5 * sizeof *st);
    } else {
        st[0] = g->strides[0], st[1] = 0, st[2] = g->strides[1], st[3] = g->strides[2], st[4] = g->strides[3];
    }
    return RS_OK;
}

rs_status rs_grid_sample_run(rs_stream *s, const rs_grid_sample *p) {
    if (!s || !p) return rs_error(RS_ERR_INVALID, "rs_grid_sample: missing arguments");
    if ((p->mode != RS_GRID_BILINEAR && p->mode != RS_GRID_NEAREST) || (int)p->padding < 0 ||
        p->padding > RS_GRID_REFLECTION)
        return rs_error(RS_ERR_INVALID, "rs_grid_sample: bad mode %d or padding %d", (int)p->mode, (int)p->padding);
    if (p->dims != 2 && p->dims != 3)
        return rs_error(RS_ERR_INVALID, "rs_grid_sample: %d spatial dims (2 or 3)", p->dims);
    rs_dtype dt = p->input.dtype;
    if (!rs_dtype_is_nn_float(dt))
        return rs_error(RS_ERR_UNSUPPORTED, "rs_grid_sample: no kernel for %s (floating types only)", rs_dtype_name(dt));
    if (dt == RS_FLOAT64 && !rs_stream_features(s)->has_fp64)
        return rs_error(RS_ERR_UNSUPPORTED, "rs_grid_sample: float64 needs float64 arithmetic, which this device lacks");
    rs_status st;
    const int dims = p->dims;
    if ((st = rs_check_nc_view("rs_grid_sample", "input", &p->input, dims, dt, INT64_MAX)) ||
        (st = rs_check_nc_view("rs_grid_sample", p->backward ? "grad_output" : "output", &p->output, dims, dt,
                               INT64_MAX)))
        return st;
    int64_t in[5], in_st[5], out[5], out_st[5], g_st[5], gg_st[5] = {0};
    rs_tensor_ncdhw(&p->input, dims, in, in_st);
    rs_tensor_ncdhw(&p->output, dims, out, out_st);
    if (in[0] != out[0] || in[1] != out[1])
        return rs_error(RS_ERR_INVALID, "rs_grid_sample: input (%lld, %lld, ...) and output (%lld, %lld, ...) differ in N or C",
                        (long long)in[0], (long long)in[1], (long long)out[0], (long long)out[1]);
    for (int k = 5 - dims; k < 5; ++k)
        if (in[k] == 0) return rs_error(RS_ERR_INVALID, "rs_grid_sample: the input has an empty spatial dim");
    if ((st = grid_view("grid", &p->grid, dims, dt, out, g_st))) return st;
    const int want_gi = p->backward && p->grad_input.address, want_gg = p->backward && p->grad_grid.address;
    int64_t gi[5], gi_st[5] = {0};
    if (want_gi) {
        if ((st = rs_check_nc_view("rs_grid_sample", "grad_input", &p->grad_input, dims, dt, INT64_MAX))) return st;
        rs_tensor_ncdhw(&p->grad_input, dims, gi, gi_st);
        if (memcmp(gi, in, sizeof gi) != 0)
            return rs_error(RS_ERR_INVALID, "rs_grid_sample: grad_input is not the input's shape");
    }
    if (want_gg && (st = grid_view("grad_grid", &p->grad_grid, dims, dt, out, gg_st))) return st;
    if (p->backward && !want_gi && !want_gg) return RS_OK;

    const int64_t points = out[0] * out[2] * out[3] * out[4], corners = p->mode == RS_GRID_NEAREST ? 1 : 1 << dims;
    const int64_t plane = in[2] * in[3] * in[4], c = in[1];
    if (points == 0 || c == 0) {
        uint8_t zero[16] = {0}; /* nothing sampled: zero gradients (the forward has no elements) */
        if (want_gi && (st = rs_fill(s, &p->grad_input, zero))) return st;
        if (want_gg && points) return rs_fill(s, &p->grad_grid, zero);
        return RS_OK;
    }

    uint64_t addr;
    void *host = NULL;
    if ((st = rs_stream_arena(s, GP_SLOTS * sizeof(int64_t), &host, &addr)) != RS_OK) return st;
    int64_t *gp = host;
    for (int k = 0; k < 5; ++k) {
        gp[GP_IN + k] = in[k], gp[GP_IN_ST + k] = in_st[k], gp[GP_OUT + k] = out[k], gp[GP_OUT_ST + k] = out_st[k];
        gp[GP_GRID_ST + k] = g_st[k], gp[GP_GG_ST + k] = gg_st[k];
    }
    struct { RS_GRID_SAMPLE_PUSH } pc = {p->input.address, p->grid.address, p->output.address, want_gg ? p->grad_grid.address : 0, 0, 0, addr,
            (uint64_t)points, 0, 0};
    char defines[96];
    snprintf(defines, sizeof defines, "DT=%d;MODE=%d;DIMS=%d;NEAREST=%d;PADDING=%d;ALIGN=%d", (int)dt,
             p->backward ? 1 : 0, dims, p->mode == RS_GRID_NEAREST, (int)p->padding, p->align_corners != 0);
    rs_device *dev = rs_stream_device(s);
    rs_kernel *k = NULL;
    if ((st = rs_kernel_get(dev, "grid_sample.comp", defines, &k)) != RS_OK) return st;
    rs_access acc[6];
    int n = 0;
    acc[n++] = rs_tensor_access(&p->input, 0);
    acc[n++] = rs_tensor_access(&p->grid, 0);
    acc[n++] = rs_tensor_access(&p->output, !p->backward);
    if (!p->backward) return rs_launch(s, k, (uint64_t)points, &pc, sizeof pc, acc, n);

    /* the input's gradient: keys, src and the summing scratch */
    const rs_dtype acc_dt = dt == RS_FLOAT64 ? RS_FLOAT64 : RS_FLOAT32;
    const uint64_t esz = rs_dtype_size(acc_dt), entries = (uint64_t)(points * corners);
    uint64_t keys = 0, src = 0, sum = 0;
    if (want_gi) {
        if ((st = rs_alloc(dev, entries * 8, s, &keys)) || (st = rs_alloc(dev, entries * (uint64_t)c * esz, s, &src)) ||
            (st = rs_alloc(dev, (uint64_t)(in[0] * plane * c) * esz, s, &sum)))
            goto done;
        pc.keys = keys, pc.src = src;
        acc[n++] = (rs_access){keys, entries * 8, 1};
        acc[n++] = (rs_access){src, entries * (uint64_t)c * esz, 1};
    }
    if (want_gg) acc[n++] = rs_tensor_access(&p->grad_grid, 1);
    if ((st = rs_launch(s, k, (uint64_t)points, &pc, sizeof pc, acc, n)) || !want_gi) goto done;

    /* the corners outside the input have key -1: skipped */
    rs_index_reduce r = {.name = "grid_sampler backward", .op = RS_IR_SUM, .shared_index = 1, .include_self = 1,
                         .has_skip = 1, .skip_index = -1};
    r.self = rs_tensor_rows(sum, acc_dt, in[0] * plane, c);
    r.src = rs_tensor_rows(src, acc_dt, (int64_t)entries, c);
    r.index = (rs_tensor){.address = keys, .dtype = RS_INT64, .ndim = 1, .sizes = {(int64_t)entries}, .strides = {1}};
    uint8_t zero[16] = {0};
    if ((st = rs_fill(s, &r.self, zero)) || (st = rs_index_reduce_run(s, &r))) goto done;
    /* scratch (n, d, h, w, c) -> grad_input (n, c, d, h, w) */
    rs_tensor from, to;
    memset(&from, 0, sizeof from);
    from.address = sum;
    from.dtype = acc_dt;
    from.ndim = 5;
    memcpy(from.sizes, in, sizeof in);
    const int64_t from_st[5] = {plane * c, 1, in[3] * in[4] * c, in[4] * c, c};
    memcpy(from.strides, from_st, sizeof from_st);
    to = from;
    to.address = p->grad_input.address;
    to.dtype = dt;
    memcpy(to.strides, gi_st, sizeof gi_st);
    st = rs_copy(s, &to, &from);
done:
    if (keys) rs_free(dev, keys);
    if (src) rs_free(dev, src);
    if (sum) rs_free(dev, sum);
    return st;
}
