/* sparse.comp's parameters, written by src/engine/sparse.c (README.md here). */
#ifndef RS_PARAMS_SPARSE_H
#define RS_PARAMS_SPARSE_H

#define RS_SPARSE_PUSH \
    uint64_t indices;    /* COO indices (sparse_dim, nnz) int64, strides SP_IS; INDICES: the keys; SOFTMAX: the pool order */ \
    uint64_t values;     /* SPMM: (nnz) */ \
    uint64_t dense;      /* SPMM: D (K, N); SDDMM: A; SOFTMAX: the gradient's values; SEL_WRITE: the sort's perm */ \
    uint64_t self_;      /* SPMM: t (M, N), beta's addend; SEL_*: the sorted index (n) int64 */ \
    uint64_t crow;       /* SPMM, ROWS: row starts (M + 1) int64, contiguous; SOFTMAX: pool starts (nnz) bool */ \
    uint64_t out_;       /* KEYS, ROWS: (nnz) int64; INDICES: (sparse_dim, nnz) int64; CROW: (M + 1); SPMM: (M, N) */ \
    uint64_t params;     /* SP_ slots of int64 */

/* modes */
#define SP_KEYS 0        /* key of each entry: its row-major position over the sparse sizes */
#define SP_INDICES 1     /* keys back to contiguous indices */
#define SP_CROW 2        /* out[r] = the first entry of row r or later, r in [0, M] (rows sorted) */
#define SP_SPMM 3        /* out = beta t + alpha S @ D, S's rows by crow */
#define SP_ROWS 4        /* out[k] = the row of entry k: the last r with crow[r] <= k */
#define SP_SDDMM 5       /* out[k] = beta values[k] + alpha (A @ B)[row(k), col(k)], A dense_, B self_ */
#define SP_SOFTMAX 6     /* softmax over each pool of entries, its forward or backward (flags) */
#define SP_SEGSUM 7      /* out[k] = the sum of values[perm[p]], p over run k of the sorted keys (coalesce) */
#define SP_SEL_COUNT 8   /* index_select: out[e] = how many index positions hold entry e's index in dim */
#define SP_SEL_WRITE 9   /* index_select: entry e's copies, one per such position, at its running offset */
#define SP_MATCH 10      /* key k's position among the sorted keys (-1 none) into out_, and values' row there (zeros) into dense */

#define SP_NNZ 0
#define SP_DIMS 1        /* sparse_dim */
#define SP_IS 2          /* indices' 2 strides (dim, entry) */
#define SP_M 4
#define SP_N 5
#define SP_VS 6          /* values' stride */
#define SP_DS 7          /* D's 2 strides (SDDMM: A's) */
#define SP_TS 9          /* t's 2 strides (SDDMM: B's) */
#define SP_OS 11         /* out's 2 strides */
#define SP_ALPHA 13      /* float64's bits, else float32's */
#define SP_BETA 14       /* the same; SP_FLAGS tells whether t counts */
#define SP_FLAGS 15      /* SP_F_ bits */
#define SP_K 16          /* SDDMM: the inner size */
#define SP_SKIP 17       /* KEYS: a sparse dim left out of the key (softmax's pools), -1 none */
#define SP_DIM 18        /* SEL_*: the selected dim; MATCH: bytes of a values row (0: no rows) */
#define SP_SIZES 19      /* the sparse sizes, SP_DIMS of them */
#define SP_SLOTS 44      /* SP_SIZES + RS_MAX_DIMS */

#define SP_F_BETA 1      /* add beta * t (beta != 0) */
#define SP_F_LOG 2       /* SOFTMAX: log_softmax */
#define SP_F_BACKWARD 4  /* SOFTMAX: the gradient */

#endif
