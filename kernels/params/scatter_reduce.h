/* scatter_reduce.comp's parameters, written by src/engine/scatter_reduce.c
 * (README.md here). */
#ifndef RS_PARAMS_SCATTER_REDUCE_H
#define RS_PARAMS_SCATTER_REDUCE_H

#define RS_SCATTER_REDUCE_PUSH \
    uint64_t self_; \
    uint64_t src; \
    uint64_t keys;      /* sorted index values [rows, k] (DIRECT: the index) */ \
    uint64_t perm;      /* their positions [rows, k], then the windows' carries */ \
    uint64_t params;    /* the coalesced views of self and src */ \
    uint64_t err; \
    int64_t dim_size; \
    int64_t self_dim_stride; \
    int64_t src_dim_stride; \
    uint64_t slices; \
    uint64_t k; \
    uint64_t alpha;     /* SUM with F_ALPHA: the opmath scalar slot */ \
    int64_t skip;       /* F_SKIP: the index value to leave out */ \
    int64_t index_dim_stride;  /* DIRECT: the index's stride along dim; else the window's start */ \
    uint32_t ndim; \
    uint32_t site; \
    uint32_t flags;     /* F_ below */ \
    uint32_t pad;

#define F_SHARED 1u        /* one row of keys for every slice */
#define F_INCLUDE_SELF 2u
#define F_SKIP 4u
#define F_SCALE 8u         /* mean: divide by the count */
#define F_ALPHA 16u

#endif
