/* tensor.c: tensor descriptors, and the helpers every engine launches
 * through: layout coalescing, parameter blocks in the arena, dispatch. */
#include <string.h>

#include "engine/engine.h"

int64_t rs_tensor_numel(const rs_tensor *t) {
    int64_t n = 1;
    for (int d = 0; d < t->ndim; ++d) n *= t->sizes[d];
    return n;
}

int rs_tensor_is_contiguous(const rs_tensor *t) {
    int64_t expected = 1;
    if (rs_tensor_numel(t) == 0) return 1;
    for (int d = t->ndim - 1; d >= 0; --d) {
        if (t->sizes[d] == 1) continue;
        if (t->strides[d] != expected) return 0;
        expected *= t->sizes[d];
    }
    return 1;
}

void rs_tensor_extent(const rs_tensor *t, uint64_t *lo, uint64_t *hi) {
    int64_t neg = 0, pos = 0;
    uint64_t es = rs_dtype_size(t->dtype);
    if (rs_tensor_numel(t) == 0) {
        *lo = *hi = t->address;
        return;
    }
    for (int d = 0; d < t->ndim; ++d) {
        int64_t span = (t->sizes[d] - 1) * t->strides[d];
        if (span < 0) neg += span;
        else pos += span;
    }
    *lo = t->address + (uint64_t)neg * es;
    *hi = t->address + (uint64_t)(pos + 1) * es;
}

rs_access rs_tensor_access(const rs_tensor *t, int write) {
    uint64_t lo, hi;
    rs_tensor_extent(t, &lo, &hi);
    rs_access a = {lo, hi - lo, write};
    return a;
}

static rs_status check_view(const rs_tensor *t, const char *what) {
    if (!t) return rs_error(RS_ERR_INVALID, "%s is NULL", what);
    if (!rs_dtype_valid((int)t->dtype))
        return rs_error(RS_ERR_INVALID, "%s has an invalid dtype (%d)", what, (int)t->dtype);
    if (t->ndim < 0 || t->ndim > RS_MAX_DIMS)
        return rs_error(RS_ERR_INVALID, "%s has %d dims (at most %d)", what, t->ndim, RS_MAX_DIMS);
    for (int d = 0; d < t->ndim; ++d)
        if (t->sizes[d] < 0)
            return rs_error(RS_ERR_INVALID, "%s has a negative size %lld at dim %d", what,
                            (long long)t->sizes[d], d);
    if (t->address == 0 && rs_tensor_numel(t) != 0)
        return rs_error(RS_ERR_INVALID, "%s has no memory (address 0)", what);
    return RS_OK;
}

rs_status rs_layout_make(const rs_tensor *t0, const rs_tensor *t1, rs_layout *out) {
    const rs_tensor *ts[2] = {t0, t1};
    const char *names[2] = {t1 ? "dst" : "tensor", "src"};
    return rs_layout_make_n(ts, names, t1 ? 2 : 1, out);
}

void rs_views_by_stride(rs_tensor *ts, int n) {
    if (n < 1 || ts[0].ndim < 2 || ts[0].ndim > RS_MAX_DIMS) return;
    const int nd = ts[0].ndim;
    for (int k = 1; k < n; ++k)
        if (ts[k].ndim != nd) return; /* rs_layout_make reports it */
    /* the order of the dims that are not size 1, by stride (insertion sort,
     * stable), written back into their own slots */
    int slot[RS_MAX_DIMS], order[RS_MAX_DIMS], m = 0;
    for (int d = 0; d < nd; ++d)
        if (ts[0].sizes[d] != 1) slot[m++] = d;
    for (int i = 0; i < m; ++i) {
        int d = slot[i], j = i;
        while (j > 0 && ts[0].strides[order[j - 1]] < ts[0].strides[d]) {
            order[j] = order[j - 1];
            --j;
        }
        order[j] = d;
    }
    for (int k = 0; k < n; ++k) {
        int64_t sz[RS_MAX_DIMS], st[RS_MAX_DIMS];
        for (int i = 0; i < m; ++i) sz[i] = ts[k].sizes[order[i]], st[i] = ts[k].strides[order[i]];
        for (int i = 0; i < m; ++i) ts[k].sizes[slot[i]] = sz[i], ts[k].strides[slot[i]] = st[i];
    }
}

