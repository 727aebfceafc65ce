// attention.comp: scaled dot-product attention, forward and backward, a
// 16 x 16 block of scores at a time (src/engine/attention.c; contract in
// russet.h, rs_attention). Memory O(L + S): the scores never leave shared
// memory.
//
// 256 invocations a workgroup: invocation (r, c) = (tid / 16, tid % 16)
// owns score (r, c) of the block and, for the outputs, dims d = c + 16 t of
// row r (t < DV / 16). Products are read from the tensors (L1/L2-cached),
// nothing is staged but the block.
//
// MODE 0 forward: a workgroup per (b, head, 16 query rows): online softmax
//   over the key blocks (row max, rescaled sum and output), then out and lse.
// MODE 1 the backward's row terms: D[i] = sum_d dO[i, d] out[i, d].
// MODE 2 grad q: a workgroup per (b, head, 16 query rows):
//   dq[i] = scale sum_j p (dO[i] . v[j] - D[i]) k[j],  p = exp(s - lse[i]).
// MODE 3 grad k and v: a workgroup per (b, kv head, 16 keys), over every
//   query row of every q head that reads it:
//   dv[j] = sum_i p dO[i],  dk[j] = scale sum_i p (dO[i] . v[j] - D[i]) q[i].
// Each gradient element is one invocation's sum in a fixed order.
//
// The block loops stay rolled ([[dont_unroll]]): unrolled, 16 x 16 load
// sites with their address arithmetic took lavapipe minutes to compile at
// 256 head dims; the accumulators' loops (over t) unroll, keeping them in
// registers.
//
// Defines: DT (dtype of q, k, v, out, mask and the gradients), HAS_MASK,
// DE / DV (the most dims of q/k and of v that a row may have, multiples of
// 16: each invocation keeps DV / 16 (or DE / 16) accumulators).
#version 460
#include "common/dtype.glsl"
#include "common/index.glsl"
#include "common/opmath.glsl"
#include "common/error.glsl"

#define NT 256u
layout(local_size_x = NT) in;

#define T_DT DT
#include "common/dtype_inst.glsl"
#include "common/opmath_inst.glsl"
#undef T_DT
#define ACC RS_OPMT(DT)
#define rs_raise(code, value)  // (no op here raises)
#define CM_DT 6
#include "common/ops.glsl"

layout(push_constant) uniform Push {
    uint64_t q, k, v, o, mask, lse;
    uint64_t dout, dq, dk, dv, drow;  // backward; drow: D (ACC), contiguous (B, Hq, L)
    uint64_t params;
} pc;

// the parameter block (int64 slots; src/engine/attention.c writes them)
#define AP_B 0
#define AP_HQ 1
#define AP_HK 2
#define AP_L 3
#define AP_S 4
#define AP_E 5
#define AP_EV 6
#define AP_CAUSAL 7
#define AP_SCALE 8   // the bits of ACC's scale
#define AP_QS 9      // 4 strides each: b, h, row, dim
#define AP_KS 13
#define AP_VS 17
#define AP_OS 21
#define AP_MS 25
#define AP_DOS 29
#define AP_DQS 33
#define AP_DKS 37
#define AP_DVS 41
#define AP_SLOTS 45

int64_t ap(int slot) { return RsI64(pc.params + 8UL * uint64_t(slot)).v; }

layout(buffer_reference, std430, buffer_reference_align = 4) buffer AccEl { ACC v; };
AccEl acc_at(uint64_t base, int64_t e) { return AccEl(base + uint64_t(e) * uint64_t(ACCB)); }

