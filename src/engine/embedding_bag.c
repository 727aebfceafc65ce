/* embedding_bag.c: F.embedding_bag (contract in russet/embedding_bag.h) on
 * kernels/embedding_bag.comp. The forward is one launch. The backward
 * writes each position's scaled row (or, for max, each maximum's row) and
 * sums them into the weight's gradient with the index-reduction engine
 * (rs_index_reduce_run: in position order, no atomics); the per-sample
 * weights' gradient is one launch. embedding_renorm_ (nn.Embedding's
 * max_norm) wraps and sorts the indices, then one launch of
 * kernels/embedding_renorm.comp. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "engine/engine.h"
#include "params/embedding_bag.h"
#include "params/embedding_renorm.h"

typedef struct embedding_bag_push { RS_EMBEDDING_BAG_PUSH } embedding_bag_push;

static int is_index(rs_dtype dt) { return dt == RS_INT64 || dt == RS_INT32; }

static rs_status check(const char *what, const rs_tensor *t, int ndim, rs_dtype dt) {
    if (t->ndim != ndim)
        return rs_error(RS_ERR_INVALID, "embedding_bag: %s must have %d dim%s, got %d", what, ndim,
                        ndim == 1 ? "" : "s", t->ndim);
    if (t->dtype != dt)
        return rs_error(RS_ERR_INVALID, "embedding_bag: %s is %s, expected %s", what, rs_dtype_name(t->dtype),
                        rs_dtype_name(dt));
    return RS_OK;
}

/* the dtypes every entry point takes: a float `what` (weights, gradients),
 * float64 only with fp64, and int32 or int64 indices */
static rs_status check_dtypes(const char *name, const char *what, rs_dtype dt, rs_dtype it, rs_stream *s) {
    if (dt != RS_FLOAT32 && dt != RS_FLOAT16 && dt != RS_BFLOAT16 && dt != RS_FLOAT64)
        return rs_error(RS_ERR_INVALID, "%s: no kernel for %s %s", name, rs_dtype_name(dt), what);
    if (rs_dtype_needs_fp64(dt) && !rs_stream_features(s)->has_fp64)
        return rs_error(RS_ERR_UNSUPPORTED, "%s: float64 needs float64 arithmetic, which this device (or profile) "
                        "lacks", name);
    if (!is_index(it)) return rs_error(RS_ERR_INVALID, "%s: indices must be int64 or int32", name);
    return RS_OK;
}

