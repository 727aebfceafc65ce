/* russet/scan_sort.h: scans, sorting and selection along rows (src/engine/scan.c, sort.c,
 * select.c). */
#ifndef RUSSET_SCAN_SORT_H
#define RUSSET_SCAN_SORT_H

#include "russet/tensor.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------- scans and sorting */
/* (src/engine/scan.c, sort.c, select.c) All of these work along the last
 * dim of contiguous tensors ([rows, n]; a 0-dim tensor is one row of 1):
 * the caller moves the dim last. */

typedef enum rs_scan_op {
    RS_SCAN_SUM = 1,       /* cumsum: integers accumulate in 64 bits, float32 in float-float */
    RS_SCAN_PROD = 2,      /* cumprod */
    RS_SCAN_MAX = 3,       /* cummax: values and int64 indices (NaN greatest, ties: later) */
    RS_SCAN_MIN = 4,       /* cummin */
    RS_SCAN_LOGSUMEXP = 5  /* logcumsumexp (floating dtypes) */
} rs_scan_op;

/* Inclusive scan of src into dst (same sizes; dst's dtype may differ, the
 * accumulation is in src's dtype's accumulate type). `indices` (int64, same
 * sizes) only for MAX and MIN, else NULL. float64: MAX and MIN always
 * (they compare bits); SUM and PROD need shaderFloat64; LOGSUMEXP never.
 * RS_ERR_UNSUPPORTED then (run it on the host). */
RS_API rs_status rs_scan(rs_stream *s, rs_scan_op op, const rs_tensor *src, const rs_tensor *dst,
                         const rs_tensor *indices);

/* Stable sort of each row of src (bool, integers incl. uint16/32/64,
 * float16, bfloat16, float32, float64: no fp64 arithmetic needed). NaN
 * sorts above everything, -0 == +0. The first `k` (1..n, n for a full
 * sort) of each sorted row go to `values` (src's dtype, [rows, k], may be
 * NULL) and `indices` (int64, [rows, k], may be NULL). Rows of any length
 * up to 2^31 padded elements in all. */
RS_API rs_status rs_sort(rs_stream *s, const rs_tensor *src, int descending, int64_t k,
                         const rs_tensor *values, const rs_tensor *indices);

typedef enum rs_pick {
    RS_PICK_KTH = 1,       /* the k-th smallest (k from 0) */
    RS_PICK_MEDIAN = 2,    /* the lower median; the first NaN if the row has one */
    RS_PICK_NANMEDIAN = 3, /* the lower median of the non-NaN elements */
    RS_PICK_MODE = 4       /* the most frequent (the smallest of those), index of its last */
} rs_pick;
/* One element per row of src, by a sort: values (src's dtype) and int64
 * indices (may be NULL), both with `rows` elements, contiguous. */
RS_API rs_status rs_sort_pick(rs_stream *s, const rs_tensor *src, rs_pick mode, int64_t k,
                              const rs_tensor *values, const rs_tensor *indices);

/* out[i] = insertion point of values[i] in its row of `boundaries` (one
 * row shared by all values, or one row per row of values), with PyTorch's
 * CPU comparisons; `right` as searchsorted's. `sorter` (int64, boundaries'
 * sizes, or NULL) gives the sorted order. values and boundaries share a
 * dtype (the caller promotes); out is int64 or int32. float64 compares
 * bits (no fp64 needed). */
RS_API rs_status rs_searchsorted(rs_stream *s, const rs_tensor *boundaries, const rs_tensor *values,
                                 const rs_tensor *sorter, int right, const rs_tensor *out);

/* nonzero and masked_select, in two calls. rs_nonzero_count counts the
 * nonzero elements of src (contiguous, any dtype, < 2^32 elements) and
 * waits for the count (the output size depends on the data; count may be
 * NULL: no wait); *offsets is
 * scratch memory that rs_nonzero_write consumes and frees (pass it even on
 * an error path; 0 when src is empty). rs_nonzero_write writes, in order,
 * the coordinates of the nonzero elements (coords: int64 [count, ndim],
 * may be NULL) and/or values_src[i] for each nonzero src[i] (values_out:
 * [count], values_src's dtype; may be NULL). */
RS_API rs_status rs_nonzero_count(rs_stream *s, const rs_tensor *src, uint64_t *offsets, int64_t *count);
RS_API rs_status rs_nonzero_write(rs_stream *s, const rs_tensor *src, uint64_t offsets, const rs_tensor *coords,
                                  const rs_tensor *values_src, const rs_tensor *values_out);
/* The same, writing only the first `max_rows` (all if < 0): nonzero_static
 * passes count = NULL to rs_nonzero_count (no wait) and its size here. */
