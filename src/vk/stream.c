/* Streams: batches of recorded work, submitted on demand.
 *
 * A stream records dispatches and copies into its open batch (one command
 * buffer). The batch is submitted on a host read, a synchronize, an event
 * that needs it, memory pressure, when it holds RS_BATCH_LIMIT
 * dispatches, or once its work touches RS_BATCH_BYTES of memory (so that the
 * GPU starts on large work while the host records what follows, as CUDA's
 * eager launches do; with two submissions unfinished it waits for as much
 * work as they hold: big_enough_locked). Each submission signals the
 * stream's timeline semaphore with the next value; a batch (its command
 * buffer and arena memory) is recycled once the semaphore passes its value.
 *
 * Barriers: within a batch, a dispatch that reads what an earlier one wrote,
 * or writes what an earlier one touched, gets a memory barrier first
 * (rs_stream_hazards_locked). Every batch starts with a barrier, which orders
 * it after all earlier submissions on the queue, and ends with one that makes
 * its writes visible to the host.
 */
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "vk/internal.h"

#define RS_BATCH_LIMIT 256
#define RS_BATCH_BYTES (64ull << 20)
/* while this many submissions are unfinished, a batch past RS_BATCH_BYTES
 * stays open until it holds as many bytes as they do (big_enough_locked) */
#define RS_BATCH_AHEAD 2
/* ... times this multiple (RUSSET_BATCH_HOLD): 2 measured better than 1
 * on the H200 (bench_pointwise, rounds of ten 64M-element ops: exp 0.95x
 * against 0.91x of CUDA, the float16 cast 0.92x against 0.91x, one run
 * each; docs/performance.md) */
#define RS_BATCH_HOLD 2.0
/* the dispatches a stream may have submitted and unfinished before the host
 * waits for the oldest (RUSSET_MAX_QUEUED; throttle_locked) */
#define RS_MAX_QUEUED 4096
#define RS_ARENA_CHUNK (64 * 1024)
/* arena chunks larger than this are freed after use, not kept */
#define RS_ARENA_KEEP (4 * 1024 * 1024)

static const VkPipelineStageFlags kWorkStages =
    VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT;
static const VkAccessFlags kWorkAccess = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT |
                                         VK_ACCESS_TRANSFER_READ_BIT | VK_ACCESS_TRANSFER_WRITE_BIT;

rs_status rs_stream_create(rs_device *dev, int id, rs_stream **out) {
    rs_stream *s = calloc(1, sizeof *s);
    if (!s) return rs_error(RS_ERR_OOM, "russet: out of host memory");
    s->dev = dev;
    s->id = id;
    pthread_mutex_init(&s->lock, NULL);
    VkCommandPoolCreateInfo pci = {.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
                                   .flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT,
                                   .queueFamilyIndex = dev->queue_family};
    VkResult r = vkCreateCommandPool(dev->device, &pci, NULL, &s->pool);
    if (r != VK_SUCCESS) {
        free(s);
        return rs_vk_error(r, "vkCreateCommandPool");
    }
    VkSemaphoreTypeCreateInfo tci = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO,
                                     .semaphoreType = VK_SEMAPHORE_TYPE_TIMELINE,
                                     .initialValue = 0};
    VkSemaphoreCreateInfo sci = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO, .pNext = &tci};
    r = vkCreateSemaphore(dev->device, &sci, NULL, &s->timeline);
    if (r != VK_SUCCESS) {
        vkDestroyCommandPool(dev->device, s->pool, NULL);
        free(s);
        return rs_vk_error(r, "vkCreateSemaphore");
    }
    /* RUSSET_BATCH_BYTES (0: no early submission by size),
     * RUSSET_BATCH_AHEAD (0: submit at that size whatever is in flight) and
     * RUSSET_BATCH_HOLD (the multiple of the queued work a batch may hold):
     * tuning knobs for probes (bench/bw_probe.c), read when a stream is made */
    const char *e = getenv("RUSSET_BATCH_BYTES");
    s->batch_bytes = e && *e ? strtoull(e, NULL, 0) : RS_BATCH_BYTES;
    e = getenv("RUSSET_BATCH_AHEAD");
    s->batch_ahead = e && *e ? strtoull(e, NULL, 0) : RS_BATCH_AHEAD;
    e = getenv("RUSSET_BATCH_HOLD"); /* hold up to this many times the queued work */
    s->batch_hold = e && *e ? strtod(e, NULL) : RS_BATCH_HOLD;
    s->max_queued = (uint64_t)rs_env_int("RUSSET_MAX_QUEUED", RS_MAX_QUEUED, 0, 1ll << 40);
    rs_audit_configure(s);
    *out = s;
    return RS_OK;
}

static void chunks_free(rs_device *dev, rs_arena_chunk *c) {
    while (c) {
        rs_arena_chunk *n = c->next;
        rs_hostbuf_destroy(dev, &c->buf);
        free(c);
        c = n;
    }
}

