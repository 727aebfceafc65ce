/*
 * russet/runtime.h: the runtime's half of russet's public C API (C11, no
 * torch): errors, dtypes, devices, memory, streams, events, kernels, byte
 * copies. Each engine has a header of its own; russet/russet.h includes
 * them all.
 *
 * Layers (docs/architecture.md): the runtime (src/vk/: devices, memory,
 * streams, events, kernels) and the engines (src/engine/). PyTorch's adapter
 * (src/torch/) and Python (via ctypes) call only what include/russet/
 * declares.
 *
 * Conventions
 * - Functions that can fail return rs_status; RS_OK is 0. The message of the
 *   last failure on the calling thread is rs_last_error(). Nothing is printed.
 * - Device memory is named by its Vulkan buffer device address (uint64_t).
 *   Every allocation has one; kernels read tensors through buffer references,
 *   so there are no descriptor sets anywhere.
 * - Work is asynchronous: an op records into a stream's open batch. Only
 *   rs_stream_synchronize, rs_device_synchronize, rs_event_synchronize,
 *   host reads (rs_memcpy_dtoh) and memory pressure wait for the GPU.
 */
#ifndef RUSSET_RUNTIME_H
#define RUSSET_RUNTIME_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define RS_API __attribute__((visibility("default")))
#else
#define RS_API
#endif

#define RUSSET_VERSION "0.1.0"

/* ---------------------------------------------------------------- errors */

typedef enum rs_status {
    RS_OK = 0,
    RS_ERR_VULKAN = 1,        /* a Vulkan call failed */
    RS_ERR_NO_DEVICE = 2,     /* no Vulkan device, or a bad index */
    RS_ERR_OOM = 3,           /* out of device memory, after freeing the cache */
    RS_ERR_INVALID = 4,       /* bad argument */
    RS_ERR_COMPILE = 5,       /* GLSL did not compile */
    RS_ERR_DEVICE_ASSERT = 6, /* a kernel raised the device error flag */
    RS_ERR_UNSUPPORTED = 7,   /* the device (or its profile) lacks a feature */
    RS_ERR_IO = 8             /* a cache file could not be written */
} rs_status;

/* Message of the last error on this thread ("" if none). */
RS_API const char *rs_last_error(void);
RS_API const char *rs_status_name(rs_status s);

/* ---------------------------------------------------------------- dtypes */

/* Numbered as c10::ScalarType, so the adapter converts with a cast
 * (static_asserts in src/torch/ check it). */
typedef enum rs_dtype {
    RS_UINT8 = 0,
    RS_INT8 = 1,
    RS_INT16 = 2,
    RS_INT32 = 3,
    RS_INT64 = 4,
    RS_FLOAT16 = 5,
    RS_FLOAT32 = 6,
    RS_FLOAT64 = 7,
    RS_COMPLEX32 = 8,
    RS_COMPLEX64 = 9,
    RS_COMPLEX128 = 10,
    RS_BOOL = 11,
    RS_BFLOAT16 = 15,
    RS_FLOAT8_E5M2 = 23,
    RS_FLOAT8_E4M3FN = 24,
    RS_FLOAT8_E5M2FNUZ = 25,
    RS_FLOAT8_E4M3FNUZ = 26,
    RS_UINT16 = 27,
    RS_UINT32 = 28,
    RS_UINT64 = 29,
    RS_FLOAT8_E8M0FNU = 44,
    /* two float4 e2m1 values a byte: storage, views and bit copies only (no
     * arithmetic and no casts, as on CPU) */
    RS_FLOAT4_E2M1FN_X2 = 45
} rs_dtype;

RS_API int rs_dtype_valid(int dtype);
RS_API size_t rs_dtype_size(rs_dtype dt);
RS_API const char *rs_dtype_name(rs_dtype dt);
/* 1 if the dtype needs 64-bit float arithmetic (float64, complex128). */
RS_API int rs_dtype_needs_fp64(rs_dtype dt);

/* ---------------------------------------------------------------- devices */

typedef struct rs_device rs_device;
typedef struct rs_stream rs_stream;
typedef struct rs_event rs_event;
typedef struct rs_kernel rs_kernel;

