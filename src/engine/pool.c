/* pool.c: max and average pooling, fixed and adaptive windows, forward and
 * backward (kernels/pool.comp; the contract is rs_pool in russet/pool.h).
 *
 * Every view is taken as (N, C, D, H, W): 1-d and 2-d pooling get unit
 * leading spatial dims (size 1, window 1). The geometry and the views'
 * strides travel in a parameter block in the stream arena. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/engine.h"
#include "params/pool.h"


/* positions and sizes are computed in 32-bit arithmetic in the kernel */
#define POOL_DIM_MAX (1LL << 30)

/* The most workgroups a pooling launch takes; the kernel loops over the
 * rest (grid-stride), so that each invocation reads the parameter block
 * (about 45 values) once for several elements rather than once for one.
 * RUSSET_POOL_GROUPS, a tuning knob read once, sets it (0: no cap). */
#define POOL_GROUPS_DEFAULT 8192
static uint64_t pool_group_cap(void) {
    static long long cap = -1; /* a race writes the same value */
    if (cap < 0) cap = rs_env_int("RUSSET_POOL_GROUPS", POOL_GROUPS_DEFAULT, 0, INT64_MAX); /* 0: no cap */
    return cap > 0 ? (uint64_t)cap : RS_GROUPS_MAX;
}

static const char *pool_name(rs_pool_op op, int adaptive) {
    if (adaptive == RS_POOL_FRACTIONAL) return "fractional_max_pool";
    static const char *const fixed[4] = {"max_pool", "avg_pool", "max_pool_backward", "avg_pool_backward"};
    static const char *const adapt[4] = {"adaptive_max_pool", "adaptive_avg_pool", "adaptive_max_pool_backward",
                                         "adaptive_avg_pool_backward"};
    return (adaptive ? adapt : fixed)[op];
}

/* fractional windows' alpha = (in - kernel) / (out - 1) as CPU's
 * generate_intervals computes it in scalar_t: float16/bfloat16 round the
 * operands and the quotient; the bits of the value as a float (as a double
 * for float64) */
static int64_t frac_alpha_bits(rs_dtype dt, int64_t in, int64_t out, int64_t kernel) {
    if (dt == RS_FLOAT64) return (int64_t)rs_f64_bits(out > 1 ? (double)(in - kernel) / (double)(out - 1) : 0.0);
    float a = out > 1 ? rs_round_float(dt, rs_round_float(dt, (float)(in - kernel)) /
                                                  rs_round_float(dt, (float)(out - 1)))
                      : 0.0f;
    return (int64_t)rs_f32_bits(a);
}

/* the dtypes each op computes (CPU's, but bool, which CPU refuses too) */
static int dtype_supported(rs_pool_op op, rs_dtype dt) {
    switch (op) {
    case RS_POOL_MAX:
        return rs_dtype_is_nn_float(dt) || dt == RS_UINT8 || dt == RS_INT8 || dt == RS_INT16 || dt == RS_INT32 ||
               dt == RS_INT64;
    case RS_POOL_AVG: return rs_dtype_is_nn_float(dt) || dt == RS_INT64;
    default: return rs_dtype_is_nn_float(dt);
    }
}

/* Whether max pooling's kernel gets the window's geometry as constants
 * (pool.comp's GK, GS, GP: its window loops unrolled, the stride's
 * divisions folded): fixed windows without dilation, of at most
 * BAKE_VOLUME_MAX positions (the unrolled loads) and small strides; each
 * geometry is a kernel of its own. RUSSET_POOL_BAKE=0, a tuning knob read
 * once, turns it off (to compare). */
#define BAKE_VOLUME_MAX 64
#define BAKE_STRIDE_MAX 16
static int bake_geometry(const rs_pool *p, const int64_t g[4][3]) {
    static int enabled = -1; /* a race writes the same value */
    if (enabled < 0) enabled = rs_env_flag("RUSSET_POOL_BAKE", 1);
    if (!enabled || p->adaptive) return 0;
    int64_t volume = 1;
    for (int j = 0; j < 3; ++j) {
        if (g[3][j] != 1 || g[1][j] > BAKE_STRIDE_MAX) return 0;
        volume *= g[0][j];
    }
    return volume <= BAKE_VOLUME_MAX;
}

