// pool.comp: max and average pooling over (N, C, D, H, W) views with any
// strides (1-d and 2-d pooling arrive with unit leading spatial dims), and
// their backward kernels (src/engine/pool.c; contract in russet/pool.h, rs_pool).
//
// One invocation per result element: forward, an output element reduces its
// window; backward, an input element gathers the outputs whose windows hold
// it (no atomics, so no float atomics on any device, and the same bits every
// run). The gather walks those outputs in ascending order, the order in
// which CPU's kernels add into grad_input.
//
// Defines: MODE (0 max, 1 avg, 2 max backward, 3 avg backward), ADAPTIVE
// (0 fixed windows, 1 adaptive, 2 fractional: MODE 0's windows of kernel
// positions starting where CPU's generate_intervals puts them, from each
// plane's random samples), DT (the dtype of every pooled tensor),
// IDX32 (1: every view's element offsets and count fit in an int32, so
// coordinates and offsets are 32-bit arithmetic; 64-bit integer multiplies
// and divisions cost several instructions on NVIDIA and are emulated on
// Apple GPUs).
// GK, GS, GP (max pooling, fixed windows without dilation: src/engine/pool.c
// chooses): the kernel's sizes, strides and padding as constants "d,h,w",
// so that divisions by the stride are shifts or multiplications, and the
// window loops have constant trip counts (unrolled: their loads in flight
// together); else they come from the parameter block.
// Arithmetic in DT's opmath type: float for the float32 family, double for
// float64, int64 for integers.
//
// Parameter block (int64, in the stream arena): see the PP_ names below.
#version 460
#include "common/dtype.glsl"
#include "params/pool.h"
#include "common/index.glsl"
#include "common/fastdiv.glsl"
#include "common/opmath.glsl"
#include "common/error.glsl"

layout(local_size_x = RS_WG) in;

layout(push_constant) uniform Push { RS_POOL_PUSH } pc;

#define rs_raise(code, value) rs_raise_at(pc.err, pc.site, code, value)

#define T_DT DT
#include "common/dtype_inst.glsl"
#include "common/opmath_inst.glsl"
#undef T_DT

int64_t po_param(int slot) { return RsI64(pc.params + 8UL * uint64_t(slot)).v; }

#define ACC RS_OPMT(DT)
#if RS_IS_DBL(DT)
void po_store(int64_t o, double v) { RS_SET_D(DT)(pc.dst, o, doubleBitsToUint64(v)); }
#elif RS_IS_INT(DT)
void po_store(int64_t o, int64_t v) { RS_SET_I(DT)(pc.dst, o, uint64_t(v)); }
#else
void po_store(int64_t o, float v) { RS_SET_F(DT)(pc.dst, o, v); }
#endif

#if IDX32
#define OFF int
#else
#define OFF int64_t
#endif

// geometry and strides, read once per invocation (a load from the
// parameter block inside the window loops would be repeated there)
int in_[3], out_[3];
#ifdef GK
#define BAKED 1
const int ker[3] = int[3](GK), str[3] = int[3](GS), pad[3] = int[3](GP), dil[3] = int[3](1, 1, 1);
#else
#define BAKED 0
int ker[3], str[3], pad[3], dil[3];
#endif
OFF src_st[5], dst_st[5], idx_st[5];
int64_t divisor_override, count_include_pad;
uint64_t str_mg[3], sz_mg[5];  // rs_fastdiv magic pairs: the strides, the item space's sizes

// t / stride along dim j (0 <= t < 2^31: positions and padding are below 2^30)
#if BAKED
int po_div_stride(int t, int j) { return int(uint(t) / uint(str[j])); }
#else
int po_div_stride(int t, int j) { return int(rs_fastdiv(uint(t), str_mg[j])); }
#endif

