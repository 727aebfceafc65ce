// fft.comp: in-order complex64 (or, WIDE, complex128) FFTs over contiguous
// rows of length n (a power of two), radix-2 Stockham (no bit reversal). One step, for the
// sub-transform length ns (1, 2, 4, ..., n / 2), maps butterfly j in
// [0, n / 2): a = x[j], b = x[j + n / 2] * w^k (k = j mod ns), to
// y[(j - k) * 2 + k] = a + b and y[... + ns] = a - b. w = e^(-2 pi i /
// (2 ns)) comes from a twiddle table made on the host in double:
// tw[t] = e^(-2 pi i t / n), t = k * n / (2 ns); the inverse conjugates it.
// Defines:
//   WIDE 1  complex128 values and twiddles (devices with fp64); else complex64
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
#ifndef WIDE
#define WIDE 0
#endif

layout(local_size_x = RS_WG) in;

layout(push_constant) uniform Push { RS_FFT_PUSH } pc;

#if WIDE
#define CT dvec2
#define ES 16UL
layout(buffer_reference, std430, buffer_reference_align = 16) buffer RsC { dvec2 v; };
#else
#define CT vec2
#define ES 8UL
layout(buffer_reference, std430, buffer_reference_align = 8) buffer RsC { vec2 v; };
#endif

CT cmul(CT a, CT b) { return CT(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x); }

CT twiddle(uint t) {
    CT w = RsC(pc.tw + ES * uint64_t(t)).v;
    return pc.inverse != 0u ? CT(w.x, -w.y) : w;
}

#if MODE == 0
void main() {
    const uint half_n = pc.n >> 1;
    RS_FOR_EACH(t, pc.items) {
        const uint64_t row = t / uint64_t(half_n);
        const uint j = uint(t - row * uint64_t(half_n));
        const uint64_t base = row * uint64_t(pc.n);
        const uint k = j & (pc.ns - 1u);
        const CT w = twiddle(k * pc.twstep);
        const CT a = RsC(pc.src + ES * (base + uint64_t(j))).v;
        const CT b = cmul(RsC(pc.src + ES * (base + uint64_t(j + half_n))).v, w);
        const uint64_t o = base + uint64_t((j - k) * 2u + k);
        RsC(pc.dst + ES * o).v = a + b;
        RsC(pc.dst + ES * (o + uint64_t(pc.ns))).v = a - b;
    }
}
#else
// butterflies an invocation does per step, at most
#define RB ((NMAX / 2 + RS_WG - 1) / RS_WG)
shared CT sh[NMAX];

void main() {
    const uint n = pc.n, half_n = n >> 1, lid = gl_LocalInvocationID.x;
    for (uint64_t row = uint64_t(gl_WorkGroupID.x); row < pc.items; row += uint64_t(gl_NumWorkGroups.x)) {
        const uint64_t base = row * uint64_t(n);
        for (uint i = lid; i < n; i += RS_WG) sh[i] = RsC(pc.src + ES * (base + uint64_t(i))).v;
        barrier();
        for (uint ns = 1u, twstep = half_n; ns < n; ns <<= 1, twstep >>= 1) {
            CT ra[RB], rb[RB];
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
        for (uint i = lid; i < n; i += RS_WG) RsC(pc.dst + ES * (base + uint64_t(i))).v = sh[i];
        barrier();  // the next row overwrites sh
    }
}
#endif
