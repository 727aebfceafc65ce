// gemm_coopmat.comp: the float16 GEMM on cooperative matrices (16x16x16,
// float16 inputs, float32 accumulation), for devices that have them (never
// under the apple profile). Same parameter block and semantics as gemm.comp.
//
// The compiler russet builds with (glslang 12, Debian 12's shaderc) knows
// GL_NV_cooperative_matrix but not GL_KHR_cooperative_matrix, so this is the
// NV form; src/vk/context.c enables VK_NV_cooperative_matrix with it.
//
// A 256-invocation workgroup computes a 128 x BN (256) tile of C; the host
// picks this kernel only when the subgroup size is 32 (8 subgroups, 2 x 4,
// each 64 x 64 = 4 x 4 fragments). 32-deep slices of A (row-major, k
// contiguous) and B (k rows, n contiguous) are staged in shared memory as
// uvec4 (8 halves), the next slice's global loads in flight in registers
// while the current one is multiplied. VEC_A / VEC_B: the operand is
// contiguous along k (A) / n (B) and 16-byte aligned, so a uvec4 is one
// load; otherwise the 8 halves are gathered one by one (any strides).
// The epilogue goes through a 16 x 16 float staging area per subgroup:
// alpha, beta * Cin, rounding to float16, edges.
#version 460
#extension GL_NV_cooperative_matrix : require
#extension GL_KHR_memory_scope_semantics : require
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#include "common/gemm.glsl"

#define NT 256
#define BM 128
#ifndef FN
#define FN 4                // 16 x 16 fragments per subgroup along n (4 along m)
#endif
#ifndef VARIANT
#define VARIANT 0  // probes (bench/gemm_probe.c): 1 fragments straight from global memory
                   // (full tiles, VEC_A/VEC_B only), 2 multiply-adds alone (wrong results)
#endif
#define BN (4 * 16 * FN)   // 4 subgroups along n
#define BK 32
#define AST (BK / 8 + 1)   // row stride of As, in uvec4
#define BST (BN / 8 + 1)   // row stride of Bs, in uvec4
#define NQB (BK * BN / 8 / NT)  // uvec4 of a B slice per invocation
layout(local_size_x = NT) in;
layout(push_constant) uniform Push { GemmParams p; } pc;

shared uvec4 As[BM * AST];
shared uvec4 Bs[BK * BST];
shared float Cs[8 * 256];

layout(buffer_reference, std430, buffer_reference_align = 16) readonly buffer RsV4 { uvec4 v; };
layout(buffer_reference, std430, buffer_reference_align = 16) readonly buffer RsH { float16_t v[]; };

uint h(uint64_t base, int64_t off, bool ok) { return ok ? uint(RsU16(base + uint64_t(off) * 2UL).v) : 0u; }

