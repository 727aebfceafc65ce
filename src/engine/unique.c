/* unique.c: unique (sorted) and unique_consecutive of a flattened tensor
 * (the contract is rs_unique in russet/scan_sort.h): a stable sort, the
 * run starts, nonzero's count and write, a scan for each element's run and
 * differences of the starts for the counts. One wait: the number of runs. */
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

rs_status rs_unique_write(rs_stream *s, rs_unique *u, const rs_tensor *values, const rs_tensor *inverse,
                          const rs_tensor *counts) {
    if (!s || !u) return rs_error(RS_ERR_INVALID, "rs_unique_write: NULL argument");
    rs_status st = RS_OK;
    rs_device *dev = rs_stream_device(s);
    const int64_t n = rs_tensor_numel(&u->src), k = u->count;
    uint64_t first = 0, runs = 0; /* int64 [k]: each run's first position; [n]: each element's run */
    if (n == 0) goto done;
    if (!values || values->dtype != u->src.dtype || rs_tensor_numel(values) != k || !rs_tensor_is_contiguous(values) ||
        (inverse && !flat_int64(inverse, n)) || (counts && !flat_int64(counts, k))) {
        st = rs_error(RS_ERR_INVALID, "rs_unique_write: values (src's dtype, [count]), inverse (int64, src's numel) "
                      "and counts (int64, [count]) must be contiguous");
        goto done;
    }
    rs_tensor seq = u->src, mask = rs_tensor_vec(u->starts, RS_BOOL, n), mask_row = rs_tensor_rows(u->starts, RS_BOOL, 1, n);
    if (u->sort) seq.address = u->sorted;
    rs_tensor starts = rs_tensor_rows(0, RS_INT64, k, 1); /* nonzero's coordinates: [k, 1] */
    if (counts && (st = rs_alloc(dev, (uint64_t)k * 8u, s, &first)) != RS_OK) goto done;
    starts.address = first;
    st = rs_nonzero_write(s, &mask, u->offsets, counts ? &starts : NULL, &seq, values);
    u->offsets = 0; /* consumed */
    if (st != RS_OK) goto done;
    if (inverse) {
        /* an element's run: the starts up to it, less one; then (sorted)
         * moved to the element's place before the sort */
        rs_tensor row = rs_tensor_rows(inverse->address, RS_INT64, 1, n);
        if (u->sort) {
            if ((st = rs_alloc(dev, (uint64_t)n * 8u, s, &runs)) != RS_OK) goto done;
            row.address = runs;
        }
        if ((st = rs_scan(s, RS_SCAN_SUM, &mask_row, &row, NULL)) != RS_OK) goto done;
        if ((st = add_int64(s, "unique_inverse", &row, &row, NULL, 1, -1, 0, 0)) != RS_OK) goto done;
        if (u->sort) {
            rs_tensor perm = rs_tensor_rows(u->perm, RS_INT64, 1, n), inv = rs_tensor_rows(inverse->address, RS_INT64, 1, n);
            if ((st = rs_permute_scatter(s, &row, &perm, &inv)) != RS_OK) goto done;
        }
    }
    if (counts) {
        /* counts[i] = first[i + 1] - first[i]; the last run ends at n */
        rs_tensor head = rs_tensor_rows(first, RS_INT64, 1, k - 1), next = head;
        rs_tensor c = rs_tensor_rows(counts->address, RS_INT64, 1, k - 1);
        next.address = first + 8u;
        if (k > 1 && (st = add_int64(s, "unique_counts", &c, &next, &head, 0, -1, 0, 0)) != RS_OK) goto done;
        rs_tensor last = rs_tensor_rows(first + 8u * (uint64_t)(k - 1), RS_INT64, 1, 1);
        rs_tensor c_last = rs_tensor_rows(counts->address + 8u * (uint64_t)(k - 1), RS_INT64, 1, 1);
        if ((st = add_int64(s, "unique_counts", &c_last, NULL, &last, 0, -1, 1, n)) != RS_OK) goto done;
    }
done:
    if (u->offsets) rs_free(dev, u->offsets), u->offsets = 0; /* an early error: nonzero_write did not run */
    if (first) rs_free(dev, first);
    if (runs) rs_free(dev, runs);
    unique_release(s, u);
    return st;
}