#if ADAPTIVE == 2
// fractional windows: this plane's sample and the step alpha = (in - kernel)
// / (out - 1) per dim, in DT's arithmetic (src/engine/pool.c rounds alpha)
ACC frac_u[3], frac_alpha[3];
#if RS_IS_DBL(DT)
#define FR_ROUND(x) (x)
#else
#define FR_ROUND(x) RS_ROUND(DT)(x)
#endif
void po_frac_plane(int64_t n, int64_t c) {
    for (int j = 0; j < 3; ++j) {
        const int64_t k = po_param(PP_FR_MAP + j);  // this dim's sample (-1: a unit dim)
        frac_u[j] = k < 0L ? ACC(0) : RS_LDO(DT)(uint64_t(po_param(PP_FR_SAMPLES)),
                                                 n * po_param(PP_FR_ST) + c * po_param(PP_FR_ST + 1) +
                                                     k * po_param(PP_FR_ST + 2));
#if RS_IS_DBL(DT)
        frac_alpha[j] = uint64BitsToDouble(uint64_t(po_param(PP_FR_ALPHA + j)));
#else
        frac_alpha[j] = uintBitsToFloat(uint(po_param(PP_FR_ALPHA + j)));
#endif
    }
}
#endif

// The first position of output o's window along dim j: fixed windows, on
// the dilation grid and >= 0 (CPU's clipping); adaptive, floor(o in / out);
// fractional, CPU's int((o + u) alpha) - int(u alpha), the last window at
// in - kernel (each operation rounded to DT, as CPU's scalar_t arithmetic).
int po_lo(int j, int o) {
#if ADAPTIVE == 2
    if (o >= out_[j] - 1) return in_[j] - ker[j];
    const ACC u = frac_u[j], a = frac_alpha[j];
    return int(FR_ROUND(FR_ROUND(FR_ROUND(ACC(o)) + u) * a)) - int(FR_ROUND(u * a));
#elif ADAPTIVE
    return int((int64_t(o) * int64_t(in_[j])) / int64_t(out_[j]));
#else
    int start = o * str[j] - pad[j];
    if (start >= 0) return start;
    return dil[j] == 1 ? 0 : start + ((-start + dil[j] - 1) / dil[j]) * dil[j];
#endif
}

// Window of output o along dim j: positions [lo, hi) step `step` (fixed
// windows: dilation; only positions inside the input). CPU's clipping.
void po_window(int j, int o, out int lo, out int hi, out int step) {
    lo = po_lo(j, o);
#if ADAPTIVE == 2
    hi = lo + ker[j];
    step = 1;
#elif ADAPTIVE
    hi = int((int64_t(o + 1) * int64_t(in_[j]) + int64_t(out_[j]) - 1L) / int64_t(out_[j]));
    step = 1;
#else
    int start = o * str[j] - pad[j];
    step = dil[j];
    // one past the last position < in
    int last = start + (ker[j] - 1) * step;
    if (last >= in_[j]) last = start + ((in_[j] - 1 - start) / step) * step;
    hi = last + 1;
#endif
}

#if MODE == 1 || MODE == 3
// avg: the divisor of output o (od, oh, ow). Fixed windows, as CPU's
// avg_pool kernels: the window clipped to the padded input, then to the
// input unless count_include_pad.
int64_t po_divisor(int o[3]) {
    if (divisor_override != 0L) return divisor_override;
    int64_t size = 1L, clipped = 1L;
    for (int j = 0; j < 3; ++j) {
        int start = o[j] * str[j] - pad[j];
        int end = min(start + ker[j], in_[j] + pad[j]);
        size *= int64_t(end - start);
        clipped *= int64_t(min(end, in_[j]) - max(start, 0));
    }
    return count_include_pad != 0L ? size : clipped;
}
#endif

#if MODE >= 2 && !ADAPTIVE
// the output whose window holds position p at kernel offset k along dim j,
// or -1
int po_out_of(int j, int p, int k) {
    int t = p + pad[j] - k * dil[j];
    if (t < 0) return -1;
    int o = po_div_stride(t, j);
    return o * str[j] == t && o < out_[j] ? o : -1;
}
#endif

#if MODE == 2
// Whether input position p is the first position of output o's window: the
// one invocation that checks o's index (each index is checked once).
bool po_first_of(int p[3], int o[3]) {
    for (int j = 2; j >= 0; --j)  // the last dim first: it rules out most
        if (p[j] != po_lo(j, o[j])) return false;
    return true;
}

