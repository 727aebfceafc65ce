/* Convolution (rs_conv_run) without torch: forward, input gradient and
 * weight gradient of 1-d, 2-d and 3-d convolutions (strides, padding,
 * dilation, groups, depthwise), contiguous and channels_last, against a
 * reference written here. Inputs are small integers, so every sum is exact
 * in float32 (and float16) whatever its order, and the comparisons are
 * exact. Also: the split weight gradient, tiles of every size, float16
 * on cooperative matrices where the device has them (run it again with
 * RUSSET_CONV_COOPMAT=128 for the big tile), empty products, and clear
 * failures on bad arguments. */
#include <stdint.h>
#include <string.h>

#include "ctest.h"
#include "engine/engine.h"

/* a problem as (N, C, D, H, W), weight (O, C / groups, KD, KH, KW) */
typedef struct geom {
    int n, c, o, groups, in[3], out[3], k[3], st[3], pad[3], dil[3];
} geom;

static int64_t vol(const int v[3]) { return (int64_t)v[0] * v[1] * v[2]; }

/* element offset of logical (b, ch, e) in an (N, C, volume) array stored
 * contiguous or channels_last */
static int64_t at(int64_t b, int64_t ch, int64_t e, int64_t c, int64_t v, int cl) {
    return cl ? (b * v + e) * c + ch : (b * c + ch) * v + e;
}

/* y = conv(x, w) + bias; dx, dw for dy: all three in one pass over
 * (n, o, p, c, r), in double (exact for these integers) */
static void reference(const geom *g, const double *x, const double *w, const double *bias, const double *dy,
                      double *y, double *dx, double *dw) {
    int cg = g->c / g->groups, og = g->o / g->groups;
    int64_t iv = vol(g->in), ov = vol(g->out), kv = vol(g->k);
    memset(dx, 0, sizeof(double) * (size_t)(g->n * g->c * iv));
    memset(dw, 0, sizeof(double) * (size_t)(g->o * cg * kv));
    for (int n = 0; n < g->n; ++n)
        for (int o = 0; o < g->o; ++o)
            for (int64_t p = 0; p < ov; ++p) {
                int pos[3] = {(int)(p / (g->out[1] * g->out[2])), (int)(p / g->out[2] % g->out[1]),
                              (int)(p % g->out[2])};
                double sum = bias ? bias[o] : 0;
                int64_t yo = ((int64_t)n * g->o + o) * ov + p;
                for (int c = 0; c < cg; ++c)
                    for (int64_t r = 0; r < kv; ++r) {
                        int ro[3] = {(int)(r / (g->k[1] * g->k[2])), (int)(r / g->k[2] % g->k[1]), (int)(r % g->k[2])};
                        int64_t e = 0, inside = 1;
                        for (int j = 0; j < 3; ++j) {
                            int i = pos[j] * g->st[j] - g->pad[j] + ro[j] * g->dil[j];
                            inside &= i >= 0 && i < g->in[j];
                            e = e * g->in[j] + i;
                        }
                        if (!inside) continue;
                        int ch = o / og * cg + c;
                        int64_t xo = ((int64_t)n * g->c + ch) * iv + e, wo = ((int64_t)o * cg + c) * kv + r;
                        sum += x[xo] * w[wo];
                        dx[xo] += dy[yo] * w[wo];
                        dw[wo] += dy[yo] * x[xo];
                    }
                y[yo] = sum;
            }
}

/* a view of (N, C, spatial) with `dims` spatial dims in the layout */
static rs_tensor view(uint64_t a, rs_dtype dt, int n, int c, const int sp[3], int dims, int cl) {
    int64_t sizes[5] = {n, c};
    for (int j = 0; j < dims; ++j) sizes[2 + j] = sp[3 - dims + j];
    rs_tensor t = ctest_view(a, dt, 2 + dims, sizes);
    if (cl) {
        int64_t s = c;
        t.strides[1] = 1;
        for (int d = 1 + dims; d >= 2; --d) t.strides[d] = s, s *= sizes[d];
        t.strides[0] = s;
    }
    return t;
}

/* device values of dtype dt from doubles */
static void encode(rs_dtype dt, const double *v, void *out, int64_t count) {
    for (int64_t i = 0; i < count; ++i) {
        if (dt == RS_FLOAT32) ((float *)out)[i] = (float)v[i];
        else if (dt == RS_FLOAT16) ((uint16_t *)out)[i] = rs_f16_from_f32((float)v[i]);
        else if (dt == RS_FLOAT64) ((double *)out)[i] = v[i];
        else ((int32_t *)out)[i] = (int32_t)v[i];
    }
}

