// attention_bwd_coopmat_khr.comp: scaled dot-product attention's backward
// for float16 and bfloat16 on VK_KHR_cooperative_matrix, flash-attention
// style (the partner of attention_coopmat_khr.comp, whose notes on
// compiling and on bfloat16 apply): the scores, probabilities and their
// gradients never leave the workgroup, and no atomics: every gradient is
// one workgroup's sum in a fixed order.
//
// The probabilities are p = exp(scale s + mask - lse) (computed in base 2:
// exp2((scale s + mask - lse) log2 e)) with the forward's lse
// (the fused forward computes the scores with the same fragments in the same
// order, so the same bits), and ds = p (dp - delta) with delta = rowsum(dO o)
// (o: the forward's output), dp = dO v^T. Two launches:
//   MODE 0: a workgroup owns 64 query rows of one (batch, head), 16 a
//     subgroup; q's and dO's rows as A fragments; keys and values stream
//     through shared memory BS at a time: s = q k^T, p, dp = dO v^T, ds,
//     dq += ds k. Writes dq (times scale) and delta (from the staged dO
//     rows and o), which MODE 1 reads.
//   MODE 1: a workgroup owns 64 keys of one (batch, key head), 16 a
//     subgroup; k's and v's rows as A fragments; the G query heads' rows of
//     q and dO stream BS at a time: s^T = k q^T, p^T, dv += p^T dO,
//     dp^T = v dO^T, ds^T, dk += ds^T q. Writes dk (times scale) and dv.
// Both are one scheme: a workgroup's own rows (X1: q or k, X2: dO or v)
// against streamed rows (Y1: k or q, Y2: v or dO): scores X1 Y1^T, dp
// X2 Y2^T, the first gradient ds Y1, MODE 1's second p^T Y2. Two lanes an
// own row keep half a block's p values in registers between the steps; p
// and ds are rounded to the dtype for the products (as the forward's p and
// as CPU's and CUDA's fused kernels), written over the row's floats.
//
// With DROP, dropout (common/attention_dropout.glsl's mask, the forward's):
// the dropped p (p kept / (1 - dropout), else 0) goes into dv, and ds = p
// (dp' - delta) with dp' = dp kept / (1 - dropout), else 0 (dp being the
// dropped p's gradient). MODE 0's lanes draw their half row's kept flags as
// the forward does; MODE 1's own rows are keys, so a block's flags (BS query
// rows x 64 keys) are drawn by row into shared bits first, 32 keys an
// invocation.
//
// Defines: MODE, D (64 or 128: the most head dims of q/k and of v; BS 64
// or 32), ELEM_BF16, DROP.
#version 460
#extension GL_GOOGLE_include_directive : require
#extension GL_KHR_cooperative_matrix : require
#extension GL_KHR_memory_scope_semantics : require
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_shuffle : require
#extension GL_EXT_control_flow_attributes : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#include "common/dtype.glsl"
#include "params/attention.h"

#ifndef D
#define D 64
#endif
#ifndef MODE
#define MODE 0
#endif
#ifndef ELEM_BF16
#define ELEM_BF16 0
#endif
#ifndef DROP
#define DROP 0
#endif
#if D == 64
#define BS 64
#elif D == 128
#define BS 32
#else
#error "D is 64 or 128"
#endif

#define NT 128u
#define BW 64                // own rows a workgroup, 16 a subgroup
#define DSR (D / 8 + 1)      // row stride of staged rows in uvec4 (8 halves), one of padding
#define SSR (BS / 4 + 1)     // row stride of a score area in uvec4 (4 floats)
// shared memory, in uvec4: the streamed Y1 and Y2 blocks and four score
// areas of 16 rows; the own rows are staged over Y1 and Y2, one tensor at a
// time
#define Y1OFF 0
#define Y2OFF (BS * DSR)
#define AOFF (2 * BS * DSR)
#define SM_SIZE (AOFF + BW * SSR)
#if BW * DSR > AOFF
#error "the own rows must fit over the streamed blocks"
#endif
shared uvec4 sm[SM_SIZE];
#include "common/attention_coopmat.glsl"
#if ELEM_BF16
#define ENC(v) rs_bf16_enc(v)
#define DEC(h) rs_bf16_dec(h)
#else
#define ENC(v) rs_f16_enc_sel(v)
#define DEC(h) rs_f16_dec(h)
#endif
#define LOG2E 1.44269504088896340736
#if MODE == 1
shared float sl[2 * BS];     // the streamed rows' lse log2 e, then delta
#endif
#if DROP
#include "common/attention_dropout.glsl"
#if MODE == 1
shared uint kbits[2 * BS];   // kept flags: streamed row y's keys r0 + 32 w + bit at [2 y + w]
#endif
#endif