// whether flat index ix (in the input's spatial plane) lies in output o's
// window
bool po_in_window(int64_t ix, int64_t plane, int o[3]) {
    if (ix < 0L || ix >= plane) return false;
    int p[3];
#if IDX32
    // (the plane holds fewer than 2^31 positions: 32-bit divisions, which
    // cost a fraction of 64-bit ones)
    uint q = uint(ix);
    p[2] = int(q % uint(in_[2]));
    q /= uint(in_[2]);
    p[1] = int(q % uint(in_[1]));
    p[0] = int(q / uint(in_[1]));
#else
    uint64_t q = uint64_t(ix), r;
    rs_divmod(q, uint64_t(in_[2]), r);
    p[2] = int(r);
    rs_divmod(q, uint64_t(in_[1]), r);
    p[1] = int(r);
    p[0] = int(q);
#endif
    for (int j = 0; j < 3; ++j) {
        int lo, hi, step;
        po_window(j, o[j], lo, hi, step);
        if (p[j] < lo || p[j] >= hi || (p[j] - lo) % step != 0) return false;
    }
    return true;
}
#endif

// item -> (n, c, d, h, w) over sizes sz (5 dims), channels fastest when cl
#if IDX32
#define PO_DIVMOD(d) { uint q_ = rs_fastdiv(i, sz_mg[d]); co[d] = OFF(i - q_ * uint(sz[d])); i = q_; }
#else
#define PO_DIVMOD(d) { uint64_t r_; rs_divmod(i, uint64_t(sz[d]), r_); co[d] = OFF(r_); }
#endif
void po_coords(uint64_t item, const int64_t sz[5], out OFF co[5]) {
#if IDX32
    uint i = uint(item);
#else
    uint64_t i = item;
#endif
    if (pc.cl != 0u) {
        PO_DIVMOD(1);
        for (int d = 4; d >= 2; --d) PO_DIVMOD(d);
    } else {
        for (int d = 4; d >= 1; --d) PO_DIVMOD(d);
    }
    co[0] = OFF(i);
}

OFF po_offset(const OFF st[5], const OFF co[5]) {
    OFF o = OFF(0);
    for (int d = 0; d < 5; ++d) o += co[d] * st[d];
    return o;
}