#if RS_IS_DBL(DT)
ACC acc_bits(int64_t b) { return uint64BitsToDouble(uint64_t(b)); }
#define NEG_INF (-1.0LF / 0.0LF)
void store(uint64_t base, int64_t off, ACC v) { RS_SET_D(DT)(base, off, doubleBitsToUint64(v)); }
#else
ACC acc_bits(int64_t b) { return uintBitsToFloat(uint(b)); }
#define NEG_INF (-1.0 / 0.0)
void store(uint64_t base, int64_t off, ACC v) { RS_SET_F(DT)(base, off, v); }
#endif
ACC load(uint64_t base, int64_t off) { return RS_LDO(DT)(base, off); }

int64_t B, HQ, HK, L, S, E, EV;
bool causal;
ACC scale;
int64_t qs[4], ks[4], vs[4], os[4], ms[4], dos[4], dqs[4], dks[4], dvs[4];

void read_params() {
    B = ap(AP_B); HQ = ap(AP_HQ); HK = ap(AP_HK); L = ap(AP_L); S = ap(AP_S); E = ap(AP_E); EV = ap(AP_EV);
    causal = ap(AP_CAUSAL) != 0L;
    scale = acc_bits(ap(AP_SCALE));
    for (int j = 0; j < 4; ++j) {
        qs[j] = ap(AP_QS + j); ks[j] = ap(AP_KS + j); vs[j] = ap(AP_VS + j); os[j] = ap(AP_OS + j);
        ms[j] = ap(AP_MS + j); dos[j] = ap(AP_DOS + j); dqs[j] = ap(AP_DQS + j); dks[j] = ap(AP_DKS + j);
        dvs[j] = ap(AP_DVS + j);
    }
}

int64_t at(int64_t st[4], int64_t b, int64_t h, int64_t row) { return b * st[0] + h * st[1] + row * st[2]; }

// the score of query row i (q head h) and key j (kv head hk): -inf where
// masked out or outside
ACC score(int64_t b, int64_t h, int64_t hk, int64_t i, int64_t j) {
    if (i >= L || j >= S || (causal && j > i)) return NEG_INF;
    const int64_t qo = at(qs, b, h, i), ko = at(ks, b, hk, j);
    ACC dot = ACC(0);
    for (int64_t e = 0L; e < E; ++e) dot = fma(load(pc.q, qo + e * qs[3]), load(pc.k, ko + e * ks[3]), dot);
    ACC s = dot * scale;
#if HAS_MASK
    s += load(pc.mask, at(ms, b, h, i) + j * ms[3]);
#endif
    return s;
}

// dO[i] . v[j]
ACC grad_dot_v(int64_t b, int64_t h, int64_t hk, int64_t i, int64_t j) {
    if (i >= L || j >= S) return ACC(0);
    const int64_t go = at(dos, b, h, i), vo = at(vs, b, hk, j);
    ACC dot = ACC(0);
    for (int64_t e = 0L; e < EV; ++e) dot = fma(load(pc.dout, go + e * dos[3]), load(pc.v, vo + e * vs[3]), dot);
    return dot;
}

shared ACC blk[16][17];
shared ACC blk2[16][17];
shared ACC row_m[16], row_l[16], row_alpha[16];

#define NDV (DV / 16u)
#define NDE (DE / 16u)

