// gemm.comp: C[z] = beta * Cin[z] + alpha * A[z] @ B[z] over strided views
// (see rs_gemm in russet/gemm.h; parameter block in params/gemm.h).
//
// Defines: DT (dtype code of A and B), C_DT (of C and Cin: DT, or float32
// for float16/bfloat16 operands; common/gemm.glsl), KIND:
//   0  tiled: a 256-invocation workgroup computes a BM x BN tile of C,
//      BM = 16 * TM, BN = 16 * TN, each invocation a TM x TN block of it;
//      BK-deep slices of A and B are staged in shared memory (zero-filled
//      past the edges). VW = 4 stores float tiles as vec4, so that the
//      inner loop reads shared memory 16 bytes at a time. A_KC / B_NC say
//      which dimension of A (k) and B (n) has stride 1, so that the tile
//      loads are coalesced whatever the operands' layout. VLOAD = 1 (float
//      family, aligned, the stride-1 extent a multiple of 4) loads 4
//      elements at once (one 16-byte load for float32).
//      With VW = 4 an invocation's TM rows are TM / 4 runs of 4, 64 rows
//      apart (rows 4 ty .. 4 ty + 3, 64 + 4 ty ..), and its TN columns
//      likewise, and each k row of the tiles is swizzled in vec4 units
//      (SWZ): the fragment reads and the transposing stores of the slices
//      then meet no shared-memory bank twice (32 banks of 4 bytes).
//   1  dot: one workgroup per element of C, its invocations splitting k,
//      then a tree sum in shared memory (matrix-vector, dot, tiny m or n).
//   2  split k's second pass: the chunks' partial products (KIND 0 with
//      PART = 1 runs them as a batch into float32 scratch) added in chunk
//      order, then the epilogue (float32, float16, bfloat16).
// Nothing assumes the subgroup size. The workgroup grid is clamped by the
// host; every loop below strides by the grid, so any size is covered.
#version 460
#include "common/gemm.glsl"
#include "common/index.glsl"
#ifndef PART
#define PART 0
#endif
// split k's partial products: float32 (the float family's ACC) whatever DT
layout(buffer_reference, std430, buffer_reference_align = 4) buffer RsPart { float v; };
RsPart part_at(uint64_t base, int64_t e) { return RsPart(base + uint64_t(e) * 4UL); }

#define NT 256
layout(local_size_x = NT) in;
layout(push_constant) uniform Push { GemmParams p; } pc;

#if KIND == 0
#define WX 16u
#define WY 16u
#define BM (WY * TM)
#define BN (WX * TN)
#if VW == 4
#define ACCV vec4
#define LANE(x, i) x[(i) / 4][(i) % 4]
// The vec4 column of a tile's k row kk holding quad q: quads XORed with
// (kk / 4) * (32 / BK) mod 8. A subgroup's transposing stores (32 quads
// along k: 128 / BK tile rows, BK / 4 quads each; a store writes element e
// of each) then land in 32 distinct banks. Fragment reads stay within a
// run of 16 quads (4 ty + 0..15 xor < 8), so they remain distinct.
// (BK is 8, 16 or 32: src/engine/gemm.c)
#define SWZ(kk, q) ((q) ^ ((((kk) / 4u) * (32u / BK)) & 7u))
#define SH_SET(arr, kk, x, W, v) arr[(kk) * ((W) / 4u) + SWZ(kk, (x) / 4u)][(x) % 4u] = (v)
// the tile row (column) of an invocation's i-th (j-th) accumulator
#define ROW_OF(i) (((i) / 4u) * (WY * 4u) + ty * 4u + (i) % 4u)
#define COL_OF(j) (((j) / 4u) * (WX * 4u) + tx * 4u + (j) % 4u)
#else
#define ACCV ACC
#define LANE(x, i) x[i]
#define SH_SET(arr, kk, x, W, v) arr[(kk) * (W) + (x)] = (v)
#define ROW_OF(i) (ty * TM + (i))
#define COL_OF(j) (tx * TN + (j))
#endif
shared ACCV As[BK * BM / VW];
shared ACCV Bs[BK * BN / VW];

