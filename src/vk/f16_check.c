/* f16_check.c: does the device convert float16 as c10 does?
 *
 * c10's float16 conversions (round to nearest even, subnormals kept, NaN
 * encoded as 0x7E00) written in integer GLSL cost a kernel a dozen
 * instructions an element; on the H200 they halve float16 bandwidth (add:
 * 2,144 against 4,294 GB/s, bench/bw_probe.c). Most GPUs convert in one
 * instruction, but GLSL leaves the rounding and subnormals of
 * packHalf2x16 to the implementation. So each device is checked once,
 * when it is made: kernels/f16_check.comp compares the two on every half
 * (decode) and on 4M floats around every rounding point (encode), and the
 * kernels use the device's conversions only where every result matched.
 * RUSSET_HW_F16=0 keeps c10's software conversions, =1 takes the device's
 * without the check (for probes). */
#include <stdlib.h>
#include <string.h>

#include "vk/internal.h"

void rs_f16_check(rs_device *dev) {
    const char *e = getenv("RUSSET_HW_F16");
    if (e && *e) {
        dev->info.float16_conversions = atoi(e) != 0;
        return;
    }
    /* a one-time check at device creation: its wait and its kernel are not
     * the user's (rs_device_host_waits, rs_cache_stats_get) */
    uint64_t waits = (uint64_t)atomic_load_explicit(&dev->host_waits, memory_order_relaxed);
    pthread_mutex_lock(&dev->kernels.lock);
    rs_cache_stats stats = dev->kernels.stats;
    pthread_mutex_unlock(&dev->kernels.lock);
    rs_kernel *k = NULL;
    rs_stream *s = NULL;
    uint64_t out = 0;
    uint32_t result[2] = {0, 0}; /* mismatches: decode, encode */
    rs_status st = rs_kernel_get(dev, "f16_check.comp", NULL, &k);
    if (!st) st = rs_stream_get(dev, 0, &s);
    if (!st) st = rs_alloc(dev, sizeof result, s, &out);
    if (!st) st = rs_memcpy_htod(s, out, result, sizeof result);
    if (!st) {
        const uint32_t groups[3] = {65536 / 64, 1, 1};
        rs_access acc = {out, sizeof result, 1};
        st = rs_dispatch(s, k, groups, &out, sizeof out, &acc, 1);
    }
    if (!st) st = rs_memcpy_dtoh(s, result, out, sizeof result);
    if (out) rs_free(dev, out);
    atomic_store_explicit(&dev->host_waits, waits, memory_order_relaxed);
    pthread_mutex_lock(&dev->kernels.lock);
    stats.pipeline_cache_loaded = dev->kernels.stats.pipeline_cache_loaded;
    dev->kernels.stats = stats;
    pthread_mutex_unlock(&dev->kernels.lock);
    /* a check that could not run leaves the software conversions (and no
     * error: the device works without them) */
    dev->info.float16_conversions = !st && result[0] == 0 && result[1] == 0;
}
