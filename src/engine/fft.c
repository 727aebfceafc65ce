/* fft.c: rs_fft, in-order complex64 or complex128 FFTs of contiguous rows
 * whose length is a power of two, radix-2 Stockham (kernels/fft.comp). Rows that fit in
 * shared memory (n * 8 bytes within the device's limit, n <= 4096) take one
 * dispatch, a workgroup a row, every step in shared memory. Longer rows take
 * log2(n) dispatches, each reading and writing the whole batch,
 * ping-ponging between the output and one scratch buffer so that the last
 * lands in the output. Twiddles are made on the host in double (and
 * rounded once to float for complex64), once per device, length and
 * precision (rs_device_table). Other lengths are composed on top
 * (src/engine/fft_nd.c). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/engine.h"
#include "params/fft.h"

/* what a twiddle table is for: its length and precision */
typedef struct twiddles_for {
    uint32_t n;
    int wide; /* double pairs (complex128), else float pairs */
} twiddles_for;

/* e^(-2 pi i t / n) for t < n / 2 as (cos, sin) pairs, n a power of two:
 * the sines and cosines of the first octant's angles in double (rounded
 * once to float unless wide), and the other three quarter-turns by the
 * exact symmetries (n / 8 evaluations instead of n / 2, and small
 * arguments). */
static void fill_twiddles(void *ctx, void *host) {
    const twiddles_for what = *(const twiddles_for *)ctx;
    const uint32_t n = what.n, half = n / 2, e = n / 8;
    float *w = host;
    double *wd = host;
#define TW(t, re, im) \
    do { \
        if (what.wide) wd[2 * (t)] = (re), wd[2 * (t) + 1] = (im); \
        else w[2 * (t)] = (float)(re), w[2 * (t) + 1] = (float)(im); \
    } while (0)
    const double step = 6.283185307179586476925 / (double)n;
    if (n < 8) {
        for (uint32_t t = 0; t < half; t++) TW(t, cos(step * t), -sin(step * t));
        return;
    }
    for (uint32_t u = 0; u <= e; u++) { /* theta = 2 pi u / n in [0, pi/4] */
        const double c = cos(step * u), sn = sin(step * u);
        TW(u, c, -sn);
        if (u < e) TW(2 * e - u, sn, -c);     /* t = n/4 - u: theta = pi/2 - phi */
        if (u > 0) TW(2 * e + u, -sn, -c);    /* t = n/4 + u: theta = pi/2 + phi */
        if (u > 0 && u < e) TW(4 * e - u, -c, -sn); /* t = n/2 - u: theta = pi - phi */
    }
#undef TW
}

typedef struct fft_push { RS_FFT_PUSH } fft_push;

rs_status rs_fft(rs_stream *s, const rs_fft_desc *d) {
    if (!d || d->rows < 0 || d->n < 1 || (d->n & (d->n - 1)) != 0 || d->n > (int64_t)1 << 30)
        return rs_error(RS_ERR_INVALID, "rs_fft: the length must be a power of two in [1, 2^30] (got %lld)",
                        d ? (long long)d->n : 0LL);
    if (d->dtype != RS_COMPLEX64 && d->dtype != RS_COMPLEX128)
        return rs_error(RS_ERR_INVALID, "rs_fft: complex64 or complex128 rows (got %s)", rs_dtype_name(d->dtype));
    const int wide = d->dtype == RS_COMPLEX128;
    if (wide && !rs_stream_features(s)->has_fp64)
        return rs_error(RS_ERR_UNSUPPORTED, "rs_fft: complex128 needs the device's fp64 arithmetic");
    const uint64_t es = wide ? 16u : 8u; /* bytes a value (and a twiddle) */
    uint64_t bytes = (uint64_t)d->rows * (uint64_t)d->n * es;
    if (bytes == 0) return RS_OK;
    if (d->in == d->out) return rs_error(RS_ERR_INVALID, "rs_fft: the output must not be the input");
    if (d->n == 1) return rs_memcpy_dtod(s, d->out, d->in, bytes);
    rs_device *dev = rs_stream_device(s);
    uint32_t n = (uint32_t)d->n, half = n / 2, passes = 0;
    while ((1u << passes) < n) passes++;

    /* twiddles e^(-2 pi i t / n), t < n / 2: the device's table for n and
     * the precision, made on first use; past the tables' limit, one of
     * this call's own */
    twiddles_for what = {n, wide};
    const uint64_t tw_bytes = (uint64_t)half * es;
    uint64_t tw = 0, own_tw = 0, scratch = 0;
    const uint64_t key = 0x4646542d54570000ull ^ ((uint64_t)wide << 40) ^ n; /* "FFT-TW" ^ n */
    rs_status st = rs_device_table(s, key, tw_bytes, fill_twiddles, &what, &tw);
    if (st == RS_OK && !tw) {
        void *host = malloc(tw_bytes);
        if (!host) return rs_error(RS_ERR_OOM, "rs_fft: no host memory for %u twiddles", half);
        fill_twiddles(&what, host);
        st = rs_alloc(dev, tw_bytes, s, &own_tw);
        if (st == RS_OK) st = rs_memcpy_htod(s, own_tw, host, tw_bytes);
        free(host);
        tw = own_tw;
    }
    rs_kernel *k = NULL;
    char defines[48];
    if (st == RS_OK && n <= 4096 && (uint64_t)n * es <= rs_stream_features(s)->max_shared_memory) {
        /* one workgroup a row, every step in shared memory */
        snprintf(defines, sizeof defines, "MODE=1;NMAX=%u;WIDE=%d", n, wide);
        st = rs_kernel_get(dev, "fft.comp", defines, &k);
        fft_push pc = {d->in, d->out, tw, (uint64_t)d->rows, n, 0, 0, d->inverse ? 1u : 0u};
        rs_access acc[3] = {{d->in, bytes, 0}, {tw, tw_bytes, 0}, {d->out, bytes, 1}};
        uint32_t g[3] = {rs_groups_capped(s, (uint64_t)d->rows, 65535), 1, 1};
        if (st == RS_OK) st = rs_dispatch(s, k, g, &pc, sizeof pc, acc, 3);
        if (own_tw) rs_free(dev, own_tw);
        return st;
    }
    if (st == RS_OK && passes > 1) st = rs_alloc(dev, bytes, s, &scratch);
    snprintf(defines, sizeof defines, "MODE=0;WIDE=%d", wide);
    if (st == RS_OK) st = rs_kernel_get(dev, "fft.comp", defines, &k);

    uint64_t src = d->in;
    for (uint32_t p = 0; st == RS_OK && p < passes; p++) {
        /* the passes left after this one decide where it writes: the last in out */
        uint64_t dst = ((passes - 1 - p) % 2 == 0) ? d->out : scratch;
        fft_push pc = {src, dst, tw, (uint64_t)d->rows * half, n, 1u << p, n >> (p + 1), d->inverse ? 1u : 0u};
        rs_access acc[3] = {{src, bytes, 0}, {tw, tw_bytes, 0}, {dst, bytes, 1}};
        st = rs_launch(s, k, pc.items, &pc, sizeof pc, acc, 3);
        src = dst;
    }
    if (scratch) rs_free(dev, scratch);
    if (own_tw) rs_free(dev, own_tw);
    return st;
}
