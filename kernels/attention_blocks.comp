// attention_blocks.comp: the row steps of attention's backward
// (src/engine/attention.c, run_blocks), on one block of scores that
// the GEMM engine computed: NZ (batch, key head) pairs x LC query rows x NK
// keys (from key 0: every key a row sees), contiguous, in ACC (float32, or
// float64 for float64). RL invocations a row, ROWS = 256 / RL rows a
// workgroup; each row's sums are folded over its lanes in a fixed tree, so
// the results repeat bit for bit.
//
// MODE 0 softmax, in place: sc = scale q k^T  ->  p = softmax(sc + mask),
//   -inf where causal hides the key (key > row); a row with every score
//   -inf gets p = 0 (as its forward output 0). The probabilities are
//   recomputed rather than read as exp(s - lse) with the forward's lse: a
//   lse from scores rounded in another order put float32 gradients 7x
//   CPU's error from float64 (scores near 100 are an ulp of 8e-6 apart).
// MODE 1 softmax backward, in place: dp = dO v^T  ->  ds = p (dp - D),
//   D = sum_j p dp (the row's own sum, as the math backend's
//   _softmax_backward_data); attention.c applies the scale in the products.
//
// LOW (float16/bfloat16): the products that read p and ds take them in DT
// (attention.c runs them on the GEMM engine with DT operands and float32
// results, cooperative matrices where the device has them), so MODE 0 also
// writes p rounded to DT into `low`, and MODE 1 writes ds there in DT (not
// in place); the float32 p in sc is what MODE 1 reads.
//
// FWD (MODE 0, with LOW): the forward on blocks (float16/bfloat16 where the
// device has cooperative matrices): p goes to `low` only, and each row's
// log-sum-exp m + log l (-inf for a row with every score -inf) to lse.
//
// DROP (with LOW; float32/float64 take LOW too then, `low` in ACC): dropout,
// common/attention_dropout.glsl's mask. MODE 0 writes the dropped p (p
// kept / (1 - dropout), else 0) into `low`, which the products read (out,
// dv); sc keeps p. MODE 1 takes dO v^T as the dropped p's gradient and
// scales it the same way into p's (dp; the mask read back from `low`),
// then ds = p (dp - D) as before.
//
// Defines: DT (the mask's dtype: q's), MODE, HAS_MASK, ACCB (bytes of
// ACC), RL (lanes a row, a power of two dividing 256), LOW, FWD, DROP.
#version 460
#include "common/dtype.glsl"
#include "params/attention_blocks.h"
#include "common/index.glsl"
#include "common/opmath.glsl"
#include "common/error.glsl"

#define NT 256u
#define ROWS (NT / RL)
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

layout(push_constant) uniform Push { RS_ATTENTION_BLOCKS_PUSH } pc;

int64_t ab(int slot) { return RsI64(pc.params + 8UL * uint64_t(slot)).v; }

layout(buffer_reference, std430, buffer_reference_align = 4) buffer AccEl { ACC v; };
AccEl acc_at(uint64_t base, int64_t e) { return AccEl(base + uint64_t(e) * uint64_t(ACCB)); }

// an element of `low`: DT for float16/bfloat16, ACC for float32/float64
// (DROP), so float64's is written whole
void low_set(int64_t e, ACC v) {
#if RS_IS_DBL(DT)
    acc_at(pc.low, e).v = v;
#else
    RS_SET_F(DT)(pc.low, e, v);
#endif
}

#if RS_IS_DBL(DT)
#define NEG_INF (-1.0LF / 0.0LF)
ACC acc_bits(int64_t b) { return uint64BitsToDouble(uint64_t(b)); }
#else
#define NEG_INF (-1.0 / 0.0)
ACC acc_bits(int64_t b) { return uintBitsToFloat(uint(b)); }
#endif

shared ACC red[NT];
#if DROP && MODE == 0
#define WPR (RL / 4u + 1u)  // Philox blocks a row's RL keys touch
shared uvec4 wds[ROWS * WPR];
#endif

// the row's fold of v over its RL lanes (max, or sum), the same order every run
ACC fold(ACC v, uint tid, uint lane, bool is_max) {
    red[tid] = v;
    barrier();
    for (uint s = RL / 2u; s > 0u; s >>= 1u) {
        if (lane < s) red[tid] = is_max ? max(red[tid], red[tid + s]) : red[tid] + red[tid + s];
        barrier();
    }
    const ACC r = red[tid - lane];
    barrier();
    return r;
}

