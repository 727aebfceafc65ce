/*
 * russet.h: the public C API of the russet core (C11, no torch).
 *
 * Layers (DESIGN.md): the runtime (src/vk/: devices, memory, streams,
 * events, kernels) and the engines (src/engine/: tensor descriptors, copy,
 * fill, random). PyTorch's adapter (src/torch/) and Python (via ctypes) call
 * only what is declared here.
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
#ifndef RUSSET_H
#define RUSSET_H

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
    RS_FLOAT8_E8M0FNU = 44
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

/* A memory range that a dispatch reads or writes: streams insert the
 * barriers these hazards need (read-after-write, write-after-read/write). */
typedef struct rs_access {
    uint64_t address;
    uint64_t size;
    int write;
} rs_access;

/* Scratch memory in the stream's argument arena, valid until the work
 * recorded in the open batch has finished. For parameter blocks larger
 * than push constants: write through *host, pass *address to the kernel. */
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

/* ---------------------------------------------------------------- engines */

#define RS_MAX_DIMS 25

/* A strided view of device memory. `address` points at element 0 (storage
 * offset already applied); strides are in elements and may be 0 or
 * negative. */
typedef struct rs_tensor {
    uint64_t address;
    rs_dtype dtype;
    int ndim;
    int64_t sizes[RS_MAX_DIMS];
    int64_t strides[RS_MAX_DIMS];
} rs_tensor;

RS_API int64_t rs_tensor_numel(const rs_tensor *t);
RS_API int rs_tensor_is_contiguous(const rs_tensor *t);
/* Byte range [*lo, *hi) that the view touches (for hazard tracking). */
RS_API void rs_tensor_extent(const rs_tensor *t, uint64_t *lo, uint64_t *hi);

/* dst[i] = (dst dtype) src[i]; same sizes, any dtypes and strides.
 * Conversions follow PyTorch's CPU casts. Fails with RS_ERR_UNSUPPORTED when
 * a conversion needs fp64 and the device lacks it (the caller then runs it on
 * the host). Overlap between dst and src is the caller's problem. */
RS_API rs_status rs_copy(rs_stream *s, const rs_tensor *dst, const rs_tensor *src);

/* Every element of dst = the element whose bytes are `value`
 * (rs_dtype_size(dst->dtype) bytes, already encoded by the caller). */
RS_API rs_status rs_fill(rs_stream *s, const rs_tensor *dst, const void *value);

/* Philox4x32-10 random fills; (seed, offset) as in PyTorch's philox
 * generators. Each call consumes rs_rng_offset_increment(numel) offsets. */
RS_API uint64_t rs_rng_offset_increment(int64_t numel);
/* Floating dtypes: uniform in [from, to). */
RS_API rs_status rs_rng_uniform(rs_stream *s, const rs_tensor *dst, double from, double to,
                                uint64_t seed, uint64_t offset);
/* Floating dtypes: normal(mean, std). */
RS_API rs_status rs_rng_normal(rs_stream *s, const rs_tensor *dst, double mean, double std,
                               uint64_t seed, uint64_t offset);
/* Integers in [from, from + range); range == 0 means the full 64-bit range.
 * Any dtype (bool gets 0/1 when range is 2). */
RS_API rs_status rs_rng_random(rs_stream *s, const rs_tensor *dst, int64_t from, uint64_t range,
                               uint64_t seed, uint64_t offset);
/* Floating and integer dtypes: dst[i] = start + i * step, computed as PyTorch
 * computes arange (in the dtype's accumulate type). */
RS_API rs_status rs_arange(rs_stream *s, const rs_tensor *dst, double start, double step);
/* dst[i] = linspace(start, end, n) as PyTorch's CPU computes it; with
 * log_base > 0, dst[i] = log_base ** that (logspace). */
RS_API rs_status rs_linspace(rs_stream *s, const rs_tensor *dst, double start, double end,
                             double log_base);

/* ---------------------------------------------------------------- pointwise */

