// gemm_coopmat_khr.comp: the float16 GEMM on VK_KHR_cooperative_matrix
// (16x16x16 fragments, float16 inputs, float32 accumulators), for devices
// that list that shape (never under the apple profile). Same parameter block
// and semantics as gemm.comp / gemm_coopmat.comp: strided, transposed and
// batched operands, alpha, beta * Cin, reduce_batch, any edges.
//
// Debian 12's shaderc (glslang 12), which russet compiles with at run time,
// does not know GL_KHR_cooperative_matrix: this file is compiled ahead of
// time by tools/build_spirv.py (glslang 13.1.1 from PyPI) into
// kernels/spirv/*.spv, one module per variant, which src/vk/kernel.c loads
// by name (rs_kernel_spirv). tests/python/test_spirv_fresh.py fails when a
// committed module is older than this file or the files it includes.
//
// Variants (defines):
//   WN      subgroups along n (2 or 4); 2 along m. The workgroup has
//           64 * WN invocations and computes a 128 x (64 * WN) tile of C;
//           each subgroup (32 invocations) a 64 x 64 block, 4 x 4 fragments.
//   STAGES  shared-memory buffers per operand (1 or 2). With 2, slice s + 1
//           is stored while slice s is multiplied: one barrier per slice.
//           Either way the next slice's global loads are in flight in
//           registers during the multiply-adds.
//   VEC_A   0: A gathered a half at a time (any strides);
//           1: A contiguous along k (row-major), 16-byte loads;
//           2: A contiguous along m (a transposed view), 16-byte loads,
//              kept column-major in shared memory.
//   VEC_B   0: gathered; 1: contiguous along n; 2: contiguous along k
//           (e.g. a weight's transpose, x @ w.T), kept column-major.
//   BK      the depth of a slice, 32 (default) or 64.
// The host (src/engine/gemm.c) checks the 16-byte conditions (stride 1,
// other strides, the extent and the address multiples of 8 halves).
//
// Slices are BK deep, staged in shared memory as uvec4 (8 halves) with
// one uvec4 of padding per row (conflict-free fragment loads). The epilogue
// goes through a 16 x 16 float staging area per subgroup: alpha,
// beta * Cin, rounding to float16 as c10 does (rs_f16_enc), edges; a lane
// stores 8 neighbours of a row as one 16-byte store where C allows it.
#version 460
#extension GL_GOOGLE_include_directive : require
#extension GL_KHR_cooperative_matrix : require
#extension GL_KHR_memory_scope_semantics : require
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_EXT_control_flow_attributes : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#extension GL_EXT_shader_explicit_arithmetic_types_int16 : require
#extension GL_EXT_shader_explicit_arithmetic_types_int8 : require
#include "common/dtype.glsl"
#include "common/gemm_params.glsl"

#ifndef WN
#define WN 2
#endif
#ifndef STAGES
#define STAGES 2
#endif
#ifndef VEC_A
#define VEC_A 1
#endif
#ifndef VEC_B
#define VEC_B 1
#endif
#ifndef BK
#define BK 32
#endif
#define WM 2
#define NSG (WM * WN)
#define NT (32 * NSG)
#define BM (64 * WM)
#define BN (64 * WN)
#if VEC_A == 2
#define AROWS BK             // rows of k, BM halves each (column-major A)
#define ASR (BM / 8 + 1)     // row stride in uvec4
#else
#define AROWS BM             // rows of m, BK halves each
#define ASR (BK / 8 + 1)
#endif
#if VEC_B == 2
#define BROWS BN             // rows of n, BK halves each (column-major B)
#define BSR (BK / 8 + 1)
#else
#define BROWS BK             // rows of k, BN halves each
#define BSR (BN / 8 + 1)
#endif
#define ASZ (AROWS * ASR)
#define BSZ (BROWS * BSR)
#define NQA (BM * BK / 8 / NT)  // uvec4 of an A slice per invocation
#define NQB (BK * BN / 8 / NT)  // uvec4 of a B slice per invocation

