/* russet/pointwise_ops.h: the pointwise engine's table of ops
 * (src/engine/pointwise_ops.c). Each op is an id; the table holds its GLSL
 * expression (kernels/common/ops*.glsl) and the kinds of compute dtype it
 * has a kernel for. The adapter names an op by id (rs_pointwise.op) and
 * never holds an expression; whether an op runs on a device for a dtype is
 * rs_pw_op_supports, a lookup, not a compile. */
#ifndef RUSSET_POINTWISE_OPS_H
#define RUSSET_POINTWISE_OPS_H

#include "russet/tensor.h"

#ifdef __cplusplus
extern "C" {
#endif

/* every op, in the table's order */
#define RS_PW_OP_LIST(X) \
    X(THRESHOLD) \
    X(GELU_TANH) \
    X(GELU) \
    X(GELU_TANH_BACKWARD) \
    X(GELU_BACKWARD) \
    X(SILU) \
    X(MISH) \
    X(HARDSIGMOID) \
    X(SILU_BACKWARD) \
    X(HARDSIGMOID_BACKWARD) \
    X(SIGMOID_BACKWARD) \
    X(TANH_BACKWARD) \
    X(LEAKY_RELU) \
    X(HARDSHRINK) \
    X(SOFTSHRINK) \
    X(SHRINK_BACKWARD) \
    X(LEAKY_RELU_BACKWARD) \
    X(SOFTPLUS) \
    X(SOFTPLUS_BACKWARD) \
    X(ELU) \
    X(ELU_BACKWARD_OF_RESULT) \
    X(ELU_BACKWARD) \
    X(LOGIT_BACKWARD) \
    X(GLU) \
    X(HARDTANH_BACKWARD) \
    X(HARDSWISH) \
    X(HARDSWISH_BACKWARD) \
    X(GLU_BACKWARD) \
    X(MISH_BACKWARD) \
    X(LOG_SIGMOID) \
    X(LOG_SIGMOID_BUFFER) \
    X(LOG_SIGMOID_BACKWARD) \
    X(PRELU) \
    X(PRELU_GRAD_INPUT) \
    X(PRELU_GRAD_WEIGHT) \
    X(RRELU_NOISE) \
    X(MUL) \
    X(BINARY_CROSS_ENTROPY) \
    X(BINARY_CROSS_ENTROPY_BACKWARD) \
    X(ADD) \
    X(SUB) \
    X(DIV_SCALAR) \
    X(DIV) \
    X(DIV_TRUNC_SCALAR) \
    X(DIV_TRUNC_FLOAT) \
    X(DIV_TRUNC) \
    X(DIV_FLOOR_SCALAR) \
    X(DIV_FLOOR) \
    X(MUL_SCALAR) \
    X(REMAINDER) \
    X(FMOD) \
    X(MAXIMUM) \
    X(MINIMUM) \
    X(FMAX) \
    X(FMIN) \
    X(ATAN2) \
    X(BITWISE_AND) \
    X(BITWISE_OR) \
    X(BITWISE_XOR) \
    X(SHIFT_LEFT) \
    X(SHIFT_RIGHT) \
    X(GCD) \
    X(LCM) \
    X(EQ) \
    X(NE) \
    X(LT) \
    X(LE) \
    X(GT) \
    X(GE) \
    X(ADDR_ROUNDED) \
    X(ADDR_ROUNDED_NO_SELF) \
    X(ABS) \
    X(ABS_AS_COMPLEX) \
    X(ABS_OF_COMPLEX) \
    X(ANGLE) \
    X(ANGLE_AS_COMPLEX) \
    X(CONJ) \
    X(POLAR) \
    X(COMPLEX) \
    X(NEG_CONJ) \
    X(NEG) \
    X(RENORM_FACTOR) \
    X(CLAMP) \
    X(CLAMP_MAX) \
    X(CLAMP_MIN) \
    X(CLAMP_TENSOR) \
    X(HYPOT) \
    X(COPYSIGN) \
    X(NEXTAFTER) \
    X(XLOGY) \
    X(LOGADDEXP) \
    X(LOGADDEXP2) \
    X(HEAVISIDE) \
    X(POW) \
    X(SQRT) \
    X(RSQRT) \
    X(RECIPROCAL) \
    X(SQUARE) \
    X(CUBE) \
    X(INV_SQ) \
    X(POW_SCALAR) \
    X(LERP_SCALAR) \
    X(LERP) \
    X(ADDCMUL) \
    X(ADDCDIV) \
    X(WHERE) \
    X(MASKED_FILL) \
    X(MASKED_FILL_TENSOR) \
    X(LOGICAL_AND) \
    X(LOGICAL_OR) \
    X(LOGICAL_XOR) \
    X(NAN_TO_NUM) \
    X(EXPONENTIAL) \
    X(DROPOUT) \
    X(HASH_F32) \
    X(HASH_F16) \
    X(HASH_BF16) \
    X(SEGMENT_LENGTH) \
    X(ERFINV) \
    X(LGAMMA) \
    X(DIGAMMA) \
    X(I0) \
    X(I0E) \
    X(I1) \
    X(I1E) \
    X(ENTR) \
    X(LOG_NDTR) \
    X(XLOG1PY) \
    X(ZETA) \
    X(IGAMMA) \
    X(IGAMMAC) \
    X(NDTRI) \
    X(ERFCX) \
    X(BESSEL_J0) \
    X(BESSEL_J1) \
    X(BESSEL_Y0) \
    X(BESSEL_Y1) \
    X(MODIFIED_BESSEL_I0) \
    X(MODIFIED_BESSEL_I1) \
    X(MODIFIED_BESSEL_K0) \
    X(MODIFIED_BESSEL_K1) \
    X(SCALED_MODIFIED_BESSEL_K0) \
    X(SCALED_MODIFIED_BESSEL_K1) \
    X(SPHERICAL_BESSEL_J0) \
    X(AIRY_AI) \
    X(CHEBYSHEV_POLYNOMIAL_T) \
    X(CHEBYSHEV_POLYNOMIAL_U) \
    X(CHEBYSHEV_POLYNOMIAL_V) \
    X(CHEBYSHEV_POLYNOMIAL_W) \
    X(SHIFTED_CHEBYSHEV_POLYNOMIAL_T) \
    X(SHIFTED_CHEBYSHEV_POLYNOMIAL_U) \
    X(SHIFTED_CHEBYSHEV_POLYNOMIAL_V) \
    X(SHIFTED_CHEBYSHEV_POLYNOMIAL_W) \
    X(HERMITE_POLYNOMIAL_H) \
    X(HERMITE_POLYNOMIAL_HE) \
    X(LAGUERRE_POLYNOMIAL_L) \
    X(LEGENDRE_POLYNOMIAL_P) \
    X(SIGN) \
    X(SGN) \
    X(TRUNC) \
    X(FLOOR) \
    X(CEIL) \
    X(ROUND) \
    X(FRAC) \
    X(SIGNBIT) \
    X(ISPOSINF) \
    X(ISNEGINF) \
    X(BITWISE_NOT) \
    X(EXP) \
    X(EXP2) \
    X(EXPM1) \
    X(LOG) \
    X(LOG2) \
    X(LOG10) \
    X(LOG1P) \
    X(SIN) \
    X(COS) \
    X(TAN) \
    X(ASIN) \
    X(ACOS) \
    X(ATAN) \
    X(SINH) \
    X(COSH) \
    X(TANH) \
    X(ASINH) \
    X(ACOSH) \
    X(ATANH) \
    X(SIGMOID) \
    X(ERF) \
    X(ERFC) \
    X(SINC) \
    X(LOGICAL_NOT) \
    X(ISNAN) \
    X(ISINF) \
    X(LOGIT) \
    X(FREXP_EXPONENT) \
    X(FREXP_MANTISSA) \
    X(LDEXP) \
    X(POLYGAMMA) \
    X(MVLGAMMA) \
    X(ROUND_DECIMALS) \
    X(FUSED_UNSCALE) \
    X(FUSED_UNSCALE_UNLESS_FOUND) \
    X(FUSED_ADAM_M) \
    X(FUSED_ADAM_V) \
    X(FUSED_ADAM_PARAM) \
    X(FUSED_ADAGRAD_SUM) \
    X(FUSED_ADAGRAD_PARAM) \
    X(FUSED_SGD_BUF) \
    X(FUSED_SGD_PARAM) \
    X(FUSED_SGD_PARAM_FROM_OLD_BUF) \
    X(MSE_LOSS) \
    X(MSE_LOSS_BACKWARD) \
    X(SMOOTH_L1_LOSS) \
    X(SMOOTH_L1_LOSS_BACKWARD) \
    X(HUBER_LOSS) \
    X(HUBER_LOSS_BACKWARD) \

typedef enum rs_pw_op {
    RS_PW_NONE = 0, /* no table op: rs_pointwise.expr holds the expression */
#define RS_PW_ENUM_(id) RS_PW_##id,
    RS_PW_OP_LIST(RS_PW_ENUM_)
#undef RS_PW_ENUM_
    RS_PW_COUNT
} rs_pw_op;

/* The kinds of compute dtype (by their opmath type, kernels/common/
 * opmath.glsl): bool; int64_t (the signed integers, uint8/16/32); uint64_t;
 * float (float32, float16, bfloat16, float8); double; vec2 (complex32/64);
 * dvec2 (complex128). */
enum {
    RS_PWK_BOOL = 1 << 0,
    RS_PWK_INT = 1 << 1,
    RS_PWK_UINT = 1 << 2,
    RS_PWK_FLOAT = 1 << 3,
    RS_PWK_DOUBLE = 1 << 4,
    RS_PWK_CFLOAT = 1 << 5,
    RS_PWK_CDOUBLE = 1 << 6,
    RS_PWK_ALL = (1 << 7) - 1
};

/* The kind bit of a compute dtype (0 for an invalid one). */
RS_API unsigned rs_pw_kind(rs_dtype compute);

/* An op's expression, or NULL for an id outside the table. */
RS_API const char *rs_pw_op_expr(rs_pw_op op);

/* An op's expression with its integer constants $0..$5 replaced by
 * flags[0..5], into buf (cap bytes): RS_ERR_INVALID for an id outside the
 * table or a text longer than cap. */
#define RS_PW_MAX_FLAGS 6
RS_API rs_status rs_pw_op_text(rs_pw_op op, const int flags[RS_PW_MAX_FLAGS], char *buf, size_t cap);

/* Whether the table has a kernel for `op` with this compute dtype (the
 * device's fp64 is rs_pointwise_run's check, not this one). */
RS_API int rs_pw_op_supports(rs_pw_op op, rs_dtype compute);

/* For the table's own test (tests/c/test_pointwise_ops.c): the inputs
 * whose dtype the op fixes (a bit per input) and which dtype they take
 * there: a dtype, or RS_PW_KEEP_REAL (the compute dtype's real type). */
#define RS_PW_KEEP_REAL (-1)
RS_API unsigned rs_pw_op_kinds(rs_pw_op op);
RS_API void rs_pw_op_kept(rs_pw_op op, unsigned *mask, int *dtype);

#ifdef __cplusplus
}
#endif
#endif /* RUSSET_POINTWISE_OPS_H */
