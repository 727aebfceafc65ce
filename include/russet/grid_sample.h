/* russet/grid_sample.h: the grid-sampling engine (F.grid_sample, ATen's
 * grid_sampler_2d / grid_sampler_3d and their backward): bilinear
 * (trilinear in 3-d) and nearest, padding zeros, border and reflection,
 * align_corners, on (N, C, [D,] H, W) inputs and (N, [Do,] Ho, Wo, k)
 * grids with any strides.
 *
 * Each grid point is unnormalized, clipped or reflected as ATen's
 * GridSampler.h does it (with the derivative of every step, for the grid's
 * gradient), in the opmath type (float32 for the float32 family, float64
 * for float64); output and gradients round to the tensors' dtype once.
 * Corners outside the input count zero; nearest rounds half to even.
 *
 * The backward writes, per grid point and corner, the input position it
 * reads and the weighted output gradient, and sums them into the input's
 * gradient with the index-reduction engine (rs_index_reduce_run: sorted,
 * in CPU's order of grid points and corners), so the input's gradient has
 * the same bits every run, no atomics. Its scratch is N * Ho * Wo * 2^k * C
 * values of the opmath type. bicubic is not here (the adapter runs it on
 * the host). */
#ifndef RUSSET_GRID_SAMPLE_H
#define RUSSET_GRID_SAMPLE_H

#include "russet/tensor.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ATen's numbering (GridSamplerInterpolation, GridSamplerPadding) */
typedef enum rs_grid_mode { RS_GRID_BILINEAR = 0, RS_GRID_NEAREST = 1 } rs_grid_mode;
typedef enum rs_grid_padding { RS_GRID_ZEROS = 0, RS_GRID_BORDER = 1, RS_GRID_REFLECTION = 2 } rs_grid_padding;

typedef struct rs_grid_sample {
    rs_grid_mode mode;
    rs_grid_padding padding;
    int align_corners;
    int dims;     /* spatial dims: 2 or 3 */
    int backward; /* 0: output = sample(input, grid); 1: the gradients */
    /* all of one dtype: float32, float16, bfloat16, or float64 where the
     * device has fp64 (RS_ERR_UNSUPPORTED otherwise) */
    rs_tensor input;  /* (N, C, [D,] H, W), read; every spatial size > 0 */
    rs_tensor grid;   /* (N, [Do,] Ho, Wo, dims): x (W), y (H)[, z (D)] in [-1, 1] */
    rs_tensor output; /* forward: (N, C, [Do,] Ho, Wo), written; backward: its gradient, read */
    rs_tensor grad_input; /* backward: input's shape, written (address 0: not wanted) */
    rs_tensor grad_grid;  /* backward: grid's shape, written (address 0: not wanted) */
} rs_grid_sample;

RS_API rs_status rs_grid_sample_run(rs_stream *s, const rs_grid_sample *p);

#ifdef __cplusplus
}
#endif
#endif
