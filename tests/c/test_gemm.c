/* The matrix-product engine without torch: rs_gemm over several shape
 * classes (tiled tiles of each size, dot, skinny), dtypes (float32, float16,
 * int8 wrapping, complex64 with conjugation, float64 where the profile has
 * it), strided and transposed operands, batch broadcast, beta * Cin, the
 * batch-reducing form, k = 0; and rs_cross. Checked against references
 * computed here in double (or in exact integer arithmetic). */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ctest.h"
#include "engine/engine.h"

static uint32_t lcg_state = 12345;
static float frand(void) {
    lcg_state = lcg_state * 1664525u + 1013904223u;
    return (float)((lcg_state >> 8) & 0xFFFF) / 32768.0f - 1.0f;
}

static rs_gemm_operand op3(uint64_t addr, int64_t sb, int64_t sr, int64_t sc) {
    rs_gemm_operand o = {addr, {sb, sr, sc}};
    return o;
}

/* float32: C[b] = beta Cin[b] + alpha A[b] @ B[b]; A stored transposed
 * (k-major), or row-major (layout & A_ROWS: k contiguous, as nn.Linear's
 * input), B broadcast over the batch (stride 0), stored n-contiguous or
 * (layout & B_TRANS) k-contiguous (nn.Linear's weight); Cin a broadcast row. */
enum { B_TRANS = 1, A_ROWS = 2 };

/* The exact (double) entry (i, j) of A @ B for one batch's matrices: A
 * (m, k) stored row-major, or (k, m) with a_cols; B (k, n), or (n, k) with
 * b_trans; *mag: the sum of the products' magnitudes (the tolerance's scale). */
static double ref_entry(const float *a, const float *b, int64_t m, int64_t n, int64_t k, int64_t i, int64_t j,
                        int a_cols, int b_trans, double *mag) {
    double acc = 0;
    *mag = 0;
    for (int64_t p = 0; p < k; p++) {
        const double t = (double)a[a_cols ? p * m + i : i * k + p] * b[b_trans ? j * k + p : p * n + j];
        acc += t;
        *mag += fabs(t);
    }
    return acc;
}

static void run_f32(int64_t batch, int64_t m, int64_t n, int64_t k, int layout, const char *expect_kernel) {
    const int btrans = layout & B_TRANS, arows = (layout & A_ROWS) != 0;
    rs_device *dev = ctest_device();
    rs_stream *s = ctest_stream(dev);
    size_t na = (size_t)(batch * m * k), nb = (size_t)(k * n), nc = (size_t)(batch * m * n);
    float *a = malloc(4 * (na + 1)), *b = malloc(4 * (nb + 1)), *bias = malloc(4 * (size_t)n),
          *c = malloc(4 * (nc + 1));
    for (size_t i = 0; i < na; i++) a[i] = frand();
    for (size_t i = 0; i < nb; i++) b[i] = frand();
    for (int64_t i = 0; i < n; i++) bias[i] = frand();
    uint64_t da, db, dbias, dc;
    CHECK_OK(rs_alloc(dev, 4 * (na + 1), s, &da));
    CHECK_OK(rs_alloc(dev, 4 * (nb + 1), s, &db));
    CHECK_OK(rs_alloc(dev, 4 * (uint64_t)n, s, &dbias));
    CHECK_OK(rs_alloc(dev, 4 * (nc + 1), s, &dc));
    CHECK_OK(rs_memcpy_htod(s, da, a, 4 * na));
    CHECK_OK(rs_memcpy_htod(s, db, b, 4 * nb));
    CHECK_OK(rs_memcpy_htod(s, dbias, bias, 4 * (uint64_t)n));
    rs_gemm_desc d;
    memset(&d, 0, sizeof d);
    d.dtype = RS_FLOAT32;
    d.batch = batch, d.m = m, d.n = n, d.k = k;
    d.a = arows ? op3(da, m * k, k, 1) : op3(da, m * k, 1, m); /* A[b][i][p] at b*m*k + i*k + p or p*m + i */
    d.b = btrans ? op3(db, 0, 1, k) : op3(db, 0, n, 1); /* B[p][j] at p*n + j, or j*k + p */
    d.c = op3(dc, m * n, n, 1);
    d.cin = op3(dbias, 0, 0, 1);
    d.use_cin = 1;
    d.alpha[0].f = 0.5f;
    d.beta[0].f = 2.0f;
    if (expect_kernel) {
        const char *name = rs_gemm_kernel_name(s, &d);
        int same = strcmp(name, expect_kernel) == 0;
        if (!same) fprintf(stderr, "  kernel %s, expected %s\n", name, expect_kernel);
        CHECK(same);
    }
    CHECK_OK(rs_gemm(s, &d));
    CHECK_OK(rs_memcpy_dtoh(s, c, dc, 4 * nc));
    for (int64_t z = 0; z < batch; z++)
        for (int64_t i = 0; i < m; i++)
            for (int64_t j = 0; j < n; j++) {
                double mag;
                const double acc = ref_entry(a + z * m * k, b, m, n, k, i, j, !arows, btrans, &mag);
                double ref = 2.0 * bias[j] + 0.5 * acc;
                double got = c[z * m * n + i * n + j];
                if (fabs(got - ref) > 1e-5 * (mag + 2.0 * fabs(bias[j])) + 1e-6) {
                    fprintf(stderr, "  [%lld,%lld,%lld] got %g ref %g\n", (long long)z, (long long)i,
                            (long long)j, got, ref);
                    CHECK(0);
                }
            }
    rs_free(dev, da), rs_free(dev, db), rs_free(dev, dbias), rs_free(dev, dc);
    free(a), free(b), free(bias), free(c);
}