/* The pointwise engine: out[i] = EXPR(a[i], b[i], ...) over views of one
 * shape (broadcasting already applied as 0 strides), any strides, 64-bit
 * indices. The expression is GLSL over the operands named a, b, c, d, each
 * in the "opmath" type of its dtype (bool; int64_t, or uint64_t for uint64;
 * float for float32/float16/bfloat16/float8; double for float64; vec2 for
 * complex32/64; dvec2 for complex128), typically one call of the overloaded
 * functions in kernels/common/ops.glsl, e.g. "rs_add(a, b, s0)".
 * - An input with `is_scalar` set is not read from memory: its value is
 *   `scalar` (already converted by the caller), e.g. a CPU scalar operand.
 * - s0..s3 are extra scalars, in the opmath type of `compute`.
 * - The result has the opmath type of `result` (often `compute`; bool for
 *   comparisons; the real type for abs of complex) and is stored into `out`
 *   with PyTorch's cast to the output dtype.
 * Kernels are generated from the description (kernels/pointwise.comp with
 * the expression and dtypes as defines), compiled once and cached by
 * (name, expression, dtypes, layout class). Fails with RS_ERR_UNSUPPORTED
 * when a dtype needs fp64 and the device lacks it. */
#define RS_PW_MAX_INPUTS 4

typedef union rs_scalar {
    uint64_t u;
    int64_t i;
    double d;
    float f;
    struct { float re, im; } cf;
} rs_scalar;

typedef struct rs_pointwise {
    const char *name;                  /* for errors and the cache key */
    const char *expr;                  /* GLSL expression */
    rs_dtype common;                   /* the op's common dtype (CM_DT in the kernel) */
    rs_dtype compute;                  /* opmath type of the expression's inputs and scalars */
    rs_dtype result;                   /* opmath type of the expression's value */
    int ninputs;
    rs_tensor out;
    rs_tensor in[RS_PW_MAX_INPUTS];    /* sizes equal to out's, except scalars */
    int is_scalar[RS_PW_MAX_INPUTS];
    rs_scalar scalar[RS_PW_MAX_INPUTS][2];  /* [i][0] (and [i][1]: imaginary of complex128) */
    int nscalars;
    rs_scalar s[4][2];                 /* s0..s3; [k][1] is the imaginary part of complex128 */
} rs_pointwise;

RS_API rs_status rs_pointwise_run(rs_stream *s, const rs_pointwise *p);

/* ---------------------------------------------------------------- reductions */
/* (src/engine/reduce.c, softmax.c, loss.c) */

/* Reductions: out = REDUCE(in) over the dims where `out` has size 1 and
 * `in` does not. `out` (and `out2`) are given in keepdim form: the ndim and
 * sizes of `in`, with size 1 on the reduced dims (any strides: a reduced dim
 * of a keepdim=False result is a size-1 dim with stride 0). Deterministic:
 * a fixed partition and a fixed combining tree, no atomics, so the same
 * inputs give the same bits. Values accumulate in the opmath type of `acc`
 * (float for float16/bfloat16/float32, int64 for integers, uint64 for
 * uint64, vec2 for complex32/64), converted from the input's: the caller
 * picks `acc` as PyTorch's CPU kernel does (integer sums accumulate in
 * int64; fp16/bf16 in float32). */
typedef enum rs_reduce_op {
    RS_REDUCE_SUM,            /* sum; `dtype=` through acc */
    RS_REDUCE_NANSUM,         /* sum, NaN counted as 0 */
    RS_REDUCE_PROD,
    RS_REDUCE_MEAN,           /* sum / count */
    RS_REDUCE_MAX,            /* amax: NaN propagates */
    RS_REDUCE_MIN,
    RS_REDUCE_ARGMAX,         /* out2 (int64) = index of the first max (NaN counts as max); out = value (optional) */
    RS_REDUCE_ARGMIN,
    RS_REDUCE_ALL,            /* out = all(in != 0): bool, or uint8 for uint8 input */
    RS_REDUCE_ANY,
    RS_REDUCE_COUNT_NONZERO,  /* out int64 */
    RS_REDUCE_NORM,           /* vector norm of order p (0, 1, 2, +-inf or any p); real out */
    RS_REDUCE_VAR,            /* var with `correction`; out2 (optional) = mean */
    RS_REDUCE_STD,
    RS_REDUCE_OP_COUNT
} rs_reduce_op;

typedef struct rs_reduce {
    const char *name;         /* for errors */
    rs_reduce_op op;
    rs_dtype acc;             /* accumulate dtype (see above) */
    rs_tensor in;
    rs_tensor out;            /* address 0: not wanted (argmax without values) */
    rs_tensor out2;           /* indices or mean; address 0: not wanted */
    double p;                 /* RS_REDUCE_NORM */
    double correction;        /* RS_REDUCE_VAR, RS_REDUCE_STD */
} rs_reduce;

