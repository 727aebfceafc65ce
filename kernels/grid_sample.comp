// grid_sample.comp: the grid-sampling engine's kernels (src/engine/
// grid_sample.c; contract in russet/grid_sample.h). One invocation per grid
// point (n, zo, yo, xo), looping over the channels:
//   MODE 0: output[n, c, point] = sum over the corners of input * weight;
//   MODE 1 (backward): for each corner q of the point, keys[point, q] (its
//           flat position in the (N * D * H * W, C) scratch of the input's
//           gradient, or -1 outside the input) and src[point, q, c] =
//           weight * grad_output; and the grid's gradient. The engine then
//           sums src into the scratch by keys (rs_index_reduce_run).
// The coordinate transforms are ATen's (aten/src/ATen/native/GridSampler.h,
// the float32 2-d kernel's unnormalization and weights in 2-d, the scalar
// kernel's in 3-d), in the opmath type ACC.
//
// Defines: DT (the tensors' dtype), MODE, DIMS (2 or 3), NEAREST (1:
// nearest, 0: bilinear), PADDING (0 zeros, 1 border, 2 reflection), ALIGN.
#version 460
#include "common/dtype.glsl"
#include "params/grid_sample.h"
#include "common/index.glsl"
#include "common/opmath.glsl"

layout(local_size_x = RS_WG) in;

#define T_DT DT
#include "common/dtype_inst.glsl"
#include "common/opmath_inst.glsl"
#undef T_DT
#define ACC RS_OPMT(DT)
#define rs_raise(code, value)  // (nothing here raises)
#define CM_DT 6
#include "common/ops.glsl"  // rs_fmod

#define Q (NEAREST == 1 ? 1 : (1 << DIMS))  // corners a point reads

layout(push_constant) uniform Push { RS_GRID_SAMPLE_PUSH } pc;

// the product v rounded on its own (common/opmath.glsl)
ACC rnd(ACC v) { return rs_rounded(v, pc.opaque_zero); }

int64_t ip(int slot) { return RsI64(pc.params + 8UL * uint64_t(slot)).v; }

ACC load(uint64_t a, int64_t o) { return RS_LDO(DT)(a, o); }
void store(uint64_t a, int64_t o, ACC v) {
#if RS_IS_DBL(DT)
    RS_SET_D(DT)(a, o, doubleBitsToUint64(v));
#else
    RS_SET_F(DT)(a, o, v);
#endif
}

// x (ATen's clip_coordinates_set_grad): into [0, size - 1]; d/dx is 1
// strictly inside, else 0
ACC clip(ACC x, int64_t size, inout ACC mult) {
#if MODE == 0
    // CPU's forward kernels clip NaN too: to 0 in 2-d (its vectorized
    // clamp), to size - 1 in 3-d (std::min(size - 1, std::max(NaN, 0)));
    // their backward keeps NaN
    if (isnan(x)) return DIMS == 2 ? ACC(0) : ACC(size - 1);
#endif
    if (x <= ACC(0)) {
        mult *= ACC(0);
        return ACC(0);
    }
    const ACC hi = ACC(size - 1);
    if (x >= hi) {
        mult *= ACC(0);
        return hi;
    }
    return x;
}

#if DIMS == 2
// CPU's float 2-d kernel (GridSamplerKernel.cpp, ComputeLocationBase::
// reflect_coordinates_get_grad): |x - low| folded by twice the span
// without fmod, then the nearer of extra and its mirror; d/dx = +-1
ACC reflect(ACC x, int64_t size, inout ACC mult) {
#if ALIGN
    if (size <= 1) {
        mult *= ACC(0);
        return ACC(0);
    }
    const ACC low = ACC(0), twice_span = ACC(size - 1) * ACC(2);
#else
    const ACC low = ACC(-0.5), twice_span = ACC(size) * ACC(2);
#endif
    const ACC d = x - low, a = abs(d);
    const ACC extra = a - rnd(trunc(a / twice_span) * twice_span), mirrored = twice_span - extra;
    const bool flip = extra > mirrored;
    mult *= (flip != (d < ACC(0))) ? ACC(-1) : ACC(1);
    return (flip ? mirrored : extra) + low;
}
#else
// ATen's reflect_coordinates_set_grad (the scalar 3-d kernel): reflected
// into [twice_low / 2, twice_high / 2], d/dx = +-1
ACC reflect(ACC x, int64_t size, inout ACC mult) {
#if ALIGN
    const int64_t twice_low = 0, twice_high = 2 * (size - 1);
#else
    const int64_t twice_low = -1, twice_high = 2 * size - 1;
#endif
    if (twice_low == twice_high) {
        mult *= ACC(0);
        return ACC(0);
    }
    const ACC lo = ACC(twice_low) / ACC(2), span = ACC(twice_high - twice_low) / ACC(2);
    x -= lo;
    const ACC sign = x < ACC(0) ? ACC(-1) : ACC(1);
    x = abs(x);
    // extra = fmod(x, span), and the parity of ATen's int flips =
    // floor(x / span) from fmod(x, 2 span) (past span: odd), both exact;
    // flips of 2^31 or more are C's out-of-range int cast, INT_MIN on x86:
    // even. (No division, floor or int conversion: on the H200 the former
    // floor(x / span) parity chose the odd fold for x of 1.5e10 and 1.5e30.)
    const ACC extra = rs_fmod(x, span);
    const bool even = x >= span * ACC(2147483648.0) || rs_fmod(x, span * ACC(2)) < span;
    if (even) {
        mult *= sign;
        return extra + lo;
    }
    mult *= -sign;
    return span - extra + lo;
}
#endif

