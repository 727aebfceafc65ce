/* fft_nd.c: rs_fft_nd, the transforms torch.fft reduces to (the contract is
 * in russet/fft.h): a 1-D transform per dim on scratch copies with the dim
 * last, by rs_fft (powers of two), the DFT matrix on the GEMM engine (other
 * lengths up to DFT_MATRIX_MAX) or Bluestein's chirp-z transform (longer),
 * then the scaling. complex64 (float32 in for r2c, out for c2r), or with
 * the device's fp64 complex128 (float64). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "engine/engine.h"

#define PI 3.14159265358979323846

/* other lengths up to this: a product with the DFT matrix, more accurate
 * there than Bluestein's three transforms of length M >= 2n - 1 */
#define DFT_MATRIX_MAX 512

/* a contiguous view of dt with t's sizes */
static rs_tensor dense_like(uint64_t address, rs_dtype dt, const rs_tensor *t) {
    rs_tensor v = *t;
    v.address = address;
    v.dtype = dt;
    int64_t stride = 1;
    for (int d = t->ndim - 1; d >= 0; --d) {
        v.strides[d] = stride;
        stride *= t->sizes[d];
    }
    return v;
}

/* t with dim d moved last (the others keep their order) */
static rs_tensor moved_last(const rs_tensor *t, int d) {
    rs_tensor v = *t;
    for (int i = d; i + 1 < t->ndim; ++i) v.sizes[i] = t->sizes[i + 1], v.strides[i] = t->strides[i + 1];
    v.sizes[t->ndim - 1] = t->sizes[d], v.strides[t->ndim - 1] = t->strides[d];
    return v;
}

/* the inverse: a view with its last dim moved back to d */
static rs_tensor moved_back(const rs_tensor *t, int d) {
    rs_tensor v = *t;
    const int last = t->ndim - 1;
    for (int i = last; i > d; --i) v.sizes[i] = t->sizes[i - 1], v.strides[i] = t->strides[i - 1];
    v.sizes[d] = t->sizes[last], v.strides[d] = t->strides[last];
    return v;
}

/* a transform's working precision: complex64 or complex128 values */
typedef struct precision {
    rs_dtype complex; /* RS_COMPLEX64 or RS_COMPLEX128 */
    uint64_t es;      /* bytes a complex value: 8 or 16 */
    int wide;         /* complex128 */
} precision;

static precision precision_of(rs_dtype complex) {
    const int wide = complex == RS_COMPLEX128;
    return (precision){complex, wide ? 16u : 8u, wide};
}

/* (rows, n) contiguous complex values at `address` */
static rs_tensor rows_of(precision pr, uint64_t address, int64_t rows, int64_t n) {
    return rs_tensor_rows(address, pr.complex, rows, n);
}

/* out = a (op) b in out's complex dtype (b possibly broadcast through 0
 * strides): the engine's complex product, or (RS_PW_ADD) the sum with
 * alpha 1 */
static rs_status complex_op(rs_stream *s, rs_pw_op op, const rs_tensor *out, const rs_tensor *a,
                            const rs_tensor *b) {
    rs_pointwise p;
    memset(&p, 0, sizeof p);
    p.name = op == RS_PW_ADD ? "fft_sum" : "fft_product";
    p.op = op;
    p.common = p.compute = p.result = out->dtype;
    p.ninputs = 2;
    p.out = *out;
    p.in[0] = *a;
    p.in[1] = *b;
    if (op == RS_PW_ADD) { /* alpha */
        if (out->dtype == RS_COMPLEX128) p.s[0][0].d = 1.0;
        else p.s[0][0].cf.re = 1.0f;
        p.nscalars = 1;
    }
    return rs_pointwise_run(s, &p);
}

static rs_status cmul(rs_stream *s, const rs_tensor *out, const rs_tensor *a, const rs_tensor *b) {
    return complex_op(s, RS_PW_MUL, out, a, b);
}

/* ---- constant tables: a transform length, direction and precision */
typedef struct table_for {
    int64_t n;
    int inverse;
    int wide; /* double values (complex128), else float */
} table_for;

/* one complex value of a table being filled: v[i] = re + i im, in double
 * for a wide table, else rounded once to float */
static void put(const table_for *what, void *v, int64_t i, double re, double im) {
    if (what->wide) ((double *)v)[2 * i] = re, ((double *)v)[2 * i + 1] = im;
    else ((float *)v)[2 * i] = (float)re, ((float *)v)[2 * i + 1] = (float)im;
}

