/* conv.c: the convolution engine (rs_conv_run; contract in russet/conv.h),
 * an implicit GEMM per group: kernels/conv.comp (FMA tiles, every dtype),
 * or kernels/conv_coopmat_khr.comp (float16 and bfloat16 on cooperative
 * matrices, precompiled SPIR-V) where the device has them.
 *
 * Every view is taken as (N, C, D, H, W): 1-d and 2-d convolutions get unit
 * leading spatial dims. The tile shape follows the product's shape; the
 * load order of each operand follows its layout (coalesced along whichever
 * of k or the row runs along memory). Where the tiles are too few to fill
 * the device and k is long (the weight gradient's k is N times the output
 * volume; the late layers' forward and input gradient have few rows), k is
 * split into chunks whose partial sums a second pass adds in chunk order:
 * the split depends
 * only on the shape, so results repeat bit for bit. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/engine.h"
#include "params/conv.h"


/* positions are computed in 32-bit arithmetic in the kernel */
#define CONV_DIM_MAX (1LL << 30)

typedef struct conv_plan {
    int64_t in[5], out[5], ker[3], xs[5], ws[5], ys[5]; /* as 5 (or 3) dims */
    int64_t str[3], pad[3], dil[3];
    int64_t cg, og, m, nc, k;
    int wx, tm, tn, bk, vw, a_kf, b_kf, k_cf; /* tile: (256 / wx) tm rows, wx tn columns */
    int coop;                                 /* > 0: conv_coopmat_khr.comp, a coop x coop tile */
    int vec_a, vec_b;                         /* coop: 16-byte loads (CF_VEC_A, CF_VEC_B) */
    int64_t tiles_m, tiles_n, splits, kps;
    int64_t classes;                          /* the input gradient's stride classes (conv_geom.glsl) */
} conv_plan;

static const char *op_name(rs_conv_op op) {
    static const char *const names[3] = {"conv-forward", "conv-grad-input", "conv-grad-weight"};
    return names[op];
}

static int dtype_supported(rs_dtype dt) {
    switch (dt) {
    case RS_FLOAT32: case RS_FLOAT16: case RS_BFLOAT16: case RS_FLOAT64:
    case RS_UINT8: case RS_INT8: case RS_INT16: case RS_INT32: case RS_INT64:
        return 1;
    default: return 0;
    }
}

int rs_conv_computes(rs_device *dev, rs_dtype dt) {
    return dev && dtype_supported(dt) && (!rs_dtype_needs_fp64(dt) || rs_device_features(dev)->has_fp64);
}

/* bytes of the accumulation type (float for the float32 family) */
static int acc_bytes(rs_dtype dt) {
    return dt == RS_FLOAT32 || dt == RS_FLOAT16 || dt == RS_BFLOAT16 ? 4 : 8;
}


static int64_t vol3(const int64_t *v) { return v[0] * v[1] * v[2]; }

/* the stride of the fastest-varying part of k's (channel, kernel offset)
 * pairs in a view with channel stride `cs` and spatial strides sp[3] */
static int64_t cr_fast_stride(const conv_plan *p, int64_t cs, const int64_t sp[3]) {
    if (p->k_cf) return cs;
    for (int j = 2; j >= 0; --j)
        if (p->ker[j] > 1) return sp[j];
    return cs;
}

static int tile_of(int64_t extent) { return extent >= 128 ? 8 : extent >= 64 ? 4 : 2; }

/* The tile: 16 x 16 invocations, each 2 to 8 rows and columns by the
 * product's extents; 64 x 4 or 256 x 1 invocations for products a few
 * columns wide (depthwise, few channels), so that a tile is not mostly
 * idle columns. Then, where the tiles would not fill the device (about 256
 * workgroups), smaller blocks: the sums' order is the same whatever the
 * tile, so the result is too. */
