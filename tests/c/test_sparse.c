/* The sparse engine (russet/sparse.h) without torch, against host loops
 * written from the contract: keys; coalesce (distinct indices in order,
 * duplicates summed in entry order, bit for bit in float32, a hybrid
 * tensor's rows, strided indices); dense += alpha * S with duplicates;
 * beta t + alpha S @ D with empty rows, strided D and beta 0 ignoring a
 * NaN in t, from COO and from CSR; row pointers to and from row indices;
 * the sampled product (SDDMM); the pooled softmax and log_softmax and their
 * gradients; index_select's copies; keys matched among sorted keys. Bad arguments fail clearly; a coalesce released between its
 * two calls leaks nothing (the sanitizer build checks). */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "ctest.h"
#include "engine/engine.h"
#include "russet/sparse.h"

enum { NNZ = 9 };
/* (2, NNZ) entries of a 4 x 5 matrix, unsorted, with duplicates */
static const int64_t IDX[2][NNZ] = {{3, 0, 2, 0, 3, 1, 0, 3, 2}, {1, 4, 2, 4, 1, 0, 0, 1, 2}};
static const float VAL[NNZ] = {1e8f, 0.5f, -2.0f, 0.25f, 1.0f, 3.0f, -1.0f, -1e8f, 7.0f};

static int64_t key(int k) { return IDX[0][k] * 5 + IDX[1][k]; }

/* (S @ D)[r][j] on the host, entries in order: D[k][j] at d[k * ds0 + j * ds1] */
static float ref_spmm(const int64_t *rows, const int64_t *cols, const float *v, int nnz, const float *d, int ds0,
                      int ds1, int r, int j) {
    float acc = 0.0f;
    for (int z = 0; z < nnz; ++z)
        if (rows[z] == r) acc += v[z] * d[cols[z] * ds0 + j * ds1];
    return acc;
}

TEST(keys_and_coalesce) {
    rs_device *dev = ctest_device();
    rs_stream *s = ctest_stream(dev);
    const int64_t isz[2] = {2, NNZ}, sizes[2] = {4, 5};
    /* the indices as the transpose of an (NNZ, 2) buffer: strides (1, 2) */
    int64_t idx_t[NNZ][2];
    for (int k = 0; k < NNZ; ++k) idx_t[k][0] = IDX[0][k], idx_t[k][1] = IDX[1][k];
    uint64_t ia = ctest_upload(dev, s, idx_t, sizeof idx_t), va = ctest_upload(dev, s, VAL, sizeof VAL);
    rs_tensor idx = ctest_view(ia, RS_INT64, 2, isz);
    idx.strides[0] = 1, idx.strides[1] = 2;
    const int64_t vsz[1] = {NNZ};
    const rs_tensor vals = ctest_view(va, RS_FLOAT32, 1, vsz);

    uint64_t ka = 0;
    CHECK_OK(rs_alloc(dev, 8 * NNZ, s, &ka));
    const rs_tensor keys = ctest_view(ka, RS_INT64, 1, vsz);
    CHECK_OK(rs_sparse_keys(s, &idx, sizes, &keys));
    int64_t got_keys[NNZ];
    CHECK_OK(rs_memcpy_dtoh(s, got_keys, ka, sizeof got_keys));
    for (int k = 0; k < NNZ; ++k) CHECK(got_keys[k] == key(k));

    rs_sparse_coalesce c;
    CHECK_OK(rs_sparse_coalesce_count(s, &idx, sizes, &c));
    /* the reference: distinct keys ascending, values summed in entry order */
    int64_t ref_keys[NNZ];
    float ref_vals[NNZ];
    int n = 0;
    for (int k = 0; k < NNZ; ++k) {
        int found = 0;
        for (int j = 0; j < n; ++j) found |= ref_keys[j] == key(k);
        if (!found) ref_keys[n++] = key(k);
    }
    for (int a = 0; a < n; ++a)
        for (int b = a + 1; b < n; ++b)
            if (ref_keys[b] < ref_keys[a]) {
                int64_t t = ref_keys[a];
                ref_keys[a] = ref_keys[b], ref_keys[b] = t;
            }
    for (int j = 0; j < n; ++j) {
        float acc = 0.0f;
        for (int k = 0; k < NNZ; ++k)
            if (key(k) == ref_keys[j]) acc += VAL[k];
        ref_vals[j] = acc;
    }
    CHECK(c.nnz == n);
    uint64_t io = 0, vo = 0;
    CHECK_OK(rs_alloc(dev, 16 * (uint64_t)n, s, &io));
    CHECK_OK(rs_alloc(dev, 4 * (uint64_t)n, s, &vo));
    const int64_t iosz[2] = {2, n}, vosz[1] = {n};
    const rs_tensor idx_out = ctest_view(io, RS_INT64, 2, iosz), val_out = ctest_view(vo, RS_FLOAT32, 1, vosz);
    CHECK_OK(rs_sparse_coalesce_write(s, &c, &vals, &idx_out, &val_out));
    int64_t gi[2 * NNZ];
    float gv[NNZ];
    CHECK_OK(rs_memcpy_dtoh(s, gi, io, 16 * (uint64_t)n));
    CHECK_OK(rs_memcpy_dtoh(s, gv, vo, 4 * (uint64_t)n));
    for (int j = 0; j < n; ++j) {
        CHECK(gi[j] == ref_keys[j] / 5 && gi[n + j] == ref_keys[j] % 5);
        CHECK(memcmp(&gv[j], &ref_vals[j], 4) == 0); /* 1e8 + 1 - 1e8 = 0 in order, not 1 */
    }

    /* a count released before its write frees its scratch */
    CHECK_OK(rs_sparse_coalesce_count(s, &idx, sizes, &c));
    rs_sparse_coalesce_release(s, &c);
    CHECK_OK(rs_stream_synchronize(s));
    rs_free(dev, ia), rs_free(dev, va), rs_free(dev, ka), rs_free(dev, io), rs_free(dev, vo);
}

