/* engine.h: internals shared by the engines (src/engine/), and host-side
 * codecs that the adapter and the tests use too. */
#ifndef RS_ENGINE_H
#define RS_ENGINE_H

#include <stdint.h>
#include <string.h>

#include "russet/russet.h"
#include "vk/runtime.h" /* rs_error, the device facts that choose kernels */

/* The bits of a float or double, for push constants and codecs. */
static inline uint32_t rs_f32_bits(float f) {
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}
static inline uint64_t rs_f64_bits(double d) {
    uint64_t u;
    memcpy(&u, &d, 8);
    return u;
}
/* A real value in a parameter slot for dtype dt's opmath type: double bits
 * for float64, else float bits (the kernels' reading of such slots). */
static inline int64_t rs_opmath_slot_bits(rs_dtype dt, double v) {
    return dt == RS_FLOAT64 ? (int64_t)rs_f64_bits(v) : (int64_t)rs_f32_bits((float)v);
}

/* ---- host codecs: bit-exact with c10's conversions and with the kernels'
 * (kernels/common/dtype.glsl). */
uint16_t rs_f16_from_f32(float f);
float rs_f16_to_f32(uint16_t h);
uint16_t rs_bf16_from_f32(float f);
float rs_bf16_to_f32(uint16_t b);
uint8_t rs_e4m3fn_from_f32(float f);
float rs_e4m3fn_to_f32(uint8_t x);
uint8_t rs_e5m2_from_f32(float f);
float rs_e5m2_to_f32(uint8_t x);
uint8_t rs_e4m3fnuz_from_f32(float f);
float rs_e4m3fnuz_to_f32(uint8_t x);
uint8_t rs_e5m2fnuz_from_f32(float f);
float rs_e5m2fnuz_to_f32(uint8_t x);
uint8_t rs_e8m0fnu_from_f32(float f);
float rs_e8m0fnu_to_f32(uint8_t x);

/* One element dst = (dst_dt) src, exactly as rs_copy converts it (PyTorch's
 * CPU casts on x86-64, including the values C leaves undefined: float ->
 * integer out of range gives the "integer indefinite" of cvttss2si). */
void rs_convert_host(void *dst, rs_dtype dst_dt, const void *src, rs_dtype src_dt);
/* float -> the nearest value of a float32-family dtype, as float (the
 * rounding CPU's scalar_t arithmetic applies after each step) */
float rs_round_float(rs_dtype dt, float f);

/* Philox4x32-10, as kernels/common/philox.glsl. */
void rs_philox4x32_10(const uint32_t ctr[4], const uint32_t key[2], uint32_t out[4]);

/* ---- launch helpers (tensor.c) */

/* Coalesced iteration space of up to RS_LAYOUT_MAX same-shape views. */
#define RS_LAYOUT_MAX 5
typedef struct rs_layout {
    int ndim;        /* 0: every view is contiguous (offset = index) */
    int64_t numel;
    int64_t sizes[RS_MAX_DIMS];
    int64_t strides[RS_LAYOUT_MAX][RS_MAX_DIMS];
} rs_layout;

/* Validates the views (dtype, ndim, sizes; t1 may be NULL) and merges dims. */
rs_status rs_layout_make(const rs_tensor *t0, const rs_tensor *t1, rs_layout *out);
/* The same for `nt` views; names[k] names view k in errors. */
rs_status rs_layout_make_n(const rs_tensor *const *ts, const char *const *names, int nt, rs_layout *out);
/* Permutes the dims of the n views alike, by the first view's strides,
 * largest first (stable; size-1 dims stay where they are), so that a view
 * stored in another order than its dims (channels_last) merges into one
 * run in rs_layout_make. Only for work that maps element to element and
 * whose result does not depend on the order it walks them (fill, copy):
 * not for kernels that read the flat index as a position. */
void rs_views_by_stride(rs_tensor *ts, int n);
/* Writes sizes and the strides of `ntensors` views into the stream arena;
 * *params = 0 when the layout is contiguous. */
rs_status rs_layout_upload(rs_stream *s, const rs_layout *l, int ntensors, uint64_t *params);
/* The strided kernels' runs (copy.comp and pointwise.comp's RUN): an
 * invocation takes RS_STRIDED_RUN elements of the last dim in a row where
 * that dim is long enough (one offset computation a run), else 1. Returns
 * the run and sets *items, the invocations that cover a strided layout. */
#define RS_STRIDED_RUN 4
int rs_layout_run(const rs_layout *l, uint64_t *items);
/* Workgroups for a 1-D grid of `groups`: at most the device's limit and
 * `limit` (the kernels loop over the rest). RS_GROUPS_MAX keeps
 * gl_GlobalInvocationID.x (32-bit) from wrapping. */
#define RS_GROUPS_MAX (1u << 22)
uint32_t rs_groups_capped(rs_stream *s, uint64_t groups, uint64_t limit);
/* A contiguous (rows, n) view of `dt` at `address` (scratch buffers). */
rs_tensor rs_tensor_rows(uint64_t address, rs_dtype dt, int64_t rows, int64_t n);
/* A contiguous 1-D view of n elements. */
rs_tensor rs_tensor_vec(uint64_t address, rs_dtype dt, int64_t n);
/* A contiguous view of t's sizes, of `dt` at `address` (scratch buffers). */
rs_tensor rs_tensor_dense_like(const rs_tensor *t, uint64_t address, rs_dtype dt);
/* 1 when the view's element count and every element offset (in elements,
 * either sign) fit in an int32: a kernel may then index it in 32-bit
 * arithmetic (64-bit integer multiplies and divisions are several
 * instructions on NVIDIA and emulated on Apple GPUs). */
