/* gemm.c: the matrix-product engine (rs_gemm) and the cross product
 * (rs_cross). The kernels are kernels/gemm.comp (tiled and dot) and
 * kernels/gemm_coopmat.comp (float16 on NV cooperative matrices) and
 * kernels/gemm_coopmat_khr.comp (float16 and bfloat16 on VK_KHR_cooperative_matrix,
 * precompiled SPIR-V: rs_kernel_spirv). The parameter
 * block goes in the stream arena (it is larger than push constants); its
 * layout is kernels/params/gemm.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/engine.h"
#include "params/gemm.h"

typedef struct gemm_params { RS_GEMM_PARAMS } gemm_params;

enum { KIND_TILED = 0, KIND_DOT = 1, KIND_COOP = 2, KIND_COOP_KHR = 3 };

typedef struct gemm_cfg {
    int kind;
    int tm, tn, bk, vw;  /* tiled: the tile is (16 tm) x (16 tn), bk deep */
    int a_kc, b_nc;      /* stride-1 dims, for coalesced tile loads */
    int vec_a, vec_b;    /* coopmat: 16-byte loads (KHR: 2 = along m for A, along k for B) */
    int khr_full;        /* KHR: the tile's whole-tile module (no bounds branch) */
    const char *khr_module; /* KHR: the module's tile name (KHR_TILES' name, or its float16 form) */
    int vload;           /* tiled: 4-element vector loads */
    int64_t bm, bn;      /* tile size (for the grid) */
    int64_t splits, kc;  /* tiled: k in `splits` chunks of kc (the last shorter) */
    char name[48];
} gemm_cfg;

/* Split k where a float32/float16/bfloat16 product on the tiled kernel
 * (float16/bfloat16 there: no cooperative matrices, as under the apple
 * profile) has few tiles and a long k (nn.Linear's
 * weight gradients, 768x768 over 4096 tokens: 36 tiles of 128x128 on a GPU
 * of 132 SMs): about SPLIT_WANT workgroups in all, each chunk at least
 * SPLIT_MIN_K deep. The partial products go to float32 scratch and a second
 * pass adds them in chunk order, so the result depends only on the shape. */
enum { SPLIT_TILES = 256, SPLIT_WANT = 512, SPLIT_MIN_K = 256, SPLIT_MAX = 32 };

static int is_float_family(rs_dtype d) {
    return d == RS_FLOAT32 || d == RS_FLOAT16 || d == RS_BFLOAT16 ||
           (d >= RS_FLOAT8_E5M2 && d <= RS_FLOAT8_E4M3FNUZ) || d == RS_FLOAT8_E8M0FNU;
}

/* Bytes of the accumulation type in shared memory. */
static int acc_size(rs_dtype d) {
    if (d == RS_COMPLEX128) return 16;
    if (is_float_family(d) || d == RS_BOOL) return 4;
    return 8; /* integers (int64), float64, complex32/64 */
}

static int64_t iabs64(int64_t v) { return v < 0 ? -v : v; }

/* The dtype of C and Cin */
static rs_dtype c_dtype(const rs_gemm_desc *d) { return d->c_float32 ? RS_FLOAT32 : d->dtype; }

/* The slot bits of a scalar in the accumulation type (as the pointwise
 * engine's scalars: float in the low 32 bits, complex64 as two floats). */
static void scalar_bits(rs_dtype dt, const rs_scalar v[2], uint64_t out[2]) {
    out[0] = v[0].u;
    out[1] = v[1].u;
    if (dt == RS_COMPLEX32 || dt == RS_COMPLEX64) {
        uint32_t re, im;
        memcpy(&re, &v[0].cf.re, 4);
        memcpy(&im, &v[0].cf.im, 4);
        out[0] = (uint64_t)re | (uint64_t)im << 32;
        out[1] = 0;
    } else if (is_float_family(dt)) {
        uint32_t f;
        memcpy(&f, &v[0].f, 4);
        out[0] = f;
        out[1] = 0;
    }
}

static int aligned16(uint64_t addr) { return addr % 16 == 0; }

/* Quads of 4 elements along each operand's stride-1 dimension can be one
 * vector load: the stride is 1, the other strides and the extent along it
 * are multiples of 4, and the address is aligned to the quad. */
