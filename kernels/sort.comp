// sort.comp: stable sort along the last dim of a contiguous [rows, n]
// tensor, as (key, index) pairs, by bitonic sorting.
//
// Each row is padded to P = next power of two >= n; the scratch arrays
// keys[rows * P] and idx[rows * P] (uint32 row-local indices) hold the pairs.
// Keys are the values mapped to unsigned integers whose order is the value
// order (PyTorch's: NaN above everything, -0 == +0), inverted for a
// descending sort; comparing (key, index) makes the sort stable, and the
// padding (key ~0, index >= n) lands behind every element. The passes:
// - MODE 1 (local sort): a workgroup loads a block of B = min(P, L)
//   elements from src, encodes them and runs every bitonic stage k <= B in
//   shared memory.
// - MODE 2 (global step): one compare-exchange step (k, j) with j >= L over
//   the scratch arrays (stages longer than a block).
// - MODE 3 (local merge): the steps j < L of stage k, in shared memory.
// Long rows are sorted by sort_radix.comp instead; MODE 4 and 5 read its
// pairs too (row stride n instead of P).
// - MODE 4 (gather): values[row, j] = src[row, idx] (decoded from the key
//   where the key determines the bits: common/sort_key.glsl's decode),
//   indices = idx, for the first `kout` of each row (a sort writes all n;
//   topk writes k).
// - MODE 5 (pick): one element per row: the k-th (kthvalue), the median
//   (the first NaN if any, as CPU), the nanmedian, or the mode.
// Defines: MODE, IN_DT, KEY64 (64-bit keys: int64, uint64, float64),
// DESC (descending), L (block size, shared memory), PICK (MODE 5: 1 kth,
// 2 median, 3 nanmedian, 4 mode).
#version 460
#include "common/dtype.glsl"
#include "params/sort.h"
#include "common/index.glsl"

#define T_DT IN_DT
#include "common/dtype_inst.glsl"
#undef T_DT

layout(local_size_x = RS_WG) in;

layout(push_constant) uniform Push { RS_SORT_PUSH } pc;

#include "common/sort_key.glsl"

KT kload(uint f) { return KRef(pc.keys + KSZ * uint64_t(f)).v; }
void kstore(uint f, KT v) { KRef(pc.keys + KSZ * uint64_t(f)).v = v; }
uint iload(uint f) { return RsU32(pc.idx + 4UL * uint64_t(f)).v; }
void istore(uint f, uint v) { RsU32(pc.idx + 4UL * uint64_t(f)).v = v; }

#if MODE == 1 || MODE == 3
shared KT skey[L];
shared uint sidx[L];

// Compare-exchange steps j = j0, j0/2, .., 1 of stage k in shared memory;
// `base` is the block's first flat index (for the direction).
void local_steps(uint base, uint B, uint k, uint j0) {
    uint P = 1u << pc.logp;
    for (uint j = j0; j > 0u; j >>= 1) {
        for (uint t = gl_LocalInvocationID.x; t < B / 2u; t += RS_WG) {
            uint a = ((t & ~(j - 1u)) << 1) | (t & (j - 1u));
            uint b = a + j;
            bool asc = k >= P || ((base + a) & k) == 0u;
            KT ka = skey[a], kb = skey[b];
            uint ia = sidx[a], ib = sidx[b];
            if (greater(ka, ia, kb, ib) == asc) {
                skey[a] = kb; skey[b] = ka;
                sidx[a] = ib; sidx[b] = ia;
            }
        }
        barrier();
    }
}
#endif

