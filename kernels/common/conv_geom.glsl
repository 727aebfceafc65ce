// conv_geom.glsl: the implicit GEMM's geometry, shared by conv.comp (FMA
// tiles, every dtype) and conv_coopmat_khr.comp (16-bit floats on
// cooperative matrices). Contract: russet/conv.h; parameters:
// params/conv.h. The includer declares the push constants `pc` (RS_CONV_PUSH)
// and defines MODE (0 forward, 1 grad input, 2 grad weight), K_CF (k's
// pairs channel fastest: channels_last; a constant or a uniform value), BM, BN
// (the tile) and BK (the slice depth); this file declares the tables.
//
// Every view is (N, C, D, H, W) with any strides; 1-d and 2-d convolutions
// arrive with unit leading spatial dims. Per group g (and, for the weight
// gradient, per split of k), MODE picks the product:
//   0 forward      y[n, o, p]  = sum_{c, r} x[n, c, p s - pad + r dil] w[o, c, r]
//                  rows m = (n, p), cols j = o, k = (c, r)
//   1 grad input   dx[n, c, i] = sum_{o, r} dy[n, o, (i + pad - r dil) / s] w[o, c, r]
//                  (only where s divides and the output position exists)
//                  rows m = (n, i), cols j = c, k = (o, r), one product per
//                  class of the stride (below)
//   2 grad weight  dw[o, c, r] = sum_{n, p} dy[n, o, p] x[n, c, p s - pad + r dil]
//                  rows m = o, cols j = (c, r), k = (n, p)
//
// The operands' addressing is separable: an element's offset is a part
// that depends on its row (or column) plus a part that depends on k, and a
// window operand also adds positions: q (from the row) + p (from k) must
// lie inside the tensor (x, modes 0 and 2), or q - p must be a multiple of
// the stride whose quotient is an output position (dy, mode 1). The row
// parts are tabulated in shared memory once per tile (build_tables), the k
// parts once per BK-deep slice (build_k, two buffers: one is built while
// the other is read). A window's offset is separable too: the tables hold
// row part + q . strides and k part + p . strides, so an element costs two
// table reads, one add and an unsigned bounds test of q + p; a position of
// NOWHERE marks a row or k outside the product (its q + p is never inside).
//
// Mode 1 with a stride s above 1 would test per element whether s divides
// i + pad - r dil, and most of its k would be zeros (3/4 at stride 2 in
// 2-d). Instead the input positions i fall into classes by (i + pad) mod s
// per dim, and the kernel offsets r that reach a class are those with
// r dil = i + pad (mod s): for them the output position is
// (i + pad) / s - (r dil) / s, separable again, with no zero k. Each class
// is a product of its own (rows (n, i in the class), k (o, r reaching it));
// a class no r reaches (K = 0: a 1x1 kernel at stride 2) writes zeros. The
// classes are numbered by each dim's first position i (below the stride
// and the size), and run as more groups (z).
#ifndef RS_CONV_GEOM_GLSL
#define RS_CONV_GEOM_GLSL
#include "common/index.glsl"

int64_t cp(int slot) { return RsI64(pc.params + 8UL * uint64_t(slot)).v; }

// geometry, read once
int64_t nb, cg, og, ngroups, M, NC, K;
ivec3 isz, osz, ksz, str, pad, dil;
int64_t xs[5], ws[5], ys[5];

// a position outside every tensor (positions are below 2^30: conv.c):
// q + p and q - p stay within int32 and fail the bounds test
#define NOWHERE (1 << 30)

void read_params() {
    nb = cp(CP_N); cg = cp(CP_CG); og = cp(CP_OG); ngroups = cp(CP_G);
    for (int j = 0; j < 3; ++j) {
        isz[j] = int(cp(CP_IN + j)); osz[j] = int(cp(CP_OUT + j)); ksz[j] = int(cp(CP_KER + j));
        str[j] = int(cp(CP_STRIDE + j)); pad[j] = int(cp(CP_PAD + j)); dil[j] = int(cp(CP_DIL + j));
    }
    for (int j = 0; j < 5; ++j) { xs[j] = cp(CP_XS + j); ws[j] = cp(CP_WS + j); ys[j] = cp(CP_YS + j); }
    M = cp(CP_M); NC = cp(CP_NC); K = cp(CP_K);
}

