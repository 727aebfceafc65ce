/* interp.c: the interpolation engine (rs_interp_run; contract in
 * russet/interp.h), on kernels/interp.comp.
 *
 * Each spatial dim becomes a table, made here on the host as CPU makes its
 * indices and weights (UpSample.h: area_pixel_compute_scale,
 * area_pixel_compute_source_index, guard_index_and_lambda, the cubic
 * coefficients; the antialiasing weights of UpSampleKernel.cpp), in CPU's
 * types: float32 arithmetic for the float32 family, float64 for float64,
 * nearest's index always in float32 as CPU's. A table lists, for every
 * destination position, its (source position, weight) entries in the order
 * CPU adds them; the backward's table is the transpose, each input
 * position's entries by output position. One launch per dim applies a
 * table; between dims the partial results stay in the opmath type. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/engine.h"
#include "params/interp.h"
#include "russet/interp.h"

/* one dim's table: entries row_ptr[d] .. row_ptr[d + 1] of destination d */
typedef struct table {
    int64_t n_dest, nnz;
    int32_t *row_ptr, *col;
    double *w; /* the weights, exact in the opmath type (float values for float32) */
} table;

static void table_free(table *t) {
    free(t->row_ptr);
    free(t->col);
    free(t->w);
    memset(t, 0, sizeof *t);
}

static rs_status table_alloc(table *t, int64_t n_dest, int64_t nnz) {
    t->n_dest = n_dest;
    t->nnz = nnz;
    t->row_ptr = calloc((size_t)n_dest + 1, sizeof *t->row_ptr);
    t->col = malloc((size_t)(nnz ? nnz : 1) * sizeof *t->col);
    t->w = malloc((size_t)(nnz ? nnz : 1) * sizeof *t->w);
    if (!t->row_ptr || !t->col || !t->w) {
        table_free(t);
        return rs_error(RS_ERR_OOM, "rs_interp: out of host memory for a %lld-entry table", (long long)nnz);
    }
    return RS_OK;
}

/* ---------------------------------------------------------------- CPU's index arithmetic */

/* nearest: compute_scales_value<float> and the source index (UpSample.h);
 * CPU takes the shortcuts for equal sizes and for 2x (nearest only) */
static int64_t nearest_src(int64_t o, int64_t in, int64_t out, double user_scale, int exact) {
    if (!exact && out == in) return o;
    if (!exact && out == 2 * in) return o >> 1;
    float scale = user_scale > 0 ? (float)(1.0 / user_scale) : (float)in / (float)out;
    /* nearest: floorf(dst * scale) in float; exact: (dst + 0.5) * scale is a
     * double product (0.5 is a double), which floorf takes as a float */
    float f = exact ? floorf((float)(((double)o + 0.5) * (double)scale)) : floorf((float)o * scale);
    int64_t i = (int64_t)f;
    return i < in - 1 ? i : in - 1;
}

/* the weighted modes' arithmetic in CPU's opmath type T (float or double):
 * SUF names the instance */
