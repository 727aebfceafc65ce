// sort_radix.comp: stable LSD radix sort of long rows, 4 bits per pass, on
// the keys of common/sort_key.glsl. Pairs (key, uint32 index) live in
// scratch arrays with row stride n; each row is cut into blocks of CHUNK =
// RS_WG * ITEMS elements (a workgroup each).
// - MODE 1 (init): keys[row, j] = encode(src[row, j]), idx = j.
// - MODE 2 (histogram): hist[(row * 16 + digit) * nb + block] = how many
//   of the block's keys have that digit (32-bit shared atomics).
// - (the caller scans each row's hist into int64 inclusive offsets `incl`
//   with rs_scan: digit-major order makes them global destinations)
// - MODE 3 (scatter): each element goes to incl - hist (its digit's start
//   for its block) + its rank among the block's elements of that digit, in
//   order (stable). Two rankings (RANK):
//   1 (shared): each invocation holds ITEMS consecutive elements; digit
//     counts packed 16 bits per digit, scanned across the workgroup in
//     shared memory (Hillis-Steele, 2 * log2(RS_WG) barriers); each
//     element is written straight to its destination.
//   2 (subgroup, GL_KHR_shader_subgroup_ballot): subgroup s holds the
//     block's elements [s * S * ITEMS, (s + 1) * S * ITEMS) (S =
//     gl_SubgroupSize, any power of two >= 4 up to 128: uvec4 ballots),
//     ITEMS steps of S consecutive elements. In a step, the lanes with
//     the same digit are the AND of 4 ballots (one per digit bit); a
//     lane's rank is the count of those below it plus the subgroup's
//     running count of that digit (shared, updated by the digit's first
//     lane). The subgroups' per-digit totals are scanned by 16
//     invocations; the block is reordered by digit in shared memory and
//     then written out, consecutive invocations to consecutive
//     destinations (coalesced runs, one per digit).
//   No 64-bit atomics.
// Defines: MODE, IN_DT, KEY64, DESC, ITEMS (4 or 8), RANK (MODE 3).
#version 460
#if MODE == 3 && RANK == 2
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_ballot : require
#endif
#include "common/dtype.glsl"
#include "common/index.glsl"

#define T_DT IN_DT
#include "common/dtype_inst.glsl"
#undef T_DT

#include "common/sort_key.glsl"

#define CHUNK (RS_WG * ITEMS)
layout(local_size_x = RS_WG) in;

layout(push_constant) uniform Push {
    uint64_t src;
    uint64_t keys;      // in
    uint64_t idx;       // in
    uint64_t keys_out;
    uint64_t idx_out;
    uint64_t hist;      // uint32 [rows, 16, nb]
    uint64_t incl;      // int64 [rows, 16, nb], inclusive scan of hist per row
    uint n, rows, nb, shift;
} pc;

KT kload(uint64_t base, uint64_t f) { return KRef(base + KSZ * f).v; }
void kstore(uint64_t base, uint64_t f, KT v) { KRef(base + KSZ * f).v = v; }

uint digit(KT k) { return uint(k >> pc.shift) & 15u; }

#if MODE == 2
shared uint sh_count[16];
#elif MODE == 3 && RANK == 1
shared uint sh_scan[8][RS_WG];  // 16 counters of 16 bits per invocation
#elif MODE == 3
#define NSG_MAX (RS_WG / 4)     // subgroups of at least 4 invocations
shared uint sh_cnt[NSG_MAX * 16];  // per subgroup and digit: running count, then exclusive prefix
shared uint sh_tot[16];         // the block's count of each digit
shared uint sh_lstart[16];      // where each digit starts in the reordered block
shared uint sh_off[16];         // its destination in the row, minus sh_lstart (mod 2^32)
shared KT sh_key[CHUNK];        // the block reordered by digit
shared uint sh_idx[CHUNK];
#endif

