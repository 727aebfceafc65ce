/* sort.c: stable sort of rows, and what is built on it: topk (the first k
 * of a sort), kthvalue, median, nanmedian, mode (a pick per sorted row).
 *
 * Rows that fit a shared-memory block (L = 4096 pairs of 32-bit keys, 2048
 * of 64-bit keys) are padded to a power of two and bitonic-sorted in
 * shared memory (kernels/sort.comp). Longer rows take a stable LSD radix
 * sort (kernels/sort_radix.comp), or with RUSSET_SORT=bitonic a bitonic
 * merge: global compare-exchange steps for the strides >= L and one shared-
 * memory pass for the strides below. The radix sort's scatter ranks each
 * block's digits with subgroup ballots where the device has them, else with
 * a shared-memory scan; RUSSET_SORT_RANK=shared|subgroup picks one (for
 * measurement), RUSSET_SORT_ITEMS=4|8 the elements per invocation of the
 * subgroup ranking. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/engine.h"
#include "params/sort.h"

typedef struct sort_push { RS_SORT_PUSH } sort_push;

typedef struct radix_push { RS_SORT_RADIX_PUSH } radix_push;

#define RADIX_WG 256u  /* RS_WG in sort_radix.comp */

static int key64(rs_dtype dt) { return dt == RS_INT64 || dt == RS_UINT64 || dt == RS_FLOAT64; }

int rs_dtype_has_sort_key(rs_dtype dt) {
    switch (dt) {
    case RS_BOOL: case RS_UINT8: case RS_INT8: case RS_INT16: case RS_INT32: case RS_INT64:
    case RS_UINT16: case RS_UINT32: case RS_UINT64:
    case RS_FLOAT16: case RS_BFLOAT16: case RS_FLOAT32: case RS_FLOAT64:
        return 1;
    default:
        return 0;
    }
}

/* Block size: the largest power of two whose (key, index) pairs fit in the
 * device's shared memory, at most 4096. */
static uint32_t block_size(rs_stream *s, int k64) {
    uint32_t shm = rs_stream_features(s)->max_shared_memory;
    uint32_t pair = k64 ? 12 : 8;
    uint32_t L = 4096;
    while (L > 256 && L * pair > shm) L >>= 1;
    return L;
}

typedef struct sort_state {
    rs_device *dev;
    uint64_t keys, idx;
    uint64_t keys_size, idx_size;
    uint64_t tmp[4];  /* radix: second key/index buffers, hist, incl */
    sort_push pc;
    uint32_t L;
    int k64;
    /* a full sort's outputs (either may be NULL): the radix sort's last
     * pass writes them itself, and sets `written` */
    const rs_tensor *values, *indices;
    int written;
} sort_state;

static rs_status kernel(rs_stream *s, const rs_tensor *src, int mode, int desc, int pick, uint32_t L,
                        rs_kernel **k) {
    char defines[128];
    snprintf(defines, sizeof defines, "MODE=%d;IN_DT=%d;KEY64=%d;DESC=%d;L=%u;PICK=%d", mode, (int)src->dtype,
             key64(src->dtype), desc, L, pick);
    return rs_kernel_get(rs_stream_device(s), "sort.comp", defines, k);
}

static rs_status groups_dispatch_n(rs_stream *s, rs_kernel *k, uint64_t groups, const void *pc, uint32_t size,
                                   const rs_access *acc, int nacc) {
    uint32_t capped = rs_groups_capped(s, groups, 65535);
    uint32_t g[3] = {capped ? capped : 1u, 1, 1};
    return rs_dispatch(s, k, g, pc, size, acc, nacc);
}
static rs_status groups_dispatch(rs_stream *s, rs_kernel *k, uint64_t groups, const sort_push *pc,
                                 const rs_access *acc, int nacc) {
    return groups_dispatch_n(s, k, groups, pc, sizeof *pc, acc, nacc);
}

/* The radix scatter's ranking (sort_radix.comp's RANK) and elements per
 * invocation (ITEMS; a block is RADIX_WG * items elements). */