static double decode(rs_dtype dt, const void *in, int64_t i) {
    if (dt == RS_FLOAT32) return ((const float *)in)[i];
    if (dt == RS_FLOAT16) return rs_f16_to_f32(((const uint16_t *)in)[i]);
    if (dt == RS_FLOAT64) return ((const double *)in)[i];
    return ((const int32_t *)in)[i];
}

/* the logical (N, C, volume) array `v` stored in a layout */
static void *stored(rs_dtype dt, const double *v, int64_t n, int64_t c, int64_t vl, int cl) {
    int64_t count = n * c * vl;
    double *perm = malloc(sizeof(double) * (size_t)(count ? count : 1));
    for (int64_t b = 0; b < n; ++b)
        for (int64_t ch = 0; ch < c; ++ch)
            for (int64_t e = 0; e < vl; ++e) perm[at(b, ch, e, c, vl, cl)] = v[(b * c + ch) * vl + e];
    void *out = malloc(rs_dtype_size(dt) * (size_t)(count ? count : 1));
    encode(dt, perm, out, count);
    free(perm);
    return out;
}

static int compare(const char *what, rs_dtype dt, const void *got, const double *want, int64_t n, int64_t c,
                   int64_t vl, int cl) {
    for (int64_t b = 0; b < n; ++b)
        for (int64_t ch = 0; ch < c; ++ch)
            for (int64_t e = 0; e < vl; ++e) {
                double g = decode(dt, got, at(b, ch, e, c, vl, cl)), w = want[(b * c + ch) * vl + e];
                if (g != w) {
                    fprintf(stderr, "  %s (%lld, %lld, %lld): %g, want %g\n", what, (long long)b, (long long)ch,
                            (long long)e, g, w);
                    return 0;
                }
            }
    return 1;
}

/* a descriptor of problem g with views at address 0 (rs_conv_kernel_name
 * asks which kernel it gets; run_case puts its buffers in) */
static rs_conv described(const geom *g, int dims, rs_dtype dt, rs_conv_op op) {
    rs_conv c;
    memset(&c, 0, sizeof c);
    c.op = op;
    c.dims = dims;
    c.groups = g->groups;
    for (int j = 0; j < dims; ++j) {
        c.stride[j] = g->st[3 - dims + j];
        c.pad[j] = g->pad[3 - dims + j];
        c.dil[j] = g->dil[3 - dims + j];
    }
    c.input = view(0, dt, g->n, g->c, g->in, dims, 0);
    c.weight = view(0, dt, g->o, g->c / g->groups, g->k, dims, 0);
    c.output = view(0, dt, g->n, g->o, g->out, dims, 0);
    return c;
}

