/* select.c: searching and selection (kernels/select.comp): searchsorted,
 * and nonzero / masked_select in two steps (count, then write), since the
 * caller must learn the output size in between. */
#include <stdio.h>
#include <string.h>

#include "engine/engine.h"
#include "params/select.h"

typedef struct select_push { RS_SELECT_PUSH } select_push;

#define CHUNK (RS_KERNEL_WG * 4u)

static int64_t last_dim(const rs_tensor *t) { return t->ndim == 0 ? 1 : t->sizes[t->ndim - 1]; }

static uint32_t capped(rs_stream *s, uint64_t groups) {
    uint32_t g = rs_groups_capped(s, groups, 65535);
    return g ? g : 1u;
}

rs_status rs_searchsorted(rs_stream *s, const rs_tensor *boundaries, const rs_tensor *values, const rs_tensor *sorter,
                          int right, const rs_tensor *out) {
    if (!s || !boundaries || !values || !out) return rs_error(RS_ERR_INVALID, "rs_searchsorted: NULL argument");
    if (boundaries->dtype != values->dtype)
        return rs_error(RS_ERR_INVALID, "rs_searchsorted: boundaries and values must have one dtype");
    if (!rs_dtype_has_sort_key(values->dtype))
        return rs_error(RS_ERR_UNSUPPORTED, "rs_searchsorted: no kernel for %s", rs_dtype_name(values->dtype));
    if (out->dtype != RS_INT64 && out->dtype != RS_INT32)
        return rs_error(RS_ERR_INVALID, "rs_searchsorted: out must be int64 or int32");
    if (!rs_tensor_is_contiguous(boundaries) || !rs_tensor_is_contiguous(values) || !rs_tensor_is_contiguous(out) ||
        (sorter && !rs_tensor_is_contiguous(sorter)))
        return rs_error(RS_ERR_INVALID, "rs_searchsorted: tensors must be contiguous");
    int64_t numel = rs_tensor_numel(values);
    if (rs_tensor_numel(out) != numel) return rs_error(RS_ERR_INVALID, "rs_searchsorted: out has the wrong size");
    int64_t m = last_dim(boundaries), nv = last_dim(values);
    int64_t brows = m == 0 ? 0 : rs_tensor_numel(boundaries) / m;
    if (sorter && (sorter->dtype != RS_INT64 || rs_tensor_numel(sorter) != rs_tensor_numel(boundaries)))
        return rs_error(RS_ERR_INVALID, "rs_searchsorted: sorter must be int64 with the boundaries' size");
    if (numel == 0) return RS_OK;
    if (brows > 1 && (nv == 0 || numel / nv != brows))
        return rs_error(RS_ERR_INVALID, "rs_searchsorted: boundaries have %lld rows, values %lld", (long long)brows,
                        (long long)(numel / nv));
    char defines[96];
    snprintf(defines, sizeof defines, "MODE=1;CT=%d;OUT32=%d;RIGHT=%d;SORTER=%d", (int)values->dtype,
             out->dtype == RS_INT32, right ? 1 : 0, sorter ? 1 : 0);
    rs_kernel *k = NULL;
    rs_status st = rs_kernel_get(rs_stream_device(s), "select.comp", defines, &k);
    if (st != RS_OK) return st;
    select_push pc;
    memset(&pc, 0, sizeof pc);
    pc.src = values->address;
    pc.aux = boundaries->address;
    pc.sorter = sorter ? sorter->address : 0;
    pc.dst = out->address;
    pc.numel = (uint64_t)numel;
    pc.nv = (uint64_t)(nv ? nv : 1);
    pc.m = (uint64_t)(brows == 0 ? 0 : m);
    pc.brows = brows <= 1 ? 1u : (uint32_t)brows;
    rs_access acc[4] = {rs_tensor_access(values, 0), rs_tensor_access(boundaries, 0), rs_tensor_access(out, 1),
                        {0, 0, 0}};
    int nacc = 3;
    if (sorter) acc[nacc++] = rs_tensor_access(sorter, 0);
    return rs_launch(s, k, (uint64_t)numel, &pc, sizeof pc, acc, nacc);
}

