// conv.comp: convolution as an implicit GEMM (src/engine/conv.c; contract
// in russet/conv.h, rs_conv). No im2col buffer: the GEMM operands are gathered
// from the tensors as the tiles are loaded. The geometry (the three products,
// the tables of row and k parts) is common/conv_geom.glsl's; MODE 3 is
// a split product's second pass:
//   3 split sum    y, dx or dw (SUM_OF: the product's MODE) = the sum, in
//                  split order, of the partial sums (plus the bias: y)
// A sum has one order whatever the device, so results repeat bit for bit;
// no atomics.
//
// Defines: DT (dtype), MODE, TM, TN (each invocation's block of the tile:
// BM = WY TM rows, BN = WX TN columns), WX (16, 4 or 1), BK (slice depth),
// A_KF / B_KF (1: consecutive invocations load consecutive k of that
// operand, for views whose k runs along memory; 0: consecutive
// rows/columns), K_CF (k's (channel, kernel offset) pairs run channel
// fastest: channels_last), VW (4: shared tiles as vec4, float family with
// TM, TN multiples of 4), SPLIT (partial sums of each split of k to `part`),
// ACCB (bytes of ACC), SUM2 (float sums in two levels: per slice, then the
// total).
#version 460
#include "common/gemm.glsl"
#include "params/conv.h"

#define NT 256u
layout(local_size_x = NT) in;

layout(push_constant) uniform Push { RS_CONV_PUSH } pc;

// a partial sum (ACC; ACCB bytes) at element e of `part`
layout(buffer_reference, std430, buffer_reference_align = 4) buffer PartEl { ACC v; };
PartEl part_at(int64_t e) { return PartEl(pc.part + uint64_t(e) * uint64_t(ACCB)); }

#if MODE <= 2
#if SPLIT
#define SPLITS_ON 1
#else
#define SPLITS_ON 0
#endif

// WX invocations across the tile's columns, WY = 256 / WX down its rows
// (WX 4 or 1 for products only a few columns wide: depthwise, few channels)
#ifndef WX
#define WX 16u
#endif
#define WY (NT / WX)
#define BM (WY * TM)
#define BN (WX * TN)
#if VW == 4
#define ACCV vec4
#define LANE(x, i) x[(i) / 4][(i) % 4]
#define SH_SET(arr, kk, x, W, v) arr[(kk) * ((W) / 4u) + (x) / 4u][(x) % 4u] = (v)
#else
#define ACCV ACC
#define LANE(x, i) x[i]
#define SH_SET(arr, kk, x, W, v) arr[(kk) * (W) + (x)] = (v)
#endif
shared ACCV As[BK * BM / VW];
shared ACCV Bs[BK * BN / VW];

#include "common/conv_geom.glsl"

uint64_t a_base, b_base;

ACC load_a(uint mm, uint kk, uint buf) {
    const int64_t off = a_off(mm, kk, buf);
    return off < 0L ? ACC(0) : gm_load(a_base, off);
}

ACC load_b(uint nn, uint kk, uint buf) {
    const int64_t off = b_off(nn, kk, buf);
    return off < 0L ? ACC(0) : gm_load(b_base, off);
}

// elements of a slice per invocation (a narrow B tile leaves some idle)
#define NEA ((BM * BK + NT - 1u) / NT)
#define NEB ((BN * BK + NT - 1u) / NT)
#define A_IN(i) (NEA * NT == BM * BK || (i) < BM * BK)
#define B_IN(i) (NEB * NT == BN * BK || (i) < BN * BK)
#if A_KF
#define A_EL(i, mm, kk) const uint kk = (i) % BK, mm = (i) / BK
#else
#define A_EL(i, mm, kk) const uint mm = (i) % BM, kk = (i) / BM
#endif
#if B_KF
#define B_EL(i, nn, kk) const uint kk = (i) % BK, nn = (i) / BK
#else
#define B_EL(i, nn, kk) const uint nn = (i) % BN, kk = (i) / BN
#endif