static void batch_free(rs_device *dev, rs_batch *b) {
    rs_profile_batch_free(dev, b);
    free(b->waits);
    free(b);
}

void rs_stream_destroy(rs_stream *s) {
    rs_device *dev = s->dev;
    rs_batch *lists[3] = {s->open, s->inflight_head, s->spare};
    for (int i = 0; i < 3; i++)
        for (rs_batch *b = lists[i]; b;) {
            rs_batch *n = b->next;
            batch_free(dev, b);
            b = n;
        }
    for (int i = 0; i < RS_ARENA_USERS; i++)
        for (int j = 0; j < s->users[i].nrecent; j++) {
            s->users[i].recent[j]->next = NULL;
            chunks_free(dev, s->users[i].recent[j]);
        }
    chunks_free(dev, s->spare_chunks);
    chunks_free(dev, s->retired);
    rs_audit_free(s);
    vkDestroySemaphore(dev->device, s->timeline, NULL);
    vkDestroyCommandPool(dev->device, s->pool, NULL); /* frees the command buffers */
    pthread_mutex_destroy(&s->lock);
    free(s);
}

rs_status rs_stream_get(rs_device *dev, int id, rs_stream **out) {
    if (id < 0 || id >= RS_MAX_STREAMS)
        return rs_error(RS_ERR_INVALID, "russet: invalid stream id %d (0..%d)", id, RS_MAX_STREAMS - 1);
    pthread_mutex_lock(&dev->streams_lock);
    rs_status st = RS_OK;
    if (!dev->streams[id]) st = rs_stream_create(dev, id, &dev->streams[id]);
    *out = dev->streams[id];
    pthread_mutex_unlock(&dev->streams_lock);
    return st;
}

int rs_stream_id(rs_stream *s) { return s->id; }
rs_device *rs_stream_device(rs_stream *s) { return s->dev; }

uint64_t rs_stream_completed(rs_stream *s) {
    uint64_t v = 0;
    vkGetSemaphoreCounterValue(s->dev->device, s->timeline, &v);
    return v;
}

/* A chunk that no submitted work needs any more: small ones join the end of
 * the spare queue (reused oldest first, so memory an op wrote is rewritten
 * as late as possible), large ones are freed. */
static void chunk_done(rs_stream *s, rs_arena_chunk *c) {
    if (c->buf.size > RS_ARENA_KEEP) {
        rs_hostbuf_destroy(s->dev, &c->buf);
        free(c);
        return;
    }
    c->used = 0;
    c->next = NULL;
    if (s->spare_tail) s->spare_tail->next = c;
    else s->spare_chunks = c;
    s->spare_tail = c;
}

/* Moves finished batches to the spare list, and retired arena chunks that
 * no unfinished batch reads to the spare chunks. */
static void recycle(rs_stream *s) {
    if (!s->inflight_head && !s->retired) return;
    uint64_t done = rs_stream_completed(s);
    for (rs_arena_chunk **pc = &s->retired; *pc;) {
        rs_arena_chunk *c = *pc;
        if (c->release <= done) {
            *pc = c->next;
            chunk_done(s, c);
        } else {
            pc = &c->next;
        }
    }
    while (s->inflight_head && s->inflight_head->value <= done) {
        rs_batch *b = s->inflight_head;
        s->inflight_head = b->next;
        if (!s->inflight_head) s->inflight_tail = NULL;
        s->inflight_dispatches -= b->dispatches;
        if (b->nq) rs_profile_collect_locked(s, b);
        b->nwaits = 0;
        b->next = s->spare;
        s->spare = b;
    }
}

void rs_stream_reap(rs_stream *s) {
    pthread_mutex_lock(&s->lock);
    recycle(s);
    pthread_mutex_unlock(&s->lock);
}

static void full_barrier(VkCommandBuffer cmd, VkPipelineStageFlags src, VkAccessFlags src_access,
                         VkPipelineStageFlags dst, VkAccessFlags dst_access) {
    VkMemoryBarrier mb = {.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
                          .srcAccessMask = src_access,
                          .dstAccessMask = dst_access};
    vkCmdPipelineBarrier(cmd, src, dst, 0, 1, &mb, 0, NULL, 0, NULL);
}

