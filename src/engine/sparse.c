/* sparse.c: sparse COO tensors' device work (contract in russet/sparse.h) on
 * kernels/sparse.comp and other engines: coalescing is the entries' keys,
 * unique's stable sort and runs, the keys back to indices, and index_add's
 * in-order sum of the values; sparse + dense is the keys and index_add;
 * float values' duplicates are summed by a kernel over the sorted runs
 * instead (index_add would sort the entries again);
 * sparse @ dense finds each row's entries by binary search and sums them
 * in order, one writer an output element (COO's rows found by binary
 * search first; CSR brings them). */
#include <stdio.h>
#include <string.h>

#include "engine/engine.h"
#include "params/sparse.h"
#include "russet/sparse.h"

typedef struct sparse_push { RS_SPARSE_PUSH } sparse_push;

/* self[index[k]] += (alpha *) src[k] along dim 0, in k's order (index_add's
 * engine: deterministic, CPU's order) */
static rs_status index_add(rs_stream *s, const char *name, const rs_tensor *self, const rs_tensor *index,
                           const rs_tensor *src, int acc_opmath, int has_alpha, rs_scalar alpha) {
    rs_index_reduce p;
    memset(&p, 0, sizeof p);
    p.name = name;
    p.op = RS_IR_SUM;
    p.shared_index = 1;
    p.include_self = 1;
    p.acc_opmath = acc_opmath;
    p.has_alpha = has_alpha != 0;
    p.alpha = alpha;
    p.self = *self, p.index = *index, p.src = *src;
    return rs_index_reduce_run(s, &p);
}

static rs_status check_indices(const char *name, const rs_tensor *indices) {
    if (indices->dtype != RS_INT64 || indices->ndim != 2)
        return rs_error(RS_ERR_INVALID, "%s: indices must be int64 (sparse_dim, nnz)", name);
    if (indices->sizes[0] < 1 || indices->sizes[0] > RS_MAX_DIMS)
        return rs_error(RS_ERR_INVALID, "%s: sparse_dim %lld out of range", name, (long long)indices->sizes[0]);
    return RS_OK;
}

/* the parameter block: everything zero but the indices' layout and nnz */
static rs_status params_begin(rs_stream *s, const rs_tensor *indices, int64_t nnz, int64_t **q, uint64_t *addr) {
    void *host = NULL;
    rs_status st = rs_stream_arena(s, SP_SLOTS * sizeof(int64_t), &host, addr);
    if (st) return st;
    *q = host;
    memset(*q, 0, SP_SLOTS * sizeof(int64_t));
    (*q)[SP_NNZ] = nnz;
    (*q)[SP_SKIP] = -1;
    if (indices) {
        (*q)[SP_DIMS] = indices->sizes[0];
        (*q)[SP_IS] = indices->strides[0], (*q)[SP_IS + 1] = indices->strides[1];
    }
    return RS_OK;
}

static rs_status launch(rs_stream *s, int mode, rs_dtype dt, uint64_t items, const sparse_push *pc,
                        const rs_access *acc, int n_acc) {
    char defines[48];
    snprintf(defines, sizeof defines, "MODE=%d;DT=%d", mode, (int)dt);
    rs_kernel *k = NULL;
    rs_status st = rs_kernel_get(rs_stream_device(s), "sparse.comp", defines, &k);
    return st ? st : rs_launch(s, k, items, pc, sizeof *pc, acc, n_acc);
}

/* keys[k] = entry k's row-major position over the sparse sizes, leaving
 * out dim `skip` (-1: none; the softmax's pools leave out its dim) */
static rs_status keys_launch(rs_stream *s, const rs_tensor *indices, const int64_t *sizes, int64_t skip,
                             const rs_tensor *keys) {
    const int64_t nnz = indices->sizes[1];
    if (nnz == 0) return RS_OK;
    int64_t *q;
    uint64_t addr;
    rs_status st = params_begin(s, indices, nnz, &q, &addr);
    if (st) return st;
    q[SP_SKIP] = skip;
    for (int64_t d = 0; d < indices->sizes[0]; ++d) q[SP_SIZES + d] = sizes[d];
    sparse_push pc = {.indices = indices->address, .out_ = keys->address, .params = addr};
    rs_access acc[2] = {rs_tensor_access(indices, 0), rs_tensor_access(keys, 1)};
    return launch(s, SP_KEYS, RS_INT64, (uint64_t)nnz, &pc, acc, 2);
}

rs_status rs_sparse_keys(rs_stream *s, const rs_tensor *indices, const int64_t *sizes, const rs_tensor *keys) {
    static const char *name = "sparse_keys";
    if (!s || !indices || !sizes || !keys) return rs_error(RS_ERR_INVALID, "%s: NULL argument", name);
    rs_status st = check_indices(name, indices);
    if (st) return st;
    if (keys->dtype != RS_INT64 || rs_tensor_numel(keys) != indices->sizes[1] || !rs_tensor_is_contiguous(keys))
        return rs_error(RS_ERR_INVALID, "%s: keys must be int64 (nnz), contiguous", name);
    return keys_launch(s, indices, sizes, -1, keys);
}

