// gemm_params.glsl: the GEMM parameter block, written by src/engine/gemm.c
// (struct gemm_params: keep the two in step), and its flag bits. Shared by
// common/gemm.glsl and gemm_coopmat_khr.comp (whose committed SPIR-V is
// rebuilt by tools/build_spirv.py when this file changes). Needs
// GL_EXT_buffer_reference and 64-bit integers (common/dtype.glsl).
#ifndef RS_GEMM_PARAMS_GLSL
#define RS_GEMM_PARAMS_GLSL

#define GF_USE_CIN 1u
#define GF_CONJ_A 2u
#define GF_CONJ_B 4u
#define GF_REDUCE 8u

layout(buffer_reference, std430, buffer_reference_align = 8) readonly buffer GemmParams {
    uint64_t a, b, c, cin;
    int64_t m, n, k, batch;
    int64_t sa[3];
    int64_t sb[3];
    int64_t sc[3];
    int64_t sci[3];
    uint64_t alpha[2];
    uint64_t beta[2];
    uint flags;
    uint pad;
    int64_t tiles_m, tiles_n;
};

#endif