typedef struct radix_cfg {
    int rank;        /* 1: shared-memory scan of packed counters; 2: subgroup ballots */
    uint32_t items;  /* 4 or 8 */
} radix_cfg;

/* Shared memory of RANK 2: the block's (key, index) pairs, the per-subgroup
 * digit counters and sizes (up to RADIX_WG / 4 subgroups) and 3 x 16 words. */
static uint32_t rank2_shared(uint32_t items, int k64) {
    return RADIX_WG * items * (k64 ? 12u : 8u) + (RADIX_WG / 4 * 17 + 48) * 4;
}

/* RUSSET_SORT_RANK=shared|subgroup (read at each sort; default subgroup)
 * and RUSSET_SORT_ITEMS=4|8 (subgroup ranking only; default 8). The
 * subgroup ranking needs ballots in compute shaders, subgroups of at least
 * 4 invocations and its shared memory; a device without them takes the
 * shared ranking, as RUSSET_SORT_RANK=shared does. */
static rs_status radix_config(rs_stream *s, int k64, radix_cfg *cfg) {
    const rs_features *f = rs_stream_features(s);
    const char *rank = getenv("RUSSET_SORT_RANK"), *items = getenv("RUSSET_SORT_ITEMS");
    if (rank && *rank && strcmp(rank, "shared") != 0 && strcmp(rank, "subgroup") != 0)
        return rs_error(RS_ERR_INVALID, "rs_sort: RUSSET_SORT_RANK=%s: expected shared or subgroup", rank);
    if (items && *items && strcmp(items, "4") != 0 && strcmp(items, "8") != 0)
        return rs_error(RS_ERR_INVALID, "rs_sort: RUSSET_SORT_ITEMS=%s: expected 4 or 8", items);
    cfg->rank = 1;
    cfg->items = 4;
    if (rank && strcmp(rank, "shared") == 0) return RS_OK;
    if (!f->has_subgroup_ballot || f->subgroup_size < 4 || f->subgroup_size > 128) return RS_OK;
    /* 4 by default: 35.0% of CUDA on the H200 against 30.2% with 8 (docs/scan_sort.md) */
    uint32_t want = items && *items ? (uint32_t)atoi(items) : 4u;
    for (uint32_t it = want; it >= 4; it >>= 1)
        if (rank2_shared(it, k64) <= f->max_shared_memory) {
            cfg->rank = 2;
            cfg->items = it;
            return RS_OK;
        }
    return RS_OK;
}

static rs_status radix_kernel(rs_stream *s, const rs_tensor *src, int mode, int desc, const radix_cfg *cfg,
                              rs_kernel **k) {
    char defines[128];
    snprintf(defines, sizeof defines, "MODE=%d;IN_DT=%d;KEY64=%d;DESC=%d;ITEMS=%u;RANK=%d", mode, (int)src->dtype,
             key64(src->dtype), desc, cfg->items, mode == 3 ? cfg->rank : 0);
    return rs_kernel_get(rs_stream_device(s), "sort_radix.comp", defines, k);
}

/* Long rows: a stable LSD radix sort, 4 bits per pass (8 passes for 32-bit
 * keys, 16 for 64-bit), into (st->keys, st->idx) with row stride n. Each
 * pass: block digit histograms, their scan (rs_scan, per row), a stable
 * scatter. The first pass reads src (keys encoded on the fly, indices the
 * positions) and writes the second pair of buffers; the pass count is even,
 * so the result ends in the first pair, or, for a full sort (st->values or
 * st->indices), in the outputs. */
