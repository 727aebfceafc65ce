/* pointwise.c: the pointwise engine (rs_pointwise_run). A description (the
 * expression, the dtypes of every operand, which inputs are scalars)
 * becomes the defines of kernels/pointwise.comp; the kernel is compiled once
 * and cached under those defines, which include the layout class
 * (contiguous or strided). */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "engine/engine.h"
#include "params/pointwise.h"

typedef struct pointwise_push { RS_POINTWISE_PUSH } pointwise_push;
_Static_assert(sizeof ((pointwise_push *)0)->in_ == RS_PW_MAX_INPUTS * sizeof(uint64_t),
               "params/pointwise.h holds RS_PW_MAX_INPUTS inputs");

/* The bits of a scalar slot for a value of opmath dtype `dt`. A complex128
 * scalar does not fit a slot: its 16 bytes go to the stream's arena and the
 * slot holds their address (rs_fb_cd in common/opmath.glsl). */
static rs_status scalar_bits(rs_stream *s, rs_dtype dt, const rs_scalar v[2], uint64_t *out) {
    if (dt == RS_COMPLEX128) {
        void *host = NULL;
        rs_status st = rs_stream_arena(s, 16, &host, out);
        if (st != RS_OK) return st;
        memcpy(host, &v[0].d, 8);
        memcpy((char *)host + 8, &v[1].d, 8);
        return RS_OK;
    }
    *out = v[0].u;
    if (dt == RS_COMPLEX32 || dt == RS_COMPLEX64) {
        uint32_t re, im;
        memcpy(&re, &v[0].cf.re, 4);
        memcpy(&im, &v[0].cf.im, 4);
        *out = (uint64_t)re | (uint64_t)im << 32;
    } else if (dt == RS_FLOAT32 || dt == RS_FLOAT16 || dt == RS_BFLOAT16 ||
               (dt >= RS_FLOAT8_E5M2 && dt <= RS_FLOAT8_E4M3FNUZ) || dt == RS_FLOAT8_E8M0FNU) {
        /* the float32 family computes in float: the low 32 bits */
        uint32_t f;
        memcpy(&f, &v[0].f, 4);
        *out = f;
    }
    return RS_OK;
}

static int appendf(char *buf, size_t cap, size_t *len, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int appendf(char *buf, size_t cap, size_t *len, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf + *len, *len < cap ? cap - *len : 0, fmt, ap);
    va_end(ap);
    if (n < 0 || *len + (size_t)n >= cap) return -1;
    *len += (size_t)n;
    return 0;
}

/* Elements [start, start + n) of a contiguous view, as a 1-D view. */
static rs_tensor one_dim(const rs_tensor *t, int64_t start, int64_t n) {
    rs_tensor v;
    memset(&v, 0, sizeof v);
    v.address = t->address + (uint64_t)start * rs_dtype_size(t->dtype);
    v.dtype = t->dtype;
    v.ndim = 1;
    v.sizes[0] = n;
    v.strides[0] = 1;
    return v;
}

