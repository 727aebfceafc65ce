/* device_checks.c: what the device's arithmetic does, checked once when the
 * device is made, by kernels that are not the user's (their waits and
 * compiles are not counted: rs_device_host_waits, rs_cache_stats_get).
 *
 * Float16 conversions (kernels/f16_check.comp). c10's (round to nearest
 * even, subnormals kept, NaN encoded as 0x7E00) written in integer GLSL cost
 * a kernel a dozen instructions an element; on the H200 they halve float16
 * bandwidth (add: 2,144 against 4,294 GB/s, bench/bw_probe.c). Most GPUs
 * convert in one instruction, but GLSL leaves the rounding and subnormals of
 * packHalf2x16 to the implementation. The check compares the two on every
 * half (decode) and on 4M floats around every rounding point (encode), and
 * the kernels use the device's conversions only where every result matched.
 * RUSSET_HW_F16=0 keeps c10's software conversions, =1 takes the device's
 * without the check (for probes).
 *
 * Float32 division (kernels/div_check.comp). Vulkan lets x / y be off by 2.5
 * ulp; CPU's is rounded once. The check divides 64K pairs over many binades
 * and compares with the host's quotients. Where any differs (NVIDIA), every
 * float32 division is rewritten to be rounded once (spirv.c, exact math);
 * where the division is right (lavapipe) nothing changes. RUSSET_DIVISION=
 * corrected rewrites without the check (to test the rewriting on lavapipe),
 * =device never rewrites. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "vk/internal.h"

/* Runs kernel `name` once over `groups` workgroups with push constants
 * `push` (whose first `nbuf` words are filled with the device addresses of
 * the buffers), uploading `in[b]` to buffer b and reading buffer `nbuf - 1`
 * back into `result`. */
static rs_status run_check(rs_device *dev, const char *name, uint32_t groups, const void *const *in,
                           const uint64_t *bytes, int nbuf, uint64_t *push, size_t push_size, void *result) {
    uint64_t waits = (uint64_t)atomic_load_explicit(&dev->host_waits, memory_order_relaxed);
    pthread_mutex_lock(&dev->kernels.lock);
    rs_cache_stats stats = dev->kernels.stats;
    pthread_mutex_unlock(&dev->kernels.lock);
    rs_kernel *k = NULL;
    rs_stream *s = NULL;
    rs_access acc[4];
    int made = 0;
    rs_status st = nbuf <= 4 ? rs_kernel_get(dev, name, NULL, &k) : RS_ERR_INVALID;
    if (!st) st = rs_stream_get(dev, 0, &s);
    while (!st && made < nbuf) {
        st = rs_alloc(dev, bytes[made], s, &push[made]);
        acc[made] = (rs_access){push[made], bytes[made], made == nbuf - 1};
        made++; /* freed below, even if the copy fails */
        if (!st) st = rs_memcpy_htod(s, push[made - 1], in[made - 1], bytes[made - 1]);
    }
    if (!st) {
        const uint32_t g[3] = {groups, 1, 1};
        st = rs_dispatch(s, k, g, push, push_size, acc, nbuf);
    }
    if (!st) st = rs_memcpy_dtoh(s, result, push[nbuf - 1], bytes[nbuf - 1]);
    for (int b = 0; b < made; b++)
        if (push[b]) rs_free(dev, push[b]);
    atomic_store_explicit(&dev->host_waits, waits, memory_order_relaxed);
    pthread_mutex_lock(&dev->kernels.lock);
    stats.pipeline_cache_loaded = dev->kernels.stats.pipeline_cache_loaded;
    dev->kernels.stats = stats;
    pthread_mutex_unlock(&dev->kernels.lock);
    return st;
}

void rs_f16_check(rs_device *dev) {
    const int forced = rs_env_flag("RUSSET_HW_F16", -1);
    if (forced >= 0) {
        dev->info.float16_conversions = forced;
        return;
    }
    uint32_t result[2] = {0, 0}; /* mismatches: decode, encode */
    const void *in[1] = {result};
    uint64_t bytes[1] = {sizeof result}, push[1] = {0};
    rs_status st = run_check(dev, "f16_check.comp", 65536 / 64, in, bytes, 1, push, sizeof push, result);
    /* a check that could not run leaves the software conversions (and no
     * error: the device works without them) */
    dev->info.float16_conversions = !st && result[0] == 0 && result[1] == 0;
}

void rs_division_check(rs_device *dev) {
    const char *e = getenv("RUSSET_DIVISION");
    if (e && strcmp(e, "corrected") == 0) {
        dev->info.division = dev->exact_math ? RS_DIVISION_CORRECTED : RS_DIVISION_APPROXIMATE;
        return;
    }
    if (e && strcmp(e, "device") == 0) {
        dev->info.division = RS_DIVISION_DEVICE;
        return;
    }
    enum { N = 65536 };
    float *ab = malloc(2 * N * sizeof *ab), *want = malloc(N * sizeof *want);
    uint32_t result[1] = {0}; /* division mismatches */
    rs_status st = ab && want ? RS_OK : RS_ERR_OOM;
    if (!st) {
        uint32_t seed = 2463534242u;
        for (int i = 0; i < N; i++) {
            uint32_t u[2];
            for (int j = 0; j < 2; j++) {
                seed ^= seed << 13, seed ^= seed >> 17, seed ^= seed << 5; /* xorshift */
                /* sign and mantissa at random, exponents 2^-27 .. 2^28 */
                u[j] = (seed & 0x807FFFFFu) | ((100u + (seed >> 8) % 56u) << 23);
            }
            memcpy(&ab[2 * i], u, 8);
            volatile float q = ab[2 * i] / ab[2 * i + 1];
            want[i] = q;
        }
        const void *in[3] = {ab, want, result};
        uint64_t bytes[3] = {2 * N * sizeof *ab, N * sizeof *want, sizeof result}, push[4] = {0, 0, 0, N};
        st = run_check(dev, "div_check.comp", N / 64, in, bytes, 3, push, sizeof push, result);
    }
    free(ab);
    free(want);
    /* a check that could not run leaves the device's division */
    dev->info.division = st || result[0] == 0 ? RS_DIVISION_DEVICE
                         : dev->exact_math    ? RS_DIVISION_CORRECTED
                                              : RS_DIVISION_APPROXIMATE;
}