static rs_status radix_pairs(rs_stream *s, const rs_tensor *src, int desc, int64_t rows, int64_t n, sort_state *st) {
    rs_status e;
    radix_cfg cfg;
    if ((e = radix_config(s, st->k64, &cfg)) != RS_OK) return e;
    uint64_t chunk = RADIX_WG * cfg.items;
    uint64_t total = (uint64_t)rows * (uint64_t)n;
    uint64_t nb = ((uint64_t)n + chunk - 1) / chunk;
    uint64_t hsize = (uint64_t)rows * 16 * nb;
    st->keys_size = total * (st->k64 ? 8 : 4);
    st->idx_size = total * 4;
    uint64_t sizes[6] = {st->keys_size, st->idx_size, st->keys_size, st->idx_size, hsize * 4, hsize * 8};
    uint64_t *bufs[6] = {&st->keys, &st->idx, &st->tmp[0], &st->tmp[1], &st->tmp[2], &st->tmp[3]};
    for (int i = 0; i < 6; ++i)
        if ((e = rs_alloc(st->dev, sizes[i], s, bufs[i])) != RS_OK) return e;
    rs_kernel *k2 = NULL, *k3 = NULL;
    if ((e = radix_kernel(s, src, 2, desc, &cfg, &k2)) != RS_OK) return e;
    if ((e = radix_kernel(s, src, 3, desc, &cfg, &k3)) != RS_OK) return e;
    radix_push pc;
    memset(&pc, 0, sizeof pc);
    pc.src = src->address;
    pc.keys = st->keys;
    pc.idx = st->idx;
    pc.hist = st->tmp[2];
    pc.incl = st->tmp[3];
    pc.n = (uint32_t)n;
    pc.rows = (uint32_t)rows;
    pc.nb = (uint32_t)nb;
    /* the subgroup ranking's check of the workgroup's subgroups */
    pc.err = rs_device_error_address(st->dev);
    pc.site = rs_device_error_site(st->dev, "sort (subgroup ranking: more than 64 subgroups in a workgroup of 256; "
                                            "RUSSET_SORT_RANK=shared avoids it)");
    rs_tensor hist = rs_tensor_rows(st->tmp[2], RS_UINT32, rows, 16 * (int64_t)nb);
    rs_tensor incl = rs_tensor_rows(st->tmp[3], RS_INT64, rows, 16 * (int64_t)nb);
    uint64_t kb[2] = {st->keys, st->tmp[0]}, ib[2] = {st->idx, st->tmp[1]};
    int bits = st->k64 ? 64 : 32;
    for (int p = 0; p * 4 < bits; ++p) {
        int in = p & 1, out = in ^ 1;
        pc.keys = kb[in];
        pc.idx = ib[in];
        pc.keys_out = kb[out];
        pc.idx_out = ib[out];
        pc.shift = (uint32_t)(4 * p);
        /* what the pass reads: src in the first, else the previous pairs */
        rs_access a_in[2] = {{kb[in], sizes[0], 0}, {ib[in], sizes[1], 0}};
        if (p == 0) a_in[0] = a_in[1] = rs_tensor_access(src, 0);
        rs_access a_h[2] = {a_in[0], {st->tmp[2], sizes[4], 1}};
        if ((e = groups_dispatch_n(s, k2, (uint64_t)rows * nb, &pc, sizeof pc, a_h, 2)) != RS_OK) return e;
        if ((e = rs_scan(s, RS_SCAN_SUM, &hist, &incl, NULL)) != RS_OK) return e;
        rs_access a_s[7] = {a_in[0], a_in[1], {st->tmp[2], sizes[4], 0},
                            {st->tmp[3], sizes[5], 0}, {kb[out], sizes[0], 1}, {ib[out], sizes[1], 1}};
        int na = 6;
        if ((p + 1) * 4 == bits && (st->values || st->indices)) {
            /* the last pass writes the outputs (values may be read from src) */
            na = 3;
            a_s[na++] = (rs_access){st->tmp[3], sizes[5], 0};
            a_s[na++] = rs_tensor_access(src, 0);
            if (st->values) a_s[na++] = rs_tensor_access(st->values, 1);
            if (st->indices) a_s[na++] = rs_tensor_access(st->indices, 1);
            pc.values = st->values ? st->values->address : 0;
            pc.indices = st->indices ? st->indices->address : 0;
            st->written = 1;
        }
        if ((e = groups_dispatch_n(s, k3, (uint64_t)rows * nb, &pc, sizeof pc, a_s, na)) != RS_OK) return e;
    }
    return RS_OK;
}

