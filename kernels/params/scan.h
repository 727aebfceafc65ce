/* scan.comp's parameters, written by src/engine/scan.c (README.md here). */
#ifndef RS_PARAMS_SCAN_H
#define RS_PARAMS_SCAN_H

#define RS_SCAN_PUSH \
    uint64_t src; \
    uint64_t dst;      /* values, contiguous [rows, n] */ \
    uint64_t idx;      /* int64 indices (cummax, cummin), contiguous [rows, n]; complex logcumsumexp: the chunk length */ \
    uint64_t rows; \
    uint64_t n; \
    uint64_t scratch;  /* MODE 1-3: block states [rows, nb] */ \
    uint64_t nb;       /* MODE 1-3: blocks per row; complex logcumsumexp: the chunk's start */

#endif