rs_status rs_embedding_bag_run(rs_stream *s, const rs_embedding_bag *e) {
    if (!s || !e) return rs_error(RS_ERR_INVALID, "embedding_bag: missing arguments");
    if ((int)e->mode < RS_EBAG_SUM || e->mode > RS_EBAG_MAX) return rs_error(RS_ERR_INVALID, "embedding_bag: bad mode");
    const rs_dtype dt = e->weight.dtype, it = e->indices.dtype;
    rs_status st;
    if ((st = check_dtypes("embedding_bag", "weights", dt, it, s))) return st;
    const int has_psw = e->per_sample_weights.ndim != 0, max = e->mode == RS_EBAG_MAX;
    if ((st = check("weight", &e->weight, 2, dt)) || (st = check("indices", &e->indices, 1, it)) ||
        (st = check("offsets", &e->offsets, 1, it)) || (st = check("out", &e->out, 2, dt)) ||
        (has_psw && (st = check("per_sample_weights", &e->per_sample_weights, 1, dt))) ||
        (e->bag_size.address && (st = check("bag_size", &e->bag_size, 1, it))) ||
        (max && (st = check("max_indices", &e->max_indices, 2, it))) ||
        (e->offset2bag.address && (st = check("offset2bag", &e->offset2bag, 1, it))))
        return st;
    const int64_t n = e->weight.sizes[0], d = e->weight.sizes[1], l = e->indices.sizes[0];
    const int64_t b = e->out.sizes[0], noff = e->offsets.sizes[0];
    if (has_psw && e->mode != RS_EBAG_SUM)
        return rs_error(RS_ERR_INVALID, "embedding_bag: per_sample_weights only supported with mode='sum'");
    if (has_psw && e->per_sample_weights.sizes[0] != l)
        return rs_error(RS_ERR_INVALID, "embedding_bag: per_sample_weights has to have one weight per index");
    if (e->out.sizes[1] != d || (noff != b && noff != b + 1))
        return rs_error(RS_ERR_INVALID, "embedding_bag: out is (%lld, %lld) for %lld offsets and %lld columns",
                        (long long)b, (long long)e->out.sizes[1], (long long)noff, (long long)d);
    if ((e->bag_size.address && e->bag_size.sizes[0] != b) ||
        (max && (e->max_indices.sizes[0] != b || e->max_indices.sizes[1] != d)))
        return rs_error(RS_ERR_INVALID, "embedding_bag: bag_size or max_indices is not the output's shape");
    if (e->offset2bag.address && e->offset2bag.sizes[0] != l)
        return rs_error(RS_ERR_INVALID, "embedding_bag: offset2bag must have one entry per index");
    if (b == 0) return RS_OK;
    const int64_t items = b * (d > 0 ? d : 1); /* no columns: a bag's count and checks only */

    void *host = NULL;
    uint64_t addr = 0;
    if ((st = rs_stream_arena(s, EB_SLOTS * sizeof(int64_t), &host, &addr)) != RS_OK) return st;
    int64_t *p = host;
    memset(p, 0, EB_SLOTS * sizeof(int64_t));
    p[EB_B] = b, p[EB_D] = d, p[EB_L] = l, p[EB_N] = n, p[EB_NOFF] = noff;
    p[EB_PADDING] = e->padding_idx < 0 ? -1 : e->padding_idx;
    p[EB_WS] = e->weight.strides[0], p[EB_WS + 1] = e->weight.strides[1];
    p[EB_IS] = e->indices.strides[0], p[EB_OFS] = e->offsets.strides[0];
    p[EB_PS] = has_psw ? e->per_sample_weights.strides[0] : 0;
    p[EB_OS] = e->out.strides[0], p[EB_OS + 1] = e->out.strides[1];
    p[EB_BS] = e->bag_size.address ? e->bag_size.strides[0] : 0;
    if (max) p[EB_MS] = e->max_indices.strides[0], p[EB_MS + 1] = e->max_indices.strides[1];
    p[EB_O2BS] = e->offset2bag.address ? e->offset2bag.strides[0] : 0;

    rs_device *dev = rs_stream_device(s);
    embedding_bag_push pc;
    memset(&pc, 0, sizeof pc);
    pc.weight = e->weight.address, pc.indices = e->indices.address, pc.offsets = e->offsets.address;
    pc.psw = has_psw ? e->per_sample_weights.address : 0;
    pc.out_ = e->out.address, pc.bag_size = e->bag_size.address, pc.max_idx = max ? e->max_indices.address : 0;
    pc.o2b = e->offset2bag.address;
    pc.params = addr;
    pc.err = rs_device_error_address(dev);
    pc.site = rs_device_error_site(dev, "embedding_bag");
    char defines[64];
    snprintf(defines, sizeof defines, "DT=%d;IDX32=%d;MODE=%d;HAS_PSW=%d", (int)dt, it == RS_INT32, (int)e->mode,
             has_psw);
    rs_kernel *k = NULL;
    if ((st = rs_kernel_get(dev, "embedding_bag.comp", defines, &k)) != RS_OK) return st;
    rs_access acc[8];
    int na = 0;
    acc[na++] = rs_tensor_access(&e->weight, 0);
    acc[na++] = rs_tensor_access(&e->indices, 0);
    acc[na++] = rs_tensor_access(&e->offsets, 0);
    if (has_psw) acc[na++] = rs_tensor_access(&e->per_sample_weights, 0);
    acc[na++] = rs_tensor_access(&e->out, 1);
    if (e->bag_size.address) acc[na++] = rs_tensor_access(&e->bag_size, 1);
    if (max) acc[na++] = rs_tensor_access(&e->max_indices, 1);
    if (e->offset2bag.address) acc[na++] = rs_tensor_access(&e->offset2bag, 1);
    return rs_launch(s, k, (uint64_t)items, &pc, sizeof pc, acc, na);
}

