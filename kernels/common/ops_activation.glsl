// ops_activation.glsl: activations and the backward kernels autograd uses.
// Included by common/ops.glsl; overload per opmath type as ops.glsl explains.
// Each function follows aten/src/ATen/native/cpu/Activation.cpp (and
// BinaryOpsKernel.cpp for sigmoid/tanh/logit backward): the same comparisons
// (so NaN takes the same branch), the same order of operations. float16 and
// bfloat16 compute in float, as CPU's reduced-precision paths do. Backward
// functions take their operands in the order of ATen's TensorIterator
// (noted per function). Names carry the rs_act_ prefix.
#ifndef RS_OPS_ACTIVATION_GLSL
#define RS_OPS_ACTIVATION_GLSL

// max(x, 0) and min(x, 0) that propagate NaN (vec::maximum/minimum)
float rs_act_max0(float x) { return isnan(x) ? x : (x > 0.0 ? x : 0.0); }
float rs_act_min0(float x) { return isnan(x) ? x : (x < 0.0 ? x : 0.0); }
// std::min(std::max(v, 0), 6) as CPU's hardsigmoid/hardswish: NaN stays NaN
float rs_act_relu6(float v) {
    v = v < 0.0 ? 0.0 : v;
    return v > 6.0 ? 6.0 : v;
}

// ---------------------------------------------------------------- relu (legacy name)
float rs_relu(float x) { return rs_act_max0(x); }
int64_t rs_relu(int64_t x) { return rs_neg64(x) ? 0L : x; }

// ---------------------------------------------------------------- threshold
// threshold_kernel: x <= th ? v : other. threshold(self): (self, self);
// threshold_backward: (self, grad) with v = 0.
float rs_act_threshold(float x, float other, float th, float v) { return x <= th ? v : other; }
int64_t rs_act_threshold(int64_t x, int64_t other, int64_t th, int64_t v) { return x <= th ? v : other; }
uint64_t rs_act_threshold(uint64_t x, uint64_t other, uint64_t th, uint64_t v) { return x <= th ? v : other; }
#if RS_HAS_FP64
double rs_act_threshold(double x, double other, double th, double v) { return x <= th ? v : other; }
#endif

// ---------------------------------------------------------------- elu family
// elu_kernel with negcoef = alpha * scale, poscoef = scale, negiptcoef = input_scale
float rs_act_elu(float a, float negcoef, float poscoef, float negiptcoef) {
    return a <= 0.0 ? (rs_exp(a * negiptcoef) - 1.0) * negcoef : a * poscoef;
}
// elu_backward_kernel (grad, self_or_result)
float rs_act_elu_backward(float a, float b, float negcoef, float poscoef, float negiptcoef, bool is_result) {
    if (is_result) return b <= 0.0 ? a * negiptcoef * (b + negcoef) : a * poscoef;
    return b <= 0.0 ? a * negiptcoef * negcoef * rs_exp(b * negiptcoef) : a * poscoef;
}

// ---------------------------------------------------------------- leaky_relu
float rs_act_leaky_relu(float a, float negval) { return a > 0.0 ? a : a * negval; }
// leaky_relu_backward_kernel (self, grad)
float rs_act_leaky_relu_backward(float a, float b, float negval) { return a > 0.0 ? b : b * negval; }

// ---------------------------------------------------------------- glu
// glu_kernel over (first half, second half): a * (1 / (1 + exp(-b)))
float rs_act_glu(float a, float b) { return a * (1.0 / (1.0 + rs_exp(-b))); }
// glu_backward_kernel over (sigmoid(b), a, grad): (1 - s) * s * a * grad
float rs_act_glu_backward(float s, float a, float g) { return (1.0 - s) * s * a * g; }

// ---------------------------------------------------------------- gelu
float rs_act_gelu(float x) {
    const float kAlpha = 0.70710678118654752440;  // M_SQRT1_2
    return x * 0.5 * (1.0 + rs_erf(x * kAlpha));
}
float rs_act_gelu_tanh(float x) {
    const float kBeta = 0.79788456080286535588;  // M_SQRT2 * M_2_SQRTPI * 0.5
    const float kKappa = 0.044715;
    float x_cube = x * x * x;
    float inner = kBeta * (x + kKappa * x_cube);
    return 0.5 * x * (1.0 + rs_tanh(inner));
}
// GeluBackwardKernelImpl (dy, x)
float rs_act_gelu_backward(float dy, float x) {
    const float kAlpha = 0.70710678118654752440;
    const float kBeta = 0.39894228040143267794;  // M_2_SQRTPI * M_SQRT1_2 * 0.5
    float cdf = 0.5 * (1.0 + rs_erf(x * kAlpha));
    float pdf = kBeta * rs_exp(x * x * -0.5);
    return dy * (cdf + x * pdf);
}
float rs_act_gelu_tanh_backward(float dy, float x) {
    const float kBeta = 0.79788456080286535588;
    const float kKappa = 0.044715;
    float x_sq = x * x;
    float x_cube = x_sq * x;
    float inner = kBeta * (x + kKappa * x_cube);
    float tanh_inner = rs_tanh(inner);
    float left = 0.5 * x;
    float right = 1.0 + tanh_inner;
    float left_derivative = 0.5 * right;
    float tanh_derivative = 1.0 - tanh_inner * tanh_inner;
    float inner_derivative = kBeta * (1.0 + 3.0 * kKappa * x_sq);
    float right_derivative = left * tanh_derivative * inner_derivative;
    return dy * (left_derivative + right_derivative);
}

