/* russet/sparse.h: the device work of sparse COO tensors (src/engine/sparse.c;
 * docs/sparse.md). A COO tensor is indices (sparse_dim, nnz), int64, any
 * strides, and values (nnz, dense sizes...); its sparse sizes are the first
 * sparse_dim sizes, whose product must stay below 2^63.
 *
 * Not in russet.h's umbrella: the adapter's sparse kernels and the C tests
 * include it. */
#ifndef RUSSET_SPARSE_H
#define RUSSET_SPARSE_H

#include "russet/index_reduce.h"
#include "russet/scan_sort.h"
#include "russet/tensor.h"

#ifdef __cplusplus
extern "C" {
#endif

/* keys[k] (int64, nnz, contiguous) = entry k's row-major position over
 * the sparse sizes (sizes[0 .. indices->sizes[0])). */
RS_API rs_status rs_sparse_keys(rs_stream *s, const rs_tensor *indices, const int64_t *sizes, const rs_tensor *keys);

/* coalesce, in two calls like unique (the result's nnz depends on the
 * data). rs_sparse_coalesce_count finds the distinct indices (a stable
 * sort of the keys) and waits for their number, c->nnz. Its scratch is
 * rs_sparse_coalesce_write's to consume and free: call it even on an error
 * path, or rs_sparse_coalesce_release (count frees everything itself when
 * it fails). The write puts the
 * distinct indices in increasing order into indices_out (int64,
 * (sparse_dim, c->nnz), contiguous) and, for each, the sum of the values
 * of its entries in entry order into values_out ((c->nnz, dense...), the
 * values' dtype, contiguous); values NULL writes indices only. Values'
 * dtypes: rs_index_reduce_run's SUM (float16 and bfloat16 accumulate in
 * float, as CPU's). */
typedef struct rs_sparse_coalesce {
    int64_t nnz;            /* distinct indices */
    int sparse_dim;
    int64_t sizes[RS_MAX_DIMS];
    uint64_t keys;          /* scratch */
    rs_unique u;            /* scratch: the sorted keys' runs */
} rs_sparse_coalesce;
RS_API rs_status rs_sparse_coalesce_count(rs_stream *s, const rs_tensor *indices, const int64_t *sizes,
                                          rs_sparse_coalesce *c);
RS_API rs_status rs_sparse_coalesce_write(rs_stream *s, rs_sparse_coalesce *c, const rs_tensor *values,
                                          const rs_tensor *indices_out, const rs_tensor *values_out);
/* Frees the scratch of a counted coalesce that will not be written (the
 * caller failed between the two calls). */
RS_API void rs_sparse_coalesce_release(rs_stream *s, rs_sparse_coalesce *c);

/* dense += alpha * S, S = (indices, values) over dense's first sparse_dim
 * sizes (those dims of dense must merge into one: contiguous among
 * themselves). Entries are added in entry order (CPU's loop), duplicates
 * included; alpha as rs_index_reduce's (has_alpha). dtypes: those of
 * rs_index_reduce_run's SUM; RS_ERR_UNSUPPORTED where it has no kernel. */
RS_API rs_status rs_sparse_add_dense(rs_stream *s, const rs_tensor *indices, const rs_tensor *values,
                                     int has_alpha, rs_scalar alpha, const rs_tensor *dense);

/* Row pointers and row indices (CSR <-> COO): crow[r] (int64, M + 1,
 * contiguous) = the first entry of row r or later among the sorted row
 * indices `rows` (int64, nnz, any stride); and back, rows[k] (int64, nnz,
 * contiguous) = the row of entry k under crow (int64, M + 1, contiguous,
 * non-decreasing from 0 to nnz). */
RS_API rs_status rs_sparse_rows_to_crow(rs_stream *s, const rs_tensor *rows, const rs_tensor *crow);
RS_API rs_status rs_sparse_crow_to_rows(rs_stream *s, const rs_tensor *crow, const rs_tensor *rows);

/* Lookup of keys among sorted keys (a coalesced tensor's rs_sparse_keys):
 * for each keys[k] (int64, m, any stride), pos[k] (int64, m, contiguous)
 * = its position among `sorted` (int64, n, contiguous, increasing and
 * distinct), or -1 where none holds it; with values ((n, ...), any dtype,
 * contiguous) and out ((m, ...), values' dtype and row shape, contiguous),
 * out's row k = values' row pos[k], or zeros. pos may be NULL when out is
 * given. One launch (a binary search a key). */
RS_API rs_status rs_sparse_match(rs_stream *s, const rs_tensor *sorted, const rs_tensor *keys, const rs_tensor *pos,
                                 const rs_tensor *values, const rs_tensor *out);

/* out (M, N) = beta * t + alpha * S @ D for a 2-D S (M, K) and D (K, N):
 * COO (crow NULL; indices (2, nnz), coalesced: rows sorted) or CSR (crow
 * the row starts, int64 (M + 1) contiguous; indices the column indices,
 * int64 (nnz)); values (nnz). Each
 * output element sums its row's entries in order, in the opmath type
 * (float for float16/bfloat16), no atomics. beta == 0 ignores t (NaN
 * included), as addmm does; t may be NULL then. Any strides; out must not
 * overlap the inputs. float32, float16, bfloat16; float64 with fp64 (else
 * RS_ERR_UNSUPPORTED). */
typedef struct rs_sparse_mm {
    rs_tensor indices, values, dense, out;
    const rs_tensor *crow;  /* CSR; NULL for COO */
    const rs_tensor *t;
    double alpha, beta;
} rs_sparse_mm;
RS_API rs_status rs_sparse_mm_run(rs_stream *s, const rs_sparse_mm *p);

/* out[k] = beta * values[k] + alpha * (A @ B)[row(k), col[k]] for each
 * entry k of a CSR pattern (crow: int64 (M + 1), contiguous; col: int64
 * (nnz)), A (M, K), B (K, N): sparse_sampled_addmm. values and out (nnz);
 * each entry's dot product in order, in the opmath type. beta == 0
 * ignores values. Dtypes as rs_sparse_mm_run's. */
typedef struct rs_sparse_sddmm {
    rs_tensor crow, col, values, a, b, out;
    double alpha, beta;
} rs_sparse_sddmm;
RS_API rs_status rs_sparse_sddmm_run(rs_stream *s, const rs_sparse_sddmm *p);

/* torch.sparse.softmax / log_softmax over a sparse dim of a coalesced COO
 * tensor, and their gradients: a pool is the entries that share every
 * sparse index but dim's; each pool's entries (in entry order), for each of
 * the D dense elements of an entry, take the softmax of their values
 * (entries absent from the pool count as -inf). values, grad and out are
 * (nnz, D), contiguous, of one dtype (float32, float16, bfloat16; float
 * arithmetic). Backward: values is the forward's output y, grad the
 * output's gradient at the same entries; out = y (g - sum(g y)), or
 * g - exp(y) sum(g) for log. sizes: the tensor's sizes (its first
 * sparse_dim taken). */
typedef struct rs_sparse_softmax {
    rs_tensor indices, values, grad, out;
    const int64_t *sizes;
    int dim, log, backward;
} rs_sparse_softmax;
RS_API rs_status rs_sparse_softmax_run(rs_stream *s, const rs_sparse_softmax *p);

/* index_select of a COO tensor along a sparse dim, in two calls (the
 * result's nnz depends on the data; one wait): each entry is copied once for
 * every position p of `index` (int64, n, any stride) that holds its index
 * in dim, with dim's index replaced by p. rs_sparse_index_select_count
 * finds the copies and waits for their number, sel->nnz; its scratch is
 * rs_sparse_index_select_write's to consume and free (or
 * rs_sparse_index_select_release's). The write puts the copies' indices in
 * indices_out (int64, (sparse_dim, sel->nnz), contiguous), entry by entry
 * and, for one entry, in increasing p; and each copy's source entry in
 * source (int64, sel->nnz, contiguous: the caller gathers the values). An
 * index outside [0, size) selects nothing (the caller checks, as CPU). */
typedef struct rs_sparse_select {
    int64_t nnz;                 /* the copies */
    rs_tensor indices;           /* the input's (not owned) */
    int dim;
    uint64_t sorted, perm, ends; /* scratch */
    int64_t n;
} rs_sparse_select;
RS_API rs_status rs_sparse_index_select_count(rs_stream *s, const rs_tensor *indices, int dim, const rs_tensor *index,
                                              rs_sparse_select *sel);
RS_API rs_status rs_sparse_index_select_write(rs_stream *s, rs_sparse_select *sel, const rs_tensor *indices_out,
                                              const rs_tensor *source);
RS_API void rs_sparse_index_select_release(rs_stream *s, rs_sparse_select *sel);

#ifdef __cplusplus
}
#endif
#endif /* RUSSET_SPARSE_H */