/* ---------------------------------------------------------------- backward */

/* the checks both backward functions share; b, d, l, n: bags, columns,
 * positions, weight rows (n from out (weight's gradient) or weight) */
static rs_status check_grad(const char *name, const rs_embedding_bag_grad *g, const rs_tensor *table, rs_stream *s,
                            int64_t *b, int64_t *d, int64_t *l) {
    const rs_dtype dt = g->grad.dtype, it = g->indices.dtype;
    rs_status st;
    if ((st = check_dtypes(name, "gradients", dt, it, s))) return st;
    const int o2b = g->offset2bag.ndim != 0;
    if ((st = check("grad", &g->grad, 2, dt)) || (st = check("indices", &g->indices, 1, it)) ||
        (st = check(table == &g->out ? "the weight's gradient" : "weight", table, 2, dt)) ||
        (o2b && (st = check("offset2bag", &g->offset2bag, 1, it))) ||
        (!o2b && (st = check("offsets", &g->offsets, 1, it))))
        return st;
    *b = g->grad.sizes[0], *d = g->grad.sizes[1], *l = g->indices.sizes[0];
    if (table->sizes[1] != *d)
        return rs_error(RS_ERR_INVALID, "%s: grad has %lld columns, the table %lld", name, (long long)*d,
                        (long long)table->sizes[1]);
    if (o2b && g->offset2bag.sizes[0] != *l)
        return rs_error(RS_ERR_INVALID, "%s: offset2bag must have one entry per index", name);
    if (!o2b && g->offsets.sizes[0] != *b && g->offsets.sizes[0] != *b + 1)
        return rs_error(RS_ERR_INVALID, "%s: %lld offsets for %lld bags", name, (long long)g->offsets.sizes[0],
                        (long long)*b);
    return RS_OK;
}