#define FA coopmat<float16_t, gl_ScopeSubgroup, 16, 16, gl_MatrixUseA>
#define FB coopmat<float16_t, gl_ScopeSubgroup, 16, 16, gl_MatrixUseB>
#define FC coopmat<float, gl_ScopeSubgroup, 16, 16, gl_MatrixUseAccumulator>

layout(local_size_x = NT) in;
layout(push_constant) uniform Push { GemmParams p; } pc;

shared uvec4 As[STAGES * ASZ];
shared uvec4 Bs[STAGES * BSZ];
shared float Cs[NSG * 256];

layout(buffer_reference, std430, buffer_reference_align = 16) buffer RsV4 { uvec4 v; };

uint hv(uint64_t base, int64_t off, bool ok) { return ok ? uint(RsU16(base + uint64_t(off) * 2UL).v) : 0u; }

// 8 halves at off, off + st, ..., as a uvec4 (0 past the bound `lim` of the index e)
uvec4 gather8(uint64_t base, int64_t off, int64_t st, bool ok, int64_t lim) {
    uint w[8];
    [[unroll]] for (uint e = 0u; e < 8u; ++e) w[e] = hv(base, off + int64_t(e) * st, ok && int64_t(e) < lim);
    return uvec4(w[0] | (w[1] << 16), w[2] | (w[3] << 16), w[4] | (w[5] << 16), w[6] | (w[7] << 16));
}