int64_t kvol() { return int64_t(ksz[0]) * int64_t(ksz[1]) * int64_t(ksz[2]); }

// position (d, h, w) of flat index t in a volume of sizes sz
ivec3 unflat3(int64_t t, ivec3 sz) {
    uint64_t u = uint64_t(t), r;
    ivec3 v;
    rs_divmod(u, uint64_t(sz[2]), r); v[2] = int(r);
    rs_divmod(u, uint64_t(sz[1]), r); v[1] = int(r);
    v[0] = int(u);
    return v;
}

// (n, spatial position) of a flat (n, volume) index
void unflat_np(int64_t t, ivec3 sz, out int64_t n, out ivec3 pos) {
    uint64_t u = uint64_t(t), r;
    rs_divmod(u, uint64_t(sz[0]) * uint64_t(sz[1]) * uint64_t(sz[2]), r);
    n = int64_t(u);
    pos = unflat3(int64_t(r), sz);
}

// k (or mode 2's column) as (channel, kernel offset): channel-major, or
// channel fastest (K_CF)
// over kernel offsets of sizes kv
void unflat_cr_in(int64_t t, int64_t channels, ivec3 kv, out int64_t c, out ivec3 r) {
    uint64_t u = uint64_t(t), rem;
    if (bool(K_CF)) {  // a define, or a uniform value (conv_coopmat_khr.comp)
        rs_divmod(u, uint64_t(channels), rem);
        c = int64_t(rem);
        r = unflat3(int64_t(u), kv);
    } else {
        rs_divmod(u, uint64_t(kv[0]) * uint64_t(kv[1]) * uint64_t(kv[2]), rem);
        c = int64_t(u);
        r = unflat3(int64_t(rem), kv);
    }
}

void unflat_cr(int64_t t, int64_t channels, out int64_t c, out ivec3 r) { unflat_cr_in(t, channels, ksz, c, r); }

int64_t dot5(ivec3 pos, int64_t s[5]) { return int64_t(pos[0]) * s[2] + int64_t(pos[1]) * s[3] + int64_t(pos[2]) * s[4]; }

#if MODE == 1 || (MODE == 3 && SUM_OF == 1)
// the stride's class being run (set_class): per dim, its input positions
// i = ifirst + t s (t < icount) and the kernel offsets reaching them,
// r = rfirst + t rstep (t < rcount)
ivec3 ifirst, icount, rfirst, rstep, rcount;

// class cls (of CP_CLASSES): its geometry, and M and K of its product
void set_class(int64_t cls) {
    ifirst = unflat3(cls, min(str, isz));
    for (int j = 0; j < 3; ++j) {
        const int s = str[j], phase = (ifirst[j] + pad[j]) % s;
        icount[j] = (isz[j] - ifirst[j] + s - 1) / s;
        // the first r with r dil = phase (mod s), then the period of r dil
        // mod s (r dil < 2^30: conv.c); both searches stop at the kernel
        int r0 = 0;
        while (r0 < ksz[j] && (r0 * dil[j]) % s != phase) ++r0;
        int step = 1;
        while (r0 + step < ksz[j] && (step * dil[j]) % s != 0) ++step;
        rfirst[j] = r0;
        rstep[j] = step;
        rcount[j] = r0 < ksz[j] ? (ksz[j] - r0 + step - 1) / step : 0;
    }
    M = nb * int64_t(icount[0]) * int64_t(icount[1]) * int64_t(icount[2]);
    K = og * int64_t(rcount[0]) * int64_t(rcount[1]) * int64_t(rcount[2]);
}

// row m of the class: (n, input position i)
void class_row(int64_t m, out int64_t n, out ivec3 i) {
    unflat_np(m, icount, n, i);
    i = ifirst + i * str;
}

// k of the class: (o, kernel offset r)
void class_k(int64_t k, out int64_t o, out ivec3 r) {
    unflat_cr_in(k, og, rcount, o, r);
    r = rfirst + r * rstep;
}
#endif

