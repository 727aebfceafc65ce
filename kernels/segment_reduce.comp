// segment_reduce.comp: torch.segment_reduce's forward and backward
// (src/engine/segment_reduce.c; contract in russet/segment_reduce.h).
// One invocation per (outer row, segment, inner column): it walks its
// segment's positions in order, so every sum, product and tie follows
// CPU's loop (SegmentReduce.cpp) exactly, with no atomics.
//   BACKWARD 0: out (outer, S, inner) = the segment's reduction.
//   BACKWARD 1: out (outer, L, inner) = data's gradient at the segment's
//     positions (the engine zeroes the positions in no segment first).
//
// Defines: DT (data's dtype), OP (rs_segment_op: 0 sum, 1 mean, 2 max,
// 3 min, 4 prod), BACKWARD, LENGTHS (bounds holds the running sums of the
// lengths, int64 (outer, S) contiguous; else offsets (outer, S + 1) with
// strides, int32 where BIDX32), HAS_INIT.
#version 460
#include "common/dtype.glsl"
#include "params/segment_reduce.h"
#include "common/index.glsl"
#include "common/opmath.glsl"
#include "common/error.glsl"

layout(local_size_x = RS_WG) in;

#define T_DT DT
#include "common/dtype_inst.glsl"
#include "common/opmath_inst.glsl"
#undef T_DT
#define ACC RS_OPMT(DT)

layout(push_constant) uniform Push { RS_SEGMENT_REDUCE_PUSH } pc;

int64_t sr(int slot) { return RsI64(pc.params + 8UL * uint64_t(slot)).v; }

#if RS_IS_DBL(DT)
#define INF uint64BitsToDouble(0x7FF0000000000000UL)
#define NAN uint64BitsToDouble(0x7FF8000000000000UL)
void store(int64_t off, ACC v) { RS_SET_D(DT)(pc.out_, off, doubleBitsToUint64(v)); }
ACC to_dt(ACC v) { return v; }
ACC initial_value() { return uint64BitsToDouble(uint64_t(sr(SR_INIT))); }
#else
#define INF uintBitsToFloat(0x7F800000u)
#define NAN uintBitsToFloat(0x7FC00000u)
void store(int64_t off, ACC v) { RS_SET_F(DT)(pc.out_, off, v); }
ACC to_dt(ACC v) { return RS_ROUND(DT)(v); }  // the value the dtype holds (CPU's scalar_t arithmetic)
ACC initial_value() { return to_dt(uintBitsToFloat(uint(sr(SR_INIT)))); }
#endif

// CPU's starting value: initial, else the op's identity
ACC start_value() {
#if HAS_INIT
    return initial_value();
#elif OP == 2
    return -INF;
#elif OP == 3
    return INF;
#elif OP == 4
    return ACC(1);
#else
    return ACC(0);
#endif
}

int64_t bound(int64_t o, int64_t k) {
#if BIDX32
    return int64_t(int(RsU32(pc.bounds + 4UL * uint64_t(o * sr(SR_BS) + k * sr(SR_BS + 1))).v));
#else
    return RsI64(pc.bounds + 8UL * uint64_t(o * sr(SR_BS) + k * sr(SR_BS + 1))).v;
#endif
}

// segment s of row o: [start, end)
void segment(int64_t o, int64_t s, int64_t S, out int64_t start, out int64_t end) {
#if LENGTHS
    end = RsI64(pc.bounds + 8UL * uint64_t(o * S + s)).v;
    start = s > 0L ? RsI64(pc.bounds + 8UL * uint64_t(o * S + s - 1L)).v : 0L;
#else
    start = bound(o, s);
    end = bound(o, s + 1L);
#endif
}