typedef enum rs_profile { RS_PROFILE_NATIVE = 0, RS_PROFILE_APPLE = 1 } rs_profile;

/* Effective features: what the device reports, masked by the profile. */
typedef struct rs_features {
    int has_fp64;            /* shaderFloat64 */
    int has_int64;           /* shaderInt64 */
    int has_fp16;            /* shaderFloat16 arithmetic */
    int has_int8;            /* shaderInt8 arithmetic */
    int has_int16;           /* shaderInt16 arithmetic */
    int has_bf16;            /* bfloat16 arithmetic (never under apple) */
    int has_storage8;        /* 8-bit storage buffers */
    int has_storage16;       /* 16-bit storage buffers */
    int has_atomic_int64;    /* 64-bit buffer atomics */
    int has_atomic_float32_add;
    int has_atomic_float64_add;
    int has_cooperative_matrix;
    int has_buffer_device_address;
    int has_timeline_semaphore;
    int has_timestamps;
    int has_subgroup_ballot; /* basic + ballot subgroup operations in compute shaders */
    int unified_memory;      /* device memory is host-visible and coherent */
    uint32_t subgroup_size;
    uint32_t max_shared_memory;
    uint32_t max_workgroup_invocations;
    uint32_t max_workgroup_count_x;
    uint32_t max_push_constants;
    uint64_t max_allocation_size;
    /* VK_KHR_shader_float_controls, as masks of float widths (RS_WIDTH_*):
     * where the device can keep infinities, NaNs and signed zeros through
     * every operation (SignedZeroInfNanPreserve), and where it can keep
     * denormals (DenormPreserve); every kernel asks for both where they are
     * offered (kernel.c). Under apple: infinities and NaNs in 16 and 32 bits
     * (MoltenVK then compiles the kernel without Metal's fast math), no
     * denormal control (Metal has none). */
    uint32_t preserve_infnan;
    uint32_t preserve_denorm;
} rs_features;

/* float widths in rs_features.preserve_* */
#define RS_WIDTH_16 1u
#define RS_WIDTH_32 2u
#define RS_WIDTH_64 4u

typedef struct rs_device_info {
    char name[256];
    char driver[256];        /* driver name and version */
    char vendor[64];
    uint32_t vendor_id;
    uint32_t device_id;
    uint32_t api_version;    /* VK_MAKE_API_VERSION packed */
    int is_cpu;              /* VK_PHYSICAL_DEVICE_TYPE_CPU (lavapipe) */
    int physical_index;      /* index among the Vulkan physical devices */
    uint64_t total_memory;   /* bytes in the heap russet allocates from */
    double timestamp_period_ns;
    rs_profile profile;
    rs_features features;
    /* How kernels convert float16: 1 with the device's own conversions
     * (they gave c10's bits on every half and around every rounding point in
     * the check run when the device was made, or RUSSET_HW_F16=1), 0 with
     * c10's code in software, -1 before the device is made. */
    int float16_conversions;
    /* How kernels divide float32 (RS_DIVISION_*), decided by a check run
     * when the device is made; -1 before. */
    int division;
} rs_device_info;

enum {
    RS_DIVISION_DEVICE = 0,      /* the device's division is rounded once (lavapipe) */
    RS_DIVISION_CORRECTED = 1,   /* it is not, and russet's kernels correct every division (NVIDIA) */
    RS_DIVISION_APPROXIMATE = 2, /* it is not, and RUSSET_EXACT_MATH=0 leaves it so */
};

/* Number of usable devices. Never fails: 0 when Vulkan or a device is
 * missing (rs_last_error() then says why). RUSSET_DEVICE=<i> narrows the
 * list to that physical device. Devices are ordered GPUs first. */
RS_API int rs_device_count(void);
/* The device with this index, created on first use (thread-safe). */
RS_API rs_status rs_device_get(int index, rs_device **out);
/* 1 in a child of fork() whose parent had created a device (its driver
 * threads, locks and mappings are the parent's): there rs_device_count
 * is 0 and rs_device_get fails with RS_ERR_NO_DEVICE and a message that
 * says to use the 'spawn' start method, as CUDA refuses a forked child. */
