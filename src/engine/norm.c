/* norm.c: the normalization engine's four building blocks (kernels/
 * norm.comp; the contract is rs_norm in russet/norm.h): row statistics, row
 * sums for the backward pass, and the elementwise forward and backward
 * transforms. The geometry travels in a parameter block in the stream
 * arena (the NP_ slots of norm.comp). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/engine.h"
#include "params/norm.h"


/* elements a chunk of a row should hold at least, and the workgroups a
 * reduction should have to fill a large GPU */
#define CHUNK_MIN 2048
/* APPLY and GRAD: elements an invocation loads before it stores (norm.comp's
 * EW_UNROLL), and the most workgroups a launch takes (grid-stride) */
#define EW_UNROLL 4
#define EW_GROUPS 8192
#define GROUPS_WANTED 1024

static const char *norm_name(rs_norm_op op) {
    static const char *const names[8] = {"norm_stats",   "norm_apply",   "norm_sums",     "norm_grad",
                                         "norm_row_fwd", "norm_row_bwd", "norm_col_sums", "norm_bn_params"};
    return names[op];
}

/* byte size of a vector of n opmath elements */
static uint64_t vec_bytes(rs_dtype dt, int64_t n) { return (uint64_t)n * (dt == RS_FLOAT64 ? 8u : 4u); }

typedef struct norm_push { RS_NORM_PUSH } norm_push;

/* The parameter block (the NP_ slots, zeroed) in the stream arena, and
 * push constants holding its address and nothing else. */
static rs_status norm_begin(rs_stream *s, int64_t **pp, norm_push *pc) {
    uint64_t params = 0;
    rs_status st = rs_stream_arena(s, NP_SLOTS * sizeof(int64_t), (void **)pp, &params);
    if (st != RS_OK) return st;
    memset(*pp, 0, NP_SLOTS * sizeof(int64_t));
    memset(pc, 0, sizeof *pc);
    pc->params = params;
    return RS_OK;
}

/* elements a lane of the reductions' first pass loads before folding them
 * (norm.comp's UNROLL, 1 to 16): one load in flight a lane left a
 * channels_last batch norm's statistics far below the memory's bandwidth
 * (H100, the statistics of (64, 64, 64, 64): 4 -> 8 took 76 -> 54 us).
 * RUSSET_NORM_UNROLL, a tuning knob read once, sets it. */
static int norm_unroll(void) {
    static int u;
    if (!u) u = (int)rs_env_int("RUSSET_NORM_UNROLL", 8, 1, 16);
    return u;
}

/* lanes per row for the whole-row kernels: about `per` elements a lane
 * (8: the H200 ran layer_norm (4096, 768) forward in 0.027 ms against 0.033
 * with 4; RUSSET_NORM_ROW_ELEMS, a tuning knob, sets it from 1 to 8, the
 * registers a lane keeps: norm.comp's CACHE), a power of two from 1 to the
 * workgroup (256); short rows share a workgroup */
static int row_lanes(int64_t n, int vec4) {
    static int elems;
    if (!elems) elems = (int)rs_env_int("RUSSET_NORM_ROW_ELEMS", 8, 1, 8);
    /* 16-byte words: CACHE4 (4) words a lane */
    int per = vec4 ? 16 : elems;
    int lanes = 1;
    while (lanes < 256 && (int64_t)lanes * per < n) lanes *= 2;
    return lanes;
}

