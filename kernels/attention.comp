// attention.comp: scaled dot-product attention's forward
// (src/engine/attention.c; contract in russet/attention.h, rs_attention).
// Memory O(L + S): the scores never leave the workgroup. The backward is
// products on the GEMM engine over blocks of scores (attention.c,
// attention_blocks.comp).
//
// Rows and blocks. A workgroup of NT = 128 invocations owns ROWS = NT / RL
// query rows, RL invocations a row. Invocation `lane` of a row keeps the
// row's vectors in registers, 4 dims at a time: vec4 c holds dims
// 4 (c RL + lane) .. + 3, NQ = DE / RL dims of q and NO = DV / RL of the
// output. Keys and values are streamed through shared memory BK rows at a
// time, where every row of
// the workgroup reads the same staged row: a broadcast, and the RL lanes of
// a row read adjacent vec4s. A dot product of a row with a staged row is RL
// partial sums in shared memory, added in a fixed order; every lane of the
// row then has the whole score. No atomics: the same bits every run.
//
// An online softmax over the key blocks (row max m, rescaled sum l,
// rescaled output), then out = o / l and lse = m + log l. With DROP, the
// output sums p kept / (1 - dropout) (common/attention_dropout.glsl's mask)
// while l sums p: lse is the undropped softmax's.
//
// Defines: DT (dtype of q, k, v, out and mask),
// HAS_MASK, DROP, DE / DV (the most dims of q/k and of v, multiples of 4 RL),
// RL (lanes a row), BK (rows a staged block), ACCB (bytes of ACC).
// src/engine/attention.c picks RL for registers (about 64 values a lane)
// and BK for the apple profile's 32 KiB of shared memory.
#version 460
#include "common/dtype.glsl"
#include "params/attention.h"
#include "common/index.glsl"
#include "common/opmath.glsl"
#include "common/error.glsl"

#define NT 128u
#define ROWS (NT / RL)
#define NQ (DE / RL)
#define NO (DV / RL)
layout(local_size_x = NT) in;

#define T_DT DT
#include "common/dtype_inst.glsl"
#include "common/opmath_inst.glsl"
#undef T_DT
#define ACC RS_OPMT(DT)
#define rs_raise(code, value)  // (no op here raises)
#define CM_DT 6
#include "common/ops.glsl"
#if DROP
#include "common/attention_dropout.glsl"
#endif

layout(push_constant) uniform Push { RS_ATTENTION_PUSH } pc;

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
int64_t qs[4], ks[4], vs[4], os[4], ms[4];
#if DROP
float drop_keep;
ACC drop_scale;
uint64_t seed, offset;
#endif

void read_params() {
    B = ap(AP_B); HQ = ap(AP_HQ); HK = ap(AP_HK); L = ap(AP_L); S = ap(AP_S); E = ap(AP_E); EV = ap(AP_EV);
    causal = ap(AP_CAUSAL) != 0L;
    scale = acc_bits(ap(AP_SCALE));
    for (int j = 0; j < 4; ++j) {
        qs[j] = ap(AP_QS + j); ks[j] = ap(AP_KS + j); vs[j] = ap(AP_VS + j); os[j] = ap(AP_OS + j);
        ms[j] = ap(AP_MS + j);
    }
#if DROP
    drop_keep = uintBitsToFloat(uint(ap(AP_DROP_KEEP)));
    drop_scale = acc_bits(ap(AP_DROP_SCALE));
    seed = uint64_t(ap(AP_SEED));
    offset = uint64_t(ap(AP_OFFSET));
#endif
}

int64_t at(int64_t st[4], int64_t b, int64_t h, int64_t row) { return b * st[0] + h * st[1] + row * st[2]; }

#if RS_IS_DBL(DT)
#define ACC4 dvec4
ACC aexp(ACC x) { return rs_op_exp(x); }
#else
#define ACC4 vec4
// the forward's softmax weights: the hardware's exp (a few ulp; every lane
// of a row computes them, so a cheap one)
ACC aexp(ACC x) { return exp(x); }
#endif

// the row's vectors: vec4 c of the lane is dims 4 (c RL + lane) .. + 3:
// q's row in (NQ dims), the output's row out (NO dims), times f
void load_q_row(out ACC4 r[NQ / 4u], uint64_t base, int64_t off, int64_t dst, int64_t n, uint lane, bool ok) {
    for (uint c = 0u; c < NQ / 4u; ++c)
        for (uint t = 0u; t < 4u; ++t) {
            const int64_t d = int64_t(4u * (c * RL + lane) + t);
            r[c][t] = ok && d < n ? load(base, off + d * dst) : ACC(0);
        }
}
void store_out_row(ACC4 r[NO / 4u], ACC f, uint64_t base, int64_t off, int64_t dst, int64_t n, uint lane) {
    for (uint c = 0u; c < NO / 4u; ++c)
        for (uint t = 0u; t < 4u; ++t) {
            const int64_t d = int64_t(4u * (c * RL + lane) + t);
            if (d < n) store(base, off + d * dst, r[c][t] * f);
        }
}

// the staged block: BK rows of k and v,
// zero past the tensors' ends
shared ACC4 sa[BK][DE / 4u];
shared ACC4 sb[BK][DV / 4u];
// the partial dot products, row-major by (row, lane, staged row), padded
#define PS (RL * BK + 1u)
shared ACC part[ROWS * PS];