#define NEA (BM * BK / NT)  // elements of a slice per invocation (scalar loads)
#define NEB (BN * BK / NT)
#if VLOAD
// Vector loads (the host checked alignment, and that the contiguous extent
// is a multiple of 4, so a quad is wholly inside or outside): 4 consecutive
// elements along the operand's stride-1 dimension.
#define NQA (BM * BK / 4u / NT)
#define NQB (BN * BK / 4u / NT)
layout(buffer_reference, std430, buffer_reference_align = 16) readonly buffer RsF4 { vec4 v; };
layout(buffer_reference, std430, buffer_reference_align = 8) readonly buffer RsU2 { uvec2 v; };
vec4 gm_load4(uint64_t base, int64_t off) {
#if DT == 6
    return RsF4(base + uint64_t(off) * 4UL).v;
#elif DT == 5 || DT == 15
    uvec2 w = RsU2(base + uint64_t(off) * 2UL).v;
#if DT == 5
    return vec4(rs_f16_dec(w.x & 0xFFFFu), rs_f16_dec(w.x >> 16), rs_f16_dec(w.y & 0xFFFFu), rs_f16_dec(w.y >> 16));
#else
    return vec4(rs_bf16_dec(w.x & 0xFFFFu), rs_bf16_dec(w.x >> 16), rs_bf16_dec(w.y & 0xFFFFu), rs_bf16_dec(w.y >> 16));
#endif
#else
    return vec4(gm_load(base, off), gm_load(base, off + 1L), gm_load(base, off + 2L), gm_load(base, off + 3L));
#endif
}
#if A_KC  // quads along k: row mm, k = 4 kq ..
#define A_QUAD(qi, mm, kk4) const uint mm = (qi) / (BK / 4u), kk4 = ((qi) % (BK / 4u)) * 4u
#else     // quads along m
#define A_QUAD(qi, mm, kk4) const uint mm = ((qi) % (BM / 4u)) * 4u, kk4 = (qi) / (BM / 4u)
#endif
#if B_NC  // quads along n
#define B_QUAD(qi, nn, kk4) const uint nn = ((qi) % (BN / 4u)) * 4u, kk4 = (qi) / (BN / 4u)
#else     // quads along k
#define B_QUAD(qi, nn, kk4) const uint nn = (qi) / (BK / 4u), kk4 = ((qi) % (BK / 4u)) * 4u
#endif
#define LOAD_SLICE(k0)                                                                    \
    [[unroll]] for (uint q = 0u; q < NQA; ++q) {                                          \
        A_QUAD(tid + q * NT, mm, kk);                                                     \
        const int64_t gm = row0 + int64_t(mm), gk = (k0) + int64_t(kk);                   \
        ra[q] = (gm < M && gk < K) ? gm_load4(pa, ao + gm * sa1 + gk * sa2) : vec4(0.0);  \
    }                                                                                     \
    [[unroll]] for (uint q = 0u; q < NQB; ++q) {                                          \
        B_QUAD(tid + q * NT, nn, kk);                                                     \
        const int64_t gn = col0 + int64_t(nn), gk = (k0) + int64_t(kk);                   \
        rb[q] = (gn < N && gk < K) ? gm_load4(pb, bo + gk * sb1 + gn * sb2) : vec4(0.0);  \
    }
// (VLOAD implies VW = 4)
#if A_KC
#define STORE_A(q) { A_QUAD(tid + q * NT, mm, kk);                                        \
    [[unroll]] for (uint e = 0u; e < 4u; ++e) SH_SET(As, kk + e, mm, BM, ra[q][e]); }
