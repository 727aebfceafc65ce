// ops_misc.glsl: ternary and miscellaneous pointwise: where, lerp, addcmul, pow, nan_to_num, ....
// Included by common/ops.glsl; overload per opmath type as ops.glsl explains.
#ifndef RS_OPS_MISC_GLSL
#define RS_OPS_MISC_GLSL

#endif
