/* The pointwise op table (russet/pointwise_ops.h) against the GLSL: every
 * op is compiled (and run on a few ones) for every kind of compute dtype,
 * and a kind the table lists must compile, one it leaves out must not. So
 * the table cannot claim a kernel the functions lack (the op would raise a
 * compile error instead of running on the host), nor miss one they have
 * (the op would run on the host for nothing). Kinds that need fp64 are
 * checked where the device has it (the native profile).
 *
 * RS_PW_DISCOVER=1 prints each op's kinds as the GLSL has them instead of
 * checking: the way to fill the table's column after a change. */
#include <ctype.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ctest.h"

enum { N = 4, NKINDS = 7 };

/* one compute dtype per kind, in the kinds' bit order */
static const rs_dtype kRep[NKINDS] = {RS_BOOL, RS_INT64, RS_UINT64, RS_FLOAT32, RS_FLOAT64, RS_COMPLEX64, RS_COMPLEX128};
static const char *kKindName[NKINDS] = {"bool", "int", "uint", "float", "double", "cfloat", "cdouble"};

static rs_dtype real_of(rs_dtype t) {
    return t == RS_COMPLEX64 ? RS_FLOAT32 : t == RS_COMPLEX128 ? RS_FLOAT64 : t;
}

/* which of the operands a, b, c, d and scalars s0..s3 the expression names */
static void uses(const char *e, int *ninputs, int *nscalars) {
    *ninputs = 0, *nscalars = 0;
    for (const char *p = e; *p;) {
        if (!isalnum((unsigned char)*p) && *p != '_') {
            p++;
            continue;
        }
        const char *q = p;
        while (isalnum((unsigned char)*q) || *q == '_') q++;
        size_t n = (size_t)(q - p);
        if (n == 1 && *p >= 'a' && *p <= 'd' && *ninputs < *p - 'a' + 1) *ninputs = *p - 'a' + 1;
        if (n == 2 && p[0] == 's' && p[1] >= '0' && p[1] <= '3' && *nscalars < p[1] - '0' + 1)
            *nscalars = p[1] - '0' + 1;
        p = q;
    }
}

/* N elements of the value 1 in dtype dt */
static void ones(rs_dtype dt, unsigned char *buf) {
    size_t sz = rs_dtype_size(dt);
    memset(buf, 0, N * sz);
    for (int i = 0; i < N; i++) {
        unsigned char *e = buf + (size_t)i * sz;
        switch (dt) {
        case RS_FLOAT32:
        case RS_COMPLEX64: { float one = 1.0f; memcpy(e, &one, 4); break; }
        case RS_FLOAT64:
        case RS_COMPLEX128: { double one = 1.0; memcpy(e, &one, 8); break; }
        case RS_FLOAT16: e[1] = 0x3C; break;
        case RS_BFLOAT16: e[1] = 0x3F, e[0] = 0x80; break;
        default: e[0] = 1; break; /* bool and the integers, little-endian */
        }
    }
}

static void scalar_one(rs_dtype dt, rs_scalar v[2]) {
    memset(v, 0, 2 * sizeof *v);
    if (dt == RS_FLOAT64 || dt == RS_COMPLEX128) v[0].d = 1.0;
    else if (dt == RS_FLOAT32 || dt == RS_COMPLEX64) v[0].cf.re = 1.0f;
    else v[0].i = 1;
}

/* 1: the op compiles (and runs) for this compute dtype with some result
 * type (the compute dtype, bool, or its real type: the adapter's Result);
 * 0: it does not compile; -1: another failure */
static int compiles(rs_device *dev, rs_stream *s, rs_pw_op op, rs_dtype compute, uint64_t bufs[5]) {
    static char expr[1024];
    const int flags[RS_PW_MAX_FLAGS] = {0};
    if (rs_pw_op_text(op, flags, expr, sizeof expr) != RS_OK) return -1;
    int nin, nsc;
    uses(expr, &nin, &nsc);
    unsigned keep;
    int keep_dt;
    rs_pw_op_kept(op, &keep, &keep_dt);
    rs_pointwise p;
    memset(&p, 0, sizeof p);
    p.name = "table_probe";
    p.expr = expr;
    p.common = p.compute = compute;
    p.ninputs = nin;
    unsigned char host[N * 16];
    for (int k = 0; k < nin; k++) {
        rs_dtype dt = (keep >> k & 1) ? (keep_dt == RS_PW_KEEP_REAL ? real_of(compute) : (rs_dtype)keep_dt) : compute;
        ones(dt, host);
        if (rs_memcpy_htod(s, bufs[1 + k], host, N * rs_dtype_size(dt)) != RS_OK) return -1;
        p.in[k] = (rs_tensor){.address = bufs[1 + k], .dtype = dt, .ndim = 1, .sizes = {N}, .strides = {1}};
    }
    p.nscalars = nsc;
    for (int k = 0; k < nsc; k++) scalar_one(compute, p.s[k]);
    const rs_dtype results[3] = {compute, RS_BOOL, real_of(compute)};
    for (int r = 0; r < 3; r++) {
        if (r && results[r] == results[0]) continue;
        if (r == 2 && results[2] == RS_BOOL) continue;
        p.result = results[r];
        p.out = (rs_tensor){.address = bufs[0], .dtype = results[r], .ndim = 1, .sizes = {N}, .strides = {1}};
        rs_status st = rs_pointwise_run(s, &p);
        if (st == RS_OK) return rs_stream_synchronize(s) == RS_OK ? 1 : -1;
        if (st != RS_ERR_COMPILE) return -1;
    }
    return 0;
}