rs_status rs_stream_open_locked(rs_stream *s, rs_batch **out) {
    if (s->open) {
        *out = s->open;
        return RS_OK;
    }
    recycle(s);
    rs_batch *b = s->spare;
    if (b) {
        s->spare = b->next;
        vkResetCommandBuffer(b->cmd, 0);
    } else {
        b = calloc(1, sizeof *b);
        if (!b) return rs_error(RS_ERR_OOM, "russet: out of host memory");
        VkCommandBufferAllocateInfo ai = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
                                          .commandPool = s->pool,
                                          .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
                                          .commandBufferCount = 1};
        VkResult r = vkAllocateCommandBuffers(s->dev->device, &ai, &b->cmd);
        if (r != VK_SUCCESS) {
            free(b);
            return rs_vk_error(r, "vkAllocateCommandBuffers");
        }
    }
    b->next = NULL;
    b->dispatches = 0;
    b->bytes = 0;
    b->bound = VK_NULL_HANDLE;
    b->value = s->submitted + 1;
    VkCommandBufferBeginInfo bi = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
                                   .flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT};
    VkResult r = vkBeginCommandBuffer(b->cmd, &bi);
    if (r != VK_SUCCESS) {
        b->next = s->spare;
        s->spare = b;
        return rs_vk_error(r, "vkBeginCommandBuffer");
    }
    /* order after everything submitted before, and after host writes */
    full_barrier(b->cmd, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT | VK_PIPELINE_STAGE_HOST_BIT,
                 kWorkAccess | VK_ACCESS_HOST_WRITE_BIT, kWorkStages, kWorkAccess);
    s->nhazards = 0;
    s->open = b;
    *out = b;
    return RS_OK;
}

/* The host's lead over the device is bounded, as CUDA's launch queue bounds
 * it: past max_queued dispatches submitted and unfinished on this stream,
 * the host waits for the oldest submissions. Without a bound, a loop that
 * never syncs queues minutes of work on a slow device (500 steps of
 * tools/soak.py's transformer on lavapipe: 200 s), which then trips the
 * sync timeout, and keeps the arena memory of all of it. */
static rs_status throttle_locked(rs_stream *s) {
    while (s->max_queued && s->inflight_head && s->inflight_dispatches > s->max_queued) {
        rs_status st = rs_stream_wait_value(s, s->inflight_head->value);
        if (st) return st;
        recycle(s);
    }
    return RS_OK;
}

rs_status rs_stream_flush_locked(rs_stream *s) {
    rs_batch *b = s->open;
    if (!b) return RS_OK;
    rs_device *dev = s->dev;
    full_barrier(b->cmd, kWorkStages, kWorkAccess, VK_PIPELINE_STAGE_HOST_BIT,
                 VK_ACCESS_HOST_READ_BIT | VK_ACCESS_HOST_WRITE_BIT);
    VkResult r = vkEndCommandBuffer(b->cmd);
    if (r != VK_SUCCESS) return rs_vk_error(r, "vkEndCommandBuffer");

    VkSemaphore wait_sems[64];
    uint64_t wait_vals[64];
    VkPipelineStageFlags wait_stages[64];
    uint32_t nw = b->nwaits < 64 ? b->nwaits : 64;
    for (uint32_t i = 0; i < nw; i++) {
        wait_sems[i] = b->waits[i].semaphore;
        wait_vals[i] = b->waits[i].value;
        wait_stages[i] = VK_PIPELINE_STAGE_ALL_COMMANDS_BIT;
    }
    VkTimelineSemaphoreSubmitInfo tsi = {.sType = VK_STRUCTURE_TYPE_TIMELINE_SEMAPHORE_SUBMIT_INFO,
                                         .waitSemaphoreValueCount = nw,
                                         .pWaitSemaphoreValues = wait_vals,
                                         .signalSemaphoreValueCount = 1,
                                         .pSignalSemaphoreValues = &b->value};
    VkSubmitInfo si = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO,
                       .pNext = &tsi,
                       .waitSemaphoreCount = nw,
                       .pWaitSemaphores = wait_sems,
                       .pWaitDstStageMask = wait_stages,
                       .commandBufferCount = 1,
                       .pCommandBuffers = &b->cmd,
                       .signalSemaphoreCount = 1,
                       .pSignalSemaphores = &s->timeline};
    pthread_mutex_lock(&dev->queue_lock);
    r = vkQueueSubmit(dev->queue, 1, &si, VK_NULL_HANDLE);
    pthread_mutex_unlock(&dev->queue_lock);
    if (r != VK_SUCCESS) return rs_vk_error(r, "vkQueueSubmit");
    s->open = NULL;
    s->submitted = b->value;
    s->submits++;
    if (s->inflight_tail) s->inflight_tail->next = b;
    else s->inflight_head = b;
    s->inflight_tail = b;
    s->inflight_dispatches += b->dispatches;
    return throttle_locked(s);
}

/* How long a host wait for the GPU may last: RUSSET_SYNC_TIMEOUT seconds
 * (default 120; 0 waits forever). A kernel that never terminates would
 * otherwise hang the process in its next sync, with no message. Read on
 * every wait (cheap next to a wait), so a program may change it. */