void main() {
    const int64_t OUTER = sr(SR_OUTER), L = sr(SR_L), INNER = sr(SR_INNER), S = sr(SR_S);
    const int64_t ds0 = sr(SR_DS), ds1 = sr(SR_DS + 1), ds2 = sr(SR_DS + 2);
    const int64_t os0 = sr(SR_OS), os1 = sr(SR_OS + 1), os2 = sr(SR_OS + 2);
    RS_FOR_EACH(e, uint64_t(OUTER * S * INNER)) {
        const int64_t i = int64_t(e) % INNER, s = (int64_t(e) / INNER) % S, o = int64_t(e) / (INNER * S);
        int64_t start, end;
        segment(o, s, S, start, end);
        const int64_t len = end - start;
        if (len < 0L) {
            rs_raise_at(pc.err, pc.site, 5u, len);
            continue;
        }
        // (CPU reads past the data where a segment does; russet does not)
        const int64_t a = max(start, 0L), b = min(end, L);
        const int64_t base = o * ds0 + i * ds2;
#if BACKWARD == 0
        precise ACC acc = start_value();
        for (int64_t j = a; j < b; ++j) {
            const ACC v = RS_LDO(DT)(pc.data, base + j * ds1);
#if OP == 0 || OP == 1
            acc = to_dt(acc + v);
#elif OP == 2
            acc = isnan(v) ? v : (acc < v ? v : acc);  // isnan(x) ? x : std::max(acc, x)
#elif OP == 3
            acc = isnan(v) ? v : (v < acc ? v : acc);
#else
            acc = to_dt(acc * v);
#endif
        }
#if OP == 1
#if HAS_INIT
        if (len > 0L && !isnan(acc)) acc = to_dt(acc / to_dt(ACC(len)));
#else
        acc = len == 0L ? NAN : isnan(acc) ? acc : to_dt(acc / to_dt(ACC(len)));
#endif
#endif
        store(o * os0 + s * os1 + i * os2, acc);
#else
        if (len == 0L) continue;
        const ACC g = RS_LDO(DT)(pc.grad, o * sr(SR_GS) + s * sr(SR_GS + 1) + i * sr(SR_GS + 2));
#if OP == 0 || OP == 1
#if OP == 1
        const ACC gv = to_dt(g / to_dt(ACC(len)));
#else
        const ACC gv = g;
#endif
        for (int64_t j = a; j < b; ++j) store(o * os0 + j * os1 + i * os2, gv);
#else
        const ACC r = RS_LDO(DT)(pc.result, o * sr(SR_RS) + s * sr(SR_RS + 1) + i * sr(SR_RS + 2));
#if OP == 2 || OP == 3
        // the positions equal to the result (or NaN) share its gradient;
        // where there are several, a positive one is divided by their count
        int64_t count = 0L;
        for (int64_t j = a; j < b; ++j) {
            const ACC x = RS_LDO(DT)(pc.data, base + j * ds1);
            if (isnan(x) || x == r) ++count;
        }
        const ACC split = count >= 2L && g > ACC(0) ? to_dt(g / to_dt(ACC(count))) : g;
        for (int64_t j = a; j < b; ++j) {
            const ACC x = RS_LDO(DT)(pc.data, base + j * ds1);
            store(o * os0 + j * os1 + i * os2, isnan(x) || x == r ? split : ACC(0));
        }
#else
        // grad * output / x, or at a zero or NaN x grad times the product
        // of the segment's other elements, in order from the start value
        const ACC gr = to_dt(g * r);
        for (int64_t j = a; j < b; ++j) {
            const ACC x = RS_LDO(DT)(pc.data, base + j * ds1);
            ACC v;
            if (isnan(x) || x == ACC(0)) {
                precise ACC excl = start_value();
                for (int64_t m = a; m < b; ++m)
                    if (m != j) excl = to_dt(excl * RS_LDO(DT)(pc.data, base + m * ds1));
                v = to_dt(g * excl);
            } else {
                v = to_dt(gr / x);
            }
            store(o * os0 + j * os1 + i * os2, v);
        }
#endif
#endif
#endif
    }
}
