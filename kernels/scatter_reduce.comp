// scatter_reduce.comp: the segment pass of the index reductions
// (src/engine/scatter_reduce.c). `keys` holds each row's index values sorted
// stably and `perm` the positions they came from, both [rows, k] int64; a
// row per slice, or one row shared by every slice (flag SHARED).
//
// Invocation (slice s, sorted position p): if p starts a run of equal keys,
// it reduces the run in order (increasing positions: CPU's order) into
// self's element at slice s, index key, read once and written once.
// Slice offsets of self and src come from the coalesced views in `params`.
//
// Defines: DT (self's and src's dtype), OP (0 sum, 1 prod, 2 mean, 3 amax,
// 4 amin, 5 copy: the last wins), ACC_OPMATH (float16/bfloat16/complex32
// accumulate in float, rounded once, as CPU's scatter kernels; else every
// step rounds to DT, as CPU's index_reduce and index_put loops).
// The sorted positions come in windows of SEG_WINDOW, one dispatch each
// (window start in index_dim_stride); a run crossing a window's end leaves
// its running value in a per-slice carry after `perm` (16 bytes a slice).
// DIRECT=1 (short slices): no sort; `keys` is the index itself (IDX32: int32)
// and one invocation per (slice, target) scans the slice's k entries in
// order. An index outside [0, dim_size) raises the device error flag (code 1).
#version 460
#include "common/dtype.glsl"
#include "params/scatter_reduce.h"
#include "common/index.glsl"
#include "common/opmath.glsl"
#include "common/error.glsl"

#define T_DT DT
#include "common/dtype_inst.glsl"
#include "common/opmath_inst.glsl"
#undef T_DT

layout(local_size_x = RS_WG) in;

layout(push_constant) uniform Push { RS_SCATTER_REDUCE_PUSH } pc;

#define A RS_OPMT(DT)
#define IS_F RS_IS_FLT(DT)
#define IS_I RS_IS_INT(DT)
#define IS_B RS_IS_BOOL(DT)
#define IS_D RS_IS_DBL(DT)
#define IS_C RS_IS_CF(DT)
#define IS_CD RS_IS_CD(DT)  // complex128: with fp64 only, no alpha

A ld(uint64_t base, int64_t o) { return RS_LDO(DT)(base, o); }

void st(int64_t o, A v) {
#if IS_B
    RS_SET_B(DT)(pc.self_, o, v);
#elif IS_I
    RS_SET_I(DT)(pc.self_, o, uint64_t(v));
#elif IS_F
    RS_SET_F(DT)(pc.self_, o, v);
#elif IS_D
    RS_SET_D(DT)(pc.self_, o, doubleBitsToUint64(v));
#elif IS_CD
    RS_SET_CD(DT)(pc.self_, o, u64vec2(doubleBitsToUint64(v.x), doubleBitsToUint64(v.y)));
#else
    RS_SET_CF(DT)(pc.self_, o, v);
#endif
}

// one step's rounding to DT (integers wrap at the store, which commutes
// with + and *; MEAN wraps before dividing)
A rnd(A v) {
#if IS_F && !ACC_OPMATH
    return RS_ROUND(DT)(v);
#elif DT == 8 && !ACC_OPMATH  // complex32: each part rounds to float16
    return vec2(rs_f16_dec(rs_f16_enc(v.x)), rs_f16_dec(rs_f16_enc(v.y)));
#else
    return v;
#endif
}

#if IS_I
// the low bits of v as DT's value (sign- or zero-extended)
int64_t wrap(int64_t v) {
#if DT == 0
    return v & 0xFFL;
#elif DT == 1
    return (v << 56) >> 56;  // arithmetic shifts: sign extension
#elif DT == 2
    return (v << 48) >> 48;
#elif DT == 3
    return (v << 32) >> 32;
#else
    return v;
#endif
}
#endif

// the identity an excluded self starts from
A identity() {
#if OP == 1 && IS_C
    return vec2(1.0, 0.0);
#elif OP == 1 && IS_CD
    return dvec2(1.0LF, 0.0LF);
#elif OP == 1
    return A(1);
#elif OP == 3 || OP == 4
#if IS_B
    return OP == 4;
#elif IS_F
    return uintBitsToFloat(OP == 3 ? 0xFF800000u : 0x7F800000u);
#elif IS_D
    return uint64BitsToDouble(OP == 3 ? 0xFFF0000000000000UL : 0x7FF0000000000000UL);
#elif DT == 0
    return OP == 3 ? 0L : 255L;
#elif DT == 1
    return OP == 3 ? -128L : 127L;
#elif DT == 2
    return OP == 3 ? -32768L : 32767L;
#elif DT == 3
    return OP == 3 ? -2147483648L : 2147483647L;
#else
    return OP == 3 ? int64_t(0x8000000000000000UL) : 0x7FFFFFFFFFFFFFFFL;
#endif
#else
    return A(0);
#endif
}

