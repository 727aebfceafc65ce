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

/* The header: the magic number and an id bound that per-id tables can take. */
static rs_status check_header(const uint32_t *words, size_t nwords) {
    if (nwords < 5 || words[0] != 0x07230203u)
        return rs_error(RS_ERR_INVALID, "russet: not a SPIR-V module (%zu words)", nwords);
    if (words[3] == 0 || words[3] > (1u << 22))
        return rs_error(RS_ERR_INVALID, "russet: SPIR-V id bound %u", words[3]);
    return RS_OK;
}

rs_status rs_spirv_inspect(const uint32_t *words, size_t nwords, rs_spirv_info *out) {
    memset(out, 0, sizeof *out);
    rs_status hs = check_header(words, nwords);
    if (hs) return hs;
    uint32_t bound = words[3];
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
 * - Float32 division rounded once, where the device's is not (a check when
 *   the device is made, device_checks.c): Vulkan lets x / y be off by 2.5
 *   ulp, and NVIDIA's is. Each float32 OpFDiv q0 = a / b becomes
 *   q0 + (a - q0 b) / b, the residual a - q0 b computed exactly from q0 b
 *   split into two floats (Dekker's product: adds and multiplies only, which
 *   Vulkan rounds correctly, kept apart by NoContraction; a fused fma() is
 *   not required). Dekker's partial products must be normal floats, so the
 *   correction runs on the operands' mantissas (frexp: both in [0.5, 1),
 *   their quotient in (0.5, 2)) and ldexp puts the exponent back, which is
 *   exact for a normal or overflowing quotient. It is kept where a and b are
 *   finite normal floats and the result is not a denormal; elsewhere
 *   (infinities, NaN, zeros, denormals) q0 is the result. The guard must
 *   not read q0: NVIDIA's q0 is a reciprocal times a, and the reciprocal of
 *   a b above 2^126 is a denormal it flushes, so q0 is 0 where the quotient
 *   is a normal float. */
enum {
    OP_EXT_INST_IMPORT = 11,
    OP_EXT_INST = 12,
    OP_MEMORY_MODEL = 14,
    OP_ENTRY_POINT = 15,
    OP_CONSTANT_COMPOSITE = 44,
    OP_LOAD = 61,
    OP_COMPOSITE_EXTRACT = 81,
    OP_BITCAST = 124,
    OP_IEQUAL = 170,
    OP_BITWISE_XOR = 198,
    OP_LABEL = 248,
    DEC_BUILTIN = 11,
    BUILTIN_NUM_WORKGROUPS = 24,
    OP_FUNCTION = 54,
    OP_DECORATE = 71,
    OP_FADD = 129,
    OP_ISUB = 130,
    OP_FSUB = 131,
    OP_IMUL = 132,
    OP_FMUL = 133,
    OP_FDIV = 136,
    OP_LOGICAL_AND = 167,
    OP_SELECT = 169,
    OP_FORD_LESS_THAN = 184,
    OP_FORD_GREATER_THAN = 186,
    OP_FORD_GREATER_THAN_EQUAL = 190,
    OP_EXECUTION_MODE_ID = 331,
    CAP_DENORM_PRESERVE = 4464,
    CAP_SIGNED_ZERO_INF_NAN_PRESERVE = 4466,
    EM_DENORM_PRESERVE = 4459,
    EM_SIGNED_ZERO_INF_NAN_PRESERVE = 4461,
    DEC_NO_CONTRACTION = 42,
    GLSL_FABS = 4,
    GLSL_FREXP_STRUCT = 52,
    GLSL_LDEXP = 53,
    MAX_VEC = 4, /* float32 types: [0] the scalar, [2..4] vectors */
    NCONST = 3,  /* the division's constants (kDivConst) */
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
    return op == OP_FADD || op == OP_FSUB || op == OP_FMUL || (op >= 142 && op <= 148);
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
    uint32_t i32[MAX_VEC + 1]; /* signed 32-bit integer scalar and vector types */
    uint32_t u32;              /* the unsigned 32-bit integer type */
    uint32_t nwg_var;          /* the NumWorkGroups built-in variable, 0 if none */
    size_t ndiv, ndec;
    size_t nprod, nfunc;       /* opaque products: float32 scalar multiplies; functions */
    uint32_t *prod;            /* per id: the product's new id (opaque products), else 0 */
    uint8_t *mark; /* per id: 1 a result to decorate NoContraction, 2 decorated already */
} spv_scan;