#else
#define STORE_A(q) { A_QUAD(tid + q * NT, mm, kk); As[kk * (BM / 4u) + SWZ(kk, mm / 4u)] = ra[q]; }
#endif
#if B_NC
#define STORE_B(q) { B_QUAD(tid + q * NT, nn, kk); Bs[kk * (BN / 4u) + SWZ(kk, nn / 4u)] = rb[q]; }
#else
#define STORE_B(q) { B_QUAD(tid + q * NT, nn, kk);                                        \
    [[unroll]] for (uint e = 0u; e < 4u; ++e) SH_SET(Bs, kk + e, nn, BN, rb[q][e]); }
#endif
#define STORE_SLICE()                                                                     \
    [[unroll]] for (uint q = 0u; q < NQA; ++q) STORE_A(q)                                 \
    [[unroll]] for (uint q = 0u; q < NQB; ++q) STORE_B(q)

#else  // scalar loads, any strides
#if A_KC
#define A_EL(i, mm, kk) const uint kk = (i) % BK, mm = (i) / BK
#else
#define A_EL(i, mm, kk) const uint mm = (i) % BM, kk = (i) / BM
#endif
#if B_NC
#define B_EL(i, nn, kk) const uint nn = (i) % BN, kk = (i) / BN
#else
#define B_EL(i, nn, kk) const uint kk = (i) % BK, nn = (i) / BK
#endif
#define LOAD_SLICE(k0)                                                                    \
    [[unroll]] for (uint q = 0u; q < NEA; ++q) {                                          \
        A_EL(tid + q * NT, mm, kk);                                                       \
        const int64_t gm = row0 + int64_t(mm), gk = (k0) + int64_t(kk);                   \
        ACC v = ACC(0);                                                                   \
        if (gm < M && gk < K) {                                                           \
            v = gm_load(pa, ao + gm * sa1 + gk * sa2);                                    \
            if (conja) v = gm_conj(v);                                                    \
        }                                                                                 \
        ra[q] = v;                                                                        \
    }                                                                                     \
    [[unroll]] for (uint q = 0u; q < NEB; ++q) {                                          \
        B_EL(tid + q * NT, nn, kk);                                                       \
        const int64_t gn = col0 + int64_t(nn), gk = (k0) + int64_t(kk);                   \
        ACC v = ACC(0);                                                                   \
        if (gn < N && gk < K) {                                                           \
            v = gm_load(pb, bo + gk * sb1 + gn * sb2);                                    \
            if (conjb) v = gm_conj(v);                                                    \
        }                                                                                 \
        rb[q] = v;                                                                        \
    }
#define STORE_SLICE()                                                                     \
    [[unroll]] for (uint q = 0u; q < NEA; ++q) { A_EL(tid + q * NT, mm, kk); SH_SET(As, kk, mm, BM, ra[q]); } \
    [[unroll]] for (uint q = 0u; q < NEB; ++q) { B_EL(tid + q * NT, nn, kk); SH_SET(Bs, kk, nn, BN, rb[q]); }
#endif

// an invocation's fragments of the slice's k row kk (its i-th run of rows, j-th of columns)
#if VW == 4
#define FRAG_A(kk, i) As[(kk) * (BM / 4u) + SWZ(kk, (i) * WY + ty)]
#define FRAG_B(kk, j) Bs[(kk) * (BN / 4u) + SWZ(kk, (j) * WX + tx)]
#else
#define FRAG_A(kk, i) As[(kk) * BM + ty * TM + (i)]
#define FRAG_B(kk, j) Bs[(kk) * BN + tx * TN + (j)]
#endif