void main() {
    read_params();
    const uint tid = gl_LocalInvocationIndex, r = tid / 16u, c = tid % 16u;
#if MODE == 1
    // D[i] for every (b, h, i) row, an invocation each
    const int64_t rows = B * HQ * L;
    for (int64_t e = int64_t(gl_GlobalInvocationID.x); e < rows; e += int64_t(gl_NumWorkGroups.x) * int64_t(NT)) {
        const int64_t i = e % L, h = (e / L) % HQ, b = e / (L * HQ);
        const int64_t go = at(dos, b, h, i), oo = at(os, b, h, i);
        ACC d = ACC(0);
        for (int64_t t = 0L; t < EV; ++t) d = fma(load(pc.dout, go + t * dos[3]), load(pc.o, oo + t * os[3]), d);
        acc_at(pc.drow, e).v = d;
    }
#elif MODE == 0 || MODE == 2
    const int64_t blocks = (L + 15L) / 16L, groups = HQ / HK;
    for (int64_t w = int64_t(gl_WorkGroupID.x); w < B * HQ * blocks; w += int64_t(gl_NumWorkGroups.x)) {
        const int64_t i0 = (w % blocks) * 16L, h = (w / blocks) % HQ, b = w / (blocks * HQ), hk = h / groups;
        const int64_t i = i0 + int64_t(r);
        // the last key any row of this block sees
        const int64_t jend = causal ? min(S, i0 + 16L) : S;
#if MODE == 0
        ACC o[NDV];
        for (uint t = 0u; t < NDV; ++t) o[t] = ACC(0);
        if (c == 0u) { row_m[r] = NEG_INF; row_l[r] = ACC(0); }
#else
        ACC dq[NDE];
        for (uint t = 0u; t < NDE; ++t) dq[t] = ACC(0);
        const ACC lse_i = i < L ? acc_at(pc.lse, (b * HQ + h) * L + i).v : NEG_INF;
        const ACC d_i = i < L ? acc_at(pc.drow, (b * HQ + h) * L + i).v : ACC(0);
#endif
        for (int64_t j0 = 0L; j0 < jend; j0 += 16L) {
            const int64_t j = j0 + int64_t(c);
            const ACC s = score(b, h, hk, i, j);
#if MODE == 0
            blk[r][c] = s;
            barrier();
            if (c == 0u) {
                ACC mb = row_m[r];
                for (uint t = 0u; t < 16u; ++t) mb = max(mb, blk[r][t]);
                // alpha rescales what was summed before this block
                row_alpha[r] = mb == NEG_INF ? ACC(1) : rs_op_exp(row_m[r] - mb);
                row_m[r] = mb;
            }
            barrier();
            const ACC m = row_m[r];
            blk[r][c] = s == NEG_INF ? ACC(0) : rs_op_exp(s - m);
            barrier();
            const ACC alpha = row_alpha[r];
            if (c == 0u) {
                ACC l = row_l[r] * alpha;
                for (uint t = 0u; t < 16u; ++t) l += blk[r][t];
                row_l[r] = l;
            }
            for (uint t = 0u; t < NDV; ++t) {
                const int64_t d = int64_t(c + 16u * t);
                if (d >= EV) break;
                ACC acc = o[t] * alpha;
                [[dont_unroll]] for (uint cc = 0u; cc < 16u; ++cc) {
                    const int64_t jj = j0 + int64_t(cc);
                    if (jj >= S) break;
                    acc = fma(blk[r][cc], load(pc.v, at(vs, b, hk, jj) + d * vs[3]), acc);
                }
                o[t] = acc;
            }
            barrier();
#else
            const ACC p = (s == NEG_INF || lse_i == NEG_INF) ? ACC(0) : rs_op_exp(s - lse_i);
            blk[r][c] = p == ACC(0) ? ACC(0) : p * (grad_dot_v(b, h, hk, i, j) - d_i);
            barrier();
            for (uint t = 0u; t < NDE; ++t) {
                const int64_t d = int64_t(c + 16u * t);
                if (d >= E) break;
                ACC acc = dq[t];
                [[dont_unroll]] for (uint cc = 0u; cc < 16u; ++cc) {
                    const int64_t jj = j0 + int64_t(cc);
                    if (jj >= S) break;
                    acc = fma(blk[r][cc], load(pc.k, at(ks, b, hk, jj) + d * ks[3]), acc);
                }
                dq[t] = acc;
            }
            barrier();
#endif
        }
#if MODE == 0
        barrier();  // row_l is complete (also when no key block ran)
#endif
        if (i < L) {
#if MODE == 0
            const ACC l = row_l[r];
            for (uint t = 0u; t < NDV; ++t) {
                const int64_t d = int64_t(c + 16u * t);
                if (d >= EV) break;
                store(pc.o, at(os, b, h, i) + d * os[3], l > ACC(0) ? o[t] / l : ACC(0));
            }
            if (c == 0u) acc_at(pc.lse, (b * HQ + h) * L + i).v = l > ACC(0) ? row_m[r] + rs_op_log(l) : NEG_INF;
#else
            for (uint t = 0u; t < NDE; ++t) {
                const int64_t d = int64_t(c + 16u * t);
                if (d >= E) break;
                store(pc.dq, at(dqs, b, h, i) + d * dqs[3], dq[t] * scale);
            }
#endif
        }
        barrier();
    }
#else  // MODE 3: grad k and v; rows are keys
    const int64_t blocks = (S + 15L) / 16L, groups = HQ / HK;
    for (int64_t w = int64_t(gl_WorkGroupID.x); w < B * HK * blocks; w += int64_t(gl_NumWorkGroups.x)) {
        const int64_t j0 = (w % blocks) * 16L, hk = (w / blocks) % HK, b = w / (blocks * HK);
        const int64_t j = j0 + int64_t(r);
        ACC dk[NDE], dv[NDV];
        for (uint t = 0u; t < NDE; ++t) dk[t] = ACC(0);
        for (uint t = 0u; t < NDV; ++t) dv[t] = ACC(0);
        // causal: queries before the block's first key see none of it
        const int64_t ibeg = causal ? (j0 / 16L) * 16L : 0L;
        for (int64_t h = hk * groups; h < (hk + 1L) * groups; ++h)
        for (int64_t i0 = ibeg; i0 < L; i0 += 16L) {
            const int64_t i = i0 + int64_t(c);
            const ACC s = score(b, h, hk, i, j);
            const ACC lse_i = i < L ? acc_at(pc.lse, (b * HQ + h) * L + i).v : NEG_INF;
            const ACC p = (s == NEG_INF || lse_i == NEG_INF) ? ACC(0) : rs_op_exp(s - lse_i);
            blk[r][c] = p;
            blk2[r][c] = p == ACC(0) ? ACC(0)
                                     : p * (grad_dot_v(b, h, hk, i, j) - acc_at(pc.drow, (b * HQ + h) * L + i).v);
            barrier();
            for (uint t = 0u; t < NDV; ++t) {
                const int64_t d = int64_t(c + 16u * t);
                if (d >= EV) break;
                ACC acc = dv[t];
                [[dont_unroll]] for (uint cc = 0u; cc < 16u; ++cc) {
                    const int64_t ii = i0 + int64_t(cc);
                    if (ii >= L) break;
                    acc = fma(blk[r][cc], load(pc.dout, at(dos, b, h, ii) + d * dos[3]), acc);
                }
                dv[t] = acc;
            }
            for (uint t = 0u; t < NDE; ++t) {
                const int64_t d = int64_t(c + 16u * t);
                if (d >= E) break;
                ACC acc = dk[t];
                [[dont_unroll]] for (uint cc = 0u; cc < 16u; ++cc) {
                    const int64_t ii = i0 + int64_t(cc);
                    if (ii >= L) break;
                    acc = fma(blk2[r][cc], load(pc.q, at(qs, b, h, ii) + d * qs[3]), acc);
                }
                dk[t] = acc;
            }
            barrier();
        }
        if (j < S) {
            if (pc.dv != 0UL)
                for (uint t = 0u; t < NDV; ++t) {
                    const int64_t d = int64_t(c + 16u * t);
                    if (d >= EV) break;
                    store(pc.dv, at(dvs, b, hk, j) + d * dvs[3], dv[t]);
                }
            if (pc.dk != 0UL)
                for (uint t = 0u; t < NDE; ++t) {
                    const int64_t d = int64_t(c + 16u * t);
                    if (d >= E) break;
                    store(pc.dk, at(dks, b, hk, j) + d * dks[3], dk[t] * scale);
                }
        }
    }
#endif
}
