/* softmax.c: softmax, log_softmax and their backward kernels
 * (kernels/softmax.comp) over contiguous (outer, n, inner) tensors: the
 * float32 family in float arithmetic, float64 in double (fp64 devices). */
#include <stdio.h>
#include <string.h>

#include "engine/engine.h"
#include "params/softmax.h"

/* elements a lane holds in registers on softmax.comp's one-read path */
#define ROWREG 16

typedef struct softmax_push { RS_SOFTMAX_PUSH } softmax_push;

static int float_family(rs_dtype dt) {
    return dt == RS_FLOAT32 || dt == RS_FLOAT16 || dt == RS_BFLOAT16;
}

rs_status rs_softmax_run(rs_stream *s, const rs_softmax *p) {
    if (!s || !p) return rs_error(RS_ERR_INVALID, "rs_softmax: missing arguments");
    static const char *const names[4] = {"softmax", "log_softmax", "softmax_backward", "log_softmax_backward"};
    if ((int)p->op < 0 || p->op > RS_LOG_SOFTMAX_BACKWARD) return rs_error(RS_ERR_INVALID, "rs_softmax: bad op");
    const char *name = names[p->op];
    int backward = p->op >= RS_SOFTMAX_BACKWARD;
    rs_dtype b_dt = backward ? p->b_dtype : p->a_dtype;
    /* float64 (arithmetic in double): every tensor float64, on a device
     * with fp64; else the float32 family (arithmetic in float) */
    const int wide = p->a_dtype == RS_FLOAT64 && b_dt == RS_FLOAT64 && p->out_dtype == RS_FLOAT64;
    if (!wide && (!float_family(p->a_dtype) || !float_family(b_dt) || !float_family(p->out_dtype)))
        return rs_error(RS_ERR_UNSUPPORTED,
                        "%s: the kernels compute float32, float16 and bfloat16, or float64 alone (got %s, %s)", name,
                        rs_dtype_name(p->a_dtype), rs_dtype_name(p->out_dtype));
    if (wide && !rs_stream_features(s)->has_fp64)
        return rs_error(RS_ERR_UNSUPPORTED, "%s: float64 needs the device's fp64 arithmetic", name);
    if (p->outer < 0 || p->n < 0 || p->inner < 0) return rs_error(RS_ERR_INVALID, "%s: negative size", name);
    uint64_t rows = (uint64_t)p->outer * (uint64_t)p->inner, n = (uint64_t)p->n;
    if (rows == 0 || n == 0) return RS_OK;
    if (!p->a || !p->out || (backward && !p->b)) return rs_error(RS_ERR_INVALID, "%s: missing tensor", name);

    /* lanes per row: a few elements each when rows are contiguous; one
     * thread per row when inner > 1 (neighbours read neighbours). Rows of
     * at most RS_KERNEL_WG * ROWREG contiguous elements are held in
     * registers (read once, one exp per element); float32 rows that are
     * 16-byte aligned are read and written 16 bytes at a time. */
    uint64_t tpo = 1;
    int rowreg = p->inner == 1 && n <= RS_KERNEL_WG * ROWREG;
    if (rowreg)
        while (tpo * ROWREG < n) tpo <<= 1;
    else if (p->inner == 1)
        while (tpo < RS_KERNEL_WG && tpo * 64 < n) tpo <<= 1; /* >= 64 elements a lane */
    uint64_t b_addr = backward ? p->b : p->a;
    int smvec = rowreg && p->a_dtype == RS_FLOAT32 && b_dt == RS_FLOAT32 && p->out_dtype == RS_FLOAT32 &&
                n % 4 == 0 && p->a % 16 == 0 && b_addr % 16 == 0 && p->out % 16 == 0;
    rs_device *dev = rs_stream_device(s);
    softmax_push pc;
    memset(&pc, 0, sizeof pc);
    pc.a = p->a;
    pc.b = backward ? p->b : p->a;
    pc.out_ = p->out;
    pc.outer = (uint64_t)p->outer;
    pc.n = n;
    pc.inner = (uint64_t)p->inner;
    pc.err = rs_device_error_address(dev);
    pc.site = rs_device_error_site(dev, name);
    pc.tpo = (uint32_t)tpo;
    char defines[128];
    snprintf(defines, sizeof defines, "MODE=%d;A_DT=%d;B_DT=%d;OUT_DT=%d;ROWREG=%d;SMVEC=%d", (int)p->op,
             (int)p->a_dtype, (int)b_dt, (int)p->out_dtype, rowreg ? ROWREG : 0, smvec);
    rs_kernel *k = NULL;
    rs_status st = rs_kernel_get(dev, "softmax.comp", defines, &k);
    if (st != RS_OK) return st;
    uint64_t elems = rows * n;
    rs_access acc[3] = {{p->a, elems * rs_dtype_size(p->a_dtype), 0},
                        {p->out, elems * rs_dtype_size(p->out_dtype), 1},
                        {pc.b, elems * rs_dtype_size(b_dt), 0}};
    uint64_t groups = (rows + RS_KERNEL_WG / tpo - 1) / (RS_KERNEL_WG / tpo);
    uint32_t g[3] = {rs_groups_capped(s, groups, RS_GROUPS_MAX), 1, 1};
    return rs_dispatch(s, k, g, &pc, sizeof pc, acc, backward ? 3 : 2);
}
