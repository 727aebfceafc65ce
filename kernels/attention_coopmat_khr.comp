// attention_coopmat_khr.comp: scaled dot-product attention's forward for
// float16 and bfloat16 on VK_KHR_cooperative_matrix (16x16x16 fragments,
// float32 accumulators), flash-attention style: the scores and the
// probabilities never leave the workgroup, memory O(L + S). Never under the
// apple profile (no cooperative matrices); src/engine/attention.c picks it
// where the device lists the dtype's fragments, its subgroups are 32 wide
// and the head dims fit D. Same contract, push block and parameter block
// as attention.comp (params/attention.h).
//
// Compiled ahead of time (tools/build_spirv.py; gemm_coopmat_khr.comp's
// notes on bfloat16 apply: fragments are declared float16 and the module's
// one 16-bit float type is then made bfloat16; halves are only moved as
// bits, loaded into fragments and multiplied into float32).
//
// A workgroup: four subgroups of 32 invocations, BR = 64 query rows of one
// (batch, head), 16 a subgroup. Its q rows are staged through shared memory
// once and kept as D / 16 A fragments a subgroup. Keys and values stream
// through shared memory BC at a time (D 64: 64 keys; D 128: 32), each
// block's global loads issued into registers while the block before it is
// computed (fetch, then put after the next barrier), and per block each
// subgroup:
//   1. s = q k^T: BC / 16 accumulators over D / 16 fragments of k^T (k's
//      rows read column-major), stored to the subgroup's score area;
//   2. the online softmax, two lanes a row (half the block's keys each,
//      the row's maximum and sum met through a shuffle), in base 2 (x =
//      (scale s + mask) log2 e, so exp2 is one instruction): the causal
//      and end-of-keys limit as one count of live keys, the new maximum m,
//      alpha = exp2(m_old - m), p = exp2(x - m) rounded to the dtype
//      (rs_f16_enc_sel: no branches) and written over the row's scores,
//      l = alpha l + sum p;
//   3. o = alpha o + p v: alpha as a 16 x 16 matrix whose row r holds the
//      row's factor (an accumulator, so that its elements pair with o's),
//      skipped when no row's maximum moved; p from the score area as A
//      fragments, v as B fragments.
// At the end out = o / l (0 for a row whose keys are all masked) through the
// score area to the dtype, and lse = (m + log2 l) ln 2 (float32, natural log).
//
// With DROP, dropout (common/attention_dropout.glsl's mask): each lane draws
// the kept flags of its half row of a block as bits (rs_attn_keep_bits), and
// the p that goes into o is p kept / (1 - dropout), else 0, while l sums p:
// lse stays the undropped softmax's, as the other paths write it.
//
// Defines: D (64 or 128: the most head dims of q/k and of v), ELEM_BF16, BC
// (keys a block; a multiple of 16 with BC D / 8 a multiple of NT), DROP.
#version 460
#extension GL_GOOGLE_include_directive : require
#extension GL_KHR_cooperative_matrix : require
#extension GL_KHR_memory_scope_semantics : require
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_shuffle : require
#extension GL_KHR_shader_subgroup_vote : require
#extension GL_EXT_control_flow_attributes : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#include "common/dtype.glsl"
#include "params/attention.h"

#ifndef D
#define D 64
#endif
#ifndef ELEM_BF16
#define ELEM_BF16 0
#endif
#ifndef DROP
#define DROP 0
#endif
#if D != 64 && D != 128
#error "D is 64 or 128"
#endif
#ifndef BC
#if D == 64
#define BC 64
#else
#define BC 32
#endif
#endif

#define NT 128u
#define NPF (BC * (D / 8) / int(NT))  // 16-byte pieces of a k or v block an invocation stages
#define BR 64                // query rows a workgroup, 16 a subgroup
#define DSR (D / 8 + 1)      // row stride of staged q, k, v in uvec4 (8 halves), one of padding
#define SSR (BC / 4 + 1)     // row stride of a score area in uvec4 (4 floats)
// shared memory, in uvec4: k and v blocks, four score areas of 16 rows,
// four 16 x 16 float factor matrices; q's block is staged over k and v
#define KOFF 0
#define VOFF (BC * DSR)
#define SOFF (2 * BC * DSR)
#define FOFF (SOFF + BR * SSR)
#define SM_SIZE (FOFF + 4 * 64)
#if BR * DSR > SOFF
#error "q's block must fit over k and v"
#endif
shared uvec4 sm[SM_SIZE];
#include "common/attention_coopmat.glsl"
#if DROP
#include "common/attention_dropout.glsl"
#endif
#if ELEM_BF16
#define ENC_OUT(v) rs_bf16_enc(v)
#else
#define ENC_OUT(v) rs_f16_enc_sel(v)
#endif
#define LOG2E 1.44269504088896340736
#define LN2 0.69314718055994530942

