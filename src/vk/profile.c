/* Kernel timing for profilers (russet/profiler.h; docs/profiling.md).
 *
 * A batch of a profiling device gets a timestamp query pool on its first
 * timed dispatch (two queries a dispatch, RS_PROF_QUERIES at most: a batch
 * holds at most 256 dispatches), reset in its command buffer; each timed
 * dispatch writes one timestamp at the top of the pipe before it and one at
 * the bottom after it, and its kernel name and the recording thread's
 * correlation id go into the batch's marks. When the stream recycles the
 * finished batch (stream.c), the marks and the timestamps become records
 * on the device, in host time. The pool stays with the batch for reuse and
 * is destroyed with it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "russet/profiler.h"
#include "vk/internal.h"

#define RS_PROF_QUERIES 512 /* two a dispatch: RS_BATCH_LIMIT (stream.c) is 256 */

static _Thread_local uint64_t tl_correlation;

void rs_profiler_set_correlation(uint64_t id) { tl_correlation = id; }

int rs_profiler_active(rs_device *dev) { return atomic_load(&dev->profiling) != 0; }

static int64_t realtime_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static int64_t ticks_ns(rs_device *dev, uint64_t ticks) {
    return (int64_t)((double)rs_timestamp_ticks(dev, ticks) * dev->info.timestamp_period_ns);
}

rs_status rs_profile_begin_locked(rs_stream *s, rs_batch *b, const char *name) {
    rs_device *dev = s->dev;
    if (!b->queries) {
        VkQueryPoolCreateInfo qci = {.sType = VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO,
                                     .queryType = VK_QUERY_TYPE_TIMESTAMP,
                                     .queryCount = RS_PROF_QUERIES};
        VkResult r = vkCreateQueryPool(dev->device, &qci, NULL, &b->queries);
        if (r != VK_SUCCESS) {
            b->queries = VK_NULL_HANDLE;
            return rs_vk_error(r, "vkCreateQueryPool (profiler)");
        }
        b->marks = calloc(RS_PROF_QUERIES / 2, sizeof *b->marks);
        if (!b->marks) return rs_error(RS_ERR_OOM, "russet: out of host memory");
    }
    if (b->nq + 2 > RS_PROF_QUERIES) return rs_error(RS_ERR_INVALID, "russet: profiler: a batch past its queries");
    if (b->nq == 0) vkCmdResetQueryPool(b->cmd, b->queries, 0, RS_PROF_QUERIES);
    b->marks[b->nq / 2] = (rs_prof_mark){name, tl_correlation};
    vkCmdWriteTimestamp(b->cmd, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, b->queries, b->nq);
    return RS_OK;
}

void rs_profile_end_locked(rs_stream *s, rs_batch *b) {
    (void)s;
    vkCmdWriteTimestamp(b->cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, b->queries, b->nq + 1);
    b->nq += 2;
}

void rs_profile_collect_locked(rs_stream *s, rs_batch *b) {
    rs_device *dev = s->dev;
    uint32_t n = b->nq / 2;
    b->nq = 0;
    uint64_t ticks[RS_PROF_QUERIES];
    /* the batch has finished: every query is available */
    VkResult r = vkGetQueryPoolResults(dev->device, b->queries, 0, 2 * n, sizeof ticks, ticks, sizeof ticks[0],
                                       VK_QUERY_RESULT_64_BIT);
    if (r != VK_SUCCESS) return; /* no times to report; the work itself finished */
    pthread_mutex_lock(&dev->prof_lock);
    if (dev->prof_n + n > dev->prof_cap) {
        size_t cap = dev->prof_cap ? dev->prof_cap : 1024;
        while (cap < dev->prof_n + n) cap *= 2;
        rs_kernel_record *recs = realloc(dev->prof_recs, cap * sizeof *recs);
        if (!recs) {
            pthread_mutex_unlock(&dev->prof_lock);
            return; /* out of host memory: these records are lost, the compute is not */
        }
        dev->prof_recs = recs;
        dev->prof_cap = cap;
    }
    for (uint32_t i = 0; i < n; i++) {
        rs_kernel_record *rec = &dev->prof_recs[dev->prof_n++];
        memset(rec, 0, sizeof *rec);
        snprintf(rec->name, sizeof rec->name, "%s", b->marks[i].name ? b->marks[i].name : "kernel");
        rec->start_ns = ticks_ns(dev, ticks[2 * i]) + dev->prof_offset_ns;
        rec->end_ns = ticks_ns(dev, ticks[2 * i + 1]) + dev->prof_offset_ns;
        if (rec->end_ns < rec->start_ns) rec->end_ns = rec->start_ns;
        rec->correlation = b->marks[i].correlation;
        rec->stream = s->id;
    }
    pthread_mutex_unlock(&dev->prof_lock);
}

