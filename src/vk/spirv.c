/* What a SPIR-V module asks of the device that the driver would only
 * discover late or not at all: the bytes of workgroup (shared) memory its
 * variables take, its workgroup size and the capabilities it declares.
 * Under the apple profile the device allows 32 KiB of shared memory and
 * 1,024 invocations a workgroup and has no fp64 or 64-bit atomics, while
 * lavapipe and NVIDIA have more and run such a module anyway: a kernel past
 * the profile would pass here and fail on a Mac, so make_pipeline refuses
 * it on every device (kernel.c). */
#include <stdlib.h>
#include <string.h>

#include "vk/internal.h"

enum {
    OP_EXECUTION_MODE = 16,
    OP_CAPABILITY = 17,
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
    EM_LOCAL_SIZE = 17,
    EM_LOCAL_SIZE_ID = 38,
};

static uint64_t align_up(uint64_t v, uint64_t a) { return a ? (v + a - 1) / a * a : v; }

/* SPIR-V capability numbers -> RS_SPIRV_CAP_* bits, and their names */
static const struct {
    uint32_t cap, bit;
    const char *name;
} kCaps[] = {
    {9, RS_SPIRV_CAP_FLOAT16, "Float16"},
    {10, RS_SPIRV_CAP_FLOAT64, "Float64"},
    {11, RS_SPIRV_CAP_INT64, "Int64"},
    {12, RS_SPIRV_CAP_INT64_ATOMICS, "Int64Atomics"},
    {22, RS_SPIRV_CAP_INT16, "Int16"},
    {39, RS_SPIRV_CAP_INT8, "Int8"},
    {4433, RS_SPIRV_CAP_STORAGE16, "StorageBuffer16BitAccess"},
    {4448, RS_SPIRV_CAP_STORAGE8, "StorageBuffer8BitAccess"},
    {6033, RS_SPIRV_CAP_ATOMIC_F32_ADD, "AtomicFloat32AddEXT"},
    {6034, RS_SPIRV_CAP_ATOMIC_F64_ADD, "AtomicFloat64AddEXT"},
    {64, RS_SPIRV_CAP_BALLOT, "GroupNonUniformBallot"},
    {5357, RS_SPIRV_CAP_COOPMAT_NV, "CooperativeMatrixNV"},
    {6022, RS_SPIRV_CAP_COOPMAT_KHR, "CooperativeMatrixKHR"},
};
#define NCAPS (sizeof kCaps / sizeof kCaps[0])

const char *rs_spirv_cap_name(uint32_t bit) {
    for (size_t c = 0; c < NCAPS; c++)
        if (kCaps[c].bit == bit) return kCaps[c].name;
    return "?";
}

