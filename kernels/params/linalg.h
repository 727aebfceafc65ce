/* linalg.comp's parameters, written by src/engine/linalg.c (README.md here). */
#ifndef RS_PARAMS_LINALG_H
#define RS_PARAMS_LINALG_H

#define RS_LINALG_PUSH \
    uint64_t a;       /* MODE 0 and 2: the matrices read; 1, 4 and 12: factored in place; 5: the reflectors */ \
    uint64_t res;     /* MODE 0: the factor; 2 and 3: the right-hand sides, in place; 5: Q; 9: det or sign; 6, 7: V (LA_F_VECS); 10: Q */ \
    uint64_t piv;     /* int32 pivots, 1-based (MODE 1 and 12 write, MODE 3 reads) */ \
    uint64_t info;    /* int32 (MODE 0, 1 and 12); MODE 8: the diagonal as (base, correction) reals */ \
    uint64_t tau;     /* MODE 4 writes, MODE 5 reads; MODE 7 and 8: each pair's rotation (LA_ROT_SLOTS reals); 9: log |det| */ \
    uint64_t params;  /* LA_ slots */ \
    uint64_t err; \
    uint32_t site; \
    uint32_t flags;   /* LA_F_ bits */ \
    uint32_t opaque_zero; /* 0, which the compiler cannot see: rnd() in linalg.comp */ \
    uint32_t round;   /* MODE 6, 7, 8: the round of the sweep (0 .. n - 2) */

#define LA_P 0        /* matrices in the batch */
#define LA_M 1        /* rows */
#define LA_N 2        /* columns; MODE 3: the pivots */
#define LA_K 3        /* MODE 1 and 4: min(m, n); 2, 3 and 5: the result's columns */
#define LA_R 4        /* MODE 5: reflectors */
#define LA_A_ST 5     /* 3 strides each (batch, row, column): a, out */
#define LA_OUT_ST 8
#define LA_PIV_ST 11  /* 2 strides each (batch, index): piv, tau */
#define LA_TAU_ST 13
#define LA_INFO_ST 15
/* MODE 0, 3 and 12: the block's first row (and column) in the whole matrix,
 * added to the info and pivots written, taken from the pivots read (the
 * blocked drivers) */
#define LA_J0 16
#define LA_SLOTS 17

/* the blocked drivers' block width: MODE 12's widest panel */
#define LA_BLOCK 64

/* MODE 7 -> 8: a pair's rotation in the scratch (reals) */
#define LA_ROT_T 0
#define LA_ROT_C 1
#define LA_ROT_S 2
#define LA_ROT_PH 3   /* the coupling's phase: re, im */
#define LA_ROT_A 5    /* the diagonal entries and |coupling| before the round */
#define LA_ROT_B 6
#define LA_ROT_G 7
#define LA_ROT_SLOTS 8

#define LA_F_CONJ 1u    /* a is read conjugated (MODE 0 and 2) */
#define LA_F_UPPER 2u   /* MODE 2: a is upper triangular (else lower) */
#define LA_F_UNIT 4u    /* MODE 2: a's diagonal is taken as ones */
#define LA_F_INVERSE 8u /* MODE 3: the interchanges in reverse order (P B, not P^T B) */
#define LA_F_LOG 16u    /* MODE 9: sign and log |det| (slogdet), not det */
#define LA_F_VECS 32u   /* MODE 6 and 7: the rotations also turn the columns of res (V, n x n) */
#define LA_F_INFO_KEEP 64u /* MODE 0 and 12: a nonzero info already there stays (a later block's) */
/* MODE 3: column c takes only the interchanges of the blocks after its own
 * (steps from (c / LA_BLOCK + 1) LA_BLOCK): the blocked LU's deferred swaps
 * of L's columns */
#define LA_F_LATER_BLOCKS 128u

#endif