/* frees c's scratch, unique's included where rs_unique_write has not run
 * (it frees its own; a buffer not taken is 0) */
static void coalesce_release(rs_stream *s, rs_sparse_coalesce *c) {
    rs_device *dev = rs_stream_device(s);
    uint64_t *bufs[5] = {&c->keys, &c->u.sorted, &c->u.perm, &c->u.starts, &c->u.offsets};
    for (int i = 0; i < 5; ++i)
        if (*bufs[i]) rs_free(dev, *bufs[i]), *bufs[i] = 0;
}

rs_status rs_sparse_coalesce_count(rs_stream *s, const rs_tensor *indices, const int64_t *sizes,
                                   rs_sparse_coalesce *c) {
    static const char *name = "sparse_coalesce";
    if (!s || !indices || !sizes || !c) return rs_error(RS_ERR_INVALID, "%s: NULL argument", name);
    memset(c, 0, sizeof *c);
    rs_status st = check_indices(name, indices);
    if (st) return st;
    const int64_t nnz = indices->sizes[1];
    c->sparse_dim = (int)indices->sizes[0];
    memcpy(c->sizes, sizes, sizeof(int64_t) * (size_t)c->sparse_dim);
    if ((st = rs_alloc(rs_stream_device(s), 8u * (uint64_t)(nnz ? nnz : 1), s, &c->keys))) return st;
    const rs_tensor keys = rs_tensor_vec(c->keys, RS_INT64, nnz);
    if (!(st = rs_sparse_keys(s, indices, sizes, &keys)) && !(st = rs_unique_count(s, &keys, 1, &c->u)))
        c->nnz = c->u.count;
    if (st) coalesce_release(s, c);
    return st;
}

/* the dtypes the run sums of coalesce take (index_add's SUM takes the rest) */
static int seg_sum_dtype(rs_stream *s, rs_dtype dt) {
    return dt == RS_FLOAT32 || dt == RS_FLOAT16 || dt == RS_BFLOAT16 ||
           (dt == RS_FLOAT64 && rs_stream_features(s)->has_fp64);
}

