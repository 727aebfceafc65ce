/* The caching suballocator.
 *
 * Segments are VkDeviceMemory allocations, each bound to one VkBuffer whose
 * device address names its memory. Blocks are address ranges inside
 * segments. Like PyTorch's CUDA allocator, a segment belongs to the stream
 * that allocated it and its free blocks are reused only by that stream: the
 * stream's own order (and its hazard barriers) makes reuse safe without
 * waiting. A block used on another stream (rs_record_stream) waits in a
 * pending list until that stream's work has finished. Memory goes back to
 * Vulkan only in rs_empty_cache, or when an allocation fails, after the
 * device is idle.
 *
 * Pools: requests up to 1 MiB (rounded to 512 B) come from 2 MiB segments;
 * larger ones from 20 MiB segments (up to 10 MiB) or a segment of their own
 * size rounded to 2 MiB. Free neighbours merge. Free lists are unsorted and
 * searched best-fit: fine for the block counts seen so far; a size-ordered
 * tree is the next step if profiles show it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vk/internal.h"

#define KIB 1024ull
#define MIB (1024ull * 1024ull)
#define SMALL_LIMIT (1 * MIB)
#define SMALL_SEGMENT (2 * MIB)
#define MEDIUM_LIMIT (10 * MIB)
#define MEDIUM_SEGMENT (20 * MIB)
#define LARGE_ROUND (2 * MIB)
#define MIN_BLOCK 512ull

enum { BLOCK_FREE = 0, BLOCK_LIVE = 1, BLOCK_PENDING = 2 };

static uint64_t round_up(uint64_t n, uint64_t m) { return (n + m - 1) / m * m; }

static void fmt_bytes(char *buf, size_t len, uint64_t n) {
    if (n >= 1024 * MIB) snprintf(buf, len, "%.2f GiB", (double)n / (1024.0 * MIB));
    else if (n >= MIB) snprintf(buf, len, "%.2f MiB", (double)n / MIB);
    else if (n >= KIB) snprintf(buf, len, "%.2f KiB", (double)n / KIB);
    else snprintf(buf, len, "%llu bytes", (unsigned long long)n);
}

rs_status rs_buffer_create(rs_device *dev, uint64_t size, uint32_t memory_type, int map,
                           VkDeviceMemory *mem, VkBuffer *buf, uint64_t *address, void **host) {
    *mem = VK_NULL_HANDLE;
    *buf = VK_NULL_HANDLE;
    *host = NULL;
    VkBufferCreateInfo bci = {.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO,
                              .size = size,
                              .usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT |
                                       VK_BUFFER_USAGE_TRANSFER_SRC_BIT |
                                       VK_BUFFER_USAGE_TRANSFER_DST_BIT |
                                       VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT,
                              .sharingMode = VK_SHARING_MODE_EXCLUSIVE};
    VkResult r = vkCreateBuffer(dev->device, &bci, NULL, buf);
    if (r != VK_SUCCESS) return rs_vk_error(r, "vkCreateBuffer");
    VkMemoryRequirements req;
    vkGetBufferMemoryRequirements(dev->device, *buf, &req);
    if (!(req.memoryTypeBits & (1u << memory_type))) {
        vkDestroyBuffer(dev->device, *buf, NULL);
        *buf = VK_NULL_HANDLE;
        return rs_error(RS_ERR_VULKAN, "russet: memory type %u cannot hold storage buffers", memory_type);
    }
    VkMemoryAllocateFlagsInfo flags = {.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_FLAGS_INFO,
                                       .flags = VK_MEMORY_ALLOCATE_DEVICE_ADDRESS_BIT};
    VkMemoryAllocateInfo mai = {.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
                                .pNext = &flags,
                                .allocationSize = req.size,
                                .memoryTypeIndex = memory_type};
    r = vkAllocateMemory(dev->device, &mai, NULL, mem);
    if (r != VK_SUCCESS) {
        vkDestroyBuffer(dev->device, *buf, NULL);
        *buf = VK_NULL_HANDLE;
        *mem = VK_NULL_HANDLE;
        return rs_vk_error(r, "vkAllocateMemory");
    }
    r = vkBindBufferMemory(dev->device, *buf, *mem, 0);
    if (r == VK_SUCCESS && map) r = vkMapMemory(dev->device, *mem, 0, VK_WHOLE_SIZE, 0, host);
    if (r != VK_SUCCESS) {
        vkDestroyBuffer(dev->device, *buf, NULL);
        vkFreeMemory(dev->device, *mem, NULL);
        *buf = VK_NULL_HANDLE;
        *mem = VK_NULL_HANDLE;
        return rs_vk_error(r, map ? "vkMapMemory" : "vkBindBufferMemory");
    }
    VkBufferDeviceAddressInfo ai = {.sType = VK_STRUCTURE_TYPE_BUFFER_DEVICE_ADDRESS_INFO, .buffer = *buf};
    *address = vkGetBufferDeviceAddress(dev->device, &ai);
    return RS_OK;
}

rs_status rs_hostbuf_create(rs_device *dev, uint64_t size, rs_hostbuf *out) {
    memset(out, 0, sizeof *out);
    out->size = size;
    return rs_buffer_create(dev, size, dev->host_memory_type, 1, &out->memory, &out->buffer,
                            &out->address, &out->host);
}

void rs_hostbuf_destroy(rs_device *dev, rs_hostbuf *b) {
    if (b->buffer) vkDestroyBuffer(dev->device, b->buffer, NULL);
    if (b->memory) vkFreeMemory(dev->device, b->memory, NULL);
    memset(b, 0, sizeof *b);
}

rs_status rs_allocator_init(rs_device *dev) {
    (void)dev;
    return RS_OK;
}

/* ---- free lists (allocator lock held) */

