// conv.comp: convolution as an implicit GEMM (src/engine/conv.c; contract
// in russet/conv.h, rs_conv). No im2col buffer: the GEMM operands are gathered
// from the tensors as the tiles are loaded.
//
// Every view is (N, C, D, H, W) with any strides; 1-d and 2-d convolutions
// arrive with unit leading spatial dims. Per group g (and, for the weight
// gradient, per split of k), MODE picks the product:
//   0 forward      y[n, o, p]  = sum_{c, r} x[n, c, p s - pad + r dil] w[o, c, r]
//                  rows m = (n, p), cols j = o, k = (c, r)
//   1 grad input   dx[n, c, i] = sum_{o, r} dy[n, o, (i + pad - r dil) / s] w[o, c, r]
//                  (only where s divides and the output position exists)
//                  rows m = (n, i), cols j = c, k = (o, r)
//   2 grad weight  dw[o, c, r] = sum_{n, p} dy[n, o, p] x[n, c, p s - pad + r dil]
//                  rows m = o, cols j = (c, r), k = (n, p)
//   3 split sum    dw = the sum, in split order, of mode 2's partial sums
// A sum has one order whatever the device, so results repeat bit for bit;
// no atomics.
//
// The operands' addressing is separable: an element's offset is a part
// that depends on its row (or column) plus a part that depends on k, and a
// window operand also adds positions: q (from the row) + p (from k) must
// lie inside the tensor (x, modes 0 and 2), or q - p must be a multiple of
// the stride whose quotient is an output position (dy, mode 1). The row
// parts are tabulated in shared memory once per tile, the k parts once per
// BK-deep slice (two buffers: one is built while the other is read), so a
// load costs two table reads and no division (mode 1 divides by the
// stride to find the output position).
//
// Defines: DT (dtype), MODE, TM, TN (each invocation's block of the tile:
// BM = WY TM rows, BN = WX TN columns), WX (16, 4 or 1), BK (slice depth),
// A_KF / B_KF (1: consecutive invocations load consecutive k of that
// operand, for views whose k runs along memory; 0: consecutive
// rows/columns), K_CF (k's (channel, kernel offset) pairs run channel
// fastest: channels_last), VW (4: shared tiles as vec4, float family with
// TM, TN multiples of 4), SPLIT (mode 2 writes partial sums to `part`),
// ACCB (bytes of ACC), SUM2 (float sums in two levels: per slice, then the
// total).
#version 460
#include "common/gemm.glsl"
#include "common/index.glsl"
#include "params/conv.h"

#define NT 256u
layout(local_size_x = NT) in;

layout(push_constant) uniform Push { RS_CONV_PUSH } pc;

int64_t cp(int slot) { return RsI64(pc.params + 8UL * uint64_t(slot)).v; }

// a partial sum (ACC; ACCB bytes) at element e of `part`
layout(buffer_reference, std430, buffer_reference_align = 4) buffer PartEl { ACC v; };
PartEl part_at(int64_t e) { return PartEl(pc.part + uint64_t(e) * uint64_t(ACCB)); }

// geometry, read once
int64_t nb, cg, og, ngroups, M, NC, K;
ivec3 isz, osz, ksz, str, pad, dil;
int64_t xs[5], ws[5], ys[5];

void read_params() {
    nb = cp(CP_N); cg = cp(CP_CG); og = cp(CP_OG); ngroups = cp(CP_G);
    for (int j = 0; j < 3; ++j) {
        isz[j] = int(cp(CP_IN + j)); osz[j] = int(cp(CP_OUT + j)); ksz[j] = int(cp(CP_KER + j));
        str[j] = int(cp(CP_STRIDE + j)); pad[j] = int(cp(CP_PAD + j)); dil[j] = int(cp(CP_DIL + j));
    }
    for (int j = 0; j < 5; ++j) { xs[j] = cp(CP_XS + j); ws[j] = cp(CP_WS + j); ys[j] = cp(CP_YS + j); }
    M = cp(CP_M); NC = cp(CP_NC); K = cp(CP_K);
}

int64_t kvol() { return int64_t(ksz[0]) * int64_t(ksz[1]) * int64_t(ksz[2]); }

// position (d, h, w) of flat index t in a volume of sizes sz
ivec3 unflat3(int64_t t, ivec3 sz) {
    uint64_t u = uint64_t(t), r;
    ivec3 v;
    rs_divmod(u, uint64_t(sz[2]), r); v[2] = int(r);
    rs_divmod(u, uint64_t(sz[1]), r); v[1] = int(r);
    v[0] = int(u);
    return v;
}

// (n, spatial position) of a flat (n, volume) index
void unflat_np(int64_t t, ivec3 sz, out int64_t n, out ivec3 pos) {
    uint64_t u = uint64_t(t), r;
    rs_divmod(u, uint64_t(sz[0]) * uint64_t(sz[1]) * uint64_t(sz[2]), r);
    n = int64_t(u);
    pos = unflat3(int64_t(r), sz);
}