TEST(f32_small_tile) { run_f32(2, 19, 23, 7, 0, "tiled-32x32"); }
TEST(f32_medium_tile) { run_f32(1, 70, 65, 33, 1, "tiled-64x64"); }
TEST(f32_medium_tile_vector_loads) { run_f32(1, 64, 68, 20, 0, "tiled-64x64-v4"); }
TEST(f32_medium_tile_vector_loads_bt) { run_f32(2, 72, 64, 24, 1, "tiled-64x64-v4"); }
TEST(f32_large_tile) { run_f32(2, 257, 129, 65, 0, NULL); }
TEST(f32_large_tile_vector_loads) { run_f32(2, 512, 516, 36, 1, "tiled-128x128-v4"); }
/* the 128x128 tile in each operand layout (the transposing, swizzled slice
 * stores; double-buffered slices where shared memory holds two), ragged
 * edges, k not a multiple of the slice, one slice, and scalar loads */
TEST(f32_large_tile_layouts) {
    for (int layout = 0; layout < 4; layout++) run_f32(1, 648, 644, 20, layout, "tiled-128x128-v4");
    run_f32(1, 768, 768, 12, A_ROWS | B_TRANS, "tiled-128x128-v4");
    run_f32(1, 650, 770, 13, A_ROWS, "tiled-128x128");
    run_f32(1, 770, 650, 11, B_TRANS, "tiled-128x128");
}
TEST(f32_skinny) { run_f32(1, 5, 200, 40, 0, "tiled-16x64"); }
/* few tiles over a long k: k split into chunks, summed in a second pass
 * (alpha, beta * Cin there); the last chunk shorter in the second; a batch
 * is not split */
TEST(f32_split_k) { run_f32(1, 256, 200, 3000, 0, "tiled-64x64-v4-split11"); }
TEST(f32_split_k_short_last_chunk_bt) { run_f32(1, 100, 70, 2049, 1, "tiled-64x64-split8"); }
TEST(f32_batch_long_k_not_split) { run_f32(2, 100, 70, 2049, 1, "tiled-64x64"); }
TEST(f32_matrix_vector) { run_f32(3, 100, 1, 300, 0, "dot"); }
TEST(f32_dot_long_k) { run_f32(1, 2, 3, 5000, 1, "dot"); }

TEST(f32_k_zero_is_beta_cin) {
    rs_device *dev = ctest_device();
    rs_stream *s = ctest_stream(dev);
    float cin[6] = {1, 2, 3, 4, 5, 6}, c[6];
    uint64_t dcin, dc;
    CHECK_OK(rs_alloc(dev, sizeof cin, s, &dcin));
    CHECK_OK(rs_alloc(dev, sizeof c, s, &dc));
    CHECK_OK(rs_memcpy_htod(s, dcin, cin, sizeof cin));
    rs_gemm_desc d;
    memset(&d, 0, sizeof d);
    d.dtype = RS_FLOAT32;
    d.batch = 1, d.m = 2, d.n = 3, d.k = 0;
    d.c = op3(dc, 6, 3, 1);
    d.cin = op3(dcin, 6, 3, 1);
    d.use_cin = 1;
    d.alpha[0].f = INFINITY; /* ignored when k == 0, as on CPU */
    d.beta[0].f = 3.0f;
    CHECK_OK(rs_gemm(s, &d));
    CHECK_OK(rs_memcpy_dtoh(s, c, dc, sizeof c));
    for (int i = 0; i < 6; i++) CHECK(c[i] == 3.0f * cin[i]);
    rs_free(dev, dcin), rs_free(dev, dc);
}

