// interp.comp: one pass of the interpolation engine (src/engine/interp.c;
// contract in russet/interp.h): along one dim P of a 5-d (N, C, D, H, W)
// view, destination position d takes the table's entries
// row_ptr[d] .. row_ptr[d + 1]: dst = sum of src[col] * w, the first
// product first (so a lone -0 stays -0, as CPU's t * w), in the order of
// the table. An empty row gives 0 (a backward input no output reads).
//
// One invocation per destination element; no atomics.
//
// Defines: IN_DT, OUT_DT (dtypes of src and dst), W_DT (6: float32
// weights and arithmetic; 7: float64), COPY (1: nearest's forward, a copy
// of the one entry's bits in IN_DT == OUT_DT, any 1, 2, 4 or 8-byte dtype),
// ESZ (COPY: the element's bytes), U8 (1: uint8 in fixed point, CPU's
// algorithm: int32 weights with IP_PREC fractional bits, each element
// (2^(prec - 1) + sum of w x) >> prec clamped to 0..255).
#version 460
#include "common/dtype.glsl"
#include "params/interp.h"
#include "common/index.glsl"

layout(local_size_x = RS_WG) in;

layout(push_constant) uniform Push { RS_INTERP_PUSH } pc;

#ifndef U8
#define U8 0
#endif

#if !COPY && !U8
#define T_DT IN_DT
#include "common/dtype_inst.glsl"
#undef T_DT
#if OUT_DT != IN_DT
#define T_DT OUT_DT
#include "common/dtype_inst.glsl"
#undef T_DT
#endif
#endif

int64_t ip(int slot) { return RsI64(pc.params + 8UL * uint64_t(slot)).v; }
int row_at(int64_t d) { return int(RsU32(pc.rows + 4UL * uint64_t(d)).v); }
int col_at(int e) { return int(RsU32(pc.cols + 4UL * uint64_t(e)).v); }

#if U8
int w_at(int e) { return int(RsU32(pc.wts + 4UL * uint64_t(e)).v); }
#elif !COPY
#if W_DT == 7
#define ACC double
ACC w_at(int e) { return uint64BitsToDouble(RsU64(pc.wts + 8UL * uint64_t(e)).v); }
ACC load_src(int64_t o) { return uint64BitsToDouble(RS_GET(IN_DT)(pc.src, o)); }
void store_dst(int64_t o, ACC v) { RS_SET_D(OUT_DT)(pc.dst, o, doubleBitsToUint64(v)); }
#else
#define ACC float
ACC w_at(int e) { return uintBitsToFloat(RsU32(pc.wts + 4UL * uint64_t(e)).v); }
ACC load_src(int64_t o) { return RS_GET(IN_DT)(pc.src, o); }
void store_dst(int64_t o, ACC v) { RS_SET_F(OUT_DT)(pc.dst, o, v); }
#endif
#else
void copy_bits(int64_t so, int64_t d) {
#if ESZ == 1
    RsU8(pc.dst + uint64_t(d)).v = RsU8(pc.src + uint64_t(so)).v;
#elif ESZ == 2
    RsU16(pc.dst + 2UL * uint64_t(d)).v = RsU16(pc.src + 2UL * uint64_t(so)).v;
#elif ESZ == 4
    RsU32(pc.dst + 4UL * uint64_t(d)).v = RsU32(pc.src + 4UL * uint64_t(so)).v;
#else
    RsU64(pc.dst + 8UL * uint64_t(d)).v = RsU64(pc.src + 8UL * uint64_t(so)).v;
#endif
}
#endif

void main() {
    int64_t sz[5], sst[5], dst[5];
    for (int k = 0; k < 5; ++k) {
        sz[k] = ip(IP_DST + k);
        sst[k] = ip(IP_SRC_ST + k);
        dst[k] = ip(IP_DST_ST + k);
    }
    const int P = int(ip(IP_DIM));
#if U8
    const int prec = int(ip(IP_PREC));
#endif
    for (uint64_t e = uint64_t(gl_GlobalInvocationID.x); e < pc.items;
         e += uint64_t(gl_NumWorkGroups.x) * uint64_t(RS_WG)) {
        // the destination coordinates, W fastest
        int64_t rem = int64_t(e), so = 0, dof = 0, dpos = 0;
        for (int k = 4; k >= 0; --k) {
            const int64_t c = rem % sz[k];
            rem /= sz[k];
            dof += c * dst[k];
            if (k == P) dpos = c;
            else so += c * sst[k];
        }
        const int r0 = row_at(dpos), r1 = row_at(dpos + 1);
#if COPY
        copy_bits(so + int64_t(col_at(r0)) * sst[P], dof);
#elif U8
        int acc = prec > 0 ? 1 << (prec - 1) : 0;
        for (int r = r0; r < r1; ++r)
            acc += int(uint(RsU8(pc.src + uint64_t(so + int64_t(col_at(r)) * sst[P])).v)) * w_at(r);
        RsU8(pc.dst + uint64_t(dof)).v = uint8_t(clamp(acc >> prec, 0, 255));
#else
        ACC acc = ACC(0);
        for (int r = r0; r < r1; ++r) {
            const ACC t = load_src(so + int64_t(col_at(r)) * sst[P]) * w_at(r);
            acc = r == r0 ? t : acc + t;
        }
        store_dst(dof, acc);
#endif
    }
}
