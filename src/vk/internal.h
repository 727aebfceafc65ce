/* Internal structures of the Vulkan runtime (src/vk/). Not installed.
 * Ownership: the device owns its allocator, streams, kernels and caches;
 * rs_shutdown() destroys devices, each freeing what it owns. */
#ifndef RS_VK_INTERNAL_H
#define RS_VK_INTERNAL_H

#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <vulkan/vulkan.h>

#include "russet/russet.h"

#include "vk/runtime.h" /* rs_error and what the engines ask of the device */

/* ---- errors (error.c) */
/* A failed Vulkan call: RS_ERR_OOM for the out-of-memory codes. */
rs_status rs_vk_error(VkResult r, const char *what);
const char *rs_vk_result_name(VkResult r);

/* ---- hashing and small maps (util.c) */
uint64_t rs_fnv1a(uint64_t h, const void *data, size_t n);
#define RS_FNV_SEED 0xcbf29ce484222325ull

/* uint64 -> pointer hash map, open addressing. Keys are never 0. */
typedef struct rs_map {
    uint64_t *keys;
    void **vals;
    size_t cap, count;
} rs_map;
int rs_map_put(rs_map *m, uint64_t key, void *val); /* 0 ok, -1 no memory */
void *rs_map_get(const rs_map *m, uint64_t key);
void *rs_map_remove(rs_map *m, uint64_t key);
void rs_map_free(rs_map *m);

/* ---- memory (memory.c) */
typedef struct rs_block rs_block;

typedef struct rs_segment {
    VkDeviceMemory memory;
    VkBuffer buffer;
    uint64_t address;   /* device address of byte 0 */
    uint64_t size;
    void *host;         /* mapped pointer, or NULL */
    int stream_id;      /* blocks of this segment serve this stream only */
    int pool;           /* 0 small, 1 large */
    rs_block *first;    /* blocks in address order */
} rs_segment;

struct rs_block {
    rs_segment *seg;
    uint64_t offset, size;
    uint64_t requested;
    int allocated;
    rs_block *prev, *next;            /* neighbours in the segment */
    rs_block *free_prev, *free_next;  /* free list of (stream, pool) */
    uint32_t used_by;                 /* streams recorded by rs_record_stream (bit mask) */
    uint64_t wait_values[RS_MAX_STREAMS]; /* pending: reusable when these finish */
    rs_block *pending_next;
};

typedef struct rs_allocator {
    pthread_mutex_t lock;
    rs_segment **segments;  /* sorted by address */
    size_t nseg, capseg;
    rs_block *free_lists[RS_MAX_STREAMS][2];
    rs_block *pending;      /* freed, waiting on other streams */
    rs_map live;            /* address -> live block */
    rs_memory_stats stats;
    uint64_t limit;         /* reserved bytes at most (rs_set_memory_limit); 0: the heap */
} rs_allocator;

rs_status rs_allocator_init(rs_device *dev);
void rs_allocator_destroy(rs_device *dev);
/* Finds the segment holding an address; NULL if none. Caller holds no lock. */
rs_segment *rs_segment_find(rs_device *dev, uint64_t address);
/* 1 and the range of the live allocation holding `address`, else 0. */
int rs_live_block(rs_device *dev, uint64_t address, uint64_t *start, uint64_t *size);

/* A raw host-visible buffer with a device address (arena chunks, staging,
 * the error flag). */
typedef struct rs_hostbuf {
    VkDeviceMemory memory;
    VkBuffer buffer;
    uint64_t address;
    uint64_t size;
    void *host;
} rs_hostbuf;
rs_status rs_hostbuf_create(rs_device *dev, uint64_t size, rs_hostbuf *out);
void rs_hostbuf_destroy(rs_device *dev, rs_hostbuf *b);
/* Creates a VkBuffer with a device address over new memory of `type`. */
rs_status rs_buffer_create(rs_device *dev, uint64_t size, uint32_t memory_type, int map,
                           VkDeviceMemory *mem, VkBuffer *buf, uint64_t *address, void **host);

