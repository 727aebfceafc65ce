/* unique.c: unique (sorted) and unique_consecutive of a flattened tensor,
 * and of the rows of a matrix (unique with a dim; the contracts are
 * rs_unique and rs_unique_rows in russet/scan_sort.h): a stable sort (rows:
 * one by each column, last to first), the run starts, nonzero's count and
 * write, a scan for each element's run and differences of the starts for
 * the counts. One wait: the number of runs. */
#include <string.h>

#include "engine/engine.h"

/* frees every scratch buffer of u (a buffer not taken is 0) */
static void unique_release(rs_stream *s, rs_unique *u) {
    rs_device *dev = rs_stream_device(s);
    uint64_t *bufs[4] = {&u->sorted, &u->perm, &u->starts, &u->offsets};
    for (int i = 0; i < 4; ++i)
        if (*bufs[i]) rs_free(dev, *bufs[i]), *bufs[i] = 0;
}

rs_status rs_unique_count(rs_stream *s, const rs_tensor *src, int sort, rs_unique *u) {
    if (!s || !src || !u) return rs_error(RS_ERR_INVALID, "rs_unique_count: NULL argument");
    memset(u, 0, sizeof *u);
    if (!rs_tensor_is_contiguous(src)) return rs_error(RS_ERR_INVALID, "rs_unique_count: src must be contiguous");
    int64_t n = rs_tensor_numel(src);
    u->src = rs_tensor_vec(src->address, src->dtype, n);
    u->sort = sort != 0;
    if (n == 0) return RS_OK;
    rs_device *dev = rs_stream_device(s);
    rs_status st;
    rs_tensor seq = u->src; /* the sequence whose runs count: src, or sorted */
    if (sort) {
        if ((st = rs_alloc(dev, (uint64_t)n * rs_dtype_size(src->dtype), s, &u->sorted)) != RS_OK) goto fail;
        if ((st = rs_alloc(dev, (uint64_t)n * 8u, s, &u->perm)) != RS_OK) goto fail;
        rs_tensor row = rs_tensor_rows(src->address, src->dtype, 1, n);
        rs_tensor vals = rs_tensor_rows(u->sorted, src->dtype, 1, n), perm = rs_tensor_rows(u->perm, RS_INT64, 1, n);
        if ((st = rs_sort(s, &row, 0, n, &vals, &perm)) != RS_OK) goto fail;
        seq.address = u->sorted;
    }
    /* starts[i]: element i of the sequence begins a run */
    if ((st = rs_alloc(dev, (uint64_t)n, s, &u->starts)) != RS_OK) goto fail;
    rs_tensor mask = rs_tensor_vec(u->starts, RS_BOOL, n); /* 1-D: nonzero's coordinates one column */
    if ((st = rs_run_starts(s, &seq, &mask)) != RS_OK) goto fail;
    if ((st = rs_nonzero_count(s, &mask, &u->offsets, &u->count)) != RS_OK) goto fail;
    return RS_OK;
fail:
    unique_release(s, u);
    return st;
}

/* out = a + alpha b over int64 views (b a scalar when bv is NULL) */
static rs_status add_int64(rs_stream *s, const char *name, const rs_tensor *out, const rs_tensor *a,
                           const rs_tensor *bv, int64_t b, int64_t alpha, int a_scalar, int64_t a_value) {
    rs_pointwise p;
    memset(&p, 0, sizeof p);
    p.name = name;
    p.op = RS_PW_ADD;
    p.common = p.compute = p.result = RS_INT64;
    p.ninputs = 2;
    p.out = *out;
    p.in[0] = a_scalar ? *out : *a;
    p.is_scalar[0] = a_scalar;
    p.scalar[0][0].i = a_value;
    p.in[1] = bv ? *bv : *out;
    p.is_scalar[1] = bv == NULL;
    p.scalar[1][0].i = b;
    p.s[0][0].i = alpha;
    p.nscalars = 1;
    return rs_pointwise_run(s, &p);
}

static int flat_int64(const rs_tensor *t, int64_t n) {
    return t->dtype == RS_INT64 && rs_tensor_numel(t) == n && rs_tensor_is_contiguous(t);
}

/* unique's inverse (each element's run, moved back through the sort's
 * permutation) and counts (each run's length) from the run-start mask and
 * each run's first position `first` (int64 [k]); *runs: scratch it takes */