rs_status rs_sparse_coalesce_write(rs_stream *s, rs_sparse_coalesce *c, const rs_tensor *values,
                                   const rs_tensor *indices_out, const rs_tensor *values_out) {
    static const char *name = "sparse_coalesce";
    if (!s || !c) return rs_error(RS_ERR_INVALID, "%s: NULL argument", name);
    rs_device *dev = rs_stream_device(s);
    const int64_t n = rs_tensor_numel(&c->u.src), k = c->nnz;
    rs_status st = RS_OK;
    uint64_t distinct = 0, inverse = 0, first = 0;
    if (!indices_out || indices_out->dtype != RS_INT64 || indices_out->ndim != 2 || indices_out->sizes[0] != c->sparse_dim ||
        indices_out->sizes[1] != k || !rs_tensor_is_contiguous(indices_out)) {
        st = rs_error(RS_ERR_INVALID, "%s: indices_out must be int64 (sparse_dim, nnz), contiguous", name);
        goto done;
    }
    if (values && (!values_out || values->ndim < 1 || values->sizes[0] != n || values_out->ndim != values->ndim ||
                   values_out->sizes[0] != k || values_out->dtype != values->dtype ||
                   !rs_tensor_is_contiguous(values_out))) {
        st = rs_error(RS_ERR_INVALID, "%s: values (nnz, dense...) and values_out (its nnz, dense...) contiguous, "
                      "of one dtype", name);
        goto done;
    }
    if (n == 0) goto done;
    if ((st = rs_alloc(dev, 8u * (uint64_t)k, s, &distinct))) goto done;
    const rs_tensor dk = rs_tensor_vec(distinct, RS_INT64, k);
    rs_tensor inv = rs_tensor_vec(0, RS_INT64, n);
    /* the distinct keys, and for the values either each run's first sorted
     * position (float dtypes: a kernel sums each run of the sorted keys;
     * index_add would sort the entries again) or each entry's run (the
     * other dtypes: index_add) */
    const int runs = values && c->u.sort && rs_tensor_is_contiguous(values) && seg_sum_dtype(s, values->dtype);
    if (runs) {
        const rs_tensor mask = rs_tensor_vec(c->u.starts, RS_BOOL, n), sorted = rs_tensor_vec(c->u.sorted, RS_INT64, n);
        rs_tensor ft = rs_tensor_rows(0, RS_INT64, k, 1);
        if ((st = rs_alloc(dev, 8u * (uint64_t)k, s, &first))) goto done;
        ft.address = first;
        st = rs_nonzero_write(s, &mask, c->u.offsets, &ft, &sorted, &dk);
        c->u.offsets = 0; /* consumed */
    } else {
        if (values && (st = rs_alloc(dev, 8u * (uint64_t)n, s, &inverse))) goto done;
        inv.address = inverse;
        st = rs_unique_write(s, &c->u, &dk, values ? &inv : NULL, NULL);
    }
    if (st) goto done;
    int64_t *q;
    uint64_t addr;
    if ((st = params_begin(s, NULL, k, &q, &addr))) goto done;
    q[SP_DIMS] = c->sparse_dim;
    for (int d = 0; d < c->sparse_dim; ++d) q[SP_SIZES + d] = c->sizes[d];
    sparse_push pc = {.indices = distinct, .out_ = indices_out->address, .params = addr};
    rs_access acc[4] = {rs_tensor_access(&dk, 0), rs_tensor_access(indices_out, 1)};
    if ((st = launch(s, SP_INDICES, RS_INT64, (uint64_t)k, &pc, acc, 2)) || !values) goto done;
    if (!runs) {
        uint8_t zero[16] = {0};
        const rs_scalar one = {0};
        if (!(st = rs_fill(s, values_out, zero))) st = index_add(s, "coalesce", values_out, &inv, values, 1, 0, one);
        goto done;
    }
    const int64_t D = rs_tensor_numel(values) / n;
    if (D == 0 || (st = params_begin(s, NULL, n, &q, &addr))) goto done;
    q[SP_M] = k, q[SP_N] = D;
    sparse_push ps = {.indices = c->u.perm, .values = values->address, .crow = first, .out_ = values_out->address,
                      .params = addr};
    const rs_tensor perm = rs_tensor_vec(c->u.perm, RS_INT64, n), fv = rs_tensor_vec(first, RS_INT64, k);
    acc[0] = rs_tensor_access(&perm, 0), acc[1] = rs_tensor_access(&fv, 0);
    acc[2] = rs_tensor_access(values, 0), acc[3] = rs_tensor_access(values_out, 1);
    st = launch(s, SP_SEGSUM, values->dtype, (uint64_t)(k * D), &ps, acc, 4);
done:
    if (distinct) rs_free(dev, distinct);
    if (inverse) rs_free(dev, inverse);
    if (first) rs_free(dev, first);
    coalesce_release(s, c);
    return st;
}

void rs_sparse_coalesce_release(rs_stream *s, rs_sparse_coalesce *c) {
    if (s && c) coalesce_release(s, c);
}

rs_status rs_sparse_add_dense(rs_stream *s, const rs_tensor *indices, const rs_tensor *values, int has_alpha,
                              rs_scalar alpha, const rs_tensor *dense) {
    static const char *name = "sparse_add_dense";
    if (!s || !indices || !values || !dense) return rs_error(RS_ERR_INVALID, "%s: NULL argument", name);
    rs_status st = check_indices(name, indices);
    if (st) return st;
    const int sd = (int)indices->sizes[0];
    const int64_t nnz = indices->sizes[1];
    if (dense->ndim < sd || values->ndim != dense->ndim - sd + 1 || values->sizes[0] != nnz)
        return rs_error(RS_ERR_INVALID, "%s: values must be (nnz, dense sizes...)", name);
    /* dense as (prod of the sparse sizes, dense sizes...) */
    rs_tensor flat = *dense;
    int64_t rows = 1;
    for (int d = 0; d < sd; ++d) {
        rows *= dense->sizes[d];
        if (d + 1 < sd && dense->sizes[d + 1] != 1 && dense->strides[d] != dense->strides[d + 1] * dense->sizes[d + 1])
            return rs_error(RS_ERR_INVALID, "%s: the sparse dims of dense must be contiguous among themselves", name);
    }
    flat.ndim = dense->ndim - sd + 1;
    flat.sizes[0] = rows;
    flat.strides[0] = dense->strides[sd - 1];
    for (int d = 1; d < flat.ndim; ++d) {
        flat.sizes[d] = dense->sizes[sd - 1 + d];
        flat.strides[d] = dense->strides[sd - 1 + d];
        if (flat.sizes[d] != values->sizes[d])
            return rs_error(RS_ERR_INVALID, "%s: values' dense sizes differ from dense's", name);
    }
    if (nnz == 0 || rows == 0) return RS_OK;
    rs_scratch sc = {.s = s};
    uint64_t kaddr = 0;
    if ((st = rs_scratch_take(&sc, 8u * (uint64_t)nnz, &kaddr))) return st;
    const rs_tensor keys = rs_tensor_vec(kaddr, RS_INT64, nnz);
    int64_t sizes[RS_MAX_DIMS];
    memcpy(sizes, dense->sizes, sizeof(int64_t) * (size_t)sd);
    if (!(st = rs_sparse_keys(s, indices, sizes, &keys))) st = index_add(s, "add", &flat, &keys, values, 0, has_alpha, alpha);
    rs_scratch_release(&sc);
    return st;
}