TEST(hybrid_coalesce) {
    /* 1 sparse dim of 3, values (5, 2): rows of the same index sum */
    rs_device *dev = ctest_device();
    rs_stream *s = ctest_stream(dev);
    const int64_t idx[5] = {2, 0, 2, 2, 1};
    const float v[5][2] = {{1, 2}, {3, 4}, {5, 6}, {7, 8}, {9, 10}};
    uint64_t ia = ctest_upload(dev, s, idx, sizeof idx), va = ctest_upload(dev, s, v, sizeof v);
    const int64_t isz[2] = {1, 5}, vsz[2] = {5, 2}, sizes[1] = {3};
    const rs_tensor it = ctest_view(ia, RS_INT64, 2, isz), vt = ctest_view(va, RS_FLOAT32, 2, vsz);
    rs_sparse_coalesce c;
    CHECK_OK(rs_sparse_coalesce_count(s, &it, sizes, &c));
    CHECK(c.nnz == 3);
    uint64_t io = 0, vo = 0;
    CHECK_OK(rs_alloc(dev, 8 * 3, s, &io));
    CHECK_OK(rs_alloc(dev, 4 * 6, s, &vo));
    const int64_t iosz[2] = {1, 3}, vosz[2] = {3, 2};
    const rs_tensor iot = ctest_view(io, RS_INT64, 2, iosz), vot = ctest_view(vo, RS_FLOAT32, 2, vosz);
    CHECK_OK(rs_sparse_coalesce_write(s, &c, &vt, &iot, &vot));
    int64_t gi[3];
    float gv[6];
    CHECK_OK(rs_memcpy_dtoh(s, gi, io, sizeof gi));
    CHECK_OK(rs_memcpy_dtoh(s, gv, vo, sizeof gv));
    const float want[6] = {3, 4, 9, 10, 13, 16};
    CHECK(gi[0] == 0 && gi[1] == 1 && gi[2] == 2);
    for (int i = 0; i < 6; ++i) CHECK(gv[i] == want[i]);
    rs_free(dev, ia), rs_free(dev, va), rs_free(dev, io), rs_free(dev, vo);
}