RS_API rs_status rs_nonzero_write_max(rs_stream *s, const rs_tensor *src, uint64_t offsets, int64_t max_rows,
                                      const rs_tensor *coords, const rs_tensor *values_src,
                                      const rs_tensor *values_out);

/* masked_scatter_: self's k-th element (in row-major order) where the mask
 * is true takes source's k-th element. self any dtype and strides; mask
 * bool with self's sizes, any strides (0 where broadcast); source
 * contiguous, of self's dtype. Elements move as bytes. No wait: too short
 * a source raises the device error flag (code 8, CPU's message "Number of
 * elements of source < number of ones in mask") at the next sync. self
 * below 2^32 elements. */
RS_API rs_status rs_masked_scatter(rs_stream *s, const rs_tensor *self, const rs_tensor *mask, const rs_tensor *source);

/* out[perm[i]] = src[i]; contiguous int64 tensors of one size, perm a
 * permutation (unique's inverse from the sorted order). */
RS_API rs_status rs_permute_scatter(rs_stream *s, const rs_tensor *src, const rs_tensor *perm, const rs_tensor *out);
/* out[i] (bool) = i == 0 || src[i] != src[i - 1] (IEEE: NaN never equal,
 * -0 == +0); contiguous, any dtype but complex128. */
RS_API rs_status rs_run_starts(rs_stream *s, const rs_tensor *src, const rs_tensor *out);

/* unique and unique_consecutive of a flattened tensor, in two calls like
 * nonzero (the result's size depends on the data). rs_unique_count takes
 * src (contiguous, any dtype rs_run_starts and, with `sort`, rs_sort take),
 * sorts it stably when `sort`, marks where each run of equal values starts
 * (NaN never equal, -0 == +0) and waits for the number of runs, u->count.
 * The scratch it leaves in *u is rs_unique_write's to consume and free: call
 * it even on an error path (rs_unique_count frees everything itself when it
 * fails). rs_unique_write writes each run's first value (values: src's
 * dtype, [count], contiguous), each element's run (inverse: int64, src's
 * numel, contiguous; may be NULL) and each run's length (counts: int64
 * [count], contiguous; may be NULL), as CPU's _unique2/unique_consecutive. */
typedef struct rs_unique {
    int64_t count; /* the number of runs */
    /* rs_unique_write's inputs: */
    rs_tensor src;                      /* the flat view */
    int sort;
    uint64_t sorted, perm, starts, offsets; /* scratch (0 where not taken) */
} rs_unique;
RS_API rs_status rs_unique_count(rs_stream *s, const rs_tensor *src, int sort, rs_unique *u);
RS_API rs_status rs_unique_write(rs_stream *s, rs_unique *u, const rs_tensor *values, const rs_tensor *inverse,
                                 const rs_tensor *counts);
/* The same over the rows of src ([n, m], contiguous, m >= 1; bool, integers,
 * float16, bfloat16, float32, and float64 where the device compares it): CPU's
 * unique_dim (src: the dim moved first and the rest flattened) and
 * unique_dim_consecutive. With `sort` the rows are ordered
 * lexicographically, by a stable sort per column, the last first (NaN
 * above everything, as rs_sort); two rows are equal where every element
 * compares equal (NaN never, -0 == +0). rs_unique_rows_write writes each
 * run's first row (values: [count, m], src's dtype, any strides), each
 * row's run (inverse: int64 [n]) and each run's length (counts: int64
 * [count]), as rs_unique_write. */
RS_API rs_status rs_unique_rows_count(rs_stream *s, const rs_tensor *src, int sort, rs_unique *u);
RS_API rs_status rs_unique_rows_write(rs_stream *s, rs_unique *u, const rs_tensor *values, const rs_tensor *inverse,
                                      const rs_tensor *counts);

/* Minimum and maximum of a contiguous, non-empty tensor (bool, integers,
 * float16/bfloat16/float32), read back to the host (waits): .i (.u for
 * uint64) for integers, .f for floats (NaN if any element is NaN). */
RS_API rs_status rs_minmax(rs_stream *s, const rs_tensor *src, rs_scalar *mn, rs_scalar *mx);
/* out[v] = number of elements of src equal to v (src: integers >= 0, all
 * below numel(out), the caller checks; out: any dtype), or the sum of their
 * float32 weights (out float32; needs float32 atomic add). */
RS_API rs_status rs_bincount(rs_stream *s, const rs_tensor *src, const rs_tensor *weights, const rs_tensor *out);
/* histc: out[b] = number of elements of src in bin b of `edges` (src's
 * dtype, numel(out) + 1 edges, as CPU's linspace), as CPU's histogramdd. */
RS_API rs_status rs_histc(rs_stream *s, const rs_tensor *src, const rs_tensor *edges, const rs_tensor *out);

#ifdef __cplusplus
}
#endif
#endif /* RUSSET_SCAN_SORT_H */