void stage(uint64_t abase, int64_t aoff, int64_t ars, int64_t ads, int64_t na, uint64_t bbase, int64_t boff,
           int64_t brs, int64_t bds, int64_t nb, int64_t r0, int64_t nrows, uint tid) {
    for (uint e = tid; e < BK * DE; e += NT) {
        const uint j = e / DE, d = e % DE;
        const int64_t row = r0 + int64_t(j);
        sa[j][d / 4u][d % 4u] = row < nrows && int64_t(d) < na ? load(abase, aoff + row * ars + int64_t(d) * ads) : ACC(0);
    }
    for (uint e = tid; e < BK * DV; e += NT) {
        const uint j = e / DV, d = e % DV;
        const int64_t row = r0 + int64_t(j);
        sb[j][d / 4u][d % 4u] = row < nrows && int64_t(d) < nb ? load(bbase, boff + row * brs + int64_t(d) * bds) : ACC(0);
    }
}

// a row's partial dot product with staged row j (sa or sb)
#define DOT(SUF, N, SH)                                  \
    ACC dot##SUF(ACC4 r[N / 4u], uint j, uint lane) {   \
        ACC acc = ACC(0);                                \
        for (uint c = 0u; c < N / 4u; ++c) acc += dot(r[c], SH[j][c * RL + lane]); \
        return acc;                                      \
    }
DOT(_a, NQ, sa)
// the row's whole dot product with staged row j: its lanes' partial sums
#define PART_SUM(NAME, P)                                                    \
    ACC NAME(uint row, uint j) {                                             \
        ACC acc = ACC(0);                                                    \
        for (uint r = 0u; r < RL; ++r) acc += P[row * PS + r * BK + j];      \
        return acc;                                                          \
    }
PART_SUM(part_sum, part)

// the score's scale, mask and visibility: -inf where masked out or outside
ACC finish_score(ACC dot, int64_t b, int64_t h, int64_t i, int64_t j) {
    if (i >= L || j >= S || (causal && j > i)) return NEG_INF;
    ACC s = dot * scale;
#if HAS_MASK
    s += load(pc.mask, at(ms, b, h, i) + j * ms[3]);
#endif
    return s;
}

void main() {
    read_params();
    const uint tid = gl_LocalInvocationIndex, row = tid / RL, lane = tid % RL;
    const int64_t blocks = (L + int64_t(ROWS) - 1L) / int64_t(ROWS), groups = HQ / HK;
    for (int64_t w = int64_t(gl_WorkGroupID.x); w < B * HQ * blocks; w += int64_t(gl_NumWorkGroups.x)) {
        const int64_t i0 = (w % blocks) * int64_t(ROWS), h = (w / blocks) % HQ, b = w / (blocks * HQ), hk = h / groups;
        const int64_t i = i0 + int64_t(row);
        // the last key any row of this workgroup sees
        const int64_t jend = causal ? min(S, i0 + int64_t(ROWS)) : S;
        ACC4 q[NQ / 4u];
        load_q_row(q, pc.q, at(qs, b, h, i), qs[3], E, lane, i < L);
        ACC4 o[NO / 4u];
        for (uint c = 0u; c < NO / 4u; ++c) o[c] = ACC4(0);
        ACC m = NEG_INF, l = ACC(0);
#if DROP
        int64_t wblk = -1L;  // the Philox block in `words`
        uvec4 words = uvec4(0u);
#endif
        for (int64_t j0 = 0L; j0 < jend; j0 += int64_t(BK)) {
            barrier();  // the previous block is read
            stage(pc.k, at(ks, b, hk, 0L), ks[2], ks[3], E, pc.v, at(vs, b, hk, 0L), vs[2], vs[3], EV, j0, S, tid);
            barrier();
            for (uint j = 0u; j < BK; ++j) {
                part[row * PS + lane * BK + j] = dot_a(q, j, lane);
            }
            barrier();
            ACC sc[BK];
            ACC mb = m;
            for (uint j = 0u; j < BK; ++j) {
                sc[j] = finish_score(part_sum(row, j), b, h, i, j0 + int64_t(j));
                mb = max(mb, sc[j]);
            }
            // alpha rescales what was summed before this block
            const ACC alpha = mb == NEG_INF ? ACC(1) : aexp(m - mb);
            m = mb;
            l *= alpha;
            for (uint c = 0u; c < NO / 4u; ++c) o[c] *= alpha;
            for (uint j = 0u; j < BK; ++j) {
                const ACC p = sc[j] == NEG_INF ? ACC(0) : aexp(sc[j] - m);
                l += p;
#if DROP
                // the mask's index; one Philox block feeds four keys in a row
                const int64_t at_ = ((b * HQ + h) * L + i) * S + j0 + int64_t(j);
                bool kept = false;
                if (p != ACC(0)) {
                    if ((at_ >> 2) != wblk) {
                        wblk = at_ >> 2;
                        words = rs_attn_words(seed, offset, at_);
                    }
                    kept = rs_attn_kept_in(words, at_, drop_keep);
                }
                const ACC po = kept ? p * drop_scale : ACC(0);
#else
                const ACC po = p;
#endif
                for (uint c = 0u; c < NO / 4u; ++c) o[c] = fma(ACC4(po), sb[j][c * RL + lane], o[c]);
            }
        }
        if (i < L) {
            store_out_row(o, l > ACC(0) ? ACC(1) / l : ACC(0), pc.o, at(os, b, h, i), os[3], EV, lane);
            if (lane == 0u) acc_at(pc.lse, (b * HQ + h) * L + i).v = l > ACC(0) ? m + rs_op_log(l) : NEG_INF;
        }
    }
}