RS_API rs_status rs_reduce_run(rs_stream *s, const rs_reduce *r);
RS_API const char *rs_reduce_op_name(rs_reduce_op op);

/* Softmax along the middle dim of contiguous (outer, n, inner) tensors:
 * out = softmax(a) or log_softmax(a); backward: a = grad_output, b = the
 * forward's output, out = grad_input. Dtypes: float32, float16, bfloat16
 * (any mix, e.g. half in, float out), computed in float32. */
typedef enum rs_softmax_op {
    RS_SOFTMAX = 0,
    RS_LOG_SOFTMAX = 1,
    RS_SOFTMAX_BACKWARD = 2,
    RS_LOG_SOFTMAX_BACKWARD = 3
} rs_softmax_op;

typedef struct rs_softmax {
    rs_softmax_op op;
    uint64_t a, b, out;             /* b: backward only */
    rs_dtype a_dtype, b_dtype, out_dtype;
    int64_t outer, n, inner;
} rs_softmax;

RS_API rs_status rs_softmax_run(rs_stream *s, const rs_softmax *p);

/* Negative log-likelihood over contiguous (n, c, s) log-probabilities
 * `input` with (n, s) class targets (int64 or uint8), optional weight (c),
 * ignore_index; s = 1 for nll_loss, h * w for nll_loss2d. Forward: `out` is
 * (n, s) for reduction 0 (none), else one element, and `total_weight` one
 * element. Backward: `grad_input` (n, c, s) must be zeroed by the caller;
 * grad_output is (n, s) for reduction none, else one element. A target
 * outside [0, c) raises the device error flag (reported at the next sync).
 * Dtypes: float32, float16, bfloat16 (input, weight and outputs alike). */
typedef struct rs_nll_loss {
    uint64_t input, target, weight, out, total_weight, grad_output, grad_input;
    rs_dtype dtype, target_dtype;
    int64_t n, c, s;
    int reduction;                  /* 0 none, 1 mean, 2 sum */
    int64_t ignore_index;
} rs_nll_loss;

RS_API rs_status rs_nll_loss_forward(rs_stream *s, const rs_nll_loss *p);
RS_API rs_status rs_nll_loss_backward(rs_stream *s, const rs_nll_loss *p);

/* Max and average pooling over the last `dims` (1 to 3) dims of
 * (N, C, spatial...) views with any strides (contiguous, channels_last or
 * other), forward and backward, with fixed windows (kernel, stride, pad,
 * dilation) or adaptive ones (dim of size in -> out: window o is
 * [floor(o in / out), ceil((o + 1) in / out))). src/engine/pool.c,
 * kernels/pool.comp: one thread per result element, no atomics; the
 * backward kernels gather, for each input element, the outputs whose
 * windows hold it, in the order CPU's kernels add them.
 *   RS_POOL_MAX: output = each window's maximum (NaN wins: the last NaN, as
 *     CPU), indices = its flat position in the input's spatial plane (the
 *     first maximum; an all -inf window gives its first position inside
 *     the input). Float32 family, float64, all integers but bool.
 *   RS_POOL_AVG: output = window sum / divisor: divisor_override when not 0,
 *     else the window's size clipped to the padded input (count_include_pad)
 *     or to the input; adaptive windows divide by each dim's extent in turn
 *     (CPU's sum / kh / kw). Float32 family, float64, int64 (the quotient
 *     truncated, as CPU).
 *   RS_POOL_MAX_BACKWARD: grad_input = the sum of grad_output over the
 *     outputs whose index names that element. An index outside its window
 *     raises the device error flag (index out of range).
 *   RS_POOL_AVG_BACKWARD: grad_input = the sum of grad_output / divisor
 *     over the windows holding the element.
 * Backward: `output` is grad_output (the output's sizes) and `grad_input`
 * has the input's sizes; `input` is not used. Float32 family (accumulated in
 * float32) and float64. Float64 needs the device's fp64 arithmetic
 * (RS_ERR_UNSUPPORTED without it). */
typedef enum rs_pool_op {
    RS_POOL_MAX = 0,
    RS_POOL_AVG = 1,
    RS_POOL_MAX_BACKWARD = 2,
    RS_POOL_AVG_BACKWARD = 3
} rs_pool_op;