// k (or mode 2's column) as (channel, kernel offset): channel-major, or
// channel fastest (K_CF)
void unflat_cr(int64_t t, int64_t channels, out int64_t c, out ivec3 r) {
    uint64_t u = uint64_t(t), rem;
#if K_CF
    rs_divmod(u, uint64_t(channels), rem);
    c = int64_t(rem);
    r = unflat3(int64_t(u), ksz);
#else
    rs_divmod(u, uint64_t(kvol()), rem);
    c = int64_t(u);
    r = unflat3(int64_t(rem), ksz);
#endif
}

int64_t dot5(ivec3 pos, int64_t s[5]) { return int64_t(pos[0]) * s[2] + int64_t(pos[1]) * s[3] + int64_t(pos[2]) * s[4]; }

#if MODE <= 2
#if MODE == 2 && SPLIT
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

// the tables: an offset (-1: outside the product) and positions
shared int64_t ra_off[BM], rb_off[BN], rc_off[BM], cc_off[BN];
shared ivec3 ra_q[BM], rb_q[BN];
shared int64_t ka_off[2][BK], kb_off[2][BK];
shared ivec3 ka_p[2][BK], kb_p[2][BK];

// ---- the row/column parts (per tile) and the k parts (per slice)
// A's row m
void a_row(int64_t m, out int64_t off, out ivec3 q) {
    q = ivec3(0);
    off = -1L;
    if (m >= M) return;
#if MODE == 0  // x at (n, p s - pad)
    int64_t n; ivec3 p;
    unflat_np(m, osz, n, p);
    off = n * xs[0];
    q = p * str - pad;
#elif MODE == 1  // dy at (n, (i + pad - r dil) / s)
    int64_t n; ivec3 i;
    unflat_np(m, isz, n, i);
    off = n * ys[0];
    q = i + pad;
#else  // dy's channel o
    off = m * ys[1];
#endif
}

// B's column j
void b_row(int64_t j, out int64_t off, out ivec3 q) {
    q = ivec3(0);
    off = -1L;
    if (j >= NC) return;
#if MODE == 0  // w's output channel
    off = j * ws[0];
#elif MODE == 1  // w's input channel
    off = j * ws[1];
#else  // x at channel c, kernel offset r
    int64_t c; ivec3 r;
    unflat_cr(j, cg, c, r);
    off = c * xs[1];
    q = r * dil;
#endif
}

void a_k(int64_t k, int64_t kend, out int64_t off, out ivec3 p) {
    p = ivec3(0);
    off = -1L;
    if (k >= kend) return;
#if MODE == 0
    int64_t c; ivec3 r;
    unflat_cr(k, cg, c, r);
    off = c * xs[1];
    p = r * dil;
#elif MODE == 1
    int64_t o; ivec3 r;
    unflat_cr(k, og, o, r);
    off = o * ys[1];
    p = r * dil;
#else  // dy at (n, p)
    int64_t n; ivec3 q;
    unflat_np(k, osz, n, q);
    off = n * ys[0] + dot5(q, ys);
#endif
}

void b_k(int64_t k, int64_t kend, out int64_t off, out ivec3 p) {
    p = ivec3(0);
    off = -1L;
    if (k >= kend) return;
#if MODE == 0
    int64_t c; ivec3 r;
    unflat_cr(k, cg, c, r);
    off = c * ws[1] + dot5(r, ws);
#elif MODE == 1
    int64_t o; ivec3 r;
    unflat_cr(k, og, o, r);
    off = o * ws[0] + dot5(r, ws);
#else  // x at (n, p s - pad)
    int64_t n; ivec3 q;
    unflat_np(k, osz, n, q);
    off = n * xs[0];
    p = q * str - pad;
#endif
}

// ---- element loads from the tables
// a window of x: position q + p inside the input
ACC load_window(uint64_t base, int64_t ro, ivec3 q, int64_t ko, ivec3 p) {
    ivec3 pos = q + p;
    if (ro < 0L || ko < 0L || any(lessThan(pos, ivec3(0))) || any(greaterThanEqual(pos, isz))) return ACC(0);
    return gm_load(base, ro + ko + dot5(pos, xs));
}

// dy at the output position whose window puts kernel offset p on input q
ACC load_grad_window(uint64_t base, int64_t ro, ivec3 q, int64_t ko, ivec3 p) {
    ivec3 t = q - p;
    if (ro < 0L || ko < 0L || any(lessThan(t, ivec3(0)))) return ACC(0);
    ivec3 o = t / str;
    if (any(notEqual(o * str, t)) || any(greaterThanEqual(o, osz))) return ACC(0);
    return gm_load(base, ro + ko + dot5(o, ys));
}

ACC load_plain(uint64_t base, int64_t ro, int64_t ko) {
    return (ro < 0L || ko < 0L) ? ACC(0) : gm_load(base, ro + ko);
}

uint64_t a_base, b_base;

