// ops_math.glsl: transcendental and other unary math: exp/log/trig families, rounding, complex math.
// Included by common/ops.glsl; overload per opmath type as ops.glsl explains.
#ifndef RS_OPS_MATH_GLSL
#define RS_OPS_MATH_GLSL

#endif
