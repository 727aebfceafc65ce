/* ctc.comp's parameters, written by src/engine/ctc.c (README.md here). */
#ifndef RS_PARAMS_CTC_H
#define RS_PARAMS_CTC_H

#define RS_CTC_PUSH \
    uint64_t lp;        /* log_probs (T, N, C) */ \
    uint64_t targets;   /* TG_DT labels: sample n's j-th at tg_start(n) + j * CT_TG_ST */ \
    uint64_t alpha;     /* log_alpha (N, T, S): MODE 0 writes it, MODE 3 reads it */ \
    uint64_t beta;      /* log_beta (N, T, S), contiguous scratch: MODE 1 writes it, MODE 3 reads it */ \
    uint64_t nll;       /* (N): MODE 0 writes it, MODE 2 and 3 read it */ \
    uint64_t grad_out;  /* (N) */ \
    uint64_t grad;      /* (T, N, C): MODE 2 writes every element, MODE 3 the target's classes */ \
    uint64_t params;    /* the parameter block: CT_ slots, then CT_PER_SAMPLE slots per sample */ \
    uint64_t items;     /* MODE 2: T N C; MODE 3: T N (Lmax + 1) */ \
    uint64_t err; \
    uint32_t site; \
    uint32_t pad;

#define CT_T 0        /* frames (log_probs' T) */
#define CT_N 1
#define CT_C 2        /* classes */
#define CT_S 3        /* 2 Lmax + 1: log_alpha's last dim */
#define CT_LMAX 4
#define CT_BLANK 5
#define CT_ZERO_INF 6 /* zero_infinity: a sample of infinite loss gets a zero gradient */
#define CT_LP_ST 7    /* 3 strides each: log_probs and grad (t, n, c), log_alpha (n, t, s) */
#define CT_GRAD_ST 10
#define CT_ALPHA_ST 13
#define CT_NLL_ST 16  /* nll's and grad_out's strides */
#define CT_GO_ST 17
#define CT_TG_ST 18   /* the targets' stride along a sample's labels */
#define CT_SLOTS 19
/* then per sample n, at CT_SLOTS + CT_PER_SAMPLE n: */
#define CT_IN_LEN 0   /* input length (frames) */
#define CT_TG_LEN 1   /* target length */
#define CT_TG_START 2 /* element offset of its first label */
#define CT_PER_SAMPLE 3

#endif