static void list_push(rs_allocator *a, rs_block *b) {
    rs_block **head = &a->free_lists[b->seg->stream_id][b->seg->pool];
    b->free_prev = NULL;
    b->free_next = *head;
    if (*head) (*head)->free_prev = b;
    *head = b;
}

static void list_remove(rs_allocator *a, rs_block *b) {
    rs_block **head = &a->free_lists[b->seg->stream_id][b->seg->pool];
    if (b->free_prev) b->free_prev->free_next = b->free_next;
    else *head = b->free_next;
    if (b->free_next) b->free_next->free_prev = b->free_prev;
    b->free_prev = b->free_next = NULL;
}

/* Makes b free, merging it with free neighbours. */
static void make_free(rs_allocator *a, rs_block *b) {
    b->allocated = BLOCK_FREE;
    b->used_by = 0;
    b->requested = 0;
    rs_block *p = b->prev, *n = b->next;
    if (p && p->allocated == BLOCK_FREE) {
        list_remove(a, p);
        p->size += b->size;
        p->next = n;
        if (n) n->prev = p;
        free(b);
        b = p;
    }
    n = b->next;
    if (n && n->allocated == BLOCK_FREE) {
        list_remove(a, n);
        b->size += n->size;
        b->next = n->next;
        if (n->next) n->next->prev = b;
        free(n);
    }
    list_push(a, b);
}

static void process_pending(rs_device *dev) {
    rs_allocator *a = &dev->alloc;
    rs_block **pp = &a->pending;
    while (*pp) {
        rs_block *b = *pp;
        int done = 1;
        for (int s = 0; s < RS_MAX_STREAMS && done; s++)
            if ((b->used_by & (1u << s)) && dev->streams[s] &&
                rs_stream_completed(dev->streams[s]) < b->wait_values[s])
                done = 0;
        if (done) {
            *pp = b->pending_next;
            b->pending_next = NULL;
            make_free(a, b);
        } else {
            pp = &b->pending_next;
        }
    }
}

/* ---- segments (allocator lock held) */

static int segment_insert(rs_allocator *a, rs_segment *seg) {
    if (a->nseg == a->capseg) {
        size_t ncap = a->capseg ? a->capseg * 2 : 16;
        rs_segment **n = realloc(a->segments, ncap * sizeof *n);
        if (!n) return -1;
        a->segments = n;
        a->capseg = ncap;
    }
    size_t i = a->nseg;
    while (i > 0 && a->segments[i - 1]->address > seg->address) {
        a->segments[i] = a->segments[i - 1];
        i--;
    }
    a->segments[i] = seg;
    a->nseg++;
    return 0;
}