RS_API int rs_forked_child(void);
RS_API rs_status rs_device_info_get(int index, rs_device_info *out);
RS_API const rs_features *rs_device_features(rs_device *dev);
RS_API int rs_device_index(rs_device *dev);
/* The profile in force: RUSSET_PROFILE=apple|native (default native). */
RS_API rs_profile rs_profile_current(void);
RS_API const char *rs_profile_name(rs_profile p);
/* Waits for all streams of the device, then checks the device error flag. */
RS_API rs_status rs_device_synchronize(rs_device *dev);
/* Flushes caches to disk and destroys every device. Safe to call twice. */
RS_API void rs_shutdown(void);

/* ---------------------------------------------------------------- memory */

typedef struct rs_memory_stats {
    uint64_t allocated_bytes;       /* live blocks, as requested (rounded) */
    uint64_t reserved_bytes;        /* VkDeviceMemory held */
    uint64_t peak_allocated_bytes;
    uint64_t peak_reserved_bytes;
    uint64_t active_blocks;
    uint64_t segments;
    uint64_t alloc_count;           /* successful rs_alloc calls */
    uint64_t free_count;
    uint64_t segment_alloc_count;   /* vkAllocateMemory calls */
    uint64_t segment_free_count;
    uint64_t num_alloc_retries;     /* allocations that freed the cache and retried */
    uint64_t num_ooms;
    uint64_t requested_bytes;       /* live, before rounding */
} rs_memory_stats;

typedef struct rs_block_info {
    uint64_t address;
    uint64_t size;
    uint64_t segment_address;
    uint64_t segment_size;
    int allocated;   /* 1 live, 0 cached free */
    int stream_id;
} rs_block_info;

/* Allocate `size` bytes (0 allowed: returns address 0) for use on `stream`
 * (NULL: the default stream). Blocks are reused only on their stream, so
 * stream order makes reuse safe; see rs_record_stream. */
RS_API rs_status rs_alloc(rs_device *dev, uint64_t size, rs_stream *stream, uint64_t *address);
RS_API void rs_free(rs_device *dev, uint64_t address);
/* Marks a live block as used by another stream: when it is freed it is not
 * reused until that stream's current work has finished. */
RS_API void rs_record_stream(rs_device *dev, uint64_t address, rs_stream *stream);
/* Host pointer for a device address inside any live or cached block, or
 * NULL if the memory is not host-visible (or the address is unknown). */
RS_API void *rs_host_ptr(rs_device *dev, uint64_t address);
/* 1 if `address` lies inside memory owned by this device. */
RS_API int rs_owns_address(rs_device *dev, uint64_t address);
RS_API void rs_memory_stats_get(rs_device *dev, rs_memory_stats *out);
/* How many times the host has waited for this device's work: stream,
 * device and event synchronizations, including those that read device data
 * to the host (rs_memcpy_dtoh, .item(), .cpu()). For tests that an op does
 * not sync, and for finding syncs in a program. */
RS_API uint64_t rs_device_host_waits(rs_device *dev);
RS_API void rs_memory_reset_peaks(rs_device *dev);
/* Caps the memory this process reserves on the device at `bytes` (the
 * heap's size, or 0: no cap but the heap): an allocation past it frees the
 * cache and retries, then fails with RS_ERR_OOM, as past the heap. Memory
 * already reserved stays. torch.russet.set_per_process_memory_fraction. */
RS_API void rs_set_memory_limit(rs_device *dev, uint64_t bytes);
/* The cap in bytes (the heap's size when none is set). */
RS_API uint64_t rs_memory_limit(rs_device *dev);
/* Returns cached, unused segments to Vulkan (waits for the device first). */
RS_API rs_status rs_empty_cache(rs_device *dev);
/* Writes up to `cap` blocks; returns how many exist. */
RS_API size_t rs_memory_snapshot(rs_device *dev, rs_block_info *out, size_t cap);

/* ---------------------------------------------------------------- streams */

#define RS_MAX_STREAMS 32  /* ids 0 (default) .. 31 */

