// quant.comp: weight-only quantized matrix products (src/engine/quant.c;
// contract in russet/quant.h). The weights are int8 (bits 8, one scale a
// row of W) or 4-bit integers two a byte, the even k in the high nibble
// (bits 4, a (scale, zero) pair per group of G weights along K:
// w = (q - 8) * scale + zero). Arithmetic in float32.
//   QM_GEMV    a workgroup a tile of MT rows of x and (RS_WG / LANES) *
//              NR rows of W (output columns; quant.c chooses the shape):
//              each group of LANES invocations strides along K for its NR
//              rows of W, each invocation keeps MT * NR partial sums, and
//              one invocation an output adds the lanes' sums in lane order
//              (no atomics) and applies the int8 scale. With VEC, an
//              invocation reads 16 bytes of W a step (the row 16-byte
//              aligned, K a multiple of 16 or 32); else a byte. With XVEC
//              too (x's rows contiguous and 16-byte aligned), x's elements
//              come 8 at a time as 16-byte words (two for float32); with
//              one row of x (MT 1, a decoding step) they are read once for
//              the NR rows of W, else a word of W is dequantized once for
//              all of the tile's rows. PF (MT 1): the next step's words of
//              W are loaded during this one. Few rows of x: W is read once
//              per MT rows.
//   QM_DEQUANT (a byte of W): its weights in x's dtype into (N, K)
//              contiguous (bits 8: the integers, exact; bits 4: scaled and
//              shifted, rounded once), for the GEMM engine when x has
//              many rows.
//   QM_SCALE   (an output element): the GEMM's float32 sum times the row's
//              int8 scale (bits 8), rounded once to the output dtype.
//   QM_QUANTIZE (an element): x's float to the integer type QT, as CPU's
//              quantizer: round-to-even of x * (1 / scale) + zero_point in
//              float32 (rounded once for the 8-bit types, as fbgemm's fused
//              multiply-add; twice for int32), clamped to QT's range (NaN
//              to the top of an 8-bit range, the bottom of int32's), as
//              torch 2.13; ZP_AFTER: round-to-even of x * (1 / scale) in
//              float32, then + zero_point, as torch 2.15; per tensor, or per channel (float64 scales, int64 zero
//              points along QM_AXIS).
//   QM_DEQUANTIZE (an element): (q - zero_point) * scale, the difference
//              in 32-bit integers (wrapping, as CPU's); per tensor in
//              float32, per channel rounded once from the exact product
//              with the float64 scale, as CPU's double arithmetic.
// Defines: MODE, BITS (8 or 4), DT (x's dtype: float32, float16 or
// bfloat16), VEC (GEMV: 16-byte reads of W), XVEC (GEMV, with VEC:
// 16-byte reads of x), LANES, NR, MT, PF (GEMV: the tile); QUANTIZE / DEQUANTIZE: QT
// (the integers' dtype: uint8, int8 or int32), PER_CHANNEL, ZP_AFTER.
#version 460
#include "common/dtype.glsl"
#include "params/quant.h"
#include "common/index.glsl"
#define T_DT DT
#include "common/dtype_inst.glsl"
#undef T_DT

layout(local_size_x = RS_WG) in;
#ifndef XVEC
#define XVEC 0
#endif

layout(push_constant) uniform Push { RS_QUANT_PUSH } pc;

layout(buffer_reference, std430, buffer_reference_align = 16) buffer RsQ4 { uvec4 v; };

int64_t qp(int slot) { return RsI64(pc.params + 8UL * uint64_t(slot)).v; }

// byte j (0..3) of a word, as the weight(s) it holds
int byte_of(uint word, int j) { return int((word >> uint(8 * j)) & 0xFFu); }
float int8_of(int b) { return float(b >= 128 ? b - 256 : b); }

// the (scale, zero) pair of weight row n, group g (bits 4)
vec2 scale_zero(int64_t n, int64_t g, int64_t ss0, int64_t ss1, int64_t ss2) {
    const int64_t o = g * ss0 + n * ss1;
    return vec2(RS_GET(DT)(pc.scales, o), RS_GET(DT)(pc.scales, o + ss2));
}

#if MODE == QM_GEMV
// the tile's shape (quant.c's choice; params/quant.h)
#ifndef LANES
#define LANES QM_LANES
#endif
#ifndef NR
#define NR QM_NR
#endif
#ifndef MT
#define MT QM_MT
#endif
#ifndef PF
#define PF 0
#endif
#define GROUPS (RS_WG / LANES)
shared float red[MT * NR * RS_WG];