/* `count` complex values made by fill(what, host memory): the device's
 * table under `key` (made on first use, one sync, never freed), or past
 * the tables' limit a fresh upload into the call's scratch */
static rs_status constant_table(rs_scratch *c, uint64_t tag, int64_t count, rs_table_fill fill, table_for what,
                                uint64_t *address) {
    const uint64_t key = (tag << 48) ^ ((uint64_t)what.inverse << 40) ^ ((uint64_t)what.wide << 41) ^ (uint64_t)what.n;
    const uint64_t bytes = (uint64_t)count * (what.wide ? 16u : 8u);
    rs_status st = rs_device_table(c->s, key, bytes, fill, &what, address);
    if (st != RS_OK || *address) return st;
    void *host = malloc(bytes);
    if (!host) return rs_error(RS_ERR_OOM, "rs_fft_nd: no host memory for a %llu-byte table", (unsigned long long)bytes);
    fill(&what, host);
    if ((st = rs_scratch_take(c, bytes, address)) == RS_OK) st = rs_memcpy_htod(c->s, *address, host, bytes);
    free(host);
    return st;
}

static int64_t bluestein_length(int64_t n) {
    int64_t m = 1;
    while (m < 2 * n - 1) m <<= 1;
    return m;
}

/* Bluestein's tables, one after another: w_j = e^(-+ i pi j^2 / n) (n
 * values), w_j / M (n; the inverse FFT's 1 / M), and b of length M:
 * conj(w_j) at j and M - j, 0 between */
static void fill_bluestein(void *ctx, void *host) {
    const table_for what = *(const table_for *)ctx;
    const int64_t n = what.n, m = bluestein_length(n);
    const double sign = what.inverse ? 1.0 : -1.0;
    for (int64_t j = 0; j < m; ++j) put(&what, host, 2 * n + j, 0, 0);
    for (int64_t j = 0; j < n; ++j) {
        const double a = sign * PI * (double)((j * j) % (2 * n)) / (double)n;
        const double co = cos(a), si = sin(a);
        put(&what, host, j, co, si);                                /* w */
        put(&what, host, n + j, co / (double)m, si / (double)m);    /* w / M */
        put(&what, host, 2 * n + j, co, -si);                       /* b */
        if (j > 0) put(&what, host, 2 * n + m - j, co, -si);
    }
}

/* the DFT matrix W[j][k] = e^(-+2 pi i jk / n), the angle from jk mod n:
 * wide, W in double; else W_hi then W_lo (each float32; W = W_hi + W_lo
 * to ~2^-48) */
static void fill_dft(void *ctx, void *host) {
    const table_for what = *(const table_for *)ctx;
    const int64_t n = what.n;
    const double sign = what.inverse ? 2.0 : -2.0;
    for (int64_t j = 0; j < n; ++j)
        for (int64_t k = 0; k < n; ++k) {
            const double a = sign * PI * (double)((j * k) % n) / (double)n;
            const double co = cos(a), si = sin(a);
            const int64_t e = j * n + k;
            put(&what, host, e, co, si);
            if (!what.wide) {
                const float *hi = host;
                put(&what, host, n * n + e, co - hi[2 * e], si - hi[2 * e + 1]);
            }
        }
}

/* ---- 1-D transforms of (rows, n) contiguous rows x into y */

static rs_status rows_pow2(rs_stream *s, precision pr, uint64_t x, uint64_t y, int64_t rows, int64_t n,
                           int inverse) {
    rs_fft_desc d = {x, y, rows, n, inverse, pr.complex};
    return rs_fft(s, &d);
}

/* c = x w, (rows, n) by (n, n), on the GEMM engine */
static rs_status dft_product(rs_stream *s, precision pr, uint64_t x, uint64_t w, uint64_t c, int64_t rows,
                             int64_t n) {
    rs_gemm_desc g;
    memset(&g, 0, sizeof g);
    g.dtype = pr.complex;
    g.batch = 1, g.m = rows, g.n = n, g.k = n;
    g.a = (rs_gemm_operand){x, {0, n, 1}};
    g.b = (rs_gemm_operand){w, {0, n, 1}};
    g.c = (rs_gemm_operand){c, {0, n, 1}};
    if (pr.wide) g.alpha[0].d = 1.0;
    else g.alpha[0].cf.re = 1.0f;
    return rs_gemm(s, &g);
}