#if IS_C
vec2 cmul(vec2 a, vec2 b) {
    precise vec2 r = vec2(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x);
    return r;
}
#elif IS_CD
dvec2 cmul(dvec2 a, dvec2 b) {
    precise dvec2 r = dvec2(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x);
    return r;
}
#endif

A alpha_value() {
#if IS_B
    return pc.alpha != 0UL;
#elif IS_I
    return int64_t(pc.alpha);
#elif IS_F
    return uintBitsToFloat(uint(pc.alpha & 0xFFFFFFFFUL));
#elif IS_D
    return uint64BitsToDouble(pc.alpha);
#elif IS_CD
    return dvec2(1.0LF, 0.0LF);  // (the engine refuses another alpha)
#else
    return vec2(uintBitsToFloat(uint(pc.alpha & 0xFFFFFFFFUL)), uintBitsToFloat(uint(pc.alpha >> 32)));
#endif
}

// acc op v (SUM/MEAN: v already scaled by alpha)
A combine(A acc, A v) {
    precise A r;
#if OP == 0 || OP == 2
#if IS_B
    r = acc || v;
#else
    r = acc + v;
#endif
#elif OP == 1
#if IS_B
    r = acc && v;
#elif IS_C || IS_CD
    r = cmul(acc, v);
#else
    r = acc * v;
#endif
#elif OP == 3
#if IS_B
    r = acc || v;
#elif IS_F || IS_D
    r = isnan(v) ? v : (acc < v ? v : acc);  // CPU: isnan(src) ? src : std::max(self, src)
#else
    r = max(acc, v);
#endif
#elif OP == 4
#if IS_B
    r = acc && v;
#elif IS_F || IS_D
    r = isnan(v) ? v : (v < acc ? v : acc);
#else
    r = min(acc, v);
#endif
#else
    r = v;
#endif
    return r;
}

A scaled(A v, A alpha, float scale, bool use_alpha, bool use_scale) {
#if (OP == 0 || OP == 2) && !IS_B
    precise A r = v;
#if IS_C
    if (use_alpha) r = cmul(alpha, v);
    if (use_scale) r = r * scale;
#elif IS_F
    if (use_alpha) r = alpha * v;
    if (use_scale) r = scale * r;
#elif IS_D
    if (use_alpha) r = alpha * v;
    if (use_scale) r = double(scale) * r;
#elif IS_CD
    if (use_scale) r = r * double(scale);
#else
    if (use_alpha) r = alpha * v;
#endif
    return r;
#elif (OP == 0 || OP == 2) && IS_B
    return use_alpha ? (alpha && v) : v;
#else
    return v;
#endif
}

// self's element at t_off := acc reduced with `count` sources (MEAN divides)
void finish(int64_t t_off, A acc, int64_t count) {
#if OP == 2
    // CPU: the sum rounded to DT, then divided (and rounded again)
#if IS_F
    acc = RS_ROUND(DT)(acc);
#endif
#if IS_I
    int64_t a = wrap(acc);
    acc = a >= 0L ? a / count : -((-a + count - 1L) / count);  // floor division
#elif IS_C
    acc = acc * (1.0 / float(count));
#elif IS_CD
    acc = acc * (1.0LF / double(count));
#elif IS_D
    acc = acc / double(count);
#else
    acc = acc / float(count);
#endif
#endif
    st(t_off, acc);
}

#if DIRECT
// the index's element p of slice offset o (int32 or int64)
int64_t index_at(int64_t o, uint64_t p) {
    int64_t off = o + int64_t(p) * pc.index_dim_stride;
#if IDX32
    return int64_t(int(RsU32(pc.keys + 4UL * uint64_t(off)).v));
#else
    return RsI64(pc.keys + 8UL * uint64_t(off)).v;
#endif
}
#endif

#if !DIRECT
// SEG_WINDOW in scatter_reduce.c: sorted positions per dispatch
#define SEG_WINDOW 16384
// the running value of a run that crosses a window's end, per slice
layout(buffer_reference, std430, buffer_reference_align = 16) buffer CarryRef { A v; };

int64_t key_at(uint64_t row, uint64_t p) { return RsI64(pc.keys + 8UL * (row + p)).v; }
// the first position of the sorted row's run of `key` that contains p
uint64_t run_first(uint64_t row, uint64_t p, int64_t key) {
    uint64_t lo = 0UL, hi = p;
    while (lo < hi) {
        uint64_t mid = lo + (hi - lo) / 2UL;
        if (key_at(row, mid) < key) lo = mid + 1UL;
        else hi = mid;
    }
    return lo;
}
// the end of the run of `key`, from lo on
uint64_t run_end(uint64_t row, uint64_t lo, int64_t key) {
    uint64_t hi = pc.k;
    while (lo < hi) {
        uint64_t mid = lo + (hi - lo) / 2UL;
        if (key_at(row, mid) > key) hi = mid;
        else lo = mid + 1UL;
    }
    return lo;
}
#endif

