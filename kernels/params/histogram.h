/* histogram.comp's parameters, written by src/engine/histogram.c (README.md here). */
#ifndef RS_PARAMS_HISTOGRAM_H
#define RS_PARAMS_HISTOGRAM_H

#define RS_HISTOGRAM_PUSH \
    uint64_t input_; \
    uint64_t idx;      /* MODE 0's output: a row's flat bin (int64), or total where skipped */ \
    uint64_t counts;   /* MODE 1's input: total + 1 counts in the input's dtype */ \
    uint64_t sum;      /* DENSITY: the counts' sum, one element */ \
    uint64_t hist; \
    uint64_t params;   /* HP_ slots of int64, then HD_ slots a dimension */

#define HP_M 0
#define HP_N 1
#define HP_XS 2       /* input's 2 strides */
#define HP_TOTAL 4    /* bins in all: the product of each dimension's */
#define HP_DIMS 5     /* dimension d's HD_ slots start at HP_DIMS + HD_SLOTS * d */
#define HD_NE 0       /* its edges: bins + 1 */
#define HD_ADDR 1     /* the edges' address */
#define HD_STRIDE 2   /* the edges' stride */
#define HD_FLAT 3     /* its bin's stride in the flat bin index */
#define HD_SLOTS 4

#endif
