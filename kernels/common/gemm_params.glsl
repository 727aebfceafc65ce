// gemm_params.glsl: the GEMM parameter block (its fields and flag bits in
// params/gemm.h, which src/engine/gemm.c shares), as a buffer reference.
// Shared by common/gemm.glsl and gemm_coopmat_khr.comp (whose committed
// SPIR-V is rebuilt by tools/build_spirv.py when this file or that header
// changes). Needs GL_EXT_buffer_reference and 64-bit integers
// (common/dtype.glsl).
#ifndef RS_GEMM_PARAMS_GLSL
#define RS_GEMM_PARAMS_GLSL

#include "params/gemm.h"

layout(buffer_reference, std430, buffer_reference_align = 8) readonly buffer GemmParams { RS_GEMM_PARAMS };

#endif