static int f32_slot(const spv_scan *sc, uint32_t type) {
    for (int c = 0; c <= MAX_VEC; c++)
        if (sc->f32[c] && sc->f32[c] == type) return c;
    return -1;
}

static rs_status scan_module(const uint32_t *words, size_t nwords, int contraction, int exact_div,
                             spv_scan *sc) {
    uint32_t bound = words[3];
    if (contraction && !(sc->mark = calloc(bound, 1))) return rs_error(RS_ERR_OOM, "russet: out of host memory");
    if (contraction == RS_CONTRACT_OPAQUE && !(sc->prod = calloc(bound, sizeof *sc->prod)))
        return rs_error(RS_ERR_OOM, "russet: out of host memory");
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
        } else if (op == OP_TYPE_INT && n >= 4 && w[2] == 32 && w[3] == 1) {
            sc->i32[0] = w[1];
        } else if (op == OP_TYPE_INT && n >= 4 && w[2] == 32 && w[3] == 0) {
            sc->u32 = w[1];
        } else if (op == OP_TYPE_VECTOR && n >= 4 && w[3] >= 2 && w[3] <= MAX_VEC) {
            if (sc->f32[0] && w[2] == sc->f32[0]) sc->f32[w[3]] = w[1];
            if (sc->bool_[0] && w[2] == sc->bool_[0]) sc->bool_[w[3]] = w[1];
            if (sc->i32[0] && w[2] == sc->i32[0]) sc->i32[w[3]] = w[1];
        } else if (op == OP_FUNCTION) {
            if (!sc->funcs_at) sc->funcs_at = at;
            sc->nfunc++;
        } else if (op == OP_DECORATE && n >= 4 && w[2] == DEC_BUILTIN && w[3] == BUILTIN_NUM_WORKGROUPS) {
            sc->nwg_var = w[1];
        } else if (sc->mark && op == OP_DECORATE && n >= 3 && w[2] == DEC_NO_CONTRACTION && w[1] < bound) {
            sc->ndec -= sc->mark[w[1]] == 1;
            sc->mark[w[1]] = 2;
        } else if (sc->mark && is_contractible(op) && n >= 3 && w[2] < bound && !sc->mark[w[2]]) {
            sc->mark[w[2]] = 1;
            sc->ndec++;
        } else if (exact_div && op == OP_FDIV && n == 5 && f32_slot(sc, w[1]) >= 0) {
            sc->ndiv++;
        }
        if (sc->prod && op == OP_FMUL && n == 5 && sc->f32[0] && w[1] == sc->f32[0] && w[2] < bound &&
            !sc->prod[w[2]]) {
            sc->prod[w[2]] = 1;
            sc->nprod++;
        }
        at += n;
    }
    return RS_OK;
}

/* The division q = a / b rewritten (see above), one instruction a row:
 * the opcode, the result's type, and up to two operands: a division's
 * earlier results (>= 0, by row), or A, B, the constants; for a
 * composite extract, y is the member index. The last row is the guard; a
 * select of q1 or q0 into the original result id follows. */
