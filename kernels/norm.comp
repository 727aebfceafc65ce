// norm.comp: the normalization engine's kernels (src/engine/norm.c; the
// contract is rs_norm in russet/norm.h). The adapter composes layer_norm and
// batch_norm, forward and backward, from them.
//
// MODE 0 (STATS) and 2 (SUMS) reduce rows: workgroup (row, chunk) folds
// its chunk of the row's K elements, each lane its own elements in order,
// then the lanes in a fixed tree (deterministic, no atomics); with one chunk
// per row it writes the results, else a partial per chunk into `part`,
// which PASS 2 (a workgroup per row: its lanes over the chunks, then a
// fixed tree) merges.
//   STATS: Welford's count, mean and M2 (Chan's merge); out1 = mean,
//          out2 = the biased variance. Rows of at most RS_NORM_SEQ_MAX elements
//          are summed by one lane in order, in two passes (CPU's batch norm
//          statistics, bit for bit in float32 arithmetic). With NP_BN,
//          batch norm's training forward per channel as well (stats_out):
//          out2 = invstd, the running statistics, alpha and beta.
//   SUMS:  out1 = sum of g w, out2 = sum of g w (x - a) b, with a and b
//          indexed by the row, or by the element's outer index
//          (STAT_OUTER), and w by the element's inner index (or 1).
// MODE 1 (APPLY) and 3 (GRAD) are elementwise over contiguous tensors:
//   APPLY: y = ((x - a[r]) * b[r]) * w[c] + bias[c]
//   GRAD:  y = (g w[c] - s1[r] k - (x - a[r]) b[r] s2[r] k) * b[r] * scale[c]
//          (k = 1 / K)
// with r = (e / row_div) % rows and c = (e / col_div) % cols; an absent
// vector (address 0) reads as 0 (a, bias) or 1 (w, scale).
//
// MODE 7 (BN_PARAMS) is batch norm's per-channel transform, a channel an
// invocation: invstd = b (or 1 / sqrt(b + eps) where b is a variance),
// alpha = invstd w, beta = bias - mean alpha (-(mean alpha) without bias),
// each product rounded on its own (rs_rounded), as CPU's separate ops.
//
// MODE 4 (ROW_FWD) and 5 (ROW_BWD) are layer norm's and RMS norm's passes
// over contiguous rows in one kernel each: a row's lanes read it, meet in
// a fixed tree, and write its results (below). MODE 6 (COL_SUMS) is their
// weight and bias gradients' column sums.
//
// Defines: MODE, PASS (reductions: 1 or 2), DT (the tensors' dtype), LANES
// (ROW modes: lanes per row), TC (STATS and SUMS, pass 1: rows a workgroup
// reduces side by side, 1 to 32, for rows that are neighbouring columns),
// FASTDIV (APPLY and GRAD: numel and the four divisors below 2^31, so r and
// c come from rs_fastdiv's multiplications, the NP_MG_ magic pairs; STATS
// and SUMS pass 1: k / inner so, for k below 2^31).
// The vectors are in DT's opmath type (float, or double for float64), and
// so is the arithmetic.
#version 460
#include "common/dtype.glsl"
#include "params/norm.h"
#include "common/index.glsl"
#include "common/fastdiv.glsl"
#include "common/opmath.glsl"

layout(local_size_x = RS_WG) in;

layout(push_constant) uniform Push { RS_NORM_PUSH } pc;

int64_t np(int slot) { return RsI64(pc.params + 8UL * uint64_t(slot)).v; }

#ifndef FASTDIV
#define FASTDIV 0
#endif
#define T_DT DT
#include "common/dtype_inst.glsl"
#include "common/opmath_inst.glsl"
#undef T_DT

#define ACC RS_OPMT(DT)
#if RS_IS_DBL(DT)
layout(buffer_reference, std430, buffer_reference_align = 8) buffer NVec { double v; };
void n_store(uint64_t addr, int64_t o, ACC v) { RS_SET_D(DT)(addr, o, doubleBitsToUint64(v)); }
#else
layout(buffer_reference, std430, buffer_reference_align = 4) buffer NVec { float v; };
void n_store(uint64_t addr, int64_t o, ACC v) { RS_SET_F(DT)(addr, o, v); }
#endif
// float32's 16-byte words (ROW_FWD's VEC4, STATS' VW 4)
layout(buffer_reference, std430, buffer_reference_align = 16) buffer NW4 { vec4 v; };
ACC vec_at(uint64_t addr, int64_t i, ACC absent) {
    return addr == 0UL ? absent : NVec(addr + uint64_t(i) * uint64_t(RS_IS_DBL(DT) ? 8 : 4)).v;
}
void vec_set(uint64_t addr, int64_t i, ACC v) { NVec(addr + uint64_t(i) * uint64_t(RS_IS_DBL(DT) ? 8 : 4)).v = v; }
// a scalar slot (1 / K, eps, momentum): double bits for float64, else float bits
ACC np_scalar(int slot) {
#if RS_IS_DBL(DT)
    return uint64BitsToDouble(uint64_t(np(slot)));
#else
    return uintBitsToFloat(uint(np(slot)));
#endif
}

