/* What a SPIR-V module asks of the device that the driver would only
 * discover late or not at all: for now the bytes of workgroup (shared)
 * memory its variables take. Under the apple profile the device allows 32
 * KiB (Apple GPUs' threadgroup memory) while lavapipe and NVIDIA allow more,
 * so a kernel over the limit would run here and fail on a Mac: make_pipeline
 * refuses it on every device (kernel.c). */
#include <stdlib.h>
#include <string.h>

#include "vk/internal.h"

enum {
    OP_TYPE_BOOL = 20,
    OP_TYPE_INT = 21,
    OP_TYPE_FLOAT = 22,
    OP_TYPE_VECTOR = 23,
    OP_TYPE_MATRIX = 24,
    OP_TYPE_ARRAY = 28,
    OP_TYPE_STRUCT = 30,
    OP_TYPE_POINTER = 32,
    OP_CONSTANT = 43,
    OP_SPEC_CONSTANT = 50,
    OP_VARIABLE = 59,
    SC_WORKGROUP = 4,
};

static uint64_t align_up(uint64_t v, uint64_t a) { return a ? (v + a - 1) / a * a : v; }

rs_status rs_spirv_shared_bytes(const uint32_t *words, size_t nwords, uint64_t *out) {
    *out = 0;
    if (nwords < 5 || words[0] != 0x07230203u)
        return rs_error(RS_ERR_INVALID, "russet: not a SPIR-V module (%zu words)", nwords);
    uint32_t bound = words[3];
    if (bound == 0 || bound > (1u << 22)) return rs_error(RS_ERR_INVALID, "russet: SPIR-V id bound %u", bound);
    /* per id: the size and alignment of a type, a constant's value, and
     * for a pointer type its storage class and pointee */
    uint64_t *size = calloc(bound, sizeof *size), *align = calloc(bound, sizeof *align);
    uint64_t *value = calloc(bound, sizeof *value);
    uint32_t *ptr_sc = calloc(bound, sizeof *ptr_sc), *ptr_to = calloc(bound, sizeof *ptr_to);
    rs_status st = RS_OK;
    if (!size || !align || !value || !ptr_sc || !ptr_to) {
        st = rs_error(RS_ERR_OOM, "russet: out of host memory");
        goto done;
    }
#define ID_OK(i) ((i) < bound)
    uint64_t total = 0;
    for (size_t at = 5; at < nwords;) {
        uint32_t n = words[at] >> 16, op = words[at] & 0xFFFFu;
        if (n == 0 || at + n > nwords) {
            st = rs_error(RS_ERR_INVALID, "russet: malformed SPIR-V at word %zu", at);
            goto done;
        }
        const uint32_t *w = words + at;
        switch (op) {
        case OP_TYPE_BOOL:
            if (n >= 2 && ID_OK(w[1])) size[w[1]] = align[w[1]] = 4;
            break;
        case OP_TYPE_INT:
        case OP_TYPE_FLOAT:
            if (n >= 3 && ID_OK(w[1])) size[w[1]] = align[w[1]] = w[2] / 8;
            break;
        case OP_TYPE_VECTOR: /* a 3-vector takes 4 slots, as in std430 and Metal */
            if (n >= 4 && ID_OK(w[1]) && ID_OK(w[2])) {
                uint32_t c = w[3] == 3 ? 4 : w[3];
                size[w[1]] = align[w[1]] = size[w[2]] * c;
            }
            break;
        case OP_TYPE_MATRIX:
            if (n >= 4 && ID_OK(w[1]) && ID_OK(w[2])) {
                size[w[1]] = size[w[2]] * w[3];
                align[w[1]] = align[w[2]];
            }
            break;
        case OP_TYPE_ARRAY:
            if (n >= 4 && ID_OK(w[1]) && ID_OK(w[2]) && ID_OK(w[3])) {
                size[w[1]] = align_up(size[w[2]], align[w[2]]) * value[w[3]];
                align[w[1]] = align[w[2]];
            }
            break;
        case OP_TYPE_STRUCT:
            if (n >= 2 && ID_OK(w[1])) {
                uint64_t s = 0, a = 1;
                for (uint32_t m = 2; m < n; m++) {
                    if (!ID_OK(w[m])) continue;
                    s = align_up(s, align[w[m]]) + size[w[m]];
                    if (align[w[m]] > a) a = align[w[m]];
                }
                size[w[1]] = align_up(s, a);
                align[w[1]] = a;
            }
            break;
        case OP_TYPE_POINTER:
            if (n >= 4 && ID_OK(w[1])) ptr_sc[w[1]] = w[2], ptr_to[w[1]] = w[3];
            break;
        case OP_CONSTANT:
        case OP_SPEC_CONSTANT: /* the value (its default, for a spec constant): array lengths */
            if (n >= 4 && ID_OK(w[2])) value[w[2]] = w[3] | (n >= 5 ? (uint64_t)w[4] << 32 : 0);
            break;
        case OP_VARIABLE:
            if (n >= 4 && w[3] == SC_WORKGROUP && ID_OK(w[1]) && ID_OK(ptr_to[w[1]]))
                total = align_up(total, 16) + size[ptr_to[w[1]]];
            break;
        default:
            break;
        }
        at += n;
    }
#undef ID_OK
    *out = total;
done:
    free(size), free(align), free(value), free(ptr_sc), free(ptr_to);
    return st;
}
