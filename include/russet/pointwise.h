/* russet/pointwise.h: the pointwise engine (src/engine/pointwise.c). */
#ifndef RUSSET_POINTWISE_H
#define RUSSET_POINTWISE_H

#include "russet/pointwise_ops.h"
#include "russet/tensor.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------- pointwise */

/* The pointwise engine: out[i] = EXPR(a[i], b[i], ...) over views of one
 * shape (broadcasting already applied as 0 strides), any strides, 64-bit
 * indices. The expression is GLSL over the operands named a, b, c, d, each
 * in the "opmath" type of its dtype (bool; int64_t, or uint64_t for uint64;
 * float for float32/float16/bfloat16/float8; double for float64; vec2 for
 * complex32/64; dvec2 for complex128), typically one call of the overloaded
 * functions in kernels/common/ops.glsl, e.g. "rs_add(a, b, s0)".
 * - An input with `is_scalar` set is not read from memory: its value is
 *   `scalar` (already converted by the caller), e.g. a CPU scalar operand.
 * - s0..s3 are extra scalars, in the opmath type of `compute`.
 * - The result has the opmath type of `result` (often `compute`; bool for
 *   comparisons; the real type for abs of complex) and is stored into `out`
 *   with PyTorch's cast to the output dtype.
 * Kernels are generated from the description (kernels/pointwise.comp with
 * the expression and dtypes as defines), compiled once and cached by
 * (name, expression, dtypes, layout class). `op` names a table op
 * (russet/pointwise_ops.h), whose expression is used; `expr` is for
 * RS_PW_NONE only (the engines' own expressions). Fails with
 * RS_ERR_UNSUPPORTED when a dtype needs fp64 and the device lacks it, or
 * when the table has no kernel of `op` for the compute dtype. */
#define RS_PW_MAX_INPUTS 4


typedef struct rs_pointwise {
    const char *name;                  /* for errors and the cache key */
    rs_pw_op op;                       /* a table op, or RS_PW_NONE: then expr */
    int flags[RS_PW_MAX_FLAGS];        /* a table op's integer constants $0..$5 */
    const char *expr;                  /* GLSL expression (RS_PW_NONE only) */
    rs_dtype common;                   /* the op's common dtype (CM_DT in the kernel) */
    rs_dtype compute;                  /* opmath type of the expression's inputs and scalars */
    rs_dtype result;                   /* opmath type of the expression's value */
    int ninputs;
    rs_tensor out;
    rs_tensor in[RS_PW_MAX_INPUTS];    /* sizes equal to out's, except scalars */
    int is_scalar[RS_PW_MAX_INPUTS];
    rs_scalar scalar[RS_PW_MAX_INPUTS][2];  /* [i][0] (and [i][1]: imaginary of complex128) */
    int nscalars;
    rs_scalar s[4][2];                 /* s0..s3; [k][1] is the imaginary part of complex128 */
} rs_pointwise;

RS_API rs_status rs_pointwise_run(rs_stream *s, const rs_pointwise *p);

/* Runs ps[0..n) in order, with the results rs_pointwise_run would give one
 * by one. A run of consecutive descriptions that differ only in their
 * tensors (one op, flags, dtypes and scalars; every view contiguous, of one
 * numel each) takes one launch, a segment a description, unless an output
 * overlaps another description's operand (torch's _foreach_ ops: one
 * launch for a whole parameter list). */
RS_API rs_status rs_pointwise_run_many(rs_stream *s, const rs_pointwise *ps, int n);

#ifdef __cplusplus
}
#endif
#endif /* RUSSET_POINTWISE_H */