static int same_sizes(const int64_t a[5], const int64_t b[5]) {
    for (int d = 0; d < 5; ++d)
        if (a[d] != b[d]) return 0;
    return 1;
}

/* Fixed windows must each hold a position of the input (CPU's shape checks
 * ensure it; an empty window would have no maximum). */
static rs_status check_windows(const char *name, const rs_pool *p, const int64_t in[5], const int64_t out[5],
                               const int64_t g[4][3]) {
    for (int j = 0; j < 3; ++j) {
        int64_t i = in[2 + j], o = out[2 + j], k = g[0][j], st = g[1][j], pd = g[2][j], dl = g[3][j];
        if (p->adaptive == RS_POOL_FRACTIONAL) {
            if (k < 1 || k >= POOL_DIM_MAX || o + k - 1 > i)
                return rs_error(RS_ERR_INVALID, "%s: %lld outputs of windows of %lld need %lld positions, the input "
                                "has %lld", name, (long long)o, (long long)k, (long long)(o + k - 1), (long long)i);
            continue;
        }
        if (p->adaptive) {
            if (i <= 0 || o <= 0) return rs_error(RS_ERR_INVALID, "%s: empty input or output size", name);
            continue;
        }
        if (k < 1 || st < 1 || dl < 1 || pd < 0 || k * dl >= POOL_DIM_MAX || st >= POOL_DIM_MAX || pd >= POOL_DIM_MAX)
            return rs_error(RS_ERR_INVALID, "%s: bad window (kernel %lld, stride %lld, padding %lld, dilation %lld)",
                            name, (long long)k, (long long)st, (long long)pd, (long long)dl);
        if (pd > (k - 1) * dl || (o - 1) * st - pd >= i)
            return rs_error(RS_ERR_INVALID, "%s: a window (kernel %lld, stride %lld, padding %lld) lies outside the "
                            "input (size %lld, %lld outputs)", name, (long long)k, (long long)st, (long long)pd,
                            (long long)i, (long long)o);
    }
    return RS_OK;
}