static uint64_t sync_timeout_ns(double *seconds) {
    double t = 120.0;
    const char *e = getenv("RUSSET_SYNC_TIMEOUT");
    if (e && *e) {
        char *end = NULL;
        double v = strtod(e, &end);
        if (end != e && v >= 0.0) t = v;
    }
    *seconds = t;
    if (t == 0.0 || t > 1.8e10) return UINT64_MAX;
    return (uint64_t)(t * 1e9);
}

/* Before a blocking wait, a GPU device polls the timeline for up to
 * RUSSET_SYNC_SPIN_US microseconds (default 20000; read at each wait): the
 * driver's blocking wait wakes the host about 30 us after the GPU finishes
 * (one small dispatch and a sync: 46 us blocking, 17 us polling on the
 * H200), and CUDA's synchronize spins too. 20 ms covers the waits where 30
 * us matter (a round of ten 64M-element ops waits about 1.3 ms) and bounds
 * the core a long wait keeps busy. Never on a CPU device (lavapipe), whose
 * own threads need the cores. */
static void spin_until(rs_stream *s, uint64_t value) {
    if (s->dev->info.is_cpu) return;
    double us = 20000.0;
    const char *e = getenv("RUSSET_SYNC_SPIN_US");
    if (e && *e) us = strtod(e, NULL);
    if (!(us > 0.0)) return;
    struct timespec t0, t;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (;;) {
        if (rs_stream_completed(s) >= value) return;
        clock_gettime(CLOCK_MONOTONIC, &t);
        if ((t.tv_sec - t0.tv_sec) * 1e6 + (t.tv_nsec - t0.tv_nsec) * 1e-3 >= us) return;
        sched_yield();
    }
}

rs_status rs_stream_wait_value(rs_stream *s, uint64_t value) {
    if (value == 0) return RS_OK;
    spin_until(s, value);
    VkSemaphoreWaitInfo wi = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO,
                              .semaphoreCount = 1,
                              .pSemaphores = &s->timeline,
                              .pValues = &value};
    double seconds;
    VkResult r = vkWaitSemaphores(s->dev->device, &wi, sync_timeout_ns(&seconds));
    if (r == VK_TIMEOUT)
        return rs_error(RS_ERR_VULKAN,
                        "russet: the GPU did not finish the submitted work within %g s (RUSSET_SYNC_TIMEOUT): "
                        "a kernel may not terminate, or the work is longer than that limit; the device may "
                        "still be busy with it", seconds);
    if (r != VK_SUCCESS) return rs_vk_error(r, "vkWaitSemaphores");
    return RS_OK;
}

/* All streams share one queue, and every batch begins with a barrier that
 * orders it after what was submitted before. Submitting the other streams'
 * open batches first therefore keeps work recorded earlier on another
 * stream ahead of this stream's: the order in which the program issued it,
 * as on a GPU that starts kernels as they are launched. Explicit waits
 * (events) are still what the stream semantics promise. With `skip_busy`
 * (the caller holds s->lock), a stream whose lock is taken is recording in
 * another thread, where no order between the threads was promised: it is
 * skipped rather than waited for (no lock-order cycle between two
 * recording threads). */
static rs_status flush_others(rs_stream *s, int skip_busy) {
    rs_device *dev = s->dev;
    for (int i = 0; i < RS_MAX_STREAMS; i++) {
        pthread_mutex_lock(&dev->streams_lock);
        rs_stream *o = dev->streams[i];
        pthread_mutex_unlock(&dev->streams_lock);
        if (!o || o == s) continue;
        if (!skip_busy) pthread_mutex_lock(&o->lock);
        else if (pthread_mutex_trylock(&o->lock) != 0) continue;
        rs_status st = rs_stream_flush_locked(o);
        pthread_mutex_unlock(&o->lock);
        if (st) return st;
    }
    return RS_OK;
}

/* Submits s's open batch on the recording path (full, or large enough),
 * with s->lock held: the other streams' open batches go first, as for a
 * sync (a batch there may be held open: big_enough_locked). */
static rs_status submit_in_order_locked(rs_stream *s) {
    rs_status st = flush_others(s, 1);
    return st ? st : rs_stream_flush_locked(s);
}

rs_status rs_stream_flush(rs_stream *s) {
    rs_status fst = flush_others(s, 0);
    if (fst) return fst;
    pthread_mutex_lock(&s->lock);
    rs_status st = rs_stream_flush_locked(s);
    pthread_mutex_unlock(&s->lock);
    return st;
}

rs_status rs_stream_synchronize(rs_stream *s) {
    atomic_fetch_add_explicit(&s->dev->host_waits, 1, memory_order_relaxed);
    rs_status st = flush_others(s, 0);
    if (st) return st;
    pthread_mutex_lock(&s->lock);
    st = rs_stream_flush_locked(s);
    uint64_t v = s->submitted;
    pthread_mutex_unlock(&s->lock);
    if (!st) st = rs_stream_wait_value(s, v);
    if (!st) {
        pthread_mutex_lock(&s->lock);
        recycle(s);
        pthread_mutex_unlock(&s->lock);
        st = rs_device_check_error(s->dev);
    }
    return st;
}

