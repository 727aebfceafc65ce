/* russet/linspace.h: linspace with the float16/bfloat16 rounding of a
 * chosen torch. PyTorch's CPU changed it: torch 2.13 rounds each operation
 * to the dtype, torch 2.15 computes in float and rounds once, so the same
 * inputs give other bits at some elements. rs_linspace (russet/tensor.h)
 * is this with half_in_float 0. */
#ifndef RUSSET_LINSPACE_H
#define RUSSET_LINSPACE_H

#include "russet/tensor.h"

#ifdef __cplusplus
extern "C" {
#endif

RS_API rs_status rs_linspace_rounding(rs_stream *s, const rs_tensor *dst, double start, double end,
                                      double log_base, int half_in_float);

#ifdef __cplusplus
}
#endif

#endif