// ---------------------------------------------------------------- silu, mish
// complex exp (std::exp): the accurate one of ops_math.glsl (GLSL's
// builtins were off by 1e-4 on some silu samples)
vec2 rs_act_cexp(vec2 z) { return rs_op_exp(z); }
float rs_act_silu(float x) { return x / (1.0 + rs_exp(-x)); }
vec2 rs_act_silu(vec2 x) { return rs_cdiv(x, vec2(1.0, 0.0) + rs_act_cexp(-x)); }
// silu_backward_kernel (dy, x)
float rs_act_silu_backward(float dy, float x) {
    float sigmoid = 1.0 / (1.0 + rs_exp(-x));
    return dy * sigmoid * (1.0 + x * (1.0 - sigmoid));
}
vec2 rs_act_silu_backward(vec2 dy, vec2 x) {
    vec2 one = vec2(1.0, 0.0);
    vec2 sigmoid = rs_cdiv(one, one + rs_act_cexp(-x));
    return rs_cmul(rs_cmul(dy, sigmoid), one + rs_cmul(x, one - sigmoid));
}
float rs_act_mish(float x) { return x * rs_tanh(rs_log1p(rs_exp(x))); }
// mish_backward_kernel (dy, x)
float rs_act_mish_backward(float dy, float x) {
    float sigmoid = 1.0 / (1.0 + rs_exp(-x));
    float tanh_softplus = rs_tanh(rs_log1p(rs_exp(x)));
    return dy * (tanh_softplus + x * sigmoid * (1.0 - tanh_softplus * tanh_softplus));
}

// ---------------------------------------------------------------- hard*
float rs_act_hardsigmoid(float x) { return rs_act_relu6(x + 3.0) / 6.0; }
// hardsigmoid_backward_kernel (grad, self)
float rs_act_hardsigmoid_backward(float g, float x) {
    const float one_sixth = 1.0 / 6.0;
    return (x > -3.0 && x < 3.0) ? g * one_sixth : 0.0;
}
float rs_act_hardswish(float x) { return x * rs_act_relu6(x + 3.0) / 6.0; }
// hardswish_backward_kernel (grad, self)
float rs_act_hardswish_backward(float g, float x) {
    if (x < -3.0) return 0.0;
    if (x <= 3.0) return g * ((x / 3.0) + 0.5);
    return g;
}
// hardtanh_backward_kernel (grad, self)
float rs_act_hardtanh_backward(float g, float x, float lo, float hi) {
    return (x <= lo || x >= hi) ? 0.0 : g;
}
int64_t rs_act_hardtanh_backward(int64_t g, int64_t x, int64_t lo, int64_t hi) {
    return (x <= lo || x >= hi) ? 0L : g;
}

// ---------------------------------------------------------------- shrink
float rs_act_hardshrink(float x, float l) { return (x >= -l && x <= l) ? 0.0 : x; }
// (CPU: a * 0 between the bounds: NaN stays NaN, a negative a gives -0)
float rs_act_softshrink(float a, float l) {
    return a > l ? a - l : (a < -l ? a + l : (isnan(a) ? a : rs_m_copysign(0.0, a)));
}
// shrink_backward_kernel (grad, self)
float rs_act_shrink_backward(float g, float x, float l) { return (x >= -l && x <= l) ? 0.0 : g; }

// ---------------------------------------------------------------- softplus
float rs_act_softplus(float a, float beta, float threshold) {
    return (a * beta) > threshold ? a : rs_log1p(rs_exp(a * beta)) / beta;
}
// softplus_backward_kernel (grad, self)
float rs_act_softplus_backward(float a, float b, float beta, float threshold) {
    float z = rs_exp(b * beta);
    return (b * beta) > threshold ? a : a * z / (z + 1.0);
}