int rs_tensor_fits_int32(const rs_tensor *t);
/* The magic pair of divisor d (1 <= d < 2^31) for kernels/common/
 * fastdiv.glsl's rs_fastdiv: m in the low 32 bits, the shift above, so that
 * n / d == (umulhi(n, m) + n) >> shift for every 0 <= n < 2^31 (the
 * round-up method of Granlund and Montgomery, as PyTorch's IntDivider). */
uint64_t rs_fastdiv_magic(uint32_t d);
/* v in a pointwise scalar slot of opmath type `compute`: float64's double,
 * else rounded to float32 (the adapter's reading of a Python number). */
void rs_opmath_scalar(rs_dtype compute, double v, rs_scalar out[2]);
/* A (batch, rows, cols) tensor as an rs_gemm operand (russet/gemm.h), or
 * its transpose (the rows' and columns' strides swapped; a conjugate is the
 * descriptor's conj_a / conj_b) */
rs_gemm_operand rs_gemm_operand_of(const rs_tensor *t, int transpose);
/* v as an rs_gemm scalar of dt's accumulation type: .f for the float32
 * family, .cf for complex64, .d for float64 and complex128's real part, .i
 * for integers and bool */
void rs_gemm_scalar(rs_dtype dt, double v, rs_scalar out[2]);
/* out = a (op) b for a table op (russet/pointwise_ops.h) in the opmath
 * type of `common` (float32, or float64 for float64), as the adapter runs
 * at::add/mul/div on such tensors: a or b NULL is the number a_value or
 * b_value (a CPU scalar's reading); nin 1 takes a alone; nscalars (0 or 1)
 * of the op's scalar s0 (add's alpha) (src/engine/pointwise.c) */
/* out (keepdim form, as rs_reduce's) = op over in's dims where out has
 * size 1, accumulating in acc: rs_reduce_run with one output and no p or
 * correction (src/engine/reduce.c) */
rs_status rs_reduce_into(rs_stream *s, const char *name, rs_reduce_op op, rs_dtype acc, const rs_tensor *in,
                         const rs_tensor *out);
rs_status rs_table_op(rs_stream *s, rs_pw_op op, const char *name, rs_dtype common, const rs_tensor *out, int nin,
                      const rs_tensor *a, double a_value, const rs_tensor *b, double b_value, int nscalars,
                      double s0);
/* An (N, C, spatial...) view with `dims` spatial dims as (N, C, D, H, W):
 * missing leading spatial dims get size 1 and stride 0 (pooling and
 * convolution work on 3 spatial dims). */
void rs_tensor_ncdhw(const rs_tensor *t, int dims, int64_t sizes[5], int64_t strides[5]);
/* Checks `what` of op `name` as an (N, C, spatial...) view: 2 + dims dims,
 * dtype dt, no negative size or stride, spatial sizes below spatial_max
 * (pooling, convolution, interpolation). */
rs_status rs_check_nc_view(const char *name, const char *what, const rs_tensor *t, int dims, rs_dtype dt,
                           int64_t spatial_max);
/* 1 for float32, float16, bfloat16 and float64: the dtypes the neural-
 * network engines compute (pooling, interpolation, grid sampling, the
 * recurrent cells), in float32 opmath but float64. */
int rs_dtype_is_nn_float(rs_dtype dt);
/* 1 for complex32, complex64 and complex128. */
int rs_dtype_is_complex(rs_dtype dt);
/* 1 for the dtypes with an order key in kernels/common/sort_key.glsl
 * (sort.c; searchsorted shares the keys). */
int rs_dtype_has_sort_key(rs_dtype dt);
/* Records a 1-D dispatch that covers `items` invocations (grid-stride). */
rs_status rs_launch(rs_stream *s, rs_kernel *k, uint64_t items, const void *push,
                    uint32_t push_size, const rs_access *acc, int n_acc);
/* The access record of a view. */
rs_access rs_tensor_access(const rs_tensor *t, int write);
/* Complex view -> real view with a trailing dim of 2 (view_as_real). */
rs_status rs_view_as_real(const rs_tensor *t, rs_tensor *out);
const rs_features *rs_stream_features(rs_stream *s);

#define RS_KERNEL_WG 256u

/* Scratch buffers of one engine call (tensor.c): taken from the device's
 * allocator on the call's stream, freed in stream order (the work recorded
 * on them still runs) one by one or all at the call's end. */
#define RS_SCRATCH_MAX 32
typedef struct rs_scratch {
    rs_stream *s;
    uint64_t at[RS_SCRATCH_MAX];
    int n;
} rs_scratch;
/* `bytes` (at least one element's worth: 8 for 0) into *address */
rs_status rs_scratch_take(rs_scratch *sc, uint64_t bytes, uint64_t *address);
/* frees one buffer early; an address the call does not own is left alone */
void rs_scratch_give_back(rs_scratch *sc, uint64_t address);
void rs_scratch_release(rs_scratch *sc);

#endif