static rs_segment *segment_lookup(rs_allocator *a, uint64_t address) {
    size_t lo = 0, hi = a->nseg;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        rs_segment *s = a->segments[mid];
        if (address < s->address) hi = mid;
        else if (address >= s->address + s->size) lo = mid + 1;
        else return s;
    }
    return NULL;
}

static rs_status segment_new(rs_device *dev, uint64_t size, int stream_id, int pool, rs_block **out) {
    rs_allocator *a = &dev->alloc;
    const rs_features *f = &dev->info.features;
    if (a->stats.reserved_bytes + size > dev->info.total_memory)
        return rs_error(RS_ERR_OOM, "the device heap holds %llu bytes",
                        (unsigned long long)dev->info.total_memory);
    if (a->limit && a->stats.reserved_bytes + size > a->limit)
        return rs_error(RS_ERR_OOM, "the process's memory limit is %llu bytes (set_per_process_memory_fraction)",
                        (unsigned long long)a->limit);
    rs_segment *seg = calloc(1, sizeof *seg);
    rs_block *b = calloc(1, sizeof *b);
    if (!seg || !b) {
        free(seg);
        free(b);
        return rs_error(RS_ERR_OOM, "out of host memory");
    }
    rs_status st = rs_buffer_create(dev, size, dev->device_memory_type, dev->device_memory_mapped,
                                    &seg->memory, &seg->buffer, &seg->address, &seg->host);
    /* maxMemoryAllocationSize is advisory (Vulkan 1.1: past it an allocation
     * "may" fail). NVIDIA advertises 4 GiB and allocates more, so a tensor
     * past 4 GiB is tried rather than refused; a refusal says why. */
    if (st && f->max_allocation_size && size > f->max_allocation_size) {
        char why[256];
        snprintf(why, sizeof why, "%s", rs_last_error()); /* rs_error rewrites that buffer */
        st = rs_error(RS_ERR_OOM, "the driver refused one allocation of %llu bytes (it advertises %llu bytes "
                      "as its single-allocation limit): %s", (unsigned long long)size,
                      (unsigned long long)f->max_allocation_size, why);
    }
    if (st || segment_insert(a, seg)) {
        if (!st) {
            vkDestroyBuffer(dev->device, seg->buffer, NULL);
            vkFreeMemory(dev->device, seg->memory, NULL);
            st = rs_error(RS_ERR_OOM, "out of host memory");
        }
        free(seg);
        free(b);
        return st;
    }
    seg->size = size;
    seg->stream_id = stream_id;
    seg->pool = pool;
    seg->first = b;
    b->seg = seg;
    b->size = size;
    a->stats.reserved_bytes += size;
    a->stats.segments++;
    a->stats.segment_alloc_count++;
    if (a->stats.reserved_bytes > a->stats.peak_reserved_bytes)
        a->stats.peak_reserved_bytes = a->stats.reserved_bytes;
    *out = b;
    return RS_OK;
}

static void segment_release(rs_device *dev, size_t i) {
    rs_allocator *a = &dev->alloc;
    rs_segment *seg = a->segments[i];
    list_remove(a, seg->first);
    free(seg->first);
    vkDestroyBuffer(dev->device, seg->buffer, NULL);
    vkFreeMemory(dev->device, seg->memory, NULL);
    a->stats.reserved_bytes -= seg->size;
    a->stats.segments--;
    a->stats.segment_free_count++;
    memmove(&a->segments[i], &a->segments[i + 1], (a->nseg - i - 1) * sizeof *a->segments);
    a->nseg--;
    free(seg);
}

/* Frees every segment that is one free block. The device must be idle. */
static void release_free_segments(rs_device *dev) {
    rs_allocator *a = &dev->alloc;
    process_pending(dev);
    for (size_t i = a->nseg; i-- > 0;) {
        rs_segment *seg = a->segments[i];
        if (seg->first->allocated == BLOCK_FREE && !seg->first->next) segment_release(dev, i);
    }
}

/* ---- allocate and free */

static rs_block *best_fit(rs_allocator *a, int sid, int pool, uint64_t size) {
    rs_block *best = NULL;
    for (rs_block *b = a->free_lists[sid][pool]; b; b = b->free_next)
        if (b->size >= size && (!best || b->size < best->size)) {
            best = b;
            if (b->size == size) break;
        }
    /* a large block serves a large request only if little would be wasted
     * or it can be split; huge blocks are not carved for small requests */
    return best;
}