static rs_status count_kernel(rs_stream *s, int mode, const rs_tensor *src, const char *extra, rs_kernel **k) {
    char defines[96];
    snprintf(defines, sizeof defines, "MODE=%d;IN_DT=%d%s", mode, (int)src->dtype, extra ? extra : "");
    return rs_kernel_get(rs_stream_device(s), "select.comp", defines, k);
}

rs_status rs_nonzero_count(rs_stream *s, const rs_tensor *src, uint64_t *offsets, int64_t *count) {
    if (!s || !src || !offsets) return rs_error(RS_ERR_INVALID, "rs_nonzero_count: NULL argument");
    *offsets = 0;
    if (count) *count = 0;
    if (!rs_tensor_is_contiguous(src)) return rs_error(RS_ERR_INVALID, "rs_nonzero_count: src must be contiguous");
    int64_t numel = rs_tensor_numel(src);
    if ((uint64_t)numel >= (1ull << 32))
        return rs_error(RS_ERR_INVALID, "rs_nonzero_count: %lld elements (at most 2^32 - 1)", (long long)numel);
    if (numel == 0) return RS_OK;
    rs_device *dev = rs_stream_device(s);
    uint64_t nblocks = ((uint64_t)numel + CHUNK - 1) / CHUNK;
    uint64_t size = 4 * (nblocks + 1);
    rs_status st = rs_alloc(dev, size, s, offsets);
    if (st != RS_OK) return st;
    rs_kernel *kc = NULL, *ks = NULL;
    if ((st = count_kernel(s, 2, src, NULL, &kc)) != RS_OK) goto fail;
    if ((st = count_kernel(s, 3, src, NULL, &ks)) != RS_OK) goto fail;
    select_push pc;
    memset(&pc, 0, sizeof pc);
    pc.src = src->address;
    pc.nz = *offsets;
    pc.numel = (uint64_t)numel;
    rs_access acc[2] = {rs_tensor_access(src, 0), {*offsets, size, 1}};
    uint32_t g[3] = {capped(s, nblocks), 1, 1};
    if ((st = rs_dispatch(s, kc, g, &pc, sizeof pc, acc, 2)) != RS_OK) goto fail;
    pc.numel = nblocks;
    uint32_t g1[3] = {1, 1, 1};
    if ((st = rs_dispatch(s, ks, g1, &pc, sizeof pc, acc + 1, 1)) != RS_OK) goto fail;
    if (!count) return RS_OK;  /* nonzero_static: no sync */
    uint32_t total = 0;
    if ((st = rs_memcpy_dtoh(s, &total, *offsets + 4 * nblocks, 4)) != RS_OK) goto fail;
    *count = total;
    return RS_OK;
fail:
    rs_free(dev, *offsets);
    *offsets = 0;
    return st;
}

rs_status rs_nonzero_write(rs_stream *s, const rs_tensor *src, uint64_t offsets, const rs_tensor *coords,
                           const rs_tensor *values_src, const rs_tensor *values_out) {
    return rs_nonzero_write_max(s, src, offsets, -1, coords, values_src, values_out);
}