ACC load_a(uint mm, uint kk, uint buf) {
#if MODE == 0
    return load_window(a_base, ra_off[mm], ra_q[mm], ka_off[buf][kk], ka_p[buf][kk]);
#elif MODE == 1
    return load_grad_window(a_base, ra_off[mm], ra_q[mm], ka_off[buf][kk], ka_p[buf][kk]);
#else
    return load_plain(a_base, ra_off[mm], ka_off[buf][kk]);
#endif
}

ACC load_b(uint nn, uint kk, uint buf) {
#if MODE == 2
    return load_window(b_base, rb_off[nn], rb_q[nn], kb_off[buf][kk], kb_p[buf][kk]);
#else
    return load_plain(b_base, rb_off[nn], kb_off[buf][kk]);
#endif
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

void build_k(uint tid, int64_t k0, int64_t kend, uint buf) {
    if (tid < BK) {
        int64_t off; ivec3 p;
        a_k(k0 + int64_t(tid), kend, off, p);
        ka_off[buf][tid] = off;
        ka_p[buf][tid] = p;
    } else if (tid < 2u * BK) {
        int64_t off; ivec3 p;
        b_k(k0 + int64_t(tid - BK), kend, off, p);
        kb_off[buf][tid - BK] = off;
        kb_p[buf][tid - BK] = p;
    }
}

void main() {
    read_params();
    const uint tid = gl_LocalInvocationIndex;
    const uint tx = tid % WX, ty = tid / WX;
    const int64_t tiles_m = cp(CP_TILES_M), tiles_n = cp(CP_TILES_N);
    const int64_t splits = cp(CP_SPLITS), kps = cp(CP_KPS);
    const int64_t nz = ngroups * splits;
    const int64_t esz = int64_t(RS_SIZE(DT));

    for (int64_t z = int64_t(gl_WorkGroupID.z); z < nz; z += int64_t(gl_NumWorkGroups.z))
    for (int64_t tmi = int64_t(gl_WorkGroupID.y); tmi < tiles_m; tmi += int64_t(gl_NumWorkGroups.y))
    for (int64_t tni = int64_t(gl_WorkGroupID.x); tni < tiles_n; tni += int64_t(gl_NumWorkGroups.x)) {
        const int64_t g = z % ngroups, split = z / ngroups;
        const int64_t row0 = tmi * int64_t(BM), col0 = tni * int64_t(BN);
        // group g's element 0 of each operand
#if MODE == 0
        a_base = pc.x + uint64_t(g * cg * xs[1] * esz);
        b_base = pc.w + uint64_t(g * og * ws[0] * esz);
        const uint64_t c_base = pc.y + uint64_t(g * og * ys[1] * esz);
#elif MODE == 1
        a_base = pc.y + uint64_t(g * og * ys[1] * esz);
        b_base = pc.w + uint64_t(g * og * ws[0] * esz);
        const uint64_t c_base = pc.x + uint64_t(g * cg * xs[1] * esz);
#else
        a_base = pc.y + uint64_t(g * og * ys[1] * esz);
        b_base = pc.x + uint64_t(g * cg * xs[1] * esz);
        const uint64_t c_base = pc.w + uint64_t(g * og * ws[0] * esz);
#endif
        const int64_t kbeg = split * kps, kend = min(K, kbeg + kps);

        barrier();  // the previous tile's readers are done with the tables
        for (uint t = tid; t < BM; t += NT) {
            int64_t off; ivec3 q;
            a_row(row0 + int64_t(t), off, q);
            ra_off[t] = off;
            ra_q[t] = q;
            // the result's row part
            int64_t m = row0 + int64_t(t), co = 0L;
            if (m < M) {
#if MODE == 0
                int64_t n; ivec3 p;
                unflat_np(m, osz, n, p);
                co = n * ys[0] + dot5(p, ys);
#elif MODE == 1
                int64_t n; ivec3 i;
                unflat_np(m, isz, n, i);
                co = n * xs[0] + dot5(i, xs);
#else
                co = m * ws[0];
#endif
            }
            rc_off[t] = co;
        }
        for (uint t = tid; t < BN; t += NT) {
            int64_t off; ivec3 q;
            b_row(col0 + int64_t(t), off, q);
            rb_off[t] = off;
            rb_q[t] = q;
            int64_t j = col0 + int64_t(t), co = 0L;
            if (j < NC) {
#if MODE == 0
                co = j * ys[1];
#elif MODE == 1
                co = j * xs[1];
#else
                int64_t c; ivec3 r;
                unflat_cr(j, cg, c, r);
                co = c * ws[1] + dot5(r, ws);
#endif
            }
            cc_off[t] = co;
        }
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

#else  // MODE == 3: the split sums, in order, into dw

void main() {
    read_params();
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
        int64_t c; ivec3 r;
        unflat_cr(int64_t(col), cg, c, r);
        gm_store(pc.w, (g * og + int64_t(m)) * ws[0] + c * ws[1] + dot5(r, ws), v);
    }
}
#endif
