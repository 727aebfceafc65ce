/* Checking modes for the stream's hazard tracking.
 *
 * A stream puts a barrier between two dispatches only where their declared
 * accesses (rs_access) overlap. A kernel that touches memory it did not
 * declare races with its neighbours on a GPU that runs dispatches in
 * parallel, and lavapipe, which runs them one after another, never shows it.
 * Two modes make such bugs findable:
 *
 *   RUSSET_SERIALIZE=1  a full barrier before every dispatch and copy: the
 *                       GPU then runs the stream as lavapipe does. A result
 *                       that differs from the default mode is a hazard bug.
 *   RUSSET_AUDIT=1      each dispatch runs alone: the stream waits, copies
 *                       every memory segment, runs the dispatch, waits and
 *                       compares. A byte that changed outside the dispatch's
 *                       declared writes fails the dispatch with an error
 *                       that names the kernel and the address. It needs
 *                       host-visible device memory (lavapipe, Apple) and is
 *                       slow: it is for tests, not for use.
 *
 * Both are read when a stream is made. Undeclared reads are not caught by
 * the audit (a read changes nothing); RUSSET_SERIALIZE covers them. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vk/internal.h"

void rs_audit_configure(rs_stream *s) {
    s->audit = rs_env_flag("RUSSET_AUDIT", 0);
    s->serialize = s->audit || rs_env_flag("RUSSET_SERIALIZE", 0);
}

void rs_audit_free(rs_stream *s) {
    free(s->audit_shadow);
    s->audit_shadow = NULL;
    s->audit_shadow_size = 0;
}

/* The shadow holds, for each segment in address order, its bytes. The
 * segment list is read again afterwards; a segment made or released in
 * between (another thread) is skipped. */
rs_status rs_audit_before(rs_stream *s) {
    rs_device *dev = s->dev;
    if (!dev->device_memory_mapped)
        return rs_error(RS_ERR_UNSUPPORTED, "russet: RUSSET_AUDIT needs host-visible device memory "
                                            "(lavapipe, Apple); use RUSSET_SERIALIZE=1 on this device");
    rs_status st = rs_stream_drain_locked(s);
    if (st) return st;
    rs_allocator *a = &dev->alloc;
    pthread_mutex_lock(&a->lock);
    uint64_t total = 0;
    for (size_t i = 0; i < a->nseg; i++) total += a->segments[i]->size;
    if (total > s->audit_shadow_size) {
        uint8_t *p = realloc(s->audit_shadow, total);
        if (!p) {
            pthread_mutex_unlock(&a->lock);
            return rs_error(RS_ERR_OOM, "russet: RUSSET_AUDIT: no host memory for a %llu-byte copy",
                            (unsigned long long)total);
        }
        s->audit_shadow = p;
        s->audit_shadow_size = total;
    }
    uint64_t off = 0;
    for (size_t i = 0; i < a->nseg; i++) {
        memcpy(s->audit_shadow + off, a->segments[i]->host, a->segments[i]->size);
        off += a->segments[i]->size;
    }
    pthread_mutex_unlock(&a->lock);
    return RS_OK;
}

static int declared(const rs_access *acc, int n, uint64_t address) {
    for (int i = 0; i < n; i++)
        if (acc[i].write && address >= acc[i].address && address < acc[i].address + acc[i].size) return 1;
    return 0;
}

rs_status rs_audit_after(rs_stream *s, const char *kernel, const rs_access *acc, int n) {
    rs_status st = rs_stream_drain_locked(s);
    if (st) return st;
    rs_allocator *a = &s->dev->alloc;
    pthread_mutex_lock(&a->lock);
    uint64_t off = 0;
    for (size_t i = 0; i < a->nseg; i++) {
        const rs_segment *seg = a->segments[i];
        const uint8_t *now = seg->host, *was = s->audit_shadow + off;
        off += seg->size;
        if (off > s->audit_shadow_size) break; /* a segment made meanwhile */
        if (memcmp(now, was, seg->size) == 0) continue;
        for (uint64_t b = 0; b < seg->size; b++) {
            if (now[b] == was[b] || declared(acc, n, seg->address + b)) continue;
            uint64_t end = b;
            while (end < seg->size && now[end] != was[end] && !declared(acc, n, seg->address + end)) end++;
            pthread_mutex_unlock(&a->lock);
            char ranges[256] = "";
            size_t used = 0;
            for (int k = 0; k < n && used < sizeof ranges - 48; k++)
                if (acc[k].write)
                    used += (size_t)snprintf(ranges + used, sizeof ranges - used, " [0x%llx, +%llu)",
                                             (unsigned long long)acc[k].address, (unsigned long long)acc[k].size);
            return rs_error(RS_ERR_INVALID,
                            "russet: RUSSET_AUDIT: kernel %s changed %llu bytes at 0x%llx that it did not declare "
                            "as written (declared writes:%s); a GPU that runs dispatches in parallel races here",
                            kernel, (unsigned long long)(end - b), (unsigned long long)(seg->address + b),
                            used ? ranges : " none");
        }
    }
    pthread_mutex_unlock(&a->lock);
    return RS_OK;
}
