// histogram.comp: torch.histogram and histogramdd (src/engine/histogram.c;
// contract in russet/histogram.h).
//   MODE 0: idx[m] = the flat bin of input row m's coordinates, or `total`
//     where one of them is NaN or outside its dimension's edges. A bin is
//     CPU's (cpu/HistogramKernel.cpp): with LINEAR (evenly spaced edges
//     from bin counts) the estimate trunc((x - left) * bins / (right -
//     left)), each step rounded to the dtype, corrected among the edges
//     est - 1 .. est + 1 (CPU's local search); else upper_bound - 1 (a
//     binary search). The right-most edge belongs to the last bin.
//   MODE 1: hist[b] = counts[b], with DENSITY divided by the counts' sum and
//     then by each dimension's bin length in order, each step rounded to
//     the dtype (CPU's divisions).
// Defines: DT (float16, bfloat16, float32 or float64), MODE, LINEAR, DENSITY.
#version 460
#include "common/dtype.glsl"
#include "params/histogram.h"
#include "common/index.glsl"
#include "common/opmath.glsl"

layout(local_size_x = RS_WG) in;

#define T_DT DT
#include "common/dtype_inst.glsl"
#include "common/opmath_inst.glsl"
#undef T_DT
#define ACC RS_OPMT(DT)

layout(push_constant) uniform Push { RS_HISTOGRAM_PUSH } pc;

int64_t hp(int slot) { return RsI64(pc.params + 8UL * uint64_t(slot)).v; }
int64_t hd(int64_t d, int slot) { return hp(HP_DIMS + HD_SLOTS * int(d) + slot); }

#if RS_IS_DBL(DT)
ACC to_dt(ACC v) { return v; }
void store(uint64_t base, int64_t off, ACC v) { RS_SET_D(DT)(base, off, doubleBitsToUint64(v)); }
#else
ACC to_dt(ACC v) { return RS_ROUND(DT)(v); }  // the value the dtype holds (CPU's scalar_t arithmetic)
void store(uint64_t base, int64_t off, ACC v) { RS_SET_F(DT)(base, off, v); }
#endif

ACC edge(int64_t d, int64_t k) { return RS_LDO(DT)(uint64_t(hd(d, HD_ADDR)), k * hd(d, HD_STRIDE)); }

// std::upper_bound - 1 over the edges, with its probes and its test (x <
// edge: a NaN edge sends the search right), so that even unsorted edges
// give CPU's bin
int64_t bin_by_search(int64_t d, int64_t ne, ACC x) {
    int64_t a = 0L, b = ne;
    while (a < b) {
        const int64_t mid = a + (b - a) / 2L;
        if (x < edge(d, mid)) b = mid;
        else a = mid + 1L;
    }
    return a - 1L;
}

#if MODE == 0
void main() {
    const int64_t M = hp(HP_M), N = hp(HP_N), total = hp(HP_TOTAL);
    RS_FOR_EACH(e, uint64_t(M)) {
        const int64_t m = int64_t(e);
        int64_t at = 0L;
        bool valid = true;
        for (int64_t d = 0L; d < N; ++d) {
            const ACC x = RS_LDO(DT)(pc.input_, m * hp(HP_XS) + d * hp(HP_XS + 1));
            const int64_t ne = hd(d, HD_NE);
            const ACC lo = edge(d, 0L), hi = edge(d, ne - 1L);
            if (!(x >= lo && x <= hi)) {
                valid = false;
                break;
            }
#if LINEAR
            const ACC nb = to_dt(ACC(ne - 1L));  // the integer converted to the dtype first, as c10::Half's operator*
            precise ACC est = to_dt(to_dt(to_dt(x - lo) * nb) / to_dt(hi - lo));
            int64_t pos;
            if (isinf(est)) {
                // an estimate that overflowed the dtype: CPU's conversion of it
                // is undefined; the search finds the bin
                pos = bin_by_search(d, ne, x);
            } else {
                // a NaN estimate (every edge one value) is bin 0, as CPU's conversion
                const int64_t ei = isnan(est) ? 0L : int64_t(est);
                const int64_t start = max(ei - 1L, 0L), end = min(ei + 2L, ne);
                int64_t cnt = 0L;
                for (int64_t k = start; k < end; ++k)
                    if (edge(d, k) <= x) ++cnt;
                pos = start + cnt - 1L;
            }
#else
            int64_t pos = bin_by_search(d, ne, x);
#endif
            at += clamp(pos, 0L, ne - 2L) * hd(d, HD_FLAT);
        }
        RsI64(pc.idx + 8UL * uint64_t(m)).v = valid ? at : total;
    }
}

#else
void main() {
    const int64_t total = hp(HP_TOTAL), N = hp(HP_N);
#if DENSITY
    const ACC sum = RS_LDO(DT)(pc.sum, 0L);
#endif
    RS_FOR_EACH(e, uint64_t(total)) {
        const int64_t b = int64_t(e);
        ACC v = RS_LDO(DT)(pc.counts, b);
#if DENSITY
        v = to_dt(v / sum);
        for (int64_t d = 0L; d < N; ++d) {
            const int64_t i = (b / hd(d, HD_FLAT)) % (hd(d, HD_NE) - 1L);
            v = to_dt(v / to_dt(edge(d, i + 1L) - edge(d, i)));
        }
#endif
        store(pc.hist, b, v);
    }
}
#endif