#if MODE == 7
void main() {
    RS_FOR_EACH(e, uint64_t(np(NP_ROWS))) {
        const int64_t r = int64_t(e);
        precise ACC invstd = vec_at(pc.b, r, ACC(1));
        if (np(NP_BN) != 0L) invstd = ACC(1) / sqrt(invstd + np_scalar(NP_EPS));
        const ACC alpha = pc.w == 0UL ? invstd : rs_rounded(invstd * vec_at(pc.w, r, ACC(1)), pc.zero);
        const ACC ma = rs_rounded(vec_at(pc.a, r, ACC(0)) * alpha, pc.zero);
        vec_set(pc.s1, r, alpha);
        vec_set(pc.s2, r, pc.bias == 0UL ? -ma : vec_at(pc.bias, r, ACC(0)) - ma);
    }
}

#elif MODE == 4 || MODE == 5
// ---------------------------------------------------------------- whole rows
// LANES lanes per row (a power of two, at most RS_WG), RS_WG / LANES rows a
// workgroup; rows are contiguous, `inner` elements each
#define RPW (RS_WG / LANES)
// elements of a row a lane keeps in registers
#define CACHE 8
// VEC4 (ROW_FWD, float32): 16-byte words, CACHE4 of them kept a lane
#ifndef VEC4
#define VEC4 0
#endif
#define CACHE4 4
shared ACC shr0[RS_WG], shr1[RS_WG];

// the sums of a and b over this row's LANES lanes, in a fixed tree, seen by
// every lane of the row. Called by every lane of the workgroup (barriers).
void row_sum2(inout ACC a, inout ACC b) {
    const uint lid = gl_LocalInvocationID.x, l = lid % uint(LANES), seg = lid - l;
    shr0[lid] = a, shr1[lid] = b;
    [[unroll]] for (uint h = uint(LANES) / 2u; h > 0u; h >>= 1) {
        barrier();
        if (l < h) {
            shr0[lid] += shr0[lid + h];
            shr1[lid] += shr1[lid + h];
        }
    }
    barrier();
    a = shr0[seg], b = shr1[seg];
    barrier();  // the next call writes shr again
}

#if VEC4
// y's word k of the row whose first word is base4: ((x - mean) rstd) w + bias
void row_store4(int64_t base4, int64_t k, vec4 x4, float mean, float rstd) {
    vec4 y = (x4 - mean) * rstd;
    if (pc.w != 0UL) y *= NW4(pc.w + uint64_t(k) * 16UL).v;
    if (pc.bias != 0UL) y += NW4(pc.bias + uint64_t(k) * 16UL).v;
    NW4(pc.y + uint64_t(base4 + k) * 16UL).v = y;
}
#endif

