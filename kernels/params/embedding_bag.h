/* embedding_bag.comp's parameters, written by src/engine/embedding_bag.c (README.md here). */
#ifndef RS_PARAMS_EMBEDDING_BAG_H
#define RS_PARAMS_EMBEDDING_BAG_H

#define RS_EMBEDDING_BAG_PUSH \
    uint64_t weight; \
    uint64_t indices; \
    uint64_t offsets; \
    uint64_t psw;        /* HAS_PSW: per_sample_weights, weight's dtype */ \
    uint64_t out_;       /* MODE 3: rows (L, D); 4: targets (B, D) int64; 5: (L) */ \
    uint64_t bag_size;   /* 0: not written */ \
    uint64_t max_idx;    /* MODE 2, 4 */ \
    uint64_t o2b;        /* offset2bag: MODE 0-2 written (0: not), 3-5 read (O2B) */ \
    uint64_t grad;       /* MODE 3-5: the output's gradient (B, D) */ \
    uint64_t count;      /* MODE 3 with FREQ: each row's count (N, int64) */ \
    uint64_t params;     /* EB_ slots of int64 */ \
    uint64_t err; \
    uint32_t site; \
    uint32_t pad_;

#define EB_B 0        /* bags */
#define EB_D 1        /* columns */
#define EB_L 2        /* positions (indices) */
#define EB_N 3        /* weight rows */
#define EB_NOFF 4     /* offsets (B, or B + 1 with the last bag's end) */
#define EB_PADDING 5  /* padding_idx, < 0: none */
#define EB_WS 6       /* weight's 2 strides */
#define EB_IS 8       /* indices' stride */
#define EB_OFS 9      /* offsets' stride */
#define EB_PS 10      /* per_sample_weights' stride */
#define EB_OS 11      /* out's 2 strides */
#define EB_BS 13      /* bag_size's stride */
#define EB_MS 14      /* max_indices' 2 strides */
#define EB_O2BS 16    /* offset2bag's stride */
#define EB_GS 17      /* grad's 2 strides */
#define EB_SLOTS 20

#endif