#if XVEC
// x's 8 elements from byte address a (16-byte aligned), as floats
void x8(uint64_t a, out float v[8]) {
#if DT == 6
    const uvec4 lo = RsQ4(a).v, hi = RsQ4(a + 16UL).v;
    [[unroll]] for (int i = 0; i < 4; ++i) v[i] = uintBitsToFloat(lo[i]), v[4 + i] = uintBitsToFloat(hi[i]);
#else
    const uvec4 q = RsQ4(a).v;
    [[unroll]] for (int i = 0; i < 4; ++i) {
#if DT == 15
        v[2 * i] = uintBitsToFloat(q[i] << 16), v[2 * i + 1] = uintBitsToFloat(q[i] & 0xFFFF0000u);
#else
        v[2 * i] = rs_f16_dec(q[i] & 0xFFFFu), v[2 * i + 1] = rs_f16_dec(q[i] >> 16);
#endif
    }
#endif
}

// the 16-byte words of W's rows n0 .. n0 + NR - 1 (those below N) at byte kb
// of each row, with their (scale, zero) pairs (bits 4)
void w_words(int64_t n0, int64_t N, int64_t kb, int64_t ws0, int64_t G, int64_t ss0, int64_t ss1, int64_t ss2,
             out uvec4 q[NR], out vec2 sz[NR]) {
    [[unroll]] for (int j = 0; j < NR; ++j) {
        const int64_t n = min(n0 + int64_t(j), N - 1);  // (a row past N: read, never summed)
        q[j] = RsQ4(pc.w + uint64_t(n * ws0 + kb)).v;
#if BITS == 4
        sz[j] = scale_zero(n, 2L * kb / G, ss0, ss1, ss2);
#else
        sz[j] = vec2(0.0);
#endif
    }
}
#endif