typedef struct rs_pool {
    rs_pool_op op;
    int dims;                       /* spatial dims: 1, 2 or 3 */
    int adaptive;                   /* adaptive windows; kernel..dil unused */
    rs_tensor input;                /* forward: (N, C, spatial...) */
    rs_tensor output;               /* forward: the result; backward: grad_output */
    rs_tensor indices;              /* max: int64, the output's sizes */
    rs_tensor grad_input;           /* backward: the input's sizes */
    int64_t kernel[3], stride[3], pad[3], dil[3];
    int count_include_pad;          /* avg */
    int64_t divisor_override;       /* avg: 0 for none (CPU divides by a negative one too) */
} rs_pool;

RS_API rs_status rs_pool_run(rs_stream *s, const rs_pool *p);

/* The normalization engine (src/engine/norm.c, kernels/norm.comp): four
 * building blocks from which the adapter composes layer_norm and
 * batch_norm, forward and backward, reading each tensor once per block.
 * Tensors (x, g, y) are float32, float16, bfloat16 or float64 (`dtype`);
 * the vectors (a, b, w, bias, s1, s2, out1, out2) and the arithmetic are in
 * the dtype's opmath type (float32, or float64 for float64, which needs
 * the device's fp64). An absent vector (address 0) reads as 0 (a, bias)
 * or 1 (b, w, scale).
 *
 * Reductions (STATS, SUMS) run over `rows` rows of K = outer * inner
 * elements of x (and g): element k of row r is at element offset
 * (k / inner) * outer_stride + r * row_stride + k % inner. Deterministic:
 * a fixed partition of each row into chunks, a fixed tree per chunk, the
 * chunks merged in order, no atomics.
 *   RS_NORM_STATS: out1[r] = mean, out2[r] = biased variance (Welford's
 *     updates, Chan's merges).
 *   RS_NORM_SUMS: out1[r] = sum of g w, out2[r] = sum of g w (x - a) b,
 *     where w is indexed by the element's k % inner, and a, b by r or, with
 *     stat_of_outer, by the element's k / inner.
 * Elementwise (APPLY, GRAD) over `numel` contiguous elements of x (g) into
 * y, with r = (e / row_div) % rows and c = (e / col_div) % cols:
 *   RS_NORM_APPLY: y = ((x - a[r]) * b[r]) * w[c] + bias[c]
 *   RS_NORM_GRAD:  y = (g w[c] - s1[r] inv_k - (x - a[r]) b[r] s2[r] inv_k)
 *                      * b[r] * scale[c] */
typedef enum rs_norm_op {
    RS_NORM_STATS = 0,
    RS_NORM_APPLY = 1,
    RS_NORM_SUMS = 2,
    RS_NORM_GRAD = 3
} rs_norm_op;

typedef struct rs_norm {
    rs_norm_op op;
    rs_dtype dtype;
    uint64_t x, g, y;
    int64_t rows, outer, inner, row_stride, outer_stride;  /* reductions */
    int stat_of_outer;                                      /* SUMS */
    int64_t numel, row_div, col_div, cols;                  /* elementwise (rows too) */
    uint64_t a, b, w, bias, scale, s1, s2;                  /* vectors */
    double inv_k;                                           /* GRAD */
    uint64_t out1, out2;                                    /* reductions' results */
} rs_norm;

RS_API rs_status rs_norm_run(rs_stream *s, const rs_norm *p);

/* The convolution engine (src/engine/conv.c, kernels/conv.comp): an
 * implicit GEMM that gathers its operands from the tensors (no im2col
 * buffer). With x (N, C, I...), w (O, C/groups, K...) and y (N, O, P...),
 * for output channel o of group g (input channels g C/groups onwards):
 *   RS_CONV_FORWARD:      y[n, o, p] = bias[o] + sum_{c, r} x[n, c, p s - pad + r dil] w[o, c, r]
 *   RS_CONV_GRAD_INPUT:   x = dL/dx for dy in y: x[n, c, i] = sum over (o, r, p) with
 *                         p s - pad + r dil = i of y[n, o, p] w[o, c, r]
 *   RS_CONV_GRAD_WEIGHT:  w = dL/dw for dy in y: w[o, c, r] = sum_{n, p} y[n, o, p] x[n, c, p s - pad + r dil]
 * (x outside its sizes reads as 0: zero padding). The sizes need not
 * follow the usual output-size formula: the sums run over what exists, so
 * a transposed convolution is GRAD_INPUT with its input in `output`, and
 * its backward is FORWARD and GRAD_WEIGHT with the roles swapped. 1 to 3
 * spatial dims; any non-negative strides (channels_last included: the
 * written view keeps its layout). One dtype for every tensor: float32,
 * float16, bfloat16 (accumulated in float32, rounded once), float64 (fp64
 * devices) and the integer dtypes (wrapping, in 64 bits). Deterministic:
 * the sums have one order, no atomics. */
