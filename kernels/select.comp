// select.comp: searching and selection over contiguous tensors.
// - MODE 1 (searchsorted): out[v] = the insertion point of value v in its
//   row of the sorted boundaries (row 0 for all when brows == 1), with
//   PyTorch's CPU comparisons (cus_lower_bound / cus_upper_bound), through
//   the optional int64 `sorter`. Defines: CT (the common dtype of values
//   and boundaries), OUT32 (int32 output), RIGHT, SORTER.
// - MODE 2 (count): nz[b] = number of nonzero elements of block b
//   (RS_WG * ITEMS elements) of `src`. Defines: IN_DT.
// - MODE 3 (offsets): exclusive scan of nz[0..nblocks) in place, with the
//   total in nz[nblocks]. One workgroup.
// - MODE 4 (scatter): the nonzero elements of block b, in order, from
//   position nz[b]: NONZERO=1 writes their coordinates (int64 [count, ndim],
//   sizes in `params`), NONZERO=0 writes values[e] (masked_select; VSIZE
//   bytes each) where src (the mask) is nonzero; SCATTER=1 (with
//   NONZERO=0) the reverse, masked_scatter: dst's element e (strided,
//   sizes and strides in `params`) = values[pos] where the mask is nonzero,
//   raising code 8 where pos reaches m (too short a source).
// - MODE 5 (permute): out[perm[i]] = src[i], int64 (perm in `aux`): the
//   inverse of unique from the sorted order.
// - MODE 6 (run starts): out[i] = src[i] starts a run of equal values
//   (unique): IEEE equality, float64 on its bits. Defines: IN_DT.
#version 460
#include "common/dtype.glsl"
#include "params/select.h"
#include "common/index.glsl"
#include "common/error.glsl"

#ifdef IN_DT
#define T_DT IN_DT
#include "common/dtype_inst.glsl"
#undef T_DT
#endif
#ifdef CT
#define T_DT CT
#include "common/dtype_inst.glsl"
#undef T_DT
#endif

#ifndef SCATTER
#define SCATTER 0
#endif
#define ITEMS 4
layout(local_size_x = RS_WG) in;

layout(push_constant) uniform Push { RS_SELECT_PUSH } pc;

#if MODE == 1
#if RS_IS_FLT(CT)
#define V float
bool lt(V a, V b) { return a < b; }
bool ge(V a, V b) { return a >= b; }
bool gt(V a, V b) { return a > b; }
#elif CT == 7
// float64 without fp64 arithmetic: comparisons of order-preserving keys of
// the bits, false when either side is NaN (as IEEE comparisons)
#define V uint64_t
bool dnan(uint64_t b) { return (b & 0x7FFFFFFFFFFFFFFFUL) > 0x7FF0000000000000UL; }
uint64_t dkey(uint64_t b) {
    if (b == 0x8000000000000000UL) b = 0UL;  // -0 == +0
    return rs_sign64(b) ? ~b : (b | 0x8000000000000000UL);
}
bool ge(V a, V b) { return !dnan(a) && !dnan(b) && dkey(a) >= dkey(b); }
bool gt(V a, V b) { return !dnan(a) && !dnan(b) && dkey(a) > dkey(b); }
#elif CT == 29
#define V uint64_t
bool ge(V a, V b) { return a >= b; }
bool gt(V a, V b) { return a > b; }
#else
#define V uint64_t
bool ge(V a, V b) { return int64_t(a) >= int64_t(b); }
bool gt(V a, V b) { return int64_t(a) > int64_t(b); }
#endif

void main() {
    RS_FOR_EACH(e, pc.numel) {
        uint64_t row = pc.brows == 1u ? 0UL : e / pc.nv;
        int64_t base = int64_t(row * pc.m);
        V val = RS_GET(CT)(pc.src, int64_t(e));
        int64_t lo = 0, hi = int64_t(pc.m);
        while (lo < hi) {
            int64_t mid = lo + ((hi - lo) >> 1);
            int64_t o = base + mid;
#if SORTER
            o = base + RsI64(pc.sorter + 8UL * uint64_t(base + mid)).v;
#endif
            V mv = RS_GET(CT)(pc.aux, o);
#if RIGHT
            bool go_right = !gt(mv, val);
#else
            bool go_right = !ge(mv, val);
#endif
            if (go_right) lo = mid + 1;
            else hi = mid;
        }
#if OUT32
        RsU32(pc.dst + 4UL * e).v = uint(lo);
#else
        RsI64(pc.dst + 8UL * e).v = lo;
#endif
    }
}

#elif MODE == 5
void main() {
    RS_FOR_EACH(e, pc.numel) {
        int64_t p = RsI64(pc.aux + 8UL * e).v;
        RsI64(pc.dst + 8UL * uint64_t(p)).v = RsI64(pc.src + 8UL * e).v;
    }
}

#elif MODE == 6
// run starts: dst[i] (bool) = i == 0 || src[i] != src[i - 1], with IEEE
// equality (NaN differs from everything, -0 == +0); float64 on its bits
bool same(int64_t i, int64_t j) {
#if RS_IS_FLT(IN_DT)
    return RS_GET(IN_DT)(pc.src, i) == RS_GET(IN_DT)(pc.src, j);
#elif RS_IS_DBL(IN_DT)
    uint64_t a = RS_GET(IN_DT)(pc.src, i), b = RS_GET(IN_DT)(pc.src, j);
    bool nan = (a & 0x7FFFFFFFFFFFFFFFUL) > 0x7FF0000000000000UL || (b & 0x7FFFFFFFFFFFFFFFUL) > 0x7FF0000000000000UL;
    return !nan && (a == b || ((a | b) << 1) == 0UL);
#elif RS_IS_CF(IN_DT)
    vec2 a = RS_GET(IN_DT)(pc.src, i), b = RS_GET(IN_DT)(pc.src, j);
    return a.x == b.x && a.y == b.y;
#else
    return RS_GET(IN_DT)(pc.src, i) == RS_GET(IN_DT)(pc.src, j);
#endif
}
void main() {
    RS_FOR_EACH(e, pc.numel) {
        bool start = e == 0UL || !same(int64_t(e), int64_t(e) - 1);
        RsU8(pc.dst + e).v = uint8_t(start ? 1u : 0u);
    }
}