rs_status rs_layout_make_n(const rs_tensor *const *ts, const char *const *names, int nt, rs_layout *out) {
    if (nt < 1 || nt > RS_LAYOUT_MAX) return rs_error(RS_ERR_INVALID, "layout of %d views (1..%d)", nt, RS_LAYOUT_MAX);
    const rs_tensor *t0 = ts[0];
    rs_status st;
    for (int k = 0; k < nt; ++k) {
        if ((st = check_view(ts[k], names[k])) != RS_OK) return st;
        int same = ts[k]->ndim == t0->ndim;
        for (int d = 0; same && d < t0->ndim; ++d) same = ts[k]->sizes[d] == t0->sizes[d];
        if (!same) return rs_error(RS_ERR_INVALID, "%s and %s have different sizes", names[0], names[k]);
    }
    memset(out, 0, sizeof *out);
    out->numel = rs_tensor_numel(t0);
    if (out->numel == 0) return RS_OK;
    /* Innermost first: merge dim d into the current outer dim when every
     * view steps over it as one run; size-1 dims vanish. */
    int n = 0;
    for (int d = t0->ndim - 1; d >= 0; --d) {
        int64_t sz = t0->sizes[d];
        if (sz == 1) continue;
        int merge = n > 0;
        for (int k = 0; merge && k < nt; ++k)
            merge = ts[k]->strides[d] == out->strides[k][n - 1] * out->sizes[n - 1];
        if (merge) {
            out->sizes[n - 1] *= sz;
        } else {
            out->sizes[n] = sz;
            for (int k = 0; k < nt; ++k) out->strides[k][n] = ts[k]->strides[d];
            n++;
        }
    }
    /* back to outermost first */
    for (int i = 0; i < n / 2; ++i) {
        int j = n - 1 - i;
        int64_t t = out->sizes[i];
        out->sizes[i] = out->sizes[j];
        out->sizes[j] = t;
        for (int k = 0; k < nt; ++k) {
            t = out->strides[k][i];
            out->strides[k][i] = out->strides[k][j];
            out->strides[k][j] = t;
        }
    }
    int contiguous = n == 0 || n == 1;
    for (int k = 0; contiguous && n == 1 && k < nt; ++k) contiguous = out->strides[k][0] == 1;
    out->ndim = contiguous ? 0 : n;
    return RS_OK;
}

int rs_layout_run(const rs_layout *l, uint64_t *items) {
    int64_t inner = l->ndim ? l->sizes[l->ndim - 1] : 1;
    int run = l->ndim && inner >= 2 * RS_STRIDED_RUN ? RS_STRIDED_RUN : 1;
    *items = (uint64_t)(l->numel / inner) * (uint64_t)((inner + run - 1) / run);
    return run;
}

rs_status rs_layout_upload(rs_stream *s, const rs_layout *l, int ntensors, uint64_t *params) {
    *params = 0;
    if (l->ndim == 0) return RS_OK;
    size_t n = (size_t)l->ndim;
    void *host = NULL;
    rs_status st = rs_stream_arena(s, (1 + (size_t)ntensors) * n * sizeof(int64_t), &host, params);
    if (st != RS_OK) return st;
    int64_t *p = host;
    memcpy(p, l->sizes, n * sizeof(int64_t));
    for (int k = 0; k < ntensors; ++k) memcpy(p + (1 + k) * n, l->strides[k], n * sizeof(int64_t));
    return RS_OK;
}

const rs_features *rs_stream_features(rs_stream *s) {
    return rs_device_features(rs_stream_device(s));
}

int rs_tensor_fits_int32(const rs_tensor *t) {
    const int64_t lim = INT32_MAX;
    int64_t n = rs_tensor_numel(t), span = 0;
    if (n > lim) return 0;
    if (n == 0) return 1;
    for (int d = 0; d < t->ndim; ++d) {
        if (t->sizes[d] == 1) continue; /* its stride may be anything */
        int64_t st = t->strides[d] < 0 ? -t->strides[d] : t->strides[d];
        if (st > lim) return 0;
        span += (t->sizes[d] - 1) * st;
        if (span > lim) return 0;
    }
    return 1;
}

uint64_t rs_fastdiv_magic(uint32_t d) {
    if (d == 0) d = 1; /* no divisor: the identity rather than a trap */
    uint32_t shift = 0;
    while (shift < 31 && (1u << shift) < d) ++shift;
    /* m = 2^32 (2^shift - d) / d + 1 < 2^32, since 2^shift < 2 d */
    uint64_t m = ((1ull << 32) * ((1ull << shift) - d)) / d + 1;
    return (m & 0xffffffffu) | ((uint64_t)shift << 32);
}

rs_status rs_launch(rs_stream *s, rs_kernel *k, uint64_t items, const void *push,
                    uint32_t push_size, const rs_access *acc, int n_acc) {
    if (items == 0) return RS_OK;
    uint32_t g[3] = {rs_groups_capped(s, (items + RS_KERNEL_WG - 1) / RS_KERNEL_WG, RS_GROUPS_MAX), 1, 1};
    return rs_dispatch(s, k, g, push, push_size, acc, n_acc);
}

rs_tensor rs_tensor_rows(uint64_t address, rs_dtype dt, int64_t rows, int64_t n) {
    rs_tensor t;
    memset(&t, 0, sizeof t);
    t.address = address;
    t.dtype = dt;
    t.ndim = 2;
    t.sizes[0] = rows;
    t.sizes[1] = n;
    t.strides[0] = n;
    t.strides[1] = 1;
    return t;
}