typedef enum rs_conv_op {
    RS_CONV_FORWARD = 0,
    RS_CONV_GRAD_INPUT = 1,
    RS_CONV_GRAD_WEIGHT = 2
} rs_conv_op;

typedef struct rs_conv {
    rs_conv_op op;
    int dims;                       /* spatial dims: 1, 2 or 3 */
    int64_t groups;
    rs_tensor input;                /* x; GRAD_INPUT writes it */
    rs_tensor weight;               /* w; GRAD_WEIGHT writes it */
    rs_tensor output;               /* y; FORWARD writes it, the gradients read dy there */
    uint64_t bias;                  /* FORWARD: O contiguous elements of the dtype, or 0 */
    int64_t stride[3], pad[3], dil[3];
} rs_conv;

RS_API rs_status rs_conv_run(rs_stream *s, const rs_conv *c);

/* The attention engine (src/engine/attention.c, kernels/attention.comp):
 * scaled dot-product attention computed a 16 x 16 block of scores at a
 * time with an online softmax, so memory is O(L + S), never O(L S).
 * q (B, Hq, L, E), k (B, Hk, S, E), v (B, Hk, S, Ev), out (B, Hq, L, Ev);
 * Hq a multiple of Hk (grouped-query attention: q head h reads k/v head
 * h / (Hq / Hk)). For each row i:
 *   s[j] = scale q[i] . k[j] + mask[i, j]   (-inf where causal and j > i)
 *   out[i] = sum_j softmax(s)[j] v[j],  lse[i] = log sum_j exp(s[j])
 * A row whose scores are all -inf gets out 0 and lse -inf. `mask` (ndim 0:
 * none) is an additive (B, Hq, L, S) view of the dtype (strides 0 where it
 * broadcasts). Any strides for the other views. float32, float16,
 * bfloat16 (arithmetic in float32) and float64 (fp64 devices); lse is
 * float32 (float64 for float64), contiguous (B, Hq, L).
 *   RS_ATTN_FORWARD: writes out and lse.
 *   RS_ATTN_BACKWARD: from grad_out, out and lse, writes grad_q, grad_k,
 *     grad_v (each like its input; any absent one, address 0, is not
 *     computed). Deterministic: each gradient element is one workgroup's
 *     sum in a fixed order, no atomics. */
typedef enum rs_attn_op { RS_ATTN_FORWARD = 0, RS_ATTN_BACKWARD = 1 } rs_attn_op;

typedef struct rs_attention {
    rs_attn_op op;
    rs_tensor q, k, v, out, mask;
    uint64_t lse;
    int causal;
    double scale;
    rs_tensor grad_out, grad_q, grad_k, grad_v; /* backward */
} rs_attention;

RS_API rs_status rs_attention_run(rs_stream *s, const rs_attention *a);
/* The kernel rs_conv_run would use ("conv-forward-128x64-k16", ...), or
 * "invalid"; for tests and benchmarks. */
RS_API const char *rs_conv_kernel_name(rs_stream *s, const rs_conv *c);

/* ---------------------------------------------------------------- scans and sorting */
/* (src/engine/scan.c, sort.c, select.c) All of these work along the last
 * dim of contiguous tensors ([rows, n]; a 0-dim tensor is one row of 1):
 * the caller moves the dim last. */

typedef enum rs_scan_op {
    RS_SCAN_SUM = 1,       /* cumsum: integers accumulate in 64 bits, float32 in float-float */
    RS_SCAN_PROD = 2,      /* cumprod */
    RS_SCAN_MAX = 3,       /* cummax: values and int64 indices (NaN greatest, ties: later) */
    RS_SCAN_MIN = 4,       /* cummin */
    RS_SCAN_LOGSUMEXP = 5  /* logcumsumexp (floating dtypes) */
} rs_scan_op;