#else  // MODES 2-4

bool is_nz(uint64_t e) {
#if RS_IS_FLT(IN_DT)
    return rs_f_nonzero(RS_GET(IN_DT)(pc.src, int64_t(e)));  // NaN is nonzero
#elif RS_IS_DBL(IN_DT)
    return rs_d_nonzero(RS_GET(IN_DT)(pc.src, int64_t(e)));
#elif RS_IS_CF(IN_DT)
    vec2 c = RS_GET(IN_DT)(pc.src, int64_t(e));
    return rs_f_nonzero(c.x) || rs_f_nonzero(c.y);
#elif RS_IS_CD(IN_DT)
    u64vec2 c = RS_GET(IN_DT)(pc.src, int64_t(e));
    return rs_d_nonzero(c.x) || rs_d_nonzero(c.y);
#else
    return RS_GET(IN_DT)(pc.src, int64_t(e)) != 0UL;
#endif
}

#define CHUNK (RS_WG * ITEMS)
shared uint sh[RS_WG];

// Inclusive scan of sh[] (Hillis-Steele); every invocation calls it.
void wg_scan() {
    uint t = gl_LocalInvocationID.x;
    barrier();
    for (uint d = 1u; d < RS_WG; d <<= 1) {
        uint other = t >= d ? sh[t - d] : 0u;
        barrier();
        sh[t] += other;
        barrier();
    }
}

void main() {
    uint t = gl_LocalInvocationID.x;
#if MODE == 3
    uint carry = 0u;
    for (uint64_t c0 = 0UL; c0 < pc.numel; c0 += uint64_t(RS_WG)) {
        uint64_t b = c0 + t;
        uint v = b < pc.numel ? RsU32(pc.nz + 4UL * b).v : 0u;
        sh[t] = v;
        wg_scan();
        if (b < pc.numel) RsU32(pc.nz + 4UL * b).v = carry + sh[t] - v;
        carry += sh[RS_WG - 1];
        barrier();
    }
    if (t == 0u) RsU32(pc.nz + 4UL * pc.numel).v = carry;
#else
    uint64_t nblocks = (pc.numel + CHUNK - 1UL) / CHUNK;
    for (uint64_t b = gl_WorkGroupID.x; b < nblocks; b += gl_NumWorkGroups.x) {
        uint64_t e0 = b * CHUNK + uint64_t(t) * ITEMS;
        uint flags = 0u, cnt = 0u;
        for (uint k = 0u; k < ITEMS; ++k) {
            uint64_t e = e0 + k;
            if (e < pc.numel && is_nz(e)) {
                flags |= 1u << k;
                cnt++;
            }
        }
        sh[t] = cnt;
        wg_scan();
#if MODE == 2
        if (t == 0u) RsU32(pc.nz + 4UL * b).v = sh[RS_WG - 1];
#else
        uint64_t pos = uint64_t(RsU32(pc.nz + 4UL * b).v) + uint64_t(sh[t] - cnt);
        for (uint k = 0u; k < ITEMS; ++k) {
#if SCATTER
            if ((flags & (1u << k)) == 0u) continue;
#else
            if ((flags & (1u << k)) == 0u || pos >= pc.m) continue;  // m: row limit (nonzero_static)
#endif
            uint64_t e = e0 + k;
#if SCATTER
            // masked_scatter: self's element e (strided: sizes, then
            // strides in params) takes source's element pos (aux, contiguous)
            if (pos >= pc.m) {  // m: source's elements
                rs_raise_at(pc.err, pc.site, 8u, int64_t(pos));
                break;
            }
            uint64_t rem = e;
            int64_t off = 0L;
            for (int d = int(pc.ndim) - 1; d >= 0; --d) {
                uint64_t r;
                rs_divmod(rem, uint64_t(RsI64(pc.params + 8UL * uint64_t(d)).v), r);
                off += int64_t(r) * RsI64(pc.params + 8UL * uint64_t(int(pc.ndim) + d)).v;
            }
            uint64_t s = pc.aux + pos * VSIZE, dd = pc.dst + uint64_t(off) * VSIZE;
#elif NONZERO
            uint64_t rem = e;
            for (int d = int(pc.ndim) - 1; d >= 0; --d) {
                uint64_t r;
                rs_divmod(rem, uint64_t(RsI64(pc.params + 8UL * uint64_t(d)).v), r);
                RsI64(pc.dst + 8UL * (pos * uint64_t(pc.ndim) + uint64_t(d))).v = int64_t(r);
            }
#else
            uint64_t s = pc.aux + e * VSIZE, dd = pc.dst + pos * VSIZE;
#endif
#if !NONZERO
#if VSIZE == 1
            RsU8(dd).v = RsU8(s).v;
#elif VSIZE == 2
            RsU16(dd).v = RsU16(s).v;
#elif VSIZE == 4
            RsU32(dd).v = RsU32(s).v;
#elif VSIZE == 8
            RsU64(dd).v = RsU64(s).v;
#else
            RsU64(dd).v = RsU64(s).v;
            RsU64(dd + 8UL).v = RsU64(s + 8UL).v;
#endif
#endif
            pos++;
        }
#endif
        barrier();
    }
#endif
}
#endif