// the grid value g as a source position along an input dim of `size`, and
// d position / d g: unnormalized as CPU's 2-d (vectorized) or 3-d (scalar,
// GridSampler.h) kernel does it, then clipped or reflected
ACC source_index(ACC g, int64_t size, out ACC mult) {
#if ALIGN
    mult = ACC(size - 1) / ACC(2);
#if DIMS == 2
    ACC x = (g + ACC(1)) * mult;
#else
    ACC x = ((g + ACC(1)) / ACC(2)) * ACC(size - 1);
#endif
#else
    mult = ACC(size) / ACC(2);
#if DIMS == 2
    ACC x = rnd((g + ACC(1)) * mult) - ACC(0.5);
#else
    // (the H200 contracted (g + 1) * size - 1 into one multiply-add,
    // NoContraction notwithstanding: g = 1e10 gave 14999999488 for CPU's
    // 15000000512, and the reflection the other fold; hence rnd())
    ACC x = (rnd((g + ACC(1)) * ACC(size)) - ACC(1)) / ACC(2);
#endif
#endif
#if PADDING == 1
    x = clip(x, size, mult);
#elif PADDING == 2
#if DIMS == 3
    // an infinite or NaN position: CPU's fmod makes it NaN, which its
    // forward clips to size - 1 and its backward keeps (no corner inside).
    // Said here, not left to rs_fmod's NaN (on the H200 that NaN did not
    // survive: the forward read a pixel there)
    if (isinf(x) || isnan(x)) return MODE == 0 ? ACC(size - 1) : ACC(-8);
#endif
    x = clip(reflect(x, size, mult), size, mult);
#endif
    return x;
}

// an integer position of a coordinate, or -8 far outside (NaN included), so
// that no huge value reaches an int64 conversion
int64_t position(ACC f, int64_t size) {
    return (f > ACC(-4) && f < ACC(size + 4)) ? int64_t(f) : int64_t(-8);
}