static rs_status write_runs(rs_stream *s, rs_unique *u, int64_t n, int64_t k, uint64_t first, uint64_t *runs,
                            const rs_tensor *inverse, const rs_tensor *counts) {
    rs_device *dev = rs_stream_device(s);
    rs_status st = RS_OK;
    rs_tensor mask_row = rs_tensor_rows(u->starts, RS_BOOL, 1, n);
    if (inverse) {
        /* an element's run: the starts up to it, less one; then (sorted)
         * moved to the element's place before the sort */
        rs_tensor row = rs_tensor_rows(inverse->address, RS_INT64, 1, n);
        if (u->sort) {
            if ((st = rs_alloc(dev, (uint64_t)n * 8u, s, runs)) != RS_OK) return st;
            row.address = *runs;
        }
        if ((st = rs_scan(s, RS_SCAN_SUM, &mask_row, &row, NULL)) != RS_OK) return st;
        if ((st = add_int64(s, "unique_inverse", &row, &row, NULL, 1, -1, 0, 0)) != RS_OK) return st;
        if (u->sort) {
            rs_tensor perm = rs_tensor_rows(u->perm, RS_INT64, 1, n), inv = rs_tensor_rows(inverse->address, RS_INT64, 1, n);
            if ((st = rs_permute_scatter(s, &row, &perm, &inv)) != RS_OK) return st;
        }
    }
    if (counts) {
        /* counts[i] = first[i + 1] - first[i]; the last run ends at n */
        rs_tensor head = rs_tensor_rows(first, RS_INT64, 1, k - 1), next = head;
        rs_tensor c = rs_tensor_rows(counts->address, RS_INT64, 1, k - 1);
        next.address = first + 8u;
        if (k > 1 && (st = add_int64(s, "unique_counts", &c, &next, &head, 0, -1, 0, 0)) != RS_OK) return st;
        rs_tensor last = rs_tensor_rows(first + 8u * (uint64_t)(k - 1), RS_INT64, 1, 1);
        rs_tensor c_last = rs_tensor_rows(counts->address + 8u * (uint64_t)(k - 1), RS_INT64, 1, 1);
        if ((st = add_int64(s, "unique_counts", &c_last, NULL, &last, 0, -1, 1, n)) != RS_OK) return st;
    }
    return RS_OK;
}

static rs_status gather_rows(rs_stream *s, const rs_tensor *src, uint64_t idx, int64_t n, const rs_tensor *rows);

/* the writes' common part, after their checks (st: theirs): each run's
 * first position (its element, or row, of the sequence) by nonzero_write,
 * which gathers a flat unique's values in the same pass; a unique of rows
 * gathers its rows after; then inverse and counts. Frees u's buffers
 * whatever happens. */
static rs_status write_tail(rs_stream *s, rs_unique *u, rs_status st, int64_t n, int rows, const rs_tensor *values,
                            const rs_tensor *inverse, const rs_tensor *counts) {
    rs_device *dev = rs_stream_device(s);
    const int64_t k = u->count;
    uint64_t first = 0, runs = 0; /* int64 [k]: each run's first position; [n]: each element's run */
    if (st != RS_OK || n == 0) goto done;
    rs_tensor seq = u->src;
    if (u->sort) seq.address = u->sorted;
    const rs_tensor mask = rs_tensor_vec(u->starts, RS_BOOL, n);
    rs_tensor at = rs_tensor_rows(0, RS_INT64, k, 1); /* nonzero's coordinates: [k, 1] */
    if ((rows || counts) && (st = rs_alloc(dev, (uint64_t)k * 8u, s, &first)) != RS_OK) goto done;
    at.address = first;
    st = rs_nonzero_write(s, &mask, u->offsets, first ? &at : NULL, rows ? NULL : &seq, rows ? NULL : values);
    u->offsets = 0; /* consumed */
    if (st != RS_OK) goto done;
    if (rows && (st = gather_rows(s, &seq, first, k, values)) != RS_OK) goto done;
    st = write_runs(s, u, n, k, first, &runs, inverse, counts);
done:
    if (u->offsets) rs_free(dev, u->offsets), u->offsets = 0; /* an early error: nonzero_write did not run */
    if (first) rs_free(dev, first);
    if (runs) rs_free(dev, runs);
    unique_release(s, u);
    return st;
}