/* one launch of the backward MODE (3-5) over `items` invocations */
static rs_status launch_grad(rs_stream *s, const rs_embedding_bag_grad *g, const rs_tensor *table, int mode,
                             uint64_t items, rs_access out, int64_t out_stride, uint64_t count) {
    const int has_psw = mode == 3 && g->per_sample_weights.ndim != 0, o2b = g->offset2bag.ndim != 0;
    void *host = NULL;
    uint64_t addr = 0;
    rs_status st;
    if ((st = rs_stream_arena(s, EB_SLOTS * sizeof(int64_t), &host, &addr)) != RS_OK) return st;
    int64_t *p = host;
    memset(p, 0, EB_SLOTS * sizeof(int64_t));
    p[EB_B] = g->grad.sizes[0], p[EB_D] = g->grad.sizes[1], p[EB_L] = g->indices.sizes[0];
    p[EB_N] = table->sizes[0];
    p[EB_NOFF] = o2b ? 0 : g->offsets.sizes[0];
    p[EB_PADDING] = g->padding_idx < 0 ? -1 : g->padding_idx;
    p[EB_WS] = table->strides[0], p[EB_WS + 1] = table->strides[1];
    p[EB_IS] = g->indices.strides[0], p[EB_OFS] = o2b ? 0 : g->offsets.strides[0];
    p[EB_PS] = has_psw ? g->per_sample_weights.strides[0] : 0;
    p[EB_OS] = out_stride;
    p[EB_BS] = g->bag_size.ndim ? g->bag_size.strides[0] : 0;
    if (g->max_indices.ndim) p[EB_MS] = g->max_indices.strides[0], p[EB_MS + 1] = g->max_indices.strides[1];
    p[EB_O2BS] = o2b ? g->offset2bag.strides[0] : 0;
    p[EB_GS] = g->grad.strides[0], p[EB_GS + 1] = g->grad.strides[1];

    rs_device *dev = rs_stream_device(s);
    embedding_bag_push pc;
    memset(&pc, 0, sizeof pc);
    pc.weight = mode == 5 ? table->address : 0;
    pc.indices = g->indices.address, pc.offsets = o2b ? 0 : g->offsets.address;
    pc.psw = has_psw ? g->per_sample_weights.address : 0;
    pc.out_ = out.address, pc.bag_size = g->bag_size.ndim ? g->bag_size.address : 0;
    pc.max_idx = g->max_indices.ndim ? g->max_indices.address : 0;
    pc.o2b = o2b ? g->offset2bag.address : 0, pc.grad = g->grad.address, pc.count = count;
    pc.params = addr;
    pc.err = rs_device_error_address(dev);
    pc.site = rs_device_error_site(dev, mode == 5 ? "embedding_bag_per_sample_weights_backward"
                                                  : "embedding_bag_backward");
    char defines[96];
    snprintf(defines, sizeof defines, "DT=%d;IDX32=%d;MODE=%d;HAS_PSW=%d;O2B=%d;MEAN=%d;FREQ=%d",
             (int)g->grad.dtype, g->indices.dtype == RS_INT32, mode, has_psw, o2b,
             mode == 3 && g->mode == RS_EBAG_MEAN, mode == 3 && count != 0);
    rs_kernel *k = NULL;
    if ((st = rs_kernel_get(dev, "embedding_bag.comp", defines, &k)) != RS_OK) return st;
    rs_access acc[10];
    int na = 0;
    acc[na++] = rs_tensor_access(&g->grad, 0);
    acc[na++] = rs_tensor_access(&g->indices, 0);
    acc[na++] = rs_tensor_access(o2b ? &g->offset2bag : &g->offsets, 0);
    if (mode == 5) acc[na++] = rs_tensor_access(table, 0);
    if (has_psw) acc[na++] = rs_tensor_access(&g->per_sample_weights, 0);
    if (g->bag_size.ndim) acc[na++] = rs_tensor_access(&g->bag_size, 0);
    if (g->max_indices.ndim) acc[na++] = rs_tensor_access(&g->max_indices, 0);
    if (count) acc[na++] = (rs_access){count, 8 * (uint64_t)table->sizes[0], 0};
    acc[na++] = out;
    return rs_launch(s, k, items, &pc, sizeof pc, acc, na);
}

/* each row's count among all positions (scale_grad_by_freq): ones summed
 * by index into `count` (n int64) */
static rs_status index_counts(rs_stream *s, const rs_tensor *indices, int64_t n, uint64_t count) {
    rs_device *dev = rs_stream_device(s);
    const int64_t l = indices->sizes[0];
    uint64_t ones = 0;
    rs_status st;
    if ((st = rs_alloc(dev, 8 * (uint64_t)l, s, &ones))) return st;
    rs_index_reduce r = {.name = "embedding_bag_backward", .op = RS_IR_SUM, .shared_index = 1, .include_self = 1};
    r.self = rs_tensor_rows(count, RS_INT64, n, 1);
    r.src = rs_tensor_rows(ones, RS_INT64, l, 1);
    r.index = *indices;
    const int64_t zero = 0, one = 1;
    if (!(st = rs_fill(s, &r.self, &zero)) && !(st = rs_fill(s, &r.src, &one))) st = rs_index_reduce_run(s, &r);
    rs_free(dev, ones);
    return st;
}