static int vload_ok(const rs_gemm_desc *d, int a_kc, int b_nc) {
    if (d->dtype != RS_FLOAT32 && d->dtype != RS_FLOAT16 && d->dtype != RS_BFLOAT16) return 0;
    uint64_t align = 4 * rs_dtype_size(d->dtype);
    const int64_t *sa = d->a.stride, *sb = d->b.stride;
    int a_ok = a_kc ? (sa[2] == 1 && d->k % 4 == 0 && sa[1] % 4 == 0)
                    : (sa[1] == 1 && d->m % 4 == 0 && sa[2] % 4 == 0);
    int b_ok = b_nc ? (sb[2] == 1 && d->n % 4 == 0 && sb[1] % 4 == 0)
                    : (sb[1] == 1 && d->k % 4 == 0 && sb[2] % 4 == 0);
    return a_ok && b_ok && sa[0] % 4 == 0 && sb[0] % 4 == 0 && d->a.address % align == 0 &&
           d->b.address % align == 0;
}

/* 16 bytes (8 halves) at a time along a float16 operand's dimension `dim`
 * (1: rows, 2: columns): stride 1 there, the other strides and the extent
 * `ext` multiples of 8, the address aligned. */
static int vec8_ok(const rs_gemm_operand *o, int dim, int64_t ext) {
    return o->stride[dim] == 1 && o->stride[3 - dim] % 8 == 0 && o->stride[0] % 8 == 0 && ext % 8 == 0 &&
           aligned16(o->address);
}

/* The KHR kernel's 16-byte loaders: vec8_ok, and the other stride small
 * enough that a load's byte offset within a tile fits in 32 bits (at most
 * 255 rows of 2^22 elements: 2 GiB; gemm_coopmat_khr.comp). */
static int khr_vec8_ok(const rs_gemm_operand *o, int dim, int64_t ext) {
    int64_t other = o->stride[3 - dim];
    return vec8_ok(o, dim, ext) && other < (1 << 22) && other > -(1 << 22);
}

/* The KHR modules' production tiles (gemm_coopmat_khr.comp; every layout
 * of each, float16 and bfloat16, is in kernels/spirv/, made by
 * tools/build_spirv.py): name, shared memory, invocations, tile, and
 * whether it has whole-tile modules ("<name>f", vector layouts only: no
 * bounds branch in the loaders, for shapes the tile divides; +4.6% on w4s1
 * in the probe). All use one shared
 * stage of 32-deep slices (the two-stage form ran at half the speed on the
 * H200: docs/gemm.md). */
static const struct {
    const char *name, *f16_hw; /* f16_hw: the float16 modules' tile where rs_device_hw_f16 */
    uint32_t shared, invocations;
    int bm, bn, full;
} KHR_TILES[] = {
    /* 16 subgroups of 32x64: 128 registers an invocation. bfloat16's modules
     * and float16's "w4x4h" keep two slices in flight; w4x4h has the device's
     * float16 conversions in its epilogue (with c10's in software, two
     * slices in flight run slower: tools/build_spirv.py) */
    {"w4x4", "w4x4h", 27 * 1024, 512, 128, 256, 1},
    {"w4s1", "w4s1", 27 * 1024, 256, 128, 256, 0}, /* 8 subgroups of 64x64 (~230 registers) */
    {"w2s1", "w2s1", 19 * 1024, 128, 128, 128, 0}, /* 4 subgroups of 64x64 */
};
#define KHR_BK 32 /* the depth of a slice */
enum { KHR_W4 = 0, KHR_W2 = 2 };

/* The tile for a shape: 128x256 where n fills it no worse than 128x128
 * would and there are enough tiles to fill a large GPU, else 128x128.
 * RUSSET_GEMM_KHR_TILE=w4x4|w4s1|w2s1 forces one (a tuning knob for
 * bench/gemm_probe.c). */
static int khr_tile(const rs_gemm_desc *d, int64_t nz) {
    static int forced = -2; /* read once; a race writes the same value */
    if (forced == -2) {
        const char *e = getenv("RUSSET_GEMM_KHR_TILE");
        int t = -1;
        for (int i = 0; e && i < (int)(sizeof KHR_TILES / sizeof KHR_TILES[0]); i++)
            if (strcmp(e, KHR_TILES[i].name) == 0) t = i;
        forced = t;
    }
    if (forced >= 0) return forced;
    int64_t n256 = (d->n + 255) / 256, n128 = (d->n + 127) / 128;
    int64_t tiles = (d->m + 127) / 128 * n256 * nz;
    return 2 * n256 <= n128 && tiles >= 128 ? KHR_W4 : KHR_W2; /* no wider padding along n */
}

