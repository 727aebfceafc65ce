/* russet/gather.h: gather and scatter along a dim (src/engine/gather.c). */
#ifndef RUSSET_GATHER_H
#define RUSSET_GATHER_H

#include "russet/tensor.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------- gather and scatter */
/* (src/engine/gather.c) For every element i of `index` (int64 or int32, the ndim of
 * `self`):
 *   RS_GATHER:        other[i] = self[i with dim := index[i]]  (other: out, index's shape)
 *   RS_SCATTER:       self[i with dim := index[i]] = other[i]  (other: src, at least index's shape)
 *   RS_SCATTER_VALUE: self[i with dim := index[i]] = value     (value: the element's bytes)
 * Elements move as bytes (self and other have one dtype: any dtype, float64
 * included without fp64). An index outside [0, self.size(dim)) raises the
 * device error flag (reported at the next sync). Scatter with repeated
 * indices writes one of the candidates (which one is not defined, as on
 * CUDA). */
typedef enum rs_gather_mode { RS_GATHER = 0, RS_SCATTER = 1, RS_SCATTER_VALUE = 2 } rs_gather_mode;

typedef struct rs_gather {
    rs_gather_mode mode;
    int dim;
    rs_tensor self, index, other;
    uint8_t value[16];
} rs_gather;

RS_API rs_status rs_gather_run(rs_stream *s, const rs_gather *g);

#ifdef __cplusplus
}
#endif
#endif /* RUSSET_GATHER_H */