int rs_stream_query(rs_stream *s) {
    if (flush_others(s, 0)) return -1;
    pthread_mutex_lock(&s->lock);
    rs_status st = rs_stream_flush_locked(s);
    uint64_t v = s->submitted;
    pthread_mutex_unlock(&s->lock);
    if (st) return -1;
    return rs_stream_completed(s) >= v;
}

uint64_t rs_stream_pending_dispatches(rs_stream *s) {
    pthread_mutex_lock(&s->lock);
    uint64_t n = s->open ? s->open->dispatches : 0;
    pthread_mutex_unlock(&s->lock);
    return n;
}

uint64_t rs_stream_queued_dispatches(rs_stream *s) {
    pthread_mutex_lock(&s->lock);
    recycle(s);
    uint64_t n = s->inflight_dispatches;
    pthread_mutex_unlock(&s->lock);
    return n;
}

uint64_t rs_stream_submit_count(rs_stream *s) {
    pthread_mutex_lock(&s->lock);
    uint64_t n = s->submits;
    pthread_mutex_unlock(&s->lock);
    return n;
}

/* ---- hazards */

static int overlaps(const rs_range *r, uint64_t lo, uint64_t hi) { return r->lo < hi && lo < r->hi; }

void rs_stream_hazards_locked(rs_stream *s, const rs_access *acc, int n) {
    int need = s->serialize; /* RUSSET_SERIALIZE: a barrier before everything */
    for (int i = 0; i < n && !need; i++) {
        uint64_t lo = acc[i].address, hi = acc[i].address + acc[i].size;
        for (int j = 0; j < s->nhazards; j++)
            if (overlaps(&s->hazards[j], lo, hi) && (acc[i].write || s->hazards[j].write)) {
                need = 1;
                break;
            }
    }
    if (need || s->nhazards + n > RS_HAZARD_SLOTS) {
        full_barrier(s->open->cmd, kWorkStages, kWorkAccess, kWorkStages, kWorkAccess);
        s->nhazards = 0;
        s->barriers++;
    }
    for (int i = 0; i < n && s->nhazards < RS_HAZARD_SLOTS; i++)
        s->hazards[s->nhazards++] =
            (rs_range){acc[i].address, acc[i].address + acc[i].size, acc[i].write};
}

/* ---- the argument arena
 *
 * An op writes its parameters into the arena, then records the dispatches
 * that read them; between the two, other threads recording on the same
 * stream may submit any number of batches. So arena memory is not tied to
 * a batch: each thread has chunks of its own on each stream it records on
 * (a slot in s->users), and every dispatch it records stamps them with the
 * dispatch's batch. A chunk leaves the thread's recent set once the thread
 * has started RS_ARENA_RECENT newer chunks, or taken RS_ARENA_AGE more
 * times, since it last took from it; then it is retired, and reused once
 * the timeline passes its last stamp. The contract (runtime.h): a block
 * stays valid for the taking thread's dispatches until that thread has
 * taken RS_ARENA_AGE - 1 more blocks, or 2 * RS_ARENA_CHUNK more bytes, on
 * the stream. When blocks were tied to the open batch, 4 threads on one
 * stream crashed lavapipe about 3 times in 10,000 fuzzed ops: a kernel read
 * parameters another thread had already written over. */

/* a thread's takes before a chunk it no longer takes from is retired */
#define RS_ARENA_AGE 256

/* A process-wide number for the calling thread, never 0 and never reused
 * (a thread id may be reused by a later thread). */
static uint64_t thread_key(void) {
    static atomic_uint_fast64_t next;
    static _Thread_local uint64_t key;
    if (!key) key = atomic_fetch_add_explicit(&next, 1, memory_order_relaxed) + 1;
    return key;
}

/* Ends a chunk's time in a thread's recent set: reused once the timeline
 * passes its stamp (recycle). */
static void chunk_retire(rs_stream *s, rs_arena_chunk *c) {
    c->next = s->retired;
    s->retired = c;
}

static void user_drop(rs_stream *s, rs_arena_user *u) {
    for (int j = 0; j < u->nrecent; j++) chunk_retire(s, u->recent[j]);
    memset(u, 0, sizeof *u);
}

/* The calling thread's slot on s (s->lock held); NULL if it has none and
 * `make` is 0. A new thread past RS_ARENA_USERS takes the slot that took
 * least recently (its thread has likely exited; if it is still inside an
 * op, that op's blocks are retired early: the stated limit). */