static void choose_tile(conv_plan *p, int64_t groups, int shrink) {
    if (p->nc >= 32) {
        p->wx = 16, p->tm = tile_of(p->m), p->tn = tile_of(p->nc);
    } else if (p->nc >= 8) {
        p->wx = 4, p->tm = p->m >= 256 ? 4 : 2, p->tn = p->nc >= 16 ? 4 : 2;
    } else {
        p->wx = 1, p->tm = 1, p->tn = p->nc >= 4 ? 4 : p->nc >= 2 ? 2 : 1;
    }
    for (;;) {
        int64_t bm = (256 / p->wx) * p->tm, bn = p->wx * p->tn;
        p->tiles_m = (p->m + bm - 1) / bm;
        p->tiles_n = (p->nc + bn - 1) / bn;
        if (!shrink || p->wx != 16 || p->tiles_m * p->tiles_n * groups >= 256 || (p->tm <= 2 && p->tn <= 2)) break;
        if (p->tm >= p->tn) p->tm /= 2;
        else p->tn /= 2;
    }
}

/* conv_coopmat_khr.comp's tiles: shared memory (As, Bs and the tables) */
#define COOP_BK 32
static uint32_t coop_shared(int tile) { return tile == 128 ? 32 * 1024 : 16 * 1024; }

/* RUSSET_CONV_COOPMAT: 0 keeps float16 and bfloat16 on conv.comp's FMA
 * tiles (to compare the two, or to rule the cooperative matrices out); 64
 * or 128 forces that tile wherever the cooperative matrices serve (tests
 * and tuning). Read once. */
static int coop_setting(void) {
    static int setting = -2; /* -1: the default choice; a race writes the same value */
    if (setting == -2) {
        const char *e = getenv("RUSSET_CONV_COOPMAT");
        setting = !e ? -1 : strcmp(e, "0") == 0 ? 0 : strcmp(e, "64") == 0 ? 64 : strcmp(e, "128") == 0 ? 128 : -1;
    }
    return setting;
}

/* The cooperative-matrix tile for a float16 / bfloat16 product, or 0: where
 * the device lists the dtype's 16x16x16 shape (never under the apple
 * profile) and the product is at least a fragment wide. 128 x 128 where
 * those tiles fill the device (about two workgroups an SM on the H200),
 * else 64 x 64. */
static int coop_tile(rs_stream *s, rs_dtype dt, const conv_plan *p, int64_t groups) {
    int khr = rs_device_coopmat_khr(rs_stream_device(s));
    int have = dt == RS_FLOAT16 ? (khr & RS_COOPMAT_KHR_F16) : dt == RS_BFLOAT16 ? (khr & RS_COOPMAT_KHR_BF16) : 0;
    const rs_features *f = rs_stream_features(s);
    int setting = coop_setting();
    if (!have || setting == 0 || f->subgroup_size != 32 || f->max_workgroup_invocations < 128 || p->m < 32 ||
        p->nc < 16 || p->k < COOP_BK)
        return 0;
    int64_t big = (p->m + 127) / 128 * ((p->nc + 127) / 128) * groups;
    int tile = setting > 0 ? setting : p->nc >= 96 && big >= 256 ? 128 : 64;
    if (tile == 128 && f->max_shared_memory < coop_shared(128)) tile = 64;
    return f->max_shared_memory >= coop_shared(tile) ? tile : 0;
}

/* How many parts k splits into: where the tiles (times the groups and
 * classes) are fewer than about 256 workgroups, enough parts to make that
 * many, each at least 16 slices deep; their partial sums are added in
 * order by a second pass (MODE 3), so the result depends only on the
 * shape. Not for the input gradient's stride classes, whose products
 * differ in depth. */