TEST(add_dense) {
    rs_device *dev = ctest_device();
    rs_stream *s = ctest_stream(dev);
    float dense[4][5];
    for (int i = 0; i < 20; ++i) dense[i / 5][i % 5] = (float)i;
    const float vals[NNZ] = {1, 2, 3, 4, 5, 6, 7, 8, 9};
    uint64_t ia = ctest_upload(dev, s, IDX, sizeof IDX), va = ctest_upload(dev, s, vals, sizeof vals);
    uint64_t da = ctest_upload(dev, s, dense, sizeof dense);
    const int64_t isz[2] = {2, NNZ}, vsz[1] = {NNZ}, dsz[2] = {4, 5};
    const rs_tensor it = ctest_view(ia, RS_INT64, 2, isz), vt = ctest_view(va, RS_FLOAT32, 1, vsz);
    const rs_tensor dt = ctest_view(da, RS_FLOAT32, 2, dsz);
    rs_scalar alpha;
    alpha.f = -2.0f;
    CHECK_OK(rs_sparse_add_dense(s, &it, &vt, 1, alpha, &dt));
    for (int k = 0; k < NNZ; ++k) dense[IDX[0][k]][IDX[1][k]] += -2.0f * vals[k];
    float got[4][5];
    CHECK_OK(rs_memcpy_dtoh(s, got, da, sizeof got));
    CHECK(memcmp(got, dense, sizeof got) == 0);
    rs_free(dev, ia), rs_free(dev, va), rs_free(dev, da);
}

TEST(spmm) {
    rs_device *dev = ctest_device();
    rs_stream *s = ctest_stream(dev);
    /* coalesced S (5 x 4): row 1 and row 4 empty */
    enum { M = 5, K = 4, N = 3, Z = 5 };
    const int64_t idx[2][Z] = {{0, 0, 2, 3, 3}, {1, 3, 0, 0, 2}};
    const float v[Z] = {1.5f, -2.0f, 0.5f, 3.0f, -1.0f};
    float dT[N][K]; /* D stored transposed: D[k][j] at j * K + k */
    for (int j = 0; j < N; ++j)
        for (int k = 0; k < K; ++k) dT[j][k] = (float)(k * 3 + j) * 0.25f - 1.0f;
    float t[M][N];
    for (int i = 0; i < M * N; ++i) t[i / N][i % N] = (float)i;
    t[1][1] = NAN;
    uint64_t ia = ctest_upload(dev, s, idx, sizeof idx), va = ctest_upload(dev, s, v, sizeof v);
    uint64_t da = ctest_upload(dev, s, dT, sizeof dT), ta = ctest_upload(dev, s, t, sizeof t), oa = 0;
    CHECK_OK(rs_alloc(dev, 4 * M * N, s, &oa));
    const int64_t isz[2] = {2, Z}, vsz[1] = {Z}, dsz[2] = {K, N}, osz[2] = {M, N};
    rs_sparse_mm p;
    memset(&p, 0, sizeof p);
    p.indices = ctest_view(ia, RS_INT64, 2, isz);
    p.values = ctest_view(va, RS_FLOAT32, 1, vsz);
    p.dense = ctest_view(da, RS_FLOAT32, 2, dsz);
    p.dense.strides[0] = 1, p.dense.strides[1] = K;
    p.out = ctest_view(oa, RS_FLOAT32, 2, osz);
    const rs_tensor tt = ctest_view(ta, RS_FLOAT32, 2, osz);
    for (int pass = 0; pass < 2; ++pass) {
        const float beta = pass ? 0.0f : 0.5f, alpha = 2.0f;
        p.t = &tt, p.alpha = alpha, p.beta = beta;
        CHECK_OK(rs_sparse_mm_run(s, &p));
        float got[M][N];
        CHECK_OK(rs_memcpy_dtoh(s, got, oa, sizeof got));
        for (int r = 0; r < M; ++r)
            for (int j = 0; j < N; ++j) {
                float want = alpha * ref_spmm(idx[0], idx[1], v, Z, &dT[0][0], 1, K, r, j);
                if (beta != 0.0f) want += beta * t[r][j];
                if (isnan(want)) CHECK(isnan(got[r][j]));
                else CHECK(fabsf(got[r][j] - want) <= 1e-6f * (1.0f + fabsf(want)));
            }
    }
    rs_free(dev, ia), rs_free(dev, va), rs_free(dev, da), rs_free(dev, ta), rs_free(dev, oa);
}

