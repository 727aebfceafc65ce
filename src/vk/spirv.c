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
 *   that wants a fused multiply-add says fma() (the GEMM kernels do).
 * - Float32 division rounded once: Vulkan lets x / y be off by 2.5 ulp, and
 *   NVIDIA's is (a reciprocal, then a multiply). Each float32 OpFDiv q0 = a / b
 *   becomes q0 + fma(-q0, b, a) / b (the residual is exact, the correction
 *   tiny), kept only where q0 is finite and not zero (infinities, NaN and
 *   signed zeros come from q0 as they are). */
enum {
    OP_EXT_INST_IMPORT = 11,
    OP_EXT_INST = 12,
    OP_MEMORY_MODEL = 14,
    OP_ENTRY_POINT = 15,
    OP_CONSTANT_COMPOSITE = 44,
    OP_FUNCTION = 54,
    OP_DECORATE = 71,
    OP_FNEGATE = 127,
    OP_FADD = 129,
    OP_FDIV = 136,
    OP_LOGICAL_AND = 167,
    OP_SELECT = 169,
    OP_FORD_NOT_EQUAL = 182,
    OP_FORD_LESS_THAN = 184,
    OP_EXECUTION_MODE_ID = 331,
    CAP_DENORM_PRESERVE = 4464,
    CAP_SIGNED_ZERO_INF_NAN_PRESERVE = 4466,
    EM_DENORM_PRESERVE = 4459,
    EM_SIGNED_ZERO_INF_NAN_PRESERVE = 4461,
    DEC_NO_CONTRACTION = 42,
    GLSL_FABS = 4,
    GLSL_FMA = 50,
    MAX_VEC = 4, /* float32 types: [0] the scalar, [2..4] vectors */
    DIV_IDS = 9, /* new ids a division takes */
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

/* the output under construction */
typedef struct {
    uint32_t *w;
    size_t n, cap;
    int oom;
} spv_out;

static void put(spv_out *o, const uint32_t *src, size_t n) {
    if (o->oom) return;
    if (o->n + n > o->cap) {
        size_t cap = (o->cap + n) * 2;
        uint32_t *w = realloc(o->w, cap * sizeof *w);
        if (!w) {
            o->oom = 1;
            return;
        }
        o->w = w, o->cap = cap;
    }
    memcpy(o->w + o->n, src, n * sizeof *src);
    o->n += n;
}
#define PUT(o, ...)                                          \
    do {                                                     \
        const uint32_t w_[] = {__VA_ARGS__};                 \
        put((o), w_, sizeof w_ / sizeof w_[0]);              \
    } while (0)
#define INSTR(op, n) ((uint32_t)(n) << 16 | (uint32_t)(op))

/* what the module holds that the rewriting needs, from one pass over it */
typedef struct {
    size_t caps_end, modes_end, decl_at, funcs_at, memory_model_at;
    uint32_t entry, entries, widths, have_denorm, have_infnan;
    uint32_t glsl;             /* the GLSL.std.450 import, 0 if none */
    uint32_t f32[MAX_VEC + 1]; /* float32 scalar and vector types */
    uint32_t bool_[MAX_VEC + 1];
    size_t ndiv, ndec;
    uint8_t *mark; /* per id: 1 a result to decorate NoContraction, 2 decorated already */
} spv_scan;

static int f32_slot(const spv_scan *sc, uint32_t type) {
    for (int c = 0; c <= MAX_VEC; c++)
        if (sc->f32[c] && sc->f32[c] == type) return c;
    return -1;
}

static rs_status scan_module(const uint32_t *words, size_t nwords, int no_contraction, int exact_div,
                             spv_scan *sc) {
    uint32_t bound = words[3];
    if (no_contraction && !(sc->mark = calloc(bound, 1))) return rs_error(RS_ERR_OOM, "russet: out of host memory");
    sc->caps_end = 5;
    for (size_t at = 5; at < nwords;) {
        uint32_t n = words[at] >> 16, op = words[at] & 0xFFFFu;
        if (n == 0 || at + n > nwords) return rs_error(RS_ERR_INVALID, "russet: malformed SPIR-V at word %zu", at);
        const uint32_t *w = words + at;
        if (!sc->decl_at && !is_preamble(op)) sc->decl_at = at;
        if (op == OP_CAPABILITY && n >= 2) {
            sc->caps_end = at + n;
            sc->have_denorm |= w[1] == CAP_DENORM_PRESERVE;
            sc->have_infnan |= w[1] == CAP_SIGNED_ZERO_INF_NAN_PRESERVE;
        } else if (op == OP_EXT_INST_IMPORT && n >= 3 && (n - 2) * 4 >= 13 &&
                   memcmp(w + 2, "GLSL.std.450", 13) == 0) {
            sc->glsl = w[1];
        } else if (op == OP_MEMORY_MODEL) {
            sc->memory_model_at = at;
        } else if (op == OP_ENTRY_POINT && n >= 3) {
            sc->entry = w[2];
            sc->entries++;
        } else if (op == OP_EXECUTION_MODE || op == OP_EXECUTION_MODE_ID) {
            sc->modes_end = at + n;
        } else if (op == OP_TYPE_FLOAT && n >= 3) {
            sc->widths |= width_bit(w[2]);
            if (w[2] == 32) sc->f32[0] = w[1];
        } else if (op == OP_TYPE_BOOL && n >= 2) {
            sc->bool_[0] = w[1];
        } else if (op == OP_TYPE_VECTOR && n >= 4 && w[3] >= 2 && w[3] <= MAX_VEC) {
            if (sc->f32[0] && w[2] == sc->f32[0]) sc->f32[w[3]] = w[1];
            if (sc->bool_[0] && w[2] == sc->bool_[0]) sc->bool_[w[3]] = w[1];
        } else if (op == OP_FUNCTION && !sc->funcs_at) {
            sc->funcs_at = at;
        } else if (sc->mark && op == OP_DECORATE && n >= 3 && w[2] == DEC_NO_CONTRACTION && w[1] < bound) {
            sc->ndec -= sc->mark[w[1]] == 1;
            sc->mark[w[1]] = 2;
        } else if (sc->mark && is_contractible(op) && n >= 3 && w[2] < bound && !sc->mark[w[2]]) {
            sc->mark[w[2]] = 1;
            sc->ndec++;
        } else if (exact_div && op == OP_FDIV && n == 5 && f32_slot(sc, w[1]) >= 0) {
            sc->ndiv++;
        }
        at += n;
    }
    return RS_OK;
}

rs_status rs_spirv_exact_math(const uint32_t *words, size_t nwords, uint32_t infnan, uint32_t denorm,
                              int no_contraction, int exact_div, uint32_t **out, size_t *out_words) {
    *out = NULL;
    *out_words = 0;
    if (nwords < 5 || words[0] != 0x07230203u)
        return rs_error(RS_ERR_INVALID, "russet: not a SPIR-V module (%zu words)", nwords);
    if (words[1] < 0x00010400u) return RS_OK; /* float controls are core from SPIR-V 1.4 */
    uint32_t bound = words[3];
    if (bound == 0 || bound > (1u << 22)) return rs_error(RS_ERR_INVALID, "russet: SPIR-V id bound %u", bound);
    spv_scan sc = {0};
    rs_status st = scan_module(words, nwords, no_contraction, exact_div, &sc);
    if (st) {
        free(sc.mark);
        return st;
    }
    /* a module that already says (a precompiled one) is left as it is */
    infnan = sc.have_infnan ? 0 : infnan & sc.widths;
    denorm = sc.have_denorm ? 0 : denorm & sc.widths;
    if (sc.entries != 1 || !sc.modes_end || !sc.decl_at || !sc.memory_model_at) infnan = denorm = 0, sc.ndec = 0;
    if (!sc.funcs_at || !sc.memory_model_at) sc.ndiv = 0;
    if (!infnan && !denorm && !sc.ndec && !sc.ndiv) {
        free(sc.mark);
        return RS_OK;
    }
    /* new ids: the import, bool types, per float32 type used by a division
     * its zero and infinity constants, then DIV_IDS per division */
    uint32_t next = bound;
    uint32_t glsl = sc.glsl, zero[MAX_VEC + 1] = {0}, inf[MAX_VEC + 1] = {0}, new_bool[MAX_VEC + 1] = {0};
    uint32_t div_base = 0;
    if (sc.ndiv) {
        if (!glsl) glsl = next++;
        for (int c = 0; c <= MAX_VEC; c++) {
            if (c == 1 || !sc.f32[c]) continue;
            if (!sc.bool_[0]) sc.bool_[0] = new_bool[0] = next++;
            if (c && !sc.bool_[c]) sc.bool_[c] = new_bool[c] = next++;
            zero[c] = next++, inf[c] = next++;
        }
        div_base = next;
        next += (uint32_t)(DIV_IDS * sc.ndiv);
    }
    spv_out o = {0};
    size_t from = 0; /* input words [0, from) are copied */
#define COPY_TO(end) (put(&o, words + from, (end) - from), from = (end))
    COPY_TO(sc.caps_end);
    if (infnan) PUT(&o, INSTR(OP_CAPABILITY, 2), CAP_SIGNED_ZERO_INF_NAN_PRESERVE);
    if (denorm) PUT(&o, INSTR(OP_CAPABILITY, 2), CAP_DENORM_PRESERVE);
    if (sc.ndiv && !sc.glsl) {
        COPY_TO(sc.memory_model_at);
        /* OpExtInstImport %glsl "GLSL.std.450" */
        PUT(&o, INSTR(OP_EXT_INST_IMPORT, 2 + 4), glsl, 0x4c534c47u, 0x6474732eu, 0x3035342eu, 0);
    }
    COPY_TO(sc.modes_end);
    static const uint32_t bits[3] = {16, 32, 64};
    for (int b = 0; b < 3; b++) {
        if (infnan & width_bit(bits[b]))
            PUT(&o, INSTR(OP_EXECUTION_MODE, 4), sc.entry, EM_SIGNED_ZERO_INF_NAN_PRESERVE, bits[b]);
        if (denorm & width_bit(bits[b])) PUT(&o, INSTR(OP_EXECUTION_MODE, 4), sc.entry, EM_DENORM_PRESERVE, bits[b]);
    }
    COPY_TO(sc.decl_at);
    for (uint32_t id = 0; sc.ndec && id < bound; id++)
        if (sc.mark[id] == 1) PUT(&o, INSTR(OP_DECORATE, 3), id, DEC_NO_CONTRACTION);
    for (size_t d = 0; no_contraction && d < sc.ndiv; d++) /* each division's q0 + correction */
        PUT(&o, INSTR(OP_DECORATE, 3), div_base + (uint32_t)(DIV_IDS * d) + 4, DEC_NO_CONTRACTION);
    if (sc.ndiv) {
        COPY_TO(sc.funcs_at);
        if (new_bool[0]) PUT(&o, INSTR(OP_TYPE_BOOL, 2), new_bool[0]);
        for (int c = 0; c <= MAX_VEC; c++) {
            if (!zero[c]) continue;
            if (c && new_bool[c]) PUT(&o, INSTR(OP_TYPE_VECTOR, 4), new_bool[c], sc.bool_[0], (uint32_t)c);
            if (!c) {
                PUT(&o, INSTR(OP_CONSTANT, 4), sc.f32[0], zero[0], 0u);
                PUT(&o, INSTR(OP_CONSTANT, 4), sc.f32[0], inf[0], 0x7f800000u);
            } else {
                uint32_t zc[3 + MAX_VEC], ic[3 + MAX_VEC];
                zc[0] = ic[0] = INSTR(OP_CONSTANT_COMPOSITE, 3 + c);
                zc[1] = ic[1] = sc.f32[c];
                zc[2] = zero[c], ic[2] = inf[c];
                for (int k = 0; k < c; k++) zc[3 + k] = zero[0], ic[3 + k] = inf[0];
                put(&o, zc, 3 + (size_t)c);
                put(&o, ic, 3 + (size_t)c);
            }
        }
        /* the scalar constants the vector ones are made of come first */
        if (!zero[0] && (zero[2] || zero[3] || zero[4])) {
            free(o.w);
            free(sc.mark);
            return rs_error(RS_ERR_INVALID, "russet: SPIR-V float32 vectors without the scalar type");
        }
    }
    /* the divisions */
    size_t d = 0;
    for (size_t at = from; sc.ndiv && at < nwords;) {
        uint32_t n = words[at] >> 16, op = words[at] & 0xFFFFu;
        const uint32_t *w = words + at;
        int c = op == OP_FDIV && n == 5 ? f32_slot(&sc, w[1]) : -1;
        if (c >= 0) {
            COPY_TO(at);
            uint32_t T = w[1], r = w[2], a = w[3], b = w[4], B = sc.bool_[c];
            uint32_t q0 = div_base + (uint32_t)(DIV_IDS * d), nq = q0 + 1, res = q0 + 2, cor = q0 + 3, q1 = q0 + 4,
                     aq = q0 + 5, fin = q0 + 6, nz = q0 + 7, ok = q0 + 8;
            PUT(&o, INSTR(OP_FDIV, 5), T, q0, a, b);
            PUT(&o, INSTR(OP_FNEGATE, 4), T, nq, q0);
            PUT(&o, INSTR(OP_EXT_INST, 8), T, res, glsl, GLSL_FMA, nq, b, a);
            PUT(&o, INSTR(OP_FDIV, 5), T, cor, res, b);
            PUT(&o, INSTR(OP_FADD, 5), T, q1, q0, cor);
            PUT(&o, INSTR(OP_EXT_INST, 6), T, aq, glsl, GLSL_FABS, q0);
            PUT(&o, INSTR(OP_FORD_LESS_THAN, 5), B, fin, aq, inf[c]);
            PUT(&o, INSTR(OP_FORD_NOT_EQUAL, 5), B, nz, q0, zero[c]);
            PUT(&o, INSTR(OP_LOGICAL_AND, 5), B, ok, fin, nz);
            PUT(&o, INSTR(OP_SELECT, 6), T, r, ok, q1, q0);
            from = at + n;
            d++;
        }
        at += n;
    }
    COPY_TO(nwords);
#undef COPY_TO
    free(sc.mark);
    if (o.oom) {
        free(o.w);
        return rs_error(RS_ERR_OOM, "russet: out of host memory");
    }
    o.w[3] = next; /* the id bound */
    *out = o.w;
    *out_words = o.n;
    return RS_OK;
}
