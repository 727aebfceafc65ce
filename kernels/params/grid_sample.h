/* grid_sample.comp's parameters, written by src/engine/grid_sample.c (README.md here). */
#ifndef RS_PARAMS_GRID_SAMPLE_H
#define RS_PARAMS_GRID_SAMPLE_H

#define RS_GRID_SAMPLE_PUSH \
    uint64_t x;          /* input */ \
    uint64_t grid; \
    uint64_t y;          /* the output (MODE 0) or its gradient (MODE 1) */ \
    uint64_t grad_grid;  /* MODE 1, 0: not wanted */ \
    uint64_t keys;       /* MODE 1, 0: no input gradient wanted */ \
    uint64_t src; \
    uint64_t params;     /* the parameter block: GP_ slots of int64 */ \
    uint64_t items;      /* grid points: N * Do * Ho * Wo */ \
    uint32_t opaque_zero; /* 0, which the compiler cannot see: rnd() in grid_sample.comp */ \
    uint32_t pad_;

#define GP_IN 0        /* input sizes (N, C, D, H, W) */
#define GP_IN_ST 5     /* input strides */
#define GP_OUT 10      /* output sizes (N, C, Do, Ho, Wo) */
#define GP_OUT_ST 15
#define GP_GRID_ST 20  /* grid strides (n, zo, yo, xo, coordinate) */
#define GP_GG_ST 25    /* grad_grid strides */
#define GP_SLOTS 30

#endif