TEST(csr_pointers_spmm_and_sddmm) {
    rs_device *dev = ctest_device();
    rs_stream *s = ctest_stream(dev);
    enum { M = 5, K = 4, N = 3, Z = 5 };
    const int64_t rows[Z] = {0, 0, 2, 3, 3}, cols[Z] = {1, 3, 0, 0, 2};
    const int64_t want_crow[M + 1] = {0, 2, 2, 3, 5, 5};
    const float v[Z] = {1.5f, -2.0f, 0.5f, 3.0f, -1.0f};
    float d[K][N], a[M][K];
    for (int i = 0; i < K * N; ++i) d[i / N][i % N] = (float)i * 0.5f - 2.0f;
    for (int i = 0; i < M * K; ++i) a[i / K][i % K] = (float)(i % 7) - 3.0f;
    uint64_t ra = ctest_upload(dev, s, rows, sizeof rows), ca = ctest_upload(dev, s, cols, sizeof cols);
    uint64_t va = ctest_upload(dev, s, v, sizeof v), da = ctest_upload(dev, s, d, sizeof d);
    uint64_t aa = ctest_upload(dev, s, a, sizeof a), crow = 0, back = 0, oa = 0, sa = 0;
    CHECK_OK(rs_alloc(dev, 8 * (M + 1), s, &crow));
    CHECK_OK(rs_alloc(dev, 8 * Z, s, &back));
    CHECK_OK(rs_alloc(dev, 4 * M * N, s, &oa));
    CHECK_OK(rs_alloc(dev, 4 * Z, s, &sa));
    const int64_t zsz[1] = {Z}, csz[1] = {M + 1}, dsz[2] = {K, N}, osz[2] = {M, N}, asz[2] = {M, K};
    const rs_tensor rt = ctest_view(ra, RS_INT64, 1, zsz), ct = ctest_view(crow, RS_INT64, 1, csz);
    const rs_tensor bt = ctest_view(back, RS_INT64, 1, zsz);
    CHECK_OK(rs_sparse_rows_to_crow(s, &rt, &ct));
    CHECK_OK(rs_sparse_crow_to_rows(s, &ct, &bt));
    int64_t got_crow[M + 1], got_rows[Z];
    CHECK_OK(rs_memcpy_dtoh(s, got_crow, crow, sizeof got_crow));
    CHECK_OK(rs_memcpy_dtoh(s, got_rows, back, sizeof got_rows));
    for (int i = 0; i <= M; ++i) CHECK(got_crow[i] == want_crow[i]);
    for (int i = 0; i < Z; ++i) CHECK(got_rows[i] == rows[i]);

    /* CSR @ D, beta 0 */
    rs_sparse_mm p;
    memset(&p, 0, sizeof p);
    p.indices = ctest_view(ca, RS_INT64, 1, zsz);
    p.values = ctest_view(va, RS_FLOAT32, 1, zsz);
    p.dense = ctest_view(da, RS_FLOAT32, 2, dsz);
    p.out = ctest_view(oa, RS_FLOAT32, 2, osz);
    p.crow = &ct;
    p.alpha = 1.0;
    CHECK_OK(rs_sparse_mm_run(s, &p));
    float got[M][N];
    CHECK_OK(rs_memcpy_dtoh(s, got, oa, sizeof got));
    for (int r = 0; r < M; ++r)
        for (int j = 0; j < N; ++j) CHECK(got[r][j] == ref_spmm(rows, cols, v, Z, &d[0][0], N, 1, r, j));

    /* SDDMM: 0.5 v + 2 (A @ B)[row, col], B = A^T viewed (K, M) by strides */
    rs_sparse_sddmm q;
    memset(&q, 0, sizeof q);
    q.crow = ct;
    q.col = ctest_view(ca, RS_INT64, 1, zsz);
    q.values = ctest_view(va, RS_FLOAT32, 1, zsz);
    q.a = ctest_view(aa, RS_FLOAT32, 2, asz);
    q.b = ctest_view(aa, RS_FLOAT32, 2, dsz);
    q.b.sizes[1] = 4, q.b.strides[0] = 1, q.b.strides[1] = K; /* b[k][c] = a[c][k] */
    q.out = ctest_view(sa, RS_FLOAT32, 1, zsz);
    q.alpha = 2.0, q.beta = 0.5;
    CHECK_OK(rs_sparse_sddmm_run(s, &q));
    float gs[Z];
    CHECK_OK(rs_memcpy_dtoh(s, gs, sa, sizeof gs));
    for (int z = 0; z < Z; ++z) {
        float acc = 0.0f;
        for (int k = 0; k < K; ++k) acc += a[rows[z]][k] * a[cols[z]][k];
        CHECK(fabsf(gs[z] - (2.0f * acc + 0.5f * v[z])) <= 1e-5f * (1.0f + fabsf(acc)));
    }
    rs_free(dev, ra), rs_free(dev, ca), rs_free(dev, va), rs_free(dev, da), rs_free(dev, aa);
    rs_free(dev, crow), rs_free(dev, back), rs_free(dev, oa), rs_free(dev, sa);
}