/* Sorts src's rows into the scratch pairs (st->keys, st->idx). */
static rs_status sort_pairs(rs_stream *s, const rs_tensor *src, int desc, sort_state *st) {
    int64_t n = src->ndim == 0 ? 1 : src->sizes[src->ndim - 1];
    int64_t rows = n == 0 ? 0 : rs_tensor_numel(src) / n;
    uint32_t logp = 0;
    while (((int64_t)1 << logp) < n) logp++;
    uint64_t P = (uint64_t)1 << logp;
    uint64_t total = (uint64_t)rows * P;
    if (total > (1ull << 31))
        return rs_error(RS_ERR_INVALID, "rs_sort: %lld rows of %lld elements are too many (2^31 padded elements at most)",
                        (long long)rows, (long long)n);
    st->dev = rs_stream_device(s);
    st->k64 = key64(src->dtype);
    st->L = block_size(s, st->k64);
    memset(&st->pc, 0, sizeof st->pc);
    st->pc.src = src->address;
    st->pc.n = (uint32_t)n;
    st->pc.rows = (uint32_t)rows;
    /* Rows longer than a shared-memory block: radix sort, unless
     * RUSSET_SORT=bitonic asks for the global bitonic merge (kept for
     * comparison on new devices). */
    const char *algo = getenv("RUSSET_SORT");
    if (P > st->L && !(algo && strcmp(algo, "bitonic") == 0)) {
        st->pc.rstride = (uint32_t)n;
        rs_status e = radix_pairs(s, src, desc, rows, n, st);
        st->pc.keys = st->keys;
        st->pc.idx = st->idx;
        return e;
    }
    st->keys_size = total * (st->k64 ? 8 : 4);
    st->idx_size = total * 4;
    rs_status e = rs_alloc(st->dev, st->keys_size, s, &st->keys);
    if (e != RS_OK) return e;
    if ((e = rs_alloc(st->dev, st->idx_size, s, &st->idx)) != RS_OK) {
        rs_free(st->dev, st->keys);
        st->keys = 0;
        return e;
    }
    sort_push *pc = &st->pc;
    pc->rstride = (uint32_t)P;
    pc->keys = st->keys;
    pc->idx = st->idx;
    pc->total = (uint32_t)total;
    pc->logp = logp;
    pc->n = (uint32_t)n;
    pc->rows = (uint32_t)rows;
    uint32_t L = st->L;
    uint64_t B = P < L ? P : L;
    uint64_t nblocks = (total + B - 1) / B;
    rs_access acc[3] = {rs_tensor_access(src, 0), {st->keys, st->keys_size, 1}, {st->idx, st->idx_size, 1}};
    rs_kernel *k = NULL;
    if ((e = kernel(s, src, 1, desc, 0, L, &k)) != RS_OK) return e;
    if ((e = groups_dispatch(s, k, nblocks, pc, acc, 3)) != RS_OK) return e;
    if (P <= L) return RS_OK;
    rs_kernel *kg = NULL, *km = NULL;
    if ((e = kernel(s, src, 2, desc, 0, L, &kg)) != RS_OK) return e;
    if ((e = kernel(s, src, 3, desc, 0, L, &km)) != RS_OK) return e;
    for (uint64_t kk = 2 * (uint64_t)L; kk <= P; kk <<= 1) {
        for (uint64_t j = kk >> 1; j >= L; j >>= 1) {
            sort_push g = *pc;
            g.k = (uint32_t)kk;
            g.j = (uint32_t)j;
            if ((e = rs_launch(s, kg, total / 2, &g, sizeof g, acc + 1, 2)) != RS_OK) return e;
        }
        sort_push m = *pc;
        m.k = (uint32_t)kk;
        if ((e = groups_dispatch(s, km, nblocks, &m, acc + 1, 2)) != RS_OK) return e;
    }
    return RS_OK;
}