/* int8 wraps as CPU's int8 arithmetic does; batch summed (addbmm form). */
TEST(int8_wraps_reduce_batch) {
    rs_device *dev = ctest_device();
    rs_stream *s = ctest_stream(dev);
    enum { B = 3, M = 20, N = 18, K = 40 };
    int8_t a[B * M * K], b[B * K * N], c[M * N];
    for (int i = 0; i < B * M * K; i++) a[i] = (int8_t)(i * 37 + 11);
    for (int i = 0; i < B * K * N; i++) b[i] = (int8_t)(i * 91 - 5);
    uint64_t da, db, dc;
    CHECK_OK(rs_alloc(dev, sizeof a, s, &da));
    CHECK_OK(rs_alloc(dev, sizeof b, s, &db));
    CHECK_OK(rs_alloc(dev, sizeof c, s, &dc));
    CHECK_OK(rs_memcpy_htod(s, da, a, sizeof a));
    CHECK_OK(rs_memcpy_htod(s, db, b, sizeof b));
    rs_gemm_desc d;
    memset(&d, 0, sizeof d);
    d.dtype = RS_INT8;
    d.batch = B, d.m = M, d.n = N, d.k = K;
    d.a = op3(da, M * K, K, 1);
    d.b = op3(db, K * N, 1, K); /* B[z][p][j] stored as [z][j][p] */
    d.c = op3(dc, 0, N, 1);
    d.reduce_batch = 1;
    d.alpha[0].i = 3;
    CHECK_OK(rs_gemm(s, &d));
    CHECK_OK(rs_memcpy_dtoh(s, c, dc, sizeof c));
    for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j++) {
            uint64_t acc = 0;
            for (int z = 0; z < B; z++)
                for (int p = 0; p < K; p++)
                    acc += (uint64_t)(int64_t)a[z * M * K + i * K + p] * (uint64_t)(int64_t)b[z * K * N + j * K + p];
            CHECK(c[i * N + j] == (int8_t)(uint8_t)(acc * 3u));
        }
    rs_free(dev, da), rs_free(dev, db), rs_free(dev, dc);
}

/* float16 in, float32 accumulation, one rounding at the end. */
/* float16/bfloat16: float32 accumulation, one rounding at the end; with a
 * long k and few tiles on the tiled kernel, k split into float32 partial
 * products (the apple profile's path; a device with cooperative matrices
 * may pick those instead) */
