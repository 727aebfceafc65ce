// jagged.comp: a jagged tensor's packed rows to and from a padded dense
// tensor, as words of WB bytes (src/engine/jagged.c, contract in
// russet/jagged.h). An invocation a word of values: its row r, the item b
// that holds r (a binary search over the offsets: the last b with
// offsets[b] <= r), and r's position p = r - offsets[b] in the item.
// Defines: WB (bytes a word: 1, 2, 4, 8 or 16).
#version 460
#include "common/dtype.glsl"
#include "params/jagged.h"
#include "common/index.glsl"
#include "common/error.glsl"

layout(local_size_x = RS_WG) in;

layout(push_constant) uniform Push { RS_JAGGED_PUSH } pc;

#if WB == 16
layout(buffer_reference, std430, buffer_reference_align = 16) buffer RsW { uvec4 v; };
#elif WB == 8
#define RsW RsU64
#elif WB == 4
#define RsW RsU32
#elif WB == 2
#define RsW RsU16
#else
#define RsW RsU8
#endif

int64_t offset_at(int64_t b) { return RsI64(pc.offsets + 8UL * uint64_t(b)).v; }

void main() {
    const int64_t B = pc.batch, L = pc.item_rows, RW = pc.row_words;
    const int64_t end = offset_at(B);
    if (gl_GlobalInvocationID.x == 0u && pc.from_padded != 0u && end != pc.total)
        rs_raise_at(pc.err, pc.site, 13u, end);
    RS_FOR_EACH(i, uint64_t(pc.total * RW)) {
        const int64_t r = int64_t(i / uint64_t(RW)), w = int64_t(i % uint64_t(RW));
        if (B <= 0 || r >= end || r < offset_at(0)) continue;  // in no item
        int64_t lo = 0, hi = B - 1;  // the last b in [lo, hi] with offsets[b] <= r
        while (lo < hi) {
            const int64_t mid = (lo + hi + 1) / 2;
            if (offset_at(mid) <= r) lo = mid;
            else hi = mid - 1;
        }
        const int64_t p = r - offset_at(lo);
        const uint64_t at = uint64_t(WB) * uint64_t((lo * L + p) * RW + w);
        if (pc.from_padded != 0u) {
            if (p >= L) {
                rs_raise_at(pc.err, pc.site, 12u, offset_at(lo + 1) - offset_at(lo));
                continue;
            }
            RsW(pc.values + uint64_t(WB) * i).v = RsW(pc.padded + at).v;
        } else if (p < L) {
            RsW(pc.padded + at).v = RsW(pc.values + uint64_t(WB) * i).v;
        }
    }
}