void main() {
    GemmParams p = pc.p;
    const uint tid = gl_LocalInvocationIndex;
    const uint sg = gl_SubgroupID, lane = gl_SubgroupInvocationID;
    const uint wm = sg / uint(WN), wn = sg % uint(WN);
    const int64_t M = p.m, N = p.n, K = p.k;
    const uint flags = p.flags;
    const bool reduce = (flags & GF_REDUCE) != 0u;
    const int64_t nz = reduce ? 1L : p.batch, nr = reduce ? p.batch : 1L;
    const uint64_t pa = p.a, pb = p.b, pc_ = p.c, pci = p.cin;
    const int64_t sa0 = p.sa[0], sa1 = p.sa[1], sa2 = p.sa[2];
    const int64_t sb0 = p.sb[0], sb1 = p.sb[1], sb2 = p.sb[2];
    const int64_t sc0 = p.sc[0], sc1 = p.sc[1], sc2 = p.sc[2];
    const int64_t si0 = p.sci[0], si1 = p.sci[1], si2 = p.sci[2];
    const float al = uintBitsToFloat(uint(p.alpha[0])), be = uintBitsToFloat(uint(p.beta[0]));
    const bool usec = (flags & GF_USE_CIN) != 0u;
    // 16-byte stores of C: n-contiguous, rows and batches and the address aligned
    const bool cvec = sc2 == 1L && (sc1 % 8L) == 0L && (sc0 % 8L) == 0L && (pc_ % 16UL) == 0UL;

    for (int64_t z = int64_t(gl_WorkGroupID.z); z < nz; z += int64_t(gl_NumWorkGroups.z))
    for (int64_t tmi = int64_t(gl_WorkGroupID.y); tmi < p.tiles_m; tmi += int64_t(gl_NumWorkGroups.y))
    for (int64_t tni = int64_t(gl_WorkGroupID.x); tni < p.tiles_n; tni += int64_t(gl_NumWorkGroups.x)) {
        const int64_t row0 = tmi * BM, col0 = tni * BN;
        FC acc[4][4];
        [[unroll]] for (uint i = 0u; i < 4u; ++i)
            [[unroll]] for (uint j = 0u; j < 4u; ++j) acc[i][j] = FC(0.0);

        for (int64_t r = 0L; r < nr; ++r) {
            const int64_t bz = reduce ? r : z;
            const int64_t ao = bz * sa0, bo = bz * sb0;
            uvec4 ra[NQA], rb[NQB];
#define LOAD_SLICE(k0)                                                                                  \
            [[unroll]] for (uint q = 0u; q < NQA; ++q) {                                                \
                const uint ia = tid + q * NT;                                                           \
                if (VEC_A == 2) {                                                                       \
                    const int64_t gk = (k0) + int64_t(ia / (BM / 8u)), gm = row0 + int64_t((ia % (BM / 8u)) * 8u); \
                    ra[q] = (gm < M && gk < K) ? RsV4(pa + uint64_t(ao + gk * sa2 + gm) * 2UL).v : uvec4(0u); \
                } else {                                                                                \
                    const int64_t gm = row0 + int64_t(ia / (BK / 8u)), gk = (k0) + int64_t((ia % (BK / 8u)) * 8u); \
                    if (VEC_A == 1)                                                                     \
                        ra[q] = (gm < M && gk < K) ? RsV4(pa + uint64_t(ao + gm * sa1 + gk) * 2UL).v : uvec4(0u); \
                    else                                                                                \
                        ra[q] = gather8(pa, ao + gm * sa1 + gk * sa2, sa2, gm < M, K - gk);             \
                }                                                                                       \
            }                                                                                           \
            [[unroll]] for (uint q = 0u; q < NQB; ++q) {                                                \
                const uint ib = tid + q * NT;                                                           \
                if (VEC_B == 2) {                                                                       \
                    const int64_t gn = col0 + int64_t(ib / (BK / 8u)), gk = (k0) + int64_t((ib % (BK / 8u)) * 8u); \
                    rb[q] = (gn < N && gk < K) ? RsV4(pb + uint64_t(bo + gn * sb2 + gk) * 2UL).v : uvec4(0u); \
                } else {                                                                                \
                    const int64_t gk = (k0) + int64_t(ib / (BN / 8u)), gn = col0 + int64_t((ib % (BN / 8u)) * 8u); \
                    if (VEC_B == 1)                                                                     \
                        rb[q] = (gk < K && gn < N) ? RsV4(pb + uint64_t(bo + gk * sb1 + gn) * 2UL).v : uvec4(0u); \
                    else                                                                                \
                        rb[q] = gather8(pb, bo + gk * sb1 + gn * sb2, sb2, gk < K, N - gn);             \
                }                                                                                       \
            }
            // the registers into shared buffer `st`; the layouts follow the loads above
#define STORE_SLICE(st)                                                                                 \
            [[unroll]] for (uint q = 0u; q < NQA; ++q) {                                                \
                const uint ia = tid + q * NT;                                                           \
                if (VEC_A == 2) As[(st) * ASZ + (ia / (BM / 8u)) * ASR + ia % (BM / 8u)] = ra[q];       \
                else As[(st) * ASZ + (ia / (BK / 8u)) * ASR + ia % (BK / 8u)] = ra[q];                  \
            }                                                                                           \
            [[unroll]] for (uint q = 0u; q < NQB; ++q) {                                                \
                const uint ib = tid + q * NT;                                                           \
                if (VEC_B == 2) Bs[(st) * BSZ + (ib / (BK / 8u)) * BSR + ib % (BK / 8u)] = rb[q];       \
                else Bs[(st) * BSZ + (ib / (BN / 8u)) * BSR + ib % (BN / 8u)] = rb[q];                  \
            }
            // the multiply-adds of the slice in shared buffer `st`
#define COMPUTE_SLICE(st)                                                                               \
            [[unroll]] for (uint ks = 0u; ks < BK / 16u; ++ks) {                                        \
                FA fa[4];                                                                               \
                FB fb[4];                                                                               \
                [[unroll]] for (uint i = 0u; i < 4u; ++i) {                                             \
                    const uint mr = wm * 64u + i * 16u;                                                 \
                    if (VEC_A == 2)                                                                     \
                        coopMatLoad(fa[i], As, (st) * ASZ + ks * 16u * ASR + mr / 8u, ASR, gl_CooperativeMatrixLayoutColumnMajor); \
                    else                                                                                \
                        coopMatLoad(fa[i], As, (st) * ASZ + mr * ASR + ks * 2u, ASR, gl_CooperativeMatrixLayoutRowMajor); \
                }                                                                                       \
                [[unroll]] for (uint j = 0u; j < 4u; ++j) {                                             \
                    const uint nc = wn * 64u + j * 16u;                                                 \
                    if (VEC_B == 2)                                                                     \
                        coopMatLoad(fb[j], Bs, (st) * BSZ + nc * BSR + ks * 2u, BSR, gl_CooperativeMatrixLayoutColumnMajor); \
                    else                                                                                \
                        coopMatLoad(fb[j], Bs, (st) * BSZ + ks * 16u * BSR + nc / 8u, BSR, gl_CooperativeMatrixLayoutRowMajor); \
                }                                                                                       \
                [[unroll]] for (uint i = 0u; i < 4u; ++i)                                               \
                    [[unroll]] for (uint j = 0u; j < 4u; ++j) acc[i][j] = coopMatMulAdd(fa[i], fb[j], acc[i][j]); \
            }

            LOAD_SLICE(0L)
            STORE_SLICE(0u)
            barrier();
#if STAGES == 2
            uint cur = 0u;
            for (int64_t k0 = 0L; k0 < K; k0 += BK) {
                const bool more = k0 + BK < K;
                if (more) { LOAD_SLICE(k0 + BK) }
                COMPUTE_SLICE(cur)
                if (more) { STORE_SLICE(cur ^ 1u) }
                barrier();
                cur ^= 1u;
            }
#else
            for (int64_t k0 = 0L; k0 < K; k0 += BK) {
                const bool more = k0 + BK < K;
                if (more) { LOAD_SLICE(k0 + BK) }
                COMPUTE_SLICE(0u)
                barrier();
                if (more) { STORE_SLICE(0u) }
                barrier();
            }
#endif
        }

        // epilogue, one fragment at a time through this subgroup's staging
        // area; lane l takes row l / 2, columns (l % 2) * 8 .. + 8
        const uint er = lane / 2u, ec = (lane % 2u) * 8u;
        [[unroll]] for (uint i = 0u; i < 4u; ++i)
            [[unroll]] for (uint j = 0u; j < 4u; ++j) {
                coopMatStore(acc[i][j], Cs, sg * 256u, 16u, gl_CooperativeMatrixLayoutRowMajor);
                subgroupMemoryBarrierShared();
                subgroupBarrier();
                const int64_t gm = row0 + int64_t(wm * 64u + i * 16u + er);
                const int64_t gn = col0 + int64_t(wn * 64u + j * 16u + ec);
                if (gm < M && gn < N) {
                    uint hb[8];
                    [[unroll]] for (uint e = 0u; e < 8u; ++e) {
                        float v = al * Cs[sg * 256u + er * 16u + ec + e];
                        if (usec && gn + int64_t(e) < N)
                            v = be * rs_f16_dec(uint(RsU16(pci + uint64_t(z * si0 + gm * si1 + (gn + int64_t(e)) * si2) * 2UL).v)) + v;
                        hb[e] = rs_f16_enc(v);
                    }
                    if (cvec && gn + 8L <= N) {
                        RsV4(pc_ + uint64_t(z * sc0 + gm * sc1 + gn) * 2UL).v =
                            uvec4(hb[0] | (hb[1] << 16), hb[2] | (hb[3] << 16), hb[4] | (hb[5] << 16), hb[6] | (hb[7] << 16));
                    } else {
                        [[unroll]] for (uint e = 0u; e < 8u; ++e)
                            if (gn + int64_t(e) < N)
                                RsU16(pc_ + uint64_t(z * sc0 + gm * sc1 + (gn + int64_t(e)) * sc2) * 2UL).v = uint16_t(hb[e]);
                    }
                }
                subgroupMemoryBarrierShared();
                subgroupBarrier();
            }
    }
}