TEST(table_matches_the_kernels) {
    rs_device *dev = ctest_device();
    rs_stream *s = ctest_stream(dev);
    const int discover = getenv("RS_PW_DISCOVER") && atoi(getenv("RS_PW_DISCOVER"));
    const int fp64 = rs_device_features(dev)->has_fp64;
    uint64_t bufs[5];
    for (int k = 0; k < 5; k++) CHECK_OK(rs_alloc(dev, N * 16, s, &bufs[k]));
    int bad = 0;
    if (discover) printf("{\n");
    for (int op = RS_PW_NONE + 1; op < RS_PW_COUNT; op++) {
        if (!rs_pw_op_expr((rs_pw_op)op)) {
            fprintf(stderr, "  op %d has no expression\n", op);
            bad++;
            continue;
        }
        unsigned found = 0, claimed = rs_pw_op_kinds((rs_pw_op)op);
        for (int k = 0; k < NKINDS; k++) {
            if (!fp64 && rs_dtype_needs_fp64(kRep[k])) {
                found |= claimed & (1u << k); /* cannot tell here: as claimed */
                continue;
            }
            int c = compiles(dev, s, (rs_pw_op)op, kRep[k], bufs);
            if (c < 0) {
                fprintf(stderr, "  op %d (%s) %s: %s\n", op, rs_pw_op_expr((rs_pw_op)op), kKindName[k],
                        rs_last_error());
                bad++;
            }
            if (c == 1) found |= 1u << k;
        }
        if (discover) {
            printf("  \"%d\": %u%s\n", op, found, op + 1 < RS_PW_COUNT ? "," : "");
        } else if (found != claimed) {
            fprintf(stderr, "  op %d (%s): the table says kinds 0x%x, the kernels compile for 0x%x\n", op,
                    rs_pw_op_expr((rs_pw_op)op), claimed, found);
            bad++;
        }
    }
    if (discover) printf("}\n");
    for (int k = 0; k < 5; k++) rs_free(dev, bufs[k]);
    CHECK(bad == 0);
}

/* The engine refuses a kind the table leaves out before compiling:
 * RS_ERR_UNSUPPORTED (host execution), not a compile error. */
TEST(a_kind_the_table_lacks_is_unsupported) {
    rs_device *dev = ctest_device();
    rs_stream *s = ctest_stream(dev);
    CHECK(!rs_pw_op_supports(RS_PW_LGAMMA, RS_COMPLEX64));
    CHECK(rs_pw_op_supports(RS_PW_LGAMMA, RS_FLOAT16));
    CHECK(rs_pw_kind(RS_BFLOAT16) == RS_PWK_FLOAT && rs_pw_kind(RS_UINT8) == RS_PWK_INT);
    uint64_t buf;
    CHECK_OK(rs_alloc(dev, N * 8, s, &buf));
    rs_pointwise p;
    memset(&p, 0, sizeof p);
    p.name = "lgamma";
    p.op = RS_PW_LGAMMA;
    p.common = p.compute = p.result = RS_COMPLEX64;
    p.ninputs = 1;
    p.out = (rs_tensor){.address = buf, .dtype = RS_COMPLEX64, .ndim = 1, .sizes = {N}, .strides = {1}};
    p.in[0] = p.out;
    CHECK(rs_pointwise_run(s, &p) == RS_ERR_UNSUPPORTED);
    CHECK(strstr(rs_last_error(), "lgamma") && strstr(rs_last_error(), "complex64"));
    p.op = (rs_pw_op)RS_PW_COUNT;
    CHECK(rs_pointwise_run(s, &p) == RS_ERR_INVALID);
    rs_free(dev, buf);
}

int main(void) {
    RUN(a_kind_the_table_lacks_is_unsupported);
    RUN(table_matches_the_kernels);
    CTEST_END();
}
