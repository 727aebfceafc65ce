/* russet/histogram.h: torch.histogram and torch.histogramdd's counts
 * (src/engine/histogram.c). */
#ifndef RUSSET_HISTOGRAM_H
#define RUSSET_HISTOGRAM_H

#include "russet/tensor.h"

#ifdef __cplusplus
extern "C" {
#endif

/* hist = the histogram of the M points of input (M, N) over the N
 * dimensions' edges (edges[d]: bins_d + 1 increasing values, any stride),
 * as CPU's histogramdd kernel (cpu/HistogramKernel.cpp): a point whose
 * coordinate in some dimension is NaN or outside [first, last edge] is
 * skipped; otherwise its bin in dimension d is the one whose edges hold it,
 * the last edge belonging to the last bin: with `linear` (edges evenly
 * spaced from bin counts) CPU's estimate trunc((x - left) * bins / (right
 * - left)) in the dtype, corrected among the neighbouring edges as CPU's
 * local search does; else upper_bound - 1. Counts are exact and rounded
 * once to the dtype; with weight (M), the weights of a bin summed in input
 * order, each step rounded to the dtype (CPU's loop on one thread). With
 * density, each bin is divided by the sum of all and then by its length
 * in each dimension in order, each step rounded (CPU's divisions).
 *
 * input, edges, weight and hist share a dtype: float16, bfloat16, float32,
 * or float64 on a device with float64 arithmetic. hist is contiguous, with
 * prod(bins_d) elements (any view of them: the engine writes it flat, the
 * last dimension fastest). N = 0 gives one bin of 0 (NaN with density). */
typedef struct rs_histogram {
    rs_tensor input;        /* (M, N) */
    int n_edges;            /* N */
    const rs_tensor *edges; /* N 1-d edge tensors */
    int linear;
    rs_tensor weight;       /* (M); address 0: none */
    int density;
    rs_tensor hist;
} rs_histogram;

RS_API rs_status rs_histogram_run(rs_stream *s, const rs_histogram *p);

#ifdef __cplusplus
}
#endif
#endif /* RUSSET_HISTOGRAM_H */