static rs_status split(rs_allocator *a, rs_block *b, uint64_t size) {
    uint64_t rest = b->size - size;
    uint64_t min_rest = b->seg->pool == 0 ? MIN_BLOCK : SMALL_LIMIT;
    if (rest < min_rest) return RS_OK;
    rs_block *r = calloc(1, sizeof *r);
    if (!r) return rs_error(RS_ERR_OOM, "out of host memory");
    r->seg = b->seg;
    r->offset = b->offset + size;
    r->size = rest;
    r->prev = b;
    r->next = b->next;
    if (b->next) b->next->prev = r;
    b->next = r;
    b->size = size;
    r->allocated = BLOCK_FREE;
    list_push(a, r);
    return RS_OK;
}

rs_status rs_alloc(rs_device *dev, uint64_t size, rs_stream *stream, uint64_t *address) {
    *address = 0;
    if (size == 0) return RS_OK;
    rs_allocator *a = &dev->alloc;
    int sid = stream ? stream->id : 0;
    uint64_t rounded = size <= MIN_BLOCK ? MIN_BLOCK : round_up(size, MIN_BLOCK);
    int pool = rounded <= SMALL_LIMIT ? 0 : 1;
    uint64_t seg_size = pool == 0 ? SMALL_SEGMENT
                        : rounded <= MEDIUM_LIMIT ? MEDIUM_SEGMENT
                                                  : round_up(rounded, LARGE_ROUND);
    if (rounded < size) /* overflow */
        rounded = seg_size = UINT64_MAX;

    pthread_mutex_lock(&a->lock);
    process_pending(dev);
    rs_block *b = best_fit(a, sid, pool, rounded);
    rs_status st = RS_OK;
    if (b) {
        list_remove(a, b);
    } else {
        st = segment_new(dev, seg_size, sid, pool, &b);
        if (st == RS_ERR_OOM) {
            /* memory pressure: wait for the device, return the cache, retry */
            a->stats.num_alloc_retries++;
            pthread_mutex_unlock(&a->lock);
            rs_device_wait_idle(dev);
            pthread_mutex_lock(&a->lock);
            release_free_segments(dev);
            b = best_fit(a, sid, pool, rounded);
            if (b) {
                list_remove(a, b);
                st = RS_OK;
            } else {
                st = segment_new(dev, seg_size, sid, pool, &b);
            }
        }
        if (st) {
            char why[1024], req[32], al[32], rv[32], tot[32];
            snprintf(why, sizeof why, "%s", rs_last_error());
            if (st == RS_ERR_OOM) a->stats.num_ooms++;
            fmt_bytes(req, sizeof req, size);
            fmt_bytes(al, sizeof al, a->stats.allocated_bytes);
            fmt_bytes(rv, sizeof rv, a->stats.reserved_bytes);
            fmt_bytes(tot, sizeof tot, dev->info.total_memory);
            pthread_mutex_unlock(&a->lock);
            return rs_error(st,
                            "russet: out of memory: tried to allocate %s on device %d (%s total); "
                            "%s allocated, %s reserved by russet (%s)",
                            req, dev->index, tot, al, rv, why);
        }
    }
    if ((st = split(a, b, rounded)) || rs_map_put(&a->live, b->seg->address + b->offset, b)) {
        make_free(a, b);
        pthread_mutex_unlock(&a->lock);
        return st ? st : rs_error(RS_ERR_OOM, "russet: out of host memory");
    }
    b->allocated = BLOCK_LIVE;
    b->requested = size;
    a->stats.allocated_bytes += b->size;
    a->stats.requested_bytes += size;
    a->stats.active_blocks++;
    a->stats.alloc_count++;
    if (a->stats.allocated_bytes > a->stats.peak_allocated_bytes)
        a->stats.peak_allocated_bytes = a->stats.allocated_bytes;
    *address = b->seg->address + b->offset;
    pthread_mutex_unlock(&a->lock);
    return RS_OK;
}

