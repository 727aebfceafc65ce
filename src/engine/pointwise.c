/* pointwise.c: the pointwise engine (rs_pointwise_run). A description (the
 * expression, the dtypes of every operand, which inputs are scalars)
 * becomes the defines of kernels/pointwise.comp; the kernel is compiled once
 * and cached under those defines, which include the layout class
 * (contiguous or strided). */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
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

/* A table op's description as an expression one (q, its text in `text`);
 * then the checks every description passes. */
static rs_status resolve(rs_stream *s, const rs_pointwise *p, char *text, size_t cap, rs_pointwise *q) {
    if (!s || !p || !p->name) return rs_error(RS_ERR_INVALID, "rs_pointwise: missing arguments");
    *q = *p;
    if (p->op != RS_PW_NONE) {
        /* a table op: its expression, if the table has it for this dtype;
         * $k is the integer flags[k], a constant of the kernel (an option
         * such as the fused optimizers' maximize): one kernel a value */
        rs_status st = rs_pw_op_text(p->op, p->flags, text, cap);
        if (st != RS_OK) return st;
        if (!rs_pw_op_supports(p->op, p->compute))
            return rs_error(RS_ERR_UNSUPPORTED, "rs_pointwise %s: no kernel for %s", p->name,
                            rs_dtype_name(p->compute));
        q->op = RS_PW_NONE;
        q->expr = text;
    }
    if (!q->expr) return rs_error(RS_ERR_INVALID, "rs_pointwise %s: no expression", p->name);
    if (p->ninputs < 0 || p->ninputs > RS_PW_MAX_INPUTS || p->nscalars < 0 || p->nscalars > 4)
        return rs_error(RS_ERR_INVALID, "rs_pointwise %s: %d inputs, %d scalars", p->name, p->ninputs,
                        p->nscalars);
    /* the dtypes that need fp64 arithmetic */
    if (!rs_dtype_valid((int)p->common)) return rs_error(RS_ERR_INVALID, "rs_pointwise %s: bad common dtype", p->name);
    int need64 = rs_dtype_needs_fp64(p->compute) || rs_dtype_needs_fp64(p->result) ||
                 rs_dtype_needs_fp64(p->out.dtype);
    for (int k = 0; k < p->ninputs; ++k) need64 |= rs_dtype_needs_fp64(p->in[k].dtype);
    if (need64 && !rs_stream_features(s)->has_fp64)
        return rs_error(RS_ERR_UNSUPPORTED, "rs_pointwise %s: float64/complex128 needs shaderFloat64, "
                        "which this device (profile %s) lacks", p->name,
                        rs_profile_name(rs_profile_current()));
    return RS_OK;
}

/* The kernel's defines: nt views in the layout (input k is view
 * layout_index[k]); the path (contig, the 16-byte path's vecw and vq, or
 * segs: a list of tensors). */
static rs_status kernel_defines(const rs_pointwise *p, int nt, const int *layout_index, int contig, int vecw, int vq,
                                int segs, int run, char *defines, size_t cap) {
    size_t len = 0;
    int bad = appendf(defines, cap, &len, "NIN=%d;NT=%d;OUT_DT=%d;CM_DT=%d;CT_DT=%d;RT_DT=%d;", p->ninputs, nt,
                      (int)p->out.dtype, (int)p->common, (int)p->compute, (int)p->result);
    for (int k = 0; k < p->ninputs && !bad; ++k)
        bad = appendf(defines, cap, &len, "IN%d_DT=%d;IN%d_S=%d;IN%d_L=%d;", k, (int)p->in[k].dtype, k,
                      p->is_scalar[k] ? 1 : 0, k, layout_index[k]);
    /* igamma/igammac read a 625-entry table: kernels that use them copy it
     * into shared memory first (see ops_special.glsl for why) */
    if (!bad && strstr(p->expr, "rs_op_igamma")) bad = appendf(defines, cap, &len, "RS_IGAM_SHARED=1;");
    if (!bad)
        bad = appendf(defines, cap, &len, "CONTIG=%d;SEGS=%d;VECW=%d;VQ=%d;RUN=%d;EXPR=%s", contig, segs, vecw,
                      vecw ? vq : 1, run, p->expr);
    return bad ? rs_error(RS_ERR_INVALID, "rs_pointwise %s: the description is too long", p->name) : RS_OK;
}

