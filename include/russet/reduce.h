/* russet/reduce.h: the reduction engine (src/engine/reduce.c). */
#ifndef RUSSET_REDUCE_H
#define RUSSET_REDUCE_H

#include "russet/tensor.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------- reductions */
/* (src/engine/reduce.c, softmax.c, loss.c) */

/* Reductions: out = REDUCE(in) over the dims where `out` has size 1 and
 * `in` does not. `out` (and `out2`) are given in keepdim form: the ndim and
 * sizes of `in`, with size 1 on the reduced dims (any strides: a reduced dim
 * of a keepdim=False result is a size-1 dim with stride 0). Deterministic:
 * a fixed partition and a fixed combining tree, no atomics, so the same
 * inputs give the same bits. Values accumulate in the opmath type of `acc`
 * (float for float16/bfloat16/float32, int64 for integers, uint64 for
 * uint64, vec2 for complex32/64), converted from the input's: the caller
 * picks `acc` as PyTorch's CPU kernel does (integer sums accumulate in
 * int64; fp16/bf16 in float32). */
typedef enum rs_reduce_op {
    RS_REDUCE_SUM,            /* sum; `dtype=` through acc */
    RS_REDUCE_NANSUM,         /* sum, NaN counted as 0 */
    RS_REDUCE_PROD,
    RS_REDUCE_MEAN,           /* sum / count */
    RS_REDUCE_MAX,            /* amax: NaN propagates */
    RS_REDUCE_MIN,
    RS_REDUCE_ARGMAX,         /* out2 (int64) = index of the first max (NaN counts as max); out = value (optional) */
    RS_REDUCE_ARGMIN,
    RS_REDUCE_ALL,            /* out = all(in != 0): bool, or uint8 for uint8 input */
    RS_REDUCE_ANY,
    RS_REDUCE_COUNT_NONZERO,  /* out int64 */
    RS_REDUCE_NORM,           /* vector norm of order p (0, 1, 2, +-inf or any p); real out */
    RS_REDUCE_VAR,            /* var with `correction`; out2 (optional) = mean */
    RS_REDUCE_STD,
    RS_REDUCE_OP_COUNT
} rs_reduce_op;

typedef struct rs_reduce {
    const char *name;         /* for errors */
    rs_reduce_op op;
    rs_dtype acc;             /* accumulate dtype (see above) */
    rs_tensor in;
    rs_tensor out;            /* address 0: not wanted (argmax without values) */
    rs_tensor out2;           /* indices or mean; address 0: not wanted */
    double p;                 /* RS_REDUCE_NORM */
    double correction;        /* RS_REDUCE_VAR, RS_REDUCE_STD */
} rs_reduce;

RS_API rs_status rs_reduce_run(rs_stream *s, const rs_reduce *r);
RS_API const char *rs_reduce_op_name(rs_reduce_op op);

#ifdef __cplusplus
}
#endif
#endif /* RUSSET_REDUCE_H */