void rs_free(rs_device *dev, uint64_t address) {
    if (!address) return;
    rs_allocator *a = &dev->alloc;
    pthread_mutex_lock(&a->lock);
    rs_block *b = rs_map_remove(&a->live, address);
    if (!b) {
        pthread_mutex_unlock(&a->lock);
        return;
    }
    a->stats.allocated_bytes -= b->size;
    a->stats.requested_bytes -= b->requested;
    a->stats.active_blocks--;
    a->stats.free_count++;
    uint32_t used = b->used_by;
    if (!used) {
        make_free(a, b);
        pthread_mutex_unlock(&a->lock);
        return;
    }
    b->allocated = BLOCK_PENDING;
    pthread_mutex_unlock(&a->lock);
    /* the other streams' work so far must finish before reuse: submit it,
     * and remember the values to wait for */
    uint64_t values[RS_MAX_STREAMS] = {0};
    for (int s = 0; s < RS_MAX_STREAMS; s++) {
        if (!(used & (1u << s)) || !dev->streams[s]) continue;
        rs_stream *st = dev->streams[s];
        pthread_mutex_lock(&st->lock);
        rs_stream_flush_locked(st);
        values[s] = st->submitted;
        pthread_mutex_unlock(&st->lock);
    }
    pthread_mutex_lock(&a->lock);
    memcpy(b->wait_values, values, sizeof values);
    b->pending_next = a->pending;
    a->pending = b;
    pthread_mutex_unlock(&a->lock);
}

/* The block holding `address` (live or not), or NULL; *seg its segment.
 * Caller holds a->lock. */
static rs_block *block_at(rs_allocator *a, uint64_t address, rs_segment **seg) {
    *seg = segment_lookup(a, address);
    rs_block *b = *seg ? (*seg)->first : NULL;
    while (b && !(address >= (*seg)->address + b->offset && address < (*seg)->address + b->offset + b->size))
        b = b->next;
    return b;
}

void rs_record_stream(rs_device *dev, uint64_t address, rs_stream *stream) {
    if (!address || !stream) return;
    rs_allocator *a = &dev->alloc;
    pthread_mutex_lock(&a->lock);
    rs_segment *seg;
    rs_block *b = block_at(a, address, &seg);
    if (b && b->allocated == BLOCK_LIVE && stream->id != seg->stream_id) b->used_by |= 1u << stream->id;
    pthread_mutex_unlock(&a->lock);
}

int rs_live_block(rs_device *dev, uint64_t address, uint64_t *start, uint64_t *size) {
    rs_allocator *a = &dev->alloc;
    pthread_mutex_lock(&a->lock);
    /* a tensor's address is mostly its allocation's first byte: the map of
     * live blocks by address, before the walk through the segment */
    rs_block *b = rs_map_get(&a->live, address);
    rs_segment *seg = b ? b->seg : NULL;
    if (!b) b = block_at(a, address, &seg);
    const int live = b && b->allocated == BLOCK_LIVE;
    if (live) *start = seg->address + b->offset, *size = b->size;
    pthread_mutex_unlock(&a->lock);
    return live;
}

rs_segment *rs_segment_find(rs_device *dev, uint64_t address) {
    pthread_mutex_lock(&dev->alloc.lock);
    rs_segment *s = segment_lookup(&dev->alloc, address);
    pthread_mutex_unlock(&dev->alloc.lock);
    return s;
}

void *rs_host_ptr(rs_device *dev, uint64_t address) {
    rs_segment *s = rs_segment_find(dev, address);
    return (s && s->host) ? (char *)s->host + (address - s->address) : NULL;
}

int rs_owns_address(rs_device *dev, uint64_t address) { return rs_segment_find(dev, address) != NULL; }

void rs_memory_stats_get(rs_device *dev, rs_memory_stats *out) {
    pthread_mutex_lock(&dev->alloc.lock);
    *out = dev->alloc.stats;
    pthread_mutex_unlock(&dev->alloc.lock);
}

void rs_set_memory_limit(rs_device *dev, uint64_t bytes) {
    pthread_mutex_lock(&dev->alloc.lock);
    dev->alloc.limit = bytes >= dev->info.total_memory ? 0 : bytes;
    pthread_mutex_unlock(&dev->alloc.lock);
}

