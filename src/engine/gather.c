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