/* the products' dtypes */
static rs_status check_float(rs_stream *s, const char *name, rs_dtype dt) {
    if (dt != RS_FLOAT32 && dt != RS_FLOAT16 && dt != RS_BFLOAT16 && dt != RS_FLOAT64)
        return rs_error(RS_ERR_UNSUPPORTED, "%s: no kernel for %s", name, rs_dtype_name(dt));
    if (dt == RS_FLOAT64 && !rs_stream_features(s)->has_fp64)
        return rs_error(RS_ERR_UNSUPPORTED, "%s: float64 needs float64 arithmetic, which this device (or profile) "
                        "lacks", name);
    return RS_OK;
}

static int is_int64_vec(const rs_tensor *t) { return t->dtype == RS_INT64 && t->ndim == 1; }

rs_status rs_sparse_rows_to_crow(rs_stream *s, const rs_tensor *rows, const rs_tensor *crow) {
    static const char *name = "sparse_rows_to_crow";
    if (!s || !rows || !crow) return rs_error(RS_ERR_INVALID, "%s: NULL argument", name);
    if (!is_int64_vec(rows) || !is_int64_vec(crow) || crow->sizes[0] < 1 || !rs_tensor_is_contiguous(crow))
        return rs_error(RS_ERR_INVALID, "%s: rows (int64, nnz) and crow (int64, M + 1, contiguous)", name);
    const int64_t nnz = rows->sizes[0], M = crow->sizes[0] - 1;
    int64_t *q;
    uint64_t addr;
    rs_status st = params_begin(s, NULL, nnz, &q, &addr);
    if (st) return st;
    q[SP_M] = M, q[SP_IS] = 0, q[SP_IS + 1] = rows->strides[0];
    sparse_push pc = {.indices = rows->address, .out_ = crow->address, .params = addr};
    rs_access acc[2] = {rs_tensor_access(rows, 0), rs_tensor_access(crow, 1)};
    return launch(s, SP_CROW, RS_INT64, (uint64_t)(M + 1), &pc, acc, 2);
}

rs_status rs_sparse_match(rs_stream *s, const rs_tensor *sorted, const rs_tensor *keys, const rs_tensor *pos,
                          const rs_tensor *values, const rs_tensor *out) {
    static const char *name = "sparse_match";
    if (!s || !sorted || !keys || (!pos && !out) || (!values) != (!out))
        return rs_error(RS_ERR_INVALID, "%s: sorted, keys, and pos or values with out", name);
    if (!is_int64_vec(sorted) || !rs_tensor_is_contiguous(sorted) || !is_int64_vec(keys))
        return rs_error(RS_ERR_INVALID, "%s: sorted (int64, n, contiguous) and keys (int64, m)", name);
    const int64_t n = sorted->sizes[0], m = keys->sizes[0];
    if (pos && (!is_int64_vec(pos) || !rs_tensor_is_contiguous(pos) || pos->sizes[0] != m))
        return rs_error(RS_ERR_INVALID, "%s: pos must be int64 (%lld), contiguous", name, (long long)m);
    int64_t row_bytes = 0;
    if (values) {
        int same = values->dtype == out->dtype && values->ndim == out->ndim && values->ndim >= 1 &&
                   values->sizes[0] == n && out->sizes[0] == m && rs_tensor_is_contiguous(values) &&
                   rs_tensor_is_contiguous(out);
        row_bytes = (int64_t)rs_dtype_size(values->dtype);
        for (int d = 1; same && d < values->ndim; ++d) {
            same = values->sizes[d] == out->sizes[d];
            row_bytes *= values->sizes[d];
        }
        if (!same)
            return rs_error(RS_ERR_INVALID, "%s: values (n, ...) and out (m, ...) of one dtype and row shape, "
                            "contiguous", name);
    }
    if (m == 0) return RS_OK;
    int64_t *q;
    uint64_t addr;
    rs_status st = params_begin(s, NULL, m, &q, &addr);
    if (st) return st;
    q[SP_N] = n, q[SP_IS] = 0, q[SP_IS + 1] = keys->strides[0], q[SP_DIM] = row_bytes;
    sparse_push pc = {.indices = keys->address, .self_ = sorted->address, .out_ = pos ? pos->address : 0,
                      .values = values ? values->address : 0, .dense = out ? out->address : 0, .params = addr};
    rs_access acc[5];
    int na = 0;
    acc[na++] = rs_tensor_access(sorted, 0);
    acc[na++] = rs_tensor_access(keys, 0);
    if (pos) acc[na++] = rs_tensor_access(pos, 1);
    if (values) acc[na++] = rs_tensor_access(values, 0), acc[na++] = rs_tensor_access(out, 1);
    return launch(s, SP_MATCH, RS_INT64, (uint64_t)m, &pc, acc, na);
}