/* y = x W: complex128, one product; complex64, x W_lo + x W_hi (two
 * products, then their sum) */
static rs_status rows_dft(rs_scratch *c, precision pr, uint64_t x, uint64_t y, int64_t rows, int64_t n,
                          int inverse) {
    uint64_t w, lo, hi;
    rs_status st = constant_table(c, 0x444654u /* DFT */, (pr.wide ? 1 : 2) * n * n, fill_dft,
                                  (table_for){n, inverse, pr.wide}, &w);
    if (st != RS_OK || pr.wide) return st != RS_OK ? st : dft_product(c->s, pr, x, w, y, rows, n);
    if (st == RS_OK) st = rs_scratch_take(c, (uint64_t)(rows * n) * pr.es, &lo);
    if (st == RS_OK) st = rs_scratch_take(c, (uint64_t)(rows * n) * pr.es, &hi);
    if (st == RS_OK) st = dft_product(c->s, pr, x, w + (uint64_t)(n * n) * pr.es, lo, rows, n);
    if (st == RS_OK) st = dft_product(c->s, pr, x, w, hi, rows, n);
    if (st != RS_OK) return st;
    const rs_tensor ty = rows_of(pr, y, rows, n), tlo = rows_of(pr, lo, rows, n), thi = rows_of(pr, hi, rows, n);
    st = complex_op(c->s, RS_PW_ADD, &ty, &tlo, &thi);
    rs_scratch_give_back(c, lo), rs_scratch_give_back(c, hi);
    return st;
}

/* Bluestein: X_k = w_k sum_j (x_j w_j) conj(w_{k-j}), the sum a circular
 * convolution of length M (a power of two >= 2n - 1) */
static rs_status rows_bluestein(rs_scratch *c, precision pr, uint64_t x, uint64_t y, int64_t rows, int64_t n,
                                int inverse) {
    const int64_t m = bluestein_length(n);
    uint64_t t, a, fa, fb;
    rs_status st = constant_table(c, 0x424C55u /* BLU */, 2 * n + m, fill_bluestein, (table_for){n, inverse, pr.wide},
                                  &t);
    if (st == RS_OK) st = rs_scratch_take(c, (uint64_t)(rows * m) * pr.es, &a);
    if (st == RS_OK) st = rs_scratch_take(c, (uint64_t)(rows * m) * pr.es, &fa);
    if (st == RS_OK) st = rs_scratch_take(c, (uint64_t)m * pr.es, &fb);
    if (st != RS_OK) return st;
    const uint64_t wd = t, wsd = t + (uint64_t)n * pr.es, bd = t + (uint64_t)(2 * n) * pr.es;
    /* a = [x w, 0 ...] */
    rs_tensor ta = rows_of(pr, a, rows, m), head = ta, xr = rows_of(pr, x, rows, n), w = rows_of(pr, wd, rows, n);
    head.sizes[1] = n;
    w.strides[0] = 0;
    static const uint64_t zero[2] = {0, 0};
    if ((st = rs_fill(c->s, &ta, zero)) || (st = cmul(c->s, &head, &xr, &w))) return st;
    if ((st = rows_pow2(c->s, pr, a, fa, rows, m, 0)) || (st = rows_pow2(c->s, pr, bd, fb, 1, m, 0))) return st;
    /* a = fa fb (fb broadcast over the rows), then its inverse transform
     * into fa */
    rs_tensor tfa = rows_of(pr, fa, rows, m), tfb = rows_of(pr, fb, rows, m);
    tfb.strides[0] = 0;
    if ((st = cmul(c->s, &ta, &tfa, &tfb)) || (st = rows_pow2(c->s, pr, a, fa, rows, m, 1))) return st;
    /* y = c[:, :n] w / M */
    rs_tensor cn = rows_of(pr, fa, rows, m), ty = rows_of(pr, y, rows, n), ws = rows_of(pr, wsd, rows, n);
    cn.sizes[1] = n;
    ws.strides[0] = 0;
    st = cmul(c->s, &ty, &cn, &ws);
    rs_scratch_give_back(c, a), rs_scratch_give_back(c, fa), rs_scratch_give_back(c, fb);
    return st;
}

/* The 1-D transform of *cur along dim d: into new scratch, *cur then
 * viewing it in cur's dim order (a no-op for length 1 or no elements) */
