// attention_tiled.comp: scaled dot-product attention, forward and
// gradients, on register tiles (src/engine/attention.c; contract in
// russet.h, rs_attention), where the blocks below fit 32 KiB of shared
// memory (head dims up to 128 in float32; attention.comp takes the rest,
// forward and backward alike). Memory O(L + S).
//
// A workgroup of 128 invocations, a 16 x 8 grid (ty, tx), owns RB rows (query
// rows in MODE 0 and 2, keys in MODE 3) and keeps their vectors in shared
// memory for the whole loop (q; q and dO; k and v); the other side streams
// through CB rows at a time (k and v, or q and dO). A block's step:
//   1. scores: invocation (ty, tx) computes s (and dp) for rows ty + 16 m and
//      streamed rows tx + 8 n (m < RB / 16, n < CB / 8) from vec4s of the
//      staged rows: TM + TN loads for TM TN dot products of 4;
//   2. one invocation a score: the softmax weight p (and ds), into shared
//      memory transposed ([streamed row][row]);
//   3. the products with the streamed rows: invocation (ty, tx) owns rows
//      ty + 16 m and the vec4 columns tx + 8 n of its outputs (o; dq; dk and
//      dv), and adds p (or ds) times the streamed row, in streamed order.
// Every score is the same chain of fmas over the dims in order, then times
// the scale, plus the mask, in all three modes: the backward's scores are
// the forward's bit for bit, so exp(s - lse) is 1 / l where the forward's
// row maximum was (the gradients amplify any difference). Each output
// element is one invocation's sum in a fixed order: no atomics, the same
// bits every run. Nothing assumes the subgroup size.
//
// MODE 0 forward: online softmax over the key blocks (row maximum, rescaled
//   sum and output; the row's 8 invocations share their partial maxima and
//   sums through shared memory), then out = o / l and lse = m + log l.
// MODE 2 grad q: rows are query rows of one head; dq[i] = scale sum_j ds k[j],
//   p = exp(s - lse[i]), ds = p (dO[i] . v[j] - D[i]).
// MODE 3 grad k and v: rows are keys of one k head, the streamed rows every
//   query row of every q head that reads it; dv[j] = sum_i p dO[i],
//   dk[j] = scale sum_i ds q[i].
// D (rowsum(dO out)) comes from attention.comp's MODE 1.
//
// Defines: DT, MODE (0, 2 or 3), HAS_MASK, DE / DV (the most dims of q/k
// and of v: multiples of 32), ACCB (bytes of ACC), RB (a multiple of 16) and
// CB (of 8).
#version 460
#include "common/attention.glsl"

#define NT 128u
#define TY (NT / 8u)   // rows of the invocation grid (16; 8 columns)
layout(local_size_x = NT) in;
#define TM (RB / TY)   // rows an invocation
#define TN (CB / 8u)   // streamed rows an invocation (scores)
#define DE4 (DE / 4u)  // vec4s a q/k row
#define DV4 (DV / 4u)
#define CE (DE / 32u)  // vec4 columns of a q/k-sized gradient an invocation
#define CV (DV / 32u)

#if MODE == 0 && !RS_IS_DBL(DT)
// the forward's softmax weights: the hardware's exp (a few ulp)
ACC aexp(ACC x) { return exp(x); }
#else
// the backward's probabilities: the correctly rounded exp, since the
// gradients amplify its error
ACC aexp(ACC x) { return rs_op_exp(x); }
#endif

