/* jagged.comp's parameters, written by src/engine/jagged.c (README.md here). */
#ifndef RS_PARAMS_JAGGED_H
#define RS_PARAMS_JAGGED_H

#define RS_JAGGED_PUSH \
    uint64_t values;    /* (total, row) contiguous */ \
    uint64_t padded;    /* (B, L, row) contiguous */ \
    uint64_t offsets;   /* (B + 1) int64 */ \
    uint64_t err;       /* the device error flag */ \
    int64_t total;      /* values' rows */ \
    int64_t batch;      /* B */ \
    int64_t item_rows;  /* L, padded's rows an item */ \
    int64_t row_words;  /* a row's words of WB bytes */ \
    uint32_t site;      /* the op's error site */ \
    uint32_t from_padded; /* 1: values from padded; 0: padded from values */

#endif