static rs_status transform_dim(rs_scratch *c, rs_tensor *cur, int d, int inverse) {
    const int64_t n = cur->sizes[d], numel = rs_tensor_numel(cur);
    if (numel == 0 || n == 1) return RS_OK;
    const precision pr = precision_of(cur->dtype);
    const int64_t rows = numel / n;
    uint64_t x, y;
    rs_status st = rs_scratch_take(c, (uint64_t)numel * pr.es, &x);
    if (st == RS_OK) st = rs_scratch_take(c, (uint64_t)numel * pr.es, &y);
    if (st != RS_OK) return st;
    const rs_tensor src = moved_last(cur, d), tx = dense_like(x, pr.complex, &src);
    if ((st = rs_copy(c->s, &tx, &src)) != RS_OK) return st;
    if ((n & (n - 1)) == 0) st = rows_pow2(c->s, pr, x, y, rows, n, inverse);
    else if (n <= DFT_MATRIX_MAX) st = rows_dft(c, pr, x, y, rows, n, inverse);
    else st = rows_bluestein(c, pr, x, y, rows, n, inverse);
    if (st != RS_OK) return st;
    /* x, and cur's own buffer where it is scratch, are done with */
    rs_scratch_give_back(c, x), rs_scratch_give_back(c, cur->address);
    const rs_tensor ty = dense_like(y, pr.complex, &src);
    *cur = moved_back(&ty, d);
    return RS_OK;
}

/* out = v * scale (v complex, or real for c2r's real part), or a copy */
static rs_status scaled(rs_stream *s, const rs_tensor *out, const rs_tensor *v, int normalization, double n) {
    if (normalization == 0) return rs_copy(s, out, v);
    const double f = normalization == 1 ? 1.0 / sqrt(n) : 1.0 / n;
    rs_pointwise p;
    memset(&p, 0, sizeof p);
    p.name = "fft_scale";
    p.op = RS_PW_MUL;
    p.common = p.compute = p.result = v->dtype;
    p.ninputs = 2;
    p.out = *out;
    p.in[0] = *v;
    p.is_scalar[1] = 1;
    p.in[1].dtype = v->dtype;
    if (v->dtype == RS_COMPLEX64) p.scalar[1][0].cf.re = (float)f;
    else if (v->dtype == RS_COMPLEX128 || v->dtype == RS_FLOAT64) p.scalar[1][0].d = f;
    else p.scalar[1][0].f = (float)f;
    return rs_pointwise_run(s, &p);
}

static rs_status check(rs_stream *s, const rs_fft_nd_desc *d, int64_t *last_len) {
    static const rs_dtype ins[2][3] = {{RS_COMPLEX64, RS_FLOAT32, RS_COMPLEX64},
                                       {RS_COMPLEX128, RS_FLOAT64, RS_COMPLEX128}},
                          outs[2][3] = {{RS_COMPLEX64, RS_COMPLEX64, RS_FLOAT32},
                                        {RS_COMPLEX128, RS_COMPLEX128, RS_FLOAT64}};
    if ((int)d->kind < 0 || d->kind > RS_FFT_C2R) return rs_error(RS_ERR_INVALID, "rs_fft_nd: bad kind");
    const int wide = rs_dtype_needs_fp64(d->in.dtype);
    if (d->in.dtype != ins[wide][d->kind] || d->out.dtype != outs[wide][d->kind])
        return rs_error(RS_ERR_UNSUPPORTED, "rs_fft_nd: no transform from %s to %s", rs_dtype_name(d->in.dtype),
                        rs_dtype_name(d->out.dtype));
    if (wide && !rs_stream_features(s)->has_fp64)
        return rs_error(RS_ERR_UNSUPPORTED, "rs_fft_nd: %s needs the device's fp64 arithmetic",
                        rs_dtype_name(d->in.dtype));
    if (d->normalization < 0 || d->normalization > 2)
        return rs_error(RS_ERR_INVALID, "Invalid normalization mode: %d", d->normalization);
    const int nd = d->in.ndim;
    if (d->out.ndim != nd || d->ndims < 0 || d->ndims > nd || (d->kind != RS_FFT_C2C && d->ndims == 0))
        return rs_error(RS_ERR_INVALID, "rs_fft_nd: bad dims");
    int seen[RS_MAX_DIMS] = {0};
    for (int i = 0; i < d->ndims; ++i) {
        if (d->dims[i] < 0 || d->dims[i] >= nd || seen[d->dims[i]])
            return rs_error(RS_ERR_INVALID, "rs_fft_nd: dim %d is out of range or repeated", d->dims[i]);
        seen[d->dims[i]] = 1;
    }
    const int last = d->ndims ? d->dims[d->ndims - 1] : -1;
    for (int i = 0; i < nd; ++i) {
        int64_t want = d->in.sizes[i];
        if (i == last && d->kind == RS_FFT_R2C && d->onesided) want = want / 2 + 1;
        if (i == last && d->kind == RS_FFT_C2R) want = d->out.sizes[i];
        if (d->in.sizes[i] < 0 || d->out.sizes[i] != want)
            return rs_error(RS_ERR_INVALID, "rs_fft_nd: out's size %lld at dim %d, expected %lld",
                            (long long)d->out.sizes[i], i, (long long)want);
    }
    *last_len = last >= 0 ? d->out.sizes[last] : 0;
    if (d->kind == RS_FFT_C2R && *last_len < 1)
        return rs_error(RS_ERR_INVALID, "Invalid number of data points (%lld) specified", (long long)*last_len);
    return RS_OK;
}