// rows padded by a vec4, so that 8 rows read at once fall in distinct banks
shared ACC4 sr1[RB][DE4 + 1u];  // the workgroup's rows: q (MODE 0, 2) or k (MODE 3)
shared ACC4 sc1[CB][DE4 + 1u];  // the streamed block: k (MODE 0, 2) or q (MODE 3)
shared ACC4 sc2[CB][DV4 + 1u];  //   v (MODE 0, 2) or dO (MODE 3)
#if MODE == 0
shared ACC sp[CB][RB + 1u];     // p, transposed
shared ACC smax[RB][8], ssum[RB][8];  // a row's partial maxima and sums, by tx
#else
shared ACC4 sr2[RB][DV4 + 1u];  //   dO (MODE 2) or v (MODE 3)
shared ACC sds[CB][RB + 1u];    // ds, transposed
#endif
#if MODE == 3
shared ACC sp[CB][RB + 1u];     // p, transposed
shared ACC s_lse[CB], s_d[CB];  // the streamed query rows' lse and D
#endif

// rows r0 .. r0 + R - 1 of a (rows, dims) view into SH, zero past its ends
#define STAGE(SH, W4, R, base, off, rst, dst, n, r0, nrows)                                          \
    for (uint e = tid; e < (R) * (W4) * 4u; e += NT) {                                               \
        const uint j = e / ((W4) * 4u), d = e % ((W4) * 4u);                                         \
        const int64_t row = (r0) + int64_t(j);                                                       \
        SH[j][d / 4u][d % 4u] =                                                                      \
            row < (nrows) && int64_t(d) < (n) ? load(base, (off) + row * (rst) + int64_t(d) * (dst)) : ACC(0); \
    }

ACC dot4(ACC4 a, ACC4 b, ACC acc) { return fma(a.w, b.w, fma(a.z, b.z, fma(a.y, b.y, fma(a.x, b.x, acc)))); }

// step 1: s = sr1 . sc1 for the invocation's rows: the dims in order, the
// same fmas in every mode
void scores(uint ty, uint tx, out ACC s[TM][TN]) {
    [[unroll]] for (uint m = 0u; m < TM; ++m)
        [[unroll]] for (uint n = 0u; n < TN; ++n) s[m][n] = ACC(0);
    for (uint c = 0u; c < DE4; ++c) {
        ACC4 a[TM], b[TN];
        [[unroll]] for (uint m = 0u; m < TM; ++m) a[m] = sr1[ty + TY * m][c];
        [[unroll]] for (uint n = 0u; n < TN; ++n) b[n] = sc1[tx + 8u * n][c];
        [[unroll]] for (uint m = 0u; m < TM; ++m)
            [[unroll]] for (uint n = 0u; n < TN; ++n) s[m][n] = dot4(a[m], b[n], s[m][n]);
    }
}

#if MODE != 0
// and dp = sr2 . sc2
void grad_scores(uint ty, uint tx, out ACC dp[TM][TN]) {
    [[unroll]] for (uint m = 0u; m < TM; ++m)
        [[unroll]] for (uint n = 0u; n < TN; ++n) dp[m][n] = ACC(0);
    for (uint c = 0u; c < DV4; ++c) {
        ACC4 a[TM], b[TN];
        [[unroll]] for (uint m = 0u; m < TM; ++m) a[m] = sr2[ty + TY * m][c];
        [[unroll]] for (uint n = 0u; n < TN; ++n) b[n] = sc2[tx + 8u * n][c];
        [[unroll]] for (uint m = 0u; m < TM; ++m)
            [[unroll]] for (uint n = 0u; n < TN; ++n) dp[m][n] = dot4(a[m], b[n], dp[m][n]);
    }
}
#endif

// an output's rows (the invocation's vec4 columns), times f
#define STORE_GRAD(G, C, base, off0, rst, dst, n, r0, nrows)                                \
    [[unroll]] for (uint m = 0u; m < TM; ++m) {                                              \
        const int64_t row = (r0) + int64_t(ty + TY * m);                                     \
        if (row >= (nrows)) continue;                                                        \
        [[unroll]] for (uint c = 0u; c < (C); ++c)                                           \
            [[unroll]] for (uint t = 0u; t < 4u; ++t) {                                      \
                const int64_t d = int64_t(4u * (tx + 8u * c) + t);                           \
                if (d < (n)) store(base, (off0) + row * (rst) + d * (dst), G[m][c][t] * f);  \
            }                                                                                \
    }

