// embedding_bag.comp: F.embedding_bag's forward and backward
// (src/engine/embedding_bag.c; contract in russet/embedding_bag.h).
//   MODE 0-2 (forward: sum, mean, max): one invocation per (bag, column):
//     it walks its bag's positions in order, so sums, the mean's roundings
//     and the maximum's ties and NaNs follow CPU's loop exactly, with no
//     atomics; the invocations of a bag also write its positions' bag
//     (offset2bag), one position in D each.
//   MODE 3 (backward, sum and mean): per (position, column), the position's
//     row of the weight's gradient before the index sum: grad[bag] times
//     its scale (MEAN, HAS_PSW, FREQ), rounded as CPU's.
//   MODE 4 (backward, max): per (bag, column), the row its maximum came
//     from, or -1 for an empty bag (int64 targets of the index sum).
//   MODE 5 (per_sample_weights' gradient): per position, grad[bag] .
//     weight[index], summed over the columns in order.
//
// Defines: DT (the weight's / gradient's dtype), IDX32 (indices, offsets,
// offset2bag, bag_size and max_indices are int32, else int64), MODE,
// HAS_PSW, and for MODE 3-5: O2B (each position's bag read from offset2bag,
// else searched in offsets), MEAN, FREQ (MODE 3).
#version 460
#include "common/dtype.glsl"
#include "params/embedding_bag.h"
#include "common/index.glsl"
#include "common/opmath.glsl"
#include "common/error.glsl"

layout(local_size_x = RS_WG) in;

#define T_DT DT
#include "common/dtype_inst.glsl"
#include "common/opmath_inst.glsl"
#undef T_DT
#define ACC RS_OPMT(DT)

layout(push_constant) uniform Push { RS_EMBEDDING_BAG_PUSH } pc;

int64_t eb(int slot) { return RsI64(pc.params + 8UL * uint64_t(slot)).v; }

#if IDX32
int64_t idx_at(uint64_t base, int64_t i) { return int64_t(int(RsU32(base + 4UL * uint64_t(i)).v)); }
void idx_set(uint64_t base, int64_t i, int64_t v) { RsU32(base + 4UL * uint64_t(i)).v = uint(int(v)); }
#else
int64_t idx_at(uint64_t base, int64_t i) { return RsI64(base + 8UL * uint64_t(i)).v; }
void idx_set(uint64_t base, int64_t i, int64_t v) { RsI64(base + 8UL * uint64_t(i)).v = v; }
#endif

#if RS_IS_DBL(DT)
void store(int64_t off, ACC v) { RS_SET_D(DT)(pc.out_, off, doubleBitsToUint64(v)); }
ACC to_dt(ACC v) { return v; }
#else
void store(int64_t off, ACC v) { RS_SET_F(DT)(pc.out_, off, v); }
ACC to_dt(ACC v) { return RS_ROUND(DT)(v); }  // the value the dtype holds
#endif

#if MODE >= 3
// the bag of position p: offset2bag's entry, or the last bag whose offset is
// <= p (a binary search over the first B offsets); -1 before the first
int64_t bag_of(int64_t p, int64_t B, int64_t ofs, int64_t o2bs) {
#if O2B
    return idx_at(pc.o2b, p * o2bs);
#else
    int64_t lo = 0L, hi = B;  // the first bag starting after p
    while (lo < hi) {
        const int64_t mid = (lo + hi) >> 1;
        if (idx_at(pc.offsets, mid * ofs) <= p) lo = mid + 1L; else hi = mid;
    }
    return lo - 1L;
#endif
}