/* Picks the kernel for a shape class. */
static void choose(const rs_features *f, int khr, int hw_f16, const rs_gemm_desc *d, gemm_cfg *c) {
    memset(c, 0, sizeof *c);
    int64_t nz = d->reduce_batch ? 1 : d->batch;
    int64_t k_total = d->k * (d->reduce_batch ? d->batch : 1);
    int esz = acc_size(d->dtype);

    int khr_dt = d->dtype == RS_FLOAT16 ? (khr & RS_COOPMAT_KHR_F16) : d->dtype == RS_BFLOAT16 ? (khr & RS_COOPMAT_KHR_BF16) : 0;
    /* float32 C: the 128x128 tile's modules (tools/build_spirv.py, C32_TILE) */
    int kt = !khr_dt ? 0 : d->c_float32 ? KHR_W2 : khr_tile(d, nz);
    if (khr_dt && f->subgroup_size == 32 && f->max_shared_memory >= KHR_TILES[kt].shared &&
        f->max_workgroup_invocations >= KHR_TILES[kt].invocations &&
        d->m >= 64 && d->n >= 64 && d->k >= 32 && !d->conj_a && !d->conj_b) {
        c->kind = KIND_COOP_KHR;
        c->bm = KHR_TILES[kt].bm;
        c->bn = KHR_TILES[kt].bn;
        c->vec_a = khr_vec8_ok(&d->a, 2, d->k) ? 1 : khr_vec8_ok(&d->a, 1, d->m) ? 2 : 0;
        c->vec_b = khr_vec8_ok(&d->b, 2, d->n) ? 1 : khr_vec8_ok(&d->b, 1, d->k) ? 2 : 0;
        c->khr_full = !d->c_float32 && KHR_TILES[kt].full && c->vec_a && c->vec_b && d->m % c->bm == 0 &&
                      d->n % c->bn == 0 && d->k % KHR_BK == 0;
        c->khr_module = d->dtype == RS_FLOAT16 && hw_f16 ? KHR_TILES[kt].f16_hw : KHR_TILES[kt].name;
        snprintf(c->name, sizeof c->name, "coopmat-khr%s-%s%s%s-a%d-b%d", d->dtype == RS_BFLOAT16 ? "-bf16" : "",
                 c->khr_module, c->khr_full ? "f" : "", d->c_float32 ? "c32" : "", c->vec_a, c->vec_b);
        return;
    }
    if (f->has_cooperative_matrix && d->dtype == RS_FLOAT16 && !d->c_float32 && f->subgroup_size == 32 &&
        f->max_shared_memory >= 36 * 1024 && d->m >= 64 && d->n >= 64 && d->k >= 32 &&
        !d->conj_a && !d->conj_b) {
        c->kind = KIND_COOP;
        c->bm = 128;
        c->bn = 256;
        /* 16-byte loads: A contiguous along k, B along n, rows 16-byte aligned */
        c->vec_a = d->a.stride[2] == 1 && d->a.stride[1] % 8 == 0 && d->a.stride[0] % 8 == 0 &&
                   d->k % 8 == 0 && aligned16(d->a.address);
        c->vec_b = d->b.stride[2] == 1 && d->b.stride[1] % 8 == 0 && d->b.stride[0] % 8 == 0 &&
                   d->n % 8 == 0 && aligned16(d->b.address);
        snprintf(c->name, sizeof c->name, "coopmat-128x256%s%s", c->vec_a ? "-va" : "",
                 c->vec_b ? "-vb" : "");
        return;
    }
    /* matrix-vector and dot shapes, and tiny outputs over a long k: one
     * workgroup per output element */
    if (((d->m == 1 || d->n == 1) && k_total >= 32) || (nz * d->m * d->n <= 256 && k_total >= 1024)) {
        c->kind = KIND_DOT;
        snprintf(c->name, sizeof c->name, "dot");
        return;
    }
    c->kind = KIND_TILED;
    c->bk = 16;
    if (esz == 16) {
        c->tm = c->tn = 2;
        c->bk = 8;
    } else if (d->m <= 16 && d->n >= 64) {
        c->tm = 1; /* skinny: 16 x 64 */
        c->tn = 4;
    } else if (d->n <= 16 && d->m >= 64) {
        c->tm = 4; /* 64 x 16 */
        c->tn = 1;
    } else if (esz == 4 && d->m >= 128 && d->n >= 128 &&
               ((d->m + 127) / 128) * ((d->n + 127) / 128) * nz >= 32) {
        c->tm = c->tn = 8; /* large: 128 x 128 */
        /* 32 deep where shared memory holds it (exactly the apple profile's
         * 32 KiB): half the barriers a product; 7-12% faster than 16 on
         * the H200 (docs/gemm.md) */
        if (32 * (c->tm + c->tn) * 16 * esz <= (int64_t)f->max_shared_memory) c->bk = 32;
    } else if (d->m >= 64 && d->n >= 64) {
        c->tm = c->tn = 4; /* medium: 64 x 64 */
    } else {
        c->tm = c->tn = 2; /* small: 32 x 32 */
    }
    c->vw = (is_float_family(d->dtype) && c->tm % 4 == 0 && c->tn % 4 == 0) ? 4 : 1;
    c->a_kc = iabs64(d->a.stride[2]) == 1 || d->m == 1;
    c->b_nc = iabs64(d->b.stride[2]) == 1 || d->k == 1;
    c->bm = 16 * c->tm;
    c->bn = 16 * c->tn;
    c->vload = c->vw == 4 && vload_ok(d, c->a_kc, c->b_nc);
    c->splits = 1;
    c->kc = d->k;
    int64_t tiles = ((d->m + c->bm - 1) / c->bm) * ((d->n + c->bn - 1) / c->bn);
    if ((d->dtype == RS_FLOAT32 || d->dtype == RS_FLOAT16 || d->dtype == RS_BFLOAT16) && !d->reduce_batch &&
        d->batch == 1 && tiles < SPLIT_TILES) {
        int64_t want = (SPLIT_WANT + tiles - 1) / tiles, most = d->k / SPLIT_MIN_K;
        int64_t splits = want < most ? want : most;
        if (splits > SPLIT_MAX) splits = SPLIT_MAX;
        if (splits > 1) {
            c->kc = ((d->k + splits - 1) / splits + c->bk - 1) / c->bk * c->bk; /* whole slices */
            c->splits = (d->k + c->kc - 1) / c->kc;
        }
    }
    char split[16] = "";
    if (c->splits > 1) snprintf(split, sizeof split, "-split%d", (int)c->splits);
    snprintf(c->name, sizeof c->name, "tiled-%dx%d%s%s", 16 * c->tm, 16 * c->tn, c->vload ? "-v4" : "", split);
}

