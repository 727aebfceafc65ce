// select_count.comp: counting kernels of the selection family.
// - MODE 1 (min/max, pass 1): each workgroup reduces a grid-stride share of
//   the contiguous `src` to (min, max), stored as two uint64 words at
//   part[2 * workgroup] (float bits in the low word for the float family;
//   a NaN makes both NaN, as torch.aminmax).
// - MODE 2 (min/max, pass 2): one workgroup reduces `nparts` partials to
//   part[0], part[1].
// - MODE 3 (bincount): counts[src[i]] += 1 (uint32 atomics), or
//   out[src[i]] += weights[i] (float32 atomic add) with WEIGHTS.
// - MODE 4 (histc): the bin of each element in [edges[0], edges[bins]] as
//   CPU's histc (histogramdd's linear interpolation, in the input dtype:
//   float16/bfloat16 round every step); the last bin includes its right
//   edge; counts[bin] += 1.
// Defines: MODE, IN_DT (src), WEIGHTS (MODE 3).
#version 460
#extension GL_KHR_memory_scope_semantics : enable
#if WEIGHTS
#extension GL_EXT_shader_atomic_float : require
#endif
#include "common/dtype.glsl"
#include "params/select.h"
#include "common/index.glsl"

#define T_DT IN_DT
#include "common/dtype_inst.glsl"
#undef T_DT

layout(local_size_x = RS_WG) in;

layout(push_constant) uniform Push { RS_SELECT_COUNT_PUSH } pc;

layout(buffer_reference, std430, buffer_reference_align = 4) buffer Counts { uint c[]; };
layout(buffer_reference, std430, buffer_reference_align = 4) buffer Sums { float s[]; };

#define FLT RS_IS_FLT(IN_DT)

#if MODE == 1 || MODE == 2
#if FLT
#define V float
V vmin(V a, V b) { return isnan(a) || isnan(b) ? a + b : min(a, b); }
V vmax(V a, V b) { return isnan(a) || isnan(b) ? a + b : max(a, b); }
V lowest() { return uintBitsToFloat(0xFF800000u); }
V highest() { return uintBitsToFloat(0x7F800000u); }
uint64_t bits(V v) { return uint64_t(floatBitsToUint(v)); }
V unbits(uint64_t u) { return uintBitsToFloat(uint(u)); }
#elif IN_DT == 29
#define V uint64_t
V vmin(V a, V b) { return min(a, b); }
V vmax(V a, V b) { return max(a, b); }
V lowest() { return 0UL; }
V highest() { return ~0UL; }
uint64_t bits(V v) { return v; }
V unbits(uint64_t u) { return u; }
#else
#define V int64_t
V vmin(V a, V b) { return min(a, b); }
V vmax(V a, V b) { return max(a, b); }
V lowest() { return int64_t(0x8000000000000000UL); }
V highest() { return int64_t(0x7FFFFFFFFFFFFFFFUL); }
uint64_t bits(V v) { return uint64_t(v); }
V unbits(uint64_t u) { return int64_t(u); }
#endif

shared V smin[RS_WG];
shared V smax[RS_WG];

void main() {
    uint t = gl_LocalInvocationID.x;
    V mn = highest(), mx = lowest();
#if MODE == 1
    RS_FOR_EACH(i, pc.numel) {
        V v = V(RS_GET(IN_DT)(pc.src, int64_t(i)));
        mn = vmin(mn, v);
        mx = vmax(mx, v);
    }
#else
    for (uint64_t i = t; i < pc.numel; i += RS_WG) {
        mn = vmin(mn, unbits(RsU64(pc.aux + 16UL * i).v));
        mx = vmax(mx, unbits(RsU64(pc.aux + 16UL * i + 8UL).v));
    }
#endif
    smin[t] = mn;
    smax[t] = mx;
    barrier();
    for (uint d = RS_WG / 2; d > 0u; d >>= 1) {
        if (t < d) {
            smin[t] = vmin(smin[t], smin[t + d]);
            smax[t] = vmax(smax[t], smax[t + d]);
        }
        barrier();
    }
    if (t == 0u) {
        uint64_t w = MODE == 1 ? uint64_t(gl_WorkGroupID.x) : 0UL;
        RsU64(pc.aux + 16UL * w).v = bits(smin[0]);
        RsU64(pc.aux + 16UL * w + 8UL).v = bits(smax[0]);
    }
}

#elif MODE == 3
void main() {
    RS_FOR_EACH(i, pc.numel) {
        uint b = uint(RS_GET(IN_DT)(pc.src, int64_t(i)));
#if WEIGHTS
        atomicAdd(Sums(pc.counts).s[b], uintBitsToFloat(RsU32(pc.aux + 4UL * i).v));
#else
        atomicAdd(Counts(pc.counts).c[b], 1u);
#endif
    }
}

#elif MODE == 4
float edge(uint k) { return RS_GET(IN_DT)(pc.aux, int64_t(k)); }
// CPU computes in the input dtype: float16/bfloat16 round every step
#if IN_DT == 6
#define RND(x) (x)
#else
#define RND(x) RS_ROUND(IN_DT)(x)
#endif

void main() {
    float lo = edge(0u), hi = edge(pc.bins);
    float span = RND(hi - lo), nb = RND(float(pc.bins));
    RS_FOR_EACH(i, pc.numel) {
        float e = RS_GET(IN_DT)(pc.src, int64_t(i));
        if (!(e >= lo && e <= hi)) continue;  // outside, or NaN
        float q = RND(RND(RND(e - lo) * nb) / span);
        // an empty span (both edges one value in float16/bfloat16) gives NaN:
        // CPU's conversion of it lands in bin 0 (x86 and arm64 alike)
        int pos = isnan(q) ? 0 : int(q);
        if (pos == int(pc.bins)) pos -= 1;
        if (pos >= 0) atomicAdd(Counts(pc.counts).c[pos], 1u);
    }
}
#endif