rs_status rs_embedding_bag_backward_run(rs_stream *s, const rs_embedding_bag_grad *g) {
    const char *name = "embedding_bag_backward";
    if (!s || !g) return rs_error(RS_ERR_INVALID, "%s: missing arguments", name);
    if ((int)g->mode < RS_EBAG_SUM || g->mode > RS_EBAG_MAX) return rs_error(RS_ERR_INVALID, "%s: bad mode", name);
    int64_t b, d, l;
    rs_status st;
    if ((st = check_grad(name, g, &g->out, s, &b, &d, &l))) return st;
    const rs_dtype dt = g->grad.dtype, it = g->indices.dtype;
    const int max = g->mode == RS_EBAG_MAX, mean = g->mode == RS_EBAG_MEAN;
    const int psw = g->per_sample_weights.ndim != 0;
    if (psw && (g->mode != RS_EBAG_SUM || (st = check("per_sample_weights", &g->per_sample_weights, 1, dt))))
        return st ? st : rs_error(RS_ERR_INVALID, "%s: per_sample_weights only supported with mode='sum'", name);
    if (psw && g->per_sample_weights.sizes[0] != l)
        return rs_error(RS_ERR_INVALID, "%s: per_sample_weights has to have one weight per index", name);
    if ((mean || max) && ((st = check("bag_size", &g->bag_size, 1, it)) || g->bag_size.sizes[0] != b))
        return st ? st : rs_error(RS_ERR_INVALID, "%s: bag_size must have one entry per bag", name);
    if (max && ((st = check("max_indices", &g->max_indices, 2, it)) || g->max_indices.sizes[0] != b ||
                g->max_indices.sizes[1] != d))
        return st ? st : rs_error(RS_ERR_INVALID, "%s: max_indices must be the output's shape", name);

    rs_device *dev = rs_stream_device(s);
    const int64_t n = g->out.sizes[0];
    uint8_t zero[16] = {0};
    if ((st = rs_fill(s, &g->out, zero))) return st;
    const int64_t sources = max ? b : l; /* the rows summed: bags (max) or positions */
    if (sources == 0 || d == 0 || n == 0) return RS_OK;

    uint64_t rows = 0, count = 0;
    rs_index_reduce r = {.name = name, .op = RS_IR_SUM, .include_self = 1};
    const uint64_t rsz = max ? 8 : rs_dtype_size(dt);
    if ((st = rs_alloc(dev, (uint64_t)(sources * d) * rsz, s, &rows))) return st;
    if (!max && g->scale_grad_by_freq) {
        if ((st = rs_alloc(dev, 8 * (uint64_t)n, s, &count)) || (st = index_counts(s, &g->indices, n, count)))
            goto done;
    }
    if ((st = launch_grad(s, g, &g->out, max ? 4 : 3, (uint64_t)(sources * d),
                          (rs_access){rows, (uint64_t)(sources * d) * rsz, 1}, 0, count)))
        goto done;
    r.self = g->out;
    if (max) { /* bag b's column c to out[target[b, c], c], in bag order; -1 skipped */
        r.has_skip = 1, r.skip_index = -1;
        r.index = rs_tensor_rows(rows, RS_INT64, b, d);
        r.src = g->grad;
    } else { /* position p's row to out[indices[p]], in position order; padding skipped */
        r.shared_index = 1;
        r.has_skip = g->padding_idx >= 0, r.skip_index = g->padding_idx;
        r.index = g->indices;
        r.src = rs_tensor_rows(rows, dt, l, d);
    }
    st = rs_index_reduce_run(s, &r);
done:
    if (rows) rs_free(dev, rows);
    if (count) rs_free(dev, count);
    return st;
}

rs_status rs_embedding_bag_psw_backward_run(rs_stream *s, const rs_embedding_bag_grad *g) {
    const char *name = "embedding_bag_per_sample_weights_backward";
    if (!s || !g) return rs_error(RS_ERR_INVALID, "%s: missing arguments", name);
    if (g->mode != RS_EBAG_SUM)
        return rs_error(RS_ERR_INVALID, "%s: per_sample_weights only supported for mode='sum'", name);
    int64_t b, d, l;
    rs_status st;
    if ((st = check_grad(name, g, &g->weight, s, &b, &d, &l)) || (st = check("out", &g->out, 1, g->grad.dtype)))
        return st;
    if (g->out.sizes[0] != l) return rs_error(RS_ERR_INVALID, "%s: out must have one entry per index", name);
    if (l == 0) return RS_OK;
    return launch_grad(s, g, &g->weight, 5, (uint64_t)l, rs_tensor_access(&g->out, 1), g->out.strides[0], 0);
}

