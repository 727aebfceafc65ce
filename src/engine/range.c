/* range.c: rs_arange and rs_linspace (kernels/arange.comp, linspace.comp),
 * computed as PyTorch's CPU kernels compute them
 * (aten/src/ATen/native/cpu/RangeFactoriesKernel.cpp, RangeFactories.cpp). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "engine/engine.h"
#include "russet/linspace.h"
#include "params/range.h"

static int is_int(rs_dtype dt) {
    switch (dt) {
    case RS_UINT8: case RS_INT8: case RS_INT16: case RS_INT32: case RS_INT64:
    case RS_UINT16: case RS_UINT32: case RS_UINT64:
        return 1;
    default:
        return 0;
    }
}

/* double -> int64 by C truncation, refusing what C leaves undefined. */
static rs_status to_int64(double v, const char *op, int64_t *out) {
    if (!(v > -9223372036854775809.0 && v < 9223372036854775808.0))
        return rs_error(RS_ERR_INVALID, "%s: %g does not fit in int64", op, v);
    *out = (int64_t)v;
    return RS_OK;
}

/* The value of an integer scalar once converted to dtype dt (start.to<T>()). */
static int64_t wrap_to(rs_dtype dt, int64_t v) {
    uint8_t buf[8];
    int64_t r;
    rs_convert_host(buf, dt, &v, RS_INT64);
    rs_convert_host(&r, RS_INT64, buf, dt);
    if (dt == RS_UINT64) memcpy(&r, buf, 8);
    return r;
}

static rs_status unsupported_fp64(const char *op, rs_dtype dt) {
    return rs_error(RS_ERR_UNSUPPORTED, "%s: %s needs shaderFloat64, which this device "
                    "(profile %s) lacks", op, rs_dtype_name(dt),
                    rs_profile_name(rs_profile_current()));
}

static rs_status launch(rs_stream *s, const rs_tensor *dst, const char *src, const char *defines,
                        const rs_layout *l, void *push, uint32_t push_size) {
    rs_kernel *k = NULL;
    rs_status st = rs_kernel_get(rs_stream_device(s), src, defines, &k);
    if (st != RS_OK) return st;
    /* every push block starts with dst, params */
    uint64_t params = 0;
    if ((st = rs_layout_upload(s, l, 1, &params)) != RS_OK) return st;
    memcpy((char *)push + 8, &params, 8);
    rs_access acc = rs_tensor_access(dst, 1);
    return rs_launch(s, k, (uint64_t)l->numel, push, push_size, &acc, 1);
}

/* ---------------------------------------------------------------- arange */

typedef struct arange_push { RS_ARANGE_PUSH } arange_push;

rs_status rs_arange(rs_stream *s, const rs_tensor *dst, double start, double step) {
    static const char *op = "rs_arange";
    if (!s) return rs_error(RS_ERR_INVALID, "%s: stream is NULL", op);
    rs_layout l;
    rs_status st = rs_layout_make(dst, NULL, &l);
    if (st != RS_OK) return st;
    rs_dtype dt = dst->dtype;
    if (dt == RS_BOOL || rs_dtype_is_complex(dt))
        return rs_error(RS_ERR_INVALID, "%s: not implemented for dtype %s", op, rs_dtype_name(dt));
    if (l.numel == 0) return RS_OK;
    int has_fp64 = rs_stream_features(s)->has_fp64;
    arange_push pc = {dst->address, 0, (uint64_t)l.numel, 0, 0, (uint32_t)l.ndim, 0};
    int mode;
    if (is_int(dt)) {
        /* the accumulate type is int64: start and step truncate first */
        int64_t a = 0, b = 0;
        if ((st = to_int64(start, op, &a)) != RS_OK || (st = to_int64(step, op, &b)) != RS_OK)
            return st;
        mode = AR_INT;
        pc.a = (uint64_t)a;
        pc.b = (uint64_t)b;
    } else if (dt == RS_FLOAT64 || (dt == RS_FLOAT32 && has_fp64)) {
        if (!has_fp64) return unsupported_fp64(op, dt);
        mode = AR_DOUBLE;  /* float32 accumulates in double on the CPU */
        pc.a = rs_f64_bits(start);
        pc.b = rs_f64_bits(step);
    } else if (dt == RS_FLOAT32) {
        /* double emulated by (hi, lo) float pairs */
        float sh = (float)start, th = (float)step;
        float sl = (float)(start - sh), tl = (float)(step - th);
        mode = AR_FLOAT2;
        pc.a = rs_f32_bits(sh) | (uint64_t)rs_f32_bits(sl) << 32;
        pc.b = rs_f32_bits(th) | (uint64_t)rs_f32_bits(tl) << 32;
    } else {
        mode = AR_FLOAT;  /* fp16, bf16, fp8: the CPU accumulates in float */
        pc.a = rs_f32_bits((float)start);
        pc.b = rs_f32_bits((float)step);
    }
    char defines[48];
    snprintf(defines, sizeof defines, "DST_DT=%d;MODE=%d", (int)dt, mode);
    return launch(s, dst, "arange.comp", defines, &l, &pc, sizeof pc);
}