rs_status rs_sparse_crow_to_rows(rs_stream *s, const rs_tensor *crow, const rs_tensor *rows) {
    static const char *name = "sparse_crow_to_rows";
    if (!s || !rows || !crow) return rs_error(RS_ERR_INVALID, "%s: NULL argument", name);
    if (!is_int64_vec(rows) || !is_int64_vec(crow) || crow->sizes[0] < 1 || !rs_tensor_is_contiguous(crow) ||
        !rs_tensor_is_contiguous(rows))
        return rs_error(RS_ERR_INVALID, "%s: crow (int64, M + 1) and rows (int64, nnz), contiguous", name);
    const int64_t nnz = rows->sizes[0];
    if (nnz == 0) return RS_OK;
    int64_t *q;
    uint64_t addr;
    rs_status st = params_begin(s, NULL, nnz, &q, &addr);
    if (st) return st;
    q[SP_M] = crow->sizes[0] - 1;
    sparse_push pc = {.crow = crow->address, .out_ = rows->address, .params = addr};
    rs_access acc[2] = {rs_tensor_access(crow, 0), rs_tensor_access(rows, 1)};
    return launch(s, SP_ROWS, RS_INT64, (uint64_t)nnz, &pc, acc, 2);
}

rs_status rs_sparse_mm_run(rs_stream *s, const rs_sparse_mm *p) {
    static const char *name = "sparse_mm";
    if (!s || !p) return rs_error(RS_ERR_INVALID, "%s: NULL argument", name);
    const int csr = p->crow != NULL;
    rs_status st = csr ? RS_OK : check_indices(name, &p->indices);
    if (st) return st;
    if (csr && (!is_int64_vec(&p->indices) || !is_int64_vec(p->crow) || !rs_tensor_is_contiguous(p->crow) ||
                p->crow->sizes[0] != p->out.sizes[0] + 1))
        return rs_error(RS_ERR_INVALID, "%s: CSR needs crow (int64, M + 1, contiguous) and column indices (int64, "
                        "nnz)", name);
    const rs_dtype dt = p->values.dtype;
    if ((st = check_float(s, name, dt))) return st;
    const int64_t nnz = csr ? p->indices.sizes[0] : p->indices.sizes[1];
    const int64_t M = p->out.sizes[0], N = p->out.sizes[1];
    const int with_t = p->beta != 0.0;
    if ((!csr && p->indices.sizes[0] != 2) || p->values.ndim != 1 || p->values.sizes[0] != nnz ||
        p->dense.ndim != 2 || p->out.ndim != 2 || p->dense.sizes[1] != N || p->dense.dtype != dt ||
        p->out.dtype != dt ||
        (with_t && (!p->t || p->t->ndim != 2 || p->t->sizes[0] != M || p->t->sizes[1] != N || p->t->dtype != dt)))
        return rs_error(RS_ERR_INVALID, "%s: expected indices (2, nnz) or CSR's, values (nnz), D (K, N), out and t "
                        "(M, N) of one dtype", name);
    if (M * N == 0) return RS_OK;
    rs_scratch sc = {.s = s};
    rs_tensor crow_t;
    if (csr) {
        crow_t = *p->crow;
    } else { /* COO: the rows' starts first */
        uint64_t crow = 0;
        if ((st = rs_scratch_take(&sc, 8u * (uint64_t)(M + 1), &crow))) return st;
        crow_t = rs_tensor_vec(crow, RS_INT64, M + 1);
        rs_tensor rows = p->indices;
        rows.ndim = 1, rows.sizes[0] = nnz, rows.strides[0] = p->indices.strides[1];
        if ((st = rs_sparse_rows_to_crow(s, &rows, &crow_t))) goto done;
    }
    int64_t *q;
    uint64_t addr;
    if ((st = params_begin(s, csr ? NULL : &p->indices, nnz, &q, &addr))) goto done;
    if (csr) q[SP_IS] = 0, q[SP_IS + 1] = p->indices.strides[0]; /* indices[1][k] = col[k] */
    q[SP_M] = M, q[SP_N] = N, q[SP_VS] = p->values.strides[0];
    q[SP_DS] = p->dense.strides[0], q[SP_DS + 1] = p->dense.strides[1];
    q[SP_OS] = p->out.strides[0], q[SP_OS + 1] = p->out.strides[1];
    if (with_t) q[SP_TS] = p->t->strides[0], q[SP_TS + 1] = p->t->strides[1], q[SP_FLAGS] = SP_F_BETA;
    q[SP_ALPHA] = rs_opmath_slot_bits(dt, p->alpha);
    q[SP_BETA] = rs_opmath_slot_bits(dt, p->beta);
    sparse_push mm = {.indices = p->indices.address, .values = p->values.address, .dense = p->dense.address,
                      .self_ = with_t ? p->t->address : 0, .crow = crow_t.address, .out_ = p->out.address,
                      .params = addr};
    rs_access acc[6];
    int na = 0;
    acc[na++] = rs_tensor_access(&p->indices, 0);
    acc[na++] = rs_tensor_access(&p->values, 0);
    acc[na++] = rs_tensor_access(&p->dense, 0);
    acc[na++] = rs_tensor_access(&crow_t, 0);
    if (with_t) acc[na++] = rs_tensor_access(p->t, 0);
    acc[na++] = rs_tensor_access(&p->out, 1);
    st = launch(s, SP_SPMM, dt, (uint64_t)(M * N), &mm, acc, na);
done:
    rs_scratch_release(&sc);
    return st;
}

