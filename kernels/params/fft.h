/* fft.comp's parameters, written by src/engine/fft.c (README.md here). */
#ifndef RS_PARAMS_FFT_H
#define RS_PARAMS_FFT_H

#define RS_FFT_PUSH \
    uint64_t src; \
    uint64_t dst; \
    uint64_t tw;       /* twiddles */ \
    uint64_t items;    /* MODE 0: rows * n / 2; MODE 1: rows */ \
    uint32_t n; \
    uint32_t ns;       /* MODE 0: this step's span */ \
    uint32_t twstep;   /* MODE 0: n / (2 ns) */ \
    uint32_t inverse;

#endif