#define INTERP_WEIGHTS(T, SUF)                                                                                  \
    static T area_scale_##SUF(int64_t in, int64_t out, int align_corners, double user_scale) {                 \
        if (align_corners) return out > 1 ? (T)(in - 1) / (T)(out - 1) : (T)0;                               \
        return user_scale > 0 ? (T)(1.0 / user_scale) : (T)in / (T)out;                                       \
    }                                                                                                         \
    /* area_pixel_compute_source_index, then guard_index_and_lambda (floorf: CPU's, also for double) */       \
    static void source_##SUF(T scale, int64_t o, int64_t in, int align_corners, int cubic, int64_t *idx,      \
                             T *lambda) {                                                                     \
        T src;                                                                                                \
        if (align_corners) src = scale * (T)o;                                                                \
        else {                                                                                                \
            src = scale * ((T)o + (T)0.5) - (T)0.5;                                                           \
            if (!cubic && src < (T)0) src = (T)0;                                                             \
        }                                                                                                     \
        int64_t i = (int64_t)floorf((float)src);                                                              \
        if (i > in - 1) i = in - 1;                                                                           \
        T l = src - (T)i;                                                                                     \
        *idx = i;                                                                                             \
        *lambda = l < (T)0 ? (T)0 : l > (T)1 ? (T)1 : l;                                                      \
    }                                                                                                         \
    /* linear: (i0, 1 - lambda), (i1, lambda); CPU's copy weights where the size is unchanged */              \
    static void linear_##SUF(int64_t o, int64_t in, int64_t out, int ac, double us, int64_t idx[2], double w[2]) { \
        if (in == out) {                                                                                      \
            idx[0] = idx[1] = o, w[0] = 1, w[1] = 0;                                                          \
            return;                                                                                           \
        }                                                                                                     \
        int64_t i0;                                                                                           \
        T l;                                                                                                  \
        source_##SUF(area_scale_##SUF(in, out, ac, us), o, in, ac, 0, &i0, &l);                               \
        idx[0] = i0, idx[1] = i0 + (i0 < in - 1 ? 1 : 0);                                                     \
        w[0] = (double)((T)1 - l), w[1] = (double)l;                                                          \
    }                                                                                                         \
    /* cubic: taps i - 1 .. i + 2 clamped into [0, in), cubic convolution with A = -0.75 */                   \
    static T cc1_##SUF(T x, T a) { return ((a + (T)2) * x - (a + (T)3)) * x * x + (T)1; }                     \
    static T cc2_##SUF(T x, T a) { return ((a * x - (T)5 * a) * x + (T)8 * a) * x - (T)4 * a; }               \
    static void cubic_##SUF(int64_t o, int64_t in, int64_t out, int ac, double us, int64_t idx[4], double w[4]) { \
        int64_t i;                                                                                            \
        T t;                                                                                                  \
        source_##SUF(area_scale_##SUF(in, out, ac, us), o, in, ac, 1, &i, &t);                                \
        const T a = (T)-0.75, u = (T)1 - t;                                                                   \
        w[0] = (double)cc2_##SUF(t + (T)1, a), w[1] = (double)cc1_##SUF(t, a);                                \
        w[2] = (double)cc1_##SUF(u, a), w[3] = (double)cc2_##SUF(u + (T)1, a);                                \
        for (int k = 0; k < 4; ++k) {                                                                         \
            int64_t j = i - 1 + k;                                                                            \
            idx[k] = j < 0 ? 0 : j > in - 1 ? in - 1 : j;                                                     \
        }                                                                                                     \
    }                                                                                                         \
    /* antialiasing (_compute_indices_min_size_weights_aa): the filter's                                      \
     * support widened by the scale when shrinking, center scale (o + 0.5),                                   \
     * taps from xmin, normalized by their sum; taps[] holds max_taps */                                      \
    static T aa_filter_##SUF(T x, int cubic) {                                                                \
        if (x < (T)0) x = -x;                                                                                 \
        if (!cubic) return x < (T)1 ? (T)1 - x : (T)0;                                                        \
        const T a = (T)-0.5;                                                                                  \
        if (x < (T)1) return ((a + (T)2) * x - (a + (T)3)) * x * x + (T)1;                                    \
        if (x < (T)2) return ((a * x - (T)5 * a) * x + (T)8 * a) * x - (T)4 * a;                              \
        return (T)0;                                                                                          \
    }                                                                                                         \
    static int64_t aa_max_taps_##SUF(int64_t in, int64_t out, int ac, double us, int cubic) {                 \
        T scale = area_scale_##SUF(in, out, ac, us), half = cubic ? (T)2 : (T)1;                              \
        T support = scale >= (T)1 ? half * scale : half;                                                      \
        return (int64_t)ceil((double)support) * 2 + 1;                                                        \
    }                                                                                                         \
    static int64_t aa_##SUF(int64_t o, int64_t in, int64_t out, int ac, double us, int cubic, int64_t *xmin_out, \
                            double *w, T *taps) {                                                             \
        T scale = area_scale_##SUF(in, out, ac, us), half = cubic ? (T)2 : (T)1;                              \
        T support = scale >= (T)1 ? half * scale : half;                                                      \
        T invscale = scale >= (T)1 ? (T)(1.0 / (double)scale) : (T)1;                                         \
        int64_t max_size = (int64_t)ceil((double)support) * 2 + 1;                                            \
        T center = (T)((double)scale * ((double)o + 0.5));                                                    \
        int64_t xmin = (int64_t)((double)(center - support) + 0.5);                                           \
        if (xmin < 0) xmin = 0;                                                                               \
        int64_t xmax = (int64_t)((double)(center + support) + 0.5);                                           \
        int64_t xsize = (xmax < in ? xmax : in) - xmin;                                                       \
        xsize = xsize < 0 ? 0 : xsize > max_size ? max_size : xsize;                                          \
        T total = (T)0;                                                                                       \
        for (int64_t j = 0; j < xsize; ++j) {                                                                 \
            taps[j] = aa_filter_##SUF((T)(((double)((T)(j + xmin) - center) + 0.5) * (double)invscale), cubic); \
            total += taps[j];                                                                                 \
        }                                                                                                     \
        for (int64_t j = 0; j < xsize; ++j) w[j] = (double)(total != (T)0 ? taps[j] / total : taps[j]);       \
        *xmin_out = xmin;                                                                                     \
        return xsize;                                                                                         \
    }
