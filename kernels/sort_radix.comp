// sort_radix.comp: stable LSD radix sort of long rows, 4 bits per pass, on
// the keys of common/sort_key.glsl. Pairs (key, uint32 index) live in
// scratch arrays with row stride n; each row is cut into blocks of CHUNK
// elements (a workgroup each).
// - MODE 1 (init): keys[row, j] = encode(src[row, j]), idx = j.
// - MODE 2 (histogram): hist[(row * 16 + digit) * nb + block] = how many
//   of the block's keys have that digit (32-bit shared atomics).
// - (the caller scans each row's hist into int64 inclusive offsets `incl`
//   with rs_scan: digit-major order makes them global destinations)
// - MODE 3 (scatter): each element goes to incl - hist (its digit's start
//   for its block) + its rank among the block's elements of that digit, in
//   order (stable): per-invocation digit counts, packed 16 bits per digit,
//   scanned across the workgroup in shared memory. No subgroup operations,
//   no 64-bit atomics.
// Defines: MODE, IN_DT, KEY64, DESC.
#version 460
#include "common/dtype.glsl"
#include "common/index.glsl"

#define T_DT IN_DT
#include "common/dtype_inst.glsl"
#undef T_DT

#include "common/sort_key.glsl"

#define ITEMS 4
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

shared uint sh_count[16];
shared uint sh_scan[8][RS_WG];  // 16 counters of 16 bits per invocation

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
#else
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
#endif
    }
#endif
}