/* Inclusive scan of src into dst (same sizes; dst's dtype may differ, the
 * accumulation is in src's dtype's accumulate type). `indices` (int64, same
 * sizes) only for MAX and MIN, else NULL. float64: MAX and MIN always
 * (they compare bits); SUM and PROD need shaderFloat64; LOGSUMEXP never.
 * RS_ERR_UNSUPPORTED then (run it on the host). */
RS_API rs_status rs_scan(rs_stream *s, rs_scan_op op, const rs_tensor *src, const rs_tensor *dst,
                         const rs_tensor *indices);

/* Stable sort of each row of src (bool, integers incl. uint16/32/64,
 * float16, bfloat16, float32, float64: no fp64 arithmetic needed). NaN
 * sorts above everything, -0 == +0. The first `k` (1..n, n for a full
 * sort) of each sorted row go to `values` (src's dtype, [rows, k], may be
 * NULL) and `indices` (int64, [rows, k], may be NULL). Rows of any length
 * up to 2^31 padded elements in all. */
RS_API rs_status rs_sort(rs_stream *s, const rs_tensor *src, int descending, int64_t k,
                         const rs_tensor *values, const rs_tensor *indices);

typedef enum rs_pick {
    RS_PICK_KTH = 1,       /* the k-th smallest (k from 0) */
    RS_PICK_MEDIAN = 2,    /* the lower median; the first NaN if the row has one */
    RS_PICK_NANMEDIAN = 3, /* the lower median of the non-NaN elements */
    RS_PICK_MODE = 4       /* the most frequent (the smallest of those), index of its last */
} rs_pick;
/* One element per row of src, by a sort: values (src's dtype) and int64
 * indices (may be NULL), both with `rows` elements, contiguous. */
RS_API rs_status rs_sort_pick(rs_stream *s, const rs_tensor *src, rs_pick mode, int64_t k,
                              const rs_tensor *values, const rs_tensor *indices);

/* out[i] = insertion point of values[i] in its row of `boundaries` (one
 * row shared by all values, or one row per row of values), with PyTorch's
 * CPU comparisons; `right` as searchsorted's. `sorter` (int64, boundaries'
 * sizes, or NULL) gives the sorted order. values and boundaries share a
 * dtype (the caller promotes); out is int64 or int32. float64 compares
 * bits (no fp64 needed). */
RS_API rs_status rs_searchsorted(rs_stream *s, const rs_tensor *boundaries, const rs_tensor *values,
                                 const rs_tensor *sorter, int right, const rs_tensor *out);

/* nonzero and masked_select, in two calls. rs_nonzero_count counts the
 * nonzero elements of src (contiguous, any dtype, < 2^32 elements) and
 * waits for the count (the output size depends on the data; count may be
 * NULL: no wait); *offsets is
 * scratch memory that rs_nonzero_write consumes and frees (pass it even on
 * an error path; 0 when src is empty). rs_nonzero_write writes, in order,
 * the coordinates of the nonzero elements (coords: int64 [count, ndim],
 * may be NULL) and/or values_src[i] for each nonzero src[i] (values_out:
 * [count], values_src's dtype; may be NULL). */
RS_API rs_status rs_nonzero_count(rs_stream *s, const rs_tensor *src, uint64_t *offsets, int64_t *count);
RS_API rs_status rs_nonzero_write(rs_stream *s, const rs_tensor *src, uint64_t offsets, const rs_tensor *coords,
                                  const rs_tensor *values_src, const rs_tensor *values_out);
/* The same, writing only the first `max_rows` (all if < 0): nonzero_static
 * passes count = NULL to rs_nonzero_count (no wait) and its size here. */
RS_API rs_status rs_nonzero_write_max(rs_stream *s, const rs_tensor *src, uint64_t offsets, int64_t max_rows,
                                      const rs_tensor *coords, const rs_tensor *values_src,
                                      const rs_tensor *values_out);

/* out[perm[i]] = src[i]; contiguous int64 tensors of one size, perm a
 * permutation (unique's inverse from the sorted order). */
RS_API rs_status rs_permute_scatter(rs_stream *s, const rs_tensor *src, const rs_tensor *perm, const rs_tensor *out);
/* out[i] (bool) = i == 0 || src[i] != src[i - 1] (IEEE: NaN never equal,
 * -0 == +0); contiguous, any dtype but complex128. */