/* c2r's last dim: `full` (cur's shape, that dim L) = cur's first h = L / 2
 * + 1 values (zero-padded), then conj of them mirrored: full[j] =
 * conj(full[L - j]) for j >= h */
static rs_status hermitian_extend(rs_scratch *c, rs_tensor *cur, int d, int64_t L) {
    const int64_t h = L / 2 + 1, have = cur->sizes[d] < h ? cur->sizes[d] : h;
    rs_tensor shape = *cur;
    shape.sizes[d] = L;
    const precision pr = precision_of(cur->dtype);
    uint64_t a;
    rs_status st = rs_scratch_take(c, (uint64_t)rs_tensor_numel(&shape) * pr.es, &a);
    if (st != RS_OK) return st;
    const rs_tensor full = dense_like(a, pr.complex, &shape);
    static const uint64_t zero[2] = {0, 0};
    if (have < h && (st = rs_fill(c->s, &full, zero)) != RS_OK) return st;
    rs_tensor dst = full, src = *cur;
    dst.sizes[d] = src.sizes[d] = have;
    if (rs_tensor_numel(&dst) > 0 && (st = rs_copy(c->s, &dst, &src)) != RS_OK) return st;
    if (L > h && rs_tensor_numel(&full) > 0) {
        /* full[h .. L) = conj(full[L - h .. 1]) (a view stepping back) */
        rs_tensor mirror = full, from = full;
        mirror.sizes[d] = from.sizes[d] = L - h;
        mirror.address = a + (uint64_t)(h * full.strides[d]) * pr.es;
        from.address = a + (uint64_t)((L - h) * full.strides[d]) * pr.es;
        from.strides[d] = -full.strides[d];
        rs_pointwise p;
        memset(&p, 0, sizeof p);
        p.name = "fft_hermitian";
        p.op = RS_PW_CONJ;
        p.common = p.compute = p.result = pr.complex;
        p.ninputs = 1;
        p.out = mirror;
        p.in[0] = from;
        if ((st = rs_pointwise_run(c->s, &p)) != RS_OK) return st;
    }
    rs_scratch_give_back(c, cur->address);
    *cur = full;
    return RS_OK;
}

/* ---- the result's layout: as CPU's MKL path and cuFFT's lay it out
 * (ATen's _exec_fft), so strides match theirs: the batch dims (those not
 * transformed) outermost, ordered by the input's strides, largest first,
 * then the transformed dims in the order given, the whole dense. The
 * orders are those of libstdc++ on at most 16 dims: std::partition's
 * swaps from both ends, then a stable sort (insertion sort). */

/* d[0..n) ordered by strides st, largest first, ties kept in order */
static void sort_by_stride_desc(int *d, int n, const int64_t *st) {
    for (int i = 1; i < n; ++i) {
        const int v = d[i];
        int j = i;
        for (; j > 0 && st[d[j - 1]] < st[v]; --j) d[j] = d[j - 1];
        d[j] = v;
    }
}