/* ---------------------------------------------------------------- linspace */

typedef struct linspace_push { RS_LINSPACE_PUSH } linspace_push;

rs_status rs_linspace(rs_stream *s, const rs_tensor *dst, double start, double end, double log_base) {
    return rs_linspace_rounding(s, dst, start, end, log_base, 0);
}

rs_status rs_linspace_rounding(rs_stream *s, const rs_tensor *dst, double start, double end, double log_base,
                               int half_in_float) {
    static const char *op = "rs_linspace";
    if (!s) return rs_error(RS_ERR_INVALID, "%s: stream is NULL", op);
    rs_layout l;
    rs_status st = rs_layout_make(dst, NULL, &l);
    if (st != RS_OK) return st;
    rs_dtype dt = dst->dtype;
    if (dt == RS_BOOL)
        return rs_error(RS_ERR_INVALID, "%s: not implemented for dtype bool", op);
    if (l.numel == 0) return RS_OK;
    int has_fp64 = rs_stream_features(s)->has_fp64;
    int64_t steps = l.numel;
    int is_log = log_base > 0;
    linspace_push pc;
    memset(&pc, 0, sizeof pc);
    pc.dst = dst->address;
    pc.numel = (uint64_t)steps;
    pc.ndim = (uint32_t)l.ndim;
    int mode;

    if (dt == RS_FLOAT64 || dt == RS_COMPLEX128 || (is_int(dt) && has_fp64 && !is_log)) {
        if (!has_fp64) return unsupported_fp64(op, dt);
        double a = start, b = end;
        if (is_int(dt)) {  /* start.to<T>(), then the step in double */
            int64_t ia = 0, ib = 0;
            if ((st = to_int64(start, op, &ia)) != RS_OK || (st = to_int64(end, op, &ib)) != RS_OK)
                return st;
            a = (double)wrap_to(dt, ia);
            b = (double)wrap_to(dt, ib);
        }
        if (steps == 1) b = a;  /* linspace(start, end, 1) is [start] */
        double step = steps > 1 ? (b - a) / (double)(steps - 1) : 0.0;
        mode = LS_DOUBLE;
        pc.a = rs_f64_bits(a);
        pc.b = rs_f64_bits(b);
        pc.c = rs_f64_bits(step);
        pc.d = rs_f64_bits(log_base);
        pc.e = rs_f64_bits(is_log ? log(log_base) : 0.0);
    } else if (is_int(dt) && !is_log) {
        /* exact in int64 when the step is an integer; otherwise the CPU's
         * double arithmetic is needed */
        int64_t a = 0, b = 0;
        if ((st = to_int64(start, op, &a)) != RS_OK || (st = to_int64(end, op, &b)) != RS_OK)
            return st;
        a = wrap_to(dt, a);
        b = wrap_to(dt, b);
        if (steps == 1) b = a;
        int64_t span = b - a;
        if (steps > 1 && span % (steps - 1) != 0) return unsupported_fp64(op, dt);
        mode = LS_INT;
        pc.a = (uint64_t)a;
        pc.b = (uint64_t)b;
        pc.c = (uint64_t)(steps > 1 ? span / (steps - 1) : 0);
    } else {
        /* float32 family, complex32/64, and integer logspace: float math,
         * each step rounded to the dtype as c10's Half/BFloat16 do */
        rs_dtype r = dt == RS_COMPLEX64 || is_int(dt) ? RS_FLOAT32
                     : dt == RS_COMPLEX32 ? RS_FLOAT16 : dt;
        float a, b;
        if (is_int(dt)) {
            int64_t ia = 0, ib = 0;
            if ((st = to_int64(start, op, &ia)) != RS_OK || (st = to_int64(end, op, &ib)) != RS_OK)
                return st;
            a = (float)wrap_to(dt, ia);
            b = (float)wrap_to(dt, ib);
        } else {
            a = rs_round_float(r, (float)start);
            b = rs_round_float(r, (float)end);
        }
        if (steps == 1) b = a;
        /* torch 2.15's float16/bfloat16 linspace: start and end rounded to
         * the dtype, then float arithmetic, one rounding at the end */
        int once = half_in_float && !is_log && (dt == RS_FLOAT16 || dt == RS_BFLOAT16);
        float step = steps <= 1 ? 0.0f
                     : once     ? (b - a) / (float)(steps - 1)
                                : rs_round_float(r, rs_round_float(r, b - a) / rs_round_float(r, (float)(steps - 1)));
        mode = once ? LS_FLOAT_ONCE : LS_FLOAT;
        pc.a = rs_f32_bits(a);
        pc.b = rs_f32_bits(b);
        pc.c = rs_f32_bits(step);
        pc.d = rs_f32_bits((float)log_base);
        pc.e = rs_f32_bits(is_log ? (float)log2(log_base) : 0.0f);
    }
    char defines[48];
    snprintf(defines, sizeof defines, "DST_DT=%d;MODE=%d;LOG=%d", (int)dt, mode, is_log);
    return launch(s, dst, "linspace.comp", defines, &l, &pc, sizeof pc);
}
