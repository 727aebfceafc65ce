// fft.comp: one radix-2 Stockham pass of in-order complex64 FFTs over
// contiguous rows of length n (a power of two). Pass `ns` (1, 2, 4, ...,
// n / 2; ns = current sub-transform length) takes, for j in [0, n / 2),
// a = src[j], b = src[j + n / 2] * w^(k), k = j mod ns, and writes a + b and
// a - b to dst[(j - k) * 2 + k] and dst[... + ns]: after log2(n) passes dst
// holds the transform in natural order (no bit reversal). w = e^(-2 pi i /
// (2 ns)) (forward) is read from a twiddle table made on the host in double:
// tw[t] = e^(-2 pi i t / n), t = k * n / (2 ns); the inverse conjugates it.
#version 460
#include "common/dtype.glsl"
#include "common/index.glsl"

layout(local_size_x = RS_WG) in;

layout(push_constant) uniform Push {
    uint64_t src, dst, tw;
    uint64_t items;   // rows * n / 2
    uint n, ns, twstep, inverse;  // twstep = n / (2 ns)
} pc;

layout(buffer_reference, std430, buffer_reference_align = 8) buffer RsC64 { vec2 v; };

vec2 cmul(vec2 a, vec2 b) { return vec2(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x); }

void main() {
    const uint half_n = pc.n >> 1;
    RS_FOR_EACH(t, pc.items) {
        const uint64_t row = t / uint64_t(half_n);
        const uint j = uint(t - row * uint64_t(half_n));
        const uint64_t base = row * uint64_t(pc.n);
        const uint k = j & (pc.ns - 1u);
        vec2 w = RsC64(pc.tw + 8UL * uint64_t(k * pc.twstep)).v;
        if (pc.inverse != 0u) w.y = -w.y;
        const vec2 a = RsC64(pc.src + 8UL * (base + uint64_t(j))).v;
        const vec2 b = cmul(RsC64(pc.src + 8UL * (base + uint64_t(j + half_n))).v, w);
        const uint64_t o = base + uint64_t((j - k) * 2u + k);
        RsC64(pc.dst + 8UL * o).v = a + b;
        RsC64(pc.dst + 8UL * (o + uint64_t(pc.ns))).v = a - b;
    }
}
