// gemm.glsl: what the GEMM kernels share: the parameter block (one
// definition with src/engine/gemm.c's: params/gemm.h, through
// common/gemm_params.glsl), the accumulation type of the dtype DT and its
// arithmetic, loads and stores.
//
// ACC is the opmath type of DT (common/opmath.glsl): float for the float32
// family, int64_t/uint64_t for integers (wrapping, so the stored low bits
// are CPU's wrapping arithmetic in the dtype), bool (and/or, as CPU's addr),
// vec2 for complex64, double/dvec2 with fp64.
//
// C_DT is the dtype of C and Cin: DT, or float32 where DT is float16 or
// bfloat16 (rs_gemm_desc.c_float32: float32 results of half-precision
// operands, for attention's score blocks). Both have ACC float.
#ifndef RS_GEMM_GLSL
#define RS_GEMM_GLSL

#include "common/dtype.glsl"
#include "common/opmath.glsl"
#define T_DT DT
#include "common/dtype_inst.glsl"
#include "common/opmath_inst.glsl"
#undef T_DT
#ifndef C_DT
#define C_DT DT
#endif
#if C_DT != DT
#define T_DT C_DT
#include "common/dtype_inst.glsl"
#include "common/opmath_inst.glsl"
#undef T_DT
#endif

#define ACC RS_OPMT(DT)

#include "common/gemm_params.glsl"

// ---- arithmetic in ACC: gm_mad(a, b, c) = c + a * b
bool gm_mad(bool a, bool b, bool c) { return c || (a && b); }
int64_t gm_mad(int64_t a, int64_t b, int64_t c) { return c + a * b; }
uint64_t gm_mad(uint64_t a, uint64_t b, uint64_t c) { return c + a * b; }
float gm_mad(float a, float b, float c) { return fma(a, b, c); }
// complex: fused, two roundings per component (closer to the exact sum,
// as CPU's FMA-based BLAS kernels are)
vec2 gm_mad(vec2 a, vec2 b, vec2 c) {
    return vec2(fma(a.x, b.x, fma(-a.y, b.y, c.x)), fma(a.x, b.y, fma(a.y, b.x, c.y)));
}
#if RS_IS_BOOL(DT)
#define GM_ADD(x, y) ((x) || (y))
#else
#define GM_ADD(x, y) ((x) + (y))
#endif
bool gm_conj(bool a) { return a; }
int64_t gm_conj(int64_t a) { return a; }
uint64_t gm_conj(uint64_t a) { return a; }
float gm_conj(float a) { return a; }
vec2 gm_conj(vec2 a) { return vec2(a.x, -a.y); }
// alpha * acc + beta * c (use_c) or alpha * acc, as CPU's gemm epilogue
bool gm_axpby(bool al, bool acc, bool be, bool c, bool use_c) {
    return (al && acc) || (use_c && be && c);
}
int64_t gm_axpby(int64_t al, int64_t acc, int64_t be, int64_t c, bool use_c) {
    return use_c ? be * c + al * acc : al * acc;
}
uint64_t gm_axpby(uint64_t al, uint64_t acc, uint64_t be, uint64_t c, bool use_c) {
    return use_c ? be * c + al * acc : al * acc;
}
float gm_axpby(float al, float acc, float be, float c, bool use_c) {
    return use_c ? be * c + al * acc : al * acc;
}
vec2 gm_cmul(vec2 a, vec2 b) { return vec2(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x); }
vec2 gm_axpby(vec2 al, vec2 acc, vec2 be, vec2 c, bool use_c) {
    return use_c ? gm_cmul(be, c) + gm_cmul(al, acc) : gm_cmul(al, acc);
}
#if RS_HAS_FP64
double gm_mad(double a, double b, double c) { return fma(a, b, c); }
dvec2 gm_mad(dvec2 a, dvec2 b, dvec2 c) {
    return dvec2(fma(a.x, b.x, fma(-a.y, b.y, c.x)), fma(a.x, b.y, fma(a.y, b.x, c.y)));
}
double gm_conj(double a) { return a; }
dvec2 gm_conj(dvec2 a) { return dvec2(a.x, -a.y); }
double gm_axpby(double al, double acc, double be, double c, bool use_c) {
    return use_c ? be * c + al * acc : al * acc;
}
dvec2 gm_zcmul(dvec2 a, dvec2 b) { return dvec2(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x); }
dvec2 gm_axpby(dvec2 al, dvec2 acc, dvec2 be, dvec2 c, bool use_c) {
    return use_c ? gm_zcmul(be, c) + gm_zcmul(al, acc) : gm_zcmul(al, acc);
}
#endif

// ---- scalars (alpha, beta) from their slots
#if RS_IS_CD(DT)
ACC gm_scalar(uint64_t s0, uint64_t s1) { return dvec2(uint64BitsToDouble(s0), uint64BitsToDouble(s1)); }
#else
ACC gm_scalar(uint64_t s0, uint64_t s1) { return RS_FROM_BITS(DT)(s0); }
#endif

// ---- element loads (in ACC): an operand's (A, B: DT) and C's or Cin's (C_DT)
ACC gm_load(uint64_t base, int64_t off) { return RS_LDO(DT)(base, off); }
ACC gm_cload(uint64_t base, int64_t off) { return RS_LDO(C_DT)(base, off); }

// ---- store of C (C_DT, from ACC)
void gm_store(uint64_t base, int64_t off, ACC v) {
#if RS_IS_BOOL(C_DT)
    RS_SET_B(C_DT)(base, off, v);
#elif RS_IS_INT(C_DT)
    RS_SET_I(C_DT)(base, off, uint64_t(v));
#elif RS_IS_FLT(C_DT)
    RS_SET_F(C_DT)(base, off, v);
#elif RS_IS_CF(C_DT)
    RS_SET_CF(C_DT)(base, off, v);
#elif RS_IS_DBL(C_DT)
    RS_SET_D(C_DT)(base, off, doubleBitsToUint64(v));
#else
    RS_SET_CD(C_DT)(base, off, u64vec2(doubleBitsToUint64(v.x), doubleBitsToUint64(v.y)));
#endif
}

#endif