void main() {
    const int64_t M = qp(QM_M), N = qp(QM_N), K = qp(QM_K);
    const int64_t xs0 = qp(QM_XS), xs1 = qp(QM_XS + 1), ws0 = qp(QM_WS), ws1 = qp(QM_WS + 1);
    const uint lid = gl_LocalInvocationID.x;
    const int grp = int(lid) / LANES, lane = int(lid) % LANES;
    const int64_t cols = int64_t(GROUPS * NR);  // output columns a tile
    const int64_t nb = (N + cols - 1) / cols, tiles = nb * ((M + MT - 1) / MT);
#if BITS == 4
    const int64_t G = qp(QM_G), ss0 = qp(QM_SS), ss1 = qp(QM_SS + 1), ss2 = qp(QM_SS + 2);
    const int64_t KB = K / 2;  // bytes a row
#else
    const int64_t G = 1L, ss0 = 0L, ss1 = 0L, ss2 = 0L;  // (w_words' arguments, unused)
    const int64_t KB = K;
#endif
#if VEC
    const int64_t step = 16L;
#else
    const int64_t step = 1L;
#endif
    // grid-stride over tiles: uniform in the workgroup, so the barriers are too
    for (int64_t t = int64_t(gl_WorkGroupID.x); t < tiles; t += int64_t(gl_NumWorkGroups.x)) {
        const int64_t n0 = (t % nb) * cols + int64_t(grp * NR), m0 = (t / nb) * MT;
        const int rows = int(min(int64_t(MT), M - m0));
        float acc[MT * NR];  // acc[r * NR + j]: x's row m0 + r, W's row n0 + j
        [[unroll]] for (int i = 0; i < MT * NR; ++i) acc[i] = 0.0;
#if XVEC && MT == 1 && PF
        // PF: a step's words of W are loaded during the step before it
        uvec4 qn[NR];
        vec2 szn[NR];
        if (int64_t(lane) * step < KB) w_words(n0, N, int64_t(lane) * step, ws0, G, ss0, ss1, ss2, qn, szn);
#endif
        for (int64_t kb = int64_t(lane) * step; kb < KB; kb += step * LANES) {
#if BITS == 4
            const int64_t k0 = 2L * kb;
#else
            const int64_t k0 = kb;
#endif
#if XVEC && MT == 1
            // one row of x: its word's elements read once for the NR rows of
            // W (each sum still takes its terms in k's order)
            uvec4 q[NR];
            vec2 sz[NR];
#if PF
            q = qn;
            sz = szn;
            if (kb + step * LANES < KB) w_words(n0, N, kb + step * LANES, ws0, G, ss0, ss1, ss2, qn, szn);
#else
            w_words(n0, N, kb, ws0, G, ss0, ss1, ss2, q, sz);
#endif
            float xv[BITS == 4 ? 32 : 16];
            const uint64_t xa = pc.x + uint64_t((m0 * xs0 + k0) * int64_t(RS_SIZE(DT)));
            [[unroll]] for (int c = 0; c < xv.length() / 8; ++c) {
                float v8[8];
                x8(xa + uint64_t(c * 8 * RS_SIZE(DT)), v8);
                [[unroll]] for (int i = 0; i < 8; ++i) xv[c * 8 + i] = v8[i];
            }
            [[unroll]] for (int j = 0; j < NR; ++j) {
                if (n0 + int64_t(j) >= N) break;
#if BITS == 4
                [[unroll]] for (int i = 0; i < 16; ++i) {
                    const int b = byte_of(q[j][i / 4], i % 4);
                    acc[j] += xv[2 * i] * ((float(b >> 4) - 8.0) * sz[j].x + sz[j].y);
                    acc[j] += xv[2 * i + 1] * ((float(b & 15) - 8.0) * sz[j].x + sz[j].y);
                }
#else
                [[unroll]] for (int i = 0; i < 16; ++i) acc[j] += xv[i] * int8_of(byte_of(q[j][i / 4], i % 4));
#endif
            }
#else
            [[unroll]] for (int j = 0; j < NR; ++j) {
                const int64_t n = n0 + int64_t(j);
                if (n >= N) break;
#if VEC
                const uvec4 q = RsQ4(pc.w + uint64_t(n * ws0 + kb)).v;
#else
                const uvec4 q = uvec4(uint(RsU8(pc.w + uint64_t(n * ws0 + kb * ws1)).v), 0u, 0u, 0u);
#endif
#if BITS == 4
                const vec2 sz = scale_zero(n, k0 / G, ss0, ss1, ss2);
#endif
#if XVEC
                // the word's weights once, then each row's x in 8s; each
                // sum still takes its terms in k's order
#if BITS == 4
                float wv[32];
                [[unroll]] for (int i = 0; i < 16; ++i) {
                    const int b = byte_of(q[i / 4], i % 4);
                    wv[2 * i] = (float(b >> 4) - 8.0) * sz.x + sz.y;
                    wv[2 * i + 1] = (float(b & 15) - 8.0) * sz.x + sz.y;
                }
#else
                float wv[16];
                [[unroll]] for (int i = 0; i < 16; ++i) wv[i] = int8_of(byte_of(q[i / 4], i % 4));
#endif
                [[unroll]] for (int r = 0; r < MT; ++r) {
                    if (r >= rows) break;
                    const uint64_t xa = pc.x + uint64_t(((m0 + int64_t(r)) * xs0 + k0) * int64_t(RS_SIZE(DT)));
                    [[unroll]] for (int c = 0; c < wv.length() / 8; ++c) {
                        float xv[8];
                        x8(xa + uint64_t(c * 8 * RS_SIZE(DT)), xv);
                        [[unroll]] for (int i = 0; i < 8; ++i) acc[r * NR + j] += xv[i] * wv[c * 8 + i];
                    }
                }
#else
                [[unroll]] for (int i = 0; i < int(step); ++i) {
                    const int b = byte_of(q[i / 4], i % 4);
#if BITS == 4
                    const float w0 = (float(b >> 4) - 8.0) * sz.x + sz.y;
                    const float w1 = (float(b & 15) - 8.0) * sz.x + sz.y;
                    const int64_t k = k0 + 2L * int64_t(i);
                    [[unroll]] for (int r = 0; r < MT; ++r) {
                        if (r >= rows) break;
                        const int64_t xo = (m0 + int64_t(r)) * xs0 + k * xs1;
                        acc[r * NR + j] += RS_GET(DT)(pc.x, xo) * w0;
                        acc[r * NR + j] += RS_GET(DT)(pc.x, xo + xs1) * w1;
                    }
#else
                    const float w0 = int8_of(b);
                    const int64_t k = k0 + int64_t(i);
                    [[unroll]] for (int r = 0; r < MT; ++r) {
                        if (r >= rows) break;
                        acc[r * NR + j] += RS_GET(DT)(pc.x, (m0 + int64_t(r)) * xs0 + k * xs1) * w0;
                    }
#endif
                }
#endif
            }
#endif
        }
        [[unroll]] for (int i = 0; i < MT * NR; ++i) red[i * RS_WG + int(lid)] = acc[i];
        barrier();
        // an invocation an output: the group's lanes' sums in lane order
        for (int o = int(lid); o < GROUPS * NR * MT; o += RS_WG) {
            const int g = o / (NR * MT), j = (o / MT) % NR, r = o % MT;
            const int64_t on = (t % nb) * cols + int64_t(g * NR + j), om = m0 + int64_t(r);
            if (on < N && r < rows) {
                float s = 0.0;
                for (int l = 0; l < LANES; ++l) s += red[(r * NR + j) * RS_WG + g * LANES + l];
#if BITS == 8
                s *= RS_GET(DT)(pc.scales, on * qp(QM_SS));
#endif
                RS_SET_F(DT)(pc.out_, om * qp(QM_OS) + on * qp(QM_OS + 1), s);
            }
        }
        barrier();  // red is read before the next tile writes it
    }
}