static void release(sort_state *st) {
    /* freed blocks are reused only on this stream, after the work above */
    if (st->keys) rs_free(st->dev, st->keys);
    if (st->idx) rs_free(st->dev, st->idx);
    for (int i = 0; i < 4; ++i)
        if (st->tmp[i]) rs_free(st->dev, st->tmp[i]);
}

static rs_status check_src(const rs_tensor *src, const char *op) {
    if (!src) return rs_error(RS_ERR_INVALID, "%s: src is NULL", op);
    if (!rs_dtype_has_sort_key(src->dtype))
        return rs_error(RS_ERR_UNSUPPORTED, "%s: no sort for dtype %s", op, rs_dtype_name(src->dtype));
    if (!rs_tensor_is_contiguous(src)) return rs_error(RS_ERR_INVALID, "%s: src must be contiguous", op);
    return RS_OK;
}

static rs_status check_out(const rs_tensor *t, rs_dtype dt, int64_t numel, const char *what) {
    if (!t) return RS_OK;
    if (t->dtype != dt) return rs_error(RS_ERR_INVALID, "rs_sort: %s has dtype %s, expected %s", what,
                                        rs_dtype_name(t->dtype), rs_dtype_name(dt));
    if (rs_tensor_numel(t) != numel || !rs_tensor_is_contiguous(t))
        return rs_error(RS_ERR_INVALID, "rs_sort: %s must be contiguous with %lld elements", what, (long long)numel);
    return RS_OK;
}

static int overlap(const rs_tensor *a, const rs_tensor *b) {
    uint64_t alo, ahi, blo, bhi;
    rs_tensor_extent(a, &alo, &ahi);
    rs_tensor_extent(b, &blo, &bhi);
    return alo < bhi && blo < ahi;
}

static rs_status sort_into(rs_stream *s, const rs_tensor *src, int descending, int64_t k, const rs_tensor *values,
                           const rs_tensor *indices);

/* An output that overlaps src (torch.sort(x, out=(x, i))) is written to
 * scratch and copied over after the sort: the passes that write the outputs
 * may still read src. */
rs_status rs_sort(rs_stream *s, const rs_tensor *src, int descending, int64_t k, const rs_tensor *values,
                  const rs_tensor *indices) {
    if (!s || !src || (!(values && overlap(values, src)) && !(indices && overlap(indices, src))))
        return sort_into(s, src, descending, k, values, indices);
    rs_device *dev = rs_stream_device(s);
    const rs_tensor *outs[2] = {values, indices};
    rs_tensor tmp[2];
    uint64_t buf[2] = {0, 0}, bytes[2] = {0, 0};
    rs_status e = RS_OK;
    for (int i = 0; i < 2 && e == RS_OK; ++i) {
        if (!outs[i] || !overlap(outs[i], src)) continue;
        tmp[i] = *outs[i];
        bytes[i] = (uint64_t)rs_tensor_numel(outs[i]) * rs_dtype_size(outs[i]->dtype);
        if ((e = rs_alloc(dev, bytes[i] ? bytes[i] : 1, s, &buf[i])) == RS_OK) {
            tmp[i].address = buf[i];
            outs[i] = &tmp[i];
        }
    }
    if (e == RS_OK) e = sort_into(s, src, descending, k, outs[0], outs[1]);
    const rs_tensor *orig[2] = {values, indices};
    for (int i = 0; i < 2; ++i) {
        if (!buf[i]) continue;
        if (e == RS_OK) e = rs_memcpy_dtod(s, orig[i]->address, buf[i], bytes[i]);
        rs_free(dev, buf[i]);  /* reused only on this stream, after the copy */
    }
    return e;
}