/* The push constants' scalar slots: input k's value where it is a scalar,
 * s0..s3. */
static rs_status push_scalars(rs_stream *s, const rs_pointwise *p, pointwise_push *pc) {
    rs_status st;
    for (int i = 0; i < p->ninputs; ++i)
        if (p->is_scalar[i] && (st = scalar_bits(s, p->in[i].dtype, p->scalar[i], &pc->in_[i])) != RS_OK) return st;
    for (int i = 0; i < p->nscalars; ++i)
        if ((st = scalar_bits(s, p->compute, p->s[i], &pc->s[i])) != RS_OK) return st;
    return RS_OK;
}

rs_status rs_pointwise_run(rs_stream *s, const rs_pointwise *desc) {
    char text[1024];
    rs_pointwise resolved;
    rs_status st = resolve(s, desc, text, sizeof text, &resolved);
    if (st != RS_OK) return st;
    const rs_pointwise *p = &resolved;
    const rs_features *f = rs_stream_features(s);

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
    st = rs_layout_make_n(views, names, nt, &l);
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

    /* the 16-byte path's words per invocation (pointwise.comp's VQ): two
     * for one tensor input (exp: 0.85x -> 0.89x of CUDA on the H200, the
     * loads of two words in flight), one for more (add: 1% faster) */
    int vq = nt <= 2 ? 2 : 1;
    uint64_t strided_items = 0;
    int run = rs_layout_run(&l, &strided_items);
    char defines[1024];
    if ((st = kernel_defines(p, nt, layout_index, l.ndim == 0, vecw, vq, 0, run, defines, sizeof defines)) != RS_OK)
        return st;

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
    for (int i = 0; i < p->ninputs; ++i)
        if (!p->is_scalar[i]) {
            pc.in_[i] = p->in[i].address;
            acc[nacc++] = rs_tensor_access(&p->in[i], 0);
        }
    if ((st = push_scalars(s, p, &pc)) != RS_OK) return st;
    if ((st = rs_layout_upload(s, &l, nt, &pc.params)) != RS_OK) return st;
    /* the contiguous kernels take 4 elements per invocation, the 16-byte
     * path vq words of 16 bytes */
    uint64_t per = vecw ? (uint64_t)(vq * vecw) : 4;
    uint64_t items = l.ndim == 0 ? (pc.numel + per - 1) / per : strided_items;
    return rs_launch(s, k, items, &pc, sizeof pc, acc, nacc);
}

/* ---------------------------------------------------------------- lists of tensors */

/* A description a list launch can take: every view contiguous, of one
 * numel, at an address that is a whole number of its elements. */
static int listable(const rs_pointwise *p) {
    if (!rs_tensor_is_contiguous(&p->out) || p->out.address % rs_dtype_size(p->out.dtype)) return 0;
    for (int k = 0; k < p->ninputs; ++k)
        if (!p->is_scalar[k] &&
            (!rs_tensor_is_contiguous(&p->in[k]) || rs_tensor_numel(&p->in[k]) != rs_tensor_numel(&p->out) ||
             p->in[k].address % rs_dtype_size(p->in[k].dtype)))
            return 0;
    return 1;
}

/* 1 when a and b differ only in their tensors (one kernel, one set of
 * scalars) */