/* ROW_FWD, ROW_BWD and COL_SUMS over contiguous (rows, inner) tensors */
static rs_status run_rows(rs_stream *s, const rs_norm *p, const char *name) {
    rs_dtype dt = p->dtype;
    int64_t m = p->rows, n = p->inner;
    if (m < 0 || n < 0) return rs_error(RS_ERR_INVALID, "%s: negative size", name);
    if (m == 0 || n == 0) {
        if (n == 0 && m > 0) return rs_error(RS_ERR_INVALID, "%s: rows of no elements", name);
        return RS_OK;
    }
    int cols = p->op == RS_NORM_COL_SUMS, bwd = p->op != RS_NORM_ROW_FWD;
    if (!p->x || (bwd && !p->g)) return rs_error(RS_ERR_INVALID, "%s: missing tensor", name);
    if (cols ? !p->out1 || !p->out2 : p->op == RS_NORM_ROW_FWD ? !p->y || !p->out2 : !p->y || !p->b)
        return rs_error(RS_ERR_INVALID, "%s: missing output or statistics", name);
    rs_device *dev = rs_stream_device(s);
    uint64_t bytes = (uint64_t)(m * n) * rs_dtype_size(dt);
    int64_t *pp = NULL;
    norm_push pc;
    rs_status st = norm_begin(s, &pp, &pc);
    if (st != RS_OK) return st;
    pc.x = p->x, pc.g = p->g, pc.y = p->y, pc.a = p->a, pc.b = p->b, pc.w = p->w, pc.bias = p->bias;
    pc.s1 = p->out1, pc.s2 = p->out2;
    pp[NP_ROWS] = m;
    pp[NP_INNER] = n;
    pp[NP_CENTRED] = p->op == RS_NORM_ROW_FWD ? p->out1 != 0 : p->a != 0;
    pp[NP_INV_K] = rs_opmath_slot_bits(dt, 1.0 / (double)n);
    pp[NP_EPS] = rs_opmath_slot_bits(dt, p->eps);
    rs_access acc[10];
    int k = 0;
    acc[k++] = (rs_access){p->x, bytes, 0};
    if (bwd) acc[k++] = (rs_access){p->g, bytes, 0};
    if (!cols) acc[k++] = (rs_access){p->y, bytes, 1};
    if (p->a) acc[k++] = (rs_access){p->a, vec_bytes(dt, m), 0};
    if (p->b) acc[k++] = (rs_access){p->b, vec_bytes(dt, m), 0};
    if (p->w && !cols) acc[k++] = (rs_access){p->w, vec_bytes(dt, n), 0};
    if (p->bias && !cols) acc[k++] = (rs_access){p->bias, vec_bytes(dt, n), 0};
    int64_t outs = cols ? n : m;
    if (p->out1) acc[k++] = (rs_access){p->out1, vec_bytes(dt, outs), 1};
    if (p->out2 && p->op != RS_NORM_ROW_BWD) acc[k++] = (rs_access){p->out2, vec_bytes(dt, outs), 1};
    char defines[64];
    rs_kernel *kern = NULL;
    if (!cols) {
        /* the forward on 16-byte words: float32 rows of a multiple of 4
         * elements, every vector 16-byte aligned (RUSSET_NORM_VEC4=0, a
         * tuning knob read once, turns it off) */
        static int vec4_on = -1;
        if (vec4_on < 0) vec4_on = rs_env_flag("RUSSET_NORM_VEC4", 1);
        int vec4 = vec4_on && p->op == RS_NORM_ROW_FWD && dt == RS_FLOAT32 && n % 4 == 0 &&
                   ((p->x | p->y | p->w | p->bias) & 15u) == 0;
        int lanes = row_lanes(n, vec4);
        int64_t groups = (m + 256 / lanes - 1) / (256 / lanes);
        snprintf(defines, sizeof defines, "MODE=%d;PASS=1;DT=%d;LANES=%d;VEC4=%d", (int)p->op, (int)dt, lanes, vec4);
        if ((st = rs_kernel_get(dev, "norm.comp", defines, &kern)) != RS_OK) return st;
        uint32_t g[3] = {rs_groups_capped(s, (uint64_t)groups, RS_GROUPS_MAX), 1, 1};
        return rs_dispatch(s, kern, g, &pc, sizeof pc, acc, k);
    }
    /* column sums: chunks of rows so that about GROUPS_WANTED * 256 items
     * run, each at least 16 rows; one chunk writes the results directly */
    int64_t chunks = (GROUPS_WANTED * 256 + n - 1) / n, most = (m + 15) / 16;
    if (chunks > most) chunks = most;
    if (chunks < 1) chunks = 1;
    int64_t chunk = (m + chunks - 1) / chunks;
    chunks = (m + chunk - 1) / chunk;
    pp[NP_CHUNKS] = chunks;
    pp[NP_CHUNK] = chunk;
    snprintf(defines, sizeof defines, "MODE=%d;PASS=1;DT=%d", (int)p->op, (int)dt);
    if ((st = rs_kernel_get(dev, "norm.comp", defines, &kern)) != RS_OK) return st;
    if (chunks == 1) return rs_launch(s, kern, (uint64_t)n, &pc, sizeof pc, acc, k);
    /* partials (2 per chunk and column), added in order by pass 2; freed
     * in stream order */
    uint64_t part_bytes = vec_bytes(dt, 2 * chunks * n);
    if ((st = rs_alloc(dev, part_bytes, s, &pc.part)) != RS_OK) return st;
    rs_access pacc[8];
    int pn = 0;
    for (int i = 0; i < k - 2; ++i) pacc[pn++] = acc[i];
    pacc[pn++] = (rs_access){pc.part, part_bytes, 1};
    st = rs_launch(s, kern, (uint64_t)(chunks * n), &pc, sizeof pc, pacc, pn);
    if (st == RS_OK) {
        rs_access facc[3] = {{pc.part, part_bytes, 0}, acc[k - 2], acc[k - 1]};
        snprintf(defines, sizeof defines, "MODE=%d;PASS=2;DT=%d", (int)p->op, (int)dt);
        if ((st = rs_kernel_get(dev, "norm.comp", defines, &kern)) == RS_OK)
            st = rs_launch(s, kern, (uint64_t)n, &pc, sizeof pc, facc, 3);
    }
    rs_free(dev, pc.part);
    return st;
}