/* The stream with this id, created on first use. Id 0 is the default. */
RS_API rs_status rs_stream_get(rs_device *dev, int id, rs_stream **out);
RS_API int rs_stream_id(rs_stream *s);
RS_API rs_device *rs_stream_device(rs_stream *s);
/* Submits the open batch (no wait). */
RS_API rs_status rs_stream_flush(rs_stream *s);
/* Submits and waits; then checks the device error flag. */
RS_API rs_status rs_stream_synchronize(rs_stream *s);
/* 1 if all work recorded so far has finished (flushes the open batch). */
RS_API int rs_stream_query(rs_stream *s);
/* Dispatches recorded in the open batch, and batches submitted so far. */
RS_API uint64_t rs_stream_pending_dispatches(rs_stream *s);
RS_API uint64_t rs_stream_submit_count(rs_stream *s);
/* Dispatches submitted and not yet finished. A submission that takes them
 * past RUSSET_MAX_QUEUED (default 4096, read when the stream is made; 0: no
 * bound) waits for the oldest to finish first, as CUDA's launch queue makes
 * the host wait: the host stays at most that far ahead of the device. */
RS_API uint64_t rs_stream_queued_dispatches(rs_stream *s);

/* A memory range that a dispatch reads or writes: streams insert the
 * barriers these hazards need (read-after-write, write-after-read/write). */
typedef struct rs_access {
    uint64_t address;
    uint64_t size;
    int write;
} rs_access;

/* Scratch memory in the stream's argument arena, for parameter blocks
 * larger than push constants: write through *host, pass *address to the
 * kernel. The block is the calling thread's: it stays valid for the
 * dispatches that thread records on s until it has taken 255 more blocks,
 * or 128 KiB more, from s's arena (other threads' work on s never reuses
 * it), and until those dispatches have finished. */
RS_API rs_status rs_stream_arena(rs_stream *s, size_t size, void **host, uint64_t *address);

/* ---------------------------------------------------------------- events */

RS_API rs_status rs_event_create(rs_device *dev, int enable_timing, rs_event **out);
RS_API void rs_event_destroy(rs_event *e);
RS_API rs_status rs_event_record(rs_event *e, rs_stream *s);
/* Work recorded on `s` after this call waits for the event. */
RS_API rs_status rs_event_wait(rs_event *e, rs_stream *s);
/* 1 if the recorded work has finished (or the event was never recorded). */
RS_API int rs_event_query(rs_event *e);
RS_API rs_status rs_event_synchronize(rs_event *e);
/* Milliseconds from start to end; both need timing and must have finished. */
RS_API rs_status rs_event_elapsed_ms(rs_event *start, rs_event *end, double *ms);

/* ---------------------------------------------------------------- kernels */

/* A compute kernel: GLSL compiled with shaderc, cached on disk (SPIR-V under
 * RUSSET_CACHE_DIR, default ~/.cache/russet, plus the VkPipelineCache) and
 * in memory by (name, defines). `source_name` names a file in the embedded
 * kernels/ tree ("copy.comp"); `defines` is "NAME=VALUE;NAME2=VALUE2" or
 * NULL. Workgroup size comes from the source (local_size_x etc.). Push
 * constants are at most 128 bytes. Thread-safe. */
RS_API rs_status rs_kernel_get(rs_device *dev, const char *source_name, const char *defines,
                               rs_kernel **out);
/* Same, from a GLSL string (tests, generated code); `name` is for errors. */
RS_API rs_status rs_kernel_from_source(rs_device *dev, const char *name, const char *glsl,
                                       const char *defines, rs_kernel **out);
RS_API const char *rs_kernel_name(rs_kernel *k);
/* The driver's description of a kernel's compiled code, as text in buf (cap
 * bytes, truncated, always terminated): per executable its statistics
 * (e.g. registers, spills: whatever the driver reports) and, with `with_ir`,
 * its internal representations. Needs RUSSET_PIPELINE_STATS=1 when the
 * device is created and VK_KHR_pipeline_executable_properties
 * (RS_ERR_UNSUPPORTED otherwise). For tuning kernels (bench/gemm_probe.c). */