/* forward (with a bias), input and weight gradients of one problem */
static int run_case(const geom *g, int dims, rs_dtype dt, int cl) {
    int cg = g->c / g->groups;
    int64_t iv = vol(g->in), ov = vol(g->out), kv = vol(g->k);
    int64_t nx = g->n * g->c * iv, ny = g->n * g->o * ov, nw = g->o * cg * kv;
    double *x = malloc(sizeof(double) * (size_t)(nx + 1)), *w = malloc(sizeof(double) * (size_t)(nw + 1));
    double *dy = malloc(sizeof(double) * (size_t)(ny + 1)), *bias = malloc(sizeof(double) * (size_t)g->o);
    double *y = malloc(sizeof(double) * (size_t)(ny + 1)), *dx = malloc(sizeof(double) * (size_t)(nx + 1));
    double *dw = malloc(sizeof(double) * (size_t)(nw + 1));
    for (int64_t i = 0; i < nx; ++i) x[i] = (double)((i * 7) % 5 - 2);
    for (int64_t i = 0; i < nw; ++i) w[i] = (double)((i * 3) % 7 - 3);
    for (int64_t i = 0; i < ny; ++i) dy[i] = (double)((i * 5) % 3 - 1);
    for (int i = 0; i < g->o; ++i) bias[i] = (double)(i % 4 - 1);
    reference(g, x, w, bias, dy, y, dx, dw);

    rs_device *dev = ctest_device();
    rs_stream *s = ctest_stream(dev);
    size_t es = rs_dtype_size(dt);
    void *hx = stored(dt, x, g->n, g->c, iv, cl), *hw = stored(dt, w, g->o, cg, kv, cl);
    void *hdy = stored(dt, dy, g->n, g->o, ov, cl), *hb = stored(dt, bias, 1, g->o, 1, 0);
    void *out = malloc(es * (size_t)((nx > ny ? (nx > nw ? nx : nw) : (ny > nw ? ny : nw)) + 1));
    uint64_t dxa = ctest_upload(dev, s, hx, es * (size_t)nx), dwa = ctest_upload(dev, s, hw, es * (size_t)nw);
    uint64_t dya = ctest_upload(dev, s, hdy, es * (size_t)ny), dba = ctest_upload(dev, s, hb, es * (size_t)g->o);
    uint64_t ra = 0;
    int64_t most = nx > ny ? (nx > nw ? nx : nw) : (ny > nw ? ny : nw);
    int ok = rs_alloc(dev, es * (size_t)(most + 1), s, &ra) == RS_OK;

    rs_conv c = described(g, dims, dt, RS_CONV_FORWARD);
    rs_tensor vx = view(dxa, dt, g->n, g->c, g->in, dims, cl), vw = view(dwa, dt, g->o, cg, g->k, dims, cl);
    rs_tensor vy = view(dya, dt, g->n, g->o, g->out, dims, cl);
    const char *what[3] = {"forward", "grad input", "grad weight"};
    for (int op = 0; ok && op < 3; ++op) {
        c.op = (rs_conv_op)op;
        c.input = vx, c.weight = vw, c.output = vy, c.bias = 0;
        if (op == 0) c.output = view(ra, dt, g->n, g->o, g->out, dims, cl), c.bias = dba;
        if (op == 1) c.input = view(ra, dt, g->n, g->c, g->in, dims, cl);
        if (op == 2) c.weight = view(ra, dt, g->o, cg, g->k, dims, cl);
        int64_t count = op == 0 ? ny : op == 1 ? nx : nw;
        ok = rs_conv_run(s, &c) == RS_OK && rs_memcpy_dtoh(s, out, ra, es * (size_t)count) == RS_OK &&
             rs_stream_synchronize(s) == RS_OK;
        if (!ok) {
            fprintf(stderr, "  rs_conv %s: %s\n", what[op], rs_last_error());
            break;
        }
        if (op == 0) ok = compare(what[op], dt, out, y, g->n, g->o, ov, cl);
        if (op == 1) ok = compare(what[op], dt, out, dx, g->n, g->c, iv, cl);
        if (op == 2) ok = compare(what[op], dt, out, dw, g->o, cg, kv, cl);
        if (!ok) fprintf(stderr, "  (kernel %s, %d-d, %s, cl %d)\n", rs_conv_kernel_name(s, &c), dims,
                         rs_dtype_name(dt), cl);
    }
    rs_free(dev, dxa);
    rs_free(dev, dwa);
    rs_free(dev, dya);
    rs_free(dev, dba);
    if (ra) rs_free(dev, ra);
    free(x), free(w), free(dy), free(bias), free(y), free(dx), free(dw);
    free(hx), free(hw), free(hdy), free(hb), free(out);
    return ok;
}

/* the output size of each spatial dim from the usual formula */
static geom make(int n, int c, int o, int groups, const int in[3], const int k[3], const int st[3],
                 const int pad[3], const int dil[3]) {
    geom g;
    memset(&g, 0, sizeof g);
    g.n = n, g.c = c, g.o = o, g.groups = groups;
    for (int j = 0; j < 3; ++j) {
        g.in[j] = in[j], g.k[j] = k[j], g.st[j] = st[j], g.pad[j] = pad[j], g.dil[j] = dil[j];
        g.out[j] = (in[j] + 2 * pad[j] - dil[j] * (k[j] - 1) - 1) / st[j] + 1;
    }
    return g;
}

TEST(conv2d_strided_padded_dilated_grouped) {
    /* (the products here are a few columns wide: the 64 x 4 and 256 x 1
     * invocation layouts) */
    const int in[3] = {1, 7, 9}, k[3] = {1, 3, 2}, st[3] = {1, 2, 1}, pad[3] = {0, 1, 0}, dil[3] = {1, 1, 2};
    geom g = make(2, 6, 4, 2, in, k, st, pad, dil);
    for (int cl = 0; cl < 2; ++cl) CHECK(run_case(&g, 2, RS_FLOAT32, cl));
    /* depthwise: one channel per group */
    geom d = make(2, 5, 10, 5, in, k, st, pad, dil);
    for (int cl = 0; cl < 2; ++cl) CHECK(run_case(&d, 2, RS_FLOAT32, cl));
}

