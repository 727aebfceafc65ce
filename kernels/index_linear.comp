// index_linear.comp: advanced indexing's linear index (rs_index_linearize
// in src/engine/gather.c; contract in russet/gather.h). One invocation per
// element of the broadcast index shape: its coordinates, then each index
// tensor's value wrapped and weighted; an index out of range makes the
// result one the following gather raises.
#version 460
#include "common/dtype.glsl"
#include "params/gather.h"
#include "common/index.glsl"

layout(local_size_x = RS_WG) in;

layout(push_constant) uniform Push { RS_INDEX_LINEAR_PUSH } pc;

int64_t il(int slot) { return RsI64(pc.params + 8UL * uint64_t(slot)).v; }

void main() {
    const int ndim = int(il(IL_NDIM)), count = int(il(IL_COUNT));
    RS_FOR_EACH(e, pc.numel) {
        int64_t lin = 0L, raw = 0L;
        bool ok = true;
        for (int k = 0; k < count; ++k) {
            const int blk = IL_SIZES + ndim + k * IL_K_SLOTS(ndim);
            // this tensor's offset of element e (row-major over out's sizes)
            int64_t off = 0L;
            uint64_t rest = e;
            for (int d = ndim - 1; d >= 0; --d) {
                uint64_t r;
                rs_divmod(rest, uint64_t(il(IL_SIZES + d)), r);
                off += int64_t(r) * il(blk + IL_K_STRIDES + d);
            }
            const uint64_t addr = uint64_t(il(blk + IL_K_ADDR));
            const int64_t i = il(blk + IL_K_I32) != 0L ? int64_t(int(RsU32(addr + 4UL * uint64_t(off)).v))
                                                       : RsI64(addr + 8UL * uint64_t(off)).v;
            const int64_t n = il(blk + IL_K_N);
            ok = ok && i >= -n && i < n;
            lin += (i < 0L ? i + n : i) * il(blk + IL_K_P);
            raw = i;
        }
        RsI64(pc.out_ + 8UL * e).v = ok ? lin : count == 1 ? raw : -1L;
    }
}