uint64_t rs_memory_limit(rs_device *dev) {
    pthread_mutex_lock(&dev->alloc.lock);
    const uint64_t limit = dev->alloc.limit ? dev->alloc.limit : dev->info.total_memory;
    pthread_mutex_unlock(&dev->alloc.lock);
    return limit;
}

void rs_memory_reset_peaks(rs_device *dev) {
    pthread_mutex_lock(&dev->alloc.lock);
    dev->alloc.stats.peak_allocated_bytes = dev->alloc.stats.allocated_bytes;
    dev->alloc.stats.peak_reserved_bytes = dev->alloc.stats.reserved_bytes;
    pthread_mutex_unlock(&dev->alloc.lock);
}

rs_status rs_empty_cache(rs_device *dev) {
    rs_status st = rs_device_wait_idle(dev);
    if (st) return st;
    pthread_mutex_lock(&dev->alloc.lock);
    release_free_segments(dev);
    pthread_mutex_unlock(&dev->alloc.lock);
    return RS_OK;
}

size_t rs_memory_snapshot(rs_device *dev, rs_block_info *out, size_t cap) {
    rs_allocator *a = &dev->alloc;
    size_t n = 0;
    pthread_mutex_lock(&a->lock);
    for (size_t i = 0; i < a->nseg; i++) {
        rs_segment *seg = a->segments[i];
        for (rs_block *b = seg->first; b; b = b->next, n++) {
            if (n >= cap) continue;
            out[n] = (rs_block_info){.address = seg->address + b->offset,
                                     .size = b->size,
                                     .segment_address = seg->address,
                                     .segment_size = seg->size,
                                     .allocated = b->allocated == BLOCK_LIVE,
                                     .stream_id = seg->stream_id};
        }
    }
    pthread_mutex_unlock(&a->lock);
    return n;
}

void rs_allocator_destroy(rs_device *dev) {
    rs_allocator *a = &dev->alloc;
    for (size_t i = 0; i < a->nseg; i++) {
        rs_segment *seg = a->segments[i];
        for (rs_block *b = seg->first; b;) {
            rs_block *n = b->next;
            free(b);
            b = n;
        }
        vkDestroyBuffer(dev->device, seg->buffer, NULL);
        vkFreeMemory(dev->device, seg->memory, NULL);
        free(seg);
    }
    free(a->segments);
    rs_map_free(&a->live);
    a->segments = NULL;
    a->nseg = a->capseg = 0;
    a->pending = NULL;
    memset(a->free_lists, 0, sizeof a->free_lists);
}

/* ---- constant tables (engine.h: rs_device_table). Their blocks are never
 * freed, so they are never reused while a kernel reads them; the
 * allocator's teardown returns their memory with the device's. */
rs_status rs_device_table(rs_stream *s, uint64_t key, uint64_t bytes, rs_table_fill fill, void *ctx,
                          uint64_t *address) {
    rs_device *dev = rs_stream_device(s);
    *address = 0;
    pthread_mutex_lock(&dev->tables_lock);
    for (int i = 0; i < dev->ntables; i++)
        if (dev->tables[i].key == key && dev->tables[i].bytes == bytes) {
            *address = dev->tables[i].address;
            pthread_mutex_unlock(&dev->tables_lock);
            return RS_OK;
        }
    rs_status st = RS_OK;
    if (dev->ntables < RS_MAX_TABLES && dev->table_bytes + bytes <= RS_MAX_TABLE_BYTES) {
        void *host = malloc(bytes);
        uint64_t a = 0;
        if (!host) {
            st = rs_error(RS_ERR_OOM, "russet: no host memory for a %llu-byte table", (unsigned long long)bytes);
        } else {
            fill(ctx, host);
            st = rs_alloc(dev, bytes, s, &a);
            if (st == RS_OK) st = rs_memcpy_htod(s, a, host, bytes);
            if (st == RS_OK) st = rs_stream_synchronize(s);
            free(host);
        }
        if (st == RS_OK) {
            dev->tables[dev->ntables].key = key;
            dev->tables[dev->ntables].address = a;
            dev->tables[dev->ntables].bytes = bytes;
            dev->ntables++;
            dev->table_bytes += bytes;
            *address = a;
        } else if (a) {
            rs_free(dev, a);
        }
    }
    pthread_mutex_unlock(&dev->tables_lock);
    return st;
}