TEST(conv1d_and_conv3d) {
    const int in1[3] = {1, 1, 13}, k1[3] = {1, 1, 4}, st1[3] = {1, 1, 3}, pad1[3] = {0, 0, 2}, dil1[3] = {1, 1, 1};
    geom a = make(3, 4, 5, 1, in1, k1, st1, pad1, dil1);
    CHECK(run_case(&a, 1, RS_FLOAT32, 0));
    const int in3[3] = {4, 5, 6}, k3[3] = {2, 3, 3}, st3[3] = {2, 1, 2}, pad3[3] = {1, 1, 0}, dil3[3] = {1, 2, 1};
    geom b = make(2, 4, 6, 2, in3, k3, st3, pad3, dil3);
    for (int cl = 0; cl < 2; ++cl) CHECK(run_case(&b, 3, RS_FLOAT32, cl));
}

/* the input gradient at strides above 1 runs one product per class of
 * input positions ((i + pad) mod stride): classes no kernel offset reaches
 * (1x1 at stride 2; stride and dilation sharing a factor), kernel offsets
 * starting past 0 (stride 3, dilation 2), strides above a size, input
 * positions no window covers, and classes of unequal rows over several
 * tiles */
TEST(conv_grad_input_stride_classes) {
    const int one[3] = {1, 1, 1}, zero[3] = {0, 0, 0};
    const int in[3] = {1, 9, 10}, k1[3] = {1, 1, 1}, s2[3] = {1, 2, 2};
    geom down = make(2, 6, 8, 1, in, k1, s2, zero, one);
    for (int cl = 0; cl < 2; ++cl) CHECK(run_case(&down, 2, RS_FLOAT32, cl));
    const int k3[3] = {1, 3, 3}, pad[3] = {0, 2, 1}, d2[3] = {1, 2, 2};
    geom shared_factor = make(3, 4, 5, 1, in, k3, s2, pad, d2);
    CHECK(run_case(&shared_factor, 2, RS_FLOAT32, 0));
    const int in1[3] = {1, 1, 23}, k4[3] = {1, 1, 4}, s3[3] = {1, 1, 3}, pad2[3] = {0, 0, 2}, dil2[3] = {1, 1, 2};
    geom coprime = make(2, 3, 4, 1, in1, k4, s3, pad2, dil2);
    CHECK(run_case(&coprime, 1, RS_FLOAT32, 0));
    const int in3[3] = {3, 8, 5}, k2[3] = {2, 3, 2}, s4[3] = {4, 2, 3};
    geom wide = make(2, 4, 6, 2, in3, k2, s4, zero, one);
    for (int cl = 0; cl < 2; ++cl) CHECK(run_case(&wide, 3, RS_FLOAT32, cl));
    /* 17 x 15 at stride 2: classes of 9 x 8, 9 x 7, 8 x 8 and 8 x 7
     * positions, 4 images, over 128-row tiles */
    const int inb[3] = {1, 17, 15};
    geom big = make(4, 40, 48, 1, inb, k3, s2, pad, one);
    CHECK(run_case(&big, 2, RS_FLOAT32, 0));
    CHECK(run_case(&big, 2, RS_FLOAT16, 1));
}

TEST(large_tiles_and_split_weight_gradient) {
    /* 288 rows and 130 columns: the 128-wide tiles and their edges */
    const int in[3] = {1, 12, 12}, k[3] = {1, 3, 3}, one[3] = {1, 1, 1}, pad[3] = {0, 1, 1};
    geom g = make(2, 8, 130, 1, in, k, one, pad, one);
    CHECK(run_case(&g, 2, RS_FLOAT32, 0));
    CHECK(run_case(&g, 2, RS_FLOAT32, 1));
    /* enough rows for the 128 x 64 tiles to fill the device: no shrinking */
    const int big[3] = {1, 128, 128}, k1x1[3] = {1, 1, 1};
    geom f = make(2, 3, 70, 1, big, k1x1, one, pad, one);
    rs_conv fc = described(&f, 2, RS_FLOAT32, RS_CONV_FORWARD);
    CHECK(strncmp(rs_conv_kernel_name(ctest_stream(ctest_device()), &fc), "conv-forward-128x64", 19) == 0);
    CHECK(run_case(&f, 2, RS_FLOAT32, 0));
    /* a long k (N x the output length) splits the weight gradient */
    const int in1[3] = {1, 1, 3000}, k1[3] = {1, 1, 3}, zero[3] = {0, 0, 0};
    geom s = make(4, 3, 2, 1, in1, k1, one, zero, one);
    rs_device *dev = ctest_device();
    rs_conv c = described(&s, 1, RS_FLOAT32, RS_CONV_GRAD_WEIGHT);
    CHECK(strstr(rs_conv_kernel_name(ctest_stream(dev), &c), "split") != NULL);
    CHECK(run_case(&s, 1, RS_FLOAT32, 0));
}