TEST(softmax_pools) {
    /* a 3 x 4 COO matrix, softmax over dim 0 (pools: the columns) and dim 1
     * (the rows), forward and backward, against host loops */
    rs_device *dev = ctest_device();
    rs_stream *s = ctest_stream(dev);
    enum { Z = 6 };
    const int64_t idx[2][Z] = {{0, 0, 1, 2, 2, 2}, {0, 3, 3, 0, 1, 3}};
    const float x[Z] = {1.0f, -0.5f, 2.0f, 0.25f, 3.0f, -1.0f}, g[Z] = {0.5f, -1.0f, 2.0f, 1.0f, 0.0f, 0.75f};
    const int64_t sizes[2] = {3, 4}, isz[2] = {2, Z}, vsz[2] = {Z, 1};
    uint64_t ia = ctest_upload(dev, s, idx, sizeof idx), xa = ctest_upload(dev, s, x, sizeof x);
    uint64_t ga = ctest_upload(dev, s, g, sizeof g), ya = 0, da = 0;
    CHECK_OK(rs_alloc(dev, 4 * Z, s, &ya));
    CHECK_OK(rs_alloc(dev, 4 * Z, s, &da));
    for (int dim = 0; dim < 2; ++dim)
        for (int lg = 0; lg < 2; ++lg) {
            rs_sparse_softmax p;
            memset(&p, 0, sizeof p);
            p.indices = ctest_view(ia, RS_INT64, 2, isz);
            p.values = ctest_view(xa, RS_FLOAT32, 2, vsz);
            p.out = ctest_view(ya, RS_FLOAT32, 2, vsz);
            p.sizes = sizes, p.dim = dim, p.log = lg;
            CHECK_OK(rs_sparse_softmax_run(s, &p));
            p.values = p.out;
            p.grad = ctest_view(ga, RS_FLOAT32, 2, vsz);
            p.out = ctest_view(da, RS_FLOAT32, 2, vsz);
            p.backward = 1;
            CHECK_OK(rs_sparse_softmax_run(s, &p));
            float y[Z], dx[Z];
            CHECK_OK(rs_memcpy_dtoh(s, y, ya, sizeof y));
            CHECK_OK(rs_memcpy_dtoh(s, dx, da, sizeof dx));
            for (int z = 0; z < Z; ++z) {
                const int other = 1 - dim; /* the pool: entries sharing the other index */
                float m = -INFINITY, sum = 0.0f, gy = 0.0f, gs = 0.0f;
                for (int k = 0; k < Z; ++k)
                    if (idx[other][k] == idx[other][z]) m = fmaxf(m, x[k]);
                for (int k = 0; k < Z; ++k)
                    if (idx[other][k] == idx[other][z]) sum += expf(x[k] - m);
                const float want = lg ? x[z] - m - logf(sum) : expf(x[z] - m) / sum;
                CHECK(fabsf(y[z] - want) <= 1e-5f);
                for (int k = 0; k < Z; ++k)
                    if (idx[other][k] == idx[other][z]) {
                        const float yk = lg ? x[k] - m - logf(sum) : expf(x[k] - m) / sum;
                        gy += g[k] * yk, gs += g[k];
                    }
                const float want_dx = lg ? g[z] - expf(want) * gs : want * (g[z] - gy);
                CHECK(fabsf(dx[z] - want_dx) <= 1e-5f);
            }
        }
    rs_free(dev, ia), rs_free(dev, xa), rs_free(dev, ga), rs_free(dev, ya), rs_free(dev, da);
}

