// peak.comp: the multiply-add rate of VK_KHR_cooperative_matrix with no
// memory traffic in the loop (bench/coopmat/khr_probe.c). 16x16x16 float16
// inputs, ACC_T accumulators (float or float16_t), 16 accumulators a
// subgroup. Compiled with glslang >= 13 (not Debian 12's): see README.
#version 460
#extension GL_KHR_cooperative_matrix : require
#extension GL_KHR_memory_scope_semantics : require
#extension GL_EXT_control_flow_attributes : require
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
layout(local_size_x = 128) in;
layout(push_constant) uniform Push { uint iters; } pc;
layout(set = 0, binding = 0) buffer In { float16_t h[]; };
layout(set = 0, binding = 1) buffer Out { ACC_T c[]; };
#define FA coopmat<float16_t, gl_ScopeSubgroup, 16, 16, gl_MatrixUseA>
#define FB coopmat<float16_t, gl_ScopeSubgroup, 16, 16, gl_MatrixUseB>
#define FC coopmat<ACC_T, gl_ScopeSubgroup, 16, 16, gl_MatrixUseAccumulator>
void main() {
    FA a[4];
    FB b[4];
    FC acc[4][4];
    [[unroll]] for (uint i = 0u; i < 4u; ++i) {
        coopMatLoad(a[i], h, i * 256u, 16u, gl_CooperativeMatrixLayoutRowMajor);
        coopMatLoad(b[i], h, 1024u + i * 256u, 16u, gl_CooperativeMatrixLayoutRowMajor);
        [[unroll]] for (uint j = 0u; j < 4u; ++j) acc[i][j] = FC(0.0);
    }
    for (uint it = 0u; it < pc.iters; ++it)
        [[unroll]] for (uint i = 0u; i < 4u; ++i)
            [[unroll]] for (uint j = 0u; j < 4u; ++j) acc[i][j] = coopMatMulAdd(a[i], b[j], acc[i][j]);
    uint sg = gl_GlobalInvocationID.x / gl_SubgroupSize;
    [[unroll]] for (uint i = 0u; i < 4u; ++i)
        [[unroll]] for (uint j = 0u; j < 4u; ++j)
            coopMatStore(acc[i][j], c, (sg * 16u + i * 4u + j) * 256u, 16u, gl_CooperativeMatrixLayoutRowMajor);
}