rs_status rs_pool_run(rs_stream *s, const rs_pool *p) {
    if (!s || !p) return rs_error(RS_ERR_INVALID, "rs_pool: missing arguments");
    if ((int)p->op < 0 || p->op > RS_POOL_AVG_BACKWARD) return rs_error(RS_ERR_INVALID, "rs_pool: bad op");
    const char *name = pool_name(p->op, p->adaptive);
    int backward = p->op >= RS_POOL_MAX_BACKWARD, is_max = p->op == RS_POOL_MAX || p->op == RS_POOL_MAX_BACKWARD;
    if (p->dims < 1 || p->dims > 3) return rs_error(RS_ERR_INVALID, "%s: %d spatial dims (1 to 3)", name, p->dims);
    int frac = p->adaptive == RS_POOL_FRACTIONAL;
    if (p->adaptive < 0 || p->adaptive > RS_POOL_FRACTIONAL || (frac && (p->op != RS_POOL_MAX || p->dims < 2)))
        return rs_error(RS_ERR_INVALID, "%s: fractional windows are max pooling's forward, over 2 or 3 dims", name);
    const rs_tensor *in_t = backward ? &p->grad_input : &p->input;
    rs_dtype dt = in_t->dtype;
    if (!dtype_supported(p->op, dt))
        return rs_error(RS_ERR_UNSUPPORTED, "%s: no kernel for %s", name, rs_dtype_name(dt));
    if (rs_dtype_needs_fp64(dt) && !rs_stream_features(s)->has_fp64)
        return rs_error(RS_ERR_UNSUPPORTED, "%s: %s needs float64 arithmetic, which this device lacks", name,
                        rs_dtype_name(dt));
    rs_status st;
    const char *in_name = backward ? "grad_input" : "input", *out_name = backward ? "grad_output" : "output";
    if ((st = rs_check_nc_view(name, in_name, in_t, p->dims, dt, POOL_DIM_MAX)) != RS_OK) return st;
    if ((st = rs_check_nc_view(name, out_name, &p->output, p->dims, dt, POOL_DIM_MAX)) != RS_OK) return st;
    if (is_max && (st = rs_check_nc_view(name, "indices", &p->indices, p->dims, RS_INT64, POOL_DIM_MAX)) != RS_OK)
        return st;

    int64_t in[5], out[5], src_st[5], dst_st[5], idx[5] = {0}, idx_st[5] = {0};
    rs_tensor_ncdhw(in_t, p->dims, in, backward ? dst_st : src_st);
    rs_tensor_ncdhw(&p->output, p->dims, out, backward ? src_st : dst_st);
    if (is_max) rs_tensor_ncdhw(&p->indices, p->dims, idx, idx_st);
    if (in[0] != out[0] || in[1] != out[1])
        return rs_error(RS_ERR_INVALID, "%s: input (%lld, %lld, ...) and output (%lld, %lld, ...) differ in N or C",
                        name, (long long)in[0], (long long)in[1], (long long)out[0], (long long)out[1]);
    if (is_max && !same_sizes(idx, out))
        return rs_error(RS_ERR_INVALID, "%s: indices must have the output's sizes", name);
    if (frac && (p->samples.ndim != 3 || p->samples.dtype != dt || p->samples.sizes[0] < in[0] ||
                 p->samples.sizes[1] != in[1] || p->samples.sizes[2] != p->dims))
        return rs_error(RS_ERR_INVALID, "%s: samples must be (at least N, C, %d) of the input's dtype", name, p->dims);
    int64_t items = backward ? rs_tensor_numel(in_t) : rs_tensor_numel(&p->output);
    if (items == 0) return RS_OK;
    if (backward && rs_tensor_numel(&p->output) == 0) {
        uint8_t zero[16] = {0}; /* no outputs: the gradient is zero */
        return rs_fill(s, in_t, zero);
    }
    if (!backward && rs_tensor_numel(in_t) == 0)
        return rs_error(RS_ERR_INVALID, "%s: an empty input has no windows", name);

    /* geometry as 3 spatial dims: kernel, stride, pad, dilation */
    int64_t g[4][3];
    for (int j = 0; j < 3; ++j) g[0][j] = g[1][j] = g[3][j] = 1, g[2][j] = 0;
    for (int j = 0; j < p->dims; ++j) {
        int k = 3 - p->dims + j;
        g[0][k] = p->kernel[j];
        g[1][k] = p->stride[j];
        g[2][k] = p->pad[j];
        g[3][k] = is_max ? p->dil[j] : 1;
        if (frac) g[1][k] = 1, g[2][k] = 0, g[3][k] = 1; /* windows of kernel positions, placed by the samples */
    }
    if ((st = check_windows(name, p, in, out, g)) != RS_OK) return st;

    uint64_t addr;
    void *host = NULL;
    if ((st = rs_stream_arena(s, PP_SLOTS * sizeof(int64_t), &host, &addr)) != RS_OK) return st;
    int64_t *pp = host;
    pp[PP_N] = in[0];
    pp[PP_C] = in[1];
    for (int j = 0; j < 3; ++j) {
        pp[PP_IN + j] = in[2 + j];
        pp[PP_OUT + j] = out[2 + j];
        for (int q = 0; q < 4; ++q) pp[PP_KERNEL + 3 * q + j] = g[q][j]; /* kernel, stride, pad, dilation */
    }
    if (frac) { /* the samples, and alpha per dim in the dtype's arithmetic */
        pp[PP_FR_SAMPLES] = (int64_t)p->samples.address;
        for (int q = 0; q < 3; ++q) pp[PP_FR_ST + q] = p->samples.strides[q];
        for (int j = 0; j < 3; ++j) {
            int d = j - (3 - p->dims); /* the caller's spatial dim, or < 0 for a unit dim */
            pp[PP_FR_MAP + j] = d < 0 ? -1 : p->dims == 2 ? 1 - d : d;
            pp[PP_FR_ALPHA + j] = frac_alpha_bits(dt, in[2 + j], out[2 + j], g[0][j]);
        }
    }
    pp[PP_DIVISOR] = p->adaptive ? 0 : p->divisor_override;
    pp[PP_INCL_PAD] = p->count_include_pad != 0;
    memcpy(pp + PP_SRC_ST, src_st, sizeof src_st);
    memcpy(pp + PP_DST_ST, dst_st, sizeof dst_st);
    memcpy(pp + PP_IDX_ST, idx_st, sizeof idx_st);
    /* the kernel's divisions by the strides and (IDX32) by the item
     * space's sizes, as multiplications (rs_fastdiv) */
    const int64_t *item_sz = backward ? in : out;
    for (int j = 0; j < 3; ++j) /* (adaptive windows have no stride: 0, the identity's magic) */
        pp[PP_STR_MAGIC + j] = (int64_t)rs_fastdiv_magic((uint32_t)g[1][j]);
    for (int d = 0; d < 5; ++d)
        pp[PP_SZ_MAGIC + d] = item_sz[d] < INT32_MAX ? (int64_t)rs_fastdiv_magic((uint32_t)item_sz[d]) : 0;

    const rs_tensor *src = backward ? &p->output : &p->input, *dst = backward ? &p->grad_input : &p->output;
    struct { RS_POOL_PUSH } pc;
    memset(&pc, 0, sizeof pc);
    rs_device *dev = rs_stream_device(s);
    pc.src = src->address;
    pc.dst = dst->address;
    pc.idx = is_max ? p->indices.address : 0;
    pc.params = addr;
    pc.items = (uint64_t)items;
    pc.err = rs_device_error_address(dev);
    pc.site = rs_device_error_site(dev, name);
    /* channels fastest when the written view is channels_last (C stride 1),
     * so neighbouring invocations write neighbouring elements */
    pc.cl = in[1] > 1 && dst_st[1] == 1;

    int idx32 = rs_tensor_fits_int32(src) && rs_tensor_fits_int32(dst) && /* dst's count: items */
                (!is_max || rs_tensor_fits_int32(&p->indices));
    char defines[128];
    int at = snprintf(defines, sizeof defines, "MODE=%d;ADAPTIVE=%d;DT=%d;IDX32=%d", (int)p->op,
                      frac ? 2 : p->adaptive != 0, (int)dt, idx32);
    if (is_max && bake_geometry(p, g))
        snprintf(defines + at, sizeof defines - (size_t)at, ";GK=%d,%d,%d;GS=%d,%d,%d;GP=%d,%d,%d", (int)g[0][0],
                 (int)g[0][1], (int)g[0][2], (int)g[1][0], (int)g[1][1], (int)g[1][2], (int)g[2][0], (int)g[2][1],
                 (int)g[2][2]);
    rs_kernel *k = NULL;
    if ((st = rs_kernel_get(dev, "pool.comp", defines, &k)) != RS_OK) return st;
    rs_access acc[4] = {rs_tensor_access(src, 0), rs_tensor_access(dst, 1), {0, 0, 0}, {0, 0, 0}};
    int n_acc = 2;
    if (is_max) acc[n_acc++] = rs_tensor_access(&p->indices, !backward);
    if (frac) acc[n_acc++] = rs_tensor_access(&p->samples, 0);
    uint32_t groups[3] = {rs_groups_capped(s, ((uint64_t)items + RS_KERNEL_WG - 1) / RS_KERNEL_WG, pool_group_cap()),
                          1, 1};
    return rs_dispatch(s, k, groups, &pc, sizeof pc, acc, n_acc);
}