rs_status rs_nonzero_write_max(rs_stream *s, const rs_tensor *src, uint64_t offsets, int64_t max_rows,
                               const rs_tensor *coords, const rs_tensor *values_src, const rs_tensor *values_out) {
    rs_status st = RS_OK;
    rs_device *dev = s ? rs_stream_device(s) : NULL;
    if (!s || !src) return rs_error(RS_ERR_INVALID, "rs_nonzero_write: NULL argument");
    int64_t numel = rs_tensor_numel(src);
    if (numel == 0 || offsets == 0) {
        if (offsets) rs_free(dev, offsets);
        return RS_OK;
    }
    uint64_t nblocks = ((uint64_t)numel + CHUNK - 1) / CHUNK;
    rs_access nz = {offsets, 4 * (nblocks + 1), 0};
    select_push pc;
    memset(&pc, 0, sizeof pc);
    pc.src = src->address;
    pc.nz = offsets;
    pc.numel = (uint64_t)numel;
    pc.m = max_rows < 0 ? ~0ull : (uint64_t)max_rows;  /* rows written: those below */
    uint32_t g[3] = {capped(s, nblocks), 1, 1};
    rs_kernel *k = NULL;
    if (coords) {
        if (coords->dtype != RS_INT64 || !rs_tensor_is_contiguous(coords)) {
            st = rs_error(RS_ERR_INVALID, "rs_nonzero_write: coords must be contiguous int64");
            goto done;
        }
        void *host = NULL;
        if (src->ndim > 0) {
            if ((st = rs_stream_arena(s, 8 * (size_t)src->ndim, &host, &pc.params)) != RS_OK) goto done;
            memcpy(host, src->sizes, 8 * (size_t)src->ndim);
        }
        pc.ndim = (uint32_t)src->ndim;
        pc.dst = coords->address;
        if ((st = count_kernel(s, 4, src, ";NONZERO=1", &k)) != RS_OK) goto done;
        rs_access acc[3] = {rs_tensor_access(src, 0), nz, rs_tensor_access(coords, 1)};
        if (src->ndim > 0 && (st = rs_dispatch(s, k, g, &pc, sizeof pc, acc, 3)) != RS_OK) goto done;
    }
    if (values_out) {
        if (!values_src || values_src->dtype != values_out->dtype || !rs_tensor_is_contiguous(values_src) ||
            !rs_tensor_is_contiguous(values_out) || rs_tensor_numel(values_src) != numel) {
            st = rs_error(RS_ERR_INVALID, "rs_nonzero_write: values must be contiguous, of src's size and one dtype");
            goto done;
        }
        char extra[48];
        snprintf(extra, sizeof extra, ";NONZERO=0;VSIZE=%zu", rs_dtype_size(values_src->dtype));
        if ((st = count_kernel(s, 4, src, extra, &k)) != RS_OK) goto done;
        pc.aux = values_src->address;
        pc.dst = values_out->address;
        rs_access acc[4] = {rs_tensor_access(src, 0), nz, rs_tensor_access(values_src, 0),
                            rs_tensor_access(values_out, 1)};
        if ((st = rs_dispatch(s, k, g, &pc, sizeof pc, acc, 4)) != RS_OK) goto done;
    }
done:
    rs_free(dev, offsets);
    return st;
}

rs_status rs_masked_scatter(rs_stream *s, const rs_tensor *self, const rs_tensor *mask, const rs_tensor *source) {
    const char *name = "masked_scatter_";
    if (!s || !self || !mask || !source) return rs_error(RS_ERR_INVALID, "%s: NULL argument", name);
    if (mask->dtype != RS_BOOL || mask->ndim != self->ndim ||
        memcmp(mask->sizes, self->sizes, sizeof(int64_t) * (size_t)self->ndim) != 0)
        return rs_error(RS_ERR_INVALID, "%s: the mask must be bool with self's sizes", name);
    if (source->dtype != self->dtype || !rs_tensor_is_contiguous(source))
        return rs_error(RS_ERR_INVALID, "%s: source must be contiguous, of self's dtype", name);
    const int64_t numel = rs_tensor_numel(self);
    if (numel == 0) return RS_OK;
    rs_device *dev = rs_stream_device(s);
    rs_tensor m = *mask;
    uint64_t dense = 0, offsets = 0;
    rs_status st;
    if (!rs_tensor_is_contiguous(mask)) { /* a broadcast or strided mask: counted from a dense copy */
        if ((st = rs_alloc(dev, (uint64_t)numel, s, &dense))) return st;
        m.address = dense;
        int64_t stride = 1;
        for (int d = self->ndim - 1; d >= 0; --d) m.strides[d] = stride, stride *= self->sizes[d];
        if ((st = rs_copy(s, &m, mask))) goto done;
    }
    if ((st = rs_nonzero_count(s, &m, &offsets, NULL))) goto done;
    const uint64_t nblocks = ((uint64_t)numel + CHUNK - 1) / CHUNK;
    select_push pc;
    memset(&pc, 0, sizeof pc);
    pc.src = m.address;
    pc.nz = offsets;
    pc.numel = (uint64_t)numel;
    pc.aux = source->address;
    pc.dst = self->address;
    pc.m = (uint64_t)rs_tensor_numel(source);
    pc.ndim = (uint32_t)self->ndim;
    pc.err = rs_device_error_address(dev);
    pc.site = rs_device_error_site(dev, name);
    void *host = NULL;
    if (self->ndim > 0) {
        if ((st = rs_stream_arena(s, 16 * (size_t)self->ndim, &host, &pc.params))) goto done;
        memcpy(host, self->sizes, 8 * (size_t)self->ndim);
        memcpy((int64_t *)host + self->ndim, self->strides, 8 * (size_t)self->ndim);
    }
    char extra[64];
    snprintf(extra, sizeof extra, ";NONZERO=0;SCATTER=1;VSIZE=%zu", rs_dtype_size(self->dtype));
    rs_kernel *k = NULL;
    if ((st = count_kernel(s, 4, &m, extra, &k))) goto done;
    rs_access acc[4] = {rs_tensor_access(&m, 0), {offsets, 4 * (nblocks + 1), 0}, rs_tensor_access(source, 0),
                        rs_tensor_access(self, 1)};
    uint32_t g[3] = {capped(s, nblocks), 1, 1};
    st = rs_dispatch(s, k, g, &pc, sizeof pc, acc, 4);
done:
    if (offsets) rs_free(dev, offsets);
    if (dense) rs_free(dev, dense);
    return st;
}