/* The access record of a (batch, rows, cols) operand. */
static rs_access operand_access(rs_dtype dt, const rs_gemm_operand *o, int64_t batch, int64_t rows,
                                int64_t cols, int write) {
    rs_tensor t;
    memset(&t, 0, sizeof t);
    t.address = o->address;
    t.dtype = dt;
    t.ndim = 3;
    t.sizes[0] = batch;
    t.sizes[1] = rows;
    t.sizes[2] = cols;
    for (int i = 0; i < 3; ++i) t.strides[i] = o->stride[i];
    return rs_tensor_access(&t, write);
}

static rs_status validate(rs_stream *s, const rs_gemm_desc *d) {
    if (!s) return rs_error(RS_ERR_INVALID, "rs_gemm: stream is NULL");
    if (!d) return rs_error(RS_ERR_INVALID, "rs_gemm: descriptor is NULL");
    if (!rs_dtype_valid(d->dtype)) return rs_error(RS_ERR_INVALID, "rs_gemm: invalid dtype %d", (int)d->dtype);
    if (d->batch < 0 || d->m < 0 || d->n < 0 || d->k < 0)
        return rs_error(RS_ERR_INVALID, "rs_gemm: negative size (batch %lld, m %lld, n %lld, k %lld)",
                        (long long)d->batch, (long long)d->m, (long long)d->n, (long long)d->k);
    if (d->c_float32 && d->dtype != RS_FLOAT16 && d->dtype != RS_BFLOAT16)
        return rs_error(RS_ERR_INVALID, "rs_gemm: float32 C is for float16/bfloat16 operands, not %s",
                        rs_dtype_name(d->dtype));
    if (rs_dtype_needs_fp64(d->dtype) && !rs_stream_features(s)->has_fp64)
        return rs_error(RS_ERR_UNSUPPORTED, "rs_gemm: %s needs float64 arithmetic, which this device "
                        "(or profile) lacks", rs_dtype_name(d->dtype));
    return RS_OK;
}