static rs_arena_user *user_locked(rs_stream *s, int make) {
    static _Thread_local struct {
        rs_stream *s;
        int slot;
    } cache;
    uint64_t key = thread_key();
    if (cache.s == s && s->users[cache.slot].thread == key) return &s->users[cache.slot];
    int at = -1, lru = 0;
    for (int i = 0; i < RS_ARENA_USERS; i++) {
        if (s->users[i].thread == key) {
            at = i;
            break;
        }
        if (s->users[lru].thread && (!s->users[i].thread || s->users[i].active < s->users[lru].active)) lru = i;
    }
    if (at < 0) {
        if (!make) return NULL;
        at = lru;
        if (s->users[at].thread) user_drop(s, &s->users[at]);
        s->users[at].thread = key;
    }
    cache.s = s;
    cache.slot = at;
    return &s->users[at];
}

/* Stamps the calling thread's recent chunks with batch b (s->lock held):
 * a dispatch it records there may read any of them. */
static void arena_stamp_locked(rs_stream *s, const rs_batch *b) {
    rs_arena_user *u = user_locked(s, 0);
    if (!u) return;
    for (int j = 0; j < u->nrecent; j++)
        if (u->recent[j]->release < b->value) u->recent[j]->release = b->value;
}

/* A chunk for `size` bytes: a spare one, or a new one of at least
 * RS_ARENA_CHUNK bytes. */
static rs_status chunk_new(rs_stream *s, size_t size, rs_arena_chunk **out) {
    rs_arena_chunk *c;
    if (size <= RS_ARENA_CHUNK && s->spare_chunks) {
        c = s->spare_chunks;
        s->spare_chunks = c->next;
        if (!s->spare_chunks) s->spare_tail = NULL;
    } else {
        c = calloc(1, sizeof *c);
        if (!c) return rs_error(RS_ERR_OOM, "russet: out of host memory");
        uint64_t cap = size > RS_ARENA_CHUNK ? size : RS_ARENA_CHUNK;
        rs_status st = rs_hostbuf_create(s->dev, cap, &c->buf);
        if (st) {
            free(c);
            return st;
        }
    }
    *out = c;
    return RS_OK;
}

/* `staging`: an upload the caller records in b at once (s->lock held
 * throughout), which no later dispatch reads: one larger than a chunk gets
 * a chunk of its own, retired at once (freed, or kept, once b finishes),
 * not kept in the thread's recent set, which would hold up to
 * RS_ARENA_RECENT such buffers. */
static rs_status arena_take(rs_stream *s, rs_batch *b, size_t size, int staging, rs_arena_chunk **out,
                            uint64_t *offset) {
    size = (size + 15) & ~(size_t)15;
    rs_status st;
    rs_arena_chunk *c;
    if (staging && size > RS_ARENA_CHUNK) {
        if ((st = chunk_new(s, size, &c))) return st;
        c->used = size;
        c->release = b->value;
        chunk_retire(s, c);
        *offset = 0;
        *out = c;
        return RS_OK;
    }
    rs_arena_user *u = user_locked(s, 1);
    c = u->nrecent ? u->recent[0] : NULL;
    if (!c || c->used + size > c->buf.size) {
        if ((st = chunk_new(s, size, &c))) return st;
        c->used = 0;
        c->release = 0;
        c->next = NULL;
        if (u->nrecent == RS_ARENA_RECENT) chunk_retire(s, u->recent[--u->nrecent]);
        memmove(u->recent + 1, u->recent, (size_t)u->nrecent * sizeof u->recent[0]);
        u->recent[0] = c;
        u->nrecent++;
    }
    u->takes++;
    u->active = ++s->user_clock;
    c->last_take = u->takes;
    /* the older chunks this thread has not taken from for a while */
    while (u->nrecent > 1 && u->recent[u->nrecent - 1]->last_take + RS_ARENA_AGE <= u->takes)
        chunk_retire(s, u->recent[--u->nrecent]);
    if (c->release < b->value) c->release = b->value; /* a copy staged here is recorded in b */
    *offset = c->used;
    c->used += size;
    *out = c;
    return RS_OK;
}

rs_status rs_stream_arena(rs_stream *s, size_t size, void **host, uint64_t *address) {
    pthread_mutex_lock(&s->lock);
    rs_batch *b;
    rs_status st = rs_stream_open_locked(s, &b);
    rs_arena_chunk *c = NULL;
    uint64_t off = 0;
    if (!st) st = arena_take(s, b, size, 0, &c, &off);
    if (!st) {
        *host = (char *)c->buf.host + off;
        *address = c->buf.address + off;
    }
    pthread_mutex_unlock(&s->lock);
    return st;
}

/* ---- dispatch */

/* 1 if b holds enough work to submit now. Early submission (once b touches
 * batch_bytes) lets the GPU start on large work while the host records what
 * follows; but each submission costs the GPU a gap (about 12 us on the H200,
 * 8% of a 64M-element exp; not its barriers: docs/performance.md), so while
 * batch_ahead earlier submissions are unfinished, b stays open until it
 * holds batch_hold times as many bytes as they do. A host that stops
 * recording without a sync idles the GPU after the queue drains until a
 * later dispatch or sync submits b: b holds back at most batch_hold times
 * the work that was queued. */