void rs_profile_batch_free(rs_device *dev, rs_batch *b) {
    if (b->queries) vkDestroyQueryPool(dev->device, b->queries, NULL);
    free(b->marks);
    b->queries = VK_NULL_HANDLE;
    b->marks = NULL;
}

/* host time minus device time: a timestamp written on the default stream
 * between two host clock readings, taken at their midpoint */
static rs_status calibrate(rs_device *dev) {
    rs_stream *s;
    rs_event *e;
    rs_status st = rs_stream_get(dev, 0, &s);
    if (st) return st;
    if ((st = rs_event_create(dev, 1, &e))) return st;
    uint64_t ticks = 0;
    int64_t t0 = 0, t1 = 0;
    if (!(st = rs_stream_synchronize(s))) {
        t0 = realtime_ns();
        if (!(st = rs_event_record(e, s)) && !(st = rs_event_synchronize(e))) {
            t1 = realtime_ns();
            st = rs_event_ticks(e, &ticks);
        }
    }
    rs_event_destroy(e);
    if (!st) dev->prof_offset_ns = t0 + (t1 - t0) / 2 - ticks_ns(dev, ticks);
    return st;
}

rs_status rs_profiler_start(rs_device *dev) {
    if (!dev) return rs_error(RS_ERR_INVALID, "russet: profiler: no device");
    if (!dev->info.features.has_timestamps)
        return rs_error(RS_ERR_UNSUPPORTED, "russet: %s has no timestamp queries: kernels cannot be timed",
                        dev->info.name);
    if (atomic_load(&dev->profiling)) return RS_OK;
    rs_status st = calibrate(dev);
    if (st) return st;
    pthread_mutex_lock(&dev->prof_lock);
    dev->prof_n = 0;
    pthread_mutex_unlock(&dev->prof_lock);
    atomic_store(&dev->profiling, 1);
    return RS_OK;
}

static void reap_all(rs_device *dev) {
    for (int i = 0; i < RS_MAX_STREAMS; i++) {
        pthread_mutex_lock(&dev->streams_lock);
        rs_stream *s = dev->streams[i];
        pthread_mutex_unlock(&dev->streams_lock);
        if (s) rs_stream_reap(s);
    }
}

rs_status rs_profiler_stop(rs_device *dev) {
    if (!dev) return rs_error(RS_ERR_INVALID, "russet: profiler: no device");
    atomic_store(&dev->profiling, 0);
    rs_status st = rs_device_wait_idle(dev);
    reap_all(dev);
    return st;
}

size_t rs_profiler_take(rs_device *dev, rs_kernel_record *out, size_t max) {
    if (!dev || !out || !max) return 0;
    reap_all(dev);
    pthread_mutex_lock(&dev->prof_lock);
    size_t n = dev->prof_n < max ? dev->prof_n : max;
    memcpy(out, dev->prof_recs, n * sizeof *out);
    memmove(dev->prof_recs, dev->prof_recs + n, (dev->prof_n - n) * sizeof *out);
    dev->prof_n -= n;
    pthread_mutex_unlock(&dev->prof_lock);
    return n;
}