static void run_half(rs_dtype dt, int M, int N, int K, int expect_split) {
    rs_device *dev = ctest_device();
    rs_stream *s = ctest_stream(dev);
    int bf = dt == RS_BFLOAT16;
    uint16_t *a = malloc(2 * (size_t)M * K), *b = malloc(2 * (size_t)K * N), *c = malloc(2 * (size_t)M * N);
    float *af = malloc(4 * (size_t)M * K), *bfv = malloc(4 * (size_t)K * N);
    for (int i = 0; i < M * K; i++) {
        a[i] = bf ? rs_bf16_from_f32(frand()) : rs_f16_from_f32(frand());
        af[i] = bf ? rs_bf16_to_f32(a[i]) : rs_f16_to_f32(a[i]);
    }
    for (int i = 0; i < K * N; i++) {
        b[i] = bf ? rs_bf16_from_f32(frand()) : rs_f16_from_f32(frand());
        bfv[i] = bf ? rs_bf16_to_f32(b[i]) : rs_f16_to_f32(b[i]);
    }
    uint64_t da, db, dc;
    CHECK_OK(rs_alloc(dev, 2 * (uint64_t)M * K, s, &da));
    CHECK_OK(rs_alloc(dev, 2 * (uint64_t)K * N, s, &db));
    CHECK_OK(rs_alloc(dev, 2 * (uint64_t)M * N, s, &dc));
    CHECK_OK(rs_memcpy_htod(s, da, a, 2 * (uint64_t)M * K));
    CHECK_OK(rs_memcpy_htod(s, db, b, 2 * (uint64_t)K * N));
    rs_gemm_desc d;
    memset(&d, 0, sizeof d);
    d.dtype = dt;
    d.batch = 1, d.m = M, d.n = N, d.k = K;
    d.a = op3(da, 0, K, 1);
    d.b = op3(db, 0, N, 1);
    d.c = op3(dc, 0, N, 1);
    d.alpha[0].f = 1.0f;
    const char *name = rs_gemm_kernel_name(s, &d);
    if (strncmp(name, "tiled", 5) == 0) CHECK((strstr(name, "split") != NULL) == expect_split);
    CHECK_OK(rs_gemm(s, &d));
    CHECK_OK(rs_memcpy_dtoh(s, c, dc, 2 * (uint64_t)M * N));
    /* within one rounding to the dtype (plus float32 accumulation error) */
    double rel = bf ? 8e-3 : 1e-3;
    for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j++) {
            double acc = 0, mag = 0;
            for (int p = 0; p < K; p++) {
                double t = (double)af[i * K + p] * bfv[p * N + j];
                acc += t;
                mag += fabs(t);
            }
            float got = bf ? rs_bf16_to_f32(c[i * N + j]) : rs_f16_to_f32(c[i * N + j]);
            if (!(fabs(got - acc) <= fabs(acc) * rel + 1e-5 * mag + 1e-3)) {
                fprintf(stderr, "  %s [%d,%d] got %g ref %g (kernel %s)\n", rs_dtype_name(dt), i, j, got, acc, name);
                CHECK(0);
                i = M;
                break;
            }
        }
    rs_free(dev, da), rs_free(dev, db), rs_free(dev, dc);
    free(a), free(b), free(c), free(af), free(bfv);
}

TEST(f16_accumulates_in_f32) { run_half(RS_FLOAT16, 64, 80, 300, 0); }
TEST(f16_split_k) { run_half(RS_FLOAT16, 64, 80, 2100, 1); }
TEST(bf16_split_k) { run_half(RS_BFLOAT16, 40, 72, 1600, 1); }

/* float16/bfloat16 operands with float32 C and Cin (c_float32: attention's
 * score blocks): C = 0.5 A @ B + Cin, unrounded. ta / tb: A stored (K, M)
 * and B stored (N, K) (the transposed views attention's products read; on
 * cooperative matrices the 16-byte loaders along m and k), Z batches. */
static void run_half_c32(rs_dtype dt, int M, int N, int K, int ta, int tb, int Z) {
    rs_device *dev = ctest_device();
    rs_stream *s = ctest_stream(dev);
    const int bf = dt == RS_BFLOAT16;
    const size_t na = (size_t)Z * M * K, nb = (size_t)Z * K * N, nc = (size_t)Z * M * N;
    uint16_t *a = malloc(2 * na), *b = malloc(2 * nb);
    float *af = malloc(4 * na), *bfv = malloc(4 * nb), *cin = malloc(4 * nc), *c = malloc(4 * nc);
    for (size_t i = 0; i < na; i++) {
        a[i] = bf ? rs_bf16_from_f32(frand()) : rs_f16_from_f32(frand());
        af[i] = bf ? rs_bf16_to_f32(a[i]) : rs_f16_to_f32(a[i]);
    }
    for (size_t i = 0; i < nb; i++) {
        b[i] = bf ? rs_bf16_from_f32(frand()) : rs_f16_from_f32(frand());
        bfv[i] = bf ? rs_bf16_to_f32(b[i]) : rs_f16_to_f32(b[i]);
    }
    for (size_t i = 0; i < nc; i++) cin[i] = frand();
    uint64_t da, db, dc;
    CHECK_OK(rs_alloc(dev, 2 * na, s, &da));
    CHECK_OK(rs_alloc(dev, 2 * nb, s, &db));
    CHECK_OK(rs_alloc(dev, 4 * nc, s, &dc));
    CHECK_OK(rs_memcpy_htod(s, da, a, 2 * na));
    CHECK_OK(rs_memcpy_htod(s, db, b, 2 * nb));
    CHECK_OK(rs_memcpy_htod(s, dc, cin, 4 * nc));
    rs_gemm_desc d;
    memset(&d, 0, sizeof d);
    d.dtype = dt;
    d.c_float32 = 1;
    d.batch = Z, d.m = M, d.n = N, d.k = K;
    d.a = ta ? op3(da, (int64_t)M * K, 1, M) : op3(da, (int64_t)M * K, K, 1);
    d.b = tb ? op3(db, (int64_t)K * N, 1, K) : op3(db, (int64_t)K * N, N, 1);
    d.c = d.cin = op3(dc, (int64_t)M * N, N, 1);
    d.use_cin = 1;
    d.alpha[0].f = 0.5f, d.beta[0].f = 1.0f;
    const char *name = rs_gemm_kernel_name(s, &d);
    if (strncmp(name, "coopmat-khr", 11) == 0) CHECK(strstr(name, "c32") != NULL);
    CHECK_OK(rs_gemm(s, &d));
    CHECK_OK(rs_memcpy_dtoh(s, c, dc, 4 * nc));
    for (int z = 0; z < Z; z++)
        for (int i = 0; i < M; i++)
            for (int j = 0; j < N; j++) {
                double mag;
                const double acc = ref_entry(af + (size_t)z * M * K, bfv + (size_t)z * K * N, M, N, K, i, j, ta, tb, &mag);
                const size_t o = (size_t)z * M * N + (size_t)i * N + j;
                const double want = 0.5 * acc + cin[o];
                /* float32 accumulation only: no rounding to the dtype */
                if (!(fabs(c[o] - want) <= 1e-5 * (mag + 1.0))) {
                    fprintf(stderr, "  %s c32 [%d,%d,%d] got %.9g ref %.9g (kernel %s)\n", rs_dtype_name(dt), z, i, j,
                            c[o], want, name);
                    CHECK(0);
                    z = Z, i = M;
                    break;
                }
            }
    /* float32 C is for half-precision operands only */
    d.dtype = RS_FLOAT32;
    CHECK(rs_gemm(s, &d) == RS_ERR_INVALID);
    rs_free(dev, da), rs_free(dev, db), rs_free(dev, dc);
    free(a), free(b), free(af), free(bfv), free(cin), free(c);
}