/* the forward and the input gradient of a deep, few-row product (a late
 * layer: 4x4 positions, k = 64 x 9) split k as the weight gradient does;
 * with a bias, groups, channels_last, float16 (on cooperative matrices
 * where the device has them) and int32 */
TEST(split_forward_and_input_gradient) {
    rs_device *dev = ctest_device();
    rs_stream *s = ctest_stream(dev);
    const int in[3] = {1, 4, 4}, k[3] = {1, 3, 3}, one[3] = {1, 1, 1}, pad[3] = {0, 1, 1};
    geom g = make(2, 64, 48, 1, in, k, one, pad, one);
    for (int op = 0; op < 2; ++op) {
        rs_conv c = described(&g, 2, RS_FLOAT32, (rs_conv_op)op);
        CHECK(strstr(rs_conv_kernel_name(s, &c), "split") != NULL);
    }
    for (int cl = 0; cl < 2; ++cl) CHECK(run_case(&g, 2, RS_FLOAT32, cl));
    CHECK(run_case(&g, 2, RS_FLOAT16, 0));
    CHECK(run_case(&g, 2, RS_INT32, 1));
    geom grouped = make(2, 64, 32, 2, in, k, one, pad, one);
    CHECK(run_case(&grouped, 2, RS_FLOAT32, 0));
}

TEST(float16_float64_and_int32) {
    const int in[3] = {1, 6, 5}, k[3] = {1, 3, 3}, one[3] = {1, 1, 1}, pad[3] = {0, 1, 0};
    geom g = make(2, 4, 6, 2, in, k, one, pad, one);
    CHECK(run_case(&g, 2, RS_FLOAT16, 0));
    CHECK(run_case(&g, 2, RS_FLOAT16, 1));
    CHECK(run_case(&g, 2, RS_INT32, 0));
    rs_device *dev = ctest_device();
    if (rs_stream_features(ctest_stream(dev))->has_fp64) CHECK(run_case(&g, 2, RS_FLOAT64, 1));
}

/* products a fragment wide or more: float16 goes to conv_coopmat_khr.comp
 * on devices with cooperative matrices (elsewhere, the first case only, on
 * conv.comp). Edges in every dimension (40 and 32 + 32 columns, 288 rows),
 * both load orders (channels_last or not), strides, dilation, groups, 1-d
 * and 3-d, the split weight gradient. */
