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

#if RS_HAS_FP64
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