void main() {
    for (int j = 0; j < 3; ++j) {
        in_[j] = int(po_param(PP_IN + j));
        out_[j] = int(po_param(PP_OUT + j));
#if !BAKED
        ker[j] = int(po_param(PP_KERNEL + j));
        str[j] = int(po_param(PP_STRIDE + j));
        pad[j] = int(po_param(PP_PAD + j));
        dil[j] = int(po_param(PP_DIL + j));
#endif
    }
    for (int d = 0; d < 5; ++d) {
        // (IDX32: a size-1 dim's stride may not fit; its coordinate is 0)
        src_st[d] = OFF(po_param(PP_SRC_ST + d));
        dst_st[d] = OFF(po_param(PP_DST_ST + d));
        idx_st[d] = OFF(po_param(PP_IDX_ST + d));
    }
#if !BAKED
    for (int j = 0; j < 3; ++j) str_mg[j] = uint64_t(po_param(PP_STR_MAGIC + j));
#endif
    for (int d = 0; d < 5; ++d) sz_mg[d] = uint64_t(po_param(PP_SZ_MAGIC + d));
    divisor_override = po_param(PP_DIVISOR);
    count_include_pad = po_param(PP_INCL_PAD);
    int64_t sz[5];
    sz[0] = po_param(PP_N);
    sz[1] = po_param(PP_C);
    for (int j = 0; j < 3; ++j) sz[2 + j] = int64_t(MODE < 2 ? out_[j] : in_[j]);
    int64_t plane = int64_t(in_[0]) * int64_t(in_[1]) * int64_t(in_[2]);

    RS_FOR_EACH(item, pc.items) {
        OFF co[5];
        po_coords(item, sz, co);
        OFF dst_off = po_offset(dst_st, co);
#if MODE < 2
        // ---- forward: reduce output (od, oh, ow)'s window
        int lo[3], hi[3], step[3];
#if ADAPTIVE == 2
        po_frac_plane(int64_t(co[0]), int64_t(co[1]));
#endif
        for (int j = 0; j < 3; ++j) po_window(j, int(co[2 + j]), lo[j], hi[j], step[j]);
        OFF base = co[0] * src_st[0] + co[1] * src_st[1];
        OFF sd = src_st[2], sh = src_st[3], sw = src_st[4];
#if MODE == 0
        // CPU: the first position is the index of a window with no larger
        // value; a larger value or any NaN takes over (the last NaN wins)
#if RS_IS_INT(DT)
        ACC m = ACC(0x8000000000000000UL);
#elif RS_IS_DBL(DT)
        ACC m = uint64BitsToDouble(0xFFF0000000000000UL);
#else
        ACC m = uintBitsToFloat(0xFF800000u);
#endif
        int64_t arg = (int64_t(lo[0]) * int64_t(in_[1]) + int64_t(lo[1])) * int64_t(in_[2]) + int64_t(lo[2]);
#if BAKED
        // constant trip counts (step 1: no dilation), positions past hi
        // skipped; unrolled
        [[unroll]] for (int kd = 0; kd < ker[0]; ++kd) {
            const int d = lo[0] + kd;
            if (d >= hi[0]) break;
            [[unroll]] for (int kh = 0; kh < ker[1]; ++kh) {
                const int h = lo[1] + kh;
                if (h >= hi[1]) break;
                [[unroll]] for (int kw = 0; kw < ker[2]; ++kw) {
                    const int w = lo[2] + kw;
                    if (w >= hi[2]) break;
#else
        for (int d = lo[0]; d < hi[0]; d += step[0])
            for (int h = lo[1]; h < hi[1]; h += step[1])
                for (int w = lo[2]; w < hi[2]; w += step[2]) {
#endif
                    ACC v = RS_LDO(DT)(pc.src, int64_t(base + OFF(d) * sd + OFF(h) * sh + OFF(w) * sw));
#if RS_IS_INT(DT)
                    bool take = v > m;
#else
                    bool take = v > m || isnan(v);
#endif
                    if (take) {
                        m = v;
                        arg = (int64_t(d) * int64_t(in_[1]) + int64_t(h)) * int64_t(in_[2]) + int64_t(w);
                    }
                }
#if BAKED
            }
        }
#endif
        po_store(int64_t(dst_off), m);
        RsI64(pc.idx + 8UL * uint64_t(po_offset(idx_st, co))).v = arg;
#else
        ACC sum = ACC(0);
        for (int d = lo[0]; d < hi[0]; d += step[0])
            for (int h = lo[1]; h < hi[1]; h += step[1])
                for (int w = lo[2]; w < hi[2]; w += step[2])
                    sum += RS_LDO(DT)(pc.src, int64_t(base + OFF(d) * sd + OFF(h) * sh + OFF(w) * sw));
#if ADAPTIVE
        // CPU: sum / kd / kh / kw, one division per dim
        for (int j = 0; j < 3; ++j) sum /= ACC(hi[j] - lo[j]);
#else
        int o3[3] = {int(co[2]), int(co[3]), int(co[4])};
        sum /= ACC(po_divisor(o3));  // int64: truncated, as CPU
#endif
        po_store(int64_t(dst_off), sum);
#endif
#else
        // ---- backward: input element (id, ih, iw) gathers its outputs
        int p[3] = {int(co[2]), int(co[3]), int(co[4])};
        // the outputs along dim j whose windows hold p[j], ascending (the
        // order of CPU's sums): adaptive windows, [olo, ohi); fixed windows
        // without dilation, the range o stride <= p + pad < o stride + kernel;
        // dilated, o = (p + pad - k dil) / stride for the kernel offsets k
        // walked downwards (`walk`: v is k, not o)
        int olo[3], ohi[3], inc[3];
        bool walk[3];
        for (int j = 0; j < 3; ++j) {
            inc[j] = 1;
            walk[j] = false;
#if ADAPTIVE
            olo[j] = int((int64_t(p[j]) * int64_t(out_[j])) / int64_t(in_[j]));
            ohi[j] = int((int64_t(p[j] + 1) * int64_t(out_[j]) + int64_t(in_[j]) - 1L) / int64_t(in_[j]));
#else
            int t = p[j] + pad[j];
            if (dil[j] == 1) {
                int first = t - ker[j] + 1;
                olo[j] = first <= 0 ? 0 : po_div_stride(first - 1, j) + 1;  // ceil(first / stride)
                ohi[j] = min(po_div_stride(t, j), out_[j] - 1) + 1;
                if (ohi[j] < olo[j]) ohi[j] = olo[j];
            } else {
                olo[j] = ker[j] - 1;  // k, downwards to 0
                ohi[j] = -1;
                inc[j] = -1;
                walk[j] = true;
            }
#endif
        }
        OFF base = co[0] * src_st[0] + co[1] * src_st[1];
        OFF ibase = co[0] * idx_st[0] + co[1] * idx_st[1];
        int64_t self_ix = (int64_t(p[0]) * int64_t(in_[1]) + int64_t(p[1])) * int64_t(in_[2]) + int64_t(p[2]);
        ACC acc = ACC(0);
#if BAKED
        // at most ceil(kernel / stride) outputs along dim j: a constant trip
        // count (unrolled), the outputs from ohi on skipped
#define PO_LOOP(j, v) [[unroll]] for (int v##_n = 0, v = olo[j]; v##_n < (ker[j] + str[j] - 1) / str[j]; ++v##_n, ++v) \
    if (v < ohi[j])
#else
#define PO_LOOP(j, v) for (int v = olo[j]; v != ohi[j]; v += inc[j])
#endif
#if ADAPTIVE
#define PO_OUT(j, v) v
#define PO_SKIP(j, o) false
#else
        // walked kernel offset k -> output, -1 when no window at k holds p
#define PO_OUT(j, v) (walk[j] ? po_out_of(j, p[j], v) : v)
#define PO_SKIP(j, o) (o < 0)
#endif
        PO_LOOP(0, k0) {
            int o0 = PO_OUT(0, k0);
            if (PO_SKIP(0, o0)) continue;
            PO_LOOP(1, k1) {
                int o1 = PO_OUT(1, k1);
                if (PO_SKIP(1, o1)) continue;
                PO_LOOP(2, k2) {
                    int o2 = PO_OUT(2, k2);
                    if (PO_SKIP(2, o2)) continue;
                    OFF oo = base + OFF(o0) * src_st[2] + OFF(o1) * src_st[3] + OFF(o2) * src_st[4];
#if MODE == 2
                    OFF io = ibase + OFF(o0) * idx_st[2] + OFF(o1) * idx_st[3] + OFF(o2) * idx_st[4];
                    int64_t ix = RsI64(pc.idx + 8UL * uint64_t(io)).v;
                    if (ix == self_ix) {
                        acc += RS_LDO(DT)(pc.src, int64_t(oo));
                    } else if (po_first_of(p, int[3](o0, o1, o2)) && !po_in_window(ix, plane, int[3](o0, o1, o2))) {
                        rs_raise(1u, ix);  // indices not made by the forward
                    }
#else
#if ADAPTIVE
                    // CPU: grad / kd / kh / kw
                    ACC g = RS_LDO(DT)(pc.src, int64_t(oo));
                    int o3[3] = {o0, o1, o2};
                    for (int j = 0; j < 3; ++j) {
                        int lo, hi, step;
                        po_window(j, o3[j], lo, hi, step);
                        g /= ACC(hi - lo);
                    }
                    acc += g;
#else
                    acc += RS_LDO(DT)(pc.src, int64_t(oo)) / ACC(po_divisor(int[3](o0, o1, o2)));
#endif
#endif
                }
            }
        }
        po_store(int64_t(dst_off), acc);
#endif
    }
}