/* choose() for the stream's device */
static void choose_on(rs_stream *s, const rs_gemm_desc *d, gemm_cfg *c) {
    rs_device *dev = rs_stream_device(s);
    choose(rs_stream_features(s), rs_device_coopmat_khr(dev), rs_device_hw_f16(dev), d, c);
}

const char *rs_gemm_kernel_name(rs_stream *s, const rs_gemm_desc *d) {
    static _Thread_local gemm_cfg c;
    if (validate(s, d) != RS_OK) return "invalid";
    choose_on(s, d, &c);
    return c.name;
}

/* A parameter block into the stream's arena, and one dispatch of `k` */
static rs_status dispatch_params(rs_stream *s, rs_kernel *k, const uint32_t groups[3], const gemm_params *p,
                                 const rs_access *acc, int na) {
    void *host = NULL;
    uint64_t addr = 0;
    rs_status st = rs_stream_arena(s, sizeof *p, &host, &addr);
    if (st != RS_OK) return st;
    memcpy(host, p, sizeof *p);
    return rs_dispatch(s, k, groups, &addr, sizeof addr, acc, na);
}

/* Split k (the float family, one batch; choose()): the chunks' products
 * A[:, chunk] @ B[chunk, :] into float32 scratch (splits, m, n), a batch
 * of whole chunks and then the shorter last one; then their sum in chunk
 * order, with the epilogue (alpha, beta * Cin), into C (gemm.comp KIND 2). */
static rs_status run_split(rs_stream *s, const rs_gemm_desc *d, const gemm_cfg *cfg, rs_kernel *k,
                           const gemm_params *base, const uint32_t tile_groups[3]) {
    rs_device *dev = rs_stream_device(s);
    /* esz: the operands' element bytes; the partials are float32 */
    const int64_t mn = d->m * d->n, esz = (int64_t)rs_dtype_size(d->dtype), psz = 4;
    const int64_t whole = d->k / cfg->kc, rest = d->k - whole * cfg->kc;
    const uint64_t part_bytes = (uint64_t)(cfg->splits * mn * psz);
    uint64_t part = 0;
    rs_status st = rs_alloc(dev, part_bytes, s, &part);
    if (st != RS_OK) return st;
    rs_access reads[2] = {operand_access(d->dtype, &d->a, 1, d->m, d->k, 0),
                          operand_access(d->dtype, &d->b, 1, d->k, d->n, 0)};
    for (int last = 0; last < 2 && st == RS_OK; ++last) {
        const int64_t chunks = last ? (rest > 0) : whole, k0 = last ? whole * cfg->kc : 0;
        if (chunks == 0) continue;
        gemm_params p = *base;
        p.a = (uint64_t)((int64_t)d->a.address + k0 * d->a.stride[2] * esz);
        p.b = (uint64_t)((int64_t)d->b.address + k0 * d->b.stride[1] * esz);
        p.k = last ? rest : cfg->kc;
        p.batch = chunks;
        p.sa[0] = cfg->kc * d->a.stride[2];
        p.sb[0] = cfg->kc * d->b.stride[1];
        p.c = part + (uint64_t)(k0 / cfg->kc * mn * psz);
        p.sc[0] = mn, p.sc[1] = d->n, p.sc[2] = 1;
        p.cin = 0;
        p.flags = 0; /* the kernel (PART) stores the raw products: no alpha, beta or Cin */
        rs_access acc[3] = {reads[0], reads[1], {p.c, (uint64_t)(chunks * mn * psz), 1}};
        uint32_t groups[3] = {tile_groups[0], tile_groups[1], (uint32_t)chunks};
        st = dispatch_params(s, k, groups, &p, acc, 3);
    }
    rs_kernel *sum = NULL;
    char defines[48];
    snprintf(defines, sizeof defines, "DT=%d;C_DT=%d;KIND=2", (int)d->dtype, (int)c_dtype(d));
    if (st == RS_OK) st = rs_kernel_get(dev, "gemm.comp", defines, &sum);
    if (st == RS_OK) {
        gemm_params p = *base;
        p.a = part;
        p.batch = cfg->splits;
        rs_access acc[3];
        int na = 0;
        acc[na++] = (rs_access){part, part_bytes, 0};
        if (d->use_cin) acc[na++] = operand_access(c_dtype(d), &d->cin, 1, d->m, d->n, 0);
        acc[na++] = operand_access(c_dtype(d), &d->c, 1, d->m, d->n, 1);
        uint32_t groups[3] = {rs_groups_capped(s, ((uint64_t)mn + 255) / 256, 65535), 1, 1};
        st = dispatch_params(s, sum, groups, &p, acc, na);
    }
    rs_free(dev, part);
    return st;
}