rs_tensor rs_tensor_vec(uint64_t address, rs_dtype dt, int64_t n) {
    rs_tensor t = rs_tensor_rows(address, dt, 1, n);
    t.ndim = 1;
    t.sizes[0] = n;
    t.strides[0] = 1;
    return t;
}

rs_tensor rs_tensor_dense_like(const rs_tensor *t, uint64_t address, rs_dtype dt) {
    rs_tensor r = *t;
    r.address = address, r.dtype = dt;
    int64_t step = 1;
    for (int d = r.ndim - 1; d >= 0; --d) r.strides[d] = step, step *= r.sizes[d];
    return r;
}

void rs_opmath_scalar(rs_dtype compute, double v, rs_scalar out[2]) {
    memset(out, 0, 2 * sizeof(rs_scalar));
    if (compute == RS_FLOAT64) out[0].d = v;
    else out[0].f = (float)v;
}

uint32_t rs_groups_capped(rs_stream *s, uint64_t groups, uint64_t limit) {
    uint64_t cap = rs_stream_features(s)->max_workgroup_count_x;
    if (cap == 0 || cap > limit) cap = limit;
    return (uint32_t)(groups > cap ? cap : groups);
}

rs_status rs_view_as_real(const rs_tensor *t, rs_tensor *out) {
    rs_dtype real;
    switch (t->dtype) {
    case RS_COMPLEX32: real = RS_FLOAT16; break;
    case RS_COMPLEX64: real = RS_FLOAT32; break;
    case RS_COMPLEX128: real = RS_FLOAT64; break;
    default: *out = *t; return RS_OK;
    }
    if (t->ndim >= RS_MAX_DIMS)
        return rs_error(RS_ERR_INVALID, "complex view has %d dims; its real view would exceed %d",
                        t->ndim, RS_MAX_DIMS);
    *out = *t;
    out->dtype = real;
    for (int d = 0; d < t->ndim; ++d) out->strides[d] = t->strides[d] * 2;
    out->sizes[t->ndim] = 2;
    out->strides[t->ndim] = 1;
    out->ndim = t->ndim + 1;
    return RS_OK;
}

void rs_tensor_ncdhw(const rs_tensor *t, int dims, int64_t sizes[5], int64_t strides[5]) {
    for (int d = 0; d < 5; ++d) sizes[d] = 1, strides[d] = 0;
    for (int d = 0; d < 2; ++d) sizes[d] = t->sizes[d], strides[d] = t->strides[d];
    for (int j = 0; j < dims; ++j) {
        sizes[5 - dims + j] = t->sizes[2 + j];
        strides[5 - dims + j] = t->strides[2 + j];
    }
}

rs_status rs_check_nc_view(const char *name, const char *what, const rs_tensor *t, int dims, rs_dtype dt,
                           int64_t spatial_max) {
    if (t->ndim != 2 + dims)
        return rs_error(RS_ERR_INVALID, "%s: %s must have %d dims (N, C, spatial), got %d", name, what, 2 + dims,
                        t->ndim);
    if (t->dtype != dt)
        return rs_error(RS_ERR_INVALID, "%s: %s is %s, expected %s", name, what, rs_dtype_name(t->dtype),
                        rs_dtype_name(dt));
    for (int d = 0; d < t->ndim; ++d) {
        if (t->sizes[d] < 0 || (d >= 2 && t->sizes[d] >= spatial_max))
            return rs_error(RS_ERR_INVALID, "%s: %s's size %lld in dim %d is out of range", name, what,
                            (long long)t->sizes[d], d);
        if (t->strides[d] < 0) return rs_error(RS_ERR_INVALID, "%s: %s has a negative stride", name, what);
    }
    return RS_OK;
}

/* ---- scratch buffers of one call (engine.h) */

rs_status rs_scratch_take(rs_scratch *sc, uint64_t bytes, uint64_t *address) {
    if (sc->n == RS_SCRATCH_MAX) return rs_error(RS_ERR_INVALID, "an engine call took more than %d scratch buffers",
                                                 RS_SCRATCH_MAX);
    rs_status st = rs_alloc(rs_stream_device(sc->s), bytes ? bytes : 8, sc->s, address);
    if (st == RS_OK) sc->at[sc->n++] = *address;
    return st;
}

void rs_scratch_give_back(rs_scratch *sc, uint64_t address) {
    for (int i = 0; i < sc->n; ++i)
        if (sc->at[i] == address) {
            rs_free(rs_stream_device(sc->s), address);
            sc->at[i] = sc->at[--sc->n];
            return;
        }
}

void rs_scratch_release(rs_scratch *sc) {
    for (int i = 0; i < sc->n; ++i) rs_free(rs_stream_device(sc->s), sc->at[i]);
    sc->n = 0;
}
