// triangle.comp: dst = src's lower or upper triangle (tril, triu), the rest
// zero, or with TRI_F_HERMITIAN the conjugate of the element mirrored over
// the diagonal and the diagonal's imaginary part zero (the Hermitian
// matrix a triangle stands for). Values move as bits, so every dtype
// shares the kernel and none needs fp64 arithmetic (src/engine/triangle.c,
// contract in russet/tensor.h).
// Defines: ESIZE (the element's bytes: 1, 2, 4, 8, 16), CPLX (1: a complex
// dtype, whose imaginary part is the upper half of the element).
#version 460
#include "common/dtype.glsl"
#include "params/triangle.h"
#include "common/index.glsl"

layout(local_size_x = RS_WG) in;

layout(push_constant) uniform Push { RS_TRIANGLE_PUSH } pc;

// an element's bits; conj flips the imaginary part's sign bit, re_only
// clears the imaginary part (real dtypes: both the identity)
#if ESIZE == 16
#define ELEM u64vec2
ELEM load(uint64_t a) { return u64vec2(RsU64(a).v, RsU64(a + 8UL).v); }
void store(uint64_t a, ELEM v) {
    RsU64(a).v = v.x;
    RsU64(a + 8UL).v = v.y;
}
ELEM conj_bits(ELEM v) { return u64vec2(v.x, v.y ^ 0x8000000000000000UL); }
ELEM re_only(ELEM v) { return u64vec2(v.x, 0UL); }
#define ZERO u64vec2(0UL, 0UL)
#elif ESIZE == 8
#define ELEM uint64_t
ELEM load(uint64_t a) { return RsU64(a).v; }
void store(uint64_t a, ELEM v) { RsU64(a).v = v; }
ELEM conj_bits(ELEM v) { return CPLX != 0 ? v ^ 0x8000000000000000UL : v; }
ELEM re_only(ELEM v) { return CPLX != 0 ? v & 0xFFFFFFFFUL : v; }
#define ZERO 0UL
#elif ESIZE == 4
#define ELEM uint
ELEM load(uint64_t a) { return RsU32(a).v; }
void store(uint64_t a, ELEM v) { RsU32(a).v = v; }
ELEM conj_bits(ELEM v) { return CPLX != 0 ? v ^ 0x80000000u : v; }
ELEM re_only(ELEM v) { return CPLX != 0 ? v & 0xFFFFu : v; }
#define ZERO 0u
#elif ESIZE == 2
#define ELEM uint16_t
ELEM load(uint64_t a) { return RsU16(a).v; }
void store(uint64_t a, ELEM v) { RsU16(a).v = v; }
ELEM conj_bits(ELEM v) { return v; }
ELEM re_only(ELEM v) { return v; }
#define ZERO uint16_t(0)
#else
#define ELEM uint8_t
ELEM load(uint64_t a) { return RsU8(a).v; }
void store(uint64_t a, ELEM v) { RsU8(a).v = v; }
ELEM conj_bits(ELEM v) { return v; }
ELEM re_only(ELEM v) { return v; }
#define ZERO uint8_t(0)
#endif

// t < 0, read from the sign bit (lavapipe misreads some signed 64-bit
// compares of sign-extended values; ops.glsl's rs_neg64)
bool negative(int64_t t) { return (uint(uint64_t(t) >> 32) & 0x80000000u) != 0u; }

void main() {
    const bool lower = (pc.flags & TRI_F_LOWER) != 0u, hermitian = (pc.flags & TRI_F_HERMITIAN) != 0u;
    RS_FOR_EACH(i, pc.numel) {
        int64_t od, os;
        rs_offset2(pc.params, pc.ndim, i, od, os);
        uint64_t q = i, col, row;
        rs_divmod(q, uint64_t(pc.cols), col);
        rs_divmod(q, uint64_t(pc.rows), row);
        // col - row against the diagonal as unsigned compares: t = row + diagonal
        const int64_t t = int64_t(row) + pc.diagonal;
        const bool below_t = negative(t) ? false : col <= uint64_t(t);  // col - row <= diagonal
        const bool above_t = negative(t) ? true : col >= uint64_t(t);   // col - row >= diagonal
        ELEM v = ZERO;
        if (lower ? below_t : above_t) {
            v = load(rs_addr(pc.src, os, uint(ESIZE)));
            if (hermitian && col == row) v = re_only(v);
        } else if (hermitian) {
            // the element (col, row) of the same matrix
            v = conj_bits(load(rs_addr(pc.src, os + (int64_t(col) - int64_t(row)) * pc.mirror, uint(ESIZE))));
        }
        store(rs_addr(pc.dst, od, uint(ESIZE)), v);
    }
}