void main() {
    const int64_t rows = np(NP_ROWS), n = np(NP_INNER);
    const bool centred = np(NP_CENTRED) != 0L;
    const bool cached = n <= int64_t(LANES * CACHE);  // the row fits the registers
    const uint lid = gl_LocalInvocationID.x, l = lid % uint(LANES);
    const ACC ik = np_scalar(NP_INV_K), eps = np_scalar(NP_EPS);
    // groups of RPW rows; grid-stride, uniform over the workgroup
    const int64_t groups = (rows + int64_t(RPW) - 1L) / int64_t(RPW);
    for (int64_t gi = int64_t(gl_WorkGroupID.x); gi < groups; gi += int64_t(gl_NumWorkGroups.x)) {
        const int64_t r = gi * int64_t(RPW) + int64_t(lid / uint(LANES));
        const bool live = r < rows;
        const int64_t base = live ? r * n : 0L, end = live ? n : 0L;
#if MODE == 4 && VEC4
        // forward on 16-byte words (float32 rows of a multiple of 4
        // elements, every vector 16-byte aligned: norm.c): a lane's words
        // are l, l + LANES, ...; a row of at most LANES * CACHE4 words is
        // read once into registers, a longer one three times. Each lane sums
        // a word's elements pairwise, then its words in order.
        const int64_t n4 = n / 4L, end4 = live ? n4 : 0L, base4 = live ? r * n4 : 0L;
        const bool cached4 = n4 <= int64_t(LANES * CACHE4);
        ACC s = ACC(0), unused = ACC(0);
        vec4 xw[CACHE4];
        if (cached4) {
            [[unroll]] for (uint c = 0u; c < uint(CACHE4); ++c) {
                const int64_t k = int64_t(l + c * uint(LANES));
                xw[c] = k < end4 ? NW4(pc.x + uint64_t(base4 + k) * 16UL).v : vec4(0.0);
                s += (xw[c].x + xw[c].y) + (xw[c].z + xw[c].w);
            }
        } else {
            for (int64_t k = int64_t(l); k < end4; k += int64_t(LANES)) {
                const vec4 v = NW4(pc.x + uint64_t(base4 + k) * 16UL).v;
                s += (v.x + v.y) + (v.z + v.w);
            }
        }
        ACC mean = ACC(0);
        if (centred) {
            row_sum2(s, unused);
            mean = s / ACC(n);
        }
        ACC q = ACC(0);
        if (cached4) {
            [[unroll]] for (uint c = 0u; c < uint(CACHE4); ++c) {
                const vec4 d = xw[c] - mean;
                if (int64_t(l + c * uint(LANES)) < end4) q += (d.x * d.x + d.y * d.y) + (d.z * d.z + d.w * d.w);
            }
        } else {
            for (int64_t k = int64_t(l); k < end4; k += int64_t(LANES)) {
                const vec4 d = NW4(pc.x + uint64_t(base4 + k) * 16UL).v - mean;
                q += (d.x * d.x + d.y * d.y) + (d.z * d.z + d.w * d.w);
            }
        }
        row_sum2(q, unused);
        const ACC rstd = ACC(1) / sqrt(q / ACC(n) + eps);
        if (live && l == 0u) {
            if (centred) vec_set(pc.s1, r, mean);
            vec_set(pc.s2, r, rstd);
        }
        if (cached4) {
            [[unroll]] for (uint c = 0u; c < uint(CACHE4); ++c) {
                const int64_t k = int64_t(l + c * uint(LANES));
                if (k < end4) row_store4(base4, k, xw[c], mean, rstd);
            }
        } else {
            for (int64_t k = int64_t(l); k < end4; k += int64_t(LANES))
                row_store4(base4, k, NW4(pc.x + uint64_t(base4 + k) * 16UL).v, mean, rstd);
        }
#elif MODE == 4
        // forward: the mean (centred), then the centred squares, then y;
        // a row of at most LANES * CACHE elements is read once into
        // registers (xv), a longer one three times (the later reads hit the
        // cache). Sums run over a lane's elements in order either way.
        ACC s = ACC(0), unused = ACC(0);
        ACC xv[CACHE];
        if (cached) {
            [[unroll]] for (uint c = 0u; c < uint(CACHE); ++c) {
                const int64_t k = int64_t(l + c * uint(LANES));
                xv[c] = k < end ? RS_LDO(DT)(pc.x, base + k) : ACC(0);
                s += xv[c];
            }
        } else {
            for (int64_t k = int64_t(l); k < end; k += int64_t(LANES)) s += RS_LDO(DT)(pc.x, base + k);
        }
        ACC mean = ACC(0);
        if (centred) {
            row_sum2(s, unused);
            mean = s / ACC(n);
        }
        ACC q = ACC(0);
        if (cached) {
            [[unroll]] for (uint c = 0u; c < uint(CACHE); ++c) {
                const ACC d = xv[c] - mean;
                if (int64_t(l + c * uint(LANES)) < end) q += d * d;
            }
        } else {
            for (int64_t k = int64_t(l); k < end; k += int64_t(LANES)) {
                ACC d = RS_LDO(DT)(pc.x, base + k) - mean;
                q += d * d;
            }
        }
        row_sum2(q, unused);
        const ACC rstd = ACC(1) / sqrt(q / ACC(n) + eps);
        if (live && l == 0u) {
            if (centred) vec_set(pc.s1, r, mean);
            vec_set(pc.s2, r, rstd);
        }
        if (cached) {
            [[unroll]] for (uint c = 0u; c < uint(CACHE); ++c) {
                const int64_t k = int64_t(l + c * uint(LANES));
                if (k < end) {
                    ACC y = ((xv[c] - mean) * rstd) * vec_at(pc.w, k, ACC(1));
                    if (pc.bias != 0UL) y += vec_at(pc.bias, k, ACC(0));
                    n_store(pc.y, base + k, y);
                }
            }
        } else {
            for (int64_t k = int64_t(l); k < end; k += int64_t(LANES)) {
                ACC y = ((RS_LDO(DT)(pc.x, base + k) - mean) * rstd) * vec_at(pc.w, k, ACC(1));
                if (pc.bias != 0UL) y += vec_at(pc.bias, k, ACC(0));
                n_store(pc.y, base + k, y);
            }
        }
#else
        // backward: s1 = sum g w, s2 = sum g w xhat over the row, then
        // y = (g w - s1 / n - xhat s2 / n) rstd (GRAD's formula, precise);
        // x and g of a short row kept in registers as in the forward
        const ACC a = live && centred ? vec_at(pc.a, r, ACC(0)) : ACC(0);
        const ACC b = live ? vec_at(pc.b, r, ACC(1)) : ACC(1);
        ACC s1 = ACC(0), s2 = ACC(0);
        ACC xv[CACHE], gv[CACHE];
        if (cached) {
            [[unroll]] for (uint c = 0u; c < uint(CACHE); ++c) {
                const int64_t k = int64_t(l + c * uint(LANES));
                xv[c] = k < end ? RS_LDO(DT)(pc.x, base + k) : ACC(0);
                gv[c] = k < end ? RS_LDO(DT)(pc.g, base + k) : ACC(0);
                if (k < end) {
                    ACC gw = gv[c] * vec_at(pc.w, k, ACC(1));
                    s1 += gw;
                    s2 += gw * ((xv[c] - a) * b);
                }
            }
        } else {
            for (int64_t k = int64_t(l); k < end; k += int64_t(LANES)) {
                ACC gw = RS_LDO(DT)(pc.g, base + k) * vec_at(pc.w, k, ACC(1));
                s1 += gw;
                s2 += gw * ((RS_LDO(DT)(pc.x, base + k) - a) * b);
            }
        }
        row_sum2(s1, s2);
        if (!centred) s1 = ACC(0);
        if (cached) {
            [[unroll]] for (uint c = 0u; c < uint(CACHE); ++c) {
                const int64_t k = int64_t(l + c * uint(LANES));
                if (k < end) {
                    ACC xhat = (xv[c] - a) * b;
                    precise ACC gw = gv[c] * vec_at(pc.w, k, ACC(1));
                    precise ACC y = (gw - s1 * ik - xhat * (s2 * ik)) * b;
                    n_store(pc.y, base + k, y);
                }
            }
        } else {
            for (int64_t k = int64_t(l); k < end; k += int64_t(LANES)) {
                ACC xhat = (RS_LDO(DT)(pc.x, base + k) - a) * b;
                precise ACC gw = RS_LDO(DT)(pc.g, base + k) * vec_at(pc.w, k, ACC(1));
                precise ACC y = (gw - s1 * ik - xhat * (s2 * ik)) * b;
                n_store(pc.y, base + k, y);
            }
        }
#endif
    }
}