void main() {
    read_params();
    const uint tid = gl_LocalInvocationIndex, ty = tid / 8u, tx = tid % 8u;
    const int64_t groups = HQ / HK;
#if MODE == 0
    const int64_t blocks = (L + int64_t(RB) - 1L) / int64_t(RB);
    for (int64_t w = int64_t(gl_WorkGroupID.x); w < B * HQ * blocks; w += int64_t(gl_NumWorkGroups.x)) {
        const int64_t i0 = (w % blocks) * int64_t(RB), h = (w / blocks) % HQ, b = w / (blocks * HQ), hk = h / groups;
        barrier();  // the previous rows are read
        STAGE(sr1, DE4, RB, pc.q, at(qs, b, h, 0L), qs[2], qs[3], E, i0, L)
        ACC4 o[TM][CV];
        ACC mrow[TM], lrow[TM];
        [[unroll]] for (uint m = 0u; m < TM; ++m) {
            mrow[m] = NEG_INF, lrow[m] = ACC(0);
            [[unroll]] for (uint c = 0u; c < CV; ++c) o[m][c] = ACC4(0);
        }
        const int64_t jend = causal ? min(S, i0 + int64_t(RB)) : S;
        for (int64_t j0 = 0L; j0 < jend; j0 += int64_t(CB)) {
            barrier();  // the previous block is read
            STAGE(sc1, DE4, CB, pc.k, at(ks, b, hk, 0L), ks[2], ks[3], E, j0, S)
            STAGE(sc2, DV4, CB, pc.v, at(vs, b, hk, 0L), vs[2], vs[3], EV, j0, S)
            barrier();
            ACC s[TM][TN];
            scores(ty, tx, s);
            [[unroll]] for (uint m = 0u; m < TM; ++m) {
                ACC mx = NEG_INF;
                [[unroll]] for (uint n = 0u; n < TN; ++n) {
                    s[m][n] = finish_score(s[m][n], b, h, i0 + int64_t(ty + TY * m), j0 + int64_t(tx + 8u * n));
                    mx = max(mx, s[m][n]);
                }
                smax[ty + TY * m][tx] = mx;
            }
            barrier();
            // the block's row maxima (every invocation of a row alike), then
            // p once a score and the row's partial sums
            ACC mb[TM];
            [[unroll]] for (uint m = 0u; m < TM; ++m) {
                mb[m] = mrow[m];
                for (uint t = 0u; t < 8u; ++t) mb[m] = max(mb[m], smax[ty + TY * m][t]);
                ACC sum = ACC(0);
                [[unroll]] for (uint n = 0u; n < TN; ++n) {
                    const ACC p = s[m][n] == NEG_INF ? ACC(0) : aexp(s[m][n] - mb[m]);
                    sp[tx + 8u * n][ty + TY * m] = p;
                    sum += p;
                }
                ssum[ty + TY * m][tx] = sum;
            }
            barrier();
            [[unroll]] for (uint m = 0u; m < TM; ++m) {
                // alpha rescales what was summed before this block
                const ACC alpha = mb[m] == NEG_INF ? ACC(1) : aexp(mrow[m] - mb[m]);
                mrow[m] = mb[m];
                ACC l = lrow[m] * alpha;
                for (uint t = 0u; t < 8u; ++t) l += ssum[ty + TY * m][t];
                lrow[m] = l;
                [[unroll]] for (uint c = 0u; c < CV; ++c) o[m][c] *= alpha;
            }
            for (uint c = 0u; c < CB; ++c)
                [[unroll]] for (uint m = 0u; m < TM; ++m) {
                    const ACC4 p = ACC4(sp[c][ty + TY * m]);
                    [[unroll]] for (uint e = 0u; e < CV; ++e) o[m][e] = fma(p, sc2[c][tx + 8u * e], o[m][e]);
                }
        }
        [[unroll]] for (uint m = 0u; m < TM; ++m) {
            const int64_t i = i0 + int64_t(ty + TY * m);
            if (i < L && tx == 0u)
                acc_at(pc.lse, (b * HQ + h) * L + i).v = lrow[m] > ACC(0) ? mrow[m] + rs_op_log(lrow[m]) : NEG_INF;
        }
        // out = o / l (a row with nothing visible: 0)
        ACC4 ol[TM][CV];
        ACC f = ACC(1);
        [[unroll]] for (uint m = 0u; m < TM; ++m) {
            const ACC r = lrow[m] > ACC(0) ? ACC(1) / lrow[m] : ACC(0);
            [[unroll]] for (uint c = 0u; c < CV; ++c) ol[m][c] = o[m][c] * r;
        }
        STORE_GRAD(ol, CV, pc.o, at(os, b, h, 0L), os[2], os[3], EV, i0, L)
    }
#elif MODE == 2
    const int64_t blocks = (L + int64_t(RB) - 1L) / int64_t(RB);
    for (int64_t w = int64_t(gl_WorkGroupID.x); w < B * HQ * blocks; w += int64_t(gl_NumWorkGroups.x)) {
        const int64_t i0 = (w % blocks) * int64_t(RB), h = (w / blocks) % HQ, b = w / (blocks * HQ), hk = h / groups;
        barrier();  // the previous rows are read
        STAGE(sr1, DE4, RB, pc.q, at(qs, b, h, 0L), qs[2], qs[3], E, i0, L)
        STAGE(sr2, DV4, RB, pc.dout, at(dos, b, h, 0L), dos[2], dos[3], EV, i0, L)
        ACC lse_r[TM], d_r[TM];
        ACC4 dq[TM][CE];
        [[unroll]] for (uint m = 0u; m < TM; ++m) {
            const int64_t i = i0 + int64_t(ty + TY * m);
            lse_r[m] = i < L ? acc_at(pc.lse, (b * HQ + h) * L + i).v : NEG_INF;
            d_r[m] = i < L ? acc_at(pc.drow, (b * HQ + h) * L + i).v : ACC(0);
            [[unroll]] for (uint c = 0u; c < CE; ++c) dq[m][c] = ACC4(0);
        }
        // the last key any row of the workgroup sees
        const int64_t jend = causal ? min(S, i0 + int64_t(RB)) : S;
        for (int64_t j0 = 0L; j0 < jend; j0 += int64_t(CB)) {
            barrier();  // the previous block is read
            STAGE(sc1, DE4, CB, pc.k, at(ks, b, hk, 0L), ks[2], ks[3], E, j0, S)
            STAGE(sc2, DV4, CB, pc.v, at(vs, b, hk, 0L), vs[2], vs[3], EV, j0, S)
            barrier();
            ACC s[TM][TN], dp[TM][TN];
            scores(ty, tx, s);
            grad_scores(ty, tx, dp);
            [[unroll]] for (uint m = 0u; m < TM; ++m)
                [[unroll]] for (uint n = 0u; n < TN; ++n) {
                    const uint r = ty + TY * m, cc = tx + 8u * n;
                    const ACC sv = finish_score(s[m][n], b, h, i0 + int64_t(r), j0 + int64_t(cc));
                    const ACC p = (sv == NEG_INF || lse_r[m] == NEG_INF) ? ACC(0) : aexp(sv - lse_r[m]);
                    sds[cc][r] = p * (dp[m][n] - d_r[m]);
                }
            barrier();
            for (uint c = 0u; c < CB; ++c)
                [[unroll]] for (uint m = 0u; m < TM; ++m) {
                    const ACC4 ds = ACC4(sds[c][ty + TY * m]);
                    [[unroll]] for (uint e = 0u; e < CE; ++e) dq[m][e] = fma(ds, sc1[c][tx + 8u * e], dq[m][e]);
                }
        }
        const ACC f = scale;
        STORE_GRAD(dq, CE, pc.dq, at(dqs, b, h, 0L), dqs[2], dqs[3], E, i0, L)
    }
#else  // MODE 3
    const int64_t blocks = (S + int64_t(RB) - 1L) / int64_t(RB);
    for (int64_t w = int64_t(gl_WorkGroupID.x); w < B * HK * blocks; w += int64_t(gl_NumWorkGroups.x)) {
        const int64_t j0 = (w % blocks) * int64_t(RB), hk = (w / blocks) % HK, b = w / (blocks * HK);
        barrier();  // the previous rows are read
        STAGE(sr1, DE4, RB, pc.k, at(ks, b, hk, 0L), ks[2], ks[3], E, j0, S)
        STAGE(sr2, DV4, RB, pc.v, at(vs, b, hk, 0L), vs[2], vs[3], EV, j0, S)
        ACC4 dk[TM][CE], dv[TM][CV];
        [[unroll]] for (uint m = 0u; m < TM; ++m) {
            [[unroll]] for (uint c = 0u; c < CE; ++c) dk[m][c] = ACC4(0);
            [[unroll]] for (uint c = 0u; c < CV; ++c) dv[m][c] = ACC4(0);
        }
        // causal: query rows before the workgroup's first key see none of it
        const int64_t ibeg = causal ? (j0 / int64_t(CB)) * int64_t(CB) : 0L;
        for (int64_t h = hk * groups; h < (hk + 1L) * groups; ++h)
        for (int64_t i0 = ibeg; i0 < L; i0 += int64_t(CB)) {
            barrier();  // the previous block is read
            STAGE(sc1, DE4, CB, pc.q, at(qs, b, h, 0L), qs[2], qs[3], E, i0, L)
            STAGE(sc2, DV4, CB, pc.dout, at(dos, b, h, 0L), dos[2], dos[3], EV, i0, L)
            if (tid < CB) {
                const int64_t i = i0 + int64_t(tid);
                s_lse[tid] = i < L ? acc_at(pc.lse, (b * HQ + h) * L + i).v : NEG_INF;
                s_d[tid] = i < L ? acc_at(pc.drow, (b * HQ + h) * L + i).v : ACC(0);
            }
            barrier();
            ACC s[TM][TN], dp[TM][TN];
            scores(ty, tx, s);
            grad_scores(ty, tx, dp);
            [[unroll]] for (uint m = 0u; m < TM; ++m)
                [[unroll]] for (uint n = 0u; n < TN; ++n) {
                    const uint r = ty + TY * m, cc = tx + 8u * n;
                    const ACC sv = finish_score(s[m][n], b, h, i0 + int64_t(cc), j0 + int64_t(r));
                    const ACC lse_i = s_lse[cc];
                    const ACC p = (sv == NEG_INF || lse_i == NEG_INF) ? ACC(0) : aexp(sv - lse_i);
                    sp[cc][r] = p;
                    sds[cc][r] = p * (dp[m][n] - s_d[cc]);
                }
            barrier();
            for (uint c = 0u; c < CB; ++c)
                [[unroll]] for (uint m = 0u; m < TM; ++m) {
                    const ACC4 p = ACC4(sp[c][ty + TY * m]), ds = ACC4(sds[c][ty + TY * m]);
                    [[unroll]] for (uint e = 0u; e < CV; ++e) dv[m][e] = fma(p, sc2[c][tx + 8u * e], dv[m][e]);
                    [[unroll]] for (uint e = 0u; e < CE; ++e) dk[m][e] = fma(ds, sc1[c][tx + 8u * e], dk[m][e]);
                }
        }
        ACC f = ACC(1);
        if (pc.dv != 0UL) STORE_GRAD(dv, CV, pc.dv, at(dvs, b, hk, 0L), dvs[2], dvs[3], EV, j0, S)
        f = scale;
        if (pc.dk != 0UL) STORE_GRAD(dk, CE, pc.dk, at(dks, b, hk, 0L), dks[2], dks[3], E, j0, S)
    }
#endif
}