INTERP_WEIGHTS(float, f)
INTERP_WEIGHTS(double, d)
#undef INTERP_WEIGHTS

/* ---------------------------------------------------------------- uint8: CPU's fixed point */

/* CPU's uint8 bilinear and bicubic, antialiased or not, are one integer
 * algorithm on every CPU path (UpSampleKernel.cpp: the weights of
 * _compute_indices_min_size_weights(_aa) in double, then
 * compute_index_ranges_int16_weights): per dim, int16 weights with `prec`
 * fractional bits chosen from the largest weight (partial sums included),
 * rounded half away from zero; each pass sums 2^(prec - 1) + w x in int32,
 * shifts and clamps to 0..255 (the buffer between the passes is uint8).
 * The cubic's A is -0.5 antialiased (PIL's), -0.75 otherwise. */
static double u8_filter(double x, int cubic, double a) {
    x = fabs(x);
    if (!cubic) return x < 1.0 ? 1.0 - x : 0.0;
    if (x < 1.0) return ((a + 2.0) * x - (a + 3.0)) * x * x + 1.0;
    if (x < 2.0) return ((a * x - 5.0 * a) * x + 8.0 * a) * x - 4.0 * a;
    return 0.0;
}

static rs_status u8_table(rs_interp_mode mode, int64_t in, int64_t out, int ac, double us, table *t, int *prec) {
    int aa = mode == RS_INTERP_LINEAR_AA || mode == RS_INTERP_CUBIC_AA;
    int cubic = mode == RS_INTERP_CUBIC || mode == RS_INTERP_CUBIC_AA;
    double a = aa ? -0.5 : -0.75, n = cubic ? 4.0 : 2.0;
    double scale = ac ? (out > 1 ? (double)(in - 1) / (double)(out - 1) : 0.0)
                      : us > 0 ? 1.0 / us : (double)in / (double)out;
    double support = aa && scale >= 1.0 ? n * 0.5 * scale : n * 0.5;
    int64_t taps = aa ? (int64_t)ceil(support) * 2 + 1 : (int64_t)n;
    rs_status st = table_alloc(t, out, out * taps);
    if (st != RS_OK) return st;
    double wmax = 0.0;
    int64_t e = 0;
    for (int64_t o = 0; o < out; ++o) {
        double *w = t->w + e;
        int64_t xmin, xs;
        if (aa) {
            double center = scale * ((double)o + 0.5), inv = scale >= 1.0 ? 1.0 / scale : 1.0;
            xmin = (int64_t)(center - support + 0.5); /* C truncation, as CPU */
            if (xmin < 0) xmin = 0;
            int64_t xmax = (int64_t)(center + support + 0.5);
            xs = (xmax < in ? xmax : in) - xmin;
            xs = xs < 0 ? 0 : xs > taps ? taps : xs;
            double total = 0.0;
            for (int64_t j = 0; j < xs; ++j) {
                w[j] = u8_filter(((double)(j + xmin) - center + 0.5) * inv, cubic, a);
                total += w[j];
            }
            if (total != 0.0)
                for (int64_t j = 0; j < xs; ++j) {
                    w[j] /= total;
                    if (w[j] > wmax) wmax = w[j];
                }
        } else {
            /* taps past an edge fold onto the edge pixel */
            int64_t half = taps / 2;
            double r = ac ? scale * (double)o : scale * ((double)o + 0.5) - 0.5;
            if (!cubic && !ac && r < 0) r = 0.0;
            int64_t i0 = (int64_t)floorf((float)r);
            if (i0 > in - 1) i0 = in - 1;
            double lam = r - (double)i0;
            lam = lam < 0.0 ? 0.0 : lam > 1.0 ? 1.0 : lam;
            int64_t umin = i0 - half + 1, umax = i0 + half + 1;
            xmin = umin > 0 ? umin : 0;
            xs = (umax < in ? umax : in) - xmin;
            xs = xs < 0 ? 0 : xs > taps ? taps : xs;
            double acc[4] = {0, 0, 0, 0};
            int64_t wi = 0;
            for (int64_t j = 0; j < taps; ++j) {
                double v = u8_filter((double)(j + 1 - half) - lam, cubic, a);
                if (umin + j <= 0) wi = 0;
                else if (umin + j >= in - 1) wi = xs - 1;
                acc[wi] += v;
                if (acc[wi] > wmax) wmax = acc[wi];
                wi++;
            }
            for (int64_t j = 0; j < xs; ++j) w[j] = acc[j];
        }
        for (int64_t j = 0; j < xs; ++j) t->col[e + j] = (int32_t)(xmin + j);
        e += xs;
        t->row_ptr[o + 1] = (int32_t)e;
    }
    t->nnz = e;
    int p = 0;
    for (; p < 22; ++p)
        if ((int)(0.5 + wmax * (double)(1 << (p + 1))) >= (1 << 15)) break;
    for (int64_t k = 0; k < e; ++k) {
        double v = t->w[k] * (double)(1 << p);
        t->w[k] = (double)(v < 0 ? (int)(-0.5 + v) : (int)(0.5 + v));
    }
    *prec = p;
    return RS_OK;
}