#elif MODE == 6
// ---------------------------------------------------------------- column sums
// over contiguous (rows, inner): out1[c] = sum of g, out2[c] = sum of
// g (x - a[r]) b[r]. PASS 1: item (chunk, c) sums the chunk's rows of
// column c in order (neighbouring items read neighbouring columns); with
// one chunk it writes the results, else 2 partials per item into `part`,
// which PASS 2 (one invocation per column) adds in chunk order.
void main() {
    const int64_t rows = np(NP_ROWS), n = np(NP_INNER), chunks = np(NP_CHUNKS), chunk = np(NP_CHUNK);
#if PASS == 1
    RS_FOR_EACH(item, uint64_t(chunks * n)) {
        uint64_t q = item, cu;
        rs_divmod(q, uint64_t(n), cu);
        const int64_t c = int64_t(cu), r0 = int64_t(q) * chunk, r1 = min(rows, r0 + chunk);
        ACC s1 = ACC(0), s2 = ACC(0);
        for (int64_t r = r0; r < r1; ++r) {
            ACC g = RS_LDO(DT)(pc.g, r * n + c);
            s1 += g;
            s2 += g * ((RS_LDO(DT)(pc.x, r * n + c) - vec_at(pc.a, r, ACC(0))) * vec_at(pc.b, r, ACC(1)));
        }
        if (chunks == 1L) {
            vec_set(pc.s1, c, s1);
            vec_set(pc.s2, c, s2);
        } else {
            vec_set(pc.part, 2L * int64_t(item), s1);
            vec_set(pc.part, 2L * int64_t(item) + 1L, s2);
        }
    }
#else
    RS_FOR_EACH(cu, uint64_t(n)) {
        const int64_t c = int64_t(cu);
        ACC s1 = ACC(0), s2 = ACC(0);
        for (int64_t h = 0L; h < chunks; ++h) {
            s1 += vec_at(pc.part, 2L * (h * n + c), ACC(0));
            s2 += vec_at(pc.part, 2L * (h * n + c) + 1L, ACC(0));
        }
        vec_set(pc.s1, c, s1);
        vec_set(pc.s2, c, s2);
    }
#endif
}

#elif MODE == 0 || MODE == 2
// ---------------------------------------------------------------- rows
// a lane's (or a tree node's) state: STATS (n, mean, m2), SUMS (s1, s2, -)
shared ACC sh0[RS_WG], sh1[RS_WG], sh2[RS_WG];

// Chan's merge of Welford states (a) <- (a) + (b)
void merge(inout ACC n, inout ACC mean, inout ACC m2, ACC nb, ACC meanb, ACC m2b) {
    if (nb == ACC(0)) return;
    if (n == ACC(0)) {
        n = nb, mean = meanb, m2 = m2b;
        return;
    }
    ACC t = n + nb, d = meanb - mean;
    mean += d * (nb / t);
    m2 += m2b + d * d * (n * nb / t);
    n = t;
}

// The states in sh0..sh2 of `count` lanes (lane, lane + step, ...: rl the
// lane's rank among them) folded in a fixed tree into the first, lane rank
// h taking rank h + half at each level. Called by every lane of the
// workgroup (barriers).
void fold_tree(uint lane, uint rl, uint step, uint count) {
    for (uint h = count / 2u; h > 0u; h >>= 1) {
        barrier();
        if (rl < h) {
            const uint o = lane + h * step;
#if MODE == 0
            ACC n = sh0[lane], m = sh1[lane], m2 = sh2[lane];
            merge(n, m, m2, sh0[o], sh1[o], sh2[o]);
            sh0[lane] = n, sh1[lane] = m, sh2[lane] = m2;
#else
            sh0[lane] += sh0[o];
            sh1[lane] += sh1[o];
#endif
        }
    }
    barrier();
}