enum { A = -1, B = -2, K_SPLIT = -3, K_MIN = -4, K_INF = -5 };
enum { FABS = 1000, FREXP, LDEXP };             /* GLSL.std.450 instructions */
enum { TY_F, TY_B, TY_I, TY_S };                /* float32 (the division's), bool, int32, frexp's struct */
static const uint32_t kDivConst[NCONST] = {
    0x45800800u, /* 4097 = 2^12 + 1: Veltkamp's split */
    0x00800000u, /* 2^-126, the smallest normal float */
    0x7f800000u, /* infinity */
};
static const struct {
    uint16_t op, type;
    int16_t x, y;
} kDivProg[] = {
    {OP_FDIV, TY_F, A, B},                 /* 0  q0 = a / b, the device's */
    {FREXP, TY_S, A, 0},                   /* 1  a = ma 2^ea */
    {OP_COMPOSITE_EXTRACT, TY_F, 1, 0},    /* 2  ma in [0.5, 1) */
    {OP_COMPOSITE_EXTRACT, TY_I, 1, 1},    /* 3  ea */
    {FREXP, TY_S, B, 0},                   /* 4  b = mb 2^eb */
    {OP_COMPOSITE_EXTRACT, TY_F, 4, 0},    /* 5  mb */
    {OP_COMPOSITE_EXTRACT, TY_I, 4, 1},    /* 6  eb */
    {OP_FDIV, TY_F, 2, 5},                 /* 7  r0 = ma / mb, in (0.5, 2) give or take */
    {OP_FMUL, TY_F, K_SPLIT, 7},           /* 8  split r0 */
    {OP_FSUB, TY_F, 8, 7},                 /* 9 */
    {OP_FSUB, TY_F, 8, 9},                 /* 10 rh */
    {OP_FSUB, TY_F, 7, 10},                /* 11 rl */
    {OP_FMUL, TY_F, K_SPLIT, 5},           /* 12 split mb */
    {OP_FSUB, TY_F, 12, 5},                /* 13 */
    {OP_FSUB, TY_F, 12, 13},               /* 14 bh */
    {OP_FSUB, TY_F, 5, 14},                /* 15 bl */
    {OP_FMUL, TY_F, 7, 5},                 /* 16 p = r0 mb, rounded */
    {OP_FMUL, TY_F, 10, 14},               /* 17 rh bh */
    {OP_FSUB, TY_F, 17, 16},               /* 18 */
    {OP_FMUL, TY_F, 10, 15},               /* 19 rh bl */
    {OP_FADD, TY_F, 18, 19},               /* 20 */
    {OP_FMUL, TY_F, 11, 14},               /* 21 rl bh */
    {OP_FADD, TY_F, 20, 21},               /* 22 */
    {OP_FMUL, TY_F, 11, 15},               /* 23 rl bl */
    {OP_FADD, TY_F, 22, 23},               /* 24 e: r0 mb = p + e exactly */
    {OP_FSUB, TY_F, 2, 16},                /* 25 ma - p, exact (Sterbenz) */
    {OP_FSUB, TY_F, 25, 24},               /* 26 the residual ma - r0 mb */
    {OP_FDIV, TY_F, 26, 5},                /* 27 the correction */
    {OP_FADD, TY_F, 7, 27},                /* 28 r1, ma / mb rounded once */
    {OP_ISUB, TY_I, 3, 6},                 /* 29 ea - eb */
    {LDEXP, TY_F, 28, 29},                 /* 30 q1 = r1 2^(ea - eb) (DIV_Q1) */
    {FABS, TY_F, A, 0},                    /* 31 |a| */
    {FABS, TY_F, B, 0},                    /* 32 |b| */
    {FABS, TY_F, 30, 0},                   /* 33 |q1| */
    {OP_FORD_GREATER_THAN_EQUAL, TY_B, 31, K_MIN}, /* 34 */
    {OP_FORD_LESS_THAN, TY_B, 31, K_INF},  /* 35 (false for NaN) */
    {OP_FORD_GREATER_THAN_EQUAL, TY_B, 32, K_MIN}, /* 36 */
    {OP_FORD_LESS_THAN, TY_B, 32, K_INF},  /* 37 */
    {OP_FORD_GREATER_THAN_EQUAL, TY_B, 33, K_MIN}, /* 38 a normal quotient */
    {OP_LOGICAL_AND, TY_B, 34, 35},        /* 39 */
    {OP_LOGICAL_AND, TY_B, 36, 37},        /* 40 */
    {OP_LOGICAL_AND, TY_B, 39, 40},        /* 41 */
    {OP_LOGICAL_AND, TY_B, 41, 38},        /* 42 ok */
};
#define DIV_IDS (sizeof kDivProg / sizeof kDivProg[0]) /* new ids a division takes */
#define DIV_Q1 30                                             /* kDivProg's row of q1 */

/* The instruction that defines `id`, whose result id is word `result_at`
 * of it (1 for types, 2 for typed values), or NULL. */
static const uint32_t *def_of(const uint32_t *words, size_t nwords, uint32_t id, int result_at) {
    for (size_t at = 5; id && at < nwords;) {
        uint32_t n = words[at] >> 16;
        if (n == 0) return NULL;
        if ((int)n > result_at && words[at + (size_t)result_at] == id) return words + at;
        at += n;
    }
    return NULL;
}

