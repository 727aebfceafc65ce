// sort_radix.comp: stable LSD radix sort of long rows, 4 bits per pass, on
// the keys of common/sort_key.glsl. Pairs (key, uint32 index) live in
// scratch arrays with row stride n; each row is cut into blocks of CHUNK =
// RS_WG * ITEMS elements (a workgroup each). The first pass (shift 0)
// reads the source itself: its keys are encoded on the fly and its indices
// are the positions, so no pass writes the initial pairs.
// - MODE 2 (histogram): hist[(row * 16 + digit) * nb + block] = how many
//   of the block's keys have that digit: 32-bit shared atomics on 8 copies
//   of the 16 counters (invocation t adds to copy t % 8: fewer colliding
//   atomics), summed by 16 invocations.
// - (the caller scans each row's hist into int64 inclusive offsets `incl`
//   with rs_scan: digit-major order makes them global destinations)
// - MODE 3 (scatter): each element goes to incl - hist (its digit's start
//   for its block) + its rank among the block's elements of that digit, in
//   order (stable). Two rankings (RANK):
//   1 (shared): each invocation holds ITEMS consecutive elements; digit
//     counts packed 16 bits per digit, scanned across the workgroup in
//     shared memory (Hillis-Steele, 2 * log2(RS_WG) barriers); each
//     element is written straight to its destination.
//   2 (subgroup, GL_KHR_shader_subgroup_ballot): a subgroup of S active
//     invocations (counted with a ballot, not taken from gl_SubgroupSize:
//     any size up to 128 (uvec4 ballots), full or not) holds ITEMS * S
//     consecutive elements of the block, after those of the subgroups with
//     lower gl_SubgroupID, in ITEMS steps of S. In a step, the lanes with
//     the same digit are the AND of 4 ballots (one per digit bit); a
//     lane's rank is the count of those below it plus the subgroup's
//     running count of that digit (shared, updated by the digit's first
//     lane). The subgroups' per-digit totals are scanned by 16
//     invocations; the block is reordered by digit in shared memory and
//     then written out, consecutive invocations to consecutive
//     destinations (coalesced runs, one per digit).
//     More than NSG_MAX subgroups in a workgroup (an average under 4
//     invocations) raise the device error flag (code 5) instead.
//   No 64-bit atomics. In the last pass of a full sort (values or indices
//   set), the scatter writes the outputs instead of the pairs: values
//   decoded from their keys (or read from src where the key does not
//   determine the bits) and int64 indices.
// Defines: MODE (2, 3), IN_DT, KEY64, DESC, ITEMS (4 or 8), RANK (1, 2; MODE 3).
#version 460
#if MODE == 3 && RANK == 2
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_ballot : require
#endif
#include "common/dtype.glsl"
#include "params/sort.h"
#include "common/index.glsl"
#include "common/error.glsl"

#define T_DT IN_DT
#include "common/dtype_inst.glsl"
#undef T_DT

#include "common/sort_key.glsl"

#define CHUNK (RS_WG * ITEMS)
layout(local_size_x = RS_WG) in;

layout(push_constant) uniform Push { RS_SORT_RADIX_PUSH } pc;
#define rs_raise(code, value) rs_raise_at(pc.err, pc.site, code, value)

void kstore(uint64_t base, uint64_t f, KT v) { KRef(base + KSZ * f).v = v; }

// The key and the index of element j of the row starting at flat rbase.
KT key_at(uint64_t rbase, uint j) {
    uint64_t f = rbase + uint64_t(j);
    return pc.shift == 0u ? encode(pc.src, int64_t(f)) : KRef(pc.keys + KSZ * f).v;
}
uint idx_at(uint64_t rbase, uint j) {
    return pc.shift == 0u ? j : RsU32(pc.idx + 4UL * (rbase + uint64_t(j))).v;
}

uint digit(KT k) { return uint(k >> pc.shift) & 15u; }

// Element f (flat, row-major [rows, n]) of the sorted result: the pair
// (key, id) of the row at flat rbase, to the pairs or, in the last pass of
// a full sort, to the outputs.
void put(uint64_t f, uint64_t rbase, KT key, uint id) {
    if (pc.values == 0UL && pc.indices == 0UL) {
        kstore(pc.keys_out, f, key);
        RsU32(pc.idx_out + 4UL * f).v = id;
        return;
    }
    if (pc.values != 0UL) {
        uint es = uint(RS_SIZE(IN_DT));
        uint64_t bits, d = pc.values + f * es;
        if (!decode(key, bits)) {
            uint64_t s = pc.src + (rbase + uint64_t(id)) * es;
            if (es == 1u) bits = uint64_t(RsU8(s).v);
            else if (es == 2u) bits = uint64_t(RsU16(s).v);
            else if (es == 4u) bits = uint64_t(RsU32(s).v);
            else bits = RsU64(s).v;
        }
        if (es == 1u) RsU8(d).v = uint8_t(bits);
        else if (es == 2u) RsU16(d).v = uint16_t(bits);
        else if (es == 4u) RsU32(d).v = uint(bits);
        else RsU64(d).v = bits;
    }
    if (pc.indices != 0UL) RsI64(pc.indices + 8UL * f).v = int64_t(id);
}

