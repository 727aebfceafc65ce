/* Events: a point in a stream, named by (stream, timeline value), with an
 * optional timestamp query for elapsed_time. */
#include <stdlib.h>

#include "vk/internal.h"

struct rs_event {
    rs_device *dev;
    int timing;
    VkQueryPool queries;
    rs_stream *stream; /* NULL until recorded */
    uint64_t value;
};

rs_status rs_event_create(rs_device *dev, int enable_timing, rs_event **out) {
    rs_event *e = calloc(1, sizeof *e);
    if (!e) return rs_error(RS_ERR_OOM, "russet: out of host memory");
    e->dev = dev;
    e->timing = enable_timing;
    if (enable_timing) {
        if (!dev->info.features.has_timestamps) {
            free(e);
            return rs_error(RS_ERR_UNSUPPORTED, "russet: %s has no timestamp queries", dev->info.name);
        }
        VkQueryPoolCreateInfo qci = {.sType = VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO,
                                     .queryType = VK_QUERY_TYPE_TIMESTAMP,
                                     .queryCount = 1};
        VkResult r = vkCreateQueryPool(dev->device, &qci, NULL, &e->queries);
        if (r != VK_SUCCESS) {
            free(e);
            return rs_vk_error(r, "vkCreateQueryPool");
        }
    }
    *out = e;
    return RS_OK;
}

void rs_event_destroy(rs_event *e) {
    if (!e) return;
    if (e->queries) {
        /* the query may still be written by queued work */
        if (e->stream) rs_stream_wait_value(e->stream, e->value);
        vkDestroyQueryPool(e->dev->device, e->queries, NULL);
    }
    free(e);
}

rs_status rs_event_record(rs_event *e, rs_stream *s) {
    pthread_mutex_lock(&s->lock);
    rs_status st = RS_OK;
    if (e->timing) {
        rs_batch *b;
        if (!(st = rs_stream_open_locked(s, &b))) {
            vkCmdResetQueryPool(b->cmd, e->queries, 0, 1);
            vkCmdWriteTimestamp(b->cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, e->queries, 0);
        }
    }
    if (!st) {
        e->stream = s;
        /* the open batch's value, or the last submitted one if idle */
        e->value = s->open ? s->open->value : s->submitted;
    }
    pthread_mutex_unlock(&s->lock);
    return st;
}

/* Makes sure the batch holding the event is submitted (a wait or a query on
 * an unsubmitted value would never finish). */
static rs_status ensure_submitted(rs_event *e) {
    rs_stream *s = e->stream;
    pthread_mutex_lock(&s->lock);
    rs_status st = RS_OK;
    if (e->value > s->submitted) st = rs_stream_flush_locked(s);
    pthread_mutex_unlock(&s->lock);
    return st;
}

rs_status rs_event_wait(rs_event *e, rs_stream *s) {
    if (!e->stream || e->stream == s) return RS_OK; /* stream order suffices */
    rs_status st = ensure_submitted(e);
    if (st) return st;
    if (rs_stream_completed(e->stream) >= e->value) return RS_OK;
    pthread_mutex_lock(&s->lock);
    rs_batch *b;
    if (!(st = rs_stream_open_locked(s, &b))) {
        if (b->nwaits == b->capwaits) {
            uint32_t ncap = b->capwaits ? b->capwaits * 2 : 4;
            rs_wait *w = realloc(b->waits, ncap * sizeof *w);
            if (!w) st = rs_error(RS_ERR_OOM, "russet: out of host memory");
            else {
                b->waits = w;
                b->capwaits = ncap;
            }
        }
        if (!st) {
            b->waits[b->nwaits++] = (rs_wait){e->stream->timeline, e->value};
            if (b->nwaits >= 64) st = rs_stream_flush_locked(s);
        }
    }
    pthread_mutex_unlock(&s->lock);
    return st;
}

int rs_event_query(rs_event *e) {
    if (!e->stream) return 1;
    if (ensure_submitted(e)) return -1;
    return rs_stream_completed(e->stream) >= e->value;
}

rs_status rs_event_synchronize(rs_event *e) {
    if (!e->stream) return RS_OK;
    atomic_fetch_add_explicit(&e->dev->host_waits, 1, memory_order_relaxed);
    rs_status st = ensure_submitted(e);
    if (!st) st = rs_stream_wait_value(e->stream, e->value);
    if (!st) st = rs_device_check_error(e->dev);
    return st;
}

static rs_status read_timestamp(rs_event *e, uint64_t *ticks) {
    VkResult r = vkGetQueryPoolResults(e->dev->device, e->queries, 0, 1, sizeof *ticks, ticks,
                                       sizeof *ticks, VK_QUERY_RESULT_64_BIT);
    if (r == VK_NOT_READY) return rs_error(RS_ERR_INVALID, "russet: event timestamp not ready");
    if (r != VK_SUCCESS) return rs_vk_error(r, "vkGetQueryPoolResults");
    *ticks = rs_timestamp_ticks(e->dev, *ticks);
    return RS_OK;
}

rs_status rs_event_ticks(rs_event *e, uint64_t *ticks) {
    if (!e->timing || rs_event_query(e) != 1)
        return rs_error(RS_ERR_INVALID, "russet: the event has no finished timestamp");
    return read_timestamp(e, ticks);
}

rs_status rs_event_elapsed_ms(rs_event *start, rs_event *end, double *ms) {
    if (!start->timing || !end->timing)
        return rs_error(RS_ERR_INVALID,
                        "russet: elapsed_time needs both events created with enable_timing=True");
    if (!start->stream || !end->stream)
        return rs_error(RS_ERR_INVALID, "russet: elapsed_time needs both events recorded");
    if (rs_event_query(start) != 1 || rs_event_query(end) != 1)
        return rs_error(RS_ERR_INVALID,
                        "russet: elapsed_time: both events must have completed (synchronize first)");
    uint64_t t0, t1;
    rs_status st;
    if ((st = read_timestamp(start, &t0)) || (st = read_timestamp(end, &t1))) return st;
    *ms = ((double)t1 - (double)t0) * start->dev->info.timestamp_period_ns / 1e6;
    return RS_OK;
}