/* one _exec_fft's layout: `order` (n dims) transformed, in that order */
static void exec_layout(int nd, const int64_t *in_strides, const int64_t *out_sizes, const int *order, int n,
                        int64_t *strides) {
    int transformed[RS_MAX_DIMS] = {0}, perm[RS_MAX_DIMS];
    for (int i = 0; i < n; ++i) transformed[order[i]] = 1;
    for (int i = 0; i < nd; ++i) perm[i] = i;
    int first = 0, last = nd; /* std::partition: batch dims to the front */
    for (;;) {
        while (first != last && !transformed[perm[first]]) ++first;
        if (first == last) break;
        --last;
        while (first != last && transformed[perm[last]]) --last;
        if (first == last) break;
        const int t = perm[first];
        perm[first] = perm[last], perm[last] = t;
        ++first;
    }
    const int batch = first;
    sort_by_stride_desc(perm, batch, in_strides);
    int64_t inner = 1; /* the dense (batch, signal...) block's strides */
    for (int i = n - 1; i >= 0; --i) {
        strides[order[i]] = inner;
        inner *= out_sizes[order[i]] > 1 ? out_sizes[order[i]] : 1;
    }
    int64_t batch_numel = 1;
    for (int i = batch - 1; i >= 0; --i) {
        strides[perm[i]] = batch_numel * inner;
        batch_numel *= out_sizes[perm[i]];
    }
}

void rs_fft_nd_layout(const rs_fft_nd_desc *d, int64_t *strides) {
    const int nd = d->in.ndim;
    int order[RS_MAX_DIMS];
    int n = d->ndims;
    memcpy(order, d->dims, sizeof(int) * (size_t)n);
    if (d->kind == RS_FFT_C2R) {
        /* CPU: the dims but the last by a c2c first, whose result's
         * layout orders the batch of the last dim's transform */
        int64_t mid[RS_MAX_DIMS];
        const int64_t *batch_strides = d->in.strides;
        if (n > 1) {
            sort_by_stride_desc(order, n - 1, d->in.strides);
            exec_layout(nd, d->in.strides, d->in.sizes, order, n - 1, mid);
            batch_strides = mid;
        }
        exec_layout(nd, batch_strides, d->out.sizes, d->dims + n - 1, 1, strides);
        return;
    }
    /* c2c sorts every dim by the input's strides; r2c all but the last */
    sort_by_stride_desc(order, d->kind == RS_FFT_R2C ? n - 1 : n, d->in.strides);
    exec_layout(nd, d->in.strides, d->out.sizes, order, n, strides);
}

rs_status rs_fft_nd(rs_stream *s, const rs_fft_nd_desc *d) {
    if (!s || !d) return rs_error(RS_ERR_INVALID, "rs_fft_nd: missing arguments");
    int64_t last_len = 0;
    rs_status st = check(s, d, &last_len);
    if (st != RS_OK || rs_tensor_numel(&d->out) == 0) return st;
    rs_scratch c = {s, {0}, 0};
    rs_tensor cur = d->in;
    double n = 1;
    const int inverse = d->kind == RS_FFT_C2R || (d->kind == RS_FFT_C2C && d->inverse);
    if (d->kind == RS_FFT_R2C) { /* the real input as complex */
        const precision pr = precision_of(d->out.dtype);
        uint64_t a;
        if ((st = rs_scratch_take(&c, (uint64_t)rs_tensor_numel(&cur) * pr.es, &a)) != RS_OK) goto done;
        const rs_tensor z = dense_like(a, pr.complex, &cur);
        if ((st = rs_copy(s, &z, &cur)) != RS_OK) goto done;
        cur = z;
    }
    /* every dim but c2r's last: transformed in turn */
    const int plain = d->kind == RS_FFT_C2R ? d->ndims - 1 : d->ndims;
    for (int i = 0; i < plain && st == RS_OK; ++i) {
        n *= (double)cur.sizes[d->dims[i]];
        st = transform_dim(&c, &cur, d->dims[i], inverse);
    }
    if (st != RS_OK) goto done;
    if (d->kind == RS_FFT_C2R) {
        const int last = d->dims[d->ndims - 1];
        n *= (double)last_len;
        if ((st = hermitian_extend(&c, &cur, last, last_len)) || (st = transform_dim(&c, &cur, last, 1))) goto done;
        rs_tensor re;
        if ((st = rs_view_as_real(&cur, &re)) != RS_OK) goto done;
        re.ndim -= 1; /* the real parts: component 0 */
        st = scaled(s, &d->out, &re, d->normalization, n);
        goto done;
    }
    if (d->kind == RS_FFT_R2C && d->onesided) cur.sizes[d->dims[d->ndims - 1]] = last_len;
    st = scaled(s, &d->out, &cur, d->normalization, n);
done:
    rs_scratch_release(&c);
    return st;
}