// ---------------------------------------------------------------- log_sigmoid
// log_sigmoid forward: buffer = exp(-|x|), out = min(x, 0) - log1p(buffer)
float rs_act_log_sigmoid_buffer(float x) { return rs_exp(-abs(x)); }
float rs_act_log_sigmoid(float x) { return rs_act_min0(x) - rs_log1p(rs_exp(-abs(x))); }
// log_sigmoid_backward_cpu_kernel (input, buffer, grad)
float rs_act_log_sigmoid_backward(float a, float b, float c) {
    bool in_negative = a < 0.0;
    float max_deriv = in_negative ? 1.0 : 0.0;
    float sg = in_negative ? 1.0 : -1.0;
    return (max_deriv - sg * (b / (1.0 + b))) * c;
}

// ---------------------------------------------------------------- prelu
// prelu_kernel (input, weight); prelu_backward_kernel (input, weight, grad)
float rs_act_prelu(float x, float w) { return x > 0.0 ? x : w * x; }
float rs_act_prelu_grad_input(float x, float w, float g) { return x > 0.0 ? g : w * g; }
float rs_act_prelu_grad_weight(float x, float w, float g) { return x > 0.0 ? 0.0 : x * g; }

// ---------------------------------------------------------------- rrelu (training)
// noise = x <= 0 ? r : 1, where r ~ U(lower, upper); out = x * noise
float rs_act_rrelu_noise(float x, float r) { return x <= 0.0 ? r : 1.0; }

// ---------------------------------------------------------------- sigmoid, tanh, logit backward
// sigmoid_backward (grad, output)
float rs_act_sigmoid_backward(float a, float b) { return a * (1.0 - b) * b; }
vec2 rs_act_sigmoid_backward(vec2 a, vec2 b) {
    vec2 t = rs_cmul(vec2(1.0, 0.0) - b, b);
    return rs_cmul(a, vec2(t.x, -t.y));
}
// tanh_backward (grad, output)
float rs_act_tanh_backward(float a, float b) { return a * (1.0 - b * b); }
vec2 rs_act_tanh_backward(vec2 a, vec2 b) {
    vec2 t = vec2(1.0, 0.0) - rs_cmul(b, b);
    return rs_cmul(a, vec2(t.x, -t.y));
}
// logit_backward (grad, input); eps < 0: no clamping
float rs_act_logit_backward(float dy, float x, float eps) {
    if (eps < 0.0) {
        if (x < 0.0 || x > 1.0) return RS_NAN_F;
    } else {
        float lo = eps, hi = rs_rcm(1.0 - eps);
        if (x < lo || x > hi) return 0.0;
    }
    if (x == 0.0 || x == 1.0) return dy * RS_INF_F;
    return dy / (x * (1.0 - x));
}

#if RS_HAS_FP64
double rs_act_leaky_relu(double a, double negval) { return a > 0.0LF ? a : a * negval; }
double rs_act_leaky_relu_backward(double a, double b, double negval) { return a > 0.0LF ? b : b * negval; }
double rs_act_hardtanh_backward(double g, double x, double lo, double hi) { return (x <= lo || x >= hi) ? 0.0LF : g; }
double rs_act_shrink_backward(double g, double x, double l) { return (x >= -l && x <= l) ? 0.0LF : g; }
double rs_act_hardshrink(double x, double l) { return (x >= -l && x <= l) ? 0.0LF : x; }
double rs_act_softshrink(double a, double l) {
    // (the sign bit alone: 0 with a's sign)
    return a > l ? a - l : (a < -l ? a + l : (isnan(a) ? a : uint64BitsToDouble(doubleBitsToUint64(a) & (1UL << 63))));
}
double rs_act_prelu(double x, double w) { return x > 0.0LF ? x : w * x; }
double rs_act_prelu_grad_input(double x, double w, double g) { return x > 0.0LF ? g : w * g; }
double rs_act_prelu_grad_weight(double x, double w, double g) { return x > 0.0LF ? 0.0LF : x * g; }
double rs_act_sigmoid_backward(double a, double b) { return a * (1.0LF - b) * b; }
double rs_act_tanh_backward(double a, double b) { return a * (1.0LF - b * b); }
dvec2 rs_act_sigmoid_backward(dvec2 a, dvec2 b) {
    dvec2 t = rs_cmul(dvec2(1.0LF, 0.0LF) - b, b);
    return rs_cmul(a, dvec2(t.x, -t.y));
}
dvec2 rs_act_tanh_backward(dvec2 a, dvec2 b) {
    dvec2 t = dvec2(1.0LF, 0.0LF) - rs_cmul(b, b);
    return rs_cmul(a, dvec2(t.x, -t.y));
}
#endif

#endif