RS_API rs_status rs_kernel_describe(rs_device *dev, rs_kernel *k, int with_ir, char *buf, size_t cap);

/* Records a dispatch of `groups` workgroups into the stream's open batch. */
RS_API rs_status rs_dispatch(rs_stream *s, rs_kernel *k, const uint32_t groups[3],
                             const void *push, uint32_t push_size,
                             const rs_access *accesses, int n_accesses);

/* Records a dispatch of a kernel whose arguments are 64-bit words (the
 * kernels torch.compile generates: python/russet/inductor/launch.py and
 * kernel.py): the words go to the push constants when there are at most
 * RS_PUSH_WORDS of them, else to the stream's argument arena, whose
 * address is then the one pushed word. Words [first, first + n_tensors)
 * are the device addresses of the tensors the kernel reads, the first
 * n_out of them written: each is an access to the whole live allocation
 * holding it (an address of 0, an empty tensor's, is none), except where
 * bit i of `scalars` marks a word that is a value, not an address (a CPU
 * scalar). `threads` invocations in workgroups of `wg`, over x and y
 * (65535 workgroups a dimension). An address that is not a live
 * allocation of s's device: RS_ERR_INVALID, naming the argument. At most
 * 64 tensors. */
#define RS_PUSH_WORDS 16
RS_API rs_status rs_dispatch_words(rs_stream *s, rs_kernel *k, uint64_t threads, uint32_t wg, const uint64_t *words,
                                   int n_words, int first, int n_tensors, int n_out, uint64_t scalars);

/* Device-side error flag: kernels that check (index bounds and the like)
 * atomically store a site id into the word at rs_device_error_address().
 * Layout: uint32 site, uint32 code, int64 value. Sync points turn it into
 * RS_ERR_DEVICE_ASSERT with the site's op name in the message. */
RS_API uint64_t rs_device_error_address(rs_device *dev);
RS_API uint32_t rs_device_error_site(rs_device *dev, const char *op_name);

/* Cache statistics, for tests and `russet info`. */
typedef struct rs_cache_stats {
    uint64_t spirv_compiles;     /* shaderc runs */
    uint64_t spirv_disk_hits;
    uint64_t spirv_disk_rejects; /* corrupt or foreign cache files ignored */
    uint64_t pipelines_created;
    uint64_t pipeline_memory_hits;
    int pipeline_cache_loaded;   /* the VkPipelineCache blob was read and accepted */
} rs_cache_stats;
RS_API void rs_cache_stats_get(rs_device *dev, rs_cache_stats *out);
RS_API const char *rs_cache_dir(void);
/* Writes the VkPipelineCache blob now (also done by rs_shutdown). */
RS_API rs_status rs_pipeline_cache_save(rs_device *dev);

/* ---------------------------------------------------------------- copies */

/* Host <-> device byte copies, ordered on `s`. Host-to-device returns
 * before the GPU runs (the data is staged). Device-to-host waits. */
RS_API rs_status rs_memcpy_htod(rs_stream *s, uint64_t dst, const void *src, uint64_t size);
RS_API rs_status rs_memcpy_dtoh(rs_stream *s, void *dst, uint64_t src, uint64_t size);
RS_API rs_status rs_memcpy_dtod(rs_stream *s, uint64_t dst, uint64_t src, uint64_t size);

/* A constant table in device memory, made once per device and key (FFT
 * twiddles, the adapter's DFT matrices and Bluestein chirps): the first call
 * has fill(ctx, host) write `bytes` on the host, uploads them on s and
 * synchronizes s once, so that every stream may read the table at once;
 * later calls return the same address without work. Tables are never freed
 * before the device goes (src/vk/memory.c); never write to one. Past 64
 * tables or 256 MiB in all, *address is 0: the caller makes a table of its
 * own. */
typedef void (*rs_table_fill)(void *ctx, void *host);
RS_API rs_status rs_device_table(rs_stream *s, uint64_t key, uint64_t bytes, rs_table_fill fill, void *ctx,
                                 uint64_t *address);

#ifdef __cplusplus
}
#endif
#endif /* RUSSET_RUNTIME_H */
