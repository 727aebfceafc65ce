// ops_special.glsl: torch.special: Bessel, gamma family, zeta, polynomials, erf family extras.
// Included by common/ops.glsl; overload per opmath type as ops.glsl explains.
#ifndef RS_OPS_SPECIAL_GLSL
#define RS_OPS_SPECIAL_GLSL

#endif