/* The forward table of one dim: out positions, their (input position,
 * weight) entries. f64: the weights in float64 arithmetic. */
static rs_status forward_table(rs_interp_mode mode, int64_t in, int64_t out, int ac, double us, int f64, table *t) {
    int aa = mode == RS_INTERP_LINEAR_AA || mode == RS_INTERP_CUBIC_AA, cubic = mode == RS_INTERP_CUBIC_AA;
    int64_t taps = mode == RS_INTERP_LINEAR ? 2 : mode == RS_INTERP_CUBIC ? 4 : 1;
    if (aa) taps = f64 ? aa_max_taps_d(in, out, ac, us, cubic) : aa_max_taps_f(in, out, ac, us, cubic);
    rs_status st = table_alloc(t, out, out * taps);
    if (st != RS_OK) return st;
    void *scratch = aa ? malloc((size_t)taps * sizeof(double)) : NULL;
    if (aa && !scratch) {
        table_free(t);
        return rs_error(RS_ERR_OOM, "rs_interp: out of host memory");
    }
    int64_t n = 0;
    for (int64_t o = 0; o < out; ++o) {
        int64_t idx[4];
        double w[4];
        if (mode == RS_INTERP_NEAREST || mode == RS_INTERP_NEAREST_EXACT) {
            t->col[n] = (int32_t)nearest_src(o, in, out, us, mode == RS_INTERP_NEAREST_EXACT);
            t->w[n++] = 1;
        } else if (mode == RS_INTERP_LINEAR || mode == RS_INTERP_CUBIC) {
            int k = mode == RS_INTERP_LINEAR ? 2 : 4;
            if (k == 2) f64 ? linear_d(o, in, out, ac, us, idx, w) : linear_f(o, in, out, ac, us, idx, w);
            else f64 ? cubic_d(o, in, out, ac, us, idx, w) : cubic_f(o, in, out, ac, us, idx, w);
            for (int j = 0; j < k; ++j) t->col[n] = (int32_t)idx[j], t->w[n++] = w[j];
        } else {
            int64_t xmin, xs = f64 ? aa_d(o, in, out, ac, us, cubic, &xmin, t->w + n, scratch)
                                   : aa_f(o, in, out, ac, us, cubic, &xmin, t->w + n, scratch);
            for (int64_t j = 0; j < xs; ++j) t->col[n + j] = (int32_t)(xmin + j);
            n += xs;
        }
        t->row_ptr[o + 1] = (int32_t)n;
    }
    free(scratch);
    t->nnz = n;
    return RS_OK;
}

