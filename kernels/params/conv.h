/* conv.comp's parameters, written by src/engine/conv.c (README.md here). */
#ifndef RS_PARAMS_CONV_H
#define RS_PARAMS_CONV_H

#define RS_CONV_PUSH \
    uint64_t x;       /* the views' addresses (element 0 of group 0) */ \
    uint64_t w; \
    uint64_t y; \
    uint64_t bias;    /* mode 0: O elements of DT, or 0 */ \
    uint64_t part;    /* split partial sums (ACC), modes 2 (SPLIT) and 3 */ \
    uint64_t params;  /* the parameter block: CP_ slots of int64 */

#define CP_N 0
#define CP_CG 1       /* channels per group: input, output */
#define CP_OG 2
#define CP_G 3
#define CP_IN 4       /* 3 slots each: d, h, w */
#define CP_OUT 7
#define CP_KER 10
#define CP_STRIDE 13
#define CP_PAD 16
#define CP_DIL 19
#define CP_XS 22      /* 5 strides each: x (n, c, d, h, w), w (o, c, kd, kh, kw), y (n, c, d, h, w) */
#define CP_WS 27
#define CP_YS 32
#define CP_M 37       /* the GEMM: rows, columns, depth (mode 1: per class, set_class) */
#define CP_NC 38
#define CP_K 39
#define CP_TILES_M 40
#define CP_TILES_N 41
#define CP_SPLITS 42  /* mode 2: splits of k, each CP_KPS deep */
#define CP_KPS 43
#define CP_FLAGS 44   /* conv_coopmat_khr.comp: CF_ bits */
#define CP_CLASSES 45 /* mode 1: the stride's classes (conv_geom.glsl), each a product */
#define CP_SLOTS 46

#define CF_A_KF 1     /* A's slices load along k (else along rows) */
#define CF_B_KF 2     /* B's slices load along k (else along columns) */
#define CF_K_CF 4     /* k's (channel, kernel offset) pairs run channel fastest */
#define CF_VEC_A 8    /* A's 8 k from a multiple of 8 are 8 adjacent elements, all inside or all */
#define CF_VEC_B 16   /*   outside, 16-byte aligned: one 16-byte load (conv.c checks); likewise B */

#endif
