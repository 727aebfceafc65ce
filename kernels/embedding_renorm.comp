// embedding_renorm.comp: nn.Embedding(max_norm=...)'s renormalization
// (src/engine/embedding_bag.c, contract in russet/embedding_bag.h). The
// indices arrive sorted, as CPU sorts them; a workgroup takes a position
// and acts only on the first occurrence of its value. CPU indexes self[i],
// which wraps a negative i, so a row named as both i - N and i is
// renormalized twice, one pass after the other: the workgroup of the
// negative spelling runs both passes (a binary search finds the other) and
// the other one skips, so no two workgroups touch one row. A pass: the
// row's p-norm by the workgroup (a fixed tree: deterministic), rounded to
// the dtype (CPU: row.norm().item()); a norm past max_norm scales the row
// by max_norm / (norm + 1e-7), computed in float (float64 weights: double)
// and rounded to the dtype, each product rounded once (CPU's row *= scale).
// Defines: DT (float32, float16, bfloat16; float64 where the device has
// fp64 arithmetic).
#version 460
#include "common/dtype.glsl"
#include "params/embedding_renorm.h"
#include "common/opmath.glsl"
#include "common/error.glsl"

#define NT 64
layout(local_size_x = NT) in;

layout(push_constant) uniform Push { RS_EMBEDDING_RENORM_PUSH } pc;

#define T_DT DT
#include "common/dtype_inst.glsl"
#include "common/opmath_inst.glsl"
#undef T_DT
#define ACC RS_OPMT(DT)

#if RS_IS_DBL(DT)
void store(int64_t off, ACC v) { RS_SET_D(DT)(pc.weight, off, doubleBitsToUint64(v)); }
ACC to_dt(ACC v) { return v; }
ACC max_norm() { return uint64BitsToDouble(pc.max_norm64); }
#define EPS 1e-7LF
#else
void store(int64_t off, ACC v) { RS_SET_F(DT)(pc.weight, off, v); }
ACC to_dt(ACC v) { return RS_ROUND(DT)(v); }  // the value the dtype holds
ACC max_norm() { return pc.max_norm; }
#define EPS 1e-7
#endif

bool negative(int64_t v) { return (uint(uint64_t(v) >> 32) & 0x80000000u) != 0u; }

shared ACC part[NT];

int64_t sorted_at(int64_t i) { return RsI64(pc.sorted + 8UL * uint64_t(i)).v; }

// whether v is among the sorted indices
bool named(int64_t v) {
    int64_t lo = 0L, hi = pc.count;
    while (lo < hi) {
        const int64_t mid = (lo + hi) >> 1, m = sorted_at(mid);
        if (m == v) return true;
        if (m < v) lo = mid + 1L; else hi = mid;
    }
    return false;
}

// one renormalization of the row at element offset base
void renorm(int64_t base, uint lane) {
    ACC acc = ACC(0);
    for (int64_t j = int64_t(lane); j < pc.cols; j += NT) {
        const ACC v = abs(RS_LDO(DT)(pc.weight, base + j * pc.col_stride));
        if (pc.kind == RN_P_INF) acc = max(acc, v);
        else if (pc.kind == RN_P_ZERO) acc += v != ACC(0) ? ACC(1) : ACC(0);
        else if (pc.kind == RN_P_ONE) acc += v;
        else if (pc.kind == RN_P_TWO) acc += v * v;
#if !RS_IS_DBL(DT)
        else acc += pow(v, pc.p);
#endif
    }
    part[lane] = acc;
    barrier();
    for (uint h = NT / 2; h > 0u; h >>= 1) {
        if (lane < h) part[lane] = pc.kind == RN_P_INF ? max(part[lane], part[lane + h]) : part[lane] + part[lane + h];
        barrier();
    }
    ACC norm = part[0];
    barrier();  // part is rewritten by the next pass
    if (pc.kind == RN_P_TWO) norm = sqrt(norm);
#if !RS_IS_DBL(DT)
    else if (pc.kind == RN_P_GENERAL) norm = pow(norm, 1.0 / pc.p);
#endif
    norm = to_dt(norm);
    if (!(norm > max_norm())) return;
    const ACC scale = to_dt(max_norm() / (norm + EPS));
    for (int64_t j = int64_t(lane); j < pc.cols; j += NT) {
        const int64_t o = base + j * pc.col_stride;
        store(o, RS_LDO(DT)(pc.weight, o) * scale);
    }
    barrier();  // the row's new values before the next pass reads them
}

void main() {
    const uint lane = gl_LocalInvocationID.x;
    for (int64_t pos = int64_t(gl_WorkGroupID.x); pos < pc.count; pos += int64_t(gl_NumWorkGroups.x)) {
        const int64_t i = sorted_at(pos);
        if (pos > 0L && sorted_at(pos - 1L) == i) continue;  // a repeat
        const bool neg = negative(i);
        const int64_t r = neg ? i + pc.rows : i;
        if (negative(r) || r >= pc.rows) {
            if (lane == 0u) rs_raise_at(pc.err, pc.site, 1u, i);
            continue;
        }
        // the row also named as r (i negative): two passes here; as r - N
        // (i not negative): the negative spelling's workgroup runs them
        int passes = 1;
        if (neg) passes += named(r) ? 1 : 0;
        else if (named(r - pc.rows)) continue;
        for (int k = 0; k < passes; ++k) renorm(r * pc.row_stride, lane);
    }
}