void main() {
    GemmParams p = pc.p;
    const uint tid = gl_LocalInvocationIndex;
    const uint tx = tid % WX, ty = tid / WX;
    const int64_t M = p.m, N = p.n, K = p.k;
    const uint flags = p.flags;
    const bool reduce = (flags & GF_REDUCE) != 0u;
    const bool conja = (flags & GF_CONJ_A) != 0u, conjb = (flags & GF_CONJ_B) != 0u;
    const int64_t nz = reduce ? 1L : p.batch, nr = reduce ? p.batch : 1L;
    const uint64_t pa = p.a, pb = p.b;
    const int64_t sa0 = p.sa[0], sa1 = p.sa[1], sa2 = p.sa[2];
    const int64_t sb0 = p.sb[0], sb1 = p.sb[1], sb2 = p.sb[2];
    const int64_t tiles_m = p.tiles_m, tiles_n = p.tiles_n;

    for (int64_t z = int64_t(gl_WorkGroupID.z); z < nz; z += int64_t(gl_NumWorkGroups.z))
    for (int64_t tmi = int64_t(gl_WorkGroupID.y); tmi < tiles_m; tmi += int64_t(gl_NumWorkGroups.y))
    for (int64_t tni = int64_t(gl_WorkGroupID.x); tni < tiles_n; tni += int64_t(gl_NumWorkGroups.x)) {
        const int64_t row0 = tmi * int64_t(BM), col0 = tni * int64_t(BN);
        ACC acc[TM][TN];
        [[unroll]] for (uint i = 0u; i < TM; ++i)
            [[unroll]] for (uint j = 0u; j < TN; ++j) acc[i][j] = ACC(0);

        for (int64_t r = 0L; r < nr; ++r) {
            const int64_t bz = reduce ? r : z;
            const int64_t ao = bz * sa0, bo = bz * sb0;
            // The next slice's global loads are issued into registers before
            // the current slice is multiplied, so their latency overlaps it.
#if VLOAD
            vec4 ra[NQA], rb[NQB];
#else
            ACC ra[NEA], rb[NEB];
#endif
            LOAD_SLICE(0L)
            for (int64_t k0 = 0L; k0 < K; k0 += int64_t(BK)) {
                barrier();
                STORE_SLICE()
                barrier();
                if (k0 + int64_t(BK) < K) { LOAD_SLICE(k0 + int64_t(BK)) }
                [[unroll]] for (uint kk = 0u; kk < BK; ++kk) {
                    ACCV av[TM / VW], bv[TN / VW];
                    [[unroll]] for (uint i = 0u; i < TM / VW; ++i) av[i] = FRAG_A(kk, i);
                    [[unroll]] for (uint j = 0u; j < TN / VW; ++j) bv[j] = FRAG_B(kk, j);
                    [[unroll]] for (uint i = 0u; i < TM; ++i)
                        [[unroll]] for (uint j = 0u; j < TN; ++j)
                            acc[i][j] = gm_mad(LANE(av, i), LANE(bv, j), acc[i][j]);
                }
            }
        }

        const ACC al = gm_scalar(p.alpha[0], p.alpha[1]), be = gm_scalar(p.beta[0], p.beta[1]);
        const bool usec = (flags & GF_USE_CIN) != 0u;
        [[unroll]] for (uint i = 0u; i < TM; ++i) {
            const int64_t gm = row0 + int64_t(ROW_OF(i));
            if (gm >= M) break;  // rows and columns grow with i and j
            [[unroll]] for (uint j = 0u; j < TN; ++j) {
                const int64_t gn = col0 + int64_t(COL_OF(j));
                if (gn >= N) break;
                ACC cv = ACC(0);
                if (usec) cv = gm_cload(p.cin, z * p.sci[0] + gm * p.sci[1] + gn * p.sci[2]);
#if PART  // split k: the raw float32 partial product
                part_at(p.c, z * p.sc[0] + gm * p.sc[1] + gn * p.sc[2]).v = acc[i][j];
#else
                gm_store(p.c, z * p.sc[0] + gm * p.sc[1] + gn * p.sc[2], gm_axpby(al, acc[i][j], be, cv, usec));
#endif
            }
        }
    }
}

#elif KIND == 2  // the sum of split-k partial products (src/engine/gemm.c, run_split)