#if MODE == 0
// row r's mean and biased variance into s1, s2; for batch norm's training
// forward (NP_BN) s2 takes invstd = 1 / sqrt(var + eps), the running
// statistics become keep * run + momentum * stat (the variance unbiased,
// K / (K - 1)), and alpha = invstd w, beta = bias - mean alpha (w: pc.w or
// 1, bias: pc.bias or 0) are what APPLY then normalizes with
void stats_out(int64_t r, ACC mean, ACC var) {
    vec_set(pc.s1, r, mean);
    if (np(NP_BN) == 0L) {
        vec_set(pc.s2, r, var);
        return;
    }
    const ACC invstd = ACC(1) / sqrt(var + np_scalar(NP_EPS));
    vec_set(pc.s2, r, invstd);
    const ACC mom = np_scalar(NP_MOMENTUM), keep = np_scalar(NP_KEEP), kk = ACC(np(NP_OUTER) * np(NP_INNER));
    const uint64_t rm = uint64_t(np(NP_RUN_MEAN)), rv = uint64_t(np(NP_RUN_VAR));
    if (rm != 0UL) vec_set(rm, r, vec_at(rm, r, ACC(0)) * keep + mean * mom);
    if (rv != 0UL) vec_set(rv, r, vec_at(rv, r, ACC(0)) * keep + (var * kk) / (kk - ACC(1)) * mom);
    const ACC alpha = invstd * vec_at(pc.w, r, ACC(1));
    vec_set(uint64_t(np(NP_ALPHA)), r, alpha);
    vec_set(uint64_t(np(NP_BETA)), r, vec_at(pc.bias, r, ACC(0)) - mean * alpha);
}
#endif


int64_t n_offset(int64_t r, int64_t k, int64_t inner, int64_t rstride, int64_t ostride) {
    uint64_t q = uint64_t(k), i;
    rs_divmod(q, uint64_t(inner), i);
    return int64_t(q) * ostride + r * rstride + int64_t(i);
}

#if PASS == 1
// TC: rows a workgroup reduces side by side (1, or for rows that are
// neighbouring columns, as a channels_last batch's channels, up to 32:
// lane = row-lane * TC + column, so that neighbouring lanes read
// neighbouring addresses); each row's RS_WG / TC lanes then meet in a
// fixed tree. TC 1 is one row a workgroup, all its lanes on it.
#ifndef TC
#define TC 1
#endif
#define RL (RS_WG / TC)
// elements a lane loads before it folds them (norm.c: norm_unroll)
#ifndef UNROLL
#define UNROLL 1
#endif
// OFF32 (with FASTDIV): every element's offset is below 2^31, so offsets
// are 32-bit products (64-bit multiplies are several instructions on NVIDIA
// and emulated on Apple GPUs; fewer registers)
#ifndef OFF32
#define OFF32 0
#endif
// VW (STATS, float32): elements a load reads, 1 or 4 (16-byte words): with
// TC 1, 4 neighbouring elements of the row; with TC > 1, the same element
// of 4 neighbouring rows (below)
#ifndef VW
#define VW 1
#endif

#if VW == 4 && TC > 1
// ---- channels_last statistics on words: a lane's word holds 4
// neighbouring rows' element k, so a lane carries 4 rows' Welford states,
// whose counts are equal (one mean and M2 a row, a count for all); TW lanes
// cover a tile's TC rows side by side, RLW lanes walk each row's k. norm.c
// picks it for inner 1, row stride 1, rows and the outer stride multiples
// of 4, x 16-byte aligned, rows longer than RS_NORM_SEQ_MAX.
#define TW (TC / 4)
#define RLW (RS_WG / TW)
shared vec4 shm4[RS_WG], shq4[RS_WG];

void merge4(inout float n, inout vec4 mean, inout vec4 m2, float nb, vec4 meanb, vec4 m2b) {
    if (nb == 0.0) return;
    if (n == 0.0) {
        n = nb, mean = meanb, m2 = m2b;
        return;
    }
    const float t = n + nb;
    const vec4 d = meanb - mean;
    mean += d * (nb / t);
    m2 += m2b + d * d * (n * nb / t);
    n = t;
}

