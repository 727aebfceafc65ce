/* pointwise_ops.c: the pointwise engine's op table (russet/pointwise_ops.h).
 *
 * Each op's GLSL expression over the inputs a, b, c, d and the scalars
 * s0..s3 (kernels/pointwise.comp; the functions are kernels/common/ops*.glsl),
 * and the kinds of compute dtype its functions have overloads for.
 * tests/c/test_pointwise_ops.c compiles every op for every kind and fails
 * when a kind listed here does not compile or one left out does: the
 * table and the GLSL cannot drift apart. An op that a kind lacks runs
 * through host execution (rs_pointwise_run returns RS_ERR_UNSUPPORTED). */
#include "russet/pointwise_ops.h"

#include <stdio.h>

#include "engine/engine.h" /* rs_error */

typedef struct pw_entry {
    const char *expr;
    unsigned kinds;
    unsigned keep;  /* inputs of a fixed dtype (bit k: input k) */
    int keep_dt;    /* their dtype for the test, or RS_PW_KEEP_REAL */
} pw_entry;

static const pw_entry kOps[RS_PW_COUNT] = {
    [RS_PW_THRESHOLD] = {"rs_act_threshold(a, b, s0, s1)", RS_PWK_INT | RS_PWK_UINT | RS_PWK_FLOAT | RS_PWK_DOUBLE},
    [RS_PW_GELU_TANH] = {"rs_act_gelu_tanh(a)", RS_PWK_FLOAT | RS_PWK_DOUBLE},
    [RS_PW_GELU] = {"rs_act_gelu(a)", RS_PWK_FLOAT | RS_PWK_DOUBLE},
    [RS_PW_GELU_TANH_BACKWARD] = {"rs_act_gelu_tanh_backward(a, b)", RS_PWK_FLOAT | RS_PWK_DOUBLE},
    [RS_PW_GELU_BACKWARD] = {"rs_act_gelu_backward(a, b)", RS_PWK_FLOAT | RS_PWK_DOUBLE},
    [RS_PW_SILU] = {"rs_act_silu(a)", RS_PWK_FLOAT | RS_PWK_DOUBLE | RS_PWK_CFLOAT | RS_PWK_CDOUBLE},
    [RS_PW_MISH] = {"rs_act_mish(a)", RS_PWK_FLOAT | RS_PWK_DOUBLE},
    [RS_PW_HARDSIGMOID] = {"rs_act_hardsigmoid(a)", RS_PWK_FLOAT | RS_PWK_DOUBLE},
    [RS_PW_SILU_BACKWARD] = {"rs_act_silu_backward(a, b)", RS_PWK_FLOAT | RS_PWK_DOUBLE | RS_PWK_CFLOAT | RS_PWK_CDOUBLE},
    [RS_PW_HARDSIGMOID_BACKWARD] = {"rs_act_hardsigmoid_backward(a, b)", RS_PWK_FLOAT | RS_PWK_DOUBLE},
    [RS_PW_SIGMOID_BACKWARD] = {"rs_act_sigmoid_backward(a, b)", RS_PWK_FLOAT | RS_PWK_DOUBLE | RS_PWK_CFLOAT | RS_PWK_CDOUBLE},
    [RS_PW_TANH_BACKWARD] = {"rs_act_tanh_backward(a, b)", RS_PWK_FLOAT | RS_PWK_DOUBLE | RS_PWK_CFLOAT | RS_PWK_CDOUBLE},
    [RS_PW_LEAKY_RELU] = {"rs_act_leaky_relu(a, s0)", RS_PWK_FLOAT | RS_PWK_DOUBLE},
    [RS_PW_HARDSHRINK] = {"rs_act_hardshrink(a, s0)", RS_PWK_FLOAT | RS_PWK_DOUBLE},
    [RS_PW_SOFTSHRINK] = {"rs_act_softshrink(a, s0)", RS_PWK_FLOAT | RS_PWK_DOUBLE},
    [RS_PW_SHRINK_BACKWARD] = {"rs_act_shrink_backward(a, b, s0)", RS_PWK_FLOAT | RS_PWK_DOUBLE},
    [RS_PW_LEAKY_RELU_BACKWARD] = {"rs_act_leaky_relu_backward(a, b, s0)", RS_PWK_FLOAT | RS_PWK_DOUBLE},
    [RS_PW_SOFTPLUS] = {"rs_act_softplus(a, s0, s1)", RS_PWK_FLOAT | RS_PWK_DOUBLE},
    [RS_PW_SOFTPLUS_BACKWARD] = {"rs_act_softplus_backward(a, b, s0, s1)", RS_PWK_FLOAT | RS_PWK_DOUBLE},
    [RS_PW_ELU] = {"rs_act_elu(a, s0, s1, s2)", RS_PWK_FLOAT | RS_PWK_DOUBLE},
    [RS_PW_ELU_BACKWARD_OF_RESULT] = {"rs_act_elu_backward(a, b, s0, s1, s2, true)", RS_PWK_FLOAT | RS_PWK_DOUBLE},
    [RS_PW_ELU_BACKWARD] = {"rs_act_elu_backward(a, b, s0, s1, s2, false)", RS_PWK_FLOAT | RS_PWK_DOUBLE},
    [RS_PW_LOGIT_BACKWARD] = {"rs_act_logit_backward(a, b, s0)", RS_PWK_FLOAT | RS_PWK_DOUBLE},
    [RS_PW_GLU] = {"rs_act_glu(a, b)", RS_PWK_FLOAT},
    [RS_PW_HARDTANH_BACKWARD] = {"rs_act_hardtanh_backward(a, b, s0, s1)", RS_PWK_INT | RS_PWK_FLOAT | RS_PWK_DOUBLE},
    [RS_PW_HARDSWISH] = {"rs_act_hardswish(a)", RS_PWK_FLOAT | RS_PWK_DOUBLE},
    [RS_PW_HARDSWISH_BACKWARD] = {"rs_act_hardswish_backward(a, b)", RS_PWK_FLOAT | RS_PWK_DOUBLE},
    [RS_PW_GLU_BACKWARD] = {"rs_act_glu_backward(a, b, c)", RS_PWK_FLOAT},
    [RS_PW_MISH_BACKWARD] = {"rs_act_mish_backward(a, b)", RS_PWK_FLOAT | RS_PWK_DOUBLE},
    [RS_PW_LOG_SIGMOID] = {"rs_act_log_sigmoid(a)", RS_PWK_FLOAT | RS_PWK_DOUBLE},
    [RS_PW_LOG_SIGMOID_BUFFER] = {"rs_act_log_sigmoid_buffer(a)", RS_PWK_FLOAT | RS_PWK_DOUBLE},
    [RS_PW_LOG_SIGMOID_BACKWARD] = {"rs_act_log_sigmoid_backward(a, b, c)", RS_PWK_FLOAT | RS_PWK_DOUBLE},
    [RS_PW_PRELU] = {"rs_act_prelu(a, b)", RS_PWK_FLOAT | RS_PWK_DOUBLE},
    [RS_PW_PRELU_GRAD_INPUT] = {"rs_act_prelu_grad_input(a, b, c)", RS_PWK_FLOAT | RS_PWK_DOUBLE},
    [RS_PW_PRELU_GRAD_WEIGHT] = {"rs_act_prelu_grad_weight(a, b, c)", RS_PWK_FLOAT | RS_PWK_DOUBLE},
    [RS_PW_RRELU_NOISE] = {"rs_act_rrelu_noise(a, b)", RS_PWK_FLOAT | RS_PWK_DOUBLE},
    [RS_PW_MUL] = {"rs_mul(a, b)", RS_PWK_ALL},
    [RS_PW_BINARY_CROSS_ENTROPY] = {"rs_loss_bce(a, b)", RS_PWK_FLOAT | RS_PWK_DOUBLE},
    [RS_PW_BINARY_CROSS_ENTROPY_BACKWARD] = {"rs_loss_bce_backward(a, b, c)", RS_PWK_FLOAT | RS_PWK_DOUBLE},
    [RS_PW_MSE_LOSS] = {"rs_loss_mse(a, b)", RS_PWK_FLOAT | RS_PWK_DOUBLE},
    [RS_PW_MSE_LOSS_BACKWARD] = {"rs_loss_mse_backward(a, b, c, s0)", RS_PWK_FLOAT | RS_PWK_DOUBLE},
    [RS_PW_SMOOTH_L1_LOSS] = {"rs_loss_smooth_l1(a, b, s0, s1)", RS_PWK_FLOAT | RS_PWK_DOUBLE},
    [RS_PW_SMOOTH_L1_LOSS_BACKWARD] = {"rs_loss_smooth_l1_backward(a, b, c, s0, s1)", RS_PWK_FLOAT | RS_PWK_DOUBLE},
    [RS_PW_HUBER_LOSS] = {"rs_loss_huber(a, b, s0, s1)", RS_PWK_FLOAT | RS_PWK_DOUBLE},
    [RS_PW_HUBER_LOSS_BACKWARD] = {"rs_loss_huber_backward(a, b, c, s0, s1, s2)", RS_PWK_FLOAT | RS_PWK_DOUBLE},
    [RS_PW_ADD] = {"rs_add(a, b, s0)", RS_PWK_ALL},
    [RS_PW_SUB] = {"rs_sub(a, b, s0)", RS_PWK_ALL},
    [RS_PW_DIV_SCALAR] = {"rs_div(a, s0)", RS_PWK_FLOAT | RS_PWK_DOUBLE | RS_PWK_CFLOAT | RS_PWK_CDOUBLE},
    [RS_PW_DIV] = {"rs_div(a, b)", RS_PWK_FLOAT | RS_PWK_DOUBLE | RS_PWK_CFLOAT | RS_PWK_CDOUBLE},
    [RS_PW_DIV_TRUNC_SCALAR] = {"rs_op_trunc(a / s0)", RS_PWK_INT | RS_PWK_UINT | RS_PWK_FLOAT | RS_PWK_DOUBLE},
    [RS_PW_DIV_TRUNC_FLOAT] = {"rs_op_trunc(a / b)", RS_PWK_INT | RS_PWK_UINT | RS_PWK_FLOAT | RS_PWK_DOUBLE},
    [RS_PW_DIV_TRUNC] = {"rs_div_trunc(a, b)", RS_PWK_INT | RS_PWK_UINT | RS_PWK_FLOAT | RS_PWK_DOUBLE},
    [RS_PW_DIV_FLOOR_SCALAR] = {"rs_div_floor(a, s0)", RS_PWK_INT | RS_PWK_UINT | RS_PWK_FLOAT | RS_PWK_DOUBLE},
    [RS_PW_DIV_FLOOR] = {"rs_div_floor(a, b)", RS_PWK_INT | RS_PWK_UINT | RS_PWK_FLOAT | RS_PWK_DOUBLE},
    [RS_PW_MUL_SCALAR] = {"rs_mul(a, s0)", RS_PWK_ALL},
    [RS_PW_REMAINDER] = {"rs_remainder(a, b)", RS_PWK_INT | RS_PWK_UINT | RS_PWK_FLOAT | RS_PWK_DOUBLE},
    [RS_PW_FMOD] = {"rs_fmod(a, b)", RS_PWK_INT | RS_PWK_UINT | RS_PWK_FLOAT | RS_PWK_DOUBLE},
    [RS_PW_MAXIMUM] = {"rs_maximum(a, b)", RS_PWK_BOOL | RS_PWK_INT | RS_PWK_UINT | RS_PWK_FLOAT | RS_PWK_DOUBLE},
    [RS_PW_MINIMUM] = {"rs_minimum(a, b)", RS_PWK_BOOL | RS_PWK_INT | RS_PWK_UINT | RS_PWK_FLOAT | RS_PWK_DOUBLE},
    [RS_PW_FMAX] = {"rs_fmax(a, b)", RS_PWK_BOOL | RS_PWK_INT | RS_PWK_UINT | RS_PWK_FLOAT | RS_PWK_DOUBLE},
    [RS_PW_FMIN] = {"rs_fmin(a, b)", RS_PWK_BOOL | RS_PWK_INT | RS_PWK_UINT | RS_PWK_FLOAT | RS_PWK_DOUBLE},
    [RS_PW_ATAN2] = {"rs_atan2(a, b)", RS_PWK_FLOAT | RS_PWK_DOUBLE},
    [RS_PW_BITWISE_AND] = {"rs_band(a, b)", RS_PWK_BOOL | RS_PWK_INT | RS_PWK_UINT},
    [RS_PW_BITWISE_OR] = {"rs_bor(a, b)", RS_PWK_BOOL | RS_PWK_INT | RS_PWK_UINT},
    [RS_PW_BITWISE_XOR] = {"rs_bxor(a, b)", RS_PWK_BOOL | RS_PWK_INT | RS_PWK_UINT},
    [RS_PW_SHIFT_LEFT] = {"rs_shl(a, b, RS_CT_BITS)", RS_PWK_INT | RS_PWK_UINT},
    [RS_PW_SHIFT_RIGHT] = {"rs_shr(a, b, RS_CT_BITS)", RS_PWK_INT | RS_PWK_UINT},
    [RS_PW_GCD] = {"rs_mx_gcd(a, b)", RS_PWK_INT},
    [RS_PW_LCM] = {"rs_mx_lcm(a, b)", RS_PWK_INT},
    [RS_PW_EQ] = {"rs_eq(a, b)", RS_PWK_ALL},
    [RS_PW_NE] = {"rs_ne(a, b)", RS_PWK_ALL},
    [RS_PW_LT] = {"rs_lt(a, b)", RS_PWK_BOOL | RS_PWK_INT | RS_PWK_UINT | RS_PWK_FLOAT | RS_PWK_DOUBLE},
    [RS_PW_LE] = {"rs_le(a, b)", RS_PWK_BOOL | RS_PWK_INT | RS_PWK_UINT | RS_PWK_FLOAT | RS_PWK_DOUBLE},
    [RS_PW_GT] = {"rs_gt(a, b)", RS_PWK_BOOL | RS_PWK_INT | RS_PWK_UINT | RS_PWK_FLOAT | RS_PWK_DOUBLE},
    [RS_PW_GE] = {"rs_ge(a, b)", RS_PWK_BOOL | RS_PWK_INT | RS_PWK_UINT | RS_PWK_FLOAT | RS_PWK_DOUBLE},
    [RS_PW_ADDR_ROUNDED] = {"(RS_ROUND(OUT_DT)(RS_ROUND(OUT_DT)(s0 * b) * c) + RS_ROUND(OUT_DT)(s1 * a))", RS_PWK_FLOAT},
    [RS_PW_ADDR_ROUNDED_NO_SELF] = {"(RS_ROUND(OUT_DT)(s0 * b) * c)", RS_PWK_FLOAT},
    [RS_PW_ABS] = {"rs_abs(a)", RS_PWK_BOOL | RS_PWK_INT | RS_PWK_UINT | RS_PWK_FLOAT | RS_PWK_DOUBLE},
    [RS_PW_ABS_AS_COMPLEX] = {"vec2(rs_op_abs(a), 0.0)", RS_PWK_CFLOAT | RS_PWK_CDOUBLE},
    [RS_PW_ABS_OF_COMPLEX] = {"rs_op_abs(a)", RS_PWK_CFLOAT | RS_PWK_CDOUBLE},
    [RS_PW_ANGLE] = {"rs_op_angle(a)", RS_PWK_FLOAT | RS_PWK_DOUBLE | RS_PWK_CFLOAT | RS_PWK_CDOUBLE},
    [RS_PW_ANGLE_AS_COMPLEX] = {"vec2(rs_op_angle(a), 0.0)", RS_PWK_CFLOAT | RS_PWK_CDOUBLE},
    [RS_PW_CONJ] = {"rs_op_conj(a)", RS_PWK_ALL},
    [RS_PW_POLAR] = {"rs_op_polar(a, b)", RS_PWK_CFLOAT | RS_PWK_CDOUBLE, 3, RS_PW_KEEP_REAL},
    [RS_PW_COMPLEX] = {"rs_op_complex(a, b)", RS_PWK_CFLOAT | RS_PWK_CDOUBLE, 3, RS_PW_KEEP_REAL},
    [RS_PW_NEG_CONJ] = {"rs_neg(rs_op_conj(a))", RS_PWK_INT | RS_PWK_UINT | RS_PWK_FLOAT | RS_PWK_DOUBLE | RS_PWK_CFLOAT | RS_PWK_CDOUBLE},
    [RS_PW_NEG] = {"rs_neg(a)", RS_PWK_INT | RS_PWK_UINT | RS_PWK_FLOAT | RS_PWK_DOUBLE | RS_PWK_CFLOAT | RS_PWK_CDOUBLE},
    [RS_PW_RENORM_FACTOR] = {"(a > s0 ? s0 / (a + 1e-7) : 1.0)", RS_PWK_FLOAT | RS_PWK_DOUBLE},
    [RS_PW_CLAMP] = {"rs_clamp(a, s0, s1)", RS_PWK_BOOL | RS_PWK_INT | RS_PWK_UINT | RS_PWK_FLOAT | RS_PWK_DOUBLE},
    [RS_PW_CLAMP_MAX] = {"rs_clamp_max(a, s0)", RS_PWK_BOOL | RS_PWK_INT | RS_PWK_UINT | RS_PWK_FLOAT | RS_PWK_DOUBLE},
    [RS_PW_CLAMP_MIN] = {"rs_clamp_min(a, s0)", RS_PWK_BOOL | RS_PWK_INT | RS_PWK_UINT | RS_PWK_FLOAT | RS_PWK_DOUBLE},
    [RS_PW_CLAMP_TENSOR] = {"rs_minimum(rs_maximum(a, b), c)", RS_PWK_BOOL | RS_PWK_INT | RS_PWK_UINT | RS_PWK_FLOAT | RS_PWK_DOUBLE},
    [RS_PW_HYPOT] = {"rs_mx_hypot(a, b)", RS_PWK_FLOAT | RS_PWK_DOUBLE},
    [RS_PW_COPYSIGN] = {"rs_mx_copysign(a, b)", RS_PWK_FLOAT | RS_PWK_DOUBLE},
    [RS_PW_NEXTAFTER] = {"rs_mx_nextafter(a, b)", RS_PWK_FLOAT | RS_PWK_DOUBLE},
    [RS_PW_XLOGY] = {"rs_mx_xlogy(a, b)", RS_PWK_FLOAT | RS_PWK_DOUBLE},
    [RS_PW_LOGADDEXP] = {"rs_mx_logaddexp(a, b)", RS_PWK_FLOAT | RS_PWK_DOUBLE | RS_PWK_CFLOAT | RS_PWK_CDOUBLE},
    [RS_PW_LOGADDEXP2] = {"rs_mx_logaddexp2(a, b)", RS_PWK_FLOAT | RS_PWK_DOUBLE},
    [RS_PW_HEAVISIDE] = {"rs_mx_heaviside(a, b)", RS_PWK_BOOL | RS_PWK_INT | RS_PWK_UINT | RS_PWK_FLOAT | RS_PWK_DOUBLE},
    [RS_PW_POW] = {"rs_mx_pow(a, b)", RS_PWK_INT | RS_PWK_UINT | RS_PWK_FLOAT | RS_PWK_DOUBLE | RS_PWK_CFLOAT | RS_PWK_CDOUBLE},
    [RS_PW_SQRT] = {"rs_op_sqrt(a)", RS_PWK_FLOAT | RS_PWK_DOUBLE | RS_PWK_CFLOAT | RS_PWK_CDOUBLE},
    [RS_PW_RSQRT] = {"rs_op_rsqrt(a)", RS_PWK_FLOAT | RS_PWK_DOUBLE | RS_PWK_CFLOAT | RS_PWK_CDOUBLE},
    [RS_PW_RECIPROCAL] = {"rs_op_reciprocal(a)", RS_PWK_FLOAT | RS_PWK_DOUBLE | RS_PWK_CFLOAT | RS_PWK_CDOUBLE},
    [RS_PW_SQUARE] = {"rs_mul(a, a)", RS_PWK_ALL},
    [RS_PW_CUBE] = {"rs_mx_cube(a)", RS_PWK_FLOAT | RS_PWK_DOUBLE | RS_PWK_CFLOAT | RS_PWK_CDOUBLE},
    [RS_PW_INV_SQ] = {"rs_mx_inv_sq(a)", RS_PWK_FLOAT | RS_PWK_DOUBLE | RS_PWK_CFLOAT | RS_PWK_CDOUBLE},
    [RS_PW_POW_SCALAR] = {"rs_mx_pow(a, s0)", RS_PWK_INT | RS_PWK_UINT | RS_PWK_FLOAT | RS_PWK_DOUBLE | RS_PWK_CFLOAT | RS_PWK_CDOUBLE},
    [RS_PW_LERP_SCALAR] = {"rs_mx_lerp(a, b, s0)", RS_PWK_FLOAT | RS_PWK_DOUBLE | RS_PWK_CFLOAT | RS_PWK_CDOUBLE},
    [RS_PW_LERP] = {"rs_mx_lerp(a, b, c)", RS_PWK_FLOAT | RS_PWK_DOUBLE | RS_PWK_CFLOAT | RS_PWK_CDOUBLE},
    [RS_PW_ADDCMUL] = {"rs_mx_addcmul(a, b, c, s0)", RS_PWK_ALL},
    [RS_PW_ADDCDIV] = {"rs_mx_addcdiv(a, b, c, s0)", RS_PWK_FLOAT | RS_PWK_DOUBLE | RS_PWK_CFLOAT | RS_PWK_CDOUBLE},
    [RS_PW_WHERE] = {"(a ? b : c)", RS_PWK_ALL, 1, RS_BOOL},
    [RS_PW_MASKED_FILL] = {"(a ? s0 : b)", RS_PWK_ALL, 1, RS_BOOL},
    [RS_PW_MASKED_FILL_TENSOR] = {"(a ? c : b)", RS_PWK_ALL, 1, RS_BOOL},
    [RS_PW_LOGICAL_AND] = {"(rs_truth(a) && rs_truth(b))", RS_PWK_ALL},
    [RS_PW_LOGICAL_OR] = {"(rs_truth(a) || rs_truth(b))", RS_PWK_ALL},
    [RS_PW_LOGICAL_XOR] = {"(rs_truth(a) != rs_truth(b))", RS_PWK_ALL},
    [RS_PW_NAN_TO_NUM] = {"rs_mx_nan_to_num(a, s0, s1, s2)", RS_PWK_FLOAT | RS_PWK_DOUBLE},
    [RS_PW_EXPONENTIAL] = {"rs_mx_exponential(a, s0)", RS_PWK_FLOAT},
    [RS_PW_DROPOUT] = {"rs_mx_dropout(a, b, s0)", RS_PWK_FLOAT, 2, RS_BOOL},
    [RS_PW_HASH_F32] = {"rs_mx_hash_f32(a)", RS_PWK_INT},
    [RS_PW_HASH_F16] = {"rs_mx_hash_f16(a)", RS_PWK_INT},
    [RS_PW_HASH_BF16] = {"rs_mx_hash_bf16(a)", RS_PWK_INT},
    [RS_PW_SEGMENT_LENGTH] = {"rs_mx_segment_length(a)", RS_PWK_INT},
    [RS_PW_ERFINV] = {"rs_op_erfinv(a)", RS_PWK_FLOAT | RS_PWK_DOUBLE},
    [RS_PW_LGAMMA] = {"rs_op_lgamma(a)", RS_PWK_FLOAT},
    [RS_PW_DIGAMMA] = {"rs_op_digamma(a)", RS_PWK_FLOAT | RS_PWK_DOUBLE},
    [RS_PW_I0] = {"rs_op_i0(a)", RS_PWK_FLOAT | RS_PWK_DOUBLE},
    [RS_PW_I0E] = {"rs_op_i0e(a)", RS_PWK_FLOAT | RS_PWK_DOUBLE},
    [RS_PW_I1] = {"rs_op_i1(a)", RS_PWK_FLOAT | RS_PWK_DOUBLE},
    [RS_PW_I1E] = {"rs_op_i1e(a)", RS_PWK_FLOAT | RS_PWK_DOUBLE},
    [RS_PW_ENTR] = {"rs_op_entr(a)", RS_PWK_FLOAT | RS_PWK_DOUBLE},
    [RS_PW_LOG_NDTR] = {"rs_op_log_ndtr(a)", RS_PWK_FLOAT},
    [RS_PW_XLOG1PY] = {"rs_op_xlog1py(a, b)", RS_PWK_FLOAT | RS_PWK_DOUBLE},
    [RS_PW_ZETA] = {"rs_op_zeta(a, b)", RS_PWK_FLOAT | RS_PWK_DOUBLE},
    [RS_PW_IGAMMA] = {"rs_op_igamma(a, b)", RS_PWK_FLOAT},
    [RS_PW_IGAMMAC] = {"rs_op_igammac(a, b)", RS_PWK_FLOAT},
    [RS_PW_NDTRI] = {"rs_op_ndtri(a)", RS_PWK_FLOAT | RS_PWK_DOUBLE},
    [RS_PW_ERFCX] = {"rs_op_erfcx(a)", RS_PWK_FLOAT},
    [RS_PW_BESSEL_J0] = {"rs_sp_bessel_j0(a)", RS_PWK_FLOAT | RS_PWK_DOUBLE},
    [RS_PW_BESSEL_J1] = {"rs_sp_bessel_j1(a)", RS_PWK_FLOAT | RS_PWK_DOUBLE},
    [RS_PW_BESSEL_Y0] = {"rs_sp_bessel_y0(a)", RS_PWK_FLOAT | RS_PWK_DOUBLE},
    [RS_PW_BESSEL_Y1] = {"rs_sp_bessel_y1(a)", RS_PWK_FLOAT | RS_PWK_DOUBLE},
    [RS_PW_MODIFIED_BESSEL_I0] = {"rs_sp_modified_bessel_i0(a)", RS_PWK_FLOAT | RS_PWK_DOUBLE},
    [RS_PW_MODIFIED_BESSEL_I1] = {"rs_sp_modified_bessel_i1(a)", RS_PWK_FLOAT | RS_PWK_DOUBLE},
    [RS_PW_MODIFIED_BESSEL_K0] = {"rs_sp_modified_bessel_k0(a)", RS_PWK_FLOAT | RS_PWK_DOUBLE},
    [RS_PW_MODIFIED_BESSEL_K1] = {"rs_sp_modified_bessel_k1(a)", RS_PWK_FLOAT | RS_PWK_DOUBLE},
    [RS_PW_SCALED_MODIFIED_BESSEL_K0] = {"rs_sp_scaled_modified_bessel_k0(a)", RS_PWK_FLOAT | RS_PWK_DOUBLE},
    [RS_PW_SCALED_MODIFIED_BESSEL_K1] = {"rs_sp_scaled_modified_bessel_k1(a)", RS_PWK_FLOAT | RS_PWK_DOUBLE},
    [RS_PW_SPHERICAL_BESSEL_J0] = {"rs_sp_spherical_bessel_j0(a)", RS_PWK_FLOAT | RS_PWK_DOUBLE},
    [RS_PW_AIRY_AI] = {"rs_sp_airy_ai(a)", RS_PWK_FLOAT | RS_PWK_DOUBLE},
    [RS_PW_CHEBYSHEV_POLYNOMIAL_T] = {"rs_sp_chebyshev_polynomial_t(a, rs_m_poly_n(b))", RS_PWK_FLOAT | RS_PWK_DOUBLE},
    [RS_PW_CHEBYSHEV_POLYNOMIAL_U] = {"rs_sp_chebyshev_polynomial_u(a, rs_m_poly_n(b))", RS_PWK_FLOAT | RS_PWK_DOUBLE},
    [RS_PW_CHEBYSHEV_POLYNOMIAL_V] = {"rs_sp_chebyshev_polynomial_v(a, rs_m_poly_n(b))", RS_PWK_FLOAT | RS_PWK_DOUBLE},
    [RS_PW_CHEBYSHEV_POLYNOMIAL_W] = {"rs_sp_chebyshev_polynomial_w(a, rs_m_poly_n(b))", RS_PWK_FLOAT | RS_PWK_DOUBLE},
    [RS_PW_SHIFTED_CHEBYSHEV_POLYNOMIAL_T] = {"rs_sp_shifted_chebyshev_polynomial_t(a, rs_m_poly_n(b))", RS_PWK_FLOAT | RS_PWK_DOUBLE},
    [RS_PW_SHIFTED_CHEBYSHEV_POLYNOMIAL_U] = {"rs_sp_shifted_chebyshev_polynomial_u(a, rs_m_poly_n(b))", RS_PWK_FLOAT | RS_PWK_DOUBLE},
    [RS_PW_SHIFTED_CHEBYSHEV_POLYNOMIAL_V] = {"rs_sp_shifted_chebyshev_polynomial_v(a, rs_m_poly_n(b))", RS_PWK_FLOAT | RS_PWK_DOUBLE},
    [RS_PW_SHIFTED_CHEBYSHEV_POLYNOMIAL_W] = {"rs_sp_shifted_chebyshev_polynomial_w(a, rs_m_poly_n(b))", RS_PWK_FLOAT | RS_PWK_DOUBLE},
    [RS_PW_HERMITE_POLYNOMIAL_H] = {"rs_sp_hermite_polynomial_h(a, rs_m_poly_n(b))", RS_PWK_FLOAT | RS_PWK_DOUBLE},
    [RS_PW_HERMITE_POLYNOMIAL_HE] = {"rs_sp_hermite_polynomial_he(a, rs_m_poly_n(b))", RS_PWK_FLOAT | RS_PWK_DOUBLE},
    [RS_PW_LAGUERRE_POLYNOMIAL_L] = {"rs_sp_laguerre_polynomial_l(a, rs_m_poly_n(b))", RS_PWK_FLOAT | RS_PWK_DOUBLE},
    [RS_PW_LEGENDRE_POLYNOMIAL_P] = {"rs_sp_legendre_polynomial_p(a, rs_m_poly_n(b))", RS_PWK_FLOAT | RS_PWK_DOUBLE},
    [RS_PW_SIGN] = {"rs_sign(a)", RS_PWK_BOOL | RS_PWK_INT | RS_PWK_UINT | RS_PWK_FLOAT | RS_PWK_DOUBLE},
    [RS_PW_SGN] = {"rs_op_sgn(a)", RS_PWK_ALL},
    [RS_PW_TRUNC] = {"rs_op_trunc(a)", RS_PWK_BOOL | RS_PWK_INT | RS_PWK_UINT | RS_PWK_FLOAT | RS_PWK_DOUBLE},
    [RS_PW_FLOOR] = {"rs_op_floor(a)", RS_PWK_BOOL | RS_PWK_INT | RS_PWK_UINT | RS_PWK_FLOAT | RS_PWK_DOUBLE},
    [RS_PW_CEIL] = {"rs_op_ceil(a)", RS_PWK_BOOL | RS_PWK_INT | RS_PWK_UINT | RS_PWK_FLOAT | RS_PWK_DOUBLE},
    [RS_PW_ROUND] = {"rs_op_round(a)", RS_PWK_BOOL | RS_PWK_INT | RS_PWK_UINT | RS_PWK_FLOAT | RS_PWK_DOUBLE},
    [RS_PW_FRAC] = {"rs_op_frac(a)", RS_PWK_FLOAT | RS_PWK_DOUBLE},
    [RS_PW_SIGNBIT] = {"rs_op_signbit(a)", RS_PWK_BOOL | RS_PWK_INT | RS_PWK_UINT | RS_PWK_FLOAT | RS_PWK_DOUBLE},
    [RS_PW_ISPOSINF] = {"rs_op_isposinf(a)", RS_PWK_BOOL | RS_PWK_INT | RS_PWK_UINT | RS_PWK_FLOAT | RS_PWK_DOUBLE},
    [RS_PW_ISNEGINF] = {"rs_op_isneginf(a)", RS_PWK_BOOL | RS_PWK_INT | RS_PWK_UINT | RS_PWK_FLOAT | RS_PWK_DOUBLE},
    [RS_PW_BITWISE_NOT] = {"rs_bnot(a)", RS_PWK_BOOL | RS_PWK_INT | RS_PWK_UINT},
    [RS_PW_EXP] = {"rs_op_exp(a)", RS_PWK_FLOAT | RS_PWK_DOUBLE | RS_PWK_CFLOAT | RS_PWK_CDOUBLE},
    [RS_PW_EXP2] = {"rs_op_exp2(a)", RS_PWK_FLOAT | RS_PWK_DOUBLE | RS_PWK_CFLOAT | RS_PWK_CDOUBLE},
    [RS_PW_EXPM1] = {"rs_op_expm1(a)", RS_PWK_FLOAT | RS_PWK_DOUBLE | RS_PWK_CFLOAT | RS_PWK_CDOUBLE},
    [RS_PW_LOG] = {"rs_op_log(a)", RS_PWK_FLOAT | RS_PWK_DOUBLE | RS_PWK_CFLOAT | RS_PWK_CDOUBLE},
    [RS_PW_LOG2] = {"rs_op_log2(a)", RS_PWK_FLOAT | RS_PWK_DOUBLE | RS_PWK_CFLOAT | RS_PWK_CDOUBLE},
    [RS_PW_LOG10] = {"rs_op_log10(a)", RS_PWK_FLOAT | RS_PWK_DOUBLE | RS_PWK_CFLOAT | RS_PWK_CDOUBLE},
    [RS_PW_LOG1P] = {"rs_op_log1p(a)", RS_PWK_FLOAT | RS_PWK_DOUBLE | RS_PWK_CFLOAT | RS_PWK_CDOUBLE},
    [RS_PW_SIN] = {"rs_op_sin(a)", RS_PWK_FLOAT | RS_PWK_DOUBLE | RS_PWK_CFLOAT | RS_PWK_CDOUBLE},
    [RS_PW_COS] = {"rs_op_cos(a)", RS_PWK_FLOAT | RS_PWK_DOUBLE | RS_PWK_CFLOAT | RS_PWK_CDOUBLE},
    [RS_PW_TAN] = {"rs_op_tan(a)", RS_PWK_FLOAT | RS_PWK_DOUBLE | RS_PWK_CFLOAT | RS_PWK_CDOUBLE},
    [RS_PW_ASIN] = {"rs_op_asin(a)", RS_PWK_FLOAT | RS_PWK_DOUBLE | RS_PWK_CFLOAT | RS_PWK_CDOUBLE},
    [RS_PW_ACOS] = {"rs_op_acos(a)", RS_PWK_FLOAT | RS_PWK_DOUBLE | RS_PWK_CFLOAT | RS_PWK_CDOUBLE},
    [RS_PW_ATAN] = {"rs_op_atan(a)", RS_PWK_FLOAT | RS_PWK_DOUBLE | RS_PWK_CFLOAT | RS_PWK_CDOUBLE},
    [RS_PW_SINH] = {"rs_op_sinh(a)", RS_PWK_FLOAT | RS_PWK_DOUBLE | RS_PWK_CFLOAT | RS_PWK_CDOUBLE},
    [RS_PW_COSH] = {"rs_op_cosh(a)", RS_PWK_FLOAT | RS_PWK_DOUBLE | RS_PWK_CFLOAT | RS_PWK_CDOUBLE},
    [RS_PW_TANH] = {"rs_op_tanh(a)", RS_PWK_FLOAT | RS_PWK_DOUBLE | RS_PWK_CFLOAT | RS_PWK_CDOUBLE},
    [RS_PW_ASINH] = {"rs_op_asinh(a)", RS_PWK_FLOAT | RS_PWK_DOUBLE | RS_PWK_CFLOAT | RS_PWK_CDOUBLE},
    [RS_PW_ACOSH] = {"rs_op_acosh(a)", RS_PWK_FLOAT | RS_PWK_DOUBLE | RS_PWK_CFLOAT | RS_PWK_CDOUBLE},
    [RS_PW_ATANH] = {"rs_op_atanh(a)", RS_PWK_FLOAT | RS_PWK_DOUBLE | RS_PWK_CFLOAT | RS_PWK_CDOUBLE},
    [RS_PW_SIGMOID] = {"rs_op_sigmoid(a)", RS_PWK_FLOAT | RS_PWK_DOUBLE | RS_PWK_CFLOAT | RS_PWK_CDOUBLE},
    [RS_PW_ERF] = {"rs_op_erf(a)", RS_PWK_FLOAT | RS_PWK_DOUBLE},
    [RS_PW_ERFC] = {"rs_op_erfc(a)", RS_PWK_FLOAT | RS_PWK_DOUBLE},
    [RS_PW_SINC] = {"rs_op_sinc(a)", RS_PWK_FLOAT | RS_PWK_DOUBLE | RS_PWK_CFLOAT | RS_PWK_CDOUBLE},
    [RS_PW_LOGICAL_NOT] = {"rs_op_not(a)", RS_PWK_ALL},
    [RS_PW_ISNAN] = {"rs_op_isnan(a)", RS_PWK_ALL},
    [RS_PW_ISINF] = {"rs_op_isinf(a)", RS_PWK_ALL},
    [RS_PW_LOGIT] = {"rs_op_logit(a, s0)", RS_PWK_FLOAT | RS_PWK_DOUBLE},
    [RS_PW_FREXP_EXPONENT] = {"rs_mx_frexp_exponent(a)", RS_PWK_FLOAT},
    [RS_PW_FREXP_MANTISSA] = {"rs_mx_frexp_mantissa(a)", RS_PWK_FLOAT},
    [RS_PW_LDEXP] = {"rs_mx_ldexp(a, b)", RS_PWK_FLOAT | RS_PWK_DOUBLE, 2, RS_INT64}, /* b: the integer exponent */
    [RS_PW_POLYGAMMA] = {"rs_op_polygamma(a, int(s0))", RS_PWK_FLOAT | RS_PWK_DOUBLE},
    [RS_PW_MVLGAMMA] = {"rs_op_mvlgamma(a, int(s0), s1)", RS_PWK_FLOAT},
    [RS_PW_ROUND_DECIMALS] = {"rs_op_round_dec(a, s0, s1 != 0.0)", RS_PWK_FLOAT | RS_PWK_DOUBLE},
    /* the fused optimizers' steps (src/torch/ops/fused_optim.cpp): $0
     * maximize, $1 weight decay, $2 the first step, $3 how the parameter
     * moves (0 by the gradient, 1 the momentum buffer, 2 Nesterov); d is
     * found_inf (0 without it): where it is 1 the output keeps its value */
    [RS_PW_FUSED_UNSCALE] = {"(a / b)", RS_PWK_INT | RS_PWK_UINT | RS_PWK_FLOAT | RS_PWK_DOUBLE | RS_PWK_CFLOAT | RS_PWK_CDOUBLE},
    [RS_PW_FUSED_UNSCALE_UNLESS_FOUND] = {"(c == 1.0 ? a : (a / b))", RS_PWK_FLOAT | RS_PWK_DOUBLE},
    [RS_PW_FUSED_ADAM_M] = {"rs_mx_adam_m(a, rs_mx_adam_grad(b, c, s1, $0 != 0, $1 != 0), s0)", RS_PWK_FLOAT},
    [RS_PW_FUSED_ADAM_V] = {"rs_mx_adam_v(a, rs_mx_adam_grad(b, c, s2, $0 != 0, $1 != 0), s0, s1)", RS_PWK_FLOAT},
    [RS_PW_FUSED_ADAM_PARAM] = {"rs_mx_adam_param(a, b, c, s0, s1, s2, s3)", RS_PWK_FLOAT},
    [RS_PW_FUSED_ADAGRAD_SUM] = {"rs_mx_adagrad_sum(a, rs_mx_adam_grad(b, c, s0, $0 != 0, $1 != 0))", RS_PWK_FLOAT},
    [RS_PW_FUSED_ADAGRAD_PARAM] = {"rs_mx_adagrad_param(a, rs_mx_adam_grad(b, a, s0, $0 != 0, $1 != 0), c, s1, s2)", RS_PWK_FLOAT},
    [RS_PW_FUSED_SGD_BUF] = {"(d == 1.0 ? a : ($2 != 0 ? rs_mx_sgd_grad(b, c, s0, $0 != 0, $1 != 0) "
                       ": rs_mx_sgd_buf(a, rs_mx_sgd_grad(b, c, s0, $0 != 0, $1 != 0), s1, s2)))", RS_PWK_FLOAT},
    [RS_PW_FUSED_SGD_PARAM] = {"(d == 1.0 ? a : rs_mx_sgd_param(a, rs_mx_sgd_grad(b, a, s0, $0 != 0, $1 != 0), c, s1, s2, $3))", RS_PWK_FLOAT},
    [RS_PW_FUSED_SGD_PARAM_FROM_OLD_BUF] = {"(d == 1.0 ? a : rs_mx_sgd_param(a, rs_mx_sgd_grad(b, a, s0, $0 != 0, $1 != 0), "
                       "($2 != 0 ? rs_mx_sgd_grad(b, a, s0, $0 != 0, $1 != 0) "
                       ": rs_mx_sgd_buf(c, rs_mx_sgd_grad(b, a, s0, $0 != 0, $1 != 0), s1, s3)), s1, s2, $3))", RS_PWK_FLOAT},
};

