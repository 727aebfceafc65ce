/* embedding_bag.c: F.embedding_bag's forward (rs_embedding_bag_run; contract
 * in russet/embedding_bag.h), one launch of kernels/embedding_bag.comp. */
#include <stdio.h>
#include <string.h>

#include "engine/engine.h"
#include "params/embedding_bag.h"

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

rs_status rs_embedding_bag_run(rs_stream *s, const rs_embedding_bag *e) {
    if (!s || !e) return rs_error(RS_ERR_INVALID, "embedding_bag: missing arguments");
    if ((int)e->mode < RS_EBAG_SUM || e->mode > RS_EBAG_MAX) return rs_error(RS_ERR_INVALID, "embedding_bag: bad mode");
    const rs_dtype dt = e->weight.dtype, it = e->indices.dtype;
    if (dt != RS_FLOAT32 && dt != RS_FLOAT16 && dt != RS_BFLOAT16 && dt != RS_FLOAT64)
        return rs_error(RS_ERR_INVALID, "embedding_bag: no kernel for %s weights", rs_dtype_name(dt));
    if (rs_dtype_needs_fp64(dt) && !rs_stream_features(s)->has_fp64)
        return rs_error(RS_ERR_UNSUPPORTED, "embedding_bag: float64 needs float64 arithmetic, which this device "
                        "(or profile) lacks");
    if (!is_index(it)) return rs_error(RS_ERR_INVALID, "embedding_bag: indices must be int64 or int32");
    rs_status st;
    const int has_psw = e->per_sample_weights.ndim != 0, max = e->mode == RS_EBAG_MAX;
    if ((st = check("weight", &e->weight, 2, dt)) || (st = check("indices", &e->indices, 1, it)) ||
        (st = check("offsets", &e->offsets, 1, it)) || (st = check("out", &e->out, 2, dt)) ||
        (has_psw && (st = check("per_sample_weights", &e->per_sample_weights, 1, dt))) ||
        (e->bag_size.address && (st = check("bag_size", &e->bag_size, 1, it))) ||
        (max && (st = check("max_indices", &e->max_indices, 2, it))))
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

    rs_device *dev = rs_stream_device(s);
    embedding_bag_push pc;
    memset(&pc, 0, sizeof pc);
    pc.weight = e->weight.address, pc.indices = e->indices.address, pc.offsets = e->offsets.address;
    pc.psw = has_psw ? e->per_sample_weights.address : 0;
    pc.out_ = e->out.address, pc.bag_size = e->bag_size.address, pc.max_idx = max ? e->max_indices.address : 0;
    pc.params = addr;
    pc.err = rs_device_error_address(dev);
    pc.site = rs_device_error_site(dev, "embedding_bag");
    char defines[64];
    snprintf(defines, sizeof defines, "DT=%d;IDX32=%d;MODE=%d;HAS_PSW=%d", (int)dt, it == RS_INT32, (int)e->mode,
             has_psw);
    rs_kernel *k = NULL;
    if ((st = rs_kernel_get(dev, "embedding_bag.comp", defines, &k)) != RS_OK) return st;
    rs_access acc[7];
    int na = 0;
    acc[na++] = rs_tensor_access(&e->weight, 0);
    acc[na++] = rs_tensor_access(&e->indices, 0);
    acc[na++] = rs_tensor_access(&e->offsets, 0);
    if (has_psw) acc[na++] = rs_tensor_access(&e->per_sample_weights, 0);
    acc[na++] = rs_tensor_access(&e->out, 1);
    if (e->bag_size.address) acc[na++] = rs_tensor_access(&e->bag_size, 1);
    if (max) acc[na++] = rs_tensor_access(&e->max_indices, 1);
    return rs_launch(s, k, (uint64_t)items, &pc, sizeof pc, acc, na);
}