/* ---- streams (stream.c) */
/* Arena memory (parameter blocks, staged uploads). Each thread that takes
 * arena memory on a stream has chunks of its own there (rs_arena_user), so
 * another thread's work never rewrites them. Every dispatch a thread records
 * stamps its recent chunks' `release` with the dispatch's batch; a chunk is
 * reused once it has left its thread's recent set (RS_ARENA_RECENT chunks,
 * RS_ARENA_AGE takes: stream.c) and the timeline has passed `release`. */
typedef struct rs_arena_chunk {
    rs_hostbuf buf;
    uint64_t used;
    uint64_t release;   /* the last batch that may read it */
    uint64_t last_take; /* its thread's take count when last taken from */
    struct rs_arena_chunk *next;
} rs_arena_chunk;

#define RS_ARENA_RECENT 4
typedef struct rs_arena_user {
    uint64_t thread;  /* rs_thread_key of the thread; 0: a free slot */
    uint64_t takes;   /* its takes on this stream so far */
    uint64_t active;  /* the stream's user clock at its last take (LRU) */
    rs_arena_chunk *recent[RS_ARENA_RECENT]; /* [0]: the chunk it takes from */
    int nrecent;
} rs_arena_user;
#define RS_ARENA_USERS 32

typedef struct rs_wait {
    VkSemaphore semaphore;
    uint64_t value;
} rs_wait;

typedef struct rs_batch {
    VkCommandBuffer cmd;
    uint64_t value;          /* the timeline value its submission signals */
    uint32_t dispatches;
    uint64_t bytes;          /* memory its work touches (rs_access sizes) */
    rs_wait *waits;
    uint32_t nwaits, capwaits;
    VkPipeline bound;
    /* kernel timing (profile.c): two timestamps a timed dispatch */
    VkQueryPool queries;     /* made on the batch's first timed dispatch, kept with it */
    uint32_t nq;             /* timestamps written since it opened */
    struct rs_prof_mark *marks; /* a timed dispatch's kernel name and correlation id */
    struct rs_batch *next;
} rs_batch;

#define RS_HAZARD_SLOTS 64
typedef struct rs_range {
    uint64_t lo, hi;
    int write;
} rs_range;

struct rs_stream {
    rs_device *dev;
    int id;
    pthread_mutex_t lock;
    VkCommandPool pool;
    VkSemaphore timeline;
    uint64_t submitted;      /* last value submitted */
    rs_batch *open;          /* recording, signals submitted + 1 */
    rs_batch *inflight_head, *inflight_tail;
    rs_batch *spare;         /* recycled batches */
    rs_arena_chunk *spare_chunks, *spare_tail; /* reusable, oldest first */
    rs_arena_chunk *retired;  /* out of every thread's recent set, maybe still read */
    rs_arena_user users[RS_ARENA_USERS]; /* the threads taking arena memory here */
    uint64_t user_clock;
    rs_range hazards[RS_HAZARD_SLOTS];
    int nhazards;
    uint64_t total_dispatches, submits, barriers;
    uint64_t batch_bytes, batch_ahead; /* early submission (stream.c) */
    uint64_t inflight_dispatches;      /* in the batches submitted and not yet recycled */
    uint64_t max_queued;               /* their bound (RUSSET_MAX_QUEUED; 0: none) */
    double batch_hold;
    /* checking modes (audit.c), read when the stream is made:
     * RUSSET_SERIALIZE=1 puts a full barrier before every dispatch and copy;
     * RUSSET_AUDIT=1 runs each dispatch alone and fails it if it changed
     * memory outside the writes it declared */
    int serialize, audit;
    uint8_t *audit_shadow;   /* audit.c: copy of every segment before a dispatch */
    uint64_t audit_shadow_size;
};

rs_status rs_stream_create(rs_device *dev, int id, rs_stream **out);
void rs_stream_destroy(rs_stream *s);
/* Locked variants (the caller holds s->lock). */
rs_status rs_stream_open_locked(rs_stream *s, rs_batch **out);
rs_status rs_stream_flush_locked(rs_stream *s);
rs_status rs_stream_wait_value(rs_stream *s, uint64_t value);
uint64_t rs_stream_completed(rs_stream *s);
/* Records hazards for accesses and inserts a barrier if one is needed. */
void rs_stream_hazards_locked(rs_stream *s, const rs_access *acc, int n);
/* Waits (s->lock held) until everything recorded on s has finished. */
rs_status rs_stream_drain_locked(rs_stream *s);