/* BN_PARAMS: a channel an invocation */
static rs_status run_bn_params(rs_stream *s, const rs_norm *p, const char *name) {
    if (p->rows < 0) return rs_error(RS_ERR_INVALID, "%s: negative size", name);
    if (p->rows == 0) return RS_OK;
    if (!p->b || !p->out1 || !p->out2) return rs_error(RS_ERR_INVALID, "%s: missing vectors", name);
    const rs_dtype dt = p->dtype;
    int64_t *pp = NULL;
    norm_push pc;
    rs_status st = norm_begin(s, &pp, &pc);
    if (st != RS_OK) return st;
    pp[NP_ROWS] = p->rows;
    pp[NP_BN] = p->bn_var != 0;
    pp[NP_EPS] = rs_opmath_slot_bits(dt, p->eps);
    pc.a = p->a, pc.b = p->b, pc.w = p->w, pc.bias = p->bias, pc.s1 = p->out1, pc.s2 = p->out2;
    const uint64_t bytes = vec_bytes(dt, p->rows);
    rs_access acc[6];
    int n = 0;
    const uint64_t ins[4] = {p->a, p->b, p->w, p->bias};
    for (int i = 0; i < 4; ++i)
        if (ins[i]) acc[n++] = (rs_access){ins[i], bytes, 0};
    acc[n++] = (rs_access){p->out1, bytes, 1};
    acc[n++] = (rs_access){p->out2, bytes, 1};
    char defines[64];
    snprintf(defines, sizeof defines, "MODE=%d;PASS=1;DT=%d", (int)RS_NORM_BN_PARAMS, (int)dt);
    rs_kernel *k = NULL;
    if ((st = rs_kernel_get(rs_stream_device(s), "norm.comp", defines, &k)) != RS_OK) return st;
    return rs_launch(s, k, (uint64_t)p->rows, &pc, sizeof pc, acc, n);
}

int rs_norm_computes(rs_device *dev, rs_dtype dt) {
    return dev && rs_dtype_is_nn_float(dt) && (dt != RS_FLOAT64 || rs_device_features(dev)->has_fp64);
}