#define FA coopmat<float16_t, gl_ScopeSubgroup, 16, 16, gl_MatrixUseA>
#define FB coopmat<float16_t, gl_ScopeSubgroup, 16, 16, gl_MatrixUseB>
#define FC coopmat<float, gl_ScopeSubgroup, 16, 16, gl_MatrixUseAccumulator>

layout(local_size_x = NT) in;
layout(push_constant) uniform Push { RS_ATTENTION_PUSH } pc;

int64_t ap(int slot) { return RsI64(pc.params + 8UL * uint64_t(slot)).v; }

int64_t B, HQ, HK, L, S, E, EV;
bool causal;
float scale;
int64_t qs[4], ks[4], vs[4], os[4], ms[4];

void main() {
    B = ap(AP_B); HQ = ap(AP_HQ); HK = ap(AP_HK); L = ap(AP_L); S = ap(AP_S); E = ap(AP_E); EV = ap(AP_EV);
    causal = ap(AP_CAUSAL) != 0L;
    scale = uintBitsToFloat(uint(ap(AP_SCALE)));
    for (int j = 0; j < 4; ++j) {
        qs[j] = ap(AP_QS + j); ks[j] = ap(AP_KS + j); vs[j] = ap(AP_VS + j); os[j] = ap(AP_OS + j);
        ms[j] = ap(AP_MS + j);
    }
    const bool has_mask = pc.mask != 0UL;
    const bool vq = vec_ok(qs, E, pc.q), vk = vec_ok(ks, E, pc.k), vv = vec_ok(vs, EV, pc.v), vo = vec_ok(os, EV, pc.o);
    const uint tid = gl_LocalInvocationIndex;
    const uint sg = gl_SubgroupID, lane = gl_SubgroupInvocationID;
    const uint r = lane / 2u, h = lane % 2u;   // the softmax's row of the subgroup and half of the keys
    const uint srow = SOFF + (sg * 16u + r) * SSR;
    const int64_t nrb = (L + int64_t(BR) - 1L) / int64_t(BR), G = HQ / HK;
    const float NEG_INF = -1.0 / 0.0;

    const float sl2 = scale * float(LOG2E);  // the softmax runs in base 2: exp(x) = exp2(x log2 e)
#if DROP
    const float drop_keep = uintBitsToFloat(uint(ap(AP_DROP_KEEP)));
    const float drop_scale = uintBitsToFloat(uint(ap(AP_DROP_SCALE)));
    const uint64_t seed = uint64_t(ap(AP_SEED)), offset = uint64_t(ap(AP_OFFSET));
#endif

    for (int64_t t = int64_t(gl_WorkGroupID.x); t < B * HQ * nrb; t += int64_t(gl_NumWorkGroups.x)) {
        // the last row blocks first: causal ones have the most keys
        const int64_t rb = nrb - 1L - t % nrb, bh = t / nrb, hq = bh % HQ, b = bh / HQ, hk = hq / G;
        const int64_t i0 = rb * int64_t(BR);
        const int64_t gi = i0 + int64_t(sg * 16u + r);  // this lane's row
        const int64_t nk = causal ? min(S, i0 + int64_t(BR)) : S;
        const int64_t kend = causal ? min(S, gi + 1L) : S;  // the row's keys end
        const int64_t kb = b * ks[0] + hk * ks[1], vb = b * vs[0] + hk * vs[1];
        const int64_t mo = b * ms[0] + hq * ms[1] + gi * ms[2];

        // the first k and v block's loads, in flight while q is staged
        uvec4 kn[NPF];
        uvec4 vn[NPF];
        fetch(kn, pc.k, kb, ks, 0L, S, E, vk, tid);
        fetch(vn, pc.v, vb, vs, 0L, S, EV, vv, tid);
        barrier();  // the previous tile is done with shared memory
        stage(0u, BR, pc.q, b * qs[0] + hq * qs[1], qs, i0, L, E, vq, tid);
        barrier();
        FA qf[D / 16u];
        [[unroll]] for (uint dd = 0u; dd < D / 16u; ++dd)
            coopMatLoad(qf[dd], sm, sg * 16u * DSR + dd * 2u, DSR, gl_CooperativeMatrixLayoutRowMajor);
        FC o[D / 16u];
        [[unroll]] for (uint dd = 0u; dd < D / 16u; ++dd) o[dd] = FC(0.0);
        float m = NEG_INF, l = 0.0;  // m: the row's largest x log2 e so far

        for (int64_t j0 = 0L; j0 < nk; j0 += int64_t(BC)) {
            barrier();  // q's fragments loaded, or the previous block's products done
            put(KOFF, kn, tid);
            put(VOFF, vn, tid);
            barrier();
            if (j0 + int64_t(BC) < nk) {  // the next block's loads run under this block's products
                fetch(kn, pc.k, kb, ks, j0 + int64_t(BC), S, E, vk, tid);
                fetch(vn, pc.v, vb, vs, j0 + int64_t(BC), S, EV, vv, tid);
            }

            // 1. the scores
            FC sc[BC / 16u];
            [[unroll]] for (uint jj = 0u; jj < BC / 16u; ++jj) sc[jj] = FC(0.0);
            [[unroll]] for (uint dd = 0u; dd < D / 16u; ++dd)
                [[unroll]] for (uint jj = 0u; jj < BC / 16u; ++jj) {
                    FB kt;
                    coopMatLoad(kt, sm, KOFF + jj * 16u * DSR + dd * 2u, DSR, gl_CooperativeMatrixLayoutColumnMajor);
                    sc[jj] = coopMatMulAdd(qf[dd], kt, sc[jj]);
                }
            [[unroll]] for (uint jj = 0u; jj < BC / 16u; ++jj)
                coopMatStore(sc[jj], sm, SOFF + sg * 16u * SSR + jj * 4u, SSR, gl_CooperativeMatrixLayoutRowMajor);
            subgroupMemoryBarrierShared();
            subgroupBarrier();

            // 2. the online softmax: keys jb + c of row gi, the first `live`
            // of them inside the keys and the causal limit
            float sv[BC / 2u];
            [[unroll]] for (uint q = 0u; q < BC / 8u; ++q) {
                const vec4 w = uintBitsToFloat(sm[srow + h * (BC / 8u) + q]);
                sv[4u * q] = w.x; sv[4u * q + 1u] = w.y; sv[4u * q + 2u] = w.z; sv[4u * q + 3u] = w.w;
            }
            const int64_t jb = j0 + int64_t(h * (BC / 2u));
            const int live = int(clamp(kend - jb, 0L, int64_t(BC / 2u)));
            float mx = NEG_INF;
            [[unroll]] for (uint c = 0u; c < BC / 2u; ++c) {
                float x = int(c) < live ? sv[c] * sl2 : NEG_INF;
                if (has_mask && int(c) < live && gi < L) {
                    const uint mb = uint(RsU16(pc.mask + uint64_t(mo + (jb + int64_t(c)) * ms[3]) * 2UL).v);
#if ELEM_BF16
                    x += rs_bf16_dec(mb) * float(LOG2E);
#else
                    x += rs_f16_dec(mb) * float(LOG2E);
#endif
                }
                sv[c] = x;
                mx = max(mx, x);
            }
            mx = max(mx, subgroupShuffleXor(mx, 1u));
            const float mn = max(m, mx);
            const float mref = mn == NEG_INF ? 0.0 : mn;  // every key so far masked: p = exp2(-inf) = 0
            const float alpha = exp2(m - mref);
            float sum = 0.0;
            uint pw[BC / 4u];
#if DROP
            // the kept flags of the lane's keys jb .. jb + BC / 2 - 1 of row gi
            const uint kept = live > 0 && gi < L
                ? rs_attn_keep_bits(seed, offset, ((b * HQ + hq) * L + gi) * S + jb, int(BC / 2u), drop_keep) : 0u;
#endif
            [[unroll]] for (uint c = 0u; c < BC / 2u; c += 2u) {
                const float p0 = exp2(sv[c] - mref), p1 = exp2(sv[c + 1u] - mref);
                sum += p0 + p1;
#if DROP
                const float d0 = (kept & (1u << c)) != 0u ? p0 * drop_scale : 0.0;
                const float d1 = (kept & (2u << c)) != 0u ? p1 * drop_scale : 0.0;
                pw[c / 2u] = ENC_OUT(d0) | (ENC_OUT(d1) << 16);
#else
                pw[c / 2u] = ENC_OUT(p0) | (ENC_OUT(p1) << 16);
#endif
            }
            sum += subgroupShuffleXor(sum, 1u);
            l = alpha * l + sum;
            m = mn;
            subgroupBarrier();  // every lane has read its scores: p goes over them
            [[unroll]] for (uint q = 0u; q < BC / 16u; ++q)
                sm[srow + h * (BC / 16u) + q] = uvec4(pw[4u * q], pw[4u * q + 1u], pw[4u * q + 2u], pw[4u * q + 3u]);
            const bool rescale = subgroupAny(alpha != 1.0);
            if (rescale) {
                const uvec4 a4 = uvec4(floatBitsToUint(alpha));
                sm[FOFF + sg * 64u + r * 4u + h * 2u] = a4;
                sm[FOFF + sg * 64u + r * 4u + h * 2u + 1u] = a4;
            }
            subgroupMemoryBarrierShared();
            subgroupBarrier();

            // 3. o = alpha o + p v
            if (rescale) {
                FC fa;
                coopMatLoad(fa, sm, FOFF + sg * 64u, 4u, gl_CooperativeMatrixLayoutRowMajor);
                [[unroll]] for (uint dd = 0u; dd < D / 16u; ++dd)
                    for (int e = 0; e < o[dd].length(); ++e) o[dd][e] *= fa[e];
            }
            [[unroll]] for (uint kk = 0u; kk < BC / 16u; ++kk) {
                FA pa;
                coopMatLoad(pa, sm, SOFF + sg * 16u * SSR + kk * 2u, SSR, gl_CooperativeMatrixLayoutRowMajor);
                [[unroll]] for (uint dd = 0u; dd < D / 16u; ++dd) {
                    FB vf;
                    coopMatLoad(vf, sm, VOFF + kk * 16u * DSR + dd * 2u, DSR, gl_CooperativeMatrixLayoutRowMajor);
                    o[dd] = coopMatMulAdd(pa, vf, o[dd]);
                }
            }
        }

        // out = o / l through the score area; lse = m + log l
        subgroupBarrier();  // the last block's p fragments are loaded
        const float inv = l > 0.0 ? 1.0 / l : 0.0;
        const uvec4 i4 = uvec4(floatBitsToUint(inv));
        sm[FOFF + sg * 64u + r * 4u + h * 2u] = i4;
        sm[FOFF + sg * 64u + r * 4u + h * 2u + 1u] = i4;
        if (h == 0u && gi < L)
            RsF32(pc.lse + uint64_t((b * HQ + hq) * L + gi) * 4UL).v = m == NEG_INF ? NEG_INF : (m + log2(l)) * float(LN2);
        subgroupMemoryBarrierShared();
        subgroupBarrier();
        FC fi;
        coopMatLoad(fi, sm, FOFF + sg * 64u, 4u, gl_CooperativeMatrixLayoutRowMajor);
        const int64_t oo = b * os[0] + hq * os[1] + gi * os[2];
        [[unroll]] for (uint dd = 0u; dd < D / 16u; ++dd) {
            for (int e = 0; e < o[dd].length(); ++e) o[dd][e] *= fi[e];
            coopMatStore(o[dd], sm, SOFF + sg * 16u * SSR, SSR, gl_CooperativeMatrixLayoutRowMajor);
            subgroupMemoryBarrierShared();
            subgroupBarrier();
            const int64_t d0 = int64_t(dd * 16u + h * 8u);
            if (gi < L && d0 < EV) {
                const vec4 a = uintBitsToFloat(sm[srow + h * 2u]), c = uintBitsToFloat(sm[srow + h * 2u + 1u]);
                const uint hb[8] = uint[8](ENC_OUT(a.x), ENC_OUT(a.y), ENC_OUT(a.z), ENC_OUT(a.w), ENC_OUT(c.x),
                                           ENC_OUT(c.y), ENC_OUT(c.z), ENC_OUT(c.w));
                if (vo && d0 + 8L <= EV) {
                    RsV4(pc.o + uint64_t(oo + d0) * 2UL).v =
                        uvec4(hb[0] | (hb[1] << 16), hb[2] | (hb[3] << 16), hb[4] | (hb[5] << 16), hb[6] | (hb[7] << 16));
                } else {
                    [[unroll]] for (uint e = 0u; e < 8u; ++e)
                        if (d0 + int64_t(e) < EV) RsU16(pc.o + uint64_t(oo + (d0 + int64_t(e)) * os[3]) * 2UL).v = uint16_t(hb[e]);
                }
            }
            subgroupBarrier();  // read before the next fragment's store
        }
    }
}