rs_status rs_unique_write(rs_stream *s, rs_unique *u, const rs_tensor *values, const rs_tensor *inverse,
                          const rs_tensor *counts) {
    if (!s || !u) return rs_error(RS_ERR_INVALID, "rs_unique_write: NULL argument");
    const int64_t n = rs_tensor_numel(&u->src), k = u->count;
    rs_status st = RS_OK;
    if (n > 0 && (!values || values->dtype != u->src.dtype || rs_tensor_numel(values) != k ||
                  !rs_tensor_is_contiguous(values) || (inverse && !flat_int64(inverse, n)) ||
                  (counts && !flat_int64(counts, k))))
        st = rs_error(RS_ERR_INVALID, "rs_unique_write: values (src's dtype, [count]), inverse (int64, src's numel) "
                      "and counts (int64, [count]) must be contiguous");
    return write_tail(s, u, st, n, 0, values, inverse, counts);
}

/* ---- unique rows (unique with a dim) */

/* rows[i] = src's row idx[i] ([n, m] views; idx int64 [n]): a gather along
 * dim 0 with idx broadcast over the columns */
static rs_status gather_rows(rs_stream *s, const rs_tensor *src, uint64_t idx, int64_t n, const rs_tensor *rows) {
    rs_gather g;
    memset(&g, 0, sizeof g);
    g.mode = RS_GATHER;
    g.dim = 0;
    g.self = *src;
    g.index = rs_tensor_rows(idx, RS_INT64, n, src->sizes[1]);
    g.index.strides[0] = 1, g.index.strides[1] = 0;
    g.other = *rows;
    return rs_gather_run(s, &g);
}

/* perm = the stable lexicographic order of src's rows ([n, m]): a stable
 * sort by each column, the last first (a least-significant-digit sort), so
 * that rows equal in a column keep the order the later columns gave them */
static rs_status sort_rows(rs_stream *s, const rs_tensor *src, uint64_t perm) {
    const int64_t n = src->sizes[0], m = src->sizes[1];
    rs_scratch c = {s, {0}, 0};
    uint64_t idx, keys, order, next;
    rs_status st;
    if ((st = rs_scratch_take(&c, (uint64_t)n * 8u, &idx)) || (st = rs_scratch_take(&c, (uint64_t)n * 8u, &order)) ||
        (st = rs_scratch_take(&c, (uint64_t)n * 8u, &next)) ||
        (st = rs_scratch_take(&c, (uint64_t)n * rs_dtype_size(src->dtype), &keys)))
        goto done;
    const rs_tensor flat = rs_tensor_vec(src->address, src->dtype, n * m);
    const rs_tensor pv = rs_tensor_vec(perm, RS_INT64, n), iv = rs_tensor_vec(idx, RS_INT64, n);
    const rs_tensor kv = rs_tensor_vec(keys, src->dtype, n), krow = rs_tensor_rows(keys, src->dtype, 1, n);
    const rs_tensor orow = rs_tensor_rows(order, RS_INT64, 1, n), ov = rs_tensor_vec(order, RS_INT64, n);
    const rs_tensor nv = rs_tensor_vec(next, RS_INT64, n);
    if ((st = rs_arange(s, &pv, 0.0, 1.0)) != RS_OK) goto done;
    for (int64_t j = m - 1; j >= 0; --j) {
        /* keys = column j in the current order: src[perm[i] * m + j] */
        if ((st = add_int64(s, "unique_dim_index", &iv, NULL, &pv, 0, m, 1, j)) != RS_OK) goto done;
        if ((st = rs_take(s, &flat, &iv, &kv)) != RS_OK) goto done;
        if ((st = rs_sort(s, &krow, 0, n, NULL, &orow)) != RS_OK) goto done;
        if ((st = rs_take(s, &pv, &ov, &nv)) != RS_OK) goto done; /* perm = perm[order] */
        if ((st = rs_copy(s, &pv, &nv)) != RS_OK) goto done;
    }
done:
    rs_scratch_release(&c);
    return st;
}

/* starts[i] = i == 0 || row i of seq ([n, m]) differs from row i - 1 in an
 * element (NaN never equal, -0 == +0: the comparison's, as at::equal's) */