rs_status rs_permute_scatter(rs_stream *s, const rs_tensor *src, const rs_tensor *perm, const rs_tensor *out) {
    if (!s || !src || !perm || !out) return rs_error(RS_ERR_INVALID, "rs_permute_scatter: NULL argument");
    int64_t n = rs_tensor_numel(src);
    if (src->dtype != RS_INT64 || perm->dtype != RS_INT64 || out->dtype != RS_INT64 ||
        rs_tensor_numel(perm) != n || rs_tensor_numel(out) != n || !rs_tensor_is_contiguous(src) ||
        !rs_tensor_is_contiguous(perm) || !rs_tensor_is_contiguous(out))
        return rs_error(RS_ERR_INVALID, "rs_permute_scatter: src, perm and out must be contiguous int64 of one size");
    if (n == 0) return RS_OK;
    rs_kernel *k = NULL;
    rs_status st = rs_kernel_get(rs_stream_device(s), "select.comp", "MODE=5", &k);
    if (st != RS_OK) return st;
    select_push pc;
    memset(&pc, 0, sizeof pc);
    pc.src = src->address;
    pc.aux = perm->address;
    pc.dst = out->address;
    pc.numel = (uint64_t)n;
    rs_access acc[3] = {rs_tensor_access(src, 0), rs_tensor_access(perm, 0), rs_tensor_access(out, 1)};
    return rs_launch(s, k, (uint64_t)n, &pc, sizeof pc, acc, 3);
}

/* ---- counting (kernels/select_count.comp) */

typedef struct count_push { RS_SELECT_COUNT_PUSH } count_push;

static int is_flt(rs_dtype dt) { return dt == RS_FLOAT16 || dt == RS_BFLOAT16 || dt == RS_FLOAT32; }
static int is_int(rs_dtype dt) {
    return dt == RS_BOOL || dt == RS_UINT8 || dt == RS_INT8 || dt == RS_INT16 || dt == RS_INT32 ||
           dt == RS_INT64 || dt == RS_UINT16 || dt == RS_UINT32 || dt == RS_UINT64;
}

static rs_status count_get(rs_stream *s, int mode, rs_dtype dt, int weights, rs_kernel **k) {
    char defines[64];
    snprintf(defines, sizeof defines, "MODE=%d;IN_DT=%d;WEIGHTS=%d", mode, (int)dt, weights);
    return rs_kernel_get(rs_stream_device(s), "select_count.comp", defines, k);
}