/* The transpose: in positions, their (output position, weight) entries by
 * output position (a counting sort keeps each output's tap order) */
static rs_status transpose(const table *f, int64_t in, table *t) {
    rs_status st = table_alloc(t, in, f->nnz);
    if (st != RS_OK) return st;
    for (int64_t e = 0; e < f->nnz; ++e) t->row_ptr[f->col[e] + 1]++;
    for (int64_t i = 0; i < in; ++i) t->row_ptr[i + 1] += t->row_ptr[i];
    int32_t *fill = malloc((size_t)(in ? in : 1) * sizeof *fill);
    if (!fill) {
        table_free(t);
        return rs_error(RS_ERR_OOM, "rs_interp: out of host memory");
    }
    memcpy(fill, t->row_ptr, (size_t)in * sizeof *fill);
    for (int64_t o = 0; o < f->n_dest; ++o)
        for (int32_t e = f->row_ptr[o]; e < f->row_ptr[o + 1]; ++e) {
            int32_t at = fill[f->col[e]]++;
            t->col[at] = (int32_t)o;
            t->w[at] = f->w[e];
        }
    free(fill);
    return RS_OK;
}

/* ---------------------------------------------------------------- validation and passes */


/* one pass: dst (5-d view) from src along dim p (2..4) with table t */
static rs_status run_pass(rs_stream *s, const table *t, int p, const rs_tensor *src, const int64_t src_st[5],
                          const rs_tensor *dst, const int64_t dst_sz[5], const int64_t dst_st[5], rs_dtype in_dt,
                          rs_dtype out_dt, rs_dtype wdt, int copy, int prec) {
    /* copy: nearest's forward moves the element's bits, whatever its dtype;
     * prec >= 0: uint8's fixed point (int32 weights with prec fractional bits) */
    int64_t items = 1;
    for (int d = 0; d < 5; ++d) items *= dst_sz[d];
    if (items == 0) return RS_OK;
    size_t wsz = wdt == RS_FLOAT64 && prec < 0 ? 8 : 4;
    size_t bytes = IP_SLOTS * 8 + (size_t)(t->n_dest + 1) * 4 + (size_t)t->nnz * 4 + 8 + (size_t)t->nnz * wsz + 8;
    uint64_t addr;
    void *host = NULL;
    rs_status st = rs_stream_arena(s, bytes, &host, &addr);
    if (st != RS_OK) return st;
    int64_t *ip = host;
    memcpy(ip + IP_DST, dst_sz, 5 * sizeof(int64_t));
    memcpy(ip + IP_SRC_ST, src_st, 5 * sizeof(int64_t));
    memcpy(ip + IP_DST_ST, dst_st, 5 * sizeof(int64_t));
    ip[IP_DIM] = p;
    ip[IP_PREC] = prec;
    uint8_t *b = (uint8_t *)host;
    size_t o_rows = IP_SLOTS * 8, o_cols = o_rows + (size_t)(t->n_dest + 1) * 4;
    size_t o_w = (o_cols + (size_t)t->nnz * 4 + 7) / 8 * 8;
    memcpy(b + o_rows, t->row_ptr, (size_t)(t->n_dest + 1) * 4);
    memcpy(b + o_cols, t->col, (size_t)t->nnz * 4);
    for (int64_t e = 0; e < t->nnz; ++e) {
        if (prec >= 0) {
            int32_t q = (int32_t)t->w[e]; /* an int16 value */
            memcpy(b + o_w + 4 * e, &q, 4);
        } else if (wsz == 8) memcpy(b + o_w + 8 * e, &t->w[e], 8);
        else {
            float f = (float)t->w[e]; /* exact: the weight was computed in float */
            memcpy(b + o_w + 4 * e, &f, 4);
        }
    }
    struct { RS_INTERP_PUSH } pc = {src->address, dst->address, addr, addr + o_rows, addr + o_cols, addr + o_w, (uint64_t)items};
    char defines[96];
    snprintf(defines, sizeof defines, "IN_DT=%d;OUT_DT=%d;W_DT=%d;COPY=%d;ESZ=%d;U8=%d", (int)in_dt, (int)out_dt,
             (int)wdt, copy, copy ? (int)rs_dtype_size(in_dt) : 0, prec >= 0);
    rs_kernel *k = NULL;
    if ((st = rs_kernel_get(rs_stream_device(s), "interp.comp", defines, &k)) != RS_OK) return st;
    rs_access acc[2] = {rs_tensor_access(src, 0), rs_tensor_access(dst, 1)};
    return rs_launch(s, k, (uint64_t)items, &pc, sizeof pc, acc, 2);
}