static rs_status row_starts(rs_stream *s, const rs_tensor *seq, uint64_t starts) {
    const int64_t n = seq->sizes[0], m = seq->sizes[1];
    static const uint8_t one = 1;
    const rs_tensor first = rs_tensor_vec(starts, RS_BOOL, 1);
    rs_status st = rs_fill(s, &first, &one);
    if (st != RS_OK || n == 1) return st;
    uint64_t diff;
    rs_scratch c = {s, {0}, 0};
    if ((st = rs_scratch_take(&c, (uint64_t)((n - 1) * m), &diff)) != RS_OK) goto done;
    const rs_dtype dt = seq->dtype;
    rs_pointwise p; /* diff = seq[1:] != seq[:-1] */
    memset(&p, 0, sizeof p);
    p.name = "unique_dim_ne";
    p.op = RS_PW_NE;
    p.common = dt;
    p.compute = dt == RS_FLOAT16 || dt == RS_BFLOAT16 ? RS_FLOAT32 : dt;
    p.result = RS_BOOL;
    p.ninputs = 2;
    p.out = rs_tensor_rows(diff, RS_BOOL, n - 1, m);
    p.in[0] = p.in[1] = rs_tensor_rows(seq->address, dt, n - 1, m);
    p.in[0].address += (uint64_t)m * rs_dtype_size(dt);
    if ((st = rs_pointwise_run(s, &p)) != RS_OK) goto done;
    /* starts[1:] = any over the row (bool counts as int64) */
    const rs_tensor any = rs_tensor_rows(starts + 1u, RS_BOOL, n - 1, 1);
    st = rs_reduce_into(s, "unique_dim", RS_REDUCE_ANY, RS_INT64, &p.out, &any);
done:
    rs_scratch_release(&c);
    return st;
}

rs_status rs_unique_rows_count(rs_stream *s, const rs_tensor *src, int sort, rs_unique *u) {
    if (!s || !src || !u) return rs_error(RS_ERR_INVALID, "rs_unique_rows_count: NULL argument");
    memset(u, 0, sizeof *u);
    if (src->ndim != 2 || src->sizes[1] < 1 || !rs_tensor_is_contiguous(src))
        return rs_error(RS_ERR_INVALID, "rs_unique_rows_count: src must be a contiguous [n, m] matrix, m >= 1");
    if (!rs_dtype_has_sort_key(src->dtype) || rs_dtype_is_complex(src->dtype))
        return rs_error(RS_ERR_UNSUPPORTED, "rs_unique_rows_count: no kernel for %s", rs_dtype_name(src->dtype));
    u->src = *src;
    u->sort = sort != 0;
    const int64_t n = src->sizes[0], m = src->sizes[1];
    if (n == 0) return RS_OK;
    rs_device *dev = rs_stream_device(s);
    rs_status st;
    rs_tensor seq = *src; /* the rows whose runs count: src's, or sorted */
    if (sort) {
        if ((st = rs_alloc(dev, (uint64_t)n * 8u, s, &u->perm)) != RS_OK) goto fail;
        if ((st = sort_rows(s, src, u->perm)) != RS_OK) goto fail;
        if ((st = rs_alloc(dev, (uint64_t)(n * m) * rs_dtype_size(src->dtype), s, &u->sorted)) != RS_OK) goto fail;
        seq.address = u->sorted;
        if ((st = gather_rows(s, src, u->perm, n, &seq)) != RS_OK) goto fail;
    }
    if ((st = rs_alloc(dev, (uint64_t)n, s, &u->starts)) != RS_OK) goto fail;
    if ((st = row_starts(s, &seq, u->starts)) != RS_OK) goto fail;
    const rs_tensor mask = rs_tensor_vec(u->starts, RS_BOOL, n);
    if ((st = rs_nonzero_count(s, &mask, &u->offsets, &u->count)) != RS_OK) goto fail;
    return RS_OK;
fail:
    unique_release(s, u);
    return st;
}

rs_status rs_unique_rows_write(rs_stream *s, rs_unique *u, const rs_tensor *values, const rs_tensor *inverse,
                               const rs_tensor *counts) {
    if (!s || !u) return rs_error(RS_ERR_INVALID, "rs_unique_rows_write: NULL argument");
    const int64_t n = u->src.sizes[0], m = u->src.sizes[1], k = u->count;
    rs_status st = RS_OK;
    if (n > 0 && (!values || values->dtype != u->src.dtype || values->ndim != 2 || values->sizes[0] != k ||
                  values->sizes[1] != m || (inverse && !flat_int64(inverse, n)) || (counts && !flat_int64(counts, k))))
        st = rs_error(RS_ERR_INVALID, "rs_unique_rows_write: values (src's dtype, [count, m]), inverse (int64, [n]) "
                      "and counts (int64, [count], contiguous)");
    return write_tail(s, u, st, n, 1, values, inverse, counts);
}