#elif MODE == QM_DEQUANT
void main() {
    const int64_t N = qp(QM_N), K = qp(QM_K), ws0 = qp(QM_WS), ws1 = qp(QM_WS + 1);
#if BITS == 4
    const int64_t G = qp(QM_G), ss0 = qp(QM_SS), ss1 = qp(QM_SS + 1), ss2 = qp(QM_SS + 2);
    const int64_t KB = K / 2;
#else
    const int64_t KB = K;
#endif
    RS_FOR_EACH(i, uint64_t(N * KB)) {
        const int64_t n = int64_t(i) / KB, kb = int64_t(i) % KB;
        const int b = int(RsU8(pc.w + uint64_t(n * ws0 + kb * ws1)).v);
#if BITS == 4
        const vec2 sz = scale_zero(n, 2L * kb / G, ss0, ss1, ss2);
        RS_SET_F(DT)(pc.out_, n * K + 2L * kb, (float(b >> 4) - 8.0) * sz.x + sz.y);
        RS_SET_F(DT)(pc.out_, n * K + 2L * kb + 1L, (float(b & 15) - 8.0) * sz.x + sz.y);
#else
        RS_SET_F(DT)(pc.out_, n * K + kb, int8_of(b));
#endif
    }
}

#elif MODE == QM_QUANTIZE || MODE == QM_DEQUANTIZE
#define T_DT QT
#include "common/dtype_inst.glsl"
#undef T_DT
// A float64 scale (its bits) as hi + lo: hi the nearest float, lo the rest
// rounded to float (a normal scale in float's range; else lo = 0). Per
// channel CPU dequantizes in double; n * hi + n * lo, with the first
// product's error kept by a fused multiply-add, rounds as that does but
// for the rarest ties, with float arithmetic only (apple has no fp64).
// a * b exactly as p + e (Dekker's product over Veltkamp's halves): float
// operations only, since Vulkan's fma() need not round once
void two_prod(float a, float b, out float p, out float e) {
    precise float ca = 4097.0 * a, cb = 4097.0 * b;
    precise float ah = ca - (ca - a), bh = cb - (cb - b);
    precise float al = a - ah, bl = b - bh;
    precise float q = a * b;
    p = q;
    precise float r = ((ah * bh - q) + ah * bl + al * bh) + al * bl;
    e = isinf(q) || isnan(q) ? 0.0 : r;
}

// a * b + c rounded once (but for the rarest double roundings)
float fused(float a, float b, float c) {
    float p, e;
    two_prod(a, b, p, e);
    precise float s = p + c;
    precise float bb = s - p;
    precise float es = (p - (s - bb)) + (c - bb);
    precise float r = s + (es + e);
    return isinf(s) || isnan(s) ? s : r;
}