void main() {
#if MODE == 1 || MODE == 3
    uint P = 1u << pc.logp;
    uint B = min(P, uint(L));
    uint nblocks = (pc.total + B - 1u) / B;
    for (uint blk = gl_WorkGroupID.x; blk < nblocks; blk += gl_NumWorkGroups.x) {
        uint base = blk * B;
        for (uint t = gl_LocalInvocationID.x; t < B; t += RS_WG) {
            uint f = base + t;
            KT key = KPAD;
            uint id = 0xFFFFFFFFu;
            if (f < pc.total) {
#if MODE == 1
                uint row = f >> pc.logp, j = f & (P - 1u);
                id = j;
                if (j < pc.n) key = encode(pc.src, int64_t(row) * int64_t(pc.n) + int64_t(j));
#else
                key = kload(f);
                id = iload(f);
#endif
            }
            skey[t] = key;
            sidx[t] = id;
        }
        barrier();
#if MODE == 1
        for (uint k = 2u; k <= B; k <<= 1) local_steps(base, B, k, k >> 1);
#else
        local_steps(base, B, pc.k, B >> 1);
#endif
        for (uint t = gl_LocalInvocationID.x; t < B; t += RS_WG) {
            uint f = base + t;
            if (f < pc.total) {
                kstore(f, skey[t]);
                istore(f, sidx[t]);
            }
        }
        barrier();
    }

#elif MODE == 2
    uint P = 1u << pc.logp;
    uint jj = pc.j, k = pc.k;
    RS_FOR_EACH(t64, uint64_t(pc.total / 2u)) {
        uint t = uint(t64);
        uint a = ((t & ~(jj - 1u)) << 1) | (t & (jj - 1u));
        uint b = a + jj;
        bool asc = k >= P || (a & k) == 0u;
        KT ka = kload(a), kb = kload(b);
        uint ia = iload(a), ib = iload(b);
        if (greater(ka, ia, kb, ib) == asc) {
            kstore(a, kb); kstore(b, ka);
            istore(a, ib); istore(b, ia);
        }
    }

#elif MODE == 4
    uint kout = pc.k;
    RS_FOR_EACH(e, uint64_t(pc.rows) * uint64_t(kout)) {
        uint64_t row = e / uint64_t(kout);
        uint j = uint(e - row * uint64_t(kout));
        uint id = iload(uint(row) * pc.rstride + j);
        int64_t so = int64_t(row) * int64_t(pc.n) + int64_t(id);
        if (pc.values != 0UL) {
            // the value from its key (a coalesced read) where the key
            // determines its bits, else from src (a gather)
            uint es = uint(RS_SIZE(IN_DT));
            uint64_t d = pc.values + e * es, bits;
            if (!decode(kload(uint(row) * pc.rstride + j), bits)) {
                uint64_t s = pc.src + uint64_t(so) * es;
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
        if (pc.indices != 0UL) RsI64(pc.indices + 8UL * e).v = int64_t(id);
    }

#elif MODE == 5
    RS_FOR_EACH(r64, uint64_t(pc.rows)) {
        uint row = uint(r64);
        uint base = row * pc.rstride;
        uint pos = pc.k;
#if PICK != 1
        uint m = pc.n;
#if IS_FLOATY
        // number of non-NaN elements: NaNs sort last (their key is KNAN)
        uint lo = 0u, hi = pc.n;
        while (lo < hi) {
            uint mid = (lo + hi) >> 1;
            if (kload(base + mid) < KNAN) lo = mid + 1u;
            else hi = mid;
        }
        m = lo;
#endif
#if PICK == 2
        pos = m < pc.n ? m : (pc.n - 1u) / 2u;
#elif PICK == 3
        pos = m == 0u ? 0u : (m - 1u) / 2u;
#else
        // mode: the smallest value of the longest run (CPU: a later run
        // wins only when strictly longer); NaNs never equal each other.
        // Its index: the run's last element (the largest original index).
        uint best = 0u, run = 0u;
        pos = 0u;
        for (uint i = 0u; i < pc.n; ++i) {
            run++;
            KT ki = kload(base + i);
            bool ends = i + 1u == pc.n || ki != kload(base + i + 1u);
#if IS_FLOATY
            ends = ends || ki == KNAN;
#endif
            if (ends) {
                if (run > best) {
                    best = run;
                    pos = i;
                }
                run = 0u;
            }
        }
#endif
#endif
        uint id = iload(base + pos);
        int64_t so = int64_t(row) * int64_t(pc.n) + int64_t(id);
        uint es = uint(RS_SIZE(IN_DT));
        uint64_t s = pc.src + uint64_t(so) * es, d = pc.values + uint64_t(row) * es;
        if (es == 1u) RsU8(d).v = RsU8(s).v;
        else if (es == 2u) RsU16(d).v = RsU16(s).v;
        else if (es == 4u) RsU32(d).v = RsU32(s).v;
        else RsU64(d).v = RsU64(s).v;
        if (pc.indices != 0UL) RsI64(pc.indices + 8UL * uint64_t(row)).v = int64_t(id);
    }
#endif
}