#if MODE <= 2
// the tables: an offset (-1: outside the product) and positions; rc_off
// and cc_off are the result's row and column parts
shared int64_t ra_off[BM], rb_off[BN], rc_off[BM], cc_off[BN];
shared ivec3 ra_q[BM], rb_q[BN];
shared int64_t ka_off[2][BK], kb_off[2][BK];
shared ivec3 ka_p[2][BK], kb_p[2][BK];

// ---- the row/column parts (per tile) and the k parts (per slice)
// A's row m
void a_row(int64_t m, out int64_t off, out ivec3 q) {
#if MODE == 0  // x at (n, p s - pad): window
    off = 0L;
    q = ivec3(-NOWHERE);
    if (m >= M) return;
    int64_t n; ivec3 p;
    unflat_np(m, osz, n, p);
    q = p * str - pad;
    off = n * xs[0] + dot5(q, xs);
#elif MODE == 1  // dy at (n, (i + pad) / s - (r dil) / s)
    off = 0L;
    q = ivec3(-NOWHERE);
    if (m >= M) return;
    int64_t n; ivec3 i;
    class_row(m, n, i);
    q = (i + pad) / str;
    off = n * ys[0] + dot5(q, ys);
#else  // dy's channel o
    q = ivec3(0);
    off = m < M ? m * ys[1] : -1L;
#endif
}

// B's column j
void b_row(int64_t j, out int64_t off, out ivec3 q) {
#if MODE == 2  // x at channel c, kernel offset r: window
    off = 0L;
    q = ivec3(-NOWHERE);
    if (j >= NC) return;
    int64_t c; ivec3 r;
    unflat_cr(j, cg, c, r);
    q = r * dil;
    off = c * xs[1] + dot5(q, xs);
#else  // w's output channel (mode 0) or input channel (mode 1)
    q = ivec3(0);
    off = j < NC ? j * ws[MODE] : -1L;
#endif
}

void a_k(int64_t k, int64_t kend, out int64_t off, out ivec3 p) {
#if MODE == 0
    off = 0L;
    p = ivec3(-NOWHERE);
    if (k >= kend) return;
    int64_t c; ivec3 r;
    unflat_cr(k, cg, c, r);
    p = r * dil;
    off = c * xs[1] + dot5(p, xs);
#elif MODE == 1
    off = 0L;
    p = ivec3(NOWHERE);
    if (k >= kend) return;
    int64_t o; ivec3 r;
    class_k(k, o, r);
    p = r * dil / str;
    off = o * ys[1] - dot5(p, ys);
#else  // dy at (n, p)
    p = ivec3(0);
    off = -1L;
    if (k >= kend) return;
    int64_t n; ivec3 q;
    unflat_np(k, osz, n, q);
    off = n * ys[0] + dot5(q, ys);
#endif
}

void b_k(int64_t k, int64_t kend, out int64_t off, out ivec3 p) {
#if MODE == 2  // x at (n, p s - pad): window
    off = 0L;
    p = ivec3(-NOWHERE);
    if (k >= kend) return;
    int64_t n; ivec3 q;
    unflat_np(k, osz, n, q);
    p = q * str - pad;
    off = n * xs[0] + dot5(p, xs);
#else
    p = ivec3(0);
    off = -1L;
    if (k >= kend) return;
    int64_t o; ivec3 r;
#if MODE == 0
    unflat_cr(k, cg, o, r);
#else
    class_k(k, o, r);
#endif
    off = o * ws[1 - MODE] + dot5(r, ws);
#endif
}

// ---- element offsets from the tables (-1: the element reads as 0)
// a window of x: position q + p inside the input
int64_t window_off(int64_t ro, ivec3 q, int64_t ko, ivec3 p) {
    return all(lessThan(uvec3(q + p), uvec3(isz))) ? ro + ko : -1L;
}

// dy at output position q - p (the class's row and k parts)
int64_t grad_window_off(int64_t ro, ivec3 q, int64_t ko, ivec3 p) {
    return all(lessThan(uvec3(q - p), uvec3(osz))) ? ro + ko : -1L;
}

