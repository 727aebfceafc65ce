// sparse.comp: the device work of sparse COO tensors (src/engine/sparse.c;
// contract in russet/sparse.h). One invocation an item in every mode:
//   SP_KEYS    (an entry): its row-major position over the sparse sizes;
//   SP_INDICES (an entry of a coalesced result): the key back to indices;
//   SP_CROW    (a row r in [0, M]): where row r starts among the sorted
//              row indices, by binary search (CSR's row pointers);
//   SP_ROWS    (an entry k): its row, the last r with crow[r] <= k (CSR's
//              row pointers back to COO's row indices);
//   SP_SPMM    (an output element (r, j)): its row's entries in order,
//              acc += value * D[col, j]; out = beta t + alpha acc. No
//              atomics: each output element has one writer. A column is
//              indices[1][k]: COO's second row, or CSR's column indices
//              passed with a dim stride of 0.
//   SP_SOFTMAX (a position j of the entries sorted by pool, and a dense
//              column c; only the first of each pool works): the pool's
//              entries in order (a pool is the entries that share every
//              sparse index but softmax's dim), three passes: the max, the
//              sum of exp(v - max), the results; or, backward, the sum of
//              g * y (log: of g) and the gradients. Float opmath.
//   SP_SEGSUM  (a distinct index k of a coalesce, a dense column c): the
//              values of its entries summed in entry order (its run of the
//              stably sorted keys, from first[k] to first[k + 1]), in the
//              opmath type, rounded once.
//   SP_SEL_COUNT (an entry e): index_select's copies of it, the positions
//              of the sorted index equal to its index in dim (two binary
//              searches); SP_SEL_WRITE (an entry e): writes them at e's
//              offset (the counts' running sum), the dim's index replaced
//              by the position (perm of the sorted index, in its order),
//              and e itself as each copy's source.
//   SP_MATCH   (a key k): its position among the sorted distinct keys in
//              self_ (SP_N of them), by binary search, or -1, into out_
//              (when given); and, when a values row has bytes, that row of
//              values (zeros for -1) into row k of dense, byte by byte.
//   SP_SDDMM   (an entry k of a CSR pattern): beta values[k] + alpha times
//              the dot product of A's row and B's column at the entry
//              (sparse_sampled_addmm); A in `dense`, B in `self_`.
//
// Defines: MODE, DT (SPMM: the values' dtype).
#version 460
#include "common/dtype.glsl"
#include "params/sparse.h"
#include "common/index.glsl"
#include "common/opmath.glsl"

layout(local_size_x = RS_WG) in;

layout(push_constant) uniform Push { RS_SPARSE_PUSH } pc;

int64_t sp(int slot) { return RsI64(pc.params + 8UL * uint64_t(slot)).v; }
int64_t index_at(int64_t d, int64_t k) {
    return RsI64(pc.indices + 8UL * uint64_t(d * sp(SP_IS) + k * sp(SP_IS + 1))).v;
}

#if MODE == SP_SPMM || MODE == SP_SDDMM || MODE == SP_SOFTMAX || MODE == SP_SEGSUM
#define T_DT DT
#include "common/dtype_inst.glsl"
#include "common/opmath_inst.glsl"
#undef T_DT
#define ACC RS_OPMT(DT)
#if RS_IS_DBL(DT)
ACC scalar_slot(int slot) { return uint64BitsToDouble(uint64_t(sp(slot))); }
void store(int64_t off, ACC v) { RS_SET_D(DT)(pc.out_, off, doubleBitsToUint64(v)); }
#else
ACC scalar_slot(int slot) { return uintBitsToFloat(uint(sp(slot))); }
void store(int64_t off, ACC v) { RS_SET_F(DT)(pc.out_, off, v); }
#endif
#endif

#if MODE == SP_SOFTMAX
// exp and log as the eager kernels compute them; none of the ops this
// kernel calls raises, so the error hook is empty
#define rs_raise(code, value)
#include "common/ops.glsl"
#endif

// the row of entry e under crow (M + 1 row starts): the last r with crow[r] <= e
int64_t row_of(int64_t e, int64_t rows) {
    int64_t lo = 0L, hi = rows + 1L;  // the first r with crow[r] > e, less one
    while (lo < hi) {
        const int64_t mid = (lo + hi) >> 1;
        if (RsI64(pc.crow + 8UL * uint64_t(mid)).v <= e) lo = mid + 1L;
        else hi = mid;
    }
    return lo - 1L;
}

