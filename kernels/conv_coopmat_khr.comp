// conv_coopmat_khr.comp: the float16 and bfloat16 convolution on
// VK_KHR_cooperative_matrix (16x16x16 fragments, float32 accumulators), for
// devices that list that shape (never under the apple profile). The same
// implicit GEMM, contract and parameters as conv.comp (common/conv_geom.glsl
// has the geometry: the operands are gathered through the tables as the
// slices load, no im2col buffer); src/engine/conv.c picks it.
//
// Compiled ahead of time (tools/build_spirv.py, as gemm_coopmat_khr.comp,
// whose notes on bfloat16 apply: the fragments are declared float16 and the
// module's one 16-bit float type is then made bfloat16; halves are only
// moved as bits and multiplied into float32). One module per dtype, MODE
// and tile; the load orders and the channels_last order of k are uniform
// flags (CP_FLAGS), so that a few modules serve every layout.
//
// Defines: MODE (0 forward, 1 grad input, 2 grad weight; a product split
// along k writes float32 partial sums to `part` when pc.part is set, which
// conv.comp's MODE 3 adds), FM = FN (16x16 fragments a subgroup along m
// and n: 4 for the 128 x 128 tile, 2 for 64 x 64), ELEM_BF16.
// Four subgroups of 32 invocations, 2 x 2 over the tile; 32-deep slices,
// one shared stage: slice s + 1 is gathered into registers while slice s
// is multiplied. A is kept row-major (rows m, 32 halves each), B
// column-major (rows n), as uvec4 of 8 halves with one uvec4 of padding a
// row; whichever way the loads run, an invocation gathers 8 consecutive k
// of one row or column into one uvec4, or loads them as one 16-byte word
// where they lie adjacent in memory (CF_VEC_A / CF_VEC_B: the weights in
// the forward, dy in the weight gradient, channels_last x in the forward).
#version 460
#extension GL_GOOGLE_include_directive : require
#extension GL_KHR_cooperative_matrix : require
#extension GL_KHR_memory_scope_semantics : require
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_EXT_control_flow_attributes : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#include "common/dtype.glsl"
#include "params/conv.h"

#ifndef FM
#define FM 4
#endif
#define FN FM
#ifndef ELEM_BF16
#define ELEM_BF16 0
#endif
#if ELEM_BF16
#define ENC_OUT(v) rs_bf16_enc(v)
#define DEC_IN(h) rs_bf16_dec(h)
#else
#define ENC_OUT(v) rs_f16_enc(v)
#define DEC_IN(h) rs_f16_dec(h)
#endif

#define WM 2u
#define WN 2u
#define NSG (WM * WN)
#define NT (32u * NSG)
#define SGM (16u * FM)
#define SGN (16u * FN)
#define BM (SGM * WM)
#define BN (SGN * WN)
#define BK 32u
#define SR (BK / 8u + 1u)     // row stride of As and Bs, in uvec4
#define NQA (BM * BK / 8u / NT)  // uvec4 of a slice per invocation
#define NQB (BN * BK / 8u / NT)

#define FA coopmat<float16_t, gl_ScopeSubgroup, 16, 16, gl_MatrixUseA>
#define FB coopmat<float16_t, gl_ScopeSubgroup, 16, 16, gl_MatrixUseB>
#define FC coopmat<float, gl_ScopeSubgroup, 16, 16, gl_MatrixUseAccumulator>

layout(local_size_x = NT) in;
layout(push_constant) uniform Push { RS_CONV_PUSH } pc;

uint flags;
#define K_CF ((flags & CF_K_CF) != 0u)
#include "common/conv_geom.glsl"

shared uvec4 As[BM * SR];
shared uvec4 Bs[BN * SR];
// (the epilogue stages 64 uvec4 a subgroup in As: BM SR >= 64 NSG for both tiles)

layout(buffer_reference, std430, buffer_reference_align = 4) buffer PartF { float v; };

uint64_t a_base, b_base;

uint a_bits(uint mm, uint kk, uint buf) {
    const int64_t off = a_off(mm, kk, buf);
    return off < 0L ? 0u : uint(RsU16(a_base + uint64_t(off) * 2UL).v);
}

uint b_bits(uint nn, uint kk, uint buf) {
    const int64_t off = b_off(nn, kk, buf);
    return off < 0L ? 0u : uint(RsU16(b_base + uint64_t(off) * 2UL).v);
}