static int64_t split_count(const rs_conv *c, const conv_plan *p, int64_t groups) {
    /* RUSSET_CONV_SPLIT=0: only the weight gradient splits (to compare;
     * read once) */
    static int forward_splits = -1; /* a race writes the same value */
    if (forward_splits < 0) forward_splits = rs_env_flag("RUSSET_CONV_SPLIT", 1);
    int64_t tiles = p->tiles_m * p->tiles_n * groups * p->classes;
    if (p->classes > 1 || p->k <= 0 || tiles <= 0 || (c->op != RS_CONV_GRAD_WEIGHT && !forward_splits)) return 1;
    int64_t want = (256 + tiles - 1) / tiles, most = (p->k + 16 * p->bk - 1) / (16 * p->bk);
    return want < most ? want : most;
}

static int mult8(int64_t v) { return v % 8 == 0; }

/* the spatial strides st[3] of a dense volume of sizes sz[3] (unit dims
 * excepted), i.e. the volume's elements are adjacent in order */
static int dense_volume(const int64_t *sz, const int64_t *st) {
    int64_t e = 1;
    for (int j = 2; j >= 0; --j) {
        if (sz[j] > 1 && st[j] != e) return 0;
        e *= sz[j];
    }
    return 1;
}

/* conv_coopmat_khr.comp's 16-byte loads: the 8 k of a load (from a
 * multiple of 8) are adjacent elements, inside or outside the product
 * together, at a 16-byte aligned address. Forward: the weights (k is (c, r)
 * along a dense row, or channels_last with C / groups a multiple of 8) and
 * a channels_last x (8 channels at one kernel offset); weight gradient: dy,
 * whose k is (n, p) over dense output volumes of a multiple of 8. */
static void coop_vectors(const rs_conv *c, conv_plan *p) {
    if (c->op == RS_CONV_FORWARD) {
        p->vec_a = p->k_cf && p->xs[1] == 1 && mult8(p->cg) && mult8(p->xs[0]) && mult8(p->xs[2]) &&
                   mult8(p->xs[3]) && mult8(p->xs[4]) && c->input.address % 16 == 0;
        int rows = p->k_cf ? p->ws[1] == 1 && mult8(p->cg) && mult8(p->ws[2]) && mult8(p->ws[3]) && mult8(p->ws[4])
                           : (p->cg == 1 || p->ws[1] == vol3(p->ker)) && dense_volume(p->ker, p->ws + 2) && mult8(p->k);
        p->vec_b = rows && mult8(p->ws[0]) && c->weight.address % 16 == 0;
    } else if (c->op == RS_CONV_GRAD_WEIGHT) {
        p->vec_a = mult8(vol3(p->out + 2)) && dense_volume(p->out + 2, p->ys + 2) && mult8(p->ys[0]) &&
                   mult8(p->ys[1]) && c->output.address % 16 == 0;
    }
}

