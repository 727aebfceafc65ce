// copy.comp: dst[i] = (DST_DT) src[i] for strided views, any dtype pair
// (conversions as PyTorch's CPU casts; see common/dtype.glsl).
// Defines: SRC_DT, DST_DT (dtype codes), CONTIG (1: both contiguous).
#version 460
#include "common/dtype.glsl"
#include "common/index.glsl"

layout(local_size_x = RS_WG) in;

layout(push_constant) uniform Push {
    uint64_t dst;
    uint64_t src;
    uint64_t params;  // sizes, dst strides, src strides (ndim > 0)
    uint64_t numel;
    uint ndim;        // 0: both contiguous
} pc;

#define T_DT SRC_DT
#include "common/dtype_inst.glsl"
#undef T_DT
#if DST_DT != SRC_DT
#define T_DT DST_DT
#include "common/dtype_inst.glsl"
#undef T_DT
#endif

void rs_copy_one(int64_t od, int64_t os) {
#if RS_IS_BOOL(SRC_DT) || (RS_IS_INT(SRC_DT) && SRC_DT != 29)
    RS_SET_I(DST_DT)(pc.dst, od, RS_GET(SRC_DT)(pc.src, os));
#elif SRC_DT == 29
    RS_SET_U(DST_DT)(pc.dst, od, RS_GET(SRC_DT)(pc.src, os));
#elif RS_IS_FLT(SRC_DT)
    RS_SET_F(DST_DT)(pc.dst, od, RS_GET(SRC_DT)(pc.src, os));
#elif RS_IS_DBL(SRC_DT)
    RS_SET_D(DST_DT)(pc.dst, od, RS_GET(SRC_DT)(pc.src, os));
#elif RS_IS_CF(SRC_DT)
    RS_SET_CF(DST_DT)(pc.dst, od, RS_GET(SRC_DT)(pc.src, os));
#else
    RS_SET_CD(DST_DT)(pc.dst, od, RS_GET(SRC_DT)(pc.src, os));
#endif
}

// elements per invocation on the contiguous path (see pointwise.comp)
#define RS_UNROLL 4

void main() {
#if CONTIG
    uint64_t n = pc.numel;
    uint64_t step = uint64_t(gl_NumWorkGroups.x) * uint64_t(RS_WG * RS_UNROLL);
    for (uint64_t base = uint64_t(gl_WorkGroupID.x) * uint64_t(RS_WG * RS_UNROLL) + uint64_t(gl_LocalInvocationID.x);
         base < n; base += step) {
        [[unroll]] for (int u = 0; u < RS_UNROLL; ++u) {
            uint64_t i = base + uint64_t(u * RS_WG);
            if (i < n) rs_copy_one(int64_t(i), int64_t(i));
        }
    }
#else
    RS_FOR_EACH(i, pc.numel) {
        int64_t od, os;
        rs_offset2(pc.params, pc.ndim, i, od, os);
        rs_copy_one(od, os);
    }
#endif
}