void main() {
    int64_t in_sz[5], in_st[5], out_sz[5], out_st[5], g_st[5];
    for (int k = 0; k < 5; ++k) {
        in_sz[k] = ip(GP_IN + k), in_st[k] = ip(GP_IN_ST + k);
        out_sz[k] = ip(GP_OUT + k), out_st[k] = ip(GP_OUT_ST + k);
        g_st[k] = ip(GP_GRID_ST + k);
    }
    const int64_t C = in_sz[1];
    for (uint64_t e = uint64_t(gl_GlobalInvocationID.x); e < pc.items;
         e += uint64_t(gl_NumWorkGroups.x) * uint64_t(RS_WG)) {
        // the point (n, zo, yo, xo), xo fastest
        int64_t rem = int64_t(e), pt[5];
        for (int k = 4; k >= 2; --k) {
            pt[k] = rem % out_sz[k];
            rem /= out_sz[k];
        }
        const int64_t n = rem;
        const int64_t g0 = n * g_st[0] + pt[2] * g_st[1] + pt[3] * g_st[2] + pt[4] * g_st[3];
        // coordinate j addresses input dim 4 - j (x: W, y: H, z: D)
        ACC pos[3], mult[3];
        for (int j = 0; j < DIMS; ++j) pos[j] = source_index(load(pc.grid, g0 + int64_t(j) * g_st[4]), in_sz[4 - j], mult[j]);

        // the corners: offset in the input plane, flat position, weight
        // per coordinate (lo/hi) and whether the corner lies inside
        int64_t off[Q], fpos[Q];
        bool inside[Q];
        ACC w[Q][3];
#if NEAREST
        {
            int64_t o = 0, f = 0;
            bool ok = true;
            for (int j = 0; j < DIMS; ++j) {
                const int64_t size = in_sz[4 - j], i = position(roundEven(pos[j]), size);
                ok = ok && i >= 0 && i < size;
                o += i * in_st[4 - j];
            }
            for (int j = DIMS - 1; j >= 0; --j) f = f * in_sz[4 - j] + position(roundEven(pos[j]), in_sz[4 - j]);
            off[0] = o, fpos[0] = f, inside[0] = ok;
            for (int j = 0; j < 3; ++j) w[0][j] = ACC(1);
        }
#else
        int64_t base[3];
        ACC lo_w[3], hi_w[3];
        for (int j = 0; j < DIMS; ++j) {
            const ACC f = floor(pos[j]);
            base[j] = position(f, in_sz[4 - j]);
            hi_w[j] = pos[j] - f;
#if DIMS == 2
            lo_w[j] = ACC(1) - hi_w[j];  // the 2-d kernel: 1 - (x - floor x)
#else
            lo_w[j] = (f + ACC(1)) - pos[j];  // the 3-d kernel: (floor x + 1) - x
#endif
        }
        [[unroll]] for (int q = 0; q < Q; ++q) {
            int64_t o = 0, f = 0;
            bool ok = true;
            for (int j = 0; j < DIMS; ++j) {
                const int64_t size = in_sz[4 - j], i = base[j] + int64_t((q >> j) & 1);
                ok = ok && i >= 0 && i < size;
                o += i * in_st[4 - j];
                w[q][j] = ((q >> j) & 1) != 0 ? hi_w[j] : lo_w[j];
            }
            for (int j = DIMS - 1; j >= 0; --j) f = f * in_sz[4 - j] + base[j] + int64_t((q >> j) & 1);
            off[q] = o, fpos[q] = f, inside[q] = ok;
        }
#endif
        ACC wt[Q];  // the corner's weight: the coordinates' weights, x first
        [[unroll]] for (int q = 0; q < Q; ++q) {
            wt[q] = w[q][0];
            for (int j = 1; j < DIMS; ++j) wt[q] *= w[q][j];
        }
        const int64_t ib = n * in_st[0], ob = n * out_st[0] + pt[2] * out_st[2] + pt[3] * out_st[3] + pt[4] * out_st[4];
#if MODE == 0
        // 2-d: every corner adds value * weight, 0 outside (CPU's
        // vectorized kernel: a NaN or infinite position gives NaN); 3-d:
        // only the corners inside (CPU's scalar kernel)
        for (int64_t c = 0; c < C; ++c) {
            ACC acc = ACC(0);
            [[unroll]] for (int q = 0; q < Q; ++q) {
                if (DIMS == 2 && NEAREST == 0) {
                    const ACC t = (inside[q] ? load(pc.x, ib + c * in_st[1] + off[q]) : ACC(0)) * wt[q];
                    acc = q == 0 ? t : acc + t;
                } else if (inside[q]) {
                    acc += load(pc.x, ib + c * in_st[1] + off[q]) * wt[q];
                }
            }
            store(pc.y, ob + c * out_st[1], acc);
        }
#else
        const int64_t plane = in_sz[2] * in_sz[3] * in_sz[4];
        if (pc.keys != 0UL)
            [[unroll]] for (int q = 0; q < Q; ++q)
                RsI64(pc.keys + 8UL * (e * uint64_t(Q) + uint64_t(q))).v = inside[q] ? n * plane + fpos[q] : -1L;
        ACC gg[3] = {ACC(0), ACC(0), ACC(0)};
        for (int64_t c = 0; c < C; ++c) {
            const ACC go = load(pc.y, ob + c * out_st[1]);
            if (pc.src != 0UL)
                [[unroll]] for (int q = 0; q < Q; ++q) {
                    const uint64_t at = (e * uint64_t(Q) + uint64_t(q)) * uint64_t(C) + uint64_t(c);
#if RS_IS_DBL(DT)
                    RsU64(pc.src + 8UL * at).v = doubleBitsToUint64(wt[q] * go);
#else
                    RsU32(pc.src + 4UL * at).v = floatBitsToUint(wt[q] * go);
#endif
                }
#if !NEAREST && DIMS == 2
            // d out / d (x, y), CPU's 2-d formula (corners outside read 0)
            if (pc.grad_grid != 0UL) {
                ACC v[4];
                [[unroll]] for (int q = 0; q < 4; ++q) v[q] = inside[q] ? load(pc.x, ib + c * in_st[1] + off[q]) : ACC(0);
                gg[0] = gg[0] + ((v[1] - v[0]) * lo_w[1] + (v[3] - v[2]) * hi_w[1]) * go;
                gg[1] = gg[1] + ((v[2] - v[0]) * lo_w[0] + (v[3] - v[1]) * hi_w[0]) * go;
            }
#elif !NEAREST
            // d out / d pos_j, CPU's 3-d order: each corner inside, its
            // value times the other coordinates' weights times the
            // gradient, - on the low side along j, + on the high
            if (pc.grad_grid != 0UL)
                [[unroll]] for (int q = 0; q < Q; ++q) {
                    if (!inside[q]) continue;
                    const ACC v = load(pc.x, ib + c * in_st[1] + off[q]);
                    for (int j = 0; j < DIMS; ++j) {
                        ACC t = v;
                        for (int m = 0; m < DIMS; ++m)
                            if (m != j) t *= w[q][m];
                        t *= go;
                        gg[j] += ((q >> j) & 1) != 0 ? t : -t;
                    }
                }
#endif
        }
        if (pc.grad_grid != 0UL) {
            const int64_t gb = n * ip(GP_GG_ST) + pt[2] * ip(GP_GG_ST + 1) + pt[3] * ip(GP_GG_ST + 2) +
                               pt[4] * ip(GP_GG_ST + 3);
            // (nearest: zeros, as CPU)
            for (int j = 0; j < DIMS; ++j)
                store(pc.grad_grid, gb + int64_t(j) * ip(GP_GG_ST + 4), NEAREST == 1 ? ACC(0) : gg[j] * mult[j]);
        }
#endif
    }
}