rs_status rs_spirv_inspect(const uint32_t *words, size_t nwords, rs_spirv_info *out) {
    memset(out, 0, sizeof *out);
    if (nwords < 5 || words[0] != 0x07230203u)
        return rs_error(RS_ERR_INVALID, "russet: not a SPIR-V module (%zu words)", nwords);
    uint32_t bound = words[3];
    if (bound == 0 || bound > (1u << 22)) return rs_error(RS_ERR_INVALID, "russet: SPIR-V id bound %u", bound);
    /* per id: the size and alignment of a type, a constant's value, and
     * for a pointer type its pointee */
    uint64_t *size = calloc(bound, sizeof *size), *align = calloc(bound, sizeof *align);
    uint64_t *value = calloc(bound, sizeof *value);
    uint32_t *ptr_to = calloc(bound, sizeof *ptr_to);
    rs_status st = RS_OK;
    if (!size || !align || !value || !ptr_to) {
        st = rs_error(RS_ERR_OOM, "russet: out of host memory");
        goto done;
    }
#define ID_OK(i) ((i) < bound)
    uint64_t total = 0;
    uint32_t local[3] = {1, 1, 1};
    int local_id = 0;
    for (size_t at = 5; at < nwords;) {
        uint32_t n = words[at] >> 16, op = words[at] & 0xFFFFu;
        if (n == 0 || at + n > nwords) {
            st = rs_error(RS_ERR_INVALID, "russet: malformed SPIR-V at word %zu", at);
            goto done;
        }
        const uint32_t *w = words + at;
        switch (op) {
        case OP_EXECUTION_MODE: /* the workgroup size (LocalSizeId: ids of constants, read at the end) */
            if (n >= 6 && (w[2] == EM_LOCAL_SIZE || w[2] == EM_LOCAL_SIZE_ID)) {
                local_id = w[2] == EM_LOCAL_SIZE_ID;
                local[0] = w[3], local[1] = w[4], local[2] = w[5];
            }
            break;
        case OP_CAPABILITY:
            for (size_t c = 0; n >= 2 && c < NCAPS; c++)
                if (kCaps[c].cap == w[1]) out->caps |= kCaps[c].bit;
            break;
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
            if (n >= 4 && ID_OK(w[1])) ptr_to[w[1]] = w[3];
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
    out->shared_bytes = total;
    out->invocations = 1;
    for (int d = 0; d < 3; d++) out->invocations *= local_id ? (ID_OK(local[d]) ? value[local[d]] : 0) : local[d];
#undef ID_OK
done:
    free(size), free(align), free(value), free(ptr_to);
    return st;
}

/* ---- exact math: what every kernel is compiled to compute as written.
 * - SignedZeroInfNanPreserve and DenormPreserve, for each float width the
 *   module declares, where the device offers them. Without them a driver may
 *   assume no NaN or infinity (MoltenVK then keeps Metal's fast math on) and
 *   flush denormals, as NVIDIA does in float32.
 * - NoContraction on every float add, subtract and multiply: a driver may
 *   otherwise fuse a * b + c into one rounding (NVIDIA does; lavapipe, where
 *   the kernels are checked bit for bit against CPU, does not). A kernel
 *   that wants a fused multiply-add says fma() (the GEMM kernels do). */
enum {
    OP_ENTRY_POINT = 15,
    OP_DECORATE = 71,
    OP_EXECUTION_MODE_ID = 331,
    CAP_DENORM_PRESERVE = 4464,
    CAP_SIGNED_ZERO_INF_NAN_PRESERVE = 4466,
    EM_DENORM_PRESERVE = 4459,
    EM_SIGNED_ZERO_INF_NAN_PRESERVE = 4461,
    DEC_NO_CONTRACTION = 42,
};

static uint32_t width_bit(uint32_t bits) {
    return bits == 16 ? RS_WIDTH_16 : bits == 32 ? RS_WIDTH_32 : bits == 64 ? RS_WIDTH_64 : 0;
}

/* the instructions of the sections before the types: capabilities,
 * extensions, imports, the memory model, entry points, execution modes,
 * debug information and annotations */
static int is_preamble(uint32_t op) {
    return op == 17 || op == 10 || op == 11 || op == 14 || op == 15 || op == 16 || op == 331 ||
           (op >= 2 && op <= 7) || op == 330 || (op >= 71 && op <= 75) || op == 332 || op == 5632 || op == 5633;
}

/* a float operation whose two roundings a driver may fuse: OpFAdd, OpFSub,
 * OpFMul, OpVectorTimesScalar ... OpDot */
static int is_contractible(uint32_t op) {
    return op == 129 || op == 131 || op == 133 || (op >= 142 && op <= 148);
}

rs_status rs_spirv_exact_math(const uint32_t *words, size_t nwords, uint32_t infnan, uint32_t denorm,
                              int no_contraction, uint32_t **out, size_t *out_words) {
    *out = NULL;
    *out_words = 0;
    if (nwords < 5 || words[0] != 0x07230203u)
        return rs_error(RS_ERR_INVALID, "russet: not a SPIR-V module (%zu words)", nwords);
    if (words[1] < 0x00010400u) return RS_OK; /* float controls are core from SPIR-V 1.4 */
    uint32_t bound = words[3];
    if (bound == 0 || bound > (1u << 22)) return rs_error(RS_ERR_INVALID, "russet: SPIR-V id bound %u", bound);
    /* 1: a result to decorate; 2: decorated already */
    uint8_t *mark = no_contraction ? calloc(bound, 1) : NULL;
    if (no_contraction && !mark) return rs_error(RS_ERR_OOM, "russet: out of host memory");
    size_t caps_end = 5, modes_end = 0, decl_at = 0, ndec = 0;
    uint32_t entry = 0, widths = 0, have_denorm = 0, have_infnan = 0, entries = 0;
    for (size_t at = 5; at < nwords;) {
        uint32_t n = words[at] >> 16, op = words[at] & 0xFFFFu;
        if (n == 0 || at + n > nwords) {
            free(mark);
            return rs_error(RS_ERR_INVALID, "russet: malformed SPIR-V at word %zu", at);
        }
        const uint32_t *w = words + at;
        if (!decl_at && !is_preamble(op)) decl_at = at;
        if (op == OP_CAPABILITY && n >= 2) {
            caps_end = at + n;
            have_denorm |= w[1] == CAP_DENORM_PRESERVE;
            have_infnan |= w[1] == CAP_SIGNED_ZERO_INF_NAN_PRESERVE;
        } else if (op == OP_ENTRY_POINT && n >= 3) {
            entry = w[2];
            entries++;
        } else if (op == OP_EXECUTION_MODE || op == OP_EXECUTION_MODE_ID) {
            modes_end = at + n;
        } else if (op == OP_TYPE_FLOAT && n >= 3) {
            widths |= width_bit(w[2]);
        } else if (mark && op == OP_DECORATE && n >= 3 && w[2] == DEC_NO_CONTRACTION && w[1] < bound) {
            ndec -= mark[w[1]] == 1;
            mark[w[1]] = 2;
        } else if (mark && is_contractible(op) && n >= 3 && w[2] < bound && !mark[w[2]]) {
            mark[w[2]] = 1;
            ndec++;
        }
        at += n;
    }
    /* a module that already says (a precompiled one) is left as it is */
    infnan = have_infnan ? 0 : infnan & widths;
    denorm = have_denorm ? 0 : denorm & widths;
    if (entries != 1 || !modes_end || !decl_at) infnan = denorm = 0, ndec = 0;
    if (!infnan && !denorm && !ndec) {
        free(mark);
        return RS_OK;
    }
    int ni = __builtin_popcount(infnan), nd = __builtin_popcount(denorm);
    size_t add = (size_t)(ni ? 2 : 0) + (nd ? 2 : 0) + 4u * (size_t)(ni + nd) + 3u * ndec;
    uint32_t *o = malloc((nwords + add) * sizeof *o);
    if (!o) {
        free(mark);
        return rs_error(RS_ERR_OOM, "russet: out of host memory");
    }
    size_t k = 0;
#define COPY_TO(end)                                                   \
    do {                                                               \
        memcpy(o + k, words + (k - added), ((end) - (k - added)) * 4); \
        k += (end) - (k - added);                                      \
    } while (0)
    size_t added = 0; /* words inserted so far: the input is at k - added */
    COPY_TO(caps_end);
    if (ni) o[k++] = 2u << 16 | OP_CAPABILITY, o[k++] = CAP_SIGNED_ZERO_INF_NAN_PRESERVE, added += 2;
    if (nd) o[k++] = 2u << 16 | OP_CAPABILITY, o[k++] = CAP_DENORM_PRESERVE, added += 2;
    COPY_TO(modes_end);
    static const uint32_t bits[3] = {16, 32, 64};
    for (int b = 0; b < 3; b++) {
        if (infnan & width_bit(bits[b]))
            o[k++] = 4u << 16 | OP_EXECUTION_MODE, o[k++] = entry, o[k++] = EM_SIGNED_ZERO_INF_NAN_PRESERVE,
            o[k++] = bits[b], added += 4;
        if (denorm & width_bit(bits[b]))
            o[k++] = 4u << 16 | OP_EXECUTION_MODE, o[k++] = entry, o[k++] = EM_DENORM_PRESERVE, o[k++] = bits[b],
            added += 4;
    }
    COPY_TO(decl_at);
    for (uint32_t id = 0; ndec && id < bound; id++)
        if (mark[id] == 1) o[k++] = 3u << 16 | OP_DECORATE, o[k++] = id, o[k++] = DEC_NO_CONTRACTION, added += 3;
    COPY_TO(nwords);
#undef COPY_TO
    free(mark);
    *out = o;
    *out_words = k;
    return RS_OK;
}