void main() {
    read_params();
    const uint tid = gl_LocalInvocationIndex;
    const uint tx = tid % WX, ty = tid / WX;
    const int64_t tiles_m = cp(CP_TILES_M), tiles_n = cp(CP_TILES_N);
    const int64_t splits = cp(CP_SPLITS), kps = cp(CP_KPS);
    const int64_t nz = ngroups * splits * cp(CP_CLASSES);
    const int64_t esz = int64_t(RS_SIZE(DT));

    for (int64_t z = int64_t(gl_WorkGroupID.z); z < nz; z += int64_t(gl_NumWorkGroups.z))
    for (int64_t tmi = int64_t(gl_WorkGroupID.y); tmi < tiles_m; tmi += int64_t(gl_NumWorkGroups.y))
    for (int64_t tni = int64_t(gl_WorkGroupID.x); tni < tiles_n; tni += int64_t(gl_NumWorkGroups.x)) {
        // z: the group, the split of k, then mode 1's stride class
        const int64_t g = z % ngroups, split = z / ngroups % splits;
        const int64_t row0 = tmi * int64_t(BM), col0 = tni * int64_t(BN);
#if MODE == 1
        set_class(z / ngroups / splits);
        if (row0 >= M) continue;
#endif
        uint64_t c_base;
        group_bases(g, esz, a_base, b_base, c_base);
        const int64_t kbeg = split * kps, kend = min(K, kbeg + kps);

        barrier();  // the previous tile's readers are done with the tables
        build_tables(tid, row0, col0);
        build_k(tid, kbeg, kend, 0u);
        barrier();

        ACC acc[TM][TN];
        [[unroll]] for (uint i = 0u; i < TM; ++i)
            [[unroll]] for (uint j = 0u; j < TN; ++j) acc[i][j] = ACC(0);
        ACC ra[NEA], rb[NEB];
#define LOAD_SLICE(buf_)                                                                   \
        [[unroll]] for (uint q = 0u; q < NEA; ++q)                                         \
            if (A_IN(tid + q * NT)) { A_EL(tid + q * NT, mm, kk); ra[q] = load_a(mm, kk, buf_); } \
        [[unroll]] for (uint q = 0u; q < NEB; ++q)                                         \
            if (B_IN(tid + q * NT)) { B_EL(tid + q * NT, nn, kk); rb[q] = load_b(nn, kk, buf_); }
        LOAD_SLICE(0u)
        uint buf = 0u;
        for (int64_t k0 = kbeg; k0 < kend; k0 += int64_t(BK)) {
            barrier();
            [[unroll]] for (uint q = 0u; q < NEA; ++q)
                if (A_IN(tid + q * NT)) { A_EL(tid + q * NT, mm, kk); SH_SET(As, kk, mm, BM, ra[q]); }
            [[unroll]] for (uint q = 0u; q < NEB; ++q)
                if (B_IN(tid + q * NT)) { B_EL(tid + q * NT, nn, kk); SH_SET(Bs, kk, nn, BN, rb[q]); }
            const bool more = k0 + int64_t(BK) < kend;
            if (more) build_k(tid, k0 + int64_t(BK), kend, buf ^ 1u);
            barrier();
            // the next slice's loads overlap this slice's products
            if (more) { LOAD_SLICE(buf ^ 1u) }
#if SUM2
            // each slice sums apart, then adds to the total: two levels,
            // whose rounding error grows with BK + K / BK terms, not K
            // (as CPU's blocked products; ResNet's stem gradient sums 784)
            ACC sl[TM][TN];
            [[unroll]] for (uint i = 0u; i < TM; ++i)
                [[unroll]] for (uint j = 0u; j < TN; ++j) sl[i][j] = ACC(0);
#define SUM_INTO sl
#else
#define SUM_INTO acc
#endif
            [[unroll]] for (uint kk = 0u; kk < BK; ++kk) {
                ACCV av[TM / VW], bv[TN / VW];
                [[unroll]] for (uint i = 0u; i < TM / VW; ++i) av[i] = As[kk * (BM / VW) + ty * (TM / VW) + i];
                [[unroll]] for (uint j = 0u; j < TN / VW; ++j) bv[j] = Bs[kk * (BN / VW) + tx * (TN / VW) + j];
                [[unroll]] for (uint i = 0u; i < TM; ++i)
                    [[unroll]] for (uint j = 0u; j < TN; ++j)
                        SUM_INTO[i][j] = gm_mad(LANE(av, i), LANE(bv, j), SUM_INTO[i][j]);
            }
#if SUM2
            [[unroll]] for (uint i = 0u; i < TM; ++i)
                [[unroll]] for (uint j = 0u; j < TN; ++j) acc[i][j] += sl[i][j];
#endif
            buf ^= 1u;
        }

        // the result: the bias (mode 0) added in ACC, one rounding
        [[unroll]] for (uint i = 0u; i < TM; ++i) {
            const uint mm = ty * TM + i;
            const int64_t m = row0 + int64_t(mm);
            if (m >= M) break;
            [[unroll]] for (uint j = 0u; j < TN; ++j) {
                const uint nn = tx * TN + j;
                const int64_t col = col0 + int64_t(nn);
                if (col >= NC) break;
                ACC v = acc[i][j];
#if SPLITS_ON
                part_at(((split * ngroups + g) * M + m) * NC + col).v = v;
#else
#if MODE == 0
                if (pc.bias != 0UL) v = v + gm_load(pc.bias, g * og + col);
#endif
                gm_store(c_base, rc_off[mm] + cc_off[nn], v);
#endif
            }
        }
    }
}

#else  // MODE == 3: the split sums, in order, into the product's result
#include "common/conv_geom.glsl"

void main() {
    read_params();
#if SUM_OF == 1
    set_class(0L);  // (split only where there is one class)
#endif
    const int64_t splits = cp(CP_SPLITS);
    const int64_t total = ngroups * M * NC;
    const int64_t step = int64_t(gl_NumWorkGroups.x) * int64_t(NT);
    for (int64_t e = int64_t(gl_GlobalInvocationID.x); e < total; e += step) {
        ACC v = ACC(0);
        for (int64_t s = 0L; s < splits; ++s) v = v + part_at(s * total + e).v;
        uint64_t u = uint64_t(e), col, m;
        rs_divmod(u, uint64_t(NC), col);
        rs_divmod(u, uint64_t(M), m);
        const int64_t g = int64_t(u);
#if SUM_OF == 0  // y[n, g og + col, p] (+ the bias), rows m = (n, p)
        int64_t n; ivec3 pos;
        unflat_np(int64_t(m), osz, n, pos);
        if (pc.bias != 0UL) v = v + gm_load(pc.bias, g * og + int64_t(col));
        gm_store(pc.y, n * ys[0] + (g * og + int64_t(col)) * ys[1] + dot5(pos, ys), v);
#elif SUM_OF == 1  // dx[n, g cg + col, i], rows m = (n, i) of the one class
        int64_t n; ivec3 i;
        class_row(int64_t(m), n, i);
        gm_store(pc.x, n * xs[0] + (g * cg + int64_t(col)) * xs[1] + dot5(i, xs), v);
#else  // dw[g og + m, c, r], columns (c, r)
        int64_t c; ivec3 r;
        unflat_cr(int64_t(col), cg, c, r);
        gm_store(pc.w, (g * og + int64_t(m)) * ws[0] + c * ws[1] + dot5(r, ws), v);
#endif
    }
}
#endif