#if MODE == 3 && RANK == 2
// The lanes of the subgroup whose element has digit d (ok: the lane has an
// element; lanes without one vote 0 and are masked out). Called by every
// lane of the subgroup.
uvec4 same_digit(bool ok, uint d) {
    uvec4 same = subgroupBallot(ok);
    for (uint b = 0u; b < 4u; ++b) {
        bool bit = ((d >> b) & 1u) != 0u;
        uvec4 vb = subgroupBallot(bit);
        same &= bit ? vb : ~vb;
    }
    return same;
}
#define NSG_MAX (RS_WG / 4)        // subgroups of 4 invocations on average at least
shared uint sh_cnt[NSG_MAX * 16];  // per subgroup and digit: running count, then exclusive prefix
shared uint sh_pop[NSG_MAX];       // active invocations of each subgroup
#endif

#if MODE == 2
shared uint sh_count[16 * 8];   // [digit][copy]
#elif RANK == 1
shared uint sh_scan[8][RS_WG];  // 16 counters of 16 bits per invocation
#elif MODE == 3
shared uint sh_tot[16];         // the block's count of each digit
shared uint sh_lstart[16];      // where each digit starts in the reordered block
shared uint sh_off[16];         // its destination in the row, minus sh_lstart (mod 2^32)
shared KT sh_key[CHUNK];        // the block reordered by digit
shared uint sh_idx[CHUNK];
#endif

void main() {
    uint t = gl_LocalInvocationID.x;
#if MODE == 3 && RANK == 2
    // this subgroup's size, lane and first element (in units of ITEMS)
    uvec4 live = subgroupBallot(true);
    uint S = subgroupBallotBitCount(live), lane = subgroupBallotExclusiveBitCount(live);
    uint sgo = gl_SubgroupID * 16u;
    if (gl_NumSubgroups > NSG_MAX) {  // the same in every invocation
        if (t == 0u && gl_WorkGroupID.x == 0u) rs_raise(5u, int64_t(gl_NumSubgroups));
        return;
    }
    if (lane == 0u) sh_pop[gl_SubgroupID] = S;
    barrier();
    uint first = 0u;
    for (uint sg = 0u; sg < gl_SubgroupID; ++sg) first += sh_pop[sg];
#endif
    uint64_t nwork = uint64_t(pc.rows) * uint64_t(pc.nb);
    for (uint64_t w = gl_WorkGroupID.x; w < nwork; w += gl_NumWorkGroups.x) {
        uint row = uint(w / uint64_t(pc.nb)), blk = uint(w - uint64_t(row) * uint64_t(pc.nb));
        uint64_t rbase = uint64_t(row) * uint64_t(pc.n);
#if MODE == 2
        for (uint q = t; q < 16u * 8u; q += RS_WG) sh_count[q] = 0u;
        barrier();
        uint dg[ITEMS];
        for (uint k = 0u; k < ITEMS; ++k) {  // any order: consecutive invocations, consecutive elements
            uint j = blk * uint(CHUNK) + k * RS_WG + t;
            dg[k] = j < pc.n ? digit(key_at(rbase, j)) : 16u;
        }
        for (uint k = 0u; k < ITEMS; ++k)
            if (dg[k] != 16u) atomicAdd(sh_count[dg[k] * 8u + (t & 7u)], 1u);
        barrier();
        if (t < 16u) {
            uint acc = 0u;
            for (uint c = 0u; c < 8u; ++c) acc += sh_count[t * 8u + c];
            RsU32(pc.hist + 4UL * (uint64_t(row * 16u + t) * uint64_t(pc.nb) + uint64_t(blk))).v = acc;
        }
        barrier();
#elif RANK == 1
        uint j0 = blk * uint(CHUNK) + t * ITEMS;
        KT key[ITEMS];
        uint dg[ITEMS];
        uint cnt[8];
        for (uint q = 0u; q < 8u; ++q) cnt[q] = 0u;
        for (uint k = 0u; k < ITEMS; ++k) {
            uint j = j0 + k;
            dg[k] = 16u;
            if (j < pc.n) {
                key[k] = key_at(rbase, j);
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
            put(dst, rbase, key[k], idx_at(rbase, j0 + k));
        }
        barrier();
#else  // MODE 3, RANK 2: subgroup ballots
        uint jb = blk * uint(CHUNK) + first * uint(ITEMS) + lane;
        for (uint q = lane; q < 16u; q += S) sh_cnt[sgo + q] = 0u;
        subgroupBarrier();
        KT key[ITEMS];
        uint ix[ITEMS], dg[ITEMS], rk[ITEMS];
        // all loads first (the subgroup barriers below would order them)
        for (uint k = 0u; k < ITEMS; ++k) {
            uint j = jb + k * S;
            dg[k] = 16u;  // no element
            if (j < pc.n) {
                key[k] = key_at(rbase, j);
                ix[k] = idx_at(rbase, j);
                dg[k] = digit(key[k]);
            }
        }
        for (uint k = 0u; k < ITEMS; ++k) {
            uint d = dg[k];
            bool ok = d != 16u;
            uvec4 same = same_digit(ok, d);
            uint below = subgroupBallotExclusiveBitCount(same);
            uint before = ok ? sh_cnt[sgo + d] : 0u;
            subgroupBarrier();  // every lane has read before the first lane of each digit adds
            if (ok && below == 0u) sh_cnt[sgo + d] = before + subgroupBallotBitCount(same);
            subgroupBarrier();
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
            put(rbase + uint64_t(sh_off[digit(kk)] + i), rbase, kk, sh_idx[i]);
        }
        barrier();
#endif
    }
}