#define FA coopmat<float16_t, gl_ScopeSubgroup, 16, 16, gl_MatrixUseA>
#define FB coopmat<float16_t, gl_ScopeSubgroup, 16, 16, gl_MatrixUseB>
#define FC coopmat<float, gl_ScopeSubgroup, 16, 16, gl_MatrixUseAccumulator>

layout(local_size_x = NT) in;
layout(push_constant) uniform Push { RS_ATTENTION_BWD_PUSH } pc;

int64_t ap(int slot) { return RsI64(pc.params + 8UL * uint64_t(slot)).v; }

int64_t B, HQ, HK, L, S, E, EV, G;
bool causal;
float scale;
int64_t qs[4], ks[4], vs[4], os[4], ms[4], dos[4], dqs[4], dks[4], dvs[4];
const float NEG_INF = -1.0 / 0.0;

// a subgroup's 16 x 16 accumulator (own rows, dims d0 ..) times f into a
// (b, h) slice of the dtype: through the subgroup's score area, lane
// (r, h) row r, dims h 8 .. + 7
void store_rows(FC acc, float f, uint sg, uint r, uint h, uint64_t base, int64_t off, int64_t st[4], int64_t row,
                int64_t rows, int64_t d0, int64_t n, bool vec) {
    for (int e = 0; e < acc.length(); ++e) acc[e] *= f;
    coopMatStore(acc, sm, uint(AOFF) + sg * 16u * uint(SSR), uint(SSR), gl_CooperativeMatrixLayoutRowMajor);
    subgroupMemoryBarrierShared();
    subgroupBarrier();
    const int64_t d = d0 + int64_t(h * 8u);
    if (row < rows && d < n) {
        const uint at = uint(AOFF) + (sg * 16u + r) * uint(SSR) + h * 2u;
        const vec4 a = uintBitsToFloat(sm[at]), c = uintBitsToFloat(sm[at + 1u]);
        const uint hb[8] = uint[8](ENC(a.x), ENC(a.y), ENC(a.z), ENC(a.w), ENC(c.x), ENC(c.y), ENC(c.z), ENC(c.w));
        const int64_t o = off + row * st[2];
        if (vec && d + 8L <= n) {
            RsV4(base + uint64_t(o + d) * 2UL).v =
                uvec4(hb[0] | (hb[1] << 16), hb[2] | (hb[3] << 16), hb[4] | (hb[5] << 16), hb[6] | (hb[7] << 16));
        } else {
            [[unroll]] for (uint e = 0u; e < 8u; ++e)
                if (d + int64_t(e) < n) RsU16(base + uint64_t(o + (d + int64_t(e)) * st[3]) * 2UL).v = uint16_t(hb[e]);
        }
    }
    subgroupBarrier();  // read before the next store
}