rs_status rs_sparse_sddmm_run(rs_stream *s, const rs_sparse_sddmm *p) {
    static const char *name = "sparse_sampled_addmm";
    if (!s || !p) return rs_error(RS_ERR_INVALID, "%s: NULL argument", name);
    const rs_dtype dt = p->out.dtype;
    rs_status st = check_float(s, name, dt);
    if (st) return st;
    const int64_t nnz = p->col.sizes[0], M = p->a.sizes[0], K = p->a.sizes[1], N = p->b.sizes[1];
    const int with_t = p->beta != 0.0;
    if (!is_int64_vec(&p->crow) || !rs_tensor_is_contiguous(&p->crow) || p->crow.sizes[0] != M + 1 ||
        !is_int64_vec(&p->col) || p->a.ndim != 2 || p->b.ndim != 2 || p->b.sizes[0] != K || p->out.ndim != 1 ||
        p->out.sizes[0] != nnz || p->a.dtype != dt || p->b.dtype != dt ||
        (with_t && (p->values.ndim != 1 || p->values.sizes[0] != nnz || p->values.dtype != dt)))
        return rs_error(RS_ERR_INVALID, "%s: expected crow (int64, M + 1), col (int64, nnz), A (M, K), B (K, N), "
                        "values and out (nnz) of one dtype", name);
    (void)N;
    if (nnz == 0) return RS_OK;
    int64_t *q;
    uint64_t addr;
    if ((st = params_begin(s, NULL, nnz, &q, &addr))) return st;
    q[SP_IS] = 0, q[SP_IS + 1] = p->col.strides[0]; /* indices[1][k] = col[k] */
    q[SP_M] = M, q[SP_K] = K;
    q[SP_DS] = p->a.strides[0], q[SP_DS + 1] = p->a.strides[1];
    q[SP_TS] = p->b.strides[0], q[SP_TS + 1] = p->b.strides[1];
    q[SP_OS] = p->out.strides[0];
    if (with_t) q[SP_VS] = p->values.strides[0], q[SP_FLAGS] = SP_F_BETA;
    q[SP_ALPHA] = rs_opmath_slot_bits(dt, p->alpha);
    q[SP_BETA] = rs_opmath_slot_bits(dt, p->beta);
    sparse_push pc = {.indices = p->col.address, .values = with_t ? p->values.address : 0, .dense = p->a.address,
                      .self_ = p->b.address, .crow = p->crow.address, .out_ = p->out.address, .params = addr};
    rs_access acc[6];
    int na = 0;
    acc[na++] = rs_tensor_access(&p->crow, 0);
    acc[na++] = rs_tensor_access(&p->col, 0);
    acc[na++] = rs_tensor_access(&p->a, 0);
    acc[na++] = rs_tensor_access(&p->b, 0);
    if (with_t) acc[na++] = rs_tensor_access(&p->values, 0);
    acc[na++] = rs_tensor_access(&p->out, 1);
    return launch(s, SP_SDDMM, dt, (uint64_t)nnz, &pc, acc, na);
}