static int same_kernel(const rs_pointwise *a, const rs_pointwise *b) {
    if (a->op != b->op || strcmp(a->name, b->name) != 0 || memcmp(a->flags, b->flags, sizeof a->flags) != 0 ||
        (a->op == RS_PW_NONE && strcmp(a->expr, b->expr) != 0) || a->common != b->common ||
        a->compute != b->compute || a->result != b->result || a->ninputs != b->ninputs ||
        a->out.dtype != b->out.dtype || a->nscalars != b->nscalars ||
        memcmp(a->s, b->s, sizeof a->s[0] * (size_t)a->nscalars) != 0)
        return 0;
    for (int k = 0; k < a->ninputs; ++k)
        if (a->in[k].dtype != b->in[k].dtype || a->is_scalar[k] != b->is_scalar[k] ||
            (a->is_scalar[k] && memcmp(a->scalar[k], b->scalar[k], sizeof a->scalar[k]) != 0))
            return 0;
    return 1;
}

typedef struct seg_range { uint64_t lo, hi; int seg, write; } seg_range;

static int by_lo(const void *x, const void *y) {
    const seg_range *a = x, *b = y;
    return a->lo < b->lo ? -1 : a->lo > b->lo;
}

/* The furthest end of the ranges seen so far, of any description, and of
 * those of descriptions other than the furthest one's owner. */
typedef struct reach { uint64_t end, end_others; int owner; } reach;

/* how far the ranges of descriptions other than `seg` reach */
static uint64_t reach_of_others(const reach *r, int seg) { return seg == r->owner ? r->end_others : r->end; }

static void reach_add(reach *r, const seg_range *x) {
    if (x->seg == r->owner) {
        if (x->hi > r->end) r->end = x->hi;
    } else if (x->hi > r->end) {
        r->end_others = r->end, r->end = x->hi, r->owner = x->seg;
    } else if (x->hi > r->end_others) {
        r->end_others = x->hi;
    }
}

/* 1 when, run in one launch, the descriptions could see one another's
 * writes: an output overlapping another description's operand. The ranges
 * sorted by start; each meets an earlier range of another description iff
 * it starts before the furthest end of those (reach). */
static int overlapping(const rs_pointwise *ps, int n) {
    int m = 0, hit = 0;
    seg_range *r = malloc(sizeof *r * (size_t)n * (1 + RS_PW_MAX_INPUTS));
    if (!r) return 1;
    for (int i = 0; i < n; ++i) {
        uint64_t lo, hi;
        rs_tensor_extent(&ps[i].out, &lo, &hi);
        if (hi > lo) r[m++] = (seg_range){lo, hi, i, 1};
        for (int k = 0; k < ps[i].ninputs; ++k)
            if (!ps[i].is_scalar[k]) {
                rs_tensor_extent(&ps[i].in[k], &lo, &hi);
                if (hi > lo) r[m++] = (seg_range){lo, hi, i, 0};
            }
    }
    qsort(r, (size_t)m, sizeof *r, by_lo);
    reach all = {0, 0, -1}, writes = {0, 0, -1};
    for (int j = 0; j < m && !hit; ++j) {
        hit = (r[j].write && r[j].lo < reach_of_others(&all, r[j].seg)) || r[j].lo < reach_of_others(&writes, r[j].seg);
        reach_add(&all, &r[j]);
        if (r[j].write) reach_add(&writes, &r[j]);
    }
    free(r);
    return hit;
}

