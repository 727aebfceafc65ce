// copy.comp: dst[i] = (DST_DT) src[i] for strided views, any dtype pair
// (conversions as PyTorch's CPU casts; see common/dtype.glsl).
// Defines: SRC_DT, DST_DT (dtype codes).
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

void main() {
    RS_FOR_EACH(i, pc.numel) {
        int64_t od, os;
        if (pc.ndim == 0u) {
            od = int64_t(i);
            os = od;
        } else {
            rs_offset2(pc.params, pc.ndim, i, od, os);
        }
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
}