// 8 adjacent halves from k (CF_VEC_A / CF_VEC_B: conv.c checked the layout)
layout(buffer_reference, std430, buffer_reference_align = 16) readonly buffer RsV4 { uvec4 v; };
uvec4 a_vec(uint mm, uint kk, uint buf) {
    const int64_t off = a_off(mm, kk, buf);
    return off < 0L ? uvec4(0u) : RsV4(a_base + uint64_t(off) * 2UL).v;
}
uvec4 b_vec(uint nn, uint kk, uint buf) {
    const int64_t off = b_off(nn, kk, buf);
    return off < 0L ? uvec4(0u) : RsV4(b_base + uint64_t(off) * 2UL).v;
}

void main() {
    read_params();
    flags = uint(cp(CP_FLAGS));
    const bool akf = (flags & CF_A_KF) != 0u, bkf = (flags & CF_B_KF) != 0u;
    const bool veca = (flags & CF_VEC_A) != 0u, vecb = (flags & CF_VEC_B) != 0u;
    const uint tid = gl_LocalInvocationIndex;
    const uint sg = gl_SubgroupID, lane = gl_SubgroupInvocationID;
    const uint wm = sg / WN, wn = sg % WN;
    const int64_t tiles_m = cp(CP_TILES_M), tiles_n = cp(CP_TILES_N);
    const int64_t splits = cp(CP_SPLITS), kps = cp(CP_KPS);
    const int64_t nz = ngroups * splits * cp(CP_CLASSES);
    const bool split_on = pc.part != 0UL;

    // each load's (row, k within the slice) and shared slot: 8 consecutive
    // k of one row; consecutive invocations along k, or along the rows
    uint am[NQA], ak[NQA], bn_[NQB], bk_[NQB];
    [[unroll]] for (uint q = 0u; q < NQA; ++q) {
        const uint i = tid + q * NT;
        am[q] = akf ? i / (BK / 8u) : i % BM;
        ak[q] = (akf ? i % (BK / 8u) : i / BM) * 8u;
    }
    [[unroll]] for (uint q = 0u; q < NQB; ++q) {
        const uint i = tid + q * NT;
        bn_[q] = bkf ? i / (BK / 8u) : i % BN;
        bk_[q] = (bkf ? i % (BK / 8u) : i / BN) * 8u;
    }

    for (int64_t z = int64_t(gl_WorkGroupID.z); z < nz; z += int64_t(gl_NumWorkGroups.z))
    for (int64_t tmi = int64_t(gl_WorkGroupID.y); tmi < tiles_m; tmi += int64_t(gl_NumWorkGroups.y))
    for (int64_t tni = int64_t(gl_WorkGroupID.x); tni < tiles_n; tni += int64_t(gl_NumWorkGroups.x)) {
        // z: the group, the split of k, then mode 1's stride class
        const int64_t g = z % ngroups, split = z / ngroups % splits;
        const int64_t row0 = tmi * int64_t(BM), col0 = tni * int64_t(BN);
#if MODE == 1
        set_class(z / ngroups / splits);
        if (row0 >= M) continue;
#endif
        uint64_t c_base;
        group_bases(g, 2L, a_base, b_base, c_base);
        const int64_t kbeg = split * kps, kend = min(K, kbeg + kps);

        barrier();  // the previous tile's readers are done with the tables and As
        build_tables(tid, row0, col0);
        build_k(tid, kbeg, kend, 0u);
        barrier();

        FC acc[FM][FN];
        [[unroll]] for (uint i = 0u; i < FM; ++i)
            [[unroll]] for (uint j = 0u; j < FN; ++j) acc[i][j] = FC(0.0);
        uvec4 ra[NQA], rb[NQB];
#define GATHER8(fn, r, kq, buf_)                                                                   \
        {                                                                                          \
            uint w_[8];                                                                            \
            [[unroll]] for (uint e = 0u; e < 8u; ++e) w_[e] = fn(r, kq + e, buf_);                  \
            v_ = uvec4(w_[0] | (w_[1] << 16), w_[2] | (w_[3] << 16), w_[4] | (w_[5] << 16), w_[6] | (w_[7] << 16)); \
        }
#define LOAD_SLICE(buf_)                                                                           \
        if (veca) {                                                                                \
            [[unroll]] for (uint q = 0u; q < NQA; ++q) ra[q] = a_vec(am[q], ak[q], buf_);          \
        } else {                                                                                   \
            [[unroll]] for (uint q = 0u; q < NQA; ++q) { uvec4 v_; GATHER8(a_bits, am[q], ak[q], buf_) ra[q] = v_; } \
        }                                                                                          \
        if (vecb) {                                                                                \
            [[unroll]] for (uint q = 0u; q < NQB; ++q) rb[q] = b_vec(bn_[q], bk_[q], buf_);        \
        } else {                                                                                   \
            [[unroll]] for (uint q = 0u; q < NQB; ++q) { uvec4 v_; GATHER8(b_bits, bn_[q], bk_[q], buf_) rb[q] = v_; } \
        }
        LOAD_SLICE(0u)
        uint buf = 0u;
        for (int64_t k0 = kbeg; k0 < kend; k0 += int64_t(BK)) {
            barrier();  // every subgroup is done with the last slice
            [[unroll]] for (uint q = 0u; q < NQA; ++q) As[am[q] * SR + ak[q] / 8u] = ra[q];
            [[unroll]] for (uint q = 0u; q < NQB; ++q) Bs[bn_[q] * SR + bk_[q] / 8u] = rb[q];
            const bool more = k0 + int64_t(BK) < kend;
            if (more) build_k(tid, k0 + int64_t(BK), kend, buf ^ 1u);
            barrier();
            // the next slice's gathers overlap this slice's products
            if (more) { LOAD_SLICE(buf ^ 1u) }
            [[unroll]] for (uint ks = 0u; ks < BK / 16u; ++ks) {
                FA fa[FM];
                FB fb[FN];
                [[unroll]] for (uint i = 0u; i < FM; ++i)
                    coopMatLoad(fa[i], As, (wm * SGM + i * 16u) * SR + ks * 2u, SR, gl_CooperativeMatrixLayoutRowMajor);
                [[unroll]] for (uint j = 0u; j < FN; ++j)
                    coopMatLoad(fb[j], Bs, (wn * SGN + j * 16u) * SR + ks * 2u, SR, gl_CooperativeMatrixLayoutColumnMajor);
                [[unroll]] for (uint i = 0u; i < FM; ++i)
                    [[unroll]] for (uint j = 0u; j < FN; ++j) acc[i][j] = coopMatMulAdd(fa[i], fb[j], acc[i][j]);
            }
            buf ^= 1u;
        }

        // epilogue, one fragment at a time through this subgroup's staging
        // area in As; lane l takes row l / 2, columns (l % 2) * 8 .. + 8:
        // the bias (mode 0) added in float32 and one rounding, as conv.comp
        const uint er = lane / 2u, ec = (lane % 2u) * 8u;
        barrier();  // every subgroup is done with As
        [[unroll]] for (uint i = 0u; i < FM; ++i)
            [[unroll]] for (uint j = 0u; j < FN; ++j) {
                coopMatStore(acc[i][j], As, sg * 64u, 4u, gl_CooperativeMatrixLayoutRowMajor);
                subgroupMemoryBarrierShared();
                subgroupBarrier();
                const uint mm = wm * SGM + i * 16u + er;
                const int64_t m = row0 + int64_t(mm);
                if (m < M) {
                    const uvec4 c0 = As[sg * 64u + er * 4u + ec / 4u], c1 = As[sg * 64u + er * 4u + ec / 4u + 1u];
                    const uint cv[8] = uint[8](c0.x, c0.y, c0.z, c0.w, c1.x, c1.y, c1.z, c1.w);
                    [[unroll]] for (uint e = 0u; e < 8u; ++e) {
                        const uint nn = wn * SGN + j * 16u + ec + e;
                        const int64_t col = col0 + int64_t(nn);
                        if (col >= NC) break;
                        float v = uintBitsToFloat(cv[e]);
                        if (split_on) {
                            PartF(pc.part + uint64_t(((split * ngroups + g) * M + m) * NC + col) * 4UL).v = v;
                        } else {
                            if (MODE == 0 && pc.bias != 0UL) v += DEC_IN(uint(RsU16(pc.bias + uint64_t(g * og + col) * 2UL).v));
                            RsU16(c_base + uint64_t(rc_off[mm] + cc_off[nn]) * 2UL).v = uint16_t(ENC_OUT(v));
                        }
                    }
                }
                subgroupMemoryBarrierShared();
                subgroupBarrier();
            }
    }
}