RS_API rs_status rs_run_starts(rs_stream *s, const rs_tensor *src, const rs_tensor *out);

/* Minimum and maximum of a contiguous, non-empty tensor (bool, integers,
 * float16/bfloat16/float32), read back to the host (waits): .i (.u for
 * uint64) for integers, .f for floats (NaN if any element is NaN). */
RS_API rs_status rs_minmax(rs_stream *s, const rs_tensor *src, rs_scalar *mn, rs_scalar *mx);
/* out[v] = number of elements of src equal to v (src: integers >= 0, all
 * below numel(out), the caller checks; out: any dtype), or the sum of their
 * float32 weights (out float32; needs float32 atomic add). */
RS_API rs_status rs_bincount(rs_stream *s, const rs_tensor *src, const rs_tensor *weights, const rs_tensor *out);
/* histc: out[b] = number of elements of src in bin b of `edges` (src's
 * dtype, numel(out) + 1 edges, as CPU's linspace), as CPU's histogramdd. */
RS_API rs_status rs_histc(rs_stream *s, const rs_tensor *src, const rs_tensor *edges, const rs_tensor *out);

/* ---------------------------------------------------------------- gather and scatter */
/* (src/engine/gather.c) For every element i of `index` (int64 or int32, the ndim of
 * `self`):
 *   RS_GATHER:        other[i] = self[i with dim := index[i]]  (other: out, index's shape)
 *   RS_SCATTER:       self[i with dim := index[i]] = other[i]  (other: src, at least index's shape)
 *   RS_SCATTER_VALUE: self[i with dim := index[i]] = value     (value: the element's bytes)
 * Elements move as bytes (self and other have one dtype: any dtype, float64
 * included without fp64). An index outside [0, self.size(dim)) raises the
 * device error flag (reported at the next sync). Scatter with repeated
 * indices writes one of the candidates (which one is not defined, as on
 * CUDA). */
typedef enum rs_gather_mode { RS_GATHER = 0, RS_SCATTER = 1, RS_SCATTER_VALUE = 2 } rs_gather_mode;

typedef struct rs_gather {
    rs_gather_mode mode;
    int dim;
    rs_tensor self, index, other;
    uint8_t value[16];
} rs_gather;

RS_API rs_status rs_gather_run(rs_stream *s, const rs_gather *g);

/* ---------------------------------------------------------------- index reductions */
/* (src/engine/scatter_reduce.c) Reduces src's elements into self along `dim`,
 * in place, deterministically:
 *   shared_index = 0 (scatter_add, scatter_reduce): index has self's ndim and
 *     src covers it; element i of index sends src[i] to self[i with dim :=
 *     index[i]];
 *   shared_index = 1 (index_add, index_reduce, index_copy, embedding
 *     backward): index is 1-D (src.size(dim) elements) and src has self's
 *     sizes except at dim; src's slice k along dim goes to self's slice
 *     index[k].
 * The positions that meet at one element of self are reduced in increasing
 * position order (a stable sort of the index, then one sequential pass per
 * segment), which is CPU's order, so results are bit-equal to CPU's where
 * CPU rounds the same way: each step rounds to self's dtype (integers wrap)
 * unless acc_opmath (float16/bfloat16/complex32 then accumulate in float and round
 * once). include_self = 0 starts from the op's identity (0, 1, -inf/lowest,
 * +inf/highest). MEAN divides by the count (+1 with include_self), flooring
 * for integers; COPY keeps the last. SUM with has_alpha adds alpha * src
 * (alpha in the opmath type's slot as rs_pointwise's scalars). skip: index
 * entries equal to skip_index are ignored (embedding's padding_idx);
 * scale_by_count multiplies each src by 1 / (its segment's length)
 * (scale_grad_by_freq). An index outside [0, self.size(dim)) raises the
 * device error flag (the adapter wraps negative indices where PyTorch does).
 * Dtypes: bool, uint8, int8/16/32/64, float16, bfloat16, float32,
 * complex64 (no AMAX/AMIN), complex32 (SUM only); float64 and complex128 (no alpha) only with fp64 (RS_ERR_UNSUPPORTED
 * otherwise). COPY moves bits: every dtype of 1 to 8 bytes. */
typedef enum rs_index_reduce_op {
    RS_IR_SUM = 0, RS_IR_PROD = 1, RS_IR_MEAN = 2, RS_IR_AMAX = 3, RS_IR_AMIN = 4, RS_IR_COPY = 5
} rs_index_reduce_op;