int64_t plain_off(int64_t ro, int64_t ko) { return (ro < 0L || ko < 0L) ? -1L : ro + ko; }

// A's element (tile row mm, slice row kk) and B's (tile column nn, kk),
// from k tables `buf`, relative to the group's base (group_bases)
int64_t a_off(uint mm, uint kk, uint buf) {
#if MODE == 0
    return window_off(ra_off[mm], ra_q[mm], ka_off[buf][kk], ka_p[buf][kk]);
#elif MODE == 1
    return grad_window_off(ra_off[mm], ra_q[mm], ka_off[buf][kk], ka_p[buf][kk]);
#else
    return plain_off(ra_off[mm], ka_off[buf][kk]);
#endif
}

int64_t b_off(uint nn, uint kk, uint buf) {
#if MODE == 2
    return window_off(rb_off[nn], rb_q[nn], kb_off[buf][kk], kb_p[buf][kk]);
#else
    return plain_off(rb_off[nn], kb_off[buf][kk]);
#endif
}

// group g's element 0 of A, B and the result, for elements of esz bytes
void group_bases(int64_t g, int64_t esz, out uint64_t a_base, out uint64_t b_base, out uint64_t c_base) {
#if MODE == 0
    a_base = pc.x + uint64_t(g * cg * xs[1] * esz);
    b_base = pc.w + uint64_t(g * og * ws[0] * esz);
    c_base = pc.y + uint64_t(g * og * ys[1] * esz);
#elif MODE == 1
    a_base = pc.y + uint64_t(g * og * ys[1] * esz);
    b_base = pc.w + uint64_t(g * og * ws[0] * esz);
    c_base = pc.x + uint64_t(g * cg * xs[1] * esz);
#else
    a_base = pc.y + uint64_t(g * og * ys[1] * esz);
    b_base = pc.x + uint64_t(g * cg * xs[1] * esz);
    c_base = pc.w + uint64_t(g * og * ws[0] * esz);
#endif
}

// the tile's tables: rows row0.. and columns col0.. (NT invocations)
void build_tables(uint tid, int64_t row0, int64_t col0) {
    for (uint t = tid; t < BM; t += NT) {
        int64_t off; ivec3 q;
        a_row(row0 + int64_t(t), off, q);
        ra_off[t] = off;
        ra_q[t] = q;
        // the result's row part
        int64_t m = row0 + int64_t(t), co = 0L;
        if (m < M) {
#if MODE == 0
            int64_t n; ivec3 p;
            unflat_np(m, osz, n, p);
            co = n * ys[0] + dot5(p, ys);
#elif MODE == 1
            int64_t n; ivec3 i;
            class_row(m, n, i);
            co = n * xs[0] + dot5(i, xs);
#else
            co = m * ws[0];
#endif
        }
        rc_off[t] = co;
    }
    for (uint t = tid; t < BN; t += NT) {
        int64_t off; ivec3 q;
        b_row(col0 + int64_t(t), off, q);
        rb_off[t] = off;
        rb_q[t] = q;
        int64_t j = col0 + int64_t(t), co = 0L;
        if (j < NC) {
#if MODE == 0
            co = j * ys[1];
#elif MODE == 1
            co = j * xs[1];
#else
            int64_t c; ivec3 r;
            unflat_cr(j, cg, c, r);
            co = c * ws[1] + dot5(r, ws);
#endif
        }
        cc_off[t] = co;
    }
}

// the k tables of the slice at k0 into buffer buf (2 BK invocations)
void build_k(uint tid, int64_t k0, int64_t kend, uint buf) {
    if (tid < BK) {
        int64_t off; ivec3 p;
        a_k(k0 + int64_t(tid), kend, off, p);
        ka_off[buf][tid] = off;
        ka_p[buf][tid] = p;
    } else if (tid < 2u * BK) {
        int64_t off; ivec3 p;
        b_k(k0 + int64_t(tid - BK), kend, off, p);
        kb_off[buf][tid - BK] = off;
        kb_p[buf][tid - BK] = p;
    }
}
#endif  // MODE <= 2
#endif  // RS_CONV_GEOM_GLSL