void main() {
    uint t = gl_LocalInvocationID.x;
#if MODE == 1
    RS_FOR_EACH(e, uint64_t(pc.rows) * uint64_t(pc.n)) {
        uint64_t row = e / uint64_t(pc.n);
        kstore(pc.keys, e, encode(pc.src, int64_t(e)));
        RsU32(pc.idx + 4UL * e).v = uint(e - row * uint64_t(pc.n));
    }
#else
    uint64_t nwork = uint64_t(pc.rows) * uint64_t(pc.nb);
    for (uint64_t w = gl_WorkGroupID.x; w < nwork; w += gl_NumWorkGroups.x) {
        uint row = uint(w / uint64_t(pc.nb)), blk = uint(w - uint64_t(row) * uint64_t(pc.nb));
        uint64_t rbase = uint64_t(row) * uint64_t(pc.n);
        uint j0 = blk * uint(CHUNK) + t * ITEMS;
#if MODE == 2
        if (t < 16u) sh_count[t] = 0u;
        barrier();
        for (uint k = 0u; k < ITEMS; ++k) {
            uint j = j0 + k;
            if (j < pc.n) atomicAdd(sh_count[digit(kload(pc.keys, rbase + j))], 1u);
        }
        barrier();
        if (t < 16u)
            RsU32(pc.hist + 4UL * (uint64_t(row * 16u + t) * uint64_t(pc.nb) + uint64_t(blk))).v = sh_count[t];
        barrier();
#elif RANK == 1
        KT key[ITEMS];
        uint dg[ITEMS];
        uint cnt[8];
        for (uint q = 0u; q < 8u; ++q) cnt[q] = 0u;
        for (uint k = 0u; k < ITEMS; ++k) {
            uint j = j0 + k;
            dg[k] = 16u;
            if (j < pc.n) {
                key[k] = kload(pc.keys, rbase + j);
                dg[k] = digit(key[k]);
                cnt[dg[k] >> 1] += 1u << (16u * (dg[k] & 1u));
            }
        }
        for (uint q = 0u; q < 8u; ++q) sh_scan[q][t] = cnt[q];
        barrier();
        // inclusive scan of the packed counters over the invocations
        for (uint d = 1u; d < RS_WG; d <<= 1) {
            uint o[8];
            for (uint q = 0u; q < 8u; ++q) o[q] = t >= d ? sh_scan[q][t - d] : 0u;
            barrier();
            for (uint q = 0u; q < 8u; ++q) sh_scan[q][t] += o[q];
            barrier();
        }
        uint seen[16];
        for (uint q = 0u; q < 16u; ++q) seen[q] = 0u;
        for (uint k = 0u; k < ITEMS; ++k) {
            if (dg[k] == 16u) continue;
            uint d = dg[k];
            uint packed = sh_scan[d >> 1][t] - cnt[d >> 1];  // exclusive: the invocations before
            uint before = (packed >> (16u * (d & 1u))) & 0xFFFFu;
            uint64_t h = uint64_t(row * 16u + d) * uint64_t(pc.nb) + uint64_t(blk);
            int64_t start = RsI64(pc.incl + 8UL * h).v - int64_t(RsU32(pc.hist + 4UL * h).v);
            uint64_t dst = rbase + uint64_t(start) + uint64_t(before + seen[d]);
            seen[d]++;
            kstore(pc.keys_out, dst, key[k]);
            RsU32(pc.idx_out + 4UL * dst).v = RsU32(pc.idx + 4UL * (rbase + uint64_t(j0 + k))).v;
        }
        barrier();
#else  // RANK 2: subgroup ballots
        uint S = gl_SubgroupSize, lane = gl_SubgroupInvocationID, sgo = gl_SubgroupID * 16u;
        for (uint q = lane; q < 16u; q += S) sh_cnt[sgo + q] = 0u;
        subgroupBarrier();
        uint jb = blk * uint(CHUNK) + gl_SubgroupID * (S * uint(ITEMS)) + lane;
        KT key[ITEMS];
        uint ix[ITEMS], dg[ITEMS], rk[ITEMS];
        for (uint k = 0u; k < ITEMS; ++k) {
            uint j = jb + k * S;
            bool ok = j < pc.n;
            uint d = 16u;  // no element: votes 0 for every bit, masked out below
            if (ok) {
                key[k] = kload(pc.keys, rbase + j);
                ix[k] = RsU32(pc.idx + 4UL * (rbase + uint64_t(j))).v;
                d = digit(key[k]);
            }
            uvec4 same = subgroupBallot(ok);
            for (uint b = 0u; b < 4u; ++b) {
                bool bit = ((d >> b) & 1u) != 0u;
                uvec4 vb = subgroupBallot(bit);
                same &= bit ? vb : ~vb;
            }
            uint below = subgroupBallotExclusiveBitCount(same);
            uint before = ok ? sh_cnt[sgo + d] : 0u;
            subgroupBarrier();  // every lane has read before the first lane of each digit adds
            if (ok && below == 0u) sh_cnt[sgo + d] = before + subgroupBallotBitCount(same);
            subgroupBarrier();
            dg[k] = d;
            rk[k] = before + below;
        }
        barrier();
        uint start = 0u;
        if (t < 16u) {
            uint64_t h = uint64_t(row * 16u + t) * uint64_t(pc.nb) + uint64_t(blk);
            start = uint(RsI64(pc.incl + 8UL * h).v) - RsU32(pc.hist + 4UL * h).v;
            uint acc = 0u;
            for (uint sg = 0u; sg < gl_NumSubgroups; ++sg) {
                uint c = sh_cnt[sg * 16u + t];
                sh_cnt[sg * 16u + t] = acc;
                acc += c;
            }
            sh_tot[t] = acc;
        }
        barrier();
        if (t < 16u) {
            uint ls = 0u;
            for (uint d = 0u; d < t; ++d) ls += sh_tot[d];
            sh_lstart[t] = ls;
            sh_off[t] = start - ls;
        }
        barrier();
        for (uint k = 0u; k < ITEMS; ++k) {
            uint d = dg[k];
            if (d == 16u) continue;
            uint p = sh_lstart[d] + sh_cnt[sgo + d] + rk[k];
            sh_key[p] = key[k];
            sh_idx[p] = ix[k];
        }
        barrier();
        uint m = min(uint(CHUNK), pc.n - blk * uint(CHUNK));
        for (uint i = t; i < m; i += RS_WG) {
            KT kk = sh_key[i];
            uint64_t dst = rbase + uint64_t(sh_off[digit(kk)] + i);
            kstore(pc.keys_out, dst, kk);
            RsU32(pc.idx_out + 4UL * dst).v = sh_idx[i];
        }
        barrier();
#endif
    }
#endif
}