void main() {
    const int64_t rows = np(NP_ROWS), chunks = np(NP_CHUNKS), chunk = np(NP_CHUNK);
    const int64_t ostride = np(NP_OUTER_STRIDE), kk = np(NP_OUTER), tiles = (rows + int64_t(TC) - 1L) / int64_t(TC);
    const uint lane = gl_LocalInvocationID.x, cw = lane % uint(TW), rl = lane / uint(TW);
    for (uint64_t wg = uint64_t(gl_WorkGroupID.x); wg < uint64_t(tiles * chunks); wg += uint64_t(gl_NumWorkGroups.x)) {
        const int64_t r = int64_t(wg / uint64_t(chunks)) * int64_t(TC) + 4L * int64_t(cw);
        const int64_t c = int64_t(wg % uint64_t(chunks));
        const bool live = r < rows;  // rows % 4 == 0: the word's 4 rows are all live or none
        const int64_t k0 = c * chunk, k1 = live ? min(kk, k0 + chunk) : k0;
        float n = 0.0;
        vec4 mean = vec4(0.0), m2 = vec4(0.0);
        for (int64_t k = k0 + int64_t(rl); k < k1; k += int64_t(RLW * UNROLL)) {
            vec4 xw[UNROLL];
            [[unroll]] for (int u = 0; u < UNROLL; ++u) {
                const int64_t ku = k + int64_t(u * RLW);
                if (ku >= k1) break;
#if OFF32
                const uint off = uint(ku) * uint(ostride) + uint(r);
#else
                const int64_t off = ku * ostride + r;
#endif
                xw[u] = NW4(pc.x + uint64_t(off) * 4UL).v;
            }
            float bn = 0.0;
            vec4 bs = vec4(0.0), bq = vec4(0.0);
            [[unroll]] for (int u = 0; u < UNROLL; ++u) {
                if (k + int64_t(u * RLW) >= k1) break;
                bn += 1.0;
                bs += xw[u];
            }
            const vec4 bm = bs / bn;
            [[unroll]] for (int u = 0; u < UNROLL; ++u) {
                if (k + int64_t(u * RLW) >= k1) break;
                const vec4 d = xw[u] - bm;
                bq += d * d;
            }
            merge4(n, mean, m2, bn, bm, bq);
        }
        // each word's lanes (lane + h TW: the same 4 rows) in a fixed tree
        sh0[lane] = n, shm4[lane] = mean, shq4[lane] = m2;
        for (uint h = uint(RLW) / 2u; h > 0u; h >>= 1) {
            barrier();
            if (rl < h) {
                const uint o = lane + h * uint(TW);
                float tn = sh0[lane];
                vec4 tm = shm4[lane], tq = shq4[lane];
                merge4(tn, tm, tq, sh0[o], shm4[o], shq4[o]);
                sh0[lane] = tn, shm4[lane] = tm, shq4[lane] = tq;
            }
        }
        barrier();
        if (rl == 0u && live) {  // lane == cw: the word's tree root
            const float tn = sh0[cw];
            [[unroll]] for (int j = 0; j < 4; ++j) {
                const int64_t rj = r + int64_t(j);
                if (chunks == 1L) {
                    stats_out(rj, shm4[cw][j], tn > 0.0 ? shq4[cw][j] / tn : 0.0);
                } else {
                    const int64_t p = 3L * (rj * chunks + c);
                    vec_set(pc.part, p, tn);
                    vec_set(pc.part, p + 1L, shm4[cw][j]);
                    vec_set(pc.part, p + 2L, shq4[cw][j]);
                }
            }
        }
        barrier();  // sh is written again by the next workgroup item
    }
}
#else