static int weighted(rs_interp_mode m) { return m != RS_INTERP_NEAREST && m != RS_INTERP_NEAREST_EXACT; }

rs_status rs_interp_run(rs_stream *s, const rs_interp *p) {
    if (!s || !p) return rs_error(RS_ERR_INVALID, "rs_interp: missing arguments");
    if ((int)p->mode < 0 || p->mode > RS_INTERP_CUBIC_AA) return rs_error(RS_ERR_INVALID, "rs_interp: bad mode");
    if (p->dims < 1 || p->dims > 3)
        return rs_error(RS_ERR_INVALID, "rs_interp: %d spatial dims (1 to 3)", p->dims);
    rs_dtype dt = p->input.dtype;
    int flt = rs_dtype_is_nn_float(dt);
    size_t esz = rs_dtype_size(dt);
    int copy = !p->backward && !weighted(p->mode);
    /* uint8: CPU's 2-d (bi)linear and bicubic forward in fixed point (u8_table) */
    int u8 = dt == RS_UINT8 && !copy && !p->backward && p->dims == 2;
    if (copy ? !(esz == 1 || esz == 2 || esz == 4 || esz == 8) : !flt && !u8)
        return rs_error(RS_ERR_UNSUPPORTED, "rs_interp: no kernel for %s%s", rs_dtype_name(dt),
                        copy ? "" : " (the weighted modes and the backward take floating types, and uint8's 2-d forward)");
    if (!copy && dt == RS_FLOAT64 && !rs_stream_features(s)->has_fp64)
        return rs_error(RS_ERR_UNSUPPORTED, "rs_interp: float64 needs float64 arithmetic, which this device lacks");
    rs_status st;
    /* spatial sizes index the tables as int32 */
    if ((st = rs_check_nc_view("rs_interp", "input", &p->input, p->dims, dt, (int64_t)INT32_MAX + 1)) ||
        (st = rs_check_nc_view("rs_interp", "output", &p->output, p->dims, dt, (int64_t)INT32_MAX + 1)))
        return st;
    int64_t in[5], out[5], in_st[5], out_st[5];
    rs_tensor_ncdhw(&p->input, p->dims, in, in_st);
    rs_tensor_ncdhw(&p->output, p->dims, out, out_st);
    if (in[0] != out[0] || in[1] != out[1])
        return rs_error(RS_ERR_INVALID, "rs_interp: input (%lld, %lld, ...) and output (%lld, %lld, ...) differ in N or C",
                        (long long)in[0], (long long)in[1], (long long)out[0], (long long)out[1]);
    const rs_tensor *dst_t = p->backward ? &p->input : &p->output, *src_t = p->backward ? &p->output : &p->input;
    int64_t dst_n = rs_tensor_numel(dst_t);
    if (dst_n == 0) return RS_OK;
    if (rs_tensor_numel(src_t) == 0) {
        if (!p->backward)
            return rs_error(RS_ERR_INVALID, "rs_interp: an empty input has nothing to interpolate from");
        uint8_t zero[16] = {0}; /* no outputs: the gradient is zero */
        return rs_fill(s, dst_t, zero);
    }

    /* the passes: forward the last dim first, backward the first; the
     * antialiased modes skip a dim whose size does not change (as CPU),
     * nearest skips it too (its table is the identity there) */
    rs_dtype wdt = dt == RS_FLOAT64 ? RS_FLOAT64 : RS_FLOAT32;
    rs_dtype mid_dt = copy || u8 ? dt : wdt;
    int pass_dims[3], npass = 0;
    for (int q = 0; q < p->dims; ++q) {
        int j = p->backward ? q : p->dims - 1 - q, d = 5 - p->dims + j;
        int skip = in[d] == out[d] && (u8 || !weighted(p->mode) || p->mode == RS_INTERP_LINEAR_AA ||
                                       p->mode == RS_INTERP_CUBIC_AA);
        if (!skip) pass_dims[npass++] = d;
    }
    if (npass == 0) return rs_copy(s, dst_t, src_t); /* nothing changes size: a copy */

    /* the current source: the caller's tensor, then contiguous scratch */
    int64_t cur_sz[5], cur_st[5];
    memcpy(cur_sz, p->backward ? out : in, sizeof cur_sz);
    memcpy(cur_st, p->backward ? out_st : in_st, sizeof cur_st);
    rs_tensor cur = *src_t;
    rs_dtype cur_dt = dt;
    uint64_t scratch[3] = {0, 0, 0};
    rs_device *dev = rs_stream_device(s);
    for (int q = 0; q < npass && st == RS_OK; ++q) {
        int d = pass_dims[q], j = d - (5 - p->dims), last = q == npass - 1;
        int64_t n_in = in[d], n_out = out[d];
        table f = {0}, t = {0};
        int prec = -1;
        st = u8 ? u8_table(p->mode, n_in, n_out, p->align_corners, p->scales[j], &f, &prec)
                : forward_table(p->mode, n_in, n_out, p->align_corners, p->scales[j], dt == RS_FLOAT64, &f);
        if (st == RS_OK && p->backward) {
            st = transpose(&f, n_in, &t);
            table_free(&f);
        } else {
            t = f;
        }
        if (st != RS_OK) break;
        int64_t nsz[5], nst[5];
        memcpy(nsz, cur_sz, sizeof nsz);
        nsz[d] = p->backward ? n_in : n_out;
        rs_tensor next;
        rs_dtype next_dt = last ? dt : mid_dt;
        if (last) {
            next = *dst_t;
            memcpy(nst, p->backward ? in_st : out_st, sizeof nst);
        } else {
            /* contiguous scratch in the opmath type (at most two: three dims) */
            int64_t n = 1;
            for (int k = 4; k >= 0; --k) nst[k] = n, n *= nsz[k];
            uint64_t bytes = (uint64_t)n * rs_dtype_size(next_dt);
            if ((st = rs_alloc(dev, bytes ? bytes : 16, s, &scratch[q])) != RS_OK) {
                scratch[q] = 0;
                table_free(&t);
                break;
            }
            memset(&next, 0, sizeof next);
            next.address = scratch[q];
            next.dtype = next_dt;
            next.ndim = 5;
            memcpy(next.sizes, nsz, sizeof nsz);
            memcpy(next.strides, nst, sizeof nst);
        }
        st = run_pass(s, &t, d, &cur, cur_st, &next, nsz, nst, cur_dt, next_dt, wdt, copy, prec);
        table_free(&t);
        cur = next;
        cur_dt = next_dt;
        memcpy(cur_sz, nsz, sizeof nsz);
        memcpy(cur_st, nst, sizeof nst);
    }
    for (int k = 0; k < 3; ++k)
        if (scratch[k]) rs_free(dev, scratch[k]);
    return st;
}
