/* distance.c: pairwise p-norm distances and their gradient (contract in
 * russet/distance.h) on kernels/distance.comp, one launch each: an
 * invocation a distance, or a gradient element summing over the other
 * set's rows. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "engine/engine.h"
#include "params/distance.h"
#include "russet/distance.h"

typedef struct distance_push { RS_DISTANCE_PUSH } distance_push;

static rs_status check_view(const char *what, const rs_tensor *t, rs_dtype dt, int64_t b, int64_t rows,
                            int64_t cols) {
    if (!t || t->ndim != 3 || t->dtype != dt || t->sizes[0] != b || t->sizes[1] != rows || t->sizes[2] != cols)
        return rs_error(RS_ERR_INVALID, "cdist: %s must be a (%lld, %lld, %lld) view of %s", what, (long long)b,
                        (long long)rows, (long long)cols, rs_dtype_name(dt));
    return RS_OK;
}

/* the checks both directions share, the sizes and strides in the arena,
 * and the kernel for p */
static rs_status plan(rs_stream *s, const rs_tensor *x1, const rs_tensor *x2, double p, const rs_tensor *dist,
                      int mode, distance_push *pc, int64_t slots[DS_SLOTS], rs_kernel **k) {
    if (!s || !x1 || !x2 || !dist) return rs_error(RS_ERR_INVALID, "cdist: missing arguments");
    rs_dtype dt = x1->dtype;
    if (dt != RS_FLOAT32 && dt != RS_FLOAT64)
        return rs_error(RS_ERR_UNSUPPORTED, "cdist: the kernel computes float32 and float64 (got %s)", rs_dtype_name(dt));
    if (dt == RS_FLOAT64 && !rs_stream_features(s)->has_fp64)
        return rs_error(RS_ERR_UNSUPPORTED, "cdist: float64 needs float64 arithmetic, which this device lacks");
    if (!(p >= 0)) return rs_error(RS_ERR_INVALID, "cdist only supports non-negative p values");
    if (x1->ndim != 3) return rs_error(RS_ERR_INVALID, "cdist: x1 must be a (B, n, c) view");
    const int64_t b = x1->sizes[0], n = x1->sizes[1], c = x1->sizes[2];
    rs_status st;
    if ((st = check_view("x2", x2, dt, b, x2->ndim == 3 ? x2->sizes[1] : -1, c)) != RS_OK) return st;
    const int64_t m = x2->sizes[1];
    if ((st = check_view("dist", dist, dt, b, n, m)) != RS_OK) return st;
    memset(slots, 0, sizeof(int64_t) * DS_SLOTS);
    slots[DS_B] = b, slots[DS_N] = n, slots[DS_M] = m, slots[DS_C] = c;
    memcpy(slots + DS_X1_ST, x1->strides, 3 * sizeof(int64_t));
    memcpy(slots + DS_X2_ST, x2->strides, 3 * sizeof(int64_t));
    memcpy(slots + DS_DIST_ST, dist->strides, 3 * sizeof(int64_t));
    memset(pc, 0, sizeof *pc);
    pc->x1 = x1->address, pc->x2 = x2->address, pc->dist = dist->address;
    if (dt == RS_FLOAT64) {
        memcpy(&pc->p, &p, sizeof p);
    } else {
        float pf = (float)p; /* CPU's kernel takes p as the dtype */
        uint32_t bits;
        memcpy(&bits, &pf, sizeof bits);
        pc->p = bits;
    }
    int pk = p == 0 ? DS_P0 : p == 1 ? DS_P1 : p == 2 ? DS_P2 : isinf(p) ? DS_PINF : DS_PGEN;
    char defines[64];
    snprintf(defines, sizeof defines, "DT=%d;MODE=%d;PK=%d", (int)dt, mode, pk);
    return rs_kernel_get(rs_stream_device(s), "distance.comp", defines, k);
}

static rs_status launch(rs_stream *s, rs_kernel *k, distance_push *pc, const int64_t slots[DS_SLOTS], uint64_t items,
                        const rs_access *acc, int n_acc) {
    if (items == 0) return RS_OK;
    void *host = NULL;
    rs_status st = rs_stream_arena(s, sizeof(int64_t) * DS_SLOTS, &host, &pc->params);
    if (st != RS_OK) return st;
    memcpy(host, slots, sizeof(int64_t) * DS_SLOTS);
    return rs_launch(s, k, items, pc, sizeof *pc, acc, n_acc);
}

rs_status rs_cdist_forward(rs_stream *s, const rs_tensor *x1, const rs_tensor *x2, double p, const rs_tensor *dist) {
    distance_push pc;
    int64_t slots[DS_SLOTS];
    rs_kernel *k = NULL;
    rs_status st = plan(s, x1, x2, p, dist, 0, &pc, slots, &k);
    if (st != RS_OK) return st;
    rs_access acc[3] = {rs_tensor_access(x1, 0), rs_tensor_access(x2, 0), rs_tensor_access(dist, 1)};
    return launch(s, k, &pc, slots, (uint64_t)(slots[DS_B] * slots[DS_N] * slots[DS_M]), acc, 3);
}

rs_status rs_cdist_backward(rs_stream *s, const rs_tensor *grad, const rs_tensor *x1, const rs_tensor *x2, double p,
                            const rs_tensor *dist, const rs_tensor *grad_x1) {
    distance_push pc;
    int64_t slots[DS_SLOTS];
    rs_kernel *k = NULL;
    rs_status st = plan(s, x1, x2, p, dist, 1, &pc, slots, &k);
    if (st != RS_OK) return st;
    const int64_t b = slots[DS_B], n = slots[DS_N], m = slots[DS_M], c = slots[DS_C];
    if ((st = check_view("grad", grad, x1->dtype, b, n, m)) || (st = check_view("grad_x1", grad_x1, x1->dtype, b, n, c)))
        return st;
    memcpy(slots + DS_GRAD_ST, grad->strides, 3 * sizeof(int64_t));
    memcpy(slots + DS_RES_ST, grad_x1->strides, 3 * sizeof(int64_t));
    pc.grad = grad->address, pc.res = grad_x1->address;
    rs_access acc[5] = {rs_tensor_access(grad, 0), rs_tensor_access(x1, 0), rs_tensor_access(x2, 0),
                        rs_tensor_access(dist, 0), rs_tensor_access(grad_x1, 1)};
    return launch(s, k, &pc, slots, (uint64_t)(b * n * c), acc, 5);
}