TEST(index_select) {
    /* 4 entries of a 3 x 3 matrix; index [2, 0, 2, 7] on dim 0: entry e is
     * copied once per position holding its row, in position order, row
     * replaced by the position; 7 matches nothing */
    rs_device *dev = ctest_device();
    rs_stream *s = ctest_stream(dev);
    const int64_t idx[2][4] = {{0, 2, 1, 2}, {1, 0, 2, 2}}, index[4] = {2, 0, 2, 7};
    uint64_t ia = ctest_upload(dev, s, idx, sizeof idx), xa = ctest_upload(dev, s, index, sizeof index);
    const int64_t isz[2] = {2, 4}, xsz[1] = {4};
    const rs_tensor it = ctest_view(ia, RS_INT64, 2, isz), xt = ctest_view(xa, RS_INT64, 1, xsz);
    rs_sparse_select sel;
    CHECK_OK(rs_sparse_index_select_count(s, &it, 0, &xt, &sel));
    /* entry 0 (row 0): position 1; entries 1, 3 (row 2): positions 0 and 2 each; entry 2 (row 1): none */
    CHECK(sel.nnz == 5);
    uint64_t io = 0, so = 0;
    CHECK_OK(rs_alloc(dev, 16 * 5, s, &io));
    CHECK_OK(rs_alloc(dev, 8 * 5, s, &so));
    const int64_t osz[2] = {2, 5}, ssz[1] = {5};
    const rs_tensor ot = ctest_view(io, RS_INT64, 2, osz), st = ctest_view(so, RS_INT64, 1, ssz);
    CHECK_OK(rs_sparse_index_select_write(s, &sel, &ot, &st));
    int64_t got[2][5], src[5];
    CHECK_OK(rs_memcpy_dtoh(s, got, io, sizeof got));
    CHECK_OK(rs_memcpy_dtoh(s, src, so, sizeof src));
    const int64_t want[2][5] = {{1, 0, 2, 0, 2}, {1, 0, 0, 2, 2}}, want_src[5] = {0, 1, 1, 3, 3};
    for (int i = 0; i < 5; ++i) CHECK(got[0][i] == want[0][i] && got[1][i] == want[1][i] && src[i] == want_src[i]);
    /* a count released before its write */
    CHECK_OK(rs_sparse_index_select_count(s, &it, 1, &xt, &sel));
    rs_sparse_index_select_release(s, &sel);
    CHECK_OK(rs_stream_synchronize(s));
    rs_free(dev, ia), rs_free(dev, xa), rs_free(dev, io), rs_free(dev, so);
}

