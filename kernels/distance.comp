// distance.comp: pairwise p-norm distances (src/engine/distance.c; contract
// in russet/distance.h), in the cases and formulas of ATen's CPU kernels
// (DistanceOpsKernel.cpp, and cdist's backward in Distance.cpp).
//
// MODE 0 an invocation a distance (b, i, j): d = (sum_k |x1_ik - x2_jk|^p)^(1/p)
//   over the columns in order; p = 0 counts the nonzero differences (a NaN
//   makes NaN), p = inf takes the largest (a NaN never wins, as CPU's
//   std::max), p = 1 and 2 need no pow.
// MODE 1 an invocation a gradient element (b, i, k): the sum over j, in
//   order, of grad_ij times CPU's derivative of dist_ij for diff = x1_ik -
//   x2_jk: sign(diff) (p = 1); diff / dist (p = 2); sign(diff) |diff|^(p-1) /
//   dist^(p-1) (p < 2) or diff |diff|^(p-2) / dist^(p-1) (p > 2), 0 where
//   dist is 0 (and, for p < 1, where diff is 0); for p = inf, sign(diff)
//   where |diff| is the distance (1 - min(1, ceil(||diff| - dist|))).
//
// Defines: DT (float32, float64), MODE, PK (DS_P*).
#version 460
#include "common/dtype.glsl"
#include "params/distance.h"
#include "common/index.glsl"
#include "common/opmath.glsl"

layout(local_size_x = 256) in;
layout(push_constant) uniform Push { RS_DISTANCE_PUSH } pc;

#define T_DT DT
#include "common/dtype_inst.glsl"
#include "common/opmath_inst.glsl"
#undef T_DT
#define CM_DT DT
#define rs_raise(code, value)  // the integer ops' errors: no integers here
#include "common/ops.glsl"  // rs_mx_pow: CPU's pow

#define R RS_OPMT(DT)
#if RS_IS_DBL(DT)
R p_value() { return uint64BitsToDouble(pc.p); }
void st(uint64_t base, int64_t off, R v) { RS_SET_D(DT)(base, off, doubleBitsToUint64(v)); }
#else
R p_value() { return uintBitsToFloat(uint(pc.p & 0xFFFFFFFFUL)); }
void st(uint64_t base, int64_t off, R v) { RS_SET_F(DT)(base, off, v); }
#endif
R ld(uint64_t base, int64_t off) { return RS_LDO(DT)(base, off); }
int64_t cp(int slot) { return RsI64(pc.params + 8UL * uint64_t(slot)).v; }
int64_t off3(int st, int64_t b, int64_t i, int64_t j) { return b * cp(st) + i * cp(st + 1) + j * cp(st + 2); }
R sgn(R x) { return x > R(0) ? R(1) : (x < R(0) ? R(-1) : R(0)); }

void main() {
    const int64_t B = cp(DS_B), n = cp(DS_N), m = cp(DS_M), c = cp(DS_C);
    const R p = p_value();
#if MODE == 0
    const int64_t items = B * n * m;
#else
    const int64_t items = B * n * c;
#endif
    for (int64_t id = int64_t(gl_GlobalInvocationID.x); id < items; id += int64_t(gl_NumWorkGroups.x) * 256L) {
#if MODE == 0
        const int64_t j = id % m, i = (id / m) % n, b = id / (m * n);
        R agg = R(0);
        for (int64_t k = 0; k < c; ++k) {
            R d = abs(ld(pc.x1, off3(DS_X1_ST, b, i, k)) - ld(pc.x2, off3(DS_X2_ST, b, j, k)));
#if PK == DS_P0
            agg += isnan(d) ? d : min(ceil(d), R(1));  // CPU's min(ceil(|diff|), 1): NaN stays
#elif PK == DS_P1
            agg += d;
#elif PK == DS_P2
            agg += d * d;
#elif PK == DS_PINF
            agg = d > agg ? d : agg;  // CPU's std::max: a NaN never wins
#else
            agg += rs_mx_pow(d, p);
#endif
        }
#if PK == DS_P2
        agg = sqrt(agg);
#elif PK == DS_PGEN
        agg = rs_mx_pow(agg, R(1) / p);
#endif
        st(pc.dist, off3(DS_DIST_ST, b, i, j), agg);
#else
        const int64_t k = id % c, i = (id / c) % n, b = id / (c * n);
        const R x = ld(pc.x1, off3(DS_X1_ST, b, i, k));
        R sum = R(0);
        for (int64_t j = 0; j < m; ++j) {
            const R diff = x - ld(pc.x2, off3(DS_X2_ST, b, j, k)), g = ld(pc.grad, off3(DS_GRAD_ST, b, i, j));
            const R dist = ld(pc.dist, off3(DS_DIST_ST, b, i, j));
            R t;
#if PK == DS_P0
            t = R(0);
#elif PK == DS_P1
            t = sgn(diff) * g;
#elif PK == DS_PINF
            t = sgn(diff) * (R(1) - min(R(1), ceil(abs(abs(diff) - dist)))) * g;
#elif PK == DS_P2
            t = dist == R(0) ? R(0) : diff * g / dist;
#else
            bool zero = dist == R(0) || (p < R(1) && diff == R(0));
            if (p < R(2)) t = sgn(diff) * rs_mx_pow(abs(diff), p - R(1)) * g / rs_mx_pow(dist, p - R(1));
            else t = diff * rs_mx_pow(abs(diff), p - R(2)) * g / rs_mx_pow(dist, p - R(1));
            if (zero) t = R(0);
#endif
            sum += t;
        }
        st(pc.res, off3(DS_RES_ST, b, i, k), sum);
#endif
    }
}
