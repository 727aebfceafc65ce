/* segment_reduce.comp's parameters, written by src/engine/segment_reduce.c (README.md here). */
#ifndef RS_PARAMS_SEGMENT_REDUCE_H
#define RS_PARAMS_SEGMENT_REDUCE_H

#define RS_SEGMENT_REDUCE_PUSH \
    uint64_t data; \
    uint64_t bounds;     /* offsets (outer, S + 1), or the lengths' running sums (outer, S) int64 */ \
    uint64_t grad;       /* backward */ \
    uint64_t result;     /* backward: the forward's output */ \
    uint64_t out_; \
    uint64_t params;     /* SR_ slots of int64 */ \
    uint64_t err; \
    uint32_t site; \
    uint32_t pad_;

#define SR_OUTER 0
#define SR_L 1
#define SR_INNER 2
#define SR_S 3
#define SR_INIT 4     /* the initial value's bits: float64's, else float32's */
#define SR_DS 5       /* data's 3 strides */
#define SR_BS 8       /* bounds' 2 strides */
#define SR_OS 10      /* out's 3 strides */
#define SR_GS 13      /* grad's 3 strides */
#define SR_RS 16      /* output's 3 strides */
#define SR_SLOTS 19

#endif