rs_status rs_minmax(rs_stream *s, const rs_tensor *src, rs_scalar *mn, rs_scalar *mx) {
    if (!s || !src || !mn || !mx) return rs_error(RS_ERR_INVALID, "rs_minmax: NULL argument");
    if (!is_flt(src->dtype) && !is_int(src->dtype))
        return rs_error(RS_ERR_UNSUPPORTED, "rs_minmax: no kernel for %s", rs_dtype_name(src->dtype));
    if (!rs_tensor_is_contiguous(src)) return rs_error(RS_ERR_INVALID, "rs_minmax: src must be contiguous");
    int64_t numel = rs_tensor_numel(src);
    if (numel == 0) return rs_error(RS_ERR_INVALID, "rs_minmax: empty tensor");
    rs_device *dev = rs_stream_device(s);
    uint64_t groups = ((uint64_t)numel + 4 * RS_KERNEL_WG - 1) / (4 * RS_KERNEL_WG);
    if (groups > 1024) groups = 1024;
    uint64_t part = 0, size = 16 * groups;
    rs_status st = rs_alloc(dev, size, s, &part);
    if (st != RS_OK) return st;
    rs_kernel *k1 = NULL, *k2 = NULL;
    count_push pc = {src->address, part, 0, (uint64_t)numel, 0, 0};
    rs_access acc[2] = {rs_tensor_access(src, 0), {part, size, 1}};
    uint32_t g[3] = {(uint32_t)groups, 1, 1}, one[3] = {1, 1, 1};
    uint64_t words[2] = {0, 0};
    if ((st = count_get(s, 1, src->dtype, 0, &k1)) != RS_OK) goto done;
    if ((st = count_get(s, 2, src->dtype, 0, &k2)) != RS_OK) goto done;
    if ((st = rs_dispatch(s, k1, g, &pc, sizeof pc, acc, 2)) != RS_OK) goto done;
    pc.numel = groups;
    if ((st = rs_dispatch(s, k2, one, &pc, sizeof pc, acc + 1, 1)) != RS_OK) goto done;
    if ((st = rs_memcpy_dtoh(s, words, part, 16)) != RS_OK) goto done;
    if (is_flt(src->dtype)) {
        uint32_t a = (uint32_t)words[0], b = (uint32_t)words[1];
        memcpy(&mn->f, &a, 4);
        memcpy(&mx->f, &b, 4);
    } else {
        mn->u = words[0];
        mx->u = words[1];
    }
done:
    rs_free(dev, part);
    return st;
}

/* uint32 counts -> out (any dtype rs_copy converts to), then frees them. */
static rs_status counts_to(rs_stream *s, uint64_t counts, uint64_t n, const rs_tensor *out) {
    rs_tensor c;
    memset(&c, 0, sizeof c);
    c.address = counts;
    c.dtype = RS_UINT32;
    c.ndim = 1;
    c.sizes[0] = (int64_t)n;
    c.strides[0] = 1;
    rs_status st = rs_copy(s, out, &c);
    rs_free(rs_stream_device(s), counts);
    return st;
}

rs_status rs_bincount(rs_stream *s, const rs_tensor *src, const rs_tensor *weights, const rs_tensor *out) {
    if (!s || !src || !out) return rs_error(RS_ERR_INVALID, "rs_bincount: NULL argument");
    if (!is_int(src->dtype) || src->dtype == RS_BOOL)
        return rs_error(RS_ERR_INVALID, "rs_bincount: src must have an integer dtype");
    int64_t numel = rs_tensor_numel(src), nbins = rs_tensor_numel(out);
    if (!rs_tensor_is_contiguous(src) || !rs_tensor_is_contiguous(out) ||
        (weights && (!rs_tensor_is_contiguous(weights) || rs_tensor_numel(weights) != numel)))
        return rs_error(RS_ERR_INVALID, "rs_bincount: tensors must be contiguous, weights of src's size");
    if (weights && (weights->dtype != RS_FLOAT32 || out->dtype != RS_FLOAT32))
        return rs_error(RS_ERR_UNSUPPORTED, "rs_bincount: weights and out must be float32");
    if (weights && !rs_stream_features(s)->has_atomic_float32_add)
        return rs_error(RS_ERR_UNSUPPORTED, "rs_bincount: weights need float32 atomic add");
    rs_device *dev = rs_stream_device(s);
    rs_status st;
    if (nbins == 0) return RS_OK;
    rs_kernel *k = NULL;
    if ((st = count_get(s, 3, src->dtype, weights != NULL, &k)) != RS_OK) return st;
    count_push pc = {src->address, weights ? weights->address : 0, 0, (uint64_t)numel, 0, 0};
    if (weights) {
        float zero = 0.0f;
        if ((st = rs_fill(s, out, &zero)) != RS_OK) return st;
        pc.counts = out->address;
        rs_access acc[3] = {rs_tensor_access(src, 0), rs_tensor_access(weights, 0), rs_tensor_access(out, 1)};
        return rs_launch(s, k, (uint64_t)numel, &pc, sizeof pc, acc, 3);
    }
    uint64_t counts = 0, size = 4 * (uint64_t)nbins;
    if ((st = rs_alloc(dev, size, s, &counts)) != RS_OK) return st;
    rs_tensor ct = rs_tensor_vec(counts, RS_UINT32, nbins);
    uint32_t zero = 0;
    pc.counts = counts;
    rs_access acc[2] = {rs_tensor_access(src, 0), {counts, size, 1}};
    if ((st = rs_fill(s, &ct, &zero)) == RS_OK) st = rs_launch(s, k, (uint64_t)numel, &pc, sizeof pc, acc, 2);
    if (st != RS_OK) {
        rs_free(dev, counts);
        return st;
    }
    return counts_to(s, counts, (uint64_t)nbins, out);
}