rs_status rs_spirv_exact_math(const uint32_t *words, size_t nwords, uint32_t infnan, uint32_t denorm,
                              int contraction, int exact_div, uint32_t **out, size_t *out_words) {
    *out = NULL;
    *out_words = 0;
    rs_status st = check_header(words, nwords);
    if (st) return st;
    if (words[1] < 0x00010400u) return RS_OK; /* float controls are core from SPIR-V 1.4 */
    uint32_t bound = words[3];
    spv_scan sc = {0};
    st = scan_module(words, nwords, contraction, exact_div, &sc);
    if (st) {
        free(sc.mark), free(sc.prod);
        return st;
    }
    /* opaque products need the NumWorkGroups variable and the unsigned int
     * type: each function's zero is (x * y == 0 ? 1 : 0) over its x and y,
     * which is 0 for every dispatch russet makes (the product wraps to 0
     * only past 2^32 workgroups) and which no compiler can fold, since the
     * spec's limits let x * y wrap. (An earlier form compared x with
     * 0xffffffff, above maxComputeWorkGroupCount: NVIDIA's compiler, which
     * knows that limit, folded it and fused the products anyway.) */
    uint32_t v3u = 0;
    if (sc.nprod) {
        const uint32_t *var = def_of(words, nwords, sc.nwg_var, 2);
        const uint32_t *ptr = var && (var[0] & 0xFFFFu) == OP_VARIABLE ? def_of(words, nwords, var[1], 1) : NULL;
        if (ptr && (ptr[0] & 0xFFFFu) == OP_TYPE_POINTER && (ptr[0] >> 16) >= 4) v3u = ptr[3];
        if (!v3u || !sc.u32 || !sc.funcs_at || !sc.mark) sc.nprod = 0;
    }
    /* a module that already says (a precompiled one) is left as it is */
    infnan = sc.have_infnan ? 0 : infnan & sc.widths;
    denorm = sc.have_denorm ? 0 : denorm & sc.widths;
    if (sc.entries != 1 || !sc.modes_end || !sc.decl_at || !sc.memory_model_at)
        infnan = denorm = 0, sc.ndec = 0, sc.nprod = 0;
    if (!sc.funcs_at || !sc.memory_model_at) sc.ndiv = 0;
    if (!infnan && !denorm && !sc.ndec && !sc.ndiv && !sc.nprod) {
        free(sc.mark), free(sc.prod);
        return RS_OK;
    }
    /* new ids: the import, bool types, per float32 type used by a division
     * the division's constants (kDivConst), then DIV_IDS per division */
    uint32_t next = bound;
    uint32_t glsl = sc.glsl, kid[MAX_VEC + 1][NCONST] = {{0}}, new_bool[MAX_VEC + 1] = {0};
    uint32_t new_i32[MAX_VEC + 1] = {0}, frexp_ty[MAX_VEC + 1] = {0};
    uint32_t div_base = 0;
    if (sc.ndiv) {
        if (!glsl) glsl = next++;
        for (int c = 0; c <= MAX_VEC; c++) {
            if (c == 1 || !sc.f32[c]) continue;
            if (!sc.bool_[0]) sc.bool_[0] = new_bool[0] = next++;
            if (c && !sc.bool_[c]) sc.bool_[c] = new_bool[c] = next++;
            if (!sc.i32[0]) sc.i32[0] = new_i32[0] = next++;
            if (c && !sc.i32[c]) sc.i32[c] = new_i32[c] = next++;
            frexp_ty[c] = next++; /* struct { float32 mantissa; int32 exponent } of width c */
            for (int k = 0; k < NCONST; k++) kid[c][k] = next++;
        }
        div_base = next;
        next += (uint32_t)(DIV_IDS * sc.ndiv);
    }
    /* opaque products: the constants 0u and 1u, ZERO_IDS ids per function
     * (its zero), three per product (the product, its bits, the bits ^ zero) */
    enum { ZERO_IDS = 6 };
    uint32_t c0u = 0, c1u = 0, zero_base = 0;
    if (sc.nprod) {
        if (!sc.bool_[0]) sc.bool_[0] = new_bool[0] = next++;
        c0u = next++, c1u = next++;
        zero_base = next;
        next += (uint32_t)(ZERO_IDS * sc.nfunc);
        for (uint32_t id = 0; id < bound; id++)
            if (sc.prod[id]) sc.prod[id] = next, next += 3;
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
    for (uint32_t id = 0; (sc.ndec || sc.nprod) && id < bound; id++) {
        /* an opaque product's NoContraction goes to its new multiply (the
         * decoration the module had is dropped below) */
        uint32_t p0 = sc.nprod ? sc.prod[id] : 0;
        if (sc.mark[id] == 1 || (p0 && sc.mark[id] == 2)) PUT(&o, INSTR(OP_DECORATE, 3), p0 ? p0 : id, DEC_NO_CONTRACTION);
    }
    for (size_t d = 0; d < sc.ndiv; d++) /* the divisions' arithmetic: Dekker's product needs it */
        for (size_t r = 0; r < DIV_IDS; r++)
            if (is_contractible(kDivProg[r].op))
                PUT(&o, INSTR(OP_DECORATE, 3), div_base + (uint32_t)(DIV_IDS * d + r), DEC_NO_CONTRACTION);
    for (size_t at = from; sc.nprod && at < sc.funcs_at;) { /* the module's own NoContraction on products */
        uint32_t n = words[at] >> 16;
        if ((words[at] & 0xFFFFu) == OP_DECORATE && n >= 3 && words[at + 2] == DEC_NO_CONTRACTION &&
            words[at + 1] < bound && sc.prod[words[at + 1]]) {
            COPY_TO(at);
            from = at + n;
        }
        at += n;
    }
    if (sc.ndiv || sc.nprod) {
        COPY_TO(sc.funcs_at);
        if (new_bool[0]) PUT(&o, INSTR(OP_TYPE_BOOL, 2), new_bool[0]);
        if (sc.nprod)
            PUT(&o, INSTR(OP_CONSTANT, 4), sc.u32, c0u, 0u, INSTR(OP_CONSTANT, 4), sc.u32, c1u, 1u);
        if (new_i32[0]) PUT(&o, INSTR(OP_TYPE_INT, 4), new_i32[0], 32, 1);
        for (int c = 0; c <= MAX_VEC; c++) {
            if (!kid[c][0]) continue;
            if (c && new_bool[c]) PUT(&o, INSTR(OP_TYPE_VECTOR, 4), new_bool[c], sc.bool_[0], (uint32_t)c);
            if (c && new_i32[c]) PUT(&o, INSTR(OP_TYPE_VECTOR, 4), new_i32[c], sc.i32[0], (uint32_t)c);
            PUT(&o, INSTR(OP_TYPE_STRUCT, 4), frexp_ty[c], sc.f32[c], sc.i32[c]);
            for (int k = 0; k < NCONST; k++) {
                if (!c) {
                    PUT(&o, INSTR(OP_CONSTANT, 4), sc.f32[0], kid[0][k], kDivConst[k]);
                    continue;
                }
                /* the scalar constants the vector ones are made of come first (c = 0) */
                uint32_t cc[3 + MAX_VEC];
                cc[0] = INSTR(OP_CONSTANT_COMPOSITE, 3 + c), cc[1] = sc.f32[c], cc[2] = kid[c][k];
                for (int j = 0; j < c; j++) cc[3 + j] = kid[0][k];
                put(&o, cc, 3 + (size_t)c);
            }
        }
    }
    /* the divisions and the opaque products */
    size_t d = 0;
    int fstate = 0;       /* 1: in a function before its first label, 2: after it */
    uint32_t fzero = 0;   /* the current function's zero */
    size_t fi = 0;        /* functions seen */
    for (size_t at = from; (sc.ndiv || sc.nprod) && at < nwords;) {
        uint32_t n = words[at] >> 16, op = words[at] & 0xFFFFu;
        const uint32_t *w = words + at;
        if (sc.nprod) {
            if (op == OP_FUNCTION) {
                fstate = 1, fzero = zero_base + (uint32_t)(ZERO_IDS * fi++);
            } else if (op == OP_LABEL && fstate == 1) {
                fstate = 2;
            } else if (fstate == 2 && op != OP_VARIABLE) {
                /* zero = (NumWorkGroups.x * NumWorkGroups.y == 0u) ? 1u :
                 * 0u, after the function's variables */
                COPY_TO(at);
                PUT(&o, INSTR(OP_LOAD, 4), v3u, fzero, sc.nwg_var);
                PUT(&o, INSTR(OP_COMPOSITE_EXTRACT, 5), sc.u32, fzero + 1, fzero, 0u);
                PUT(&o, INSTR(OP_COMPOSITE_EXTRACT, 5), sc.u32, fzero + 2, fzero, 1u);
                PUT(&o, INSTR(OP_IMUL, 5), sc.u32, fzero + 3, fzero + 1, fzero + 2);
                PUT(&o, INSTR(OP_IEQUAL, 5), sc.bool_[0], fzero + 4, fzero + 3, c0u);
                PUT(&o, INSTR(OP_SELECT, 6), sc.u32, fzero + 5, fzero + 4, c1u, c0u);
                fstate = 0;
            }
            if (op == OP_FMUL && n == 5 && w[2] < bound && sc.prod[w[2]]) {
                /* p = bits(bits(a * b) ^ zero): the rounded product, which
                 * no add can fuse with */
                COPY_TO(at);
                uint32_t p0 = sc.prod[w[2]];
                PUT(&o, INSTR(OP_FMUL, 5), w[1], p0, w[3], w[4]);
                PUT(&o, INSTR(OP_BITCAST, 4), sc.u32, p0 + 1, p0);
                PUT(&o, INSTR(OP_BITWISE_XOR, 5), sc.u32, p0 + 2, p0 + 1, fzero + 5);
                PUT(&o, INSTR(OP_BITCAST, 4), w[1], w[2], p0 + 2);
                from = at + n;
            }
        }
        int c = sc.ndiv && op == OP_FDIV && n == 5 ? f32_slot(&sc, w[1]) : -1;
        if (c >= 0) {
            COPY_TO(at);
            uint32_t T = w[1], base = div_base + (uint32_t)(DIV_IDS * d);
            for (size_t row = 0; row < DIV_IDS; row++) {
                uint32_t v[2];
                const int16_t ref[2] = {kDivProg[row].x, kDivProg[row].y};
                for (int j = 0; j < 2; j++)
                    v[j] = ref[j] >= 0 ? base + (uint32_t)ref[j]
                           : ref[j] == A ? w[3]
                           : ref[j] == B ? w[4]
                                         : kid[c][-ref[j] - 3];
                const uint32_t types[] = {[TY_F] = T, [TY_B] = sc.bool_[c], [TY_I] = sc.i32[c], [TY_S] = frexp_ty[c]};
                uint32_t ty = types[kDivProg[row].type], id = base + (uint32_t)row, op = kDivProg[row].op;
                if (op == FABS) PUT(&o, INSTR(OP_EXT_INST, 6), ty, id, glsl, GLSL_FABS, v[0]);
                else if (op == FREXP) PUT(&o, INSTR(OP_EXT_INST, 6), ty, id, glsl, GLSL_FREXP_STRUCT, v[0]);
                else if (op == LDEXP) PUT(&o, INSTR(OP_EXT_INST, 7), ty, id, glsl, GLSL_LDEXP, v[0], v[1]);
                else if (op == OP_COMPOSITE_EXTRACT) PUT(&o, INSTR(op, 5), ty, id, v[0], (uint32_t)ref[1]);
                else PUT(&o, INSTR(op, 5), ty, id, v[0], v[1]);
            }
            /* the original result: q1 where the correction holds, else q0 */
            PUT(&o, INSTR(OP_SELECT, 6), T, w[2], base + (uint32_t)(DIV_IDS - 1), base + DIV_Q1, base);
            from = at + n;
            d++;
        }
        at += n;
    }
    COPY_TO(nwords);
#undef COPY_TO
    free(sc.mark), free(sc.prod);
    if (o.oom) {
        free(o.w);
        return rs_error(RS_ERR_OOM, "russet: out of host memory");
    }
    o.w[3] = next; /* the id bound */
    *out = o.w;
    *out_words = o.n;
    return RS_OK;
}