/* ps[0..n) (same_kernel, listable) in one launch */
static rs_status run_list(rs_stream *s, const rs_pointwise *ps, int n) {
    char text[1024];
    rs_pointwise resolved;
    rs_status st = resolve(s, &ps[0], text, sizeof text, &resolved);
    if (st != RS_OK) return st;
    const rs_pointwise *p = &resolved;
    int layout_index[RS_PW_MAX_INPUTS] = {0}, nt = 1;
    for (int k = 0; k < p->ninputs; ++k)
        if (!p->is_scalar[k]) layout_index[k] = nt++;
    char defines[1024];
    if ((st = kernel_defines(p, nt, layout_index, 0, 0, 1, 1, 1, defines, sizeof defines)) != RS_OK) return st;
    rs_device *dev = rs_stream_device(s);
    rs_kernel *k = NULL;
    if ((st = rs_kernel_get(dev, "pointwise.comp", defines, &k)) != RS_OK) return st;

    /* the segment table, and one access range a view covering its tensors */
    void *host = NULL;
    pointwise_push pc;
    memset(&pc, 0, sizeof pc);
    if ((st = rs_stream_arena(s, sizeof(int64_t) * (size_t)(n * (nt + 1)), &host, &pc.params)) != RS_OK) return st;
    int64_t *tab = host, total = 0;
    rs_access acc[1 + RS_PW_MAX_INPUTS];
    for (int v = 0; v < nt; ++v) acc[v] = (rs_access){UINT64_MAX, 0, v == 0};
    for (int i = 0; i < n; ++i) {
        const rs_tensor *views[1 + RS_PW_MAX_INPUTS];
        int nv = 0;
        views[nv++] = &ps[i].out;
        for (int q = 0; q < p->ninputs; ++q)
            if (!p->is_scalar[q]) views[nv++] = &ps[i].in[q];
        int64_t *row = tab + (size_t)i * (size_t)(nt + 1);
        row[0] = total;
        for (int v = 0; v < nt; ++v) {
            row[1 + v] = (int64_t)(views[v]->address / rs_dtype_size(views[v]->dtype));
            uint64_t lo, hi;
            rs_tensor_extent(views[v], &lo, &hi);
            if (hi <= lo) continue;
            uint64_t end = acc[v].address == UINT64_MAX ? hi : acc[v].address + acc[v].size;
            if (lo < acc[v].address) acc[v].address = lo;
            if (hi > end) end = hi;
            acc[v].size = end - acc[v].address;
        }
        total += rs_tensor_numel(&ps[i].out);
    }
    if (total == 0) return RS_OK;
    for (int v = 0; v < nt; ++v)
        if (acc[v].address == UINT64_MAX) acc[v].address = 0;
    pc.numel = (uint64_t)total;
    pc.ndim = (uint32_t)n;
    pc.err = rs_device_error_address(dev);
    pc.site = rs_device_error_site(dev, p->name);
    if ((st = push_scalars(s, p, &pc)) != RS_OK) return st;
    return rs_launch(s, k, ((uint64_t)total + 3) / 4, &pc, sizeof pc, acc, nt);
}

rs_status rs_pointwise_run_many(rs_stream *s, const rs_pointwise *ps, int n) {
    if (!s || (n > 0 && !ps) || n < 0) return rs_error(RS_ERR_INVALID, "rs_pointwise_run_many: bad arguments");
    rs_status st = RS_OK;
    for (int i = 0; i < n && st == RS_OK;) {
        int j = i + 1;
        if (listable(&ps[i]))
            while (j < n && listable(&ps[j]) && same_kernel(&ps[i], &ps[j])) ++j;
        if (j - i >= 2 && !overlapping(ps + i, j - i)) {
            st = run_list(s, ps + i, j - i);
        } else {
            for (int q = i; q < j && st == RS_OK; ++q) st = rs_pointwise_run(s, &ps[q]);
        }
        i = j;
    }
    return st;
}

rs_status rs_table_op(rs_stream *s, rs_pw_op op, const char *name, rs_dtype common, const rs_tensor *out, int nin,
                      const rs_tensor *a, double a_value, const rs_tensor *b, double b_value, int nscalars,
                      double s0) {
    rs_pointwise p;
    memset(&p, 0, sizeof p);
    p.name = name;
    p.op = op;
    p.common = common;
    p.compute = p.result = common == RS_FLOAT64 ? RS_FLOAT64 : RS_FLOAT32;
    p.ninputs = nin;
    p.out = *out;
    const rs_tensor *in[2] = {a, b};
    const double value[2] = {a_value, b_value};
    for (int i = 0; i < nin && i < 2; ++i) {
        if (in[i]) {
            p.in[i] = *in[i];
            continue;
        }
        p.is_scalar[i] = 1;
        p.in[i].dtype = common;
        rs_opmath_scalar(p.compute, value[i], p.scalar[i]);
    }
    p.nscalars = nscalars;
    if (nscalars) rs_opmath_scalar(p.compute, s0, p.s[0]);
    return rs_pointwise_run(s, &p);
}