TEST(half_operands_float32_result) {
    run_half_c32(RS_FLOAT16, 70, 136, 40, 0, 1, 2);   /* q k^T */
    run_half_c32(RS_BFLOAT16, 136, 64, 72, 1, 0, 2);  /* p^T dO */
    run_half_c32(RS_BFLOAT16, 64, 96, 136, 0, 0, 2);  /* ds k */
    run_half_c32(RS_FLOAT16, 9, 5, 3, 1, 1, 2);       /* small: the tiled kernel everywhere */
    run_half_c32(RS_BFLOAT16, 3, 1, 700, 0, 0, 2);    /* matrix-vector: the dot kernel */
    run_half_c32(RS_BFLOAT16, 40, 72, 1600, 0, 0, 1); /* split k on the tiled kernel */
}

/* The precompiled-SPIR-V registry and the KHR cooperative-matrix choice:
 * an unknown module is a clear error; under the apple profile the KHR path
 * is off; float16 picks the KHR kernel exactly when the device has it
 * (f16_accumulates_in_f32 then runs it). */
TEST(khr_coopmat_choice) {
    rs_device *dev = ctest_device();
    rs_stream *s = ctest_stream(dev);
    rs_kernel *k = (rs_kernel *)1;
    CHECK(rs_kernel_spirv(dev, "no_such_module", &k) == RS_ERR_INVALID);
    CHECK(strstr(rs_last_error(), "no_such_module") != NULL);
    rs_device_info info;
    CHECK_OK(rs_device_info_get(0, &info));
    int khr = rs_device_coopmat_khr(dev);
    if (info.profile == RS_PROFILE_APPLE) CHECK(!khr);
    rs_gemm_desc d;
    memset(&d, 0, sizeof d);
    d.dtype = RS_FLOAT16;
    d.batch = 1, d.m = 128, d.n = 128, d.k = 64;
    d.a = op3(0, 0, 64, 1);
    d.b = op3(0, 0, 1, 64); /* k-contiguous B: x @ w.T */
    d.c = op3(0, 0, 128, 1);
    const char *name = rs_gemm_kernel_name(s, &d);
    int sg32 = rs_device_features(dev)->subgroup_size == 32;
    int picked = strncmp(name, "coopmat-khr-", 12) == 0;
    CHECK(picked == ((khr & RS_COOPMAT_KHR_F16) && sg32));
    if (picked) CHECK(strstr(name, "-a1-b2") != NULL);
    /* bfloat16 only where the device has bfloat16 fragments */
    d.dtype = RS_BFLOAT16;
    name = rs_gemm_kernel_name(s, &d);
    CHECK((strncmp(name, "coopmat-khr-bf16-", 17) == 0) == ((khr & RS_COOPMAT_KHR_BF16) && sg32));
    /* every module either picks is committed */
    /* the tile: 128x256 (w4x4, or w4x4h with the device's float16
     * conversions; "f" when the tiles divide the shape) for large products,
     * 128x128 for the rest */
    d.dtype = RS_FLOAT16;
    d.m = d.n = 4096;
    if (picked) CHECK(strstr(rs_gemm_kernel_name(s, &d), "-w4x4") != NULL);
    d.n = 4096 + 64; /* 128x256 tiles would pad n by 192, 128x128 by 64 */
    if (picked) CHECK(strstr(rs_gemm_kernel_name(s, &d), "-w2s1-") != NULL);
    d.m = 200, d.n = 136; /* too few tiles */
    if (picked) CHECK(strstr(rs_gemm_kernel_name(s, &d), "-w2s1-") != NULL);
    rs_kernel *km = NULL;
    if (khr & RS_COOPMAT_KHR_F16) CHECK_OK(rs_kernel_spirv(dev, "gemm_coopmat_khr_w2s1_a1b2", &km));
    if (khr & RS_COOPMAT_KHR_BF16) CHECK_OK(rs_kernel_spirv(dev, "gemm_coopmat_khr_bf16_w4s1_a1b2", &km));
}