rs_status rs_sparse_softmax_run(rs_stream *s, const rs_sparse_softmax *p) {
    static const char *name = "sparse_softmax";
    if (!s || !p || !p->sizes) return rs_error(RS_ERR_INVALID, "%s: NULL argument", name);
    rs_status st = check_indices(name, &p->indices);
    if (st) return st;
    const rs_dtype dt = p->values.dtype;
    if (dt != RS_FLOAT32 && dt != RS_FLOAT16 && dt != RS_BFLOAT16)
        return rs_error(RS_ERR_UNSUPPORTED, "%s: no kernel for %s", name, rs_dtype_name(dt));
    const int64_t nnz = p->indices.sizes[1], sd = p->indices.sizes[0];
    const int64_t D = p->values.ndim == 2 ? p->values.sizes[1] : -1;
    if (p->dim < 0 || p->dim >= sd || p->values.ndim != 2 || p->values.sizes[0] != nnz ||
        !rs_tensor_is_contiguous(&p->values) || p->out.dtype != dt || p->out.ndim != 2 ||
        p->out.sizes[0] != nnz || p->out.sizes[1] != D || !rs_tensor_is_contiguous(&p->out) ||
        (p->backward && (p->grad.dtype != dt || p->grad.ndim != 2 || p->grad.sizes[0] != nnz ||
                         p->grad.sizes[1] != D || !rs_tensor_is_contiguous(&p->grad))))
        return rs_error(RS_ERR_INVALID, "%s: values, grad and out must be contiguous (nnz, D) of one dtype, dim a "
                        "sparse dim", name);
    if (nnz == 0 || D == 0) return RS_OK;
    rs_scratch sc = {.s = s};
    uint64_t keys = 0, sorted = 0, perm = 0, starts = 0;
    if ((st = rs_scratch_take(&sc, 8u * (uint64_t)nnz, &keys)) || (st = rs_scratch_take(&sc, 8u * (uint64_t)nnz, &sorted)) ||
        (st = rs_scratch_take(&sc, 8u * (uint64_t)nnz, &perm)) || (st = rs_scratch_take(&sc, (uint64_t)nnz, &starts)))
        goto done;
    /* each entry's pool key (its indices but dim's), sorted stably: the
     * pools' entries in entry order, each pool a run */
    const rs_tensor kt = rs_tensor_vec(keys, RS_INT64, nnz);
    if ((st = keys_launch(s, &p->indices, p->sizes, p->dim, &kt))) goto done;
    const rs_tensor row = rs_tensor_rows(keys, RS_INT64, 1, nnz), srow = rs_tensor_rows(sorted, RS_INT64, 1, nnz);
    const rs_tensor prow = rs_tensor_rows(perm, RS_INT64, 1, nnz);
    if ((st = rs_sort(s, &row, 0, nnz, &srow, &prow))) goto done;
    const rs_tensor svec = rs_tensor_vec(sorted, RS_INT64, nnz), starts_t = rs_tensor_vec(starts, RS_BOOL, nnz);
    if ((st = rs_run_starts(s, &svec, &starts_t))) goto done;

    int64_t *q;
    uint64_t addr;
    if ((st = params_begin(s, NULL, nnz, &q, &addr))) goto done;
    q[SP_N] = D;
    q[SP_FLAGS] = (p->log ? SP_F_LOG : 0) | (p->backward ? SP_F_BACKWARD : 0);
    sparse_push pc = {.indices = perm, .values = p->values.address, .dense = p->backward ? p->grad.address : 0,
                      .crow = starts, .out_ = p->out.address, .params = addr};
    const rs_tensor pvec = rs_tensor_vec(perm, RS_INT64, nnz);
    rs_access acc[5];
    int na = 0;
    acc[na++] = rs_tensor_access(&pvec, 0);
    acc[na++] = rs_tensor_access(&starts_t, 0);
    acc[na++] = rs_tensor_access(&p->values, 0);
    if (p->backward) acc[na++] = rs_tensor_access(&p->grad, 0);
    acc[na++] = rs_tensor_access(&p->out, 1);
    st = launch(s, SP_SOFTMAX, dt, (uint64_t)(nnz * D), &pc, acc, na);
done:
    rs_scratch_release(&sc);
    return st;
}

void rs_sparse_index_select_release(rs_stream *s, rs_sparse_select *sel) {
    if (!s || !sel) return;
    rs_device *dev = rs_stream_device(s);
    uint64_t *bufs[3] = {&sel->sorted, &sel->perm, &sel->ends};
    for (int i = 0; i < 3; ++i)
        if (*bufs[i]) rs_free(dev, *bufs[i]), *bufs[i] = 0;
}

/* the parameters both select modes read */
static rs_status select_params(rs_stream *s, const rs_sparse_select *sel, int64_t total, uint64_t *addr) {
    int64_t *q;
    rs_status st = params_begin(s, &sel->indices, sel->indices.sizes[1], &q, addr);
    if (st) return st;
    q[SP_M] = sel->n, q[SP_DIM] = sel->dim, q[SP_N] = total;
    return RS_OK;
}