/* ---- embedding_renorm_ (nn.Embedding with max_norm) */

typedef struct embedding_renorm_push { RS_EMBEDDING_RENORM_PUSH } embedding_renorm_push;

rs_status rs_embedding_renorm(rs_stream *s, const rs_tensor *weight, const rs_tensor *indices, double max_norm,
                              double norm_type) {
    static const char name[] = "embedding_renorm_";
    if (!s || !weight || !indices) return rs_error(RS_ERR_INVALID, "%s: missing arguments", name);
    rs_status st = check_dtypes(name, "weight", weight->dtype, indices->dtype, s);
    if (st != RS_OK) return st;
    if (weight->ndim != 2) return rs_error(RS_ERR_INVALID, "%s: weight must be 2-d, got %d dims", name, weight->ndim);
    const int64_t n = weight->sizes[0], d = weight->sizes[1], count = rs_tensor_numel(indices);
    uint32_t kind = norm_type == 1 ? RN_P_ONE : norm_type == 2 ? RN_P_TWO : norm_type == 0 ? RN_P_ZERO
                  : isinf(norm_type) && norm_type > 0 ? RN_P_INF : RN_P_GENERAL;
    if (kind == RN_P_GENERAL && (weight->dtype == RS_FLOAT64 || !(norm_type > 0) || isinf(norm_type)))
        return rs_error(RS_ERR_UNSUPPORTED, "%s: no kernel for the %g-norm of %s", name, norm_type,
                        rs_dtype_name(weight->dtype));
    if (count == 0 || n == 0 || d == 0) return RS_OK;
    rs_scratch sc = {s, {0}, 0};
    uint64_t wa = 0, sa = 0;
    if ((st = rs_scratch_take(&sc, (uint64_t)count * 8u, &wa)) == RS_OK) st = rs_scratch_take(&sc, (uint64_t)count * 8u, &sa);
    /* the indices as int64, sorted (CPU's order: negative ones first) */
    const rs_tensor flat = rs_tensor_dense_like(indices, wa, RS_INT64);
    const rs_tensor row = rs_tensor_rows(wa, RS_INT64, 1, count), sorted = rs_tensor_rows(sa, RS_INT64, 1, count);
    if (st == RS_OK) st = rs_copy(s, &flat, indices);
    if (st == RS_OK) st = rs_sort(s, &row, 0, count, &sorted, NULL);
    rs_kernel *k = NULL;
    char defines[16];
    snprintf(defines, sizeof defines, "DT=%d", (int)weight->dtype);
    if (st == RS_OK) st = rs_kernel_get(rs_stream_device(s), "embedding_renorm.comp", defines, &k);
    if (st == RS_OK) {
        rs_device *dev = rs_stream_device(s);
        embedding_renorm_push pc;
        memset(&pc, 0, sizeof pc);
        pc.weight = weight->address, pc.sorted = sa;
        pc.err = rs_device_error_address(dev);
        pc.site = rs_device_error_site(dev, name);
        pc.count = count, pc.rows = n, pc.cols = d;
        pc.row_stride = weight->strides[0], pc.col_stride = weight->strides[1];
        pc.max_norm = (float)max_norm, pc.p = (float)norm_type;
        memcpy(&pc.max_norm64, &max_norm, sizeof max_norm);
        pc.kind = kind;
        rs_access acc[2] = {rs_tensor_access(weight, 1), {sa, (uint64_t)count * 8u, 0}};
        uint32_t groups[3] = {rs_groups_capped(s, (uint64_t)count, (uint64_t)count), 1, 1};
        st = rs_dispatch(s, k, groups, &pc, sizeof pc, acc, 2);
    }
    rs_scratch_release(&sc);
    return st;
}