void main() {
    B = ap(AP_B); HQ = ap(AP_HQ); HK = ap(AP_HK); L = ap(AP_L); S = ap(AP_S); E = ap(AP_E); EV = ap(AP_EV);
    G = HQ / HK;
    causal = ap(AP_CAUSAL) != 0L;
    scale = uintBitsToFloat(uint(ap(AP_SCALE)));
    for (int j = 0; j < 4; ++j) {
        qs[j] = ap(AP_QS + j); ks[j] = ap(AP_KS + j); vs[j] = ap(AP_VS + j); os[j] = ap(AP_OS + j);
        ms[j] = ap(AP_MS + j); dos[j] = ap(AP_DOS + j); dqs[j] = ap(AP_DQS + j); dks[j] = ap(AP_DKS + j);
        dvs[j] = ap(AP_DVS + j);
    }
    const bool has_mask = pc.mask != 0UL;
    const float sl2 = scale * float(LOG2E);
#if DROP
    const float drop_keep = uintBitsToFloat(uint(ap(AP_DROP_KEEP)));
    const float drop_scale = uintBitsToFloat(uint(ap(AP_DROP_SCALE)));
    const uint64_t seed = uint64_t(ap(AP_SEED)), offset = uint64_t(ap(AP_OFFSET));
#endif
    const bool vq = vec_ok(qs, E, pc.q), vk = vec_ok(ks, E, pc.k), vv = vec_ok(vs, EV, pc.v);
    const bool vdo = vec_ok(dos, EV, pc.dout);
    const uint tid = gl_LocalInvocationIndex;
    const uint sg = gl_SubgroupID, lane = gl_SubgroupInvocationID;
    const uint r = lane / 2u, h = lane % 2u;   // the lane's own row of the subgroup and half of a block
    const uint arow = uint(AOFF) + (sg * 16u + r) * uint(SSR);
    const int64_t nown = MODE == 0 ? L : S;  // own rows of a (batch, head)
    const int64_t nob = (nown + int64_t(BW) - 1L) / int64_t(BW), nbh = B * (MODE == 0 ? HQ : HK);

    for (int64_t t = int64_t(gl_WorkGroupID.x); t < nbh * nob; t += int64_t(gl_NumWorkGroups.x)) {
        const int64_t ob = MODE == 0 ? nob - 1L - t % nob : t % nob;  // the blocks with the most work first
        const int64_t bh = t / nob, b = MODE == 0 ? bh / HQ : bh / HK, hh = MODE == 0 ? bh % HQ : bh % HK;
        const int64_t r0 = ob * int64_t(BW), own = r0 + int64_t(sg * 16u + r);
        // the own rows' fragments: X1 (q or k, E dims), X2 (dO or v, EV dims)
#if MODE == 0
        const int64_t hq0 = hh, hk = hh / G;
        const int64_t x1o = b * qs[0] + hh * qs[1], x2o = b * dos[0] + hh * dos[1];
        const int64_t y1o = b * ks[0] + hk * ks[1], y2o = b * vs[0] + hk * vs[1];
#else
        const int64_t hk = hh;
        const int64_t x1o = b * ks[0] + hh * ks[1], x2o = b * vs[0] + hh * vs[1];
#endif
        FA x1[D / 16];  // (one declarator a line: glslang 13 drops the use of the second)
        FA x2[D / 16];
        barrier();  // the previous tile is done with shared memory
#if MODE == 0
        stage(0u, BW, pc.q, x1o, qs, r0, L, E, vq, tid);
#else
        stage(0u, BW, pc.k, x1o, ks, r0, S, E, vk, tid);
#endif
        barrier();
        [[unroll]] for (uint dd = 0u; dd < uint(D / 16); ++dd)
            coopMatLoad(x1[dd], sm, sg * 16u * uint(DSR) + dd * 2u, uint(DSR), gl_CooperativeMatrixLayoutRowMajor);
        barrier();
#if MODE == 0
        stage(0u, BW, pc.dout, x2o, dos, r0, L, EV, vdo, tid);
#else
        stage(0u, BW, pc.v, x2o, vs, r0, S, EV, vv, tid);
#endif
        barrier();
        [[unroll]] for (uint dd = 0u; dd < uint(D / 16); ++dd)
            coopMatLoad(x2[dd], sm, sg * 16u * uint(DSR) + dd * 2u, uint(DSR), gl_CooperativeMatrixLayoutRowMajor);
#if MODE == 0
        // delta = rowsum(dO o) of the own row: the lane's half of the dims,
        // dO from the staged rows, o from memory
        float lse_r = NEG_INF, delta_r = 0.0;  // lse_r: lse log2 e (p runs in base 2)
        {
            float part = 0.0;
            const int64_t oo = b * os[0] + hh * os[1] + own * os[2];
            for (uint dq8 = h * uint(D / 16); dq8 < (h + 1u) * uint(D / 16); ++dq8) {
                const uvec4 w = sm[(sg * 16u + r) * uint(DSR) + dq8];
                [[unroll]] for (uint e = 0u; e < 8u; ++e) {
                    const int64_t d = int64_t(dq8 * 8u + e);
                    if (own < L && d < EV) {
                        const uint hb = (w[e / 2u] >> (16u * (e % 2u))) & 0xFFFFu;
                        part += DEC(hb) * DEC(uint(RsU16(pc.o + uint64_t(oo + d * os[3]) * 2UL).v));
                    }
                }
            }
            delta_r = part + subgroupShuffleXor(part, 1u);
            if (own < L) {
                lse_r = RsF32(pc.lse + uint64_t((b * HQ + hh) * L + own) * 4UL).v * float(LOG2E);
                if (h == 0u) RsF32(pc.delta + uint64_t((b * HQ + hh) * L + own) * 4UL).v = delta_r;
            }
        }
        FC g1[D / 16];
#else
        FC g1[D / 16];
        FC g2[D / 16];
        [[unroll]] for (uint dd = 0u; dd < uint(D / 16); ++dd) g2[dd] = FC(0.0);
#endif
        [[unroll]] for (uint dd = 0u; dd < uint(D / 16); ++dd) g1[dd] = FC(0.0);

        // the streamed blocks: keys (MODE 0), or each query head's rows (MODE 1)
#if MODE == 0
        const int64_t ny = causal ? min(S, r0 + int64_t(BW)) : S, y_first = 0L;
        for (int64_t gq = 0L; gq < 1L; ++gq) {
            const int64_t hq = hq0;
#else
        const int64_t ny = L, y_first = causal ? (r0 / int64_t(BS)) * int64_t(BS) : 0L;
        for (int64_t gq = 0L; gq < G; ++gq) {
            const int64_t hq = hk * G + gq;
            const int64_t y1o = b * qs[0] + hq * qs[1], y2o = b * dos[0] + hq * dos[1];
#endif
            const int64_t mo = b * ms[0] + hq * ms[1];
            for (int64_t y0 = y_first; y0 < ny; y0 += int64_t(BS)) {
                barrier();  // the previous block's products (or the own rows' loads) are done
#if MODE == 0
                stage(uint(Y1OFF), BS, pc.k, y1o, ks, y0, S, E, vk, tid);
                stage(uint(Y2OFF), BS, pc.v, y2o, vs, y0, S, EV, vv, tid);
#else
                stage(uint(Y1OFF), BS, pc.q, y1o, qs, y0, L, E, vq, tid);
                stage(uint(Y2OFF), BS, pc.dout, y2o, dos, y0, L, EV, vdo, tid);
                if (tid < uint(BS)) {
                    const int64_t i = y0 + int64_t(tid);
                    const bool in_ = i < L;
                    sl[tid] = in_ ? RsF32(pc.lse + uint64_t((b * HQ + hq) * L + i) * 4UL).v * float(LOG2E) : NEG_INF;
                    sl[BS + tid] = in_ ? RsF32(pc.delta + uint64_t((b * HQ + hq) * L + i) * 4UL).v : 0.0;
                }
#if DROP
                // the block's kept flags: streamed row y0 + y, own keys r0 + 32 w ..
                // (none where the row is outside or causal hides all 32)
                for (uint ch = tid; ch < uint(2 * BS); ch += NT) {
                    const int64_t i = y0 + int64_t(ch / 2u), j = r0 + int64_t(32u * (ch % 2u));
                    kbits[ch] = i < L && j < S && (!causal || j <= i)
                        ? rs_attn_keep_bits(seed, offset, ((b * HQ + hq) * L + i) * S + j, 32, drop_keep) : 0u;
                }
#endif
#endif
                barrier();

                // s = X1 Y1^T into the score area
                FC acc[BS / 16];
                [[unroll]] for (uint jj = 0u; jj < uint(BS / 16); ++jj) acc[jj] = FC(0.0);
                [[unroll]] for (uint dd = 0u; dd < uint(D / 16); ++dd)
                    [[unroll]] for (uint jj = 0u; jj < uint(BS / 16); ++jj) {
                        FB yt;
                        coopMatLoad(yt, sm, uint(Y1OFF) + jj * 16u * uint(DSR) + dd * 2u, uint(DSR),
                                    gl_CooperativeMatrixLayoutColumnMajor);
                        acc[jj] = coopMatMulAdd(x1[dd], yt, acc[jj]);
                    }
                [[unroll]] for (uint jj = 0u; jj < uint(BS / 16); ++jj)
                    coopMatStore(acc[jj], sm, uint(AOFF) + sg * 16u * uint(SSR) + jj * 4u, uint(SSR),
                                 gl_CooperativeMatrixLayoutRowMajor);
                subgroupMemoryBarrierShared();
                subgroupBarrier();

                // p of the lane's half of the own row: (i, j) = (own, y) or (y, own)
                float pv[BS / 2];
                [[unroll]] for (uint q = 0u; q < uint(BS / 8); ++q) {
                    const vec4 w = uintBitsToFloat(sm[arow + h * uint(BS / 8) + q]);
                    pv[4u * q] = w.x; pv[4u * q + 1u] = w.y; pv[4u * q + 2u] = w.z; pv[4u * q + 3u] = w.w;
                }
                // the live (i, j) of the lane's half: MODE 0, the keys yc < hi of
                // row `own`; MODE 1, the query rows lo <= yc < hi of key `own`
                const int64_t yb = y0 + int64_t(h * uint(BS / 2));
#if MODE == 0
                const int64_t yend = own < L && lse_r != NEG_INF ? (causal ? min(S, own + 1L) : S) : 0L;
                const int lo = 0, hi = int(clamp(yend - yb, 0L, int64_t(BS / 2)));
                const int64_t mrow = mo + own * ms[2];
#else
                const int lo = causal ? int(clamp(own - yb, 0L, int64_t(BS / 2))) : 0;
                const int hi = own < S ? int(clamp(L - yb, 0L, int64_t(BS / 2))) : 0;
                const int64_t mrow = mo + own * ms[3];
#endif
                [[unroll]] for (uint c = 0u; c < uint(BS / 2); ++c) {
#if MODE == 0
                    const float lse = lse_r;
#else
                    const float lse = sl[h * uint(BS / 2) + c];
#endif
                    const bool live = int(c) >= lo && int(c) < hi && lse != NEG_INF;
                    float x = pv[c] * sl2;
                    if (has_mask && live) {
#if MODE == 0
                        x += DEC(uint(RsU16(pc.mask + uint64_t(mrow + (yb + int64_t(c)) * ms[3]) * 2UL).v)) * float(LOG2E);
#else
                        x += DEC(uint(RsU16(pc.mask + uint64_t(mrow + (yb + int64_t(c)) * ms[2]) * 2UL).v)) * float(LOG2E);
#endif
                    }
                    pv[c] = live ? exp2(x - lse) : 0.0;
                }
#if DROP
                // dq: the kept flags of the lane's half row (MODE 0), or where the
                // lane's key sits in the streamed rows' shared flags (MODE 1)
#if MODE == 0
                const uint kept = hi > 0
                    ? rs_attn_keep_bits(seed, offset, ((b * HQ + hq) * L + own) * S + yb, BS / 2, drop_keep) : 0u;
#define KEPT(c) ((kept & (1u << (c))) != 0u)
#else
                const uint kw = (sg * 16u + r) / 32u, kmask = 1u << ((sg * 16u + r) % 32u);
#define KEPT(c) ((kbits[2u * (h * uint(BS / 2) + (c)) + kw] & kmask) != 0u)
#endif
#endif
#if MODE == 1
                // dv += p^T dO: p rounded over the row's floats
                subgroupBarrier();
                [[unroll]] for (uint q = 0u; q < uint(BS / 16); ++q) {
                    uint w[4];
#if DROP
                    [[unroll]] for (uint e = 0u; e < 4u; ++e) {
                        const uint c = 8u * q + 2u * e;
                        w[e] = ENC(KEPT(c) ? pv[c] * drop_scale : 0.0) |
                               (ENC(KEPT(c + 1u) ? pv[c + 1u] * drop_scale : 0.0) << 16);
                    }
#else
                    [[unroll]] for (uint e = 0u; e < 4u; ++e)
                        w[e] = ENC(pv[8u * q + 2u * e]) | (ENC(pv[8u * q + 2u * e + 1u]) << 16);
#endif
                    sm[arow + h * uint(BS / 16) + q] = uvec4(w[0], w[1], w[2], w[3]);
                }
                subgroupMemoryBarrierShared();
                subgroupBarrier();
                [[unroll]] for (uint kk = 0u; kk < uint(BS / 16); ++kk) {
                    FA pa;
                    coopMatLoad(pa, sm, uint(AOFF) + sg * 16u * uint(SSR) + kk * 2u, uint(SSR),
                                gl_CooperativeMatrixLayoutRowMajor);
                    [[unroll]] for (uint dd = 0u; dd < uint(D / 16); ++dd) {
                        FB yf;
                        coopMatLoad(yf, sm, uint(Y2OFF) + kk * 16u * uint(DSR) + dd * 2u, uint(DSR),
                                    gl_CooperativeMatrixLayoutRowMajor);
                        g2[dd] = coopMatMulAdd(pa, yf, g2[dd]);
                    }
                }
#endif
                // dp = X2 Y2^T into the score area
                [[unroll]] for (uint jj = 0u; jj < uint(BS / 16); ++jj) acc[jj] = FC(0.0);
                [[unroll]] for (uint dd = 0u; dd < uint(D / 16); ++dd)
                    [[unroll]] for (uint jj = 0u; jj < uint(BS / 16); ++jj) {
                        FB yt;
                        coopMatLoad(yt, sm, uint(Y2OFF) + jj * 16u * uint(DSR) + dd * 2u, uint(DSR),
                                    gl_CooperativeMatrixLayoutColumnMajor);
                        acc[jj] = coopMatMulAdd(x2[dd], yt, acc[jj]);
                    }
                subgroupBarrier();  // p's fragments are loaded (MODE 1), the scores read
                [[unroll]] for (uint jj = 0u; jj < uint(BS / 16); ++jj)
                    coopMatStore(acc[jj], sm, uint(AOFF) + sg * 16u * uint(SSR) + jj * 4u, uint(SSR),
                                 gl_CooperativeMatrixLayoutRowMajor);
                subgroupMemoryBarrierShared();
                subgroupBarrier();

                // ds = p (dp - delta), rounded, over the row's floats
                float dsv[BS / 2];
                [[unroll]] for (uint q = 0u; q < uint(BS / 8); ++q) {
                    const vec4 w = uintBitsToFloat(sm[arow + h * uint(BS / 8) + q]);
                    [[unroll]] for (uint e = 0u; e < 4u; ++e) {
                        const uint c = 4u * q + e;
#if MODE == 0
                        const float delta = delta_r;
#else
                        const float delta = sl[BS + h * uint(BS / 2) + c];
#endif
#if DROP
                        dsv[c] = pv[c] * ((KEPT(c) ? w[e] * drop_scale : 0.0) - delta);
#else
                        dsv[c] = pv[c] * (w[e] - delta);
#endif
                    }
                }
                subgroupBarrier();
                [[unroll]] for (uint q = 0u; q < uint(BS / 16); ++q) {
                    uint w[4];
                    [[unroll]] for (uint e = 0u; e < 4u; ++e)
                        w[e] = ENC(dsv[8u * q + 2u * e]) | (ENC(dsv[8u * q + 2u * e + 1u]) << 16);
                    sm[arow + h * uint(BS / 16) + q] = uvec4(w[0], w[1], w[2], w[3]);
                }
                subgroupMemoryBarrierShared();
                subgroupBarrier();

                // the first gradient += ds Y1
                [[unroll]] for (uint kk = 0u; kk < uint(BS / 16); ++kk) {
                    FA da;
                    coopMatLoad(da, sm, uint(AOFF) + sg * 16u * uint(SSR) + kk * 2u, uint(SSR),
                                gl_CooperativeMatrixLayoutRowMajor);
                    [[unroll]] for (uint dd = 0u; dd < uint(D / 16); ++dd) {
                        FB yf;
                        coopMatLoad(yf, sm, uint(Y1OFF) + kk * 16u * uint(DSR) + dd * 2u, uint(DSR),
                                    gl_CooperativeMatrixLayoutRowMajor);
                        g1[dd] = coopMatMulAdd(da, yf, g1[dd]);
                    }
                }
            }
        }

        // the gradients of the own rows
        subgroupBarrier();  // ds's fragments are loaded before the score area is reused
#if MODE == 0
        if (pc.dq != 0UL) {
            const bool vdq = vec_ok(dqs, E, pc.dq);
            [[unroll]] for (uint dd = 0u; dd < uint(D / 16); ++dd)
                store_rows(g1[dd], scale, sg, r, h, pc.dq, b * dqs[0] + hh * dqs[1], dqs, own, L, int64_t(dd * 16u), E, vdq);
        }
#else
        if (pc.dk != 0UL) {
            const bool vdk = vec_ok(dks, E, pc.dk);
            [[unroll]] for (uint dd = 0u; dd < uint(D / 16); ++dd)
                store_rows(g1[dd], scale, sg, r, h, pc.dk, b * dks[0] + hh * dks[1], dks, own, S, int64_t(dd * 16u), E, vdk);
        }
        if (pc.dv != 0UL) {
            const bool vdv = vec_ok(dvs, EV, pc.dv);
            [[unroll]] for (uint dd = 0u; dd < uint(D / 16); ++dd)
                store_rows(g2[dd], 1.0, sg, r, h, pc.dv, b * dvs[0] + hh * dvs[1], dvs, own, S, int64_t(dd * 16u), EV, vdv);
        }
#endif
    }
}