void main() {
#if MODE == SP_KEYS
    const int64_t nnz = sp(SP_NNZ), dims = sp(SP_DIMS), skip = sp(SP_SKIP);
    RS_FOR_EACH(e, uint64_t(nnz)) {
        int64_t key = 0L;
        for (int64_t d = 0L; d < dims; ++d)
            if (d != skip) key = key * sp(SP_SIZES + int(d)) + index_at(d, int64_t(e));
        RsI64(pc.out_ + 8UL * e).v = key;
    }
#elif MODE == SP_INDICES
    const int64_t nnz = sp(SP_NNZ), dims = sp(SP_DIMS);
    RS_FOR_EACH(e, uint64_t(nnz)) {
        int64_t key = RsI64(pc.indices + 8UL * e).v;
        for (int64_t d = dims - 1L; d >= 0L; --d) {
            const int64_t size = sp(SP_SIZES + int(d));
            RsI64(pc.out_ + 8UL * uint64_t(d * nnz + int64_t(e))).v = key % size;
            key /= size;
        }
    }
#elif MODE == SP_CROW
    const int64_t nnz = sp(SP_NNZ), rows = sp(SP_M);
    RS_FOR_EACH(e, uint64_t(rows + 1L)) {
        int64_t lo = 0L, hi = nnz;  // the first entry of row e or later
        while (lo < hi) {
            const int64_t mid = (lo + hi) >> 1;
            if (index_at(0L, mid) < int64_t(e)) lo = mid + 1L;
            else hi = mid;
        }
        RsI64(pc.out_ + 8UL * e).v = lo;
    }
#elif MODE == SP_MATCH
    const int64_t m = sp(SP_NNZ), n = sp(SP_N), row_bytes = sp(SP_DIM);
    RS_FOR_EACH(k, uint64_t(m)) {
        const int64_t key = index_at(0L, int64_t(k));
        int64_t lo = 0L, hi = n;  // the first sorted key >= key
        while (lo < hi) {
            const int64_t mid = (lo + hi) >> 1;
            if (RsI64(pc.self_ + 8UL * uint64_t(mid)).v < key) lo = mid + 1L;
            else hi = mid;
        }
        const int64_t pos = lo < n && RsI64(pc.self_ + 8UL * uint64_t(lo)).v == key ? lo : -1L;
        if (pc.out_ != 0UL) RsI64(pc.out_ + 8UL * k).v = pos;
        const uint64_t dst = pc.dense + k * uint64_t(row_bytes);
        if (pos >= 0L) {
            const uint64_t src = pc.values + uint64_t(pos * row_bytes);
            for (int64_t b = 0L; b < row_bytes; ++b) RsU8(dst + uint64_t(b)).v = RsU8(src + uint64_t(b)).v;
        } else {
            for (int64_t b = 0L; b < row_bytes; ++b) RsU8(dst + uint64_t(b)).v = uint8_t(0);
        }
    }
#elif MODE == SP_ROWS
    const int64_t nnz = sp(SP_NNZ), rows = sp(SP_M);
    RS_FOR_EACH(e, uint64_t(nnz)) RsI64(pc.out_ + 8UL * e).v = row_of(int64_t(e), rows);
#elif MODE == SP_SDDMM
    const int64_t nnz = sp(SP_NNZ), rows = sp(SP_M), K = sp(SP_K);
    const bool with_t = (sp(SP_FLAGS) & SP_F_BETA) != 0L;
    const ACC alpha = scalar_slot(SP_ALPHA), beta = scalar_slot(SP_BETA);
    RS_FOR_EACH(e, uint64_t(nnz)) {
        const int64_t r = row_of(int64_t(e), rows), c = index_at(1L, int64_t(e));
        precise ACC acc = ACC(0);
        for (int64_t k = 0L; k < K; ++k)
            acc += RS_LDO(DT)(pc.dense, r * sp(SP_DS) + k * sp(SP_DS + 1)) *
                   RS_LDO(DT)(pc.self_, k * sp(SP_TS) + c * sp(SP_TS + 1));
        precise ACC v = alpha * acc;
        if (with_t) v += beta * RS_LDO(DT)(pc.values, int64_t(e) * sp(SP_VS));
        store(int64_t(e) * sp(SP_OS), v);
    }
#elif MODE == SP_SEGSUM
    const int64_t n = sp(SP_NNZ), K = sp(SP_M), D = sp(SP_N);
    RS_FOR_EACH(item, uint64_t(K * D)) {
        const int64_t k = int64_t(item) / D, c = int64_t(item) % D;
        const int64_t a = RsI64(pc.crow + 8UL * uint64_t(k)).v;
        const int64_t b = k + 1L < K ? RsI64(pc.crow + 8UL * uint64_t(k + 1L)).v : n;
        precise ACC acc = ACC(0);
        for (int64_t p = a; p < b; ++p) acc += RS_LDO(DT)(pc.values, RsI64(pc.indices + 8UL * uint64_t(p)).v * D + c);
        store(k * D + c, acc);
    }
#elif MODE == SP_SEL_COUNT || MODE == SP_SEL_WRITE
    const int64_t nnz = sp(SP_NNZ), n = sp(SP_M), dim = sp(SP_DIM), dims = sp(SP_DIMS), total = sp(SP_N);
    RS_FOR_EACH(e, uint64_t(nnz)) {
        const int64_t v = index_at(dim, int64_t(e));
        int64_t lo = 0L, hi = n;  // the first sorted position >= v
        while (lo < hi) {
            const int64_t mid = (lo + hi) >> 1;
            if (RsI64(pc.self_ + 8UL * uint64_t(mid)).v < v) lo = mid + 1L;
            else hi = mid;
        }
        int64_t end = lo, top = n;  // the first sorted position > v
        while (end < top) {
            const int64_t mid = (end + top) >> 1;
            if (RsI64(pc.self_ + 8UL * uint64_t(mid)).v <= v) end = mid + 1L;
            else top = mid;
        }
#if MODE == SP_SEL_COUNT
        RsI64(pc.out_ + 8UL * e).v = end - lo;
#else
        // crow: the counts' inclusive running sum; dense: the sort's perm;
        // out_: indices (dims, total); values: each copy's source entry
        const int64_t at = RsI64(pc.crow + 8UL * e).v - (end - lo);
        for (int64_t j = lo; j < end; ++j) {
            const int64_t o = at + (j - lo);
            for (int64_t d = 0L; d < dims; ++d)
                RsI64(pc.out_ + 8UL * uint64_t(d * total + o)).v =
                    d == dim ? RsI64(pc.dense + 8UL * uint64_t(j)).v : index_at(d, int64_t(e));
            RsI64(pc.values + 8UL * uint64_t(o)).v = int64_t(e);
        }
#endif
    }
#elif MODE == SP_SOFTMAX
    const int64_t nnz = sp(SP_NNZ), D = sp(SP_N);
    const bool log_sm = (sp(SP_FLAGS) & SP_F_LOG) != 0L, bwd = (sp(SP_FLAGS) & SP_F_BACKWARD) != 0L;
    RS_FOR_EACH(item, uint64_t(nnz * D)) {
        const int64_t j = int64_t(item) / D, c = int64_t(item) % D;
        if (RsU8(pc.crow + uint64_t(j)).v == uint8_t(0)) continue;  // not a pool's first entry
        int64_t end = j + 1L;
        while (end < nnz && RsU8(pc.crow + uint64_t(end)).v == uint8_t(0)) ++end;
        if (!bwd) {
            float m = uintBitsToFloat(0xFF800000u);  // -inf; NaN propagates
            for (int64_t k = j; k < end; ++k) {
                const float v = float(RS_LDO(DT)(pc.values, RsI64(pc.indices + 8UL * uint64_t(k)).v * D + c));
                m = isnan(m) || isnan(v) ? uintBitsToFloat(0x7FC00000u) : max(m, v);
            }
            precise float sum = 0.0;
            for (int64_t k = j; k < end; ++k) {
                const int64_t e = RsI64(pc.indices + 8UL * uint64_t(k)).v;
                sum += rs_op_exp(float(RS_LDO(DT)(pc.values, e * D + c)) - m);
            }
            const float lsum = rs_op_log(sum);
            for (int64_t k = j; k < end; ++k) {
                const int64_t e = RsI64(pc.indices + 8UL * uint64_t(k)).v;
                const float v = float(RS_LDO(DT)(pc.values, e * D + c)) - m;
                RS_SET_F(DT)(pc.out_, e * D + c, log_sm ? v - lsum : rs_op_exp(v) / sum);
            }
        } else {  // values: the forward's output y; dense: the gradient g
            precise float sum = 0.0;
            for (int64_t k = j; k < end; ++k) {
                const int64_t e = RsI64(pc.indices + 8UL * uint64_t(k)).v;
                const float g = float(RS_LDO(DT)(pc.dense, e * D + c));
                sum += log_sm ? g : g * float(RS_LDO(DT)(pc.values, e * D + c));
            }
            for (int64_t k = j; k < end; ++k) {
                const int64_t e = RsI64(pc.indices + 8UL * uint64_t(k)).v;
                const float g = float(RS_LDO(DT)(pc.dense, e * D + c)), y = float(RS_LDO(DT)(pc.values, e * D + c));
                RS_SET_F(DT)(pc.out_, e * D + c, log_sm ? g - rs_op_exp(y) * sum : y * (g - sum));
            }
        }
    }
#else
    const int64_t M = sp(SP_M), N = sp(SP_N), vs = sp(SP_VS);
    const int64_t ds0 = sp(SP_DS), ds1 = sp(SP_DS + 1);
    const bool with_t = (sp(SP_FLAGS) & SP_F_BETA) != 0L;
    const ACC alpha = scalar_slot(SP_ALPHA), beta = scalar_slot(SP_BETA);
    RS_FOR_EACH(e, uint64_t(M * N)) {
        const int64_t r = int64_t(e) / N, j = int64_t(e) % N;
        const int64_t a = RsI64(pc.crow + 8UL * uint64_t(r)).v, b = RsI64(pc.crow + 8UL * uint64_t(r + 1L)).v;
        precise ACC acc = ACC(0);
        for (int64_t k = a; k < b; ++k) {
            const int64_t col = index_at(1L, k);
            acc += RS_LDO(DT)(pc.values, k * vs) * RS_LDO(DT)(pc.dense, col * ds0 + j * ds1);
        }
        precise ACC v = alpha * acc;
        if (with_t) v += beta * RS_LDO(DT)(pc.self_, r * sp(SP_TS) + j * sp(SP_TS + 1));
        store(r * sp(SP_OS) + j * sp(SP_OS + 1), v);
    }
#endif
}