void backward(int64_t B, int64_t D, int64_t L, int64_t N, int64_t noff, int64_t pad, int64_t ws0, int64_t ws1,
              int64_t is, int64_t ofs, int64_t os0, int64_t ps, int64_t ms0, int64_t ms1, int64_t o2bs) {
    const int64_t gs0 = eb(EB_GS), gs1 = eb(EB_GS + 1);
#if MODE == 3
    // rows (L, D), contiguous, in DT
    RS_FOR_EACH(e, uint64_t(L * D)) {
        const int64_t p = int64_t(e) / D, d = int64_t(e) % D;
        const int64_t bag = bag_of(p, B, ofs, o2bs);
        if (bag < 0L || bag >= B) {
            rs_raise_at(pc.err, pc.site, 1u, bag);
            continue;
        }
        ACC g = RS_LDO(DT)(pc.grad, bag * gs0 + d * gs1);
#if HAS_PSW || FREQ || MEAN
        // CPU's scale, each step in ACC: the sample's weight, over the
        // index's count, over the bag's size; rounded to the dtype
        ACC sc = ACC(1);
        bool has = false;
#if HAS_PSW
        sc = RS_LDO(DT)(pc.psw, p * ps);
        has = true;
#endif
#if FREQ
        const int64_t idx = idx_at(pc.indices, p * is);
        // (an index outside [0, N) raises in the index sum that follows)
        const ACC c = ACC(idx >= 0L && idx < N ? RsI64(pc.count + 8UL * uint64_t(idx)).v : 1L);
        sc = has ? sc / c : ACC(1) / c;
        has = true;
#endif
#if MEAN
        const ACC n = ACC(max(idx_at(pc.bag_size, bag * eb(EB_BS)), 1L));
        sc = has ? sc / n : ACC(1) / n;
#endif
        g = to_dt(g * to_dt(sc));
#endif
        store(int64_t(e), g);
    }
#elif MODE == 4
    // targets (B, D), contiguous int64
    RS_FOR_EACH(e, uint64_t(B * D)) {
        const int64_t b = int64_t(e) / D, d = int64_t(e) % D;
        const bool empty = idx_at(pc.bag_size, b * eb(EB_BS)) <= 0L;
        RsI64(pc.out_ + 8UL * e).v = empty ? -1L : idx_at(pc.max_idx, b * ms0 + d * ms1);
    }
#else
    RS_FOR_EACH(e, uint64_t(L)) {
        const int64_t p = int64_t(e);
        const int64_t idx = idx_at(pc.indices, p * is), bag = bag_of(p, B, ofs, o2bs);
        precise ACC acc = ACC(0);
        if (pad < 0L || idx != pad) {
            if (bag < 0L || bag >= B || idx < 0L || idx >= N) {
                rs_raise_at(pc.err, pc.site, 1u, bag < 0L || bag >= B ? bag : idx);
                continue;
            }
            for (int64_t d = 0L; d < D; ++d)
                acc += RS_LDO(DT)(pc.grad, bag * gs0 + d * gs1) * RS_LDO(DT)(pc.weight, idx * ws0 + d * ws1);
        }
        store(p * os0, acc);
    }
#endif
}
#endif

void main() {
    const int64_t B = eb(EB_B), D = eb(EB_D), L = eb(EB_L), N = eb(EB_N), noff = eb(EB_NOFF), pad = eb(EB_PADDING);
    const int64_t ws0 = eb(EB_WS), ws1 = eb(EB_WS + 1), is = eb(EB_IS), ofs = eb(EB_OFS);
    const int64_t os0 = eb(EB_OS), os1 = eb(EB_OS + 1), ps = eb(EB_PS), ms0 = eb(EB_MS), ms1 = eb(EB_MS + 1);
    const int64_t o2bs = eb(EB_O2BS);
#if MODE >= 3
    backward(B, D, L, N, noff, pad, ws0, ws1, is, ofs, os0, ps, ms0, ms1, o2bs);
    return;
#endif
#if MODE < 3
    // D = 0: one invocation a bag, for its count and the checks
    const int64_t DK = max(D, 1L);
    RS_FOR_EACH(e, uint64_t(B * DK)) {
        const int64_t b = int64_t(e) / DK, d = int64_t(e) % DK;
        const int64_t start = idx_at(pc.offsets, b * ofs);
        const int64_t end = b + 1L < noff ? idx_at(pc.offsets, (b + 1L) * ofs) : L;
        // CPU: offsets[0] is 0 and no offset is past L
        if (start < 0L || start > L || (b == 0L && start != 0L)) {
            rs_raise_at(pc.err, pc.site, 1u, start);
            continue;
        }
        if (end < 0L || end > L) {
            rs_raise_at(pc.err, pc.site, 1u, end);
            continue;
        }
        if (end < start) {  // CPU's sum and mean raise; max would read bags out of order
            rs_raise_at(pc.err, pc.site, 7u, end);
            continue;
        }
        if (pc.o2b != 0UL) {
            // CPU's make_offset2bag: a position belongs to the last bag that
            // starts at or before it (past the last bag's end too)
            const int64_t next = b + 1L < B ? end : L;
            for (int64_t p = start + d; p < next; p += DK) idx_set(pc.o2b, p * o2bs, b);
        }
        precise ACC acc = ACC(0);
        int64_t count = 0L, best_idx = 0L;
        for (int64_t p = start; p < end; ++p) {
            const int64_t idx = idx_at(pc.indices, p * is);
            if (pad >= 0L && idx == pad) continue;
            if (idx < 0L || idx >= N) {
                rs_raise_at(pc.err, pc.site, 1u, idx);
                continue;
            }
            ACC v = D > 0L ? RS_LDO(DT)(pc.weight, idx * ws0 + d * ws1) : ACC(0);
#if MODE == 2
            // the bag's first row, then a later value only where greater
            if (count == 0L || v > acc) {
                acc = v;
                best_idx = idx;
            }
#else
#if HAS_PSW
            v = v * RS_LDO(DT)(pc.psw, p * ps);  // rounded, then added (CPU's mul, then sum)
#endif
            acc = acc + v;
#endif
            ++count;
        }
        if (D > 0L) {
            const int64_t off = b * os0 + d * os1;
#if MODE == 1
            store(off, to_dt(acc) / to_dt(ACC(max(count, 1L))));
#else
            store(off, acc);
#endif
#if MODE == 2
            idx_set(pc.max_idx, b * ms0 + d * ms1, best_idx);
#endif
        }
        if (d == 0L && pc.bag_size != 0UL) idx_set(pc.bag_size, b * eb(EB_BS), count);
    }
#endif
}
