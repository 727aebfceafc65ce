/* jagged.c: rs_jagged_copy_run (contract in russet/jagged.h), one launch
 * of kernels/jagged.comp that moves a jagged tensor's rows to or from their
 * places in a padded tensor as words: the widest of 16, 8, 4, 2 or 1 bytes
 * that divides a row and both addresses. */
#include <stdio.h>
#include <string.h>

#include "engine/engine.h"
#include "params/jagged.h"
#include "russet/jagged.h"

typedef struct jagged_push { RS_JAGGED_PUSH } jagged_push;

rs_status rs_jagged_copy_run(rs_stream *s, const rs_jagged_copy *p) {
    static const char op[] = "jagged_copy";
    if (!s || !p) return rs_error(RS_ERR_INVALID, "%s: missing arguments", op);
    const char *name = p->direction == RS_JAGGED_FROM_PADDED ? "_padded_dense_to_jagged_forward"
                                                               : "_jagged_to_padded_dense_forward";
    if (p->direction != RS_JAGGED_TO_PADDED && p->direction != RS_JAGGED_FROM_PADDED)
        return rs_error(RS_ERR_INVALID, "%s: unknown direction %d", op, (int)p->direction);
    const rs_tensor *v = &p->values, *d = &p->padded, *o = &p->offsets;
    if (v->ndim < 1 || d->ndim != v->ndim + 1)
        return rs_error(RS_ERR_INVALID, "%s: values need 1 dim or more and padded one more (got %d and %d)", name,
                        v->ndim, d->ndim);
    if (v->dtype != d->dtype)
        return rs_error(RS_ERR_INVALID, "%s: values are %s, padded %s", name, rs_dtype_name(v->dtype),
                        rs_dtype_name(d->dtype));
    if (o->dtype != RS_INT64 || o->ndim != 1 || o->sizes[0] < 1)
        return rs_error(RS_ERR_INVALID, "%s: offsets must be 1-d int64 with B + 1 >= 1 entries", name);
    if (d->sizes[0] != o->sizes[0] - 1)
        return rs_error(RS_ERR_INVALID, "%s: padded has %lld items, offsets %lld entries (B + 1)", name,
                        (long long)d->sizes[0], (long long)o->sizes[0]);
    for (int k = 1; k < v->ndim; ++k)
        if (v->sizes[k] != d->sizes[k + 1])
            return rs_error(RS_ERR_INVALID, "%s: values and padded differ in dim %d past the rows", name, k);
    if (!rs_tensor_is_contiguous(v) || !rs_tensor_is_contiguous(d) || !rs_tensor_is_contiguous(o))
        return rs_error(RS_ERR_INVALID, "%s: values, padded and offsets must be contiguous", name);
    uint64_t row = rs_dtype_size(v->dtype);
    for (int k = 1; k < v->ndim; ++k) row *= (uint64_t)v->sizes[k];
    const int64_t total = v->sizes[0], B = d->sizes[0], L = d->sizes[1];
    if (row == 0 || (total == 0 && p->direction == RS_JAGGED_TO_PADDED)) return RS_OK;
    uint64_t wb = 16;
    while (row % wb || v->address % wb || d->address % wb) wb /= 2;
    rs_device *dev = rs_stream_device(s);
    jagged_push pc;
    memset(&pc, 0, sizeof pc);
    pc.values = v->address, pc.padded = d->address, pc.offsets = o->address;
    pc.err = rs_device_error_address(dev);
    pc.site = rs_device_error_site(dev, name);
    pc.total = total, pc.batch = B, pc.item_rows = L, pc.row_words = (int64_t)(row / wb);
    pc.from_padded = p->direction == RS_JAGGED_FROM_PADDED;
    char defines[16];
    snprintf(defines, sizeof defines, "WB=%u", (unsigned)wb);
    rs_kernel *k = NULL;
    rs_status st = rs_kernel_get(dev, "jagged.comp", defines, &k);
    if (st) return st;
    rs_access acc[3] = {rs_tensor_access(v, pc.from_padded), rs_tensor_access(d, !pc.from_padded),
                        rs_tensor_access(o, 0)};
    /* at least one invocation: the check of offsets[B] against total */
    const uint64_t items = (uint64_t)total * (uint64_t)pc.row_words;
    return rs_launch(s, k, items ? items : 1, &pc, sizeof pc, acc, 3);
}