static rs_status plan(rs_stream *s, const rs_conv *c, conv_plan *p) {
    memset(p, 0, sizeof *p);
    if (!s || !c) return rs_error(RS_ERR_INVALID, "rs_conv: missing arguments");
    if ((int)c->op < 0 || c->op > RS_CONV_GRAD_WEIGHT) return rs_error(RS_ERR_INVALID, "rs_conv: bad op");
    const char *name = op_name(c->op);
    if (c->dims < 1 || c->dims > 3) return rs_error(RS_ERR_INVALID, "%s: %d spatial dims (1 to 3)", name, c->dims);
    rs_dtype dt = c->input.dtype;
    if (!dtype_supported(dt)) return rs_error(RS_ERR_UNSUPPORTED, "%s: no kernel for %s", name, rs_dtype_name(dt));
    if (rs_dtype_needs_fp64(dt) && !rs_stream_features(s)->has_fp64)
        return rs_error(RS_ERR_UNSUPPORTED, "%s: %s needs float64 arithmetic, which this device lacks", name,
                        rs_dtype_name(dt));
    rs_status st;
    if ((st = rs_check_nc_view(name, "input", &c->input, c->dims, dt, CONV_DIM_MAX)) != RS_OK) return st;
    if ((st = rs_check_nc_view(name, "weight", &c->weight, c->dims, dt, CONV_DIM_MAX)) != RS_OK) return st;
    if ((st = rs_check_nc_view(name, "output", &c->output, c->dims, dt, CONV_DIM_MAX)) != RS_OK) return st;

    int64_t wsz[5];
    rs_tensor_ncdhw(&c->input, c->dims, p->in, p->xs);
    rs_tensor_ncdhw(&c->weight, c->dims, wsz, p->ws);
    rs_tensor_ncdhw(&c->output, c->dims, p->out, p->ys);
    int64_t g = c->groups;
    if (g < 1 || p->in[1] % g != 0 || wsz[0] % g != 0)
        return rs_error(RS_ERR_INVALID, "%s: %lld groups do not divide %lld input and %lld output channels", name,
                        (long long)g, (long long)p->in[1], (long long)wsz[0]);
    p->cg = p->in[1] / g;
    p->og = wsz[0] / g;
    if (wsz[1] != p->cg || p->out[1] != wsz[0] || p->out[0] != p->in[0])
        return rs_error(RS_ERR_INVALID, "%s: shapes do not match: input (%lld, %lld, ...), weight (%lld, %lld, ...), "
                        "output (%lld, %lld, ...), %lld groups", name, (long long)p->in[0], (long long)p->in[1],
                        (long long)wsz[0], (long long)wsz[1], (long long)p->out[0], (long long)p->out[1],
                        (long long)g);
    for (int j = 0; j < 3; ++j) p->ker[j] = wsz[2 + j], p->str[j] = p->dil[j] = 1;
    for (int j = 0; j < c->dims; ++j) {
        int k = 3 - c->dims + j;
        p->str[k] = c->stride[j];
        p->pad[k] = c->pad[j];
        p->dil[k] = c->dil[j];
    }
    for (int j = 0; j < 3; ++j)
        if (p->str[j] < 1 || p->dil[j] < 1 || p->pad[j] < 0 || p->str[j] >= CONV_DIM_MAX ||
            p->pad[j] >= CONV_DIM_MAX || p->ker[j] * p->dil[j] >= CONV_DIM_MAX ||
            p->out[2 + j] * p->str[j] >= CONV_DIM_MAX)
            return rs_error(RS_ERR_INVALID, "%s: bad geometry (stride %lld, padding %lld, dilation %lld)", name,
                            (long long)p->str[j], (long long)p->pad[j], (long long)p->dil[j]);

    int64_t n = p->in[0], ovol = vol3(p->out + 2), kvol = vol3(p->ker);
    p->classes = 1;
    /* channels fastest along k where the view k gathers from is channels_last */
    switch (c->op) {
    case RS_CONV_FORWARD:
        p->m = n * ovol, p->nc = p->og, p->k = p->cg * kvol;
        p->k_cf = p->cg > 1 && p->xs[1] == 1;
        p->a_kf = p->k_cf;
        p->b_kf = cr_fast_stride(p, p->ws[1], p->ws + 2) == 1 || p->ws[0] != 1;
        break;
    case RS_CONV_GRAD_INPUT:
        /* one product per class of the stride (input positions by
         * (i + pad) mod s): its rows at most N times the ceiling of each
         * size over the stride, its k at most all of (o, r) */
        p->m = n;
        for (int j = 0; j < 3; ++j) {
            p->classes *= p->str[j] < p->in[2 + j] ? p->str[j] : p->in[2 + j];
            p->m *= (p->in[2 + j] + p->str[j] - 1) / p->str[j];
        }
        p->nc = p->cg, p->k = p->og * kvol;
        p->k_cf = p->og > 1 && p->ys[1] == 1;
        p->a_kf = p->k_cf;
        p->b_kf = cr_fast_stride(p, p->ws[0], p->ws + 2) == 1 || p->ws[1] != 1;
        break;
    default:
        p->m = p->og, p->nc = p->cg * kvol, p->k = n * ovol;
        p->k_cf = p->cg > 1 && p->xs[1] == 1;
        p->a_kf = p->ys[1] != 1;
        p->b_kf = !p->k_cf;
        break;
    }
    p->coop = coop_tile(s, dt, p, g * p->classes);
    if (p->coop) {
        coop_vectors(c, p);
        p->bk = COOP_BK;
        p->tiles_m = (p->m + p->coop - 1) / p->coop;
        p->tiles_n = (p->nc + p->coop - 1) / p->coop;
    } else {
        p->bk = acc_bytes(dt) == 4 ? 16 : 8;
        choose_tile(p, g * p->classes, 0);
        /* where the whole tiles would not fill the device and k cannot be
         * split (below), smaller tiles */
        if (c->op != RS_CONV_GRAD_WEIGHT && split_count(c, p, g) == 1) choose_tile(p, g * p->classes, 1);
        p->vw = acc_bytes(dt) == 4 && p->tm % 4 == 0 && p->tn % 4 == 0 ? 4 : 1;
    }
    p->splits = split_count(c, p, g);
    p->kps = p->k;
    if (p->splits > 1) {
        p->kps = (p->k + p->splits - 1) / p->splits;
        p->kps = (p->kps + p->bk - 1) / p->bk * p->bk;
        p->splits = (p->k + p->kps - 1) / p->kps;
    }
    return RS_OK;
}