void main() {
    bool shared_idx = (pc.flags & F_SHARED) != 0u;
    bool incl = (pc.flags & F_INCLUDE_SELF) != 0u;
    bool use_alpha = (pc.flags & F_ALPHA) != 0u;
    bool use_scale = (pc.flags & F_SCALE) != 0u;
    bool use_skip = (pc.flags & F_SKIP) != 0u;
    A alpha = alpha_value();
#if DIRECT
    // one invocation per (slice s, target j): scans the slice's k index
    // entries in order (small k * dim_size only); j == 0 checks their range
    uint64_t n = uint64_t(pc.dim_size);
    RS_FOR_EACH(item, pc.slices * n) {
        uint64_t s = item / n;
        int64_t j = int64_t(item % n);
        int64_t o[5] = int64_t[5](int64_t(s), int64_t(s), int64_t(s), 0L, 0L);
        if (pc.ndim != 0u) rs_offsetn(pc.params, pc.ndim, 3, s, o);
        int64_t oi = shared_idx ? 0L : o[2];
        uint64_t hits = 0UL;
        for (uint64_t p = 0UL; p < pc.k; ++p) {
            int64_t key = index_at(oi, p);
            if (use_skip && key == pc.skip) continue;
            if (j == 0L && uint64_t(key) >= uint64_t(pc.dim_size)) rs_raise_at(pc.err, pc.site, 1u, key);
            if (key == j) hits++;
        }
        if (hits == 0UL) continue;
        int64_t t_off = o[0] + j * pc.self_dim_stride;
        float scale = use_scale ? 1.0 / float(hits) : 1.0;
        A acc = incl ? ld(pc.self_, t_off) : identity();
        for (uint64_t p = 0UL; p < pc.k; ++p) {
            int64_t key = index_at(oi, p);
            if (key != j || (use_skip && key == pc.skip)) continue;
            A v = ld(pc.src, o[1] + int64_t(p) * pc.src_dim_stride);
            acc = rnd(combine(acc, scaled(v, alpha, scale, use_alpha, use_scale)));
        }
        finish(t_off, acc, int64_t(hits) + (incl ? 1L : 0L));
    }
#else
    // this dispatch's window of sorted positions [c0, c1)
    uint64_t c0 = uint64_t(pc.index_dim_stride);
    uint64_t c1 = min(pc.k, c0 + uint64_t(SEG_WINDOW));
    uint64_t span = c1 - c0;
    uint64_t carry = pc.perm + 8UL * (shared_idx ? 1UL : pc.slices) * pc.k;
    uint64_t total = pc.slices * span;
    RS_FOR_EACH(item, total) {
        uint64_t s, p;
        if (shared_idx) {  // neighbours share a run, step over slices
            s = item % pc.slices;
            p = c0 + item / pc.slices;
        } else {
            s = item / span;
            p = c0 + item % span;
        }
        uint64_t row = shared_idx ? 0UL : s * pc.k;
        int64_t key = key_at(row, p);
        bool starts = p == 0UL || key_at(row, p - 1UL) != key;
        if (!starts && p != c0) continue;  // (p == c0: a run from the last window goes on)
        if (use_skip && key == pc.skip) continue;
        if (uint64_t(key) >= uint64_t(pc.dim_size)) {
            if (starts) rs_raise_at(pc.err, pc.site, 1u, key);
            continue;
        }
        int64_t o[5] = int64_t[5](int64_t(s), int64_t(s), 0L, 0L, 0L);
        if (pc.ndim != 0u) rs_offsetn(pc.params, pc.ndim, 2, s, o);
        int64_t t_off = o[0] + key * pc.self_dim_stride;
        // the run [first, end), by binary search in the sorted row
        uint64_t first = starts ? p : run_first(row, p, key);
        uint64_t end = run_end(row, p + 1UL, key);
        float scale = use_scale ? 1.0 / float(end - first) : 1.0;
        A acc = starts ? (incl ? ld(pc.self_, t_off) : identity()) : CarryRef(carry + 16UL * s).v;
        uint64_t stop = min(end, c1);
        for (uint64_t q = p; q < stop; ++q) {
            int64_t j = RsI64(pc.perm + 8UL * (row + q)).v;
            A v = ld(pc.src, o[1] + j * pc.src_dim_stride);
            acc = rnd(combine(acc, scaled(v, alpha, scale, use_alpha, use_scale)));
        }
        if (stop == end) finish(t_off, acc, int64_t(end - first) + (incl ? 1L : 0L));
        else CarryRef(carry + 16UL * s).v = acc;  // the next window goes on
    }
#endif
}
