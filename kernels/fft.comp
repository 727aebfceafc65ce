// fft.comp: in-order complex64 FFTs over contiguous rows of length n (a
// power of two), radix-2 Stockham (no bit reversal). One step, for the
// sub-transform length ns (1, 2, 4, ..., n / 2), maps butterfly j in
// [0, n / 2): a = x[j], b = x[j + n / 2] * w^k (k = j mod ns), to
// y[(j - k) * 2 + k] = a + b and y[... + ns] = a - b. w = e^(-2 pi i /
// (2 ns)) comes from a twiddle table made on the host in double:
// tw[t] = e^(-2 pi i t / n), t = k * n / (2 ns); the inverse conjugates it.
// Defines:
//   MODE 0  one step over the whole batch in global memory (src -> dst);
//           the host runs log2(n) of them (any n);
//   MODE 1  every step of a row in shared memory, a workgroup a row
//           (n <= NMAX, the shared array's length): one read and one write
//           of the batch.
#version 460
#include "common/dtype.glsl"
#include "params/fft.h"
#include "common/index.glsl"

#ifndef MODE
#define MODE 0
#endif

layout(local_size_x = RS_WG) in;

layout(push_constant) uniform Push { RS_FFT_PUSH } pc;

layout(buffer_reference, std430, buffer_reference_align = 8) buffer RsC64 { vec2 v; };

vec2 cmul(vec2 a, vec2 b) { return vec2(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x); }

vec2 twiddle(uint t) {
    vec2 w = RsC64(pc.tw + 8UL * uint64_t(t)).v;
    return pc.inverse != 0u ? vec2(w.x, -w.y) : w;
}

#if MODE == 0
void main() {
    const uint half_n = pc.n >> 1;
    RS_FOR_EACH(t, pc.items) {
        const uint64_t row = t / uint64_t(half_n);
        const uint j = uint(t - row * uint64_t(half_n));
        const uint64_t base = row * uint64_t(pc.n);
        const uint k = j & (pc.ns - 1u);
        const vec2 w = twiddle(k * pc.twstep);
        const vec2 a = RsC64(pc.src + 8UL * (base + uint64_t(j))).v;
        const vec2 b = cmul(RsC64(pc.src + 8UL * (base + uint64_t(j + half_n))).v, w);
        const uint64_t o = base + uint64_t((j - k) * 2u + k);
        RsC64(pc.dst + 8UL * o).v = a + b;
        RsC64(pc.dst + 8UL * (o + uint64_t(pc.ns))).v = a - b;
    }
}
#else
// butterflies an invocation does per step, at most
#define RB ((NMAX / 2 + RS_WG - 1) / RS_WG)
shared vec2 sh[NMAX];

void main() {
    const uint n = pc.n, half_n = n >> 1, lid = gl_LocalInvocationID.x;
    for (uint64_t row = uint64_t(gl_WorkGroupID.x); row < pc.items; row += uint64_t(gl_NumWorkGroups.x)) {
        const uint64_t base = row * uint64_t(n);
        for (uint i = lid; i < n; i += RS_WG) sh[i] = RsC64(pc.src + 8UL * (base + uint64_t(i))).v;
        barrier();
        for (uint ns = 1u, twstep = half_n; ns < n; ns <<= 1, twstep >>= 1) {
            vec2 ra[RB], rb[RB];
            [[unroll]] for (uint r = 0u; r < RB; ++r) {
                const uint j = lid + r * RS_WG;
                if (j < half_n) {
                    ra[r] = sh[j];
                    rb[r] = cmul(sh[j + half_n], twiddle((j & (ns - 1u)) * twstep));
                }
            }
            barrier();
            [[unroll]] for (uint r = 0u; r < RB; ++r) {
                const uint j = lid + r * RS_WG;
                if (j < half_n) {
                    const uint k = j & (ns - 1u), o = (j - k) * 2u + k;
                    sh[o] = ra[r] + rb[r];
                    sh[o + ns] = ra[r] - rb[r];
                }
            }
            barrier();
        }
        for (uint i = lid; i < n; i += RS_WG) RsC64(pc.dst + 8UL * (base + uint64_t(i))).v = sh[i];
        barrier();  // the next row overwrites sh
    }
}
#endif
