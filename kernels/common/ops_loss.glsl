// ops_loss.glsl: per-element loss functions (aten/src/ATen/native/Loss.cpp's
// CPU lambdas), in the opmath type; float16/bfloat16 compute in float.
// Included by common/ops.glsl. Names carry the rs_loss_ prefix.
// Device error codes raised here: 3 input outside [0, 1], 4 target outside
// [0, 1] (src/vk/context.c words them as CPU does).
#ifndef RS_OPS_LOSS_GLSL
#define RS_OPS_LOSS_GLSL

// std::max(v, -100) as CPU: NaN stays NaN
float rs_loss_max100(float v) { return v < -100.0 ? -100.0 : v; }

// binary_cross_entropy: (y - 1) * max(log1p(-x), -100) - y * max(log(x), -100)
// after CPU's range checks (NaN fails them too). CPU's lambda computes in the
// dtype itself (scalar_t), so float16/bfloat16 round every step (rs_rcm).
float rs_loss_bce(float x, float y) {
    if (!(x >= 0.0 && x <= 1.0)) rs_raise(3u, 0L);
    else if (!(y >= 0.0 && y <= 1.0)) rs_raise(4u, 0L);
    float a = rs_rcm(rs_rcm(y - 1.0) * rs_loss_max100(rs_rcm(rs_op_log1p(-x))));
    float b = rs_rcm(y * rs_loss_max100(rs_rcm(rs_op_log(x))));
    return rs_rcm(a - b);
}
// binary_cross_entropy_backward (grad, input, target), in the dtype as CPU:
// grad * (x - y) / max((1 - x) * x, EPSILON = 1e-12)
float rs_loss_bce_backward(float g, float x, float y) {
    float d = rs_rcm(rs_rcm(1.0 - x) * x), eps = rs_rcm(1e-12);
    return rs_rcm(rs_rcm(g * rs_rcm(x - y)) / (d < eps ? eps : d));
}

// The regression losses (mse_loss, smooth_l1_loss, huber_loss) and their
// backward, in the order of operations the adapter's composition had (CPU's
// lambdas): mse in the dtype (the difference rounded, then its square);
// smooth_l1 and huber in the opmath type, z = |a - b|; the backward with
// x = a - b and g the upstream gradient, `norm` the reduction's factor.
float rs_loss_mse(float a, float b) {
    float d = rs_rcm(a - b);
    return d * d;
}
float rs_loss_mse_backward(float a, float b, float g, float norm) { return rs_rcm(rs_rcm(a - b) * norm) * g; }
// z < beta ? 0.5 z z / beta : z - 0.5 beta (beta 0: z)
float rs_loss_smooth_l1(float a, float b, float beta, float half_beta) {
    float z = abs(a - b);
    if (beta == 0.0) return z;
    return z < beta ? ((z * 0.5) * z) / beta : z - half_beta;
}
float rs_loss_smooth_l1_backward(float a, float b, float g, float beta, float norm) {
    float x = a - b;
    if (x <= -beta) return g * -norm;
    if (x >= beta) return g * norm;
    return beta == 0.0 ? 0.0 : ((x * norm) * g) / beta;
}
// z < delta ? 0.5 z z : delta (z - 0.5 delta)
float rs_loss_huber(float a, float b, float delta, float half_delta) {
    float z = abs(a - b);
    return z < delta ? (z * 0.5) * z : (z - half_delta) * delta;
}
float rs_loss_huber_backward(float a, float b, float g, float delta, float norm, float norm_delta) {
    float x = a - b;
    if (x <= -delta) return g * -norm_delta;
    if (x >= delta) return g * norm_delta;
    return (x * norm) * g;
}

#if RS_HAS_FP64
double rs_loss_mse(double a, double b) {
    double d = a - b;
    return d * d;
}
double rs_loss_mse_backward(double a, double b, double g, double norm) { return ((a - b) * norm) * g; }
double rs_loss_smooth_l1(double a, double b, double beta, double half_beta) {
    double z = abs(a - b);
    if (beta == 0.0LF) return z;
    return z < beta ? ((z * 0.5LF) * z) / beta : z - half_beta;
}
double rs_loss_smooth_l1_backward(double a, double b, double g, double beta, double norm) {
    double x = a - b;
    if (x <= -beta) return g * -norm;
    if (x >= beta) return g * norm;
    return beta == 0.0LF ? 0.0LF : ((x * norm) * g) / beta;
}
double rs_loss_huber(double a, double b, double delta, double half_delta) {
    double z = abs(a - b);
    return z < delta ? (z * 0.5LF) * z : (z - half_delta) * delta;
}
double rs_loss_huber_backward(double a, double b, double g, double delta, double norm, double norm_delta) {
    double x = a - b;
    if (x <= -delta) return g * -norm_delta;
    if (x >= delta) return g * norm_delta;
    return (x * norm) * g;
}
double rs_loss_max100(double v) { return v < -100.0LF ? -100.0LF : v; }
double rs_loss_bce(double x, double y) {
    if (!(x >= 0.0LF && x <= 1.0LF)) rs_raise(3u, 0L);
    else if (!(y >= 0.0LF && y <= 1.0LF)) rs_raise(4u, 0L);
    return (y - 1.0LF) * rs_loss_max100(rs_op_log1p(-x)) - y * rs_loss_max100(rs_op_log(x));
}
double rs_loss_bce_backward(double g, double x, double y) {
    double d = (1.0LF - x) * x;
    return g * (x - y) / (d < 1e-12LF ? 1e-12LF : d);
}
#endif

#endif
