/* gather.c: gather and scatter along one dim (kernels/gather.comp). The
 * index, out/src and self (with its dim stride zeroed) become three views of
 * the index's shape, coalesced like a pointwise op's. */
#include <stdio.h>
#include <string.h>

#include "engine/engine.h"
#include "params/gather.h"

typedef struct gather_push { RS_GATHER_PUSH } gather_push;

rs_status rs_gather_run(rs_stream *s, const rs_gather *g) {
    if (!s || !g) return rs_error(RS_ERR_INVALID, "rs_gather: missing arguments");
    static const char *const names[3] = {"gather", "scatter", "scatter"};
    if ((int)g->mode < 0 || g->mode > RS_SCATTER_VALUE) return rs_error(RS_ERR_INVALID, "rs_gather: bad mode");
    const char *name = names[g->mode];
    if (g->index.dtype != RS_INT64 && g->index.dtype != RS_INT32)
        return rs_error(RS_ERR_INVALID, "%s: the index must be int64 or int32", name);
    int nd = g->self.ndim;
    if (g->index.ndim != nd || (g->mode != RS_SCATTER_VALUE && g->other.ndim != nd))
        return rs_error(RS_ERR_INVALID, "%s: self, index and %s must have the same number of dims", name,
                        g->mode == RS_GATHER ? "out" : "src");
    if (g->mode != RS_SCATTER_VALUE && g->other.dtype != g->self.dtype)
        return rs_error(RS_ERR_INVALID, "%s: self and %s must have one dtype", name,
                        g->mode == RS_GATHER ? "out" : "src");
    if (nd > 0 && (g->dim < 0 || g->dim >= nd)) return rs_error(RS_ERR_INVALID, "%s: bad dim %d", name, g->dim);
    for (int d = 0; d < nd; ++d) {
        if (d != g->dim && g->index.sizes[d] > g->self.sizes[d])
            return rs_error(RS_ERR_INVALID, "%s: index is larger than self at dim %d", name, d);
        if (g->mode == RS_GATHER ? g->other.sizes[d] != g->index.sizes[d]
                                 : g->mode == RS_SCATTER && g->other.sizes[d] < g->index.sizes[d])
            return rs_error(RS_ERR_INVALID, "%s: %s does not cover the index at dim %d", name,
                            g->mode == RS_GATHER ? "out" : "src", d);
    }
    int64_t numel = rs_tensor_numel(&g->index);
    if (numel == 0) return RS_OK;

    /* the three views over the index's shape */
    rs_tensor vi = g->index, vo = g->index, vs = g->index;
    vo.dtype = vs.dtype = g->self.dtype;
    vo.address = g->mode == RS_SCATTER_VALUE ? g->self.address : g->other.address;
    vs.address = g->self.address;
    for (int d = 0; d < nd; ++d) {
        vo.strides[d] = g->mode == RS_SCATTER_VALUE ? 0 : g->other.strides[d];
        vs.strides[d] = d == g->dim ? 0 : g->self.strides[d];
    }
    const rs_tensor *views[3] = {&vi, &vo, &vs};
    const char *vnames[3] = {"index", g->mode == RS_GATHER ? "out" : "src", "self"};
    rs_layout l;
    rs_status st = rs_layout_make_n(views, vnames, 3, &l);
    if (st != RS_OK) return st;

    rs_device *dev = rs_stream_device(s);
    gather_push pc;
    memset(&pc, 0, sizeof pc);
    pc.self_ = g->self.address;
    pc.other = g->mode == RS_SCATTER_VALUE ? 0 : g->other.address;
    pc.index = g->index.address;
    pc.numel = (uint64_t)numel;
    pc.dim_size = nd ? g->self.sizes[g->dim] : 1;
    pc.dim_stride = nd ? g->self.strides[g->dim] : 0;
    pc.err = rs_device_error_address(dev);
    pc.site = rs_device_error_site(dev, name);
    pc.ndim = (uint32_t)l.ndim;
    memcpy(pc.value, g->value, sizeof pc.value);
    if ((st = rs_layout_upload(s, &l, 3, &pc.params)) != RS_OK) return st;
    int esize = (int)rs_dtype_size(g->self.dtype);
    char defines[64];
    snprintf(defines, sizeof defines, "MODE=%d;ESIZE=%d;IDX32=%d", (int)g->mode, esize, g->index.dtype == RS_INT32);
    rs_kernel *k = NULL;
    if ((st = rs_kernel_get(dev, "gather.comp", defines, &k)) != RS_OK) return st;
    rs_access acc[3];
    int n = 0;
    acc[n++] = rs_tensor_access(&g->index, 0);
    acc[n++] = rs_tensor_access(&g->self, g->mode != RS_GATHER);
    if (g->mode != RS_SCATTER_VALUE) acc[n++] = rs_tensor_access(&g->other, g->mode == RS_GATHER);
    return rs_launch(s, k, pc.numel, &pc, sizeof pc, acc, n);
}

/* ---------------------------------------------------------------- advanced indexing's linear index */

typedef struct index_linear_push { RS_INDEX_LINEAR_PUSH } index_linear_push;

