// embedding_bag.comp: F.embedding_bag's forward (src/engine/embedding_bag.c;
// contract in russet/embedding_bag.h). One invocation per (bag, column): it
// walks its bag's positions in order, so sums, the mean's roundings and
// the maximum's ties and NaNs follow CPU's loop exactly, with no atomics.
//
// Defines: DT (the weight's dtype), IDX32 (indices, offsets, bag_size and
// max_indices are int32, else int64), MODE (0 sum, 1 mean, 2 max), HAS_PSW.
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

void main() {
    const int64_t B = eb(EB_B), D = eb(EB_D), L = eb(EB_L), N = eb(EB_N), noff = eb(EB_NOFF), pad = eb(EB_PADDING);
    const int64_t ws0 = eb(EB_WS), ws1 = eb(EB_WS + 1), is = eb(EB_IS), ofs = eb(EB_OFS);
    const int64_t os0 = eb(EB_OS), os1 = eb(EB_OS + 1), ps = eb(EB_PS), ms0 = eb(EB_MS), ms1 = eb(EB_MS + 1);
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
}