TEST(match_keys_and_rows) {
    /* sorted keys {2, 5, 9, 14}; keys looked up (stride 2): 9, 3, 2, 14, 15,
     * -1: positions 2, -1, 0, 3, -1, -1; the values' (n, 3) float32 rows
     * there, zeros where none */
    rs_device *dev = ctest_device();
    rs_stream *s = ctest_stream(dev);
    const int64_t sorted[4] = {2, 5, 9, 14}, keys[12] = {9, 0, 3, 0, 2, 0, 14, 0, 15, 0, -1, 0};
    float vals[4][3];
    for (int i = 0; i < 4; ++i)
        for (int j = 0; j < 3; ++j) vals[i][j] = (float)(10 * i + j) + 0.5f;
    uint64_t sa = ctest_upload(dev, s, sorted, sizeof sorted), ka = ctest_upload(dev, s, keys, sizeof keys);
    uint64_t va = ctest_upload(dev, s, vals, sizeof vals), pa = 0, oa = 0;
    CHECK_OK(rs_alloc(dev, 8 * 6, s, &pa));
    CHECK_OK(rs_alloc(dev, 4 * 18, s, &oa));
    const int64_t n4[1] = {4}, m6[1] = {6}, vsz[2] = {4, 3}, osz[2] = {6, 3};
    rs_tensor st = ctest_view(sa, RS_INT64, 1, n4), kt = ctest_view(ka, RS_INT64, 1, m6);
    kt.strides[0] = 2;
    const rs_tensor pt = ctest_view(pa, RS_INT64, 1, m6), vt = ctest_view(va, RS_FLOAT32, 2, vsz),
                    ot = ctest_view(oa, RS_FLOAT32, 2, osz);
    CHECK_OK(rs_sparse_match(s, &st, &kt, &pt, &vt, &ot));
    int64_t pos[6];
    float out[6][3];
    CHECK_OK(rs_memcpy_dtoh(s, pos, pa, sizeof pos));
    CHECK_OK(rs_memcpy_dtoh(s, out, oa, sizeof out));
    const int64_t want[6] = {2, -1, 0, 3, -1, -1};
    for (int k = 0; k < 6; ++k) {
        CHECK(pos[k] == want[k]);
        for (int j = 0; j < 3; ++j) CHECK(out[k][j] == (want[k] >= 0 ? vals[want[k]][j] : 0.0f));
    }
    /* positions only; rows only */
    CHECK_OK(rs_sparse_match(s, &st, &kt, &pt, NULL, NULL));
    CHECK_OK(rs_sparse_match(s, &st, &kt, NULL, &vt, &ot));
    /* no sorted keys: nothing found */
    const int64_t n0[1] = {0};
    const rs_tensor empty = ctest_view(sa, RS_INT64, 1, n0);
    CHECK_OK(rs_sparse_match(s, &empty, &kt, &pt, NULL, NULL));
    CHECK_OK(rs_memcpy_dtoh(s, pos, pa, sizeof pos));
    for (int k = 0; k < 6; ++k) CHECK(pos[k] == -1);
    /* errors: a row shape that differs, nothing to write */
    const int64_t bad[2] = {6, 2};
    const rs_tensor obad = ctest_view(oa, RS_FLOAT32, 2, bad);
    CHECK(rs_sparse_match(s, &st, &kt, &pt, &vt, &obad) == RS_ERR_INVALID);
    CHECK(rs_sparse_match(s, &st, &kt, NULL, NULL, NULL) == RS_ERR_INVALID);
    CHECK_OK(rs_stream_synchronize(s));
    rs_free(dev, sa), rs_free(dev, ka), rs_free(dev, va), rs_free(dev, pa), rs_free(dev, oa);
}

TEST(bad_arguments_fail_clearly) {
    rs_device *dev = ctest_device();
    rs_stream *s = ctest_stream(dev);
    const int64_t isz[2] = {2, 3}, sizes[2] = {4, 4};
    rs_tensor idx = ctest_view(0, RS_INT32, 2, isz);
    const rs_tensor keys = ctest_view(0, RS_INT64, 1, isz + 1);
    CHECK(rs_sparse_keys(s, &idx, sizes, &keys) == RS_ERR_INVALID);
    CHECK(strstr(rs_last_error(), "int64") != NULL);
    idx.dtype = RS_INT64;
    const rs_tensor short_keys = ctest_view(0, RS_INT64, 1, isz); /* 2 keys for 3 entries */
    CHECK(rs_sparse_keys(s, &idx, sizes, &short_keys) == RS_ERR_INVALID);
    rs_sparse_mm p;
    memset(&p, 0, sizeof p);
    p.indices = idx;
    p.values = ctest_view(0, RS_INT32, 1, isz + 1);
    CHECK(rs_sparse_mm_run(s, &p) == RS_ERR_UNSUPPORTED);
    CHECK(strstr(rs_last_error(), "int32") != NULL);
    CHECK(rs_sparse_coalesce_count(s, NULL, sizes, NULL) == RS_ERR_INVALID);
}

int main(void) {
    RUN(keys_and_coalesce);
    RUN(hybrid_coalesce);
    RUN(add_dense);
    RUN(spmm);
    RUN(csr_pointers_spmm_and_sddmm);
    RUN(softmax_pools);
    RUN(index_select);
    RUN(match_keys_and_rows);
    RUN(bad_arguments_fail_clearly);
    CTEST_END();
}