rs_gemm_operand rs_gemm_operand_of(const rs_tensor *t, int transpose) {
    rs_gemm_operand o = {t->address, {t->strides[0], t->strides[1], t->strides[2]}};
    if (transpose) o.stride[1] = t->strides[2], o.stride[2] = t->strides[1];
    return o;
}

void rs_gemm_scalar(rs_dtype dt, double v, rs_scalar out[2]) {
    memset(out, 0, 2 * sizeof(rs_scalar));
    if (dt == RS_FLOAT64 || dt == RS_COMPLEX128) out[0].d = v;
    else if (dt == RS_COMPLEX64) out[0].cf.re = (float)v;
    else if (dt == RS_FLOAT32 || dt == RS_FLOAT16 || dt == RS_BFLOAT16) out[0].f = (float)v;
    else out[0].i = (int64_t)v;
}

rs_status rs_gemm(rs_stream *s, const rs_gemm_desc *d) {
    rs_status st = validate(s, d);
    if (st != RS_OK) return st;
    int64_t nz = d->reduce_batch ? 1 : d->batch;
    if (nz == 0 || d->m == 0 || d->n == 0) return RS_OK;
    gemm_cfg cfg;
    choose_on(s, d, &cfg);

    char defines[160];
    const char *file = "gemm.comp";
    if (cfg.kind == KIND_COOP) {
        file = "gemm_coopmat.comp";
        snprintf(defines, sizeof defines, "DT=%d;VEC_A=%d;VEC_B=%d", (int)d->dtype, cfg.vec_a, cfg.vec_b);
    } else if (cfg.kind == KIND_DOT) {
        snprintf(defines, sizeof defines, "DT=%d;C_DT=%d;KIND=1", (int)d->dtype, (int)c_dtype(d));
    } else {
        snprintf(defines, sizeof defines,
                 "DT=%d;C_DT=%d;KIND=0;TM=%du;TN=%du;BK=%du;VW=%d;A_KC=%d;B_NC=%d;VLOAD=%d;PART=%d", (int)d->dtype,
                 (int)c_dtype(d), cfg.tm, cfg.tn, cfg.bk, cfg.vw, cfg.a_kc, cfg.b_nc, cfg.vload, cfg.splits > 1);
    }
    rs_kernel *k = NULL;
    if (cfg.kind == KIND_COOP_KHR) {
        char module[64];
        snprintf(module, sizeof module, "gemm_coopmat_khr_%s%s%s%s_a%db%d", d->dtype == RS_BFLOAT16 ? "bf16_" : "",
                 cfg.khr_module, cfg.khr_full ? "f" : "", d->c_float32 ? "c32" : "", cfg.vec_a, cfg.vec_b);
        st = rs_kernel_spirv(rs_stream_device(s), module, &k);
    } else {
        st = rs_kernel_get(rs_stream_device(s), file, defines, &k);
    }
    if (st != RS_OK) return st;

    gemm_params p;
    memset(&p, 0, sizeof p);
    p.a = d->a.address;
    p.b = d->b.address;
    p.c = d->c.address;
    p.cin = d->cin.address;
    p.m = d->m;
    p.n = d->n;
    p.k = d->k;
    p.batch = d->batch;
    for (int i = 0; i < 3; ++i) {
        p.sa[i] = d->a.stride[i];
        p.sb[i] = d->b.stride[i];
        p.sc[i] = d->c.stride[i];
        p.sci[i] = d->cin.stride[i];
    }
    rs_scalar alpha[2];
    memcpy(alpha, d->alpha, sizeof alpha);
    /* k == 0 (or an empty batch sum): C = beta * Cin, whatever alpha is (CPU) */
    if (d->k == 0 || (d->reduce_batch && d->batch == 0)) memset(alpha, 0, sizeof alpha);
    scalar_bits(d->dtype, alpha, p.alpha);
    scalar_bits(d->dtype, d->beta, p.beta);
    p.flags = (d->use_cin ? GF_USE_CIN : 0) | (d->conj_a ? GF_CONJ_A : 0) | (d->conj_b ? GF_CONJ_B : 0) |
              (d->reduce_batch ? GF_REDUCE : 0);

    uint32_t groups[3] = {1, 1, 1};
    if (cfg.kind == KIND_DOT) {
        uint64_t total = (uint64_t)(nz * d->m * d->n);
        groups[0] = (uint32_t)(total < 65535 ? total : 65535);
        uint64_t rest = (total + 65534) / 65535;
        groups[1] = (uint32_t)(rest < 64 ? rest : 64);
    } else {
        p.tiles_m = (d->m + cfg.bm - 1) / cfg.bm;
        p.tiles_n = (d->n + cfg.bn - 1) / cfg.bn;
        groups[0] = (uint32_t)(p.tiles_n < 65535 ? p.tiles_n : 65535);
        groups[1] = (uint32_t)(p.tiles_m < 65535 ? p.tiles_m : 65535);
        groups[2] = (uint32_t)(nz < 65535 ? nz : 65535);
    }
    if (cfg.splits > 1) return run_split(s, d, &cfg, k, &p, groups);

    rs_access acc[4];
    int na = 0;
    int64_t kb = d->batch; /* A and B span the whole batch, reduced or not */
    if (d->k > 0 && kb > 0) {
        acc[na++] = operand_access(d->dtype, &d->a, kb, d->m, d->k, 0);
        acc[na++] = operand_access(d->dtype, &d->b, kb, d->k, d->n, 0);
    }
    if (d->use_cin) acc[na++] = operand_access(c_dtype(d), &d->cin, nz, d->m, d->n, 0);
    acc[na++] = operand_access(c_dtype(d), &d->c, nz, d->m, d->n, 1);
    return dispatch_params(s, k, groups, &p, acc, na);
}