rs_status rs_sparse_index_select_count(rs_stream *s, const rs_tensor *indices, int dim, const rs_tensor *index,
                                       rs_sparse_select *sel) {
    static const char *name = "sparse_index_select";
    if (!s || !indices || !index || !sel) return rs_error(RS_ERR_INVALID, "%s: NULL argument", name);
    memset(sel, 0, sizeof *sel);
    rs_status st = check_indices(name, indices);
    if (st) return st;
    if (dim < 0 || dim >= indices->sizes[0] || !is_int64_vec(index) || !rs_tensor_is_contiguous(index))
        return rs_error(RS_ERR_INVALID, "%s: dim must be a sparse dim and index int64 (n), contiguous", name);
    const int64_t nnz = indices->sizes[1], n = index->sizes[0];
    sel->indices = *indices, sel->dim = dim, sel->n = n;
    if (nnz == 0 || n == 0) return RS_OK;
    rs_device *dev = rs_stream_device(s);
    uint64_t addr;
    if ((st = rs_alloc(dev, 8u * (uint64_t)n, s, &sel->sorted)) || (st = rs_alloc(dev, 8u * (uint64_t)n, s, &sel->perm)) ||
        (st = rs_alloc(dev, 8u * (uint64_t)nnz, s, &sel->ends)))
        goto fail;
    /* the index sorted stably (its positions in order within equal values) */
    const rs_tensor row = rs_tensor_rows(index->address, RS_INT64, 1, n);
    const rs_tensor srow = rs_tensor_rows(sel->sorted, RS_INT64, 1, n), prow = rs_tensor_rows(sel->perm, RS_INT64, 1, n);
    if ((st = rs_sort(s, &row, 0, n, &srow, &prow))) goto fail;
    /* each entry's copies, then their running sum */
    rs_scratch sc = {.s = s};
    uint64_t cbuf = 0;
    if ((st = rs_scratch_take(&sc, 8u * (uint64_t)nnz, &cbuf))) goto fail;
    const rs_tensor counts = rs_tensor_rows(cbuf, RS_INT64, 1, nnz), ends = rs_tensor_rows(sel->ends, RS_INT64, 1, nnz);
    const rs_tensor sorted = rs_tensor_vec(sel->sorted, RS_INT64, n);
    if (!(st = select_params(s, sel, 0, &addr))) {
        sparse_push pc = {.indices = indices->address, .self_ = sel->sorted, .out_ = cbuf, .params = addr};
        rs_access acc[3] = {rs_tensor_access(indices, 0), rs_tensor_access(&sorted, 0), rs_tensor_access(&counts, 1)};
        if (!(st = launch(s, SP_SEL_COUNT, RS_INT64, (uint64_t)nnz, &pc, acc, 3)))
            st = rs_scan(s, RS_SCAN_SUM, &counts, &ends, NULL);
    }
    rs_scratch_release(&sc);
    if (st) goto fail;
    if ((st = rs_memcpy_dtoh(s, &sel->nnz, sel->ends + 8u * (uint64_t)(nnz - 1), 8))) goto fail;
    return RS_OK;
fail:
    rs_sparse_index_select_release(s, sel);
    return st;
}

rs_status rs_sparse_index_select_write(rs_stream *s, rs_sparse_select *sel, const rs_tensor *indices_out,
                                       const rs_tensor *source) {
    static const char *name = "sparse_index_select";
    if (!s || !sel) return rs_error(RS_ERR_INVALID, "%s: NULL argument", name);
    rs_status st = RS_OK;
    const int64_t nnz = sel->indices.sizes[1], total = sel->nnz;
    if (!indices_out || !source || indices_out->dtype != RS_INT64 || indices_out->ndim != 2 ||
        indices_out->sizes[0] != sel->indices.sizes[0] || indices_out->sizes[1] != total ||
        !rs_tensor_is_contiguous(indices_out) || !is_int64_vec(source) || source->sizes[0] != total ||
        !rs_tensor_is_contiguous(source)) {
        st = rs_error(RS_ERR_INVALID, "%s: indices_out (int64, (sparse_dim, nnz)) and source (int64, nnz) must be "
                      "contiguous", name);
        goto done;
    }
    if (total == 0) goto done;
    uint64_t addr;
    if ((st = select_params(s, sel, total, &addr))) goto done;
    const rs_tensor sorted = rs_tensor_vec(sel->sorted, RS_INT64, sel->n), perm = rs_tensor_vec(sel->perm, RS_INT64, sel->n);
    const rs_tensor ends = rs_tensor_vec(sel->ends, RS_INT64, nnz);
    sparse_push pc = {.indices = sel->indices.address, .values = source->address, .dense = sel->perm,
                      .self_ = sel->sorted, .crow = sel->ends, .out_ = indices_out->address, .params = addr};
    rs_access acc[6] = {rs_tensor_access(&sel->indices, 0), rs_tensor_access(&sorted, 0), rs_tensor_access(&perm, 0),
                        rs_tensor_access(&ends, 0), rs_tensor_access(indices_out, 1), rs_tensor_access(source, 1)};
    st = launch(s, SP_SEL_WRITE, RS_INT64, (uint64_t)nnz, &pc, acc, 6);
done:
    rs_sparse_index_select_release(s, sel);
    return st;
}