static rs_status sort_into(rs_stream *s, const rs_tensor *src, int descending, int64_t k, const rs_tensor *values,
                           const rs_tensor *indices) {
    rs_status e;
    if (!s) return rs_error(RS_ERR_INVALID, "rs_sort: stream is NULL");
    if ((e = check_src(src, "rs_sort")) != RS_OK) return e;
    int64_t n = src->ndim == 0 ? 1 : src->sizes[src->ndim - 1];
    int64_t rows = n == 0 ? 0 : rs_tensor_numel(src) / n;
    if (k < 0 || k > n) return rs_error(RS_ERR_INVALID, "rs_sort: k = %lld out of range [0, %lld]", (long long)k, (long long)n);
    if ((e = check_out(values, src->dtype, rows * k, "values")) != RS_OK) return e;
    if ((e = check_out(indices, RS_INT64, rows * k, "indices")) != RS_OK) return e;
    if (rows == 0 || k == 0 || (!values && !indices)) return RS_OK;
    sort_state st;
    memset(&st, 0, sizeof st);
    if (k == n) {  /* a full sort: the radix sort writes the outputs itself */
        st.values = values;
        st.indices = indices;
    }
    e = sort_pairs(s, src, descending != 0, &st);
    if (e == RS_OK && !st.written) {
        rs_kernel *kk = NULL;
        e = kernel(s, src, 4, descending != 0, 0, st.L, &kk);
        if (e == RS_OK) {
            sort_push pc = st.pc;
            pc.k = (uint32_t)k;
            pc.values = values ? values->address : 0;
            pc.indices = indices ? indices->address : 0;
            rs_access acc[5] = {rs_tensor_access(src, 0), {st.idx, st.idx_size, 0}, {st.keys, st.keys_size, 0},
                                {0, 0, 1}, {0, 0, 1}};
            int nacc = 3;
            if (values) acc[nacc++] = rs_tensor_access(values, 1);
            if (indices) acc[nacc++] = rs_tensor_access(indices, 1);
            e = rs_launch(s, kk, (uint64_t)rows * (uint64_t)k, &pc, sizeof pc, acc, nacc);
        }
    }
    release(&st);
    return e;
}

rs_status rs_sort_pick(rs_stream *s, const rs_tensor *src, rs_pick mode, int64_t k, const rs_tensor *values,
                       const rs_tensor *indices) {
    rs_status e;
    if (!s || !values) return rs_error(RS_ERR_INVALID, "rs_sort_pick: NULL argument");
    if ((e = check_src(src, "rs_sort_pick")) != RS_OK) return e;
    if (mode < RS_PICK_KTH || mode > RS_PICK_MODE) return rs_error(RS_ERR_INVALID, "rs_sort_pick: bad mode");
    int64_t n = src->ndim == 0 ? 1 : src->sizes[src->ndim - 1];
    if (n == 0) return rs_error(RS_ERR_INVALID, "rs_sort_pick: empty rows");
    int64_t rows = rs_tensor_numel(src) / n;
    if (mode == RS_PICK_KTH && (k < 0 || k >= n))
        return rs_error(RS_ERR_INVALID, "rs_sort_pick: k = %lld out of range [0, %lld)", (long long)k, (long long)n);
    if ((e = check_out(values, src->dtype, rows, "values")) != RS_OK) return e;
    if ((e = check_out(indices, RS_INT64, rows, "indices")) != RS_OK) return e;
    if (rows == 0) return RS_OK;
    sort_state st;
    memset(&st, 0, sizeof st);
    e = sort_pairs(s, src, 0, &st);
    if (e == RS_OK) {
        rs_kernel *kk = NULL;
        e = kernel(s, src, 5, 0, (int)mode, st.L, &kk);
        if (e == RS_OK) {
            sort_push pc = st.pc;
            pc.k = (uint32_t)(mode == RS_PICK_KTH ? k : 0);
            pc.values = values->address;
            pc.indices = indices ? indices->address : 0;
            rs_access acc[5] = {rs_tensor_access(src, 0), {st.keys, st.keys_size, 0}, {st.idx, st.idx_size, 0},
                                rs_tensor_access(values, 1), {0, 0, 1}};
            int nacc = 4;
            if (indices) acc[nacc++] = rs_tensor_access(indices, 1);
            e = rs_launch(s, kk, (uint64_t)rows, &pc, sizeof pc, acc, nacc);
        }
    }
    release(&st);
    return e;
}