void main() {
    const int64_t nz = ab(AB_NZ), lc = ab(AB_LC), nk = ab(AB_NK);
    const int64_t z0 = ab(AB_Z0), i0 = ab(AB_I0), r = ab(AB_R), g = ab(AB_G), hk = ab(AB_HK);
    const uint tid = gl_LocalInvocationIndex, lane = tid % RL;
    const int64_t rows = nz * lc, blocks = (rows + int64_t(ROWS) - 1L) / int64_t(ROWS);
#if DROP
    const float drop_keep = uintBitsToFloat(uint(ab(AB_DROP_KEEP)));
    const ACC drop_scale = acc_bits(ab(AB_DROP_SCALE));
    const uint64_t seed = uint64_t(ab(AB_SEED)), offset = uint64_t(ab(AB_OFFSET));
    const int64_t hq_all = hk * g, l_all = ab(AB_L), s_all = ab(AB_S);
#endif
#if MODE == 0
    const bool causal = ab(AB_CAUSAL) != 0L;
#if HAS_MASK
    const int64_t ms0 = ab(AB_MS), ms1 = ab(AB_MS + 1), ms2 = ab(AB_MS + 2), ms3 = ab(AB_MS + 3);
#endif
#endif
    // every invocation of a workgroup runs the same iterations (the folds' barriers)
    for (int64_t w = int64_t(gl_WorkGroupID.x); w < blocks; w += int64_t(gl_NumWorkGroups.x)) {
        const int64_t row = w * int64_t(ROWS) + int64_t(tid / RL);
        const bool live = row < rows;
        const int64_t base = row * nk;
        const int64_t z = z0 + row / lc, gi = i0 + row % lc;
#if DROP && MODE == 0
        // the row's first flat mask index: (b Hq + h) L + gi, times S
        const int64_t flat0 = (((z / hk) * hq_all + (z % hk) * g + r) * l_all + gi) * s_all;
#endif
#if MODE == 0
#if HAS_MASK
        const int64_t moff = (z / hk) * ms0 + ((z % hk) * g + r) * ms1 + gi * ms2;
#endif
        // the finished scores, kept in place; their maximum
        ACC m = NEG_INF;
        for (int64_t j = int64_t(lane); live && j < nk; j += int64_t(RL)) {
            ACC s = NEG_INF;
            if (!(causal && j > gi)) {
                s = acc_at(pc.sc, base + j).v;
#if HAS_MASK
                s += RS_LDO(DT)(pc.mask, moff + j * ms3);
#endif
            }
            acc_at(pc.sc, base + j).v = s;
            m = max(m, s);
        }
        m = fold(m, tid, lane, true);
        ACC l = ACC(0);
        for (int64_t j = int64_t(lane); live && m != NEG_INF && j < nk; j += int64_t(RL))
            l += rs_op_exp(acc_at(pc.sc, base + j).v - m);
        l = fold(l, tid, lane, false);
#if DROP
        // RL keys a step (a uniform loop: its barriers), their Philox blocks
        // drawn once each (four keys a block) by the row's first WPR lanes
        for (int64_t jb = 0L; jb < nk; jb += int64_t(RL)) {
            const int64_t blk0 = (flat0 + jb) >> 2;
            if (lane < WPR) wds[(tid / RL) * WPR + lane] = rs_attn_words(seed, offset, (blk0 + int64_t(lane)) << 2);
            barrier();
            const int64_t j = jb + int64_t(lane);
            if (live && j < nk) {
#else
        for (int64_t j = int64_t(lane); live && j < nk; j += int64_t(RL)) {
            {
#endif
                const ACC s = acc_at(pc.sc, base + j).v;
                const ACC p = m == NEG_INF ? ACC(0) : rs_div(rs_op_exp(s - m), l);
#if !FWD
                acc_at(pc.sc, base + j).v = p;
#endif
#if DROP
                const int64_t at_ = flat0 + j;
                const bool kept = p != ACC(0) && rs_attn_kept_in(wds[(tid / RL) * WPR + uint((at_ >> 2) - blk0)], at_,
                                                                 drop_keep);
                low_set(base + j, kept ? p * drop_scale : ACC(0));
#elif LOW
                low_set(base + j, p);
#endif
            }
#if DROP
            barrier();  // the words are read before the next step's are drawn
#endif
        }
#if FWD
        if (live && lane == 0u) {
            const int64_t hq = hk * g, b = z / hk, h = (z % hk) * g + r;
            acc_at(pc.lse, (b * hq + h) * ab(AB_L) + gi).v = m == NEG_INF ? NEG_INF : m + rs_op_log(l);
        }
#endif
#else
#if DROP
        // dp: the dropped p's gradient, scaled back into p's, the mask read
        // back from MODE 0's dropped p in `low` (no second Philox draw): kept
        // where that is nonzero. A kept p so small that its dropped value
        // rounds to 0 (float16 below 6e-8) gets ds = p (0 - D) instead of
        // p (dp - D): a difference below the rounding of ds itself.
        for (int64_t j = int64_t(lane); live && j < nk; j += int64_t(RL)) {
            const ACC dv = acc_at(pc.dp, base + j).v;
            acc_at(pc.dp, base + j).v = RS_LDO(DT)(pc.low, base + j) != ACC(0) ? dv * drop_scale : ACC(0);
        }
#endif
        ACC d = ACC(0);
        for (int64_t j = int64_t(lane); live && j < nk; j += int64_t(RL))
            d = fma(acc_at(pc.sc, base + j).v, acc_at(pc.dp, base + j).v, d);
        d = fold(d, tid, lane, false);
        for (int64_t j = int64_t(lane); live && j < nk; j += int64_t(RL)) {
            const ACC p = acc_at(pc.sc, base + j).v;
#if LOW
            low_set(base + j, p * (acc_at(pc.dp, base + j).v - d));
#else
            acc_at(pc.dp, base + j).v = p * (acc_at(pc.dp, base + j).v - d);
#endif
        }
#endif
    }
}
