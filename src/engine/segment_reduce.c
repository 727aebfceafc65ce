/* segment_reduce.c: torch.segment_reduce (contract in russet/segment_reduce.h)
 * on kernels/segment_reduce.comp, one launch each way. Lengths become
 * running sums first (rs_scan), so that each invocation finds its
 * segment's bounds in two reads. */
#include <stdio.h>
#include <string.h>

#include "engine/engine.h"
#include "params/segment_reduce.h"

typedef struct segment_reduce_push { RS_SEGMENT_REDUCE_PUSH } segment_reduce_push;

static rs_status check_view(const char *name, const char *what, const rs_tensor *t, int ndim, rs_dtype dt) {
    if (t->ndim != ndim)
        return rs_error(RS_ERR_INVALID, "%s: %s must have %d dims, got %d", name, what, ndim, t->ndim);
    if (t->dtype != dt)
        return rs_error(RS_ERR_INVALID, "%s: %s is %s, expected %s", name, what, rs_dtype_name(t->dtype),
                        rs_dtype_name(dt));
    return RS_OK;
}

static int same3(const rs_tensor *t, int64_t a, int64_t b, int64_t c) {
    return t->sizes[0] == a && t->sizes[1] == b && t->sizes[2] == c;
}

/* the checks both directions share; *S the number of segments */
static rs_status check_args(const char *name, const rs_segment_reduce *p, rs_stream *s, int backward, int64_t *S) {
    if ((int)p->op < RS_SEG_SUM || p->op > RS_SEG_PROD) return rs_error(RS_ERR_INVALID, "%s: bad op", name);
    const rs_dtype dt = p->data.dtype;
    if (dt != RS_FLOAT32 && dt != RS_FLOAT16 && dt != RS_BFLOAT16 && dt != RS_FLOAT64)
        return rs_error(RS_ERR_INVALID, "%s: no kernel for %s data", name, rs_dtype_name(dt));
    if (dt == RS_FLOAT64 && !rs_stream_features(s)->has_fp64)
        return rs_error(RS_ERR_UNSUPPORTED, "%s: float64 needs float64 arithmetic, which this device (or profile) "
                        "lacks", name);
    const rs_dtype bt = p->bounds.dtype;
    if (bt != RS_INT64 && bt != RS_INT32) return rs_error(RS_ERR_INVALID, "%s: lengths/offsets must be int64 or int32", name);
    rs_status st;
    if ((st = check_view(name, "data", &p->data, 3, dt)) ||
        (st = check_view(name, p->offsets ? "offsets" : "lengths", &p->bounds, 2, bt)) ||
        (st = check_view(name, "out", &p->out, 3, dt)))
        return st;
    const int64_t outer = p->data.sizes[0], L = p->data.sizes[1], inner = p->data.sizes[2];
    *S = p->bounds.sizes[1] - (p->offsets ? 1 : 0);
    if (*S < 0 || p->bounds.sizes[0] != outer)
        return rs_error(RS_ERR_INVALID, "%s: bounds are (%lld, %lld) for %lld rows of data", name,
                        (long long)p->bounds.sizes[0], (long long)p->bounds.sizes[1], (long long)outer);
    if (!backward) {
        if (!same3(&p->out, outer, *S, inner)) return rs_error(RS_ERR_INVALID, "%s: out is not (outer, S, inner)", name);
        return RS_OK;
    }
    if ((st = check_view(name, "grad", &p->grad, 3, dt)) || (st = check_view(name, "output", &p->output, 3, dt)))
        return st;
    if (!same3(&p->grad, outer, *S, inner) || !same3(&p->output, outer, *S, inner) || !same3(&p->out, outer, L, inner))
        return rs_error(RS_ERR_INVALID, "%s: grad and output must be (outer, S, inner), out data's shape", name);
    return RS_OK;
}

/* the running sums of the lengths, int64 (outer, S) contiguous, into a new
 * allocation *ends (two temporaries: rs_scan reads contiguous rows) */
