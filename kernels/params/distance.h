/* distance.comp's parameters, written by src/engine/distance.c (README.md here). */
#ifndef RS_PARAMS_DISTANCE_H
#define RS_PARAMS_DISTANCE_H

#define RS_DISTANCE_PUSH \
    uint64_t x1;      /* (B, n, c) */ \
    uint64_t x2;      /* (B, m, c) */ \
    uint64_t dist;    /* (B, n, m): MODE 0 writes it, MODE 1 reads it */ \
    uint64_t grad;    /* (B, n, m), MODE 1 */ \
    uint64_t res;     /* MODE 1: the gradient of x1 (B, n, c) */ \
    uint64_t params;  /* DS_ slots */ \
    uint64_t p;       /* the norm's order: float bits (float32) or double bits (float64) */

#define DS_B 0
#define DS_N 1
#define DS_M 2
#define DS_C 3
#define DS_X1_ST 4    /* 3 strides each: x1, x2, dist, grad, res */
#define DS_X2_ST 7
#define DS_DIST_ST 10
#define DS_GRAD_ST 13
#define DS_RES_ST 16
#define DS_SLOTS 19

/* PK: which p (the kernel's variants, as CPU's) */
#define DS_P0 0     /* count of nonzero differences */
#define DS_P1 1
#define DS_P2 2
#define DS_PINF 3
#define DS_PGEN 4   /* any other p */

#endif