static int big_enough_locked(rs_stream *s, rs_batch *b) {
    if (!s->batch_bytes || b->bytes < s->batch_bytes) return 0;
    if (!s->batch_ahead) return 1;
    uint64_t done = rs_stream_completed(s);
    if (s->submitted - done < s->batch_ahead) return 1;
    uint64_t queued = 0;
    for (rs_batch *q = s->inflight_head; q; q = q->next)
        if (q->value > done) queued += q->bytes;
    return (double)b->bytes >= s->batch_hold * (double)queued;
}

rs_status rs_dispatch(rs_stream *s, rs_kernel *k, const uint32_t groups[3], const void *push,
                      uint32_t push_size, const rs_access *accesses, int n_accesses) {
    rs_device *dev = s->dev;
    if (push_size > dev->push_size)
        return rs_error(RS_ERR_INVALID, "russet: %s: %u bytes of push constants (limit %u)", k->name,
                        push_size, dev->push_size);
    if (!groups[0] || !groups[1] || !groups[2]) return RS_OK;
    pthread_mutex_lock(&s->lock);
    rs_batch *b;
    rs_status st = s->audit ? rs_audit_before(s) : RS_OK;
    if (!st) st = rs_stream_open_locked(s, &b);
    if (st) {
        pthread_mutex_unlock(&s->lock);
        return st;
    }
    rs_stream_hazards_locked(s, accesses, n_accesses);
    if (b->bound != k->pipeline) {
        vkCmdBindPipeline(b->cmd, VK_PIPELINE_BIND_POINT_COMPUTE, k->pipeline);
        b->bound = k->pipeline;
    }
    if (push_size) vkCmdPushConstants(b->cmd, dev->layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, push_size, push);
    const int timed = atomic_load_explicit(&dev->profiling, memory_order_relaxed);
    if (timed && (st = rs_profile_begin_locked(s, b, k->name))) {
        pthread_mutex_unlock(&s->lock);
        return st;
    }
    vkCmdDispatch(b->cmd, groups[0], groups[1], groups[2]);
    if (timed) rs_profile_end_locked(s, b);
    arena_stamp_locked(s, b);
    b->dispatches++;
    s->total_dispatches++;
    for (int i = 0; i < n_accesses; i++) b->bytes += accesses[i].size;
    if (s->audit) st = rs_audit_after(s, k->name, accesses, n_accesses);
    else if (b->dispatches >= RS_BATCH_LIMIT || big_enough_locked(s, b)) st = submit_in_order_locked(s);
    pthread_mutex_unlock(&s->lock);
    return st;
}

rs_status rs_dispatch_words(rs_stream *s, rs_kernel *k, uint64_t threads, uint32_t wg, const uint64_t *words,
                            int n_words, int first, int n_tensors, int n_out, uint64_t scalars) {
    if (!s || !k || !words || !wg || n_words < 0 || first < 0 || n_tensors < 0 || n_tensors > 64 ||
        first + n_tensors > n_words)
        return rs_error(RS_ERR_INVALID, "rs_dispatch_words: bad arguments");
    if (!threads) return RS_OK;
    rs_access acc[64];
    int n = 0;
    for (int i = 0; i < n_tensors; i++) {
        const uint64_t address = words[first + i];
        if ((scalars >> i & 1u) || !address) continue;
        if (!rs_live_block(s->dev, address, &acc[n].address, &acc[n].size))
            return rs_error(RS_ERR_INVALID, "russet: the kernel %s got argument %d (address 0x%llx), which is not "
                            "memory of this russet device", k->name, i, (unsigned long long)address);
        acc[n++].write = i < n_out;
    }
    const uint64_t groups = (threads + wg - 1) / wg, gx = groups < 65535 ? groups : 65535, gy = (groups + gx - 1) / gx;
    if (gy > 65535) return rs_error(RS_ERR_INVALID, "russet: the kernel %s: %llu invocations are too many", k->name,
                                    (unsigned long long)threads);
    const uint32_t grid[3] = {(uint32_t)gx, (uint32_t)gy, 1};
    if (n_words <= RS_PUSH_WORDS) return rs_dispatch(s, k, grid, words, (uint32_t)n_words * 8u, acc, n);
    void *host = NULL;
    uint64_t address = 0;
    rs_status st = rs_stream_arena(s, (size_t)n_words * 8u, &host, &address);
    if (st) return st;
    memcpy(host, words, (size_t)n_words * 8u);
    return rs_dispatch(s, k, grid, &address, 8u, acc, n);
}

