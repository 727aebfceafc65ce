/* The sparse COO engine (russet/sparse.h) without torch, against host loops
 * written from the contract: keys; coalesce (distinct indices in order,
 * duplicates summed in entry order, bit for bit in float32, a hybrid
 * tensor's rows, strided indices); dense += alpha * S with duplicates;
 * beta t + alpha S @ D with empty rows, strided D and beta 0 ignoring a
 * NaN in t. Bad arguments fail clearly; a coalesce released between its
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
                float acc = 0.0f;
                for (int z = 0; z < Z; ++z)
                    if (idx[0][z] == r) acc += v[z] * dT[j][idx[1][z]];
                float want = alpha * acc;
                if (beta != 0.0f) want += beta * t[r][j];
                if (isnan(want)) CHECK(isnan(got[r][j]));
                else CHECK(fabsf(got[r][j] - want) <= 1e-6f * (1.0f + fabsf(want)));
            }
    }
    rs_free(dev, ia), rs_free(dev, va), rs_free(dev, da), rs_free(dev, ta), rs_free(dev, oa);
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
    RUN(bad_arguments_fail_clearly);
    CTEST_END();
}