rs_status rs_pointwise_run(rs_stream *s, const rs_pointwise *p) {
    if (s && p && p->name && p->op != RS_PW_NONE) {
        /* a table op: its expression, if the table has it for this dtype;
         * $k is the integer flags[k], a constant of the kernel (an option
         * such as the fused optimizers' maximize): one kernel a value */
        char text[1024];
        rs_status st = rs_pw_op_text(p->op, p->flags, text, sizeof text);
        if (st != RS_OK) return st;
        if (!rs_pw_op_supports(p->op, p->compute))
            return rs_error(RS_ERR_UNSUPPORTED, "rs_pointwise %s: no kernel for %s", p->name,
                            rs_dtype_name(p->compute));
        rs_pointwise q = *p;
        q.op = RS_PW_NONE;
        q.expr = text;
        return rs_pointwise_run(s, &q);
    }
    if (!s || !p || !p->expr || !p->name) return rs_error(RS_ERR_INVALID, "rs_pointwise: missing arguments");
    if (p->ninputs < 0 || p->ninputs > RS_PW_MAX_INPUTS || p->nscalars < 0 || p->nscalars > 4)
        return rs_error(RS_ERR_INVALID, "rs_pointwise %s: %d inputs, %d scalars", p->name, p->ninputs,
                        p->nscalars);
    const rs_features *f = rs_stream_features(s);
    /* the dtypes that need fp64 arithmetic */
    if (!rs_dtype_valid((int)p->common)) return rs_error(RS_ERR_INVALID, "rs_pointwise %s: bad common dtype", p->name);
    int need64 = rs_dtype_needs_fp64(p->compute) || rs_dtype_needs_fp64(p->result) ||
                 rs_dtype_needs_fp64(p->out.dtype);
    for (int k = 0; k < p->ninputs; ++k) need64 |= rs_dtype_needs_fp64(p->in[k].dtype);
    if (need64 && !f->has_fp64)
        return rs_error(RS_ERR_UNSUPPORTED, "rs_pointwise %s: float64/complex128 needs shaderFloat64, "
                        "which this device (profile %s) lacks", p->name,
                        rs_profile_name(rs_profile_current()));

    /* the layout: the output, then every input read from memory */
    const rs_tensor *views[RS_LAYOUT_MAX];
    const char *names[RS_LAYOUT_MAX] = {"out", "input 0", "input 1", "input 2", "input 3"};
    int layout_index[RS_PW_MAX_INPUTS] = {0};
    int nt = 0;
    views[nt++] = &p->out;
    for (int k = 0; k < p->ninputs; ++k) {
        if (p->is_scalar[k]) continue;
        names[nt] = names[1 + k];
        layout_index[k] = nt;
        views[nt++] = &p->in[k];
    }
    rs_layout l;
    rs_status st = rs_layout_make_n(views, names, nt, &l);
    if (st != RS_OK) return st;
    if (l.numel == 0) return RS_OK;

    /* the 16-byte path: contiguous, every tensor operand in the common
     * dtype (bool, integers, float16/bfloat16/float32, float64), the
     * output too, 16-byte aligned; 16 / size elements per access. The tail
     * of fewer than that runs as a second, plain launch. */
    rs_dtype cm = p->common;
    int vec_dt = cm == RS_BOOL || cm == RS_UINT8 || cm == RS_INT8 || cm == RS_INT16 || cm == RS_UINT16 ||
                 cm == RS_INT32 || cm == RS_UINT32 || cm == RS_INT64 || cm == RS_UINT64 || cm == RS_FLOAT16 ||
                 cm == RS_BFLOAT16 || cm == RS_FLOAT32 || (cm == RS_FLOAT64 && f->has_fp64);
    int vecw = vec_dt ? (int)(16 / rs_dtype_size(cm)) : 0;
    int vec = vecw && l.ndim == 0 && l.numel >= vecw && p->out.dtype == cm && p->result == p->compute &&
              p->out.address % 16 == 0;
    for (int k = 0; vec && k < p->ninputs; ++k)
        if (!p->is_scalar[k]) vec = p->in[k].dtype == cm && p->in[k].address % 16 == 0;
    if (!vec) vecw = 0;
    if (vec && l.numel % vecw) {
        int64_t whole = l.numel / vecw * vecw;
        rs_pointwise tail = *p;
        tail.out = one_dim(&p->out, whole, l.numel - whole);
        for (int k = 0; k < p->ninputs; ++k)
            if (!p->is_scalar[k]) tail.in[k] = one_dim(&p->in[k], whole, l.numel - whole);
        rs_pointwise head = *p;
        head.out = one_dim(&p->out, 0, whole);
        for (int k = 0; k < p->ninputs; ++k)
            if (!p->is_scalar[k]) head.in[k] = one_dim(&p->in[k], 0, whole);
        if ((st = rs_pointwise_run(s, &head)) != RS_OK) return st;
        return rs_pointwise_run(s, &tail);
    }

    char defines[1024];
    size_t len = 0;
    int bad = appendf(defines, sizeof defines, &len, "NIN=%d;NT=%d;OUT_DT=%d;CM_DT=%d;CT_DT=%d;RT_DT=%d;",
                      p->ninputs, nt, (int)p->out.dtype, (int)p->common, (int)p->compute, (int)p->result);
    for (int k = 0; k < p->ninputs && !bad; ++k)
        bad = appendf(defines, sizeof defines, &len, "IN%d_DT=%d;IN%d_S=%d;IN%d_L=%d;", k, (int)p->in[k].dtype,
                      k, p->is_scalar[k] ? 1 : 0, k, layout_index[k]);
    /* igamma/igammac read a 625-entry table: kernels that use them copy it
     * into shared memory first (see ops_special.glsl for why) */
    if (!bad && strstr(p->expr, "rs_op_igamma"))
        bad = appendf(defines, sizeof defines, &len, "RS_IGAM_SHARED=1;");
    /* the 16-byte path's words per invocation (pointwise.comp's VQ): two
     * for one tensor input (exp: 0.85x -> 0.89x of CUDA on the H200, the
     * loads of two words in flight), one for more (add: 1% faster) */
    int vq = nt <= 2 ? 2 : 1;
    if (!bad)
        bad = appendf(defines, sizeof defines, &len, "CONTIG=%d;VECW=%d;VQ=%d;EXPR=%s", l.ndim == 0 ? 1 : 0, vecw,
                      vecw ? vq : 1, p->expr);
    if (bad) return rs_error(RS_ERR_INVALID, "rs_pointwise %s: the description is too long", p->name);

    rs_device *dev = rs_stream_device(s);
    rs_kernel *k = NULL;
    if ((st = rs_kernel_get(dev, "pointwise.comp", defines, &k)) != RS_OK) return st;

    pointwise_push pc;
    memset(&pc, 0, sizeof pc);
    pc.out_ = p->out.address;
    pc.numel = (uint64_t)l.numel;
    pc.ndim = (uint32_t)l.ndim;
    pc.err = rs_device_error_address(dev);
    pc.site = rs_device_error_site(dev, p->name);
    rs_access acc[1 + RS_PW_MAX_INPUTS];
    int nacc = 0;
    acc[nacc++] = rs_tensor_access(&p->out, 1);
    for (int i = 0; i < p->ninputs; ++i) {
        if (p->is_scalar[i]) {
            if ((st = scalar_bits(s, p->in[i].dtype, p->scalar[i], &pc.in_[i])) != RS_OK) return st;
        } else {
            pc.in_[i] = p->in[i].address;
            acc[nacc++] = rs_tensor_access(&p->in[i], 0);
        }
    }
    for (int i = 0; i < p->nscalars; ++i)
        if ((st = scalar_bits(s, p->compute, p->s[i], &pc.s[i])) != RS_OK) return st;
    if ((st = rs_layout_upload(s, &l, nt, &pc.params)) != RS_OK) return st;
    /* the contiguous kernels take 4 elements per invocation, the 16-byte
     * path vq words of 16 bytes */
    uint64_t per = vecw ? (uint64_t)(vq * vecw) : 4;
    uint64_t items = l.ndim == 0 ? (pc.numel + per - 1) / per : pc.numel;
    return rs_launch(s, k, items, &pc, sizeof pc, acc, nacc);
}