/* ---- checking modes (audit.c) */
/* Reads RUSSET_SERIALIZE and RUSSET_AUDIT into a new stream. */
void rs_audit_configure(rs_stream *s);
/* RUSSET_AUDIT, s->lock held: before a dispatch, waits for the stream and
 * copies every memory segment; after it (rs_audit_after), waits again and
 * fails if bytes outside the declared writes changed. */
rs_status rs_audit_before(rs_stream *s);
rs_status rs_audit_after(rs_stream *s, const char *kernel, const rs_access *acc, int n);
void rs_audit_free(rs_stream *s);

/* ---- SPIR-V inspection (spirv.c) */
enum {
    RS_SPIRV_CAP_FLOAT16 = 1u << 0, RS_SPIRV_CAP_FLOAT64 = 1u << 1, RS_SPIRV_CAP_INT64 = 1u << 2,
    RS_SPIRV_CAP_INT64_ATOMICS = 1u << 3, RS_SPIRV_CAP_INT16 = 1u << 4, RS_SPIRV_CAP_INT8 = 1u << 5,
    RS_SPIRV_CAP_STORAGE16 = 1u << 6, RS_SPIRV_CAP_STORAGE8 = 1u << 7, RS_SPIRV_CAP_ATOMIC_F32_ADD = 1u << 8,
    RS_SPIRV_CAP_ATOMIC_F64_ADD = 1u << 9, RS_SPIRV_CAP_BALLOT = 1u << 10, RS_SPIRV_CAP_COOPMAT_NV = 1u << 11,
    RS_SPIRV_CAP_COOPMAT_KHR = 1u << 12,
};
typedef struct rs_spirv_info {
    uint64_t shared_bytes; /* workgroup variables, each aligned to 16 bytes */
    uint32_t caps;         /* RS_SPIRV_CAP_* the module declares */
    uint64_t invocations;  /* the workgroup size's product (LocalSize or LocalSizeId) */
} rs_spirv_info;
rs_status rs_spirv_inspect(const uint32_t *words, size_t nwords, rs_spirv_info *out);
const char *rs_spirv_cap_name(uint32_t bit);
/* A copy of the module that computes as written (spirv.c, "exact math"):
 * the float controls (RS_WIDTH_* masks) it lacks for the float widths it
 * declares; with contraction (RS_CONTRACT_*) not OFF, NoContraction on every
 * float add, subtract and multiply, and under RS_CONTRACT_OPAQUE every
 * float32 scalar product also passed through its bits (a driver that fuses
 * in spite of NoContraction cannot fuse that); with exact_div, float32
 * divisions rounded once. In *out (malloc'd), NULL where nothing changes. */
enum { RS_CONTRACT_OFF = 0, RS_CONTRACT_DECORATE = 1, RS_CONTRACT_OPAQUE = 2 };
rs_status rs_spirv_exact_math(const uint32_t *words, size_t nwords, uint32_t infnan, uint32_t denorm,
                              int contraction, int exact_div, uint32_t **out, size_t *out_words);

/* ---- kernels (kernel.c) */
struct rs_kernel {
    char *name;
    VkPipeline pipeline;  /* VK_NULL_HANDLE: it failed to compile, see error */
    char *error;
};

typedef struct rs_kernel_cache {
    pthread_mutex_t lock;
    rs_map by_key;          /* hash of (source, defines) -> rs_kernel */
    void *compiler;         /* shaderc_compiler_t, created on first compile */
    VkPipelineCache pipeline_cache;
    uint64_t created_since_save;
    rs_cache_stats stats;
} rs_kernel_cache;

rs_status rs_kernels_init(rs_device *dev);
void rs_kernels_destroy(rs_device *dev);
/* The cache directory is reread from the environment after this. */
void rs_kernels_forget_dir(void);

/* ---- the device (context.c) */
#define RS_MAX_ERROR_SITES 4096
#define RS_MAX_TABLES 64
#define RS_MAX_TABLE_BYTES (256ull << 20)