TEST(float16_on_cooperative_matrices) {
    rs_device *dev = ctest_device();
    rs_stream *s = ctest_stream(dev);
    int coop = rs_device_coopmat_khr(dev) & RS_COOPMAT_KHR_F16;
    const int one[3] = {1, 1, 1};
    const int in[3] = {1, 12, 12}, k[3] = {1, 3, 3}, pad[3] = {0, 1, 1};
    geom a = make(2, 16, 40, 1, in, k, one, pad, one);
    rs_conv c = described(&a, 2, RS_FLOAT16, RS_CONV_FORWARD);
    const char *name = rs_conv_kernel_name(s, &c);
    CHECK((strstr(name, "coopmat") != NULL) == (coop != 0));
    for (int cl = 0; cl < 2; ++cl) CHECK(run_case(&a, 2, RS_FLOAT16, cl));
    /* the rest is for the cooperative matrices (conv.comp's variants for
     * them would take minutes to compile on lavapipe) */
    if (!coop) return;
    const int in2[3] = {1, 11, 13}, st2[3] = {1, 2, 2}, pad2[3] = {0, 1, 2}, dil2[3] = {1, 2, 1};
    geom b = make(2, 32, 64, 2, in2, k, st2, pad2, dil2);
    for (int cl = 0; cl < 2; ++cl) CHECK(run_case(&b, 2, RS_FLOAT16, cl));
    const int in1[3] = {1, 1, 70}, k1[3] = {1, 1, 5}, st1[3] = {1, 1, 2}, pad1[3] = {0, 0, 2};
    geom d = make(3, 16, 32, 1, in1, k1, st1, pad1, one);
    CHECK(run_case(&d, 1, RS_FLOAT16, 0));
    const int in3[3] = {5, 6, 7}, k3[3] = {2, 3, 3}, st3[3] = {1, 2, 1}, pad3[3] = {1, 1, 0};
    geom e = make(1, 8, 32, 1, in3, k3, st3, pad3, one);
    for (int cl = 0; cl < 2; ++cl) CHECK(run_case(&e, 3, RS_FLOAT16, cl));
    /* a long k splits the weight gradient: float32 partial sums */
    const int inl[3] = {1, 1, 2000}, kl[3] = {1, 1, 3}, zero[3] = {0, 0, 0};
    geom l = make(4, 16, 32, 1, inl, kl, one, zero, one);
    c = described(&l, 1, RS_FLOAT16, RS_CONV_GRAD_WEIGHT);
    CHECK(strstr(rs_conv_kernel_name(s, &c), "split") != NULL);
    CHECK(run_case(&l, 1, RS_FLOAT16, 0));
}

TEST(empty_products_and_bad_arguments) {
    /* no input channels: the output is the bias */
    const int in[3] = {1, 3, 3}, k[3] = {1, 2, 2}, one[3] = {1, 1, 1}, zero[3] = {0, 0, 0};
    geom e = make(2, 0, 3, 1, in, k, one, zero, one);
    CHECK(run_case(&e, 2, RS_FLOAT32, 0));
    geom nb = make(0, 2, 3, 1, in, k, one, zero, one);
    CHECK(run_case(&nb, 2, RS_FLOAT32, 0));

    rs_device *dev = ctest_device();
    rs_stream *s = ctest_stream(dev);
    geom g = make(1, 4, 4, 2, in, k, one, zero, one);
    rs_conv c;
    memset(&c, 0, sizeof c);
    c.op = RS_CONV_FORWARD;
    c.dims = 2;
    c.groups = 3; /* does not divide 4 */
    c.stride[0] = c.stride[1] = c.dil[0] = c.dil[1] = 1;
    c.input = view(0, RS_FLOAT32, g.n, g.c, g.in, 2, 0);
    c.weight = view(0, RS_FLOAT32, g.o, 2, g.k, 2, 0);
    c.output = view(0, RS_FLOAT32, g.n, g.o, g.out, 2, 0);
    CHECK(rs_conv_run(s, &c) == RS_ERR_INVALID);
    CHECK(strstr(rs_last_error(), "groups") != NULL);
    c.groups = 2;
    c.weight.sizes[1] = 3; /* not C / groups */
    CHECK(rs_conv_run(s, &c) == RS_ERR_INVALID);
    c.weight.sizes[1] = 2;
    c.stride[1] = 0;
    CHECK(rs_conv_run(s, &c) == RS_ERR_INVALID);
    c.stride[1] = 1;
    c.input.strides[3] = -1;
    CHECK(rs_conv_run(s, &c) == RS_ERR_INVALID);
    CHECK(strstr(rs_last_error(), "negative") != NULL);
    c.input.strides[3] = 1;
    c.input.dtype = c.weight.dtype = c.output.dtype = RS_BOOL;
    CHECK(rs_conv_run(s, &c) == RS_ERR_UNSUPPORTED);
    c.input.dtype = c.weight.dtype = c.output.dtype = RS_FLOAT32;
    c.weight.dtype = RS_FLOAT16;
    CHECK(rs_conv_run(s, &c) == RS_ERR_INVALID);
    c.weight.dtype = RS_FLOAT32;
    c.dims = 4;
    CHECK(rs_conv_run(s, &c) == RS_ERR_INVALID);
}

int main(void) {
    RUN(conv2d_strided_padded_dilated_grouped);
    RUN(conv_grad_input_stride_classes);
    RUN(conv1d_and_conv3d);
    RUN(large_tiles_and_split_weight_gradient);
    RUN(split_forward_and_input_gradient);
    RUN(float16_float64_and_int32);
    RUN(float16_on_cooperative_matrices);
    RUN(empty_products_and_bad_arguments);
    CTEST_END();
}