static rs_status running_sums(rs_stream *s, const rs_tensor *lengths, uint64_t *ends) {
    rs_device *dev = rs_stream_device(s);
    const int64_t outer = lengths->sizes[0], S = lengths->sizes[1];
    const uint64_t bytes = 8 * (uint64_t)(outer * S);
    uint64_t lens = 0;
    rs_status st;
    if ((st = rs_alloc(dev, bytes, s, &lens))) return st;
    if ((st = rs_alloc(dev, bytes, s, ends))) {
        rs_free(dev, lens);
        return st;
    }
    const rs_tensor l64 = rs_tensor_rows(lens, RS_INT64, outer, S), e64 = rs_tensor_rows(*ends, RS_INT64, outer, S);
    if (!(st = rs_copy(s, &l64, lengths))) st = rs_scan(s, RS_SCAN_SUM, &l64, &e64, NULL);
    rs_free(dev, lens);
    if (st) {
        rs_free(dev, *ends);
        *ends = 0;
    }
    return st;
}

static rs_status run(rs_stream *s, const rs_segment_reduce *p, int backward) {
    const char *name = backward ? "segment_reduce_backward" : "segment_reduce";
    if (!s || !p) return rs_error(RS_ERR_INVALID, "%s: missing arguments", name);
    int64_t S = 0;
    rs_status st;
    if ((st = check_args(name, p, s, backward, &S))) return st;
    const rs_dtype dt = p->data.dtype;
    const int64_t outer = p->data.sizes[0], L = p->data.sizes[1], inner = p->data.sizes[2];
    if (backward) { /* positions in no segment: 0 */
        uint8_t zero[16] = {0};
        if ((st = rs_fill(s, &p->out, zero))) return st;
    }
    const uint64_t items = (uint64_t)(outer * S * inner);
    if (items == 0) return RS_OK;

    rs_device *dev = rs_stream_device(s);
    uint64_t ends = 0;
    if (!p->offsets && (st = running_sums(s, &p->bounds, &ends))) return st;
    void *host = NULL;
    uint64_t addr = 0;
    if ((st = rs_stream_arena(s, SR_SLOTS * sizeof(int64_t), &host, &addr))) goto done;
    int64_t *q = host;
    memset(q, 0, SR_SLOTS * sizeof(int64_t));
    q[SR_OUTER] = outer, q[SR_L] = L, q[SR_INNER] = inner, q[SR_S] = S;
    if (p->has_initial) q[SR_INIT] = rs_opmath_slot_bits(dt, p->initial);
    for (int d = 0; d < 3; ++d) {
        q[SR_DS + d] = p->data.strides[d];
        q[SR_OS + d] = p->out.strides[d];
        if (backward) q[SR_GS + d] = p->grad.strides[d], q[SR_RS + d] = p->output.strides[d];
    }
    q[SR_BS] = p->bounds.strides[0], q[SR_BS + 1] = p->bounds.strides[1];

    segment_reduce_push pc;
    memset(&pc, 0, sizeof pc);
    pc.data = p->data.address;
    pc.bounds = p->offsets ? p->bounds.address : ends;
    pc.grad = backward ? p->grad.address : 0;
    pc.result = backward ? p->output.address : 0;
    pc.out_ = p->out.address;
    pc.params = addr;
    pc.err = rs_device_error_address(dev);
    pc.site = rs_device_error_site(dev, "segment_reduce");
    char defines[96];
    snprintf(defines, sizeof defines, "DT=%d;OP=%d;BACKWARD=%d;LENGTHS=%d;BIDX32=%d;HAS_INIT=%d", (int)dt,
             (int)p->op, backward, !p->offsets, p->bounds.dtype == RS_INT32, p->has_initial != 0);
    rs_kernel *k = NULL;
    if ((st = rs_kernel_get(dev, "segment_reduce.comp", defines, &k))) goto done;
    rs_access acc[5];
    int na = 0;
    acc[na++] = rs_tensor_access(&p->data, 0);
    acc[na++] = p->offsets ? rs_tensor_access(&p->bounds, 0) : (rs_access){ends, 8 * (uint64_t)(outer * S), 0};
    if (backward) {
        acc[na++] = rs_tensor_access(&p->grad, 0);
        acc[na++] = rs_tensor_access(&p->output, 0);
    }
    acc[na++] = rs_tensor_access(&p->out, 1);
    st = rs_launch(s, k, items, &pc, sizeof pc, acc, na);
done:
    if (ends) rs_free(dev, ends);
    return st;
}

rs_status rs_segment_reduce_run(rs_stream *s, const rs_segment_reduce *p) { return run(s, p, 0); }

rs_status rs_segment_reduce_backward_run(rs_stream *s, const rs_segment_reduce *p) { return run(s, p, 1); }