rs_status rs_histc(rs_stream *s, const rs_tensor *src, const rs_tensor *edges, const rs_tensor *out) {
    if (!s || !src || !edges || !out) return rs_error(RS_ERR_INVALID, "rs_histc: NULL argument");
    if (!is_flt(src->dtype)) return rs_error(RS_ERR_UNSUPPORTED, "rs_histc: no kernel for %s", rs_dtype_name(src->dtype));
    int64_t bins = rs_tensor_numel(out);
    if (edges->dtype != src->dtype || rs_tensor_numel(edges) != bins + 1 || !rs_tensor_is_contiguous(src) ||
        !rs_tensor_is_contiguous(edges) || bins < 1)
        return rs_error(RS_ERR_INVALID, "rs_histc: src contiguous, edges of src's dtype with bins + 1 elements");
    rs_device *dev = rs_stream_device(s);
    uint64_t counts = 0, size = 4 * (uint64_t)bins;
    rs_status st = rs_alloc(dev, size, s, &counts);
    if (st != RS_OK) return st;
    rs_tensor ct = rs_tensor_vec(counts, RS_UINT32, bins);
    uint32_t zero = 0;
    rs_kernel *k = NULL;
    count_push pc = {src->address, edges->address, counts, (uint64_t)rs_tensor_numel(src), (uint32_t)bins, 0};
    rs_access acc[3] = {rs_tensor_access(src, 0), rs_tensor_access(edges, 0), {counts, size, 1}};
    if ((st = rs_fill(s, &ct, &zero)) == RS_OK && (st = count_get(s, 4, src->dtype, 0, &k)) == RS_OK)
        st = rs_launch(s, k, pc.numel, &pc, sizeof pc, acc, 3);
    if (st != RS_OK) {
        rs_free(dev, counts);
        return st;
    }
    return counts_to(s, counts, (uint64_t)bins, out);
}

rs_status rs_run_starts(rs_stream *s, const rs_tensor *src, const rs_tensor *out) {
    if (!s || !src || !out) return rs_error(RS_ERR_INVALID, "rs_run_starts: NULL argument");
    int64_t n = rs_tensor_numel(src);
    if (out->dtype != RS_BOOL || rs_tensor_numel(out) != n || !rs_tensor_is_contiguous(src) ||
        !rs_tensor_is_contiguous(out))
        return rs_error(RS_ERR_INVALID, "rs_run_starts: src contiguous, out contiguous bool of src's size");
    if (rs_dtype_needs_fp64(src->dtype) && src->dtype != RS_FLOAT64)
        return rs_error(RS_ERR_UNSUPPORTED, "rs_run_starts: no kernel for %s", rs_dtype_name(src->dtype));
    if (n == 0) return RS_OK;
    rs_kernel *k = NULL;
    rs_status st = count_kernel(s, 6, src, NULL, &k);
    if (st != RS_OK) return st;
    select_push pc;
    memset(&pc, 0, sizeof pc);
    pc.src = src->address;
    pc.dst = out->address;
    pc.numel = (uint64_t)n;
    rs_access acc[2] = {rs_tensor_access(src, 0), rs_tensor_access(out, 1)};
    return rs_launch(s, k, (uint64_t)n, &pc, sizeof pc, acc, 2);
}