void main() {
    int64_t rows = np(NP_ROWS), inner = np(NP_INNER), chunks = np(NP_CHUNKS), chunk = np(NP_CHUNK);
    int64_t rstride = np(NP_ROW_STRIDE), ostride = np(NP_OUTER_STRIDE);
    int64_t kk = np(NP_OUTER) * inner, tiles = (rows + int64_t(TC) - 1L) / int64_t(TC);
#if FASTDIV
    uint64_t mg_inner = uint64_t(np(NP_MG_INNER));
#endif
    uint lane = gl_LocalInvocationID.x, cl = lane % uint(TC), rl = lane / uint(TC);
    // workgroups (tile of TC rows, chunk), tile-major; grid-stride over them
    for (uint64_t wg = uint64_t(gl_WorkGroupID.x); wg < uint64_t(tiles * chunks); wg += uint64_t(gl_NumWorkGroups.x)) {
        int64_t r = int64_t(wg / uint64_t(chunks)) * int64_t(TC) + int64_t(cl), c = int64_t(wg % uint64_t(chunks));
        const bool live = r < rows;
        int64_t k0 = c * chunk, k1 = live ? min(kk, k0 + chunk) : k0;
#if OFF32
        const uint roff32 = live ? uint(r * rstride) : 0u;
#endif
        ACC v0 = ACC(0), v1 = ACC(0), v2 = ACC(0);
#if MODE == 2
        bool outer_stat = np(NP_STAT_OUTER) != 0L;
        ACC ra = live ? vec_at(pc.a, r, ACC(0)) : ACC(0), rb = live ? vec_at(pc.b, r, ACC(1)) : ACC(1);
#endif
#if MODE == 0
        if (chunks == 1L && kk <= int64_t(RS_NORM_SEQ_MAX)) {
            // a short row: one lane, in order, two passes (the mean from the
            // sum, then the centred squares), as CPU's batch norm computes
            // its statistics: the same bits where CPU works in float32
            if (rl == 0u && live) {
                ACC sum = ACC(0), sq = ACC(0);
                for (int64_t k = 0; k < kk; ++k) sum += RS_LDO(DT)(pc.x, n_offset(r, k, inner, rstride, ostride));
                ACC mean = sum / ACC(kk);
                for (int64_t k = 0; k < kk; ++k) {
                    ACC d = RS_LDO(DT)(pc.x, n_offset(r, k, inner, rstride, ostride)) - mean;
                    sq += d * d;
                }
                stats_out(r, mean, sq / ACC(kk));
            }
            continue;  // uniform: every lane of the workgroup takes it
        }
#endif
#if MODE == 0 && VW == 4
        // float32 on 16-byte words (norm.c: the row's elements come in
        // aligned runs of 4 within an outer index, chunks of a multiple of
        // 4): UNROLL words a lane loaded, then folded as one batch as below
        for (int64_t k = k0 + int64_t(rl) * 4L; k < k1; k += int64_t(RL * UNROLL) * 4L) {
            vec4 xw[UNROLL];
            [[unroll]] for (int u = 0; u < UNROLL; ++u) {
                const int64_t ku = k + int64_t(u * RL) * 4L;
                if (ku >= k1) break;
#if OFF32
                const uint qi = rs_fastdiv(uint(ku), mg_inner);
                const uint off = qi * uint(ostride) + roff32 + (uint(ku) - qi * uint(inner));
#else
                uint64_t q = uint64_t(ku), i;
                rs_divmod(q, uint64_t(inner), i);
                const int64_t off = int64_t(q) * ostride + r * rstride + int64_t(i);
#endif
                xw[u] = NW4(pc.x + uint64_t(off) * 4UL).v;
            }
            ACC bn = ACC(0), bs = ACC(0), bq = ACC(0);
            [[unroll]] for (int u = 0; u < UNROLL; ++u) {
                if (k + int64_t(u * RL) * 4L >= k1) break;
                bn += ACC(4);
                bs += (xw[u].x + xw[u].y) + (xw[u].z + xw[u].w);
            }
            const ACC bm = bs / bn;
            [[unroll]] for (int u = 0; u < UNROLL; ++u) {
                if (k + int64_t(u * RL) * 4L >= k1) break;
                const vec4 d = xw[u] - bm;
                bq += (d.x * d.x + d.y * d.y) + (d.z * d.z + d.w * d.w);
            }
            merge(v0, v1, v2, bn, bm, bq);
        }
#else
        // UNROLL elements of the lane's at a time: their loads first, then
        // their folds, so that a lane has UNROLL loads in flight rather
        // than one (SUMS: in the same order as one at a time, the same bits)
        for (int64_t k = k0 + int64_t(rl); k < k1; k += int64_t(RL * UNROLL)) {
            ACC xs[UNROLL];
#if MODE == 2
            ACC gws[UNROLL], ss[UNROLL];
#endif
            [[unroll]] for (int u = 0; u < UNROLL; ++u) {
                const int64_t ku = k + int64_t(u * RL);
                if (ku >= k1) break;
#if FASTDIV
                uint qi = rs_fastdiv(uint(ku), mg_inner);
                uint64_t q = uint64_t(qi), i = uint64_t(uint(ku) - qi * uint(inner));
#else
                uint64_t q = uint64_t(ku), i;
                rs_divmod(q, uint64_t(inner), i);  // q = k / inner, i = k % inner
#endif
#if OFF32
                int64_t off = int64_t(qi * uint(ostride) + roff32 + uint(i));
#else
                int64_t off = int64_t(q) * ostride + r * rstride + int64_t(i);
#endif
                xs[u] = RS_LDO(DT)(pc.x, off);
#if MODE == 2
                gws[u] = RS_LDO(DT)(pc.g, off) * vec_at(pc.w, int64_t(i), ACC(1));
                ACC sa = outer_stat ? vec_at(pc.a, int64_t(q), ACC(0)) : ra;
                ACC sb = outer_stat ? vec_at(pc.b, int64_t(q), ACC(1)) : rb;
                ss[u] = (xs[u] - sa) * sb;
#endif
            }
#if MODE == 0
            // the loaded elements as a batch: their count, mean and centred
            // squares (two passes over registers), merged into the lane's
            // state by Chan's formula: 3 divisions a batch, not one an
            // element (a Welford step an element held the H100's pass at
            // 0.75 TB/s; batches of 8: 1.25)
            ACC bn = ACC(0), bs = ACC(0), bq = ACC(0);
            [[unroll]] for (int u = 0; u < UNROLL; ++u) {
                if (k + int64_t(u * RL) >= k1) break;
                bn += ACC(1);
                bs += xs[u];
            }
            const ACC bm = bs / bn;
            [[unroll]] for (int u = 0; u < UNROLL; ++u) {
                if (k + int64_t(u * RL) >= k1) break;
                const ACC d = xs[u] - bm;
                bq += d * d;
            }
            merge(v0, v1, v2, bn, bm, bq);
#else
            [[unroll]] for (int u = 0; u < UNROLL; ++u) {
                if (k + int64_t(u * RL) >= k1) break;
                v0 += gws[u];
                v1 += gws[u] * ss[u];
            }
#endif
        }
#endif
        // each row's lanes in a fixed tree (lane + h TC: the same row)
        sh0[lane] = v0, sh1[lane] = v1, sh2[lane] = v2;
        fold_tree(lane, rl, uint(TC), uint(RL));
        if (rl == 0u && live) {  // lane == cl: the row's tree root
            if (chunks == 1L) {
#if MODE == 0
                stats_out(r, sh1[cl], sh0[cl] > ACC(0) ? sh2[cl] / sh0[cl] : ACC(0));
#else
                vec_set(pc.s1, r, sh0[cl]);
                vec_set(pc.s2, r, sh1[cl]);
#endif
            } else {
                int64_t p = 3L * (r * chunks + c);
                vec_set(pc.part, p, sh0[cl]);
                vec_set(pc.part, p + 1L, sh1[cl]);
                vec_set(pc.part, p + 2L, sh2[cl]);
            }
        }
        barrier();  // sh is written again by the next workgroup item
    }
}
#endif  // VW == 4 && TC > 1
#else
// PASS 2: a workgroup per row merges its chunks' partials: each lane the
// chunks lane, lane + RS_WG, ... in order, then the lanes in a fixed tree
// (deterministic; one lane per row took as many steps as there are chunks)
void main() {
    int64_t rows = np(NP_ROWS), chunks = np(NP_CHUNKS);
    uint lane = gl_LocalInvocationID.x;
    for (uint64_t wg = uint64_t(gl_WorkGroupID.x); wg < uint64_t(rows); wg += uint64_t(gl_NumWorkGroups.x)) {
        int64_t r = int64_t(wg);
        ACC v0 = ACC(0), v1 = ACC(0), v2 = ACC(0);
        for (int64_t c = int64_t(lane); c < chunks; c += int64_t(RS_WG)) {
            int64_t p = 3L * (r * chunks + c);
#if MODE == 0
            merge(v0, v1, v2, vec_at(pc.part, p, ACC(0)), vec_at(pc.part, p + 1L, ACC(0)),
                  vec_at(pc.part, p + 2L, ACC(0)));
#else
            v0 += vec_at(pc.part, p, ACC(0));
            v1 += vec_at(pc.part, p + 1L, ACC(0));
#endif
        }
        sh0[lane] = v0, sh1[lane] = v1, sh2[lane] = v2;
        fold_tree(lane, lane, 1u, uint(RS_WG));
        if (lane == 0u) {
#if MODE == 0
            stats_out(r, sh1[0], sh0[0] > ACC(0) ? sh2[0] / sh0[0] : ACC(0));
#else
            vec_set(pc.s1, r, sh0[0]);
            vec_set(pc.s2, r, sh1[0]);
#endif
        }
        barrier();  // sh is written again by the next row
    }
}
#endif