typedef struct rs_index_reduce {
    const char *name;       /* the op, for errors */
    rs_index_reduce_op op;
    int dim;
    int shared_index;
    int include_self;
    int acc_opmath;
    int has_alpha;
    int has_skip;
    int scale_by_count;
    int64_t skip_index;
    rs_scalar alpha;
    rs_tensor self, index, src;
} rs_index_reduce;

RS_API rs_status rs_index_reduce_run(rs_stream *s, const rs_index_reduce *p);

/* ---------------------------------------------------------------- matrix products */
/* (src/engine/gemm.c)
 *
 * rs_gemm: for each output batch z,
 *     C[z] = beta * Cin[z] + alpha * sum_r op(A[z|r]) @ op(B[z|r])
 * A is (batch, m, k), B (batch, k, n), C and Cin (batch, m, n): every operand
 * is given by its address and three strides in elements (batch, row, column),
 * any of which may be 0 (broadcast) or arbitrary, so transposed, strided and
 * expanded operands are read in place. op() is the complex conjugate where
 * conj_a / conj_b is set (PyTorch's conj views, vdot). With reduce_batch the
 * batch dimension is summed (addbmm): C is one (m, n) matrix and its batch
 * stride is ignored. With beta == 0 (use_cin = 0) Cin is not read, so NaN
 * in it does not propagate (PyTorch's rule).
 * All four operands have one dtype. Accumulation: float32 for
 * float32/float16/bfloat16, int64 (wrapping) for integers (the result is then
 * the same bits as CPU's wrapping arithmetic in the dtype), and/or for bool,
 * complex64 for complex64, float64/complex128 (only with has_fp64:
 * RS_ERR_UNSUPPORTED otherwise). alpha and beta are scalars in that
 * accumulation type (rs_scalar as in the pointwise engine: .f for the
 * float32 family, .i for integers and bool, .d for float64, .cf for
 * complex64; complex128 uses [0].d and [1].d).
 * Kernels (kernels/gemm.comp): a shared-memory tiled kernel with tile sizes
 * per shape class, a one-workgroup-per-output kernel for matrix-vector and
 * dot shapes, and, where the device has cooperative matrices (never under
 * the apple profile), a cooperative-matrix kernel for float16
 * (kernels/gemm_coopmat.comp). */
typedef struct rs_gemm_operand {
    uint64_t address;
    int64_t stride[3];   /* batch, row, column; in elements */
} rs_gemm_operand;

typedef struct rs_gemm_desc {
    rs_dtype dtype;
    int64_t batch, m, n, k;
    rs_gemm_operand a, b, c, cin;
    rs_scalar alpha[2], beta[2];
    int use_cin;         /* 0: C = alpha * A @ B (Cin ignored) */
    int conj_a, conj_b;
    int reduce_batch;    /* sum over the batch into one (m, n) C */
} rs_gemm_desc;

RS_API rs_status rs_gemm(rs_stream *s, const rs_gemm_desc *d);
/* rs_fft: in-order discrete Fourier transforms of `rows` contiguous rows of
 * n complex64 values each, n a power of two (1 to 2^30):
 * out[r, k] = sum_j in[r, j] e^(-2 pi i j k / n), with +2 pi i for inverse
 * (no scaling). out must not be in. Radix-2 Stockham passes
 * (kernels/fft.comp); twiddles computed on the host in double. */
typedef struct rs_fft_desc {
    uint64_t in, out;
    int64_t rows, n;
    int inverse;
} rs_fft_desc;
RS_API rs_status rs_fft(rs_stream *s, const rs_fft_desc *d);
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
/* Which kernel rs_gemm would pick ("tiled-128x128", "dot", "coopmat", ...),
 * for tests and benchmarks. */
RS_API const char *rs_gemm_kernel_name(rs_stream *s, const rs_gemm_desc *d);

/* out = cross(a, b) along `dim` (of size 3); a, b and out have one shape
 * (broadcasting applied as 0 strides) and one dtype. Built on the pointwise
 * engine: one launch per component. */
RS_API rs_status rs_cross(rs_stream *s, const rs_tensor *out, const rs_tensor *a,
                          const rs_tensor *b, int dim);

#ifdef __cplusplus
}
#endif
#endif /* RUSSET_H */