unsigned rs_pw_kind(rs_dtype t) {
    switch (t) {
    case RS_BOOL: return RS_PWK_BOOL;
    case RS_UINT64: return RS_PWK_UINT;
    case RS_FLOAT64: return RS_PWK_DOUBLE;
    case RS_COMPLEX32:
    case RS_COMPLEX64: return RS_PWK_CFLOAT;
    case RS_COMPLEX128: return RS_PWK_CDOUBLE;
    case RS_FLOAT16:
    case RS_FLOAT32:
    case RS_BFLOAT16:
    case RS_FLOAT8_E5M2:
    case RS_FLOAT8_E4M3FN:
    case RS_FLOAT8_E5M2FNUZ:
    case RS_FLOAT8_E4M3FNUZ:
    case RS_FLOAT8_E8M0FNU: return RS_PWK_FLOAT;
    default: return rs_dtype_valid((int)t) ? RS_PWK_INT : 0;
    }
}

/* op's row, or NULL for an id outside the table */
static const pw_entry *entry(rs_pw_op op) { return op > RS_PW_NONE && op < RS_PW_COUNT ? &kOps[op] : NULL; }

const char *rs_pw_op_expr(rs_pw_op op) { return entry(op) ? entry(op)->expr : NULL; }

rs_status rs_pw_op_text(rs_pw_op op, const int flags[RS_PW_MAX_FLAGS], char *buf, size_t cap) {
    const char *expr = rs_pw_op_expr(op);
    if (!expr) return rs_error(RS_ERR_INVALID, "rs_pointwise: no op %d in the table", (int)op);
    size_t len = 0;
    for (const char *c = expr; *c; c++) {
        int n = (c[0] == '$' && c[1] >= '0' && c[1] < '0' + RS_PW_MAX_FLAGS)
                    ? snprintf(buf + len, cap - len, "%d", flags[*++c - '0'])
                    : snprintf(buf + len, cap - len, "%c", *c);
        if (n < 0 || (size_t)n >= cap - len) return rs_error(RS_ERR_INVALID, "rs_pointwise: op %d's text is too long", (int)op);
        len += (size_t)n;
    }
    return RS_OK;
}

unsigned rs_pw_op_kinds(rs_pw_op op) { return entry(op) ? entry(op)->kinds : 0; }

int rs_pw_op_supports(rs_pw_op op, rs_dtype compute) { return (rs_pw_op_kinds(op) & rs_pw_kind(compute)) != 0; }

void rs_pw_op_kept(rs_pw_op op, unsigned *mask, int *dtype) {
    *mask = entry(op) ? entry(op)->keep : 0;
    *dtype = *mask ? entry(op)->keep_dt : 0;
}