#else
// ---------------------------------------------------------------- elementwise
// elements an invocation loads before it stores (norm.c)
#ifndef EW_UNROLL
#define EW_UNROLL 4
#endif
void main() {
    uint64_t numel = uint64_t(np(NP_NUMEL)), rdiv = uint64_t(np(NP_ROW_DIV)), rows = uint64_t(np(NP_ROWS));
    uint64_t cdiv = uint64_t(np(NP_COL_DIV)), cols = uint64_t(np(NP_COLS));
#if MODE == 3
    ACC ik = np_scalar(NP_INV_K);
#endif
#if FASTDIV
    uint64_t mg_rdiv = uint64_t(np(NP_MG_ROW_DIV)), mg_rows = uint64_t(np(NP_MG_ROWS));
    uint64_t mg_cdiv = uint64_t(np(NP_MG_COL_DIV)), mg_cols = uint64_t(np(NP_MG_COLS));
#endif
    // EW_UNROLL elements an invocation at a time, a grid's width apart (each
    // load instruction reads neighbouring addresses across the lanes): their
    // loads first, then the stores, so that the loads are in flight together
    // (a store between them would hold the next load back: the compiler
    // cannot tell that y does not alias x)
    const uint64_t width = uint64_t(gl_NumWorkGroups.x) * uint64_t(RS_WG);
    for (uint64_t e0 = uint64_t(gl_GlobalInvocationID.x); e0 < numel; e0 += width * uint64_t(EW_UNROLL)) {
        ACC xs[EW_UNROLL];
        uint64_t rs[EW_UNROLL], cs[EW_UNROLL];
#if MODE == 3
        ACC gs[EW_UNROLL];
#endif
        [[unroll]] for (int u = 0; u < EW_UNROLL; ++u) {
            const uint64_t e = e0 + uint64_t(u) * width;
            if (e >= numel) break;
#if FASTDIV
            uint qr = rs_fastdiv(uint(e), mg_rdiv), qc = rs_fastdiv(uint(e), mg_cdiv);
            rs[u] = uint64_t(qr - rs_fastdiv(qr, mg_rows) * uint(rows));
            cs[u] = uint64_t(qc - rs_fastdiv(qc, mg_cols) * uint(cols));
#else
            uint64_t q = e, unused;
            rs_divmod(q, rdiv, unused);
            rs_divmod(q, rows, rs[u]);
            q = e;
            rs_divmod(q, cdiv, unused);
            rs_divmod(q, cols, cs[u]);
#endif
            xs[u] = RS_LDO(DT)(pc.x, int64_t(e));
#if MODE == 3
            gs[u] = RS_LDO(DT)(pc.g, int64_t(e));
#endif
        }
        [[unroll]] for (int u = 0; u < EW_UNROLL; ++u) {
            const uint64_t e = e0 + uint64_t(u) * width;
            if (e >= numel) break;
            const int64_t r = int64_t(rs[u]), c = int64_t(cs[u]);
            ACC xhat = (xs[u] - vec_at(pc.a, r, ACC(0))) * vec_at(pc.b, r, ACC(1));
#if MODE == 1
            ACC y = xhat * vec_at(pc.w, c, ACC(1)) + vec_at(pc.bias, c, ACC(0));
#else
            // precise: no fused multiply-add across the terms. g w fused into
            // the subtraction of s1 k (which holds the rounded g w when a row
            // has one element) would leave g w's rounding error where the
            // gradient is exactly 0 (the H200's compiler fuses; lavapipe's not)
            precise ACC gw = gs[u] * vec_at(pc.w, c, ACC(1));
            precise ACC y = (gw - vec_at(pc.s1, r, ACC(0)) * ik - xhat * (vec_at(pc.s2, r, ACC(0)) * ik)) *
                    vec_at(pc.b, r, ACC(1)) * vec_at(pc.bias, c, ACC(1));
#endif
            n_store(pc.y, int64_t(e), y);
        }
    }
}
#endif