rs_status rs_index_linearize(rs_stream *s, int count, const rs_tensor *indices, const int64_t *sizes,
                             const rs_tensor *out) {
    const char *name = "index";
    if (!s || !indices || !sizes || !out) return rs_error(RS_ERR_INVALID, "%s: missing arguments", name);
    if (count < 1 || count > RS_MAX_DIMS) return rs_error(RS_ERR_INVALID, "%s: %d index tensors", name, count);
    if (out->dtype != RS_INT64 || !rs_tensor_is_contiguous(out))
        return rs_error(RS_ERR_INVALID, "%s: the linear index must be contiguous int64", name);
    const int nd = out->ndim;
    for (int k = 0; k < count; ++k) {
        const rs_tensor *t = &indices[k];
        if (t->dtype != RS_INT64 && t->dtype != RS_INT32)
            return rs_error(RS_ERR_INVALID, "%s: index tensor %d must be int64 or int32", name, k);
        if (t->ndim != nd || memcmp(t->sizes, out->sizes, sizeof(int64_t) * (size_t)nd) != 0)
            return rs_error(RS_ERR_INVALID, "%s: index tensor %d does not have the linear index's sizes", name, k);
        if (sizes[k] < 0) return rs_error(RS_ERR_INVALID, "%s: indexed dim %d has size %lld", name, k,
                                          (long long)sizes[k]);
    }
    const int64_t numel = rs_tensor_numel(out);
    if (numel == 0) return RS_OK;

    const size_t slots = (size_t)(IL_SIZES + nd + count * IL_K_SLOTS(nd));
    void *host = NULL;
    uint64_t addr = 0;
    rs_status st;
    if ((st = rs_stream_arena(s, slots * sizeof(int64_t), &host, &addr))) return st;
    int64_t *q = host;
    q[IL_NDIM] = nd, q[IL_COUNT] = count;
    for (int d = 0; d < nd; ++d) q[IL_SIZES + d] = out->sizes[d];
    int64_t p = 1;
    for (int k = count - 1; k >= 0; --k) {
        int64_t *b = q + IL_SIZES + nd + k * IL_K_SLOTS(nd);
        b[IL_K_ADDR] = (int64_t)indices[k].address;
        b[IL_K_I32] = indices[k].dtype == RS_INT32;
        b[IL_K_N] = sizes[k];
        b[IL_K_P] = p;
        for (int d = 0; d < nd; ++d) b[IL_K_STRIDES + d] = indices[k].strides[d];
        p *= sizes[k];
    }
    index_linear_push pc = {.params = addr, .out_ = out->address, .numel = (uint64_t)numel};
    rs_device *dev = rs_stream_device(s);
    rs_kernel *k = NULL;
    if ((st = rs_kernel_get(dev, "index_linear.comp", "", &k))) return st;
    rs_access acc[RS_MAX_DIMS + 1];
    for (int i = 0; i < count; ++i) acc[i] = rs_tensor_access(&indices[i], 0);
    acc[count] = rs_tensor_access(out, 1);
    return rs_launch(s, k, (uint64_t)numel, &pc, sizeof pc, acc, count + 1);
}

rs_status rs_take(rs_stream *s, const rs_tensor *self, const rs_tensor *index, const rs_tensor *out) {
    if (!s || !self || !index || !out) return rs_error(RS_ERR_INVALID, "take: missing arguments");
    if (out->dtype != self->dtype) return rs_error(RS_ERR_INVALID, "take: self and out must have one dtype");
    if (out->ndim != index->ndim || memcmp(out->sizes, index->sizes, sizeof(int64_t) * (size_t)index->ndim) != 0)
        return rs_error(RS_ERR_INVALID, "take: out must have the index's sizes");
    const int64_t n = rs_tensor_numel(self), k = rs_tensor_numel(index);
    if (k == 0) return RS_OK;
    if (n == 0) return rs_error(RS_ERR_INVALID, "take(): tried to take from an empty tensor");
    const uint64_t esize = rs_dtype_size(self->dtype);
    rs_scratch sc = {s, {0}, 0};
    rs_status st;
    uint64_t flat = self->address, lin = 0, dense_out = out->address;
    if (!rs_tensor_is_contiguous(self)) {
        if ((st = rs_scratch_take(&sc, (uint64_t)n * esize, &flat)) != RS_OK) goto done;
        rs_tensor d = rs_tensor_dense_like(self, flat, self->dtype);
        if ((st = rs_copy(s, &d, self)) != RS_OK) goto done;
    }
    if ((st = rs_scratch_take(&sc, (uint64_t)k * 8u, &lin)) != RS_OK) goto done;
    rs_tensor lv = rs_tensor_dense_like(index, lin, RS_INT64);
    if ((st = rs_index_linearize(s, 1, index, &n, &lv)) != RS_OK) goto done;
    int direct = rs_tensor_is_contiguous(out);
    if (!direct && (st = rs_scratch_take(&sc, (uint64_t)k * esize, &dense_out)) != RS_OK) goto done;
    rs_gather g;
    memset(&g, 0, sizeof g);
    g.mode = RS_GATHER;
    g.self = rs_tensor_vec(flat, self->dtype, n);
    g.index = rs_tensor_vec(lin, RS_INT64, k);
    g.other = rs_tensor_vec(dense_out, self->dtype, k);
    if ((st = rs_gather_run(s, &g)) != RS_OK) goto done;
    if (!direct) {
        rs_tensor d = rs_tensor_dense_like(out, dense_out, out->dtype);
        st = rs_copy(s, out, &d);
    }
done:
    rs_scratch_release(&sc);
    return st;
}
