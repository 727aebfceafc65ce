// ops_activation.glsl: activations and their backward formulas.
// Included by common/ops.glsl; overload per opmath type as ops.glsl explains.
#ifndef RS_OPS_ACTIVATION_GLSL
#define RS_OPS_ACTIVATION_GLSL

#endif