/* complex64 with A conjugated (vdot-like), C = A^H-ish @ B. */
TEST(complex64_conj) {
    rs_device *dev = ctest_device();
    rs_stream *s = ctest_stream(dev);
    enum { M = 9, N = 7, K = 13 };
    float a[2 * M * K], b[2 * K * N], c[2 * M * N];
    for (int i = 0; i < 2 * M * K; i++) a[i] = frand();
    for (int i = 0; i < 2 * K * N; i++) b[i] = frand();
    uint64_t da, db, dc;
    CHECK_OK(rs_alloc(dev, sizeof a, s, &da));
    CHECK_OK(rs_alloc(dev, sizeof b, s, &db));
    CHECK_OK(rs_alloc(dev, sizeof c, s, &dc));
    CHECK_OK(rs_memcpy_htod(s, da, a, sizeof a));
    CHECK_OK(rs_memcpy_htod(s, db, b, sizeof b));
    rs_gemm_desc d;
    memset(&d, 0, sizeof d);
    d.dtype = RS_COMPLEX64;
    d.batch = 1, d.m = M, d.n = N, d.k = K;
    d.a = op3(da, 0, K, 1);
    d.b = op3(db, 0, N, 1);
    d.c = op3(dc, 0, N, 1);
    d.conj_a = 1;
    d.alpha[0].cf.re = 0.0f;
    d.alpha[0].cf.im = 1.0f; /* alpha = i */
    CHECK_OK(rs_gemm(s, &d));
    CHECK_OK(rs_memcpy_dtoh(s, c, dc, sizeof c));
    for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j++) {
            double re = 0, im = 0;
            for (int p = 0; p < K; p++) {
                double ar = a[2 * (i * K + p)], ai = -a[2 * (i * K + p) + 1];
                double br = b[2 * (p * N + j)], bi = b[2 * (p * N + j) + 1];
                re += ar * br - ai * bi;
                im += ar * bi + ai * br;
            }
            /* times i: (re, im) -> (-im, re) */
            CHECK(fabs(c[2 * (i * N + j)] + im) < 1e-4);
            CHECK(fabs(c[2 * (i * N + j) + 1] - re) < 1e-4);
        }
    rs_free(dev, da), rs_free(dev, db), rs_free(dev, dc);
}