rs_status rs_norm_run(rs_stream *s, const rs_norm *p) {
    if (!s || !p) return rs_error(RS_ERR_INVALID, "rs_norm: missing arguments");
    if ((int)p->op < 0 || p->op > RS_NORM_BN_PARAMS) return rs_error(RS_ERR_INVALID, "rs_norm: bad op");
    const char *name = norm_name(p->op);
    rs_dtype dt = p->dtype;
    if (!rs_dtype_is_nn_float(dt))
        return rs_error(RS_ERR_UNSUPPORTED, "%s: no kernel for %s", name, rs_dtype_name(dt));
    if (dt == RS_FLOAT64 && !rs_stream_features(s)->has_fp64)
        return rs_error(RS_ERR_UNSUPPORTED, "%s: float64 needs the device's fp64 arithmetic", name);
    if (p->op == RS_NORM_BN_PARAMS) return run_bn_params(s, p, name);
    if (p->op >= RS_NORM_ROW_FWD) return run_rows(s, p, name);
    int reduce = p->op == RS_NORM_STATS || p->op == RS_NORM_SUMS;
    int needs_g = p->op == RS_NORM_SUMS || p->op == RS_NORM_GRAD;
    if (p->rows < 0 || p->outer < 0 || p->inner < 0 || p->numel < 0)
        return rs_error(RS_ERR_INVALID, "%s: negative size", name);
    if (reduce ? p->rows == 0 : p->numel == 0) return RS_OK;
    if (!p->x || (needs_g && !p->g)) return rs_error(RS_ERR_INVALID, "%s: missing tensor", name);
    rs_device *dev = rs_stream_device(s);
    uint64_t esize = rs_dtype_size(dt);

    int64_t *pp = NULL;
    norm_push pc;
    rs_status st = norm_begin(s, &pp, &pc);
    if (st != RS_OK) return st;
    pc.x = p->x;
    pc.g = p->g;
    pc.a = p->a;
    pc.b = p->b;
    pc.w = p->w;
    pp[NP_ROWS] = p->rows;
    rs_access acc[16];
    int n = 0;
    char defines[96];
    rs_kernel *k = NULL;

    if (reduce) {
        int64_t kk = p->outer * p->inner;
        if (p->inner == 0 || kk == 0) return rs_error(RS_ERR_INVALID, "%s: rows of no elements", name);
        if (!p->out1 || !p->out2) return rs_error(RS_ERR_INVALID, "%s: missing outputs", name);
        if (p->row_stride < 0 || p->outer_stride < 0) return rs_error(RS_ERR_INVALID, "%s: negative stride", name);
        /* rows that are neighbouring columns (a channels_last batch's
         * channels: one element a row per outer index, the rows side by
         * side) are reduced tc at a time, neighbouring lanes on
         * neighbouring rows: one row per workgroup would read one element
         * in every outer_stride (a 32-byte sector for 4 bytes) */
        int tc = 1;
        if (p->inner == 1 && p->row_stride == 1 && p->rows > 1 && p->outer_stride >= p->rows)
            while (tc < 32 && tc < p->rows) tc *= 2;
        const int64_t tiles = (p->rows + tc - 1) / tc;
        /* chunks: enough workgroups to fill the GPU, each a few thousand
         * elements; one chunk (no partials) where rows alone suffice */
        int64_t chunks = (GROUPS_WANTED + tiles - 1) / tiles, most = (kk * tc + CHUNK_MIN - 1) / CHUNK_MIN;
        if (chunks > most) chunks = most;
        if (chunks < 1) chunks = 1;
        /* float32 statistics on 16-byte words (norm.comp's VW; H100, the
         * pass over (64, 64, 64, 64): 54 -> 40 us NCHW), x 16-byte aligned:
         * - one row a workgroup whose elements come in aligned runs of 4
         *   (inner, both strides and the chunks multiples of 4);
         * - rows side by side (channels_last) whose element k is a run of 4
         *   rows (row stride 1; rows, tile and outer stride multiples of 4)
         *   longer than RS_NORM_SEQ_MAX.
         * RUSSET_NORM_WORDS=0, a tuning knob read once, turns it off. */
        static int words_on = -1;
        if (words_on < 0) words_on = rs_env_flag("RUSSET_NORM_WORDS", 1);
        int words = words_on && p->op == RS_NORM_STATS && dt == RS_FLOAT32 && (p->x & 15u) == 0 &&
                    p->outer_stride % 4 == 0;
        int vw = words && (tc == 1 ? p->inner % 4 == 0 && p->row_stride % 4 == 0
                                   : tc % 4 == 0 && p->rows % 4 == 0 && kk > RS_NORM_SEQ_MAX)
                     ? 4
                     : 1;
        int64_t chunk = (kk + chunks - 1) / chunks;
        if (tc == 1) chunk = (chunk + vw - 1) / vw * vw;
        chunks = (kk + chunk - 1) / chunk;
        pp[NP_OUTER] = p->outer;
        pp[NP_INNER] = p->inner;
        pp[NP_ROW_STRIDE] = p->row_stride;
        pp[NP_OUTER_STRIDE] = p->outer_stride;
        pp[NP_CHUNKS] = chunks;
        pp[NP_CHUNK] = chunk;
        pp[NP_STAT_OUTER] = p->stat_of_outer != 0;
        pc.s1 = p->out1;
        pc.s2 = p->out2;
        if (p->bn_train) {
            if (p->op != RS_NORM_STATS || !p->alpha || !p->beta || kk < 2)
                return rs_error(RS_ERR_INVALID, "%s: batch norm's training forward needs STATS, alpha, beta and "
                                "more than one element a channel", name);
            pp[NP_BN] = 1;
            pp[NP_EPS] = rs_opmath_slot_bits(dt, p->eps);
            pp[NP_MOMENTUM] = rs_opmath_slot_bits(dt, p->momentum);
            pp[NP_KEEP] = rs_opmath_slot_bits(dt, 1.0 - p->momentum);
            pp[NP_RUN_MEAN] = (int64_t)p->run_mean;
            pp[NP_RUN_VAR] = (int64_t)p->run_var;
            pp[NP_ALPHA] = (int64_t)p->alpha;
            pp[NP_BETA] = (int64_t)p->beta;
            pc.bias = p->bias;
        }
        /* the bytes the rows span */
        uint64_t span = ((uint64_t)(p->outer - 1) * (uint64_t)p->outer_stride +
                         (uint64_t)(p->rows - 1) * (uint64_t)p->row_stride + (uint64_t)p->inner) * esize;
        acc[n++] = (rs_access){p->x, span, 0};
        if (needs_g) acc[n++] = (rs_access){p->g, span, 0};
        int64_t stat_n = p->stat_of_outer ? p->outer : p->rows;
        if (p->a) acc[n++] = (rs_access){p->a, vec_bytes(dt, stat_n), 0};
        if (p->b) acc[n++] = (rs_access){p->b, vec_bytes(dt, stat_n), 0};
        /* what writes the results (pass 1 with one chunk, else pass 2)
         * touches the last `nres` accesses: out1, out2, and batch norm's
         * vectors (w among them: only the results read it there) */
        int first_res = p->bn_train ? n : n + (p->w != 0);
        if (p->w) acc[n++] = (rs_access){p->w, vec_bytes(dt, p->bn_train ? p->rows : p->inner), 0};
        if (p->bn_train) {
            if (p->bias) acc[n++] = (rs_access){p->bias, vec_bytes(dt, p->rows), 0};
            if (p->run_mean) acc[n++] = (rs_access){p->run_mean, vec_bytes(dt, p->rows), 1};
            if (p->run_var) acc[n++] = (rs_access){p->run_var, vec_bytes(dt, p->rows), 1};
            acc[n++] = (rs_access){p->alpha, vec_bytes(dt, p->rows), 1};
            acc[n++] = (rs_access){p->beta, vec_bytes(dt, p->rows), 1};
        }
        acc[n++] = (rs_access){p->out1, vec_bytes(dt, p->rows), 1};
        acc[n++] = (rs_access){p->out2, vec_bytes(dt, p->rows), 1};
        int nres = n - first_res;
        uint64_t groups = (uint64_t)(tiles * chunks);
        uint32_t g[3] = {rs_groups_capped(s, groups, RS_GROUPS_MAX), 1, 1};
        /* k / inner by a multiplication where k < 2^31 */
        int fastdiv = kk <= INT32_MAX && p->inner <= INT32_MAX;
        if (fastdiv) pp[NP_MG_INNER] = (int64_t)rs_fastdiv_magic((uint32_t)p->inner);
        /* and every offset below 2^31 (the span, in elements): 32-bit
         * offsets (norm.comp's OFF32) */
        int off32 = fastdiv && span / esize <= INT32_MAX;
        /* pass 1's kernel: the results themselves with one chunk, else the
         * chunks' partials */
        snprintf(defines, sizeof defines, "MODE=%d;PASS=1;DT=%d;TC=%d;FASTDIV=%d;UNROLL=%d;OFF32=%d;VW=%d",
                 (int)p->op, (int)dt, tc, fastdiv, norm_unroll(), off32, vw);
        if (chunks == 1) {
            if ((st = rs_kernel_get(dev, "norm.comp", defines, &k)) != RS_OK) return st;
            return rs_dispatch(s, k, g, &pc, sizeof pc, acc, n);
        }
        /* partials (3 per chunk), merged in order by pass 2; freed in
         * stream order */
        uint64_t part_bytes = vec_bytes(dt, 3 * p->rows * chunks);
        if ((st = rs_alloc(dev, part_bytes, s, &pc.part)) != RS_OK) return st;
        rs_access pacc[16];
        int pn = 0;
        for (int i = 0; i < first_res; ++i) pacc[pn++] = acc[i];
        pacc[pn++] = (rs_access){pc.part, part_bytes, 1};
        if ((st = rs_kernel_get(dev, "norm.comp", defines, &k)) == RS_OK)
            st = rs_dispatch(s, k, g, &pc, sizeof pc, pacc, pn);
        if (st == RS_OK) {
            rs_access facc[16] = {{pc.part, part_bytes, 0}};
            for (int i = 0; i < nres; ++i) facc[1 + i] = acc[first_res + i];
            snprintf(defines, sizeof defines, "MODE=%d;PASS=2;DT=%d", (int)p->op, (int)dt);
            /* a workgroup per row */
            uint32_t g2[3] = {rs_groups_capped(s, (uint64_t)p->rows, RS_GROUPS_MAX), 1, 1};
            if ((st = rs_kernel_get(dev, "norm.comp", defines, &k)) == RS_OK)
                st = rs_dispatch(s, k, g2, &pc, sizeof pc, facc, 1 + nres);
        }
        rs_free(dev, pc.part);
        return st;
    }

    /* elementwise */
    if (!p->y) return rs_error(RS_ERR_INVALID, "%s: missing output", name);
    if (p->row_div < 1 || p->col_div < 1 || p->rows < 1 || p->cols < 1)
        return rs_error(RS_ERR_INVALID, "%s: bad row or column mapping", name);
    pp[NP_NUMEL] = p->numel;
    pp[NP_ROW_DIV] = p->row_div;
    pp[NP_COL_DIV] = p->col_div;
    pp[NP_COLS] = p->cols;
    pp[NP_INV_K] = rs_opmath_slot_bits(dt, p->inv_k);
    /* r and c by multiplications where everything fits 31 bits */
    int fastdiv = p->numel <= INT32_MAX && p->row_div <= INT32_MAX && p->rows <= INT32_MAX &&
                  p->col_div <= INT32_MAX && p->cols <= INT32_MAX;
    if (fastdiv) {
        pp[NP_MG_ROW_DIV] = (int64_t)rs_fastdiv_magic((uint32_t)p->row_div);
        pp[NP_MG_ROWS] = (int64_t)rs_fastdiv_magic((uint32_t)p->rows);
        pp[NP_MG_COL_DIV] = (int64_t)rs_fastdiv_magic((uint32_t)p->col_div);
        pp[NP_MG_COLS] = (int64_t)rs_fastdiv_magic((uint32_t)p->cols);
    }
    pc.y = p->y;
    pc.bias = p->op == RS_NORM_APPLY ? p->bias : p->scale;
    pc.s1 = p->s1;
    pc.s2 = p->s2;
    uint64_t bytes = (uint64_t)p->numel * esize;
    acc[n++] = (rs_access){p->x, bytes, 0};
    if (needs_g) acc[n++] = (rs_access){p->g, bytes, 0};
    acc[n++] = (rs_access){p->y, bytes, 1};
    if (p->a) acc[n++] = (rs_access){p->a, vec_bytes(dt, p->rows), 0};
    if (p->b) acc[n++] = (rs_access){p->b, vec_bytes(dt, p->rows), 0};
    if (p->w) acc[n++] = (rs_access){p->w, vec_bytes(dt, p->cols), 0};
    if (pc.bias) acc[n++] = (rs_access){pc.bias, vec_bytes(dt, p->cols), 0};
    if (p->op == RS_NORM_GRAD && p->s1) acc[n++] = (rs_access){p->s1, vec_bytes(dt, p->rows), 0};
    if (p->op == RS_NORM_GRAD && p->s2) acc[n++] = (rs_access){p->s2, vec_bytes(dt, p->rows), 0};
    snprintf(defines, sizeof defines, "MODE=%d;PASS=1;DT=%d;FASTDIV=%d;EW_UNROLL=%d", (int)p->op, (int)dt, fastdiv,
             EW_UNROLL);
    if ((st = rs_kernel_get(dev, "norm.comp", defines, &k)) != RS_OK) return st;
    /* EW_UNROLL elements an invocation at least; at most EW_GROUPS
     * workgroups, which loop over the rest (the parameters read once for
     * several elements) */
    uint64_t ew_groups = ((uint64_t)p->numel + RS_KERNEL_WG * EW_UNROLL - 1) / (RS_KERNEL_WG * EW_UNROLL);
    uint32_t g[3] = {rs_groups_capped(s, ew_groups, EW_GROUPS), 1, 1};
    return rs_dispatch(s, k, g, &pc, sizeof pc, acc, n);
}