void d_split(uint64_t d, out float hi, out float lo) {
    hi = rs_f_from_d(d);
    lo = 0.0;
    const uint e = uint(d >> 52) & 0x7FFu, hb = floatBitsToUint(hi);
    const uint eh = (hb >> 23) & 0xFFu;
    if (e == 0u || e == 0x7FFu || eh == 0u || eh == 0xFFu) return;
    // both magnitudes in units of 2^(e - 1075): the double's 53-bit mantissa
    // and hi's 24 bits shifted by 29 (30 where rounding carried)
    const int64_t md = int64_t((d & 0xFFFFFFFFFFFFFUL) | 0x10000000000000UL);
    const int64_t mh = int64_t((hb & 0x7FFFFFu) | 0x800000u);
    const int shift = (int(eh) - 127) - (int(e) - 1023) + 29;
    lo = ldexp(float(md - (mh << shift)), int(e) - 1075);
    if (rs_sign64(d)) lo = -lo;
}
void main() {
    const int nd = int(qp(QM_ND));
    const int axis = int(qp(QM_AXIS));
    const int64_t qmin = qp(QM_QMIN), qmax = qp(QM_QMAX);
    uint64_t numel = 1UL;
    for (int d = 0; d < nd; ++d) numel *= uint64_t(qp(QM_SIZES + d));
    RS_FOR_EACH(i, numel) {
        // x's and w's offsets, and the index along the channel dim
        uint64_t rest = i;
        int64_t xo = 0L, wo = 0L, ch = 0L;
        for (int d = nd - 1; d >= 0; --d) {
            uint64_t r;
            rs_divmod(rest, uint64_t(qp(QM_SIZES + d)), r);
            xo += int64_t(r) * qp(QM_SIZES + QM_MAXD + d);
            wo += int64_t(r) * qp(QM_SIZES + 2 * QM_MAXD + d);
            if (d == axis) ch = int64_t(r);
        }
#if PER_CHANNEL
        float scale, scale_lo;
        d_split(RsU64(pc.scales + 8UL * uint64_t(ch)).v, scale, scale_lo);
        const int64_t zp = RsI64(pc.c + 8UL * uint64_t(ch)).v;
#if MODE == QM_QUANTIZE
        const float inv = 1.0 / scale;  // CPU's 1.0f / (float)scale
#endif
#else
        const int64_t zp = qp(QM_ZP);
        const float inv = uintBitsToFloat(uint(qp(QM_INV)));  // 1 / scale, or scale
#if MODE == QM_DEQUANTIZE
        const float scale = inv;
#endif
#endif
#if MODE == QM_QUANTIZE && ZP_AFTER
        // torch 2.15's CPU: the product rounded to an integer, then the
        // zero point added in integers (saturating past int32's range)
        const float t = roundEven(RS_GET(DT)(pc.x, xo) * inv);
        int64_t q;
        if (isnan(t)) q = QT == 3 ? qmin : qmax;
        else q = t >= 4294967296.0 ? qmax : (t <= -4294967296.0 ? qmin : clamp(int64_t(t) + zp, qmin, qmax));
        RS_SET_I(QT)(pc.w, wo, uint64_t(q));
#elif MODE == QM_QUANTIZE
        // torch 2.13's CPU: fbgemm's fused multiply-add for the 8-bit
        // types, ATen's product then sum for int32
#if QT == 3
        precise float t = RS_GET(DT)(pc.x, xo) * inv;
        t = t + float(zp);
#else
        float t = fused(RS_GET(DT)(pc.x, xo), inv, float(zp));
#endif
        int64_t q;
        if (isnan(t)) q = QT == 3 ? qmin : qmax;
        else {
            t = roundEven(t);
            q = t >= 2147483648.0 ? qmax : (t <= -2147483648.0 ? qmin : clamp(int64_t(int(t)), qmin, qmax));
        }
        RS_SET_I(QT)(pc.w, wo, uint64_t(q));
#else
        // q - zero_point in 32-bit integers, wrapping as CPU's does for int32
        const int q = int(int64_t(RS_GET(QT)(pc.w, wo)));
        const float n = float(q - int(zp));
#if PER_CHANNEL
        float p, err;
        two_prod(n, scale, p, err);
        precise float v = p + (err + n * scale_lo);
        RS_SET_F(DT)(pc.x, xo, v);
#else
        RS_SET_F(DT)(pc.x, xo, n * scale);
#endif
#endif
    }
}

#elif MODE == QM_SCALE
void main() {
    const int64_t M = qp(QM_M), N = qp(QM_N);
    RS_FOR_EACH(i, uint64_t(M * N)) {
        const int64_t m = int64_t(i) / N, n = int64_t(i) % N;
        float s = uintBitsToFloat(RsU32(pc.c + 4UL * i).v);
#if BITS == 8
        s *= RS_GET(DT)(pc.scales, n * qp(QM_SS));
#endif
        RS_SET_F(DT)(pc.out_, m * qp(QM_OS) + n * qp(QM_OS + 1), s);
    }
}
#endif