// a: the partials, contiguous (batch = splits, M, N), float32; c, cin,
// alpha, beta and flags those of the product
void main() {
    GemmParams p = pc.p;
    const int64_t M = p.m, N = p.n, MN = M * N, splits = p.batch;
    const ACC al = gm_scalar(p.alpha[0], p.alpha[1]), be = gm_scalar(p.beta[0], p.beta[1]);
    const bool usec = (p.flags & GF_USE_CIN) != 0u;
    for (int64_t e = int64_t(gl_GlobalInvocationID.x); e < MN; e += int64_t(gl_NumWorkGroups.x) * int64_t(NT)) {
        const int64_t gm = e / N, gn = e % N;
        ACC acc = ACC(0);
        for (int64_t sp = 0L; sp < splits; ++sp) acc += part_at(p.a, sp * MN + e).v;
        ACC cv = ACC(0);
        if (usec) cv = gm_cload(p.cin, gm * p.sci[1] + gn * p.sci[2]);
        gm_store(p.c, gm * p.sc[1] + gn * p.sc[2], gm_axpby(al, acc, be, cv, usec));
    }
}

#else  // KIND == 1: dot

shared ACC red[NT];

void main() {
    GemmParams p = pc.p;
    const uint tid = gl_LocalInvocationIndex;
    const int64_t M = p.m, N = p.n, K = p.k;
    const uint flags = p.flags;
    const bool reduce = (flags & GF_REDUCE) != 0u;
    const bool conja = (flags & GF_CONJ_A) != 0u, conjb = (flags & GF_CONJ_B) != 0u;
    const int64_t nz = reduce ? 1L : p.batch, nr = reduce ? p.batch : 1L;
    const int64_t total = nz * M * N;
    const int64_t nwg = int64_t(gl_NumWorkGroups.x) * int64_t(gl_NumWorkGroups.y);
    const ACC al = gm_scalar(p.alpha[0], p.alpha[1]), be = gm_scalar(p.beta[0], p.beta[1]);
    const bool usec = (flags & GF_USE_CIN) != 0u;

    for (int64_t o = int64_t(gl_WorkGroupID.x) + int64_t(gl_WorkGroupID.y) * int64_t(gl_NumWorkGroups.x);
         o < total; o += nwg) {
        uint64_t t = uint64_t(o), gn, gm;
        rs_divmod(t, uint64_t(N), gn);
        rs_divmod(t, uint64_t(M), gm);
        const int64_t z = int64_t(t);
        ACC acc = ACC(0);
        for (int64_t r = 0L; r < nr; ++r) {
            const int64_t bz = reduce ? r : z;
            const int64_t ao = bz * p.sa[0] + int64_t(gm) * p.sa[1];
            const int64_t bo = bz * p.sb[0] + int64_t(gn) * p.sb[2];
            for (int64_t kk = int64_t(tid); kk < K; kk += int64_t(NT)) {
                ACC a = gm_load(p.a, ao + kk * p.sa[2]);
                ACC b = gm_load(p.b, bo + kk * p.sb[1]);
                if (conja) a = gm_conj(a);
                if (conjb) b = gm_conj(b);
                acc = gm_mad(a, b, acc);
            }
        }
        red[tid] = acc;
        barrier();
        for (uint s = NT / 2u; s > 0u; s >>= 1) {
            if (tid < s) red[tid] = GM_ADD(red[tid], red[tid + s]);
            barrier();
        }
        if (tid == 0u) {
            ACC cv = ACC(0);
            if (usec) cv = gm_cload(p.cin, z * p.sci[0] + int64_t(gm) * p.sci[1] + int64_t(gn) * p.sci[2]);
            gm_store(p.c, z * p.sc[0] + int64_t(gm) * p.sc[1] + int64_t(gn) * p.sc[2],
                     gm_axpby(al, red[0], be, cv, usec));
        }
        barrier();
    }
}
#endif