void main() {
    GemmParams p = pc.p;
    const uint tid = gl_LocalInvocationIndex;
    const uint sg = gl_SubgroupID;
    const uint wm = sg / 4u, wn = sg % 4u;
    const int64_t M = p.m, N = p.n, K = p.k;
    const uint flags = p.flags;
    const bool reduce = (flags & GF_REDUCE) != 0u;
    const int64_t nz = reduce ? 1L : p.batch, nr = reduce ? p.batch : 1L;
    const uint64_t pa = p.a, pb = p.b;
    const int64_t sa0 = p.sa[0], sa1 = p.sa[1], sa2 = p.sa[2];
    const int64_t sb0 = p.sb[0], sb1 = p.sb[1], sb2 = p.sb[2];
    const float al = uintBitsToFloat(uint(p.alpha[0])), be = uintBitsToFloat(uint(p.beta[0]));
    const bool usec = (flags & GF_USE_CIN) != 0u;

    for (int64_t z = int64_t(gl_WorkGroupID.z); z < nz; z += int64_t(gl_NumWorkGroups.z))
    for (int64_t tmi = int64_t(gl_WorkGroupID.y); tmi < p.tiles_m; tmi += int64_t(gl_NumWorkGroups.y))
    for (int64_t tni = int64_t(gl_WorkGroupID.x); tni < p.tiles_n; tni += int64_t(gl_NumWorkGroups.x)) {
        const int64_t row0 = tmi * BM, col0 = tni * BN;
        fcoopmatNV<32, gl_ScopeSubgroup, 16, 16> acc[4][FN];
        [[unroll]] for (uint i = 0u; i < 4u; ++i)
            [[unroll]] for (uint j = 0u; j < FN; ++j) acc[i][j] = fcoopmatNV<32, gl_ScopeSubgroup, 16, 16>(0.0);

        for (int64_t r = 0L; r < nr; ++r) {
            const int64_t bz = reduce ? r : z;
            const int64_t ao = bz * sa0, bo = bz * sb0;
            uvec4 ra[2], rb[NQB];
            // slice loader: A: 128 rows x 4 uvec4 (2 per invocation), B: 32 rows x BN/8 uvec4
#define LOAD_SLICE(k0)                                                                          \
            [[unroll]] for (uint q = 0u; q < 2u; ++q) {                                         \
                const uint ia = tid + q * NT;                                                   \
                const int64_t gm = row0 + int64_t(ia / 4u), gk = (k0) + int64_t((ia % 4u) * 8u); \
                if (VEC_A != 0) {                                                               \
                    ra[q] = (gm < M && gk < K) ? RsV4(pa + uint64_t(ao + gm * sa1 + gk) * 2UL).v : uvec4(0u); \
                } else {                                                                        \
                    const int64_t o = ao + gm * sa1 + gk * sa2;                                 \
                    uint w[8];                                                                  \
                    [[unroll]] for (uint e = 0u; e < 8u; ++e)                                   \
                        w[e] = h(pa, o + int64_t(e) * sa2, gm < M && gk + int64_t(e) < K);      \
                    ra[q] = uvec4(w[0] | (w[1] << 16), w[2] | (w[3] << 16), w[4] | (w[5] << 16), w[6] | (w[7] << 16)); \
                }                                                                               \
            }                                                                                   \
            [[unroll]] for (uint q = 0u; q < NQB; ++q) {                                        \
                const uint ib = tid + q * NT;                                                   \
                const int64_t gkb = (k0) + int64_t(ib / (BN / 8u)), gn = col0 + int64_t((ib % (BN / 8u)) * 8u); \
                if (VEC_B != 0) {                                                               \
                    rb[q] = (gkb < K && gn < N) ? RsV4(pb + uint64_t(bo + gkb * sb1 + gn) * 2UL).v : uvec4(0u); \
                } else {                                                                        \
                    const int64_t o = bo + gkb * sb1 + gn * sb2;                                \
                    uint w[8];                                                                  \
                    [[unroll]] for (uint e = 0u; e < 8u; ++e)                                   \
                        w[e] = h(pb, o + int64_t(e) * sb2, gkb < K && gn + int64_t(e) < N);     \
                    rb[q] = uvec4(w[0] | (w[1] << 16), w[2] | (w[3] << 16), w[4] | (w[5] << 16), w[6] | (w[7] << 16)); \
                }                                                                               \
            }
#if VARIANT == 2
            // probe only (wrong results): the fragments are loaded once, so
            // the loop measures the multiply-add rate alone
            fcoopmatNV<16, gl_ScopeSubgroup, 16, 16> ga[4];
            fcoopmatNV<16, gl_ScopeSubgroup, 16, 16> gb[FN];
            [[unroll]] for (uint i = 0u; i < 4u; ++i)
                coopMatLoadNV(ga[i], RsH(pa + uint64_t(ao + (row0 + int64_t(wm * 64u + i * 16u)) * sa1) * 2UL).v, 0u, uint(sa1), false);
            [[unroll]] for (uint j = 0u; j < FN; ++j)
                coopMatLoadNV(gb[j], RsH(pb + uint64_t(bo + col0 + int64_t(wn * 16u * FN + j * 16u)) * 2UL).v, 0u, uint(sb1), false);
            for (int64_t k0 = 0L; k0 < K; k0 += 16L) {
                [[unroll]] for (uint i = 0u; i < 4u; ++i)
                    [[unroll]] for (uint j = 0u; j < FN; ++j) acc[i][j] = coopMatMulAddNV(ga[i], gb[j], acc[i][j]);
            }
#elif VARIANT == 1
            for (int64_t k0 = 0L; k0 < K; k0 += 16L) {
                fcoopmatNV<16, gl_ScopeSubgroup, 16, 16> fa[4];
                fcoopmatNV<16, gl_ScopeSubgroup, 16, 16> fb[FN];
                [[unroll]] for (uint i = 0u; i < 4u; ++i)
                    coopMatLoadNV(fa[i], RsH(pa + uint64_t(ao + (row0 + int64_t(wm * 64u + i * 16u)) * sa1 + k0) * 2UL).v, 0u, uint(sa1), false);
                [[unroll]] for (uint j = 0u; j < FN; ++j)
                    coopMatLoadNV(fb[j], RsH(pb + uint64_t(bo + k0 * sb1 + col0 + int64_t(wn * 16u * FN + j * 16u)) * 2UL).v, 0u, uint(sb1), false);
                [[unroll]] for (uint i = 0u; i < 4u; ++i)
                    [[unroll]] for (uint j = 0u; j < FN; ++j) acc[i][j] = coopMatMulAddNV(fa[i], fb[j], acc[i][j]);
            }
#else
            LOAD_SLICE(0L)
            for (int64_t k0 = 0L; k0 < K; k0 += BK) {
                barrier();
                [[unroll]] for (uint q = 0u; q < 2u; ++q) {
                    const uint ia = tid + q * NT;
                    As[(ia / 4u) * AST + ia % 4u] = ra[q];
                }
                [[unroll]] for (uint q = 0u; q < NQB; ++q) {
                    const uint ib = tid + q * NT;
                    Bs[(ib / (BN / 8u)) * BST + ib % (BN / 8u)] = rb[q];
                }
                barrier();
                if (k0 + BK < K) { LOAD_SLICE(k0 + BK) }
                [[unroll]] for (uint ks = 0u; ks < BK / 16u; ++ks) {
                    fcoopmatNV<16, gl_ScopeSubgroup, 16, 16> fa[4];
                    fcoopmatNV<16, gl_ScopeSubgroup, 16, 16> fb[FN];
                    [[unroll]] for (uint i = 0u; i < 4u; ++i)
                        coopMatLoadNV(fa[i], As, (wm * 64u + i * 16u) * AST + ks * 2u, AST, false);
                    [[unroll]] for (uint j = 0u; j < FN; ++j)
                        coopMatLoadNV(fb[j], Bs, (ks * 16u) * BST + (wn * 16u * FN + j * 16u) / 8u, BST, false);
                    [[unroll]] for (uint i = 0u; i < 4u; ++i)
                        [[unroll]] for (uint j = 0u; j < FN; ++j) acc[i][j] = coopMatMulAddNV(fa[i], fb[j], acc[i][j]);
                }
            }
#endif
        }

        // epilogue, one fragment at a time through this subgroup's staging area
        [[unroll]] for (uint i = 0u; i < 4u; ++i)
            [[unroll]] for (uint j = 0u; j < FN; ++j) {
                coopMatStoreNV(acc[i][j], Cs, sg * 256u, 16u, false);
                subgroupMemoryBarrierShared();
                subgroupBarrier();
                for (uint e = gl_SubgroupInvocationID; e < 256u; e += gl_SubgroupSize) {
                    const int64_t gm = row0 + int64_t(wm * 64u + i * 16u + e / 16u);
                    const int64_t gn = col0 + int64_t(wn * 16u * FN + j * 16u + e % 16u);
                    if (gm < M && gn < N) {
                        float cv = 0.0;
                        if (usec) cv = gm_load(p.cin, z * p.sci[0] + gm * p.sci[1] + gn * p.sci[2]);
                        gm_store(p.c, z * p.sc[0] + gm * p.sc[1] + gn * p.sc[2], gm_axpby(al, Cs[sg * 256u + e], be, cv, usec));
                    }
                }
                subgroupMemoryBarrierShared();
                subgroupBarrier();
            }
    }
}