/* float64 runs where the profile has fp64, and is refused under apple. */
TEST(f64_native_or_unsupported) {
    rs_device *dev = ctest_device();
    rs_stream *s = ctest_stream(dev);
    enum { M = 33, N = 17, K = 45 };
    double a[M * K], b[K * N], c[M * N];
    for (int i = 0; i < M * K; i++) a[i] = frand();
    for (int i = 0; i < K * N; i++) b[i] = frand();
    uint64_t da, db, dc;
    CHECK_OK(rs_alloc(dev, sizeof a, s, &da));
    CHECK_OK(rs_alloc(dev, sizeof b, s, &db));
    CHECK_OK(rs_alloc(dev, sizeof c, s, &dc));
    CHECK_OK(rs_memcpy_htod(s, da, a, sizeof a));
    CHECK_OK(rs_memcpy_htod(s, db, b, sizeof b));
    rs_gemm_desc d;
    memset(&d, 0, sizeof d);
    d.dtype = RS_FLOAT64;
    d.batch = 1, d.m = M, d.n = N, d.k = K;
    d.a = op3(da, 0, K, 1);
    d.b = op3(db, 0, N, 1);
    d.c = op3(dc, 0, N, 1);
    d.alpha[0].d = 1.0;
    rs_status st = rs_gemm(s, &d);
    if (!rs_device_features(dev)->has_fp64) {
        CHECK(st == RS_ERR_UNSUPPORTED);
    } else {
        CHECK_OK(st);
        CHECK_OK(rs_memcpy_dtoh(s, c, dc, sizeof c));
        for (int i = 0; i < M; i++)
            for (int j = 0; j < N; j++) {
                double acc = 0;
                for (int p = 0; p < K; p++) acc += a[i * K + p] * b[p * N + j];
                CHECK(fabs(c[i * N + j] - acc) < 1e-12);
            }
    }
    rs_free(dev, da), rs_free(dev, db), rs_free(dev, dc);
}

TEST(cross_int32_strided) {
    rs_device *dev = ctest_device();
    rs_stream *s = ctest_stream(dev);
    /* a, b: (4, 3) row-major; out: (4, 3) stored transposed */
    int32_t a[12], b[12], out[12];
    for (int i = 0; i < 12; i++) a[i] = i * 7 - 20, b[i] = 100000 - i * 30011;
    uint64_t da, db, dout;
    CHECK_OK(rs_alloc(dev, sizeof a, s, &da));
    CHECK_OK(rs_alloc(dev, sizeof b, s, &db));
    CHECK_OK(rs_alloc(dev, sizeof out, s, &dout));
    CHECK_OK(rs_memcpy_htod(s, da, a, sizeof a));
    CHECK_OK(rs_memcpy_htod(s, db, b, sizeof b));
    rs_tensor ta, tb, to;
    memset(&ta, 0, sizeof ta);
    ta.address = da, ta.dtype = RS_INT32, ta.ndim = 2;
    ta.sizes[0] = 4, ta.sizes[1] = 3, ta.strides[0] = 3, ta.strides[1] = 1;
    tb = ta, tb.address = db;
    to = ta, to.address = dout, to.strides[0] = 1, to.strides[1] = 4;
    CHECK_OK(rs_cross(s, &to, &ta, &tb, 1));
    CHECK_OK(rs_memcpy_dtoh(s, out, dout, sizeof out));
    for (int r = 0; r < 4; r++)
        for (int i = 0; i < 3; i++) {
            const int32_t *x = a + 3 * r, *y = b + 3 * r;
            uint32_t ref = (uint32_t)x[(i + 1) % 3] * (uint32_t)y[(i + 2) % 3] -
                           (uint32_t)x[(i + 2) % 3] * (uint32_t)y[(i + 1) % 3];
            CHECK(out[i * 4 + r] == (int32_t)ref);
        }
    CHECK(rs_cross(s, &to, &ta, &tb, 0) == RS_ERR_INVALID);
    rs_free(dev, da), rs_free(dev, db), rs_free(dev, dout);
}

int main(void) {
    RUN(f32_small_tile);
    RUN(f32_medium_tile);
    RUN(f32_medium_tile_vector_loads);
    RUN(f32_medium_tile_vector_loads_bt);
    RUN(f32_large_tile);
    RUN(f32_large_tile_vector_loads);
    RUN(f32_large_tile_layouts);
    RUN(f32_skinny);
    RUN(f32_split_k);
    RUN(f32_split_k_short_last_chunk_bt);
    RUN(f32_batch_long_k_not_split);
    RUN(f32_matrix_vector);
    RUN(f32_dot_long_k);
    RUN(f32_k_zero_is_beta_cin);
    RUN(int8_wraps_reduce_batch);
    RUN(f16_accumulates_in_f32);
    RUN(f16_split_k);
    RUN(bf16_split_k);
    RUN(half_operands_float32_result);
    RUN(khr_coopmat_choice);
    RUN(complex64_conj);
    RUN(f64_native_or_unsupported);
    RUN(cross_int32_strided);
    CTEST_END();
}