rs_status rs_stream_drain_locked(rs_stream *s) {
    rs_status st = rs_stream_flush_locked(s);
    return st ? st : rs_stream_wait_value(s, s->submitted);
}

/* ---- copies between host and device */

/* The segment's buffer and offset for [address, address + size). */
static rs_status resolve(rs_device *dev, uint64_t address, uint64_t size, VkBuffer *buf,
                         uint64_t *offset, void **host) {
    rs_segment *seg = rs_segment_find(dev, address);
    if (!seg || address + size > seg->address + seg->size)
        return rs_error(RS_ERR_INVALID, "russet: address 0x%llx (+%llu bytes) is not russet memory",
                        (unsigned long long)address, (unsigned long long)size);
    *buf = seg->buffer;
    *offset = address - seg->address;
    *host = seg->host ? (char *)seg->host + *offset : NULL;
    return RS_OK;
}

/* 1 if nothing recorded on s is unfinished. */
static int idle_locked(rs_stream *s) {
    return !s->open && rs_stream_completed(s) >= s->submitted;
}

rs_status rs_memcpy_htod(rs_stream *s, uint64_t dst, const void *src, uint64_t size) {
    if (!size) return RS_OK;
    VkBuffer buf;
    uint64_t off;
    void *host;
    rs_status st = resolve(s->dev, dst, size, &buf, &off, &host);
    if (st) return st;
    pthread_mutex_lock(&s->lock);
    if (host && idle_locked(s)) {
        /* unified memory and nothing in flight on this stream: write directly */
        memcpy(host, src, size);
        pthread_mutex_unlock(&s->lock);
        return RS_OK;
    }
    /* stage through the arena, copy on the GPU in stream order */
    rs_batch *b;
    rs_arena_chunk *c;
    uint64_t coff;
    if ((st = rs_stream_open_locked(s, &b)) || (st = arena_take(s, b, size, 1, &c, &coff))) {
        pthread_mutex_unlock(&s->lock);
        return st;
    }
    memcpy((char *)c->buf.host + coff, src, size);
    rs_access acc = {dst, size, 1};
    rs_stream_hazards_locked(s, &acc, 1);
    VkBufferCopy region = {coff, off, size};
    vkCmdCopyBuffer(b->cmd, c->buf.buffer, buf, 1, &region);
    b->dispatches++;
    if (b->dispatches >= RS_BATCH_LIMIT) st = submit_in_order_locked(s);
    pthread_mutex_unlock(&s->lock);
    return st;
}

rs_status rs_memcpy_dtoh(rs_stream *s, void *dst, uint64_t src, uint64_t size) {
    if (!size) return RS_OK;
    VkBuffer buf;
    uint64_t off;
    void *host;
    rs_status st = resolve(s->dev, src, size, &buf, &off, &host);
    if (st) return st;
    if (host) {
        if ((st = rs_stream_synchronize(s))) return st;
        memcpy(dst, host, size);
        return RS_OK;
    }
    /* device-only memory: copy into a staging buffer, then wait */
    rs_hostbuf staging;
    if ((st = rs_hostbuf_create(s->dev, size, &staging))) return st;
    pthread_mutex_lock(&s->lock);
    rs_batch *b;
    if (!(st = rs_stream_open_locked(s, &b))) {
        rs_access acc = {src, size, 0};
        rs_stream_hazards_locked(s, &acc, 1);
        VkBufferCopy region = {off, 0, size};
        vkCmdCopyBuffer(b->cmd, buf, staging.buffer, 1, &region);
        b->dispatches++;
    }
    pthread_mutex_unlock(&s->lock);
    if (!st) st = rs_stream_synchronize(s);
    if (!st) memcpy(dst, staging.host, size);
    rs_hostbuf_destroy(s->dev, &staging);
    return st;
}

rs_status rs_memcpy_dtod(rs_stream *s, uint64_t dst, uint64_t src, uint64_t size) {
    if (!size) return RS_OK;
    VkBuffer dbuf, sbuf;
    uint64_t doff, soff;
    void *h;
    rs_status st;
    if ((st = resolve(s->dev, dst, size, &dbuf, &doff, &h)) ||
        (st = resolve(s->dev, src, size, &sbuf, &soff, &h)))
        return st;
    pthread_mutex_lock(&s->lock);
    rs_batch *b;
    if (!(st = rs_stream_open_locked(s, &b))) {
        rs_access acc[2] = {{src, size, 0}, {dst, size, 1}};
        rs_stream_hazards_locked(s, acc, 2);
        VkBufferCopy region = {soff, doff, size};
        vkCmdCopyBuffer(b->cmd, sbuf, dbuf, 1, &region);
        b->dispatches++;
        b->bytes += 2 * size;
        if (b->dispatches >= RS_BATCH_LIMIT || big_enough_locked(s, b)) st = submit_in_order_locked(s);
    }
    pthread_mutex_unlock(&s->lock);
    return st;
}