static void kernel_name(const rs_conv *c, const conv_plan *p, char *buf, size_t len) {
    if (p->coop)
        snprintf(buf, len, "%s-coopmat-%dx%d-k%d%s%s%s%s", op_name(c->op), p->coop, p->coop, p->bk,
                 p->k_cf ? "-cl" : "", p->vec_a ? "-va" : "", p->vec_b ? "-vb" : "", p->splits > 1 ? "-split" : "");
    else
        snprintf(buf, len, "%s-%dx%d-k%d%s%s", op_name(c->op), (256 / p->wx) * p->tm, p->wx * p->tn, p->bk,
                 p->k_cf ? "-cl" : "", p->splits > 1 ? "-split" : "");
}

const char *rs_conv_kernel_name(rs_stream *s, const rs_conv *c) {
    static _Thread_local char name[64];
    conv_plan p;
    if (plan(s, c, &p) != RS_OK) return "invalid";
    kernel_name(c, &p, name, sizeof name);
    return name;
}

static uint32_t cap(int64_t v) { return (uint32_t)(v < 65535 ? v : 65535); }

rs_status rs_conv_run(rs_stream *s, const rs_conv *c) {
    conv_plan p;
    rs_status st = plan(s, c, &p);
    if (st != RS_OK) return st;
    if (p.m == 0 || p.nc == 0) return RS_OK;
    rs_device *dev = rs_stream_device(s);
    rs_dtype dt = c->input.dtype;

    uint64_t addr;
    void *host = NULL;
    if ((st = rs_stream_arena(s, CP_SLOTS * sizeof(int64_t), &host, &addr)) != RS_OK) return st;
    int64_t *cp = host;
    cp[CP_N] = p.in[0];
    cp[CP_CG] = p.cg;
    cp[CP_OG] = p.og;
    cp[CP_G] = c->groups;
    for (int j = 0; j < 3; ++j) {
        cp[CP_IN + j] = p.in[2 + j];
        cp[CP_OUT + j] = p.out[2 + j];
        cp[CP_KER + j] = p.ker[j];
        cp[CP_STRIDE + j] = p.str[j];
        cp[CP_PAD + j] = p.pad[j];
        cp[CP_DIL + j] = p.dil[j];
    }
    memcpy(cp + CP_XS, p.xs, sizeof p.xs);
    memcpy(cp + CP_WS, p.ws, sizeof p.ws);
    memcpy(cp + CP_YS, p.ys, sizeof p.ys);
    cp[CP_M] = p.m;
    cp[CP_NC] = p.nc;
    cp[CP_K] = p.k;
    cp[CP_TILES_M] = p.tiles_m;
    cp[CP_TILES_N] = p.tiles_n;
    cp[CP_SPLITS] = p.splits;
    cp[CP_KPS] = p.kps;
    cp[CP_CLASSES] = p.classes;
    cp[CP_FLAGS] = (p.a_kf ? CF_A_KF : 0) | (p.b_kf ? CF_B_KF : 0) | (p.k_cf ? CF_K_CF : 0) |
                   (p.vec_a ? CF_VEC_A : 0) | (p.vec_b ? CF_VEC_B : 0);

    struct { RS_CONV_PUSH } pc = {c->input.address, c->weight.address, c->output.address,
            c->op == RS_CONV_FORWARD ? c->bias : 0, 0, addr};
    int split = p.splits > 1;
    uint64_t part_bytes = 0;
    if (split) {
        part_bytes = (uint64_t)(p.splits * c->groups * p.m * p.nc) * (uint64_t)acc_bytes(dt);
        if ((st = rs_alloc(dev, part_bytes, s, &pc.part)) != RS_OK) return st;
    }

    rs_access acc[5];
    int na = 0;
    /* the product's result is written by the second pass where k is split */
    acc[na++] = rs_tensor_access(&c->input, c->op == RS_CONV_GRAD_INPUT && !split);
    acc[na++] = rs_tensor_access(&c->weight, c->op == RS_CONV_GRAD_WEIGHT && !split);
    acc[na++] = rs_tensor_access(&c->output, c->op == RS_CONV_FORWARD && !split);
    rs_access bias_acc = {pc.bias, (uint64_t)c->output.sizes[1] * rs_dtype_size(dt), 0};
    if (pc.bias) acc[na++] = bias_acc;
    if (split) acc[na++] = (rs_access){pc.part, part_bytes, 1};

    char defines[160];
    rs_kernel *k = NULL;
    if (p.coop) {
        char module[64];
        snprintf(module, sizeof module, "conv_coopmat_khr_%sm%d_t%d", dt == RS_BFLOAT16 ? "bf16_" : "", (int)c->op,
                 p.coop);
        st = rs_kernel_spirv(dev, module, &k);
    } else {
        snprintf(defines, sizeof defines,
                 "DT=%d;MODE=%d;WX=%du;TM=%du;TN=%du;BK=%du;VW=%d;A_KF=%d;B_KF=%d;K_CF=%d;SPLIT=%d;ACCB=%d;SUM2=%d",
                 (int)dt, (int)c->op, p.wx, p.tm, p.tn, p.bk, p.vw, p.a_kf, p.b_kf, p.k_cf, split, acc_bytes(dt),
                 acc_bytes(dt) == 4);
        st = rs_kernel_get(dev, "conv.comp", defines, &k);
    }
    if (st == RS_OK) {
        uint32_t groups[3] = {cap(p.tiles_n), cap(p.tiles_m), cap(c->groups * p.splits * p.classes)};
        st = rs_dispatch(s, k, groups, &pc, sizeof pc, acc, na);
    }
    if (st == RS_OK && split) {
        /* the partial sums, added in split order into the result */
        const rs_tensor *res = c->op == RS_CONV_FORWARD ? &c->output : c->op == RS_CONV_GRAD_INPUT ? &c->input
                                                                                               : &c->weight;
        rs_access sacc[3] = {{pc.part, part_bytes, 0}, rs_tensor_access(res, 1), bias_acc};
        snprintf(defines, sizeof defines, "DT=%d;MODE=3;SUM_OF=%d;K_CF=%d;ACCB=%d", (int)dt, (int)c->op, p.k_cf,
                 acc_bytes(dt));
        if ((st = rs_kernel_get(dev, "conv.comp", defines, &k)) == RS_OK) {
            uint64_t items = (uint64_t)(c->groups * p.m * p.nc);
            uint32_t groups[3] = {rs_groups_capped(s, (items + 255) / 256, 65535), 1, 1};
            st = rs_dispatch(s, k, groups, &pc, sizeof pc, sacc, pc.bias ? 3 : 2);
        }
    }
    if (split) rs_free(dev, pc.part);
    return st;
}
