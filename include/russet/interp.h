/* russet/interp.h: the interpolation engine (F.interpolate, nn.Upsample):
 * nearest, nearest-exact, linear (1-3 dims), cubic and the antialiased
 * linear and cubic filters, forward and backward, on (N, C, spatial...)
 * views with any strides. The first engine with a header of its own
 * (russet.h holds the runtime and the older engines).
 *
 * Every mode is separable: a pass per spatial dim applies that dim's
 * weights, the last dim first (the order in which CPU's kernels nest their
 * sums), in the opmath type (float32 for the float32 family, float64 for
 * float64), rounding to the tensor's dtype once at the end. The source
 * indices and weights are CPU's own (aten/src/ATen/native/UpSample.h and
 * the antialiasing kernels), computed on the host in the same types. The
 * backward applies the transposed weights, the dims in the opposite
 * order, each input element gathering its outputs in ascending order: no
 * atomics, the same bits every run. */
#ifndef RUSSET_INTERP_H
#define RUSSET_INTERP_H

#include "russet/tensor.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum rs_interp_mode {
    RS_INTERP_NEAREST = 0,       /* floor(dst * scale), CPU's shortcuts for 1x and 2x */
    RS_INTERP_NEAREST_EXACT = 1, /* floor((dst + 0.5) * scale) */
    RS_INTERP_LINEAR = 2,        /* linear, bilinear, trilinear */
    RS_INTERP_CUBIC = 3,         /* bicubic (A = -0.75), clamped taps */
    RS_INTERP_LINEAR_AA = 4,     /* antialiased bilinear (the triangle filter) */
    RS_INTERP_CUBIC_AA = 5,      /* antialiased bicubic (A = -0.5) */
} rs_interp_mode;

typedef struct rs_interp {
    rs_interp_mode mode;
    int backward;      /* 0: output = interp(input); 1: input = the adjoint of output (grad_input) */
    int dims;          /* spatial dims, 1 to 3: dims 2.. of both tensors */
    int align_corners; /* linear and cubic modes */
    double scales[3];  /* the caller's scale factor per spatial dim; <= 0 where none was given */
    /* (N, C, spatial...) of one dtype. Forward: input is read, output
     * written. Backward: output holds grad_output (read), input receives
     * grad_input (written). Nearest runs forward for every dtype of 1, 2,
     * 4 or 8 bytes (a copy); the weighted modes and every backward take
     * float32, float16, bfloat16 and float64 (where the device has fp64);
     * uint8 takes the 2-d weighted modes forward, in CPU's fixed point
     * (int16 weights, a uint8 result after each dim's pass: the same bits
     * as CPU's uint8 kernels). */
    rs_tensor input, output;
} rs_interp;

RS_API rs_status rs_interp_run(rs_stream *s, const rs_interp *p);

#ifdef __cplusplus
}
#endif
#endif