/* ---- cross product: out[i] = a[i+1] b[i+2] - a[i+2] b[i+1] (indices mod 3)
 * along `dim`, one pointwise launch per component. */

static rs_tensor component(const rs_tensor *t, int dim, int i) {
    rs_tensor v = *t;
    v.address = t->address + (uint64_t)(t->strides[dim] * i * (int64_t)rs_dtype_size(t->dtype));
    v.sizes[dim] = 1;
    return v;
}

rs_status rs_cross(rs_stream *s, const rs_tensor *out, const rs_tensor *a, const rs_tensor *b, int dim) {
    if (!s || !out || !a || !b) return rs_error(RS_ERR_INVALID, "rs_cross: NULL argument");
    if (dim < 0 || dim >= out->ndim || out->sizes[dim] != 3)
        return rs_error(RS_ERR_INVALID, "rs_cross: dimension %d does not have size 3", dim);
    if (a->ndim != out->ndim || b->ndim != out->ndim)
        return rs_error(RS_ERR_INVALID, "rs_cross: operands have different ranks");
    for (int i = 0; i < out->ndim; ++i)
        if (a->sizes[i] != out->sizes[i] || b->sizes[i] != out->sizes[i])
            return rs_error(RS_ERR_INVALID, "rs_cross: operands have different shapes");
    if (a->dtype != out->dtype || b->dtype != out->dtype)
        return rs_error(RS_ERR_INVALID, "rs_cross: operands have different dtypes");
    if (rs_tensor_numel(out) == 0) return RS_OK;
    rs_dtype dt = out->dtype;
    rs_pointwise p;
    memset(&p, 0, sizeof p);
    p.name = "cross";
    /* no scalar operand: complex128 scalars do not fit the engine's slots.
     * float16/bfloat16: CPU's kernel computes in c10::Half/BFloat16
     * arithmetic, which rounds each product to the dtype; so do we */
    p.expr = (dt == RS_FLOAT16 || dt == RS_BFLOAT16)
                 ? "(RS_ROUND(OUT_DT)(a * b) - RS_ROUND(OUT_DT)(c * d))"
                 : "(rs_mul(a, b) - rs_mul(c, d))";
    p.common = p.compute = p.result = dt;
    p.ninputs = 4;
    for (int i = 0; i < 3; ++i) {
        p.out = component(out, dim, i);
        p.in[0] = component(a, dim, (i + 1) % 3);
        p.in[1] = component(b, dim, (i + 2) % 3);
        p.in[2] = component(a, dim, (i + 2) % 3);
        p.in[3] = component(b, dim, (i + 1) % 3);
        rs_status st = rs_pointwise_run(s, &p);
        if (st != RS_OK) return st;
    }
    return RS_OK;
}