struct rs_device {
    int index;
    VkPhysicalDevice physical;
    VkDevice device;
    VkQueue queue;
    uint32_t queue_family;
    pthread_mutex_t queue_lock;   /* vkQueueSubmit is externally synchronized */
    rs_device_info info;
    VkPhysicalDeviceMemoryProperties memprops;
    uint32_t device_memory_type;  /* where tensors live */
    uint32_t host_memory_type;    /* host-visible, coherent: arena, staging */
    int device_memory_mapped;     /* device_memory_type is host-visible */
    uint32_t timestamp_valid_bits;
    VkPipelineLayout layout;      /* shared: push constants only */
    uint32_t push_size;
    pthread_mutex_t streams_lock;
    rs_stream *streams[RS_MAX_STREAMS];
    rs_allocator alloc;
    rs_kernel_cache kernels;
    rs_hostbuf error_flag;
    pthread_mutex_t sites_lock;
    char *sites[RS_MAX_ERROR_SITES];
    uint32_t nsites;
    rs_map site_ids;              /* hash of a site's name -> id */
    int coopmat_khr;              /* RS_COOPMAT_KHR_* bits: VK_KHR_cooperative_matrix enabled */
    /* kernels compute as written (spirv.c, "exact math"); RUSSET_EXACT_MATH=0
     * leaves them to the driver's defaults, to see what the modes change */
    int exact_math;
    int contraction;  /* RS_CONTRACT_*: RUSSET_CONTRACTION=opaque (kernel.c) */
    /* RUSSET_PIPELINE_STATS: VK_KHR_pipeline_executable_properties enabled,
     * pipelines capture the driver's statistics (rs_kernel_describe) */
    PFN_vkGetPipelineExecutablePropertiesKHR exec_props;
    PFN_vkGetPipelineExecutableStatisticsKHR exec_stats;
    PFN_vkGetPipelineExecutableInternalRepresentationsKHR exec_irs;
    pthread_mutex_t tables_lock;  /* rs_device_table's constant tables (memory.c) */
    struct { uint64_t key, address, bytes; } tables[RS_MAX_TABLES];
    int ntables;
    uint64_t table_bytes;
    atomic_uint_fast64_t host_waits; /* rs_device_host_waits */
    /* kernel timing (profile.c, russet/profiler.h) */
    atomic_int profiling;
    pthread_mutex_t prof_lock;    /* the records below */
    struct rs_kernel_record *prof_recs;
    size_t prof_n, prof_cap;
    int64_t prof_offset_ns;       /* host CLOCK_REALTIME minus device time, ns */
};

/* Checks run once, when the device is made (device_checks.c).
 * rs_f16_check: kernels/f16_check.comp sets dev->info.float16_conversions,
 * which kernels follow (RS_HW_F16; RUSSET_HW_F16=0 or 1 decides without the
 * check). rs_division_check: kernels/div_check.comp sets dev->info.division,
 * which the exact-math rewriting follows (kernel.c). */
void rs_f16_check(rs_device *dev);
void rs_division_check(rs_device *dev);

/* A timestamp query's ticks, cut to the queue's valid bits (events and kernel timing). */
static inline uint64_t rs_timestamp_ticks(const rs_device *dev, uint64_t raw) {
    return dev->timestamp_valid_bits < 64 ? raw & ((1ull << dev->timestamp_valid_bits) - 1) : raw;
}

/* ---- kernel timing (profile.c) */
typedef struct rs_prof_mark {
    const char *name;      /* the kernel's (kernels live as long as the device) */
    uint64_t correlation;
} rs_prof_mark;
/* Around a dispatch recorded into b while dev->profiling: a timestamp
 * before (begin) and after (end); s->lock held. */
rs_status rs_profile_begin_locked(rs_stream *s, rs_batch *b, const char *name);
void rs_profile_end_locked(rs_stream *s, rs_batch *b);
/* A finished batch's timed dispatches into the device's records (s->lock held). */
void rs_profile_collect_locked(rs_stream *s, rs_batch *b);
void rs_profile_batch_free(rs_device *dev, rs_batch *b);
/* Recycles s's finished batches, collecting their records (stream.c; takes s->lock). */
void rs_stream_reap(rs_stream *s);
/* A timing event's timestamp in device ticks (event.c). */
rs_status rs_event_ticks(rs_event *e, uint64_t *ticks);

/* Checks and clears the device error flag. */
rs_status rs_device_check_error(rs_device *dev);
/* Waits for every stream; no error check. */
rs_status rs_device_wait_idle(rs_device *dev);

#endif
