// opmath.glsl: each dtype's "opmath" type (the type PyTorch computes in):
// bool; int64_t for bool-less integers, uint64_t for uint64; float for the
// float32 family (float32, float16, bfloat16, float8); double for float64;
// vec2 for complex32/64; dvec2 for complex128.
//
// RS_OPMT(d)        the type, for dtype code d
// RS_LDO(d)(a, o)   element o of the view at address a, in its opmath type
//                   (needs common/dtype_inst.glsl included for d)
// RS_FROM_BITS(d)(b) a push-constant scalar slot (uint64 bits) as opmath of d
#ifndef RS_OPMATH_GLSL
#define RS_OPMATH_GLSL

#define RS_OPMT(d) RS_CAT(RS_OPMT_, d)
#define RS_LDO(d) RS_CAT(rs_ldo_, d)
#define RS_FROM_BITS(d) RS_CAT(rs_fb_, d)

#define RS_OPMT_11 bool
#define RS_OPMT_0 int64_t
#define RS_OPMT_1 int64_t
#define RS_OPMT_2 int64_t
#define RS_OPMT_3 int64_t
#define RS_OPMT_4 int64_t
#define RS_OPMT_27 int64_t
#define RS_OPMT_28 int64_t
#define RS_OPMT_29 uint64_t
#define RS_OPMT_5 float
#define RS_OPMT_6 float
#define RS_OPMT_15 float
#define RS_OPMT_23 float
#define RS_OPMT_24 float
#define RS_OPMT_25 float
#define RS_OPMT_26 float
#define RS_OPMT_44 float
#define RS_OPMT_7 double
#define RS_OPMT_8 vec2
#define RS_OPMT_9 vec2
#define RS_OPMT_10 dvec2

// scalar slots: bool 0/1, int64, uint64, float in the low 32 bits, double
// bits, complex64 as (re, im) floats
bool rs_fb_b(uint64_t b) { return b != 0UL; }
int64_t rs_fb_i(uint64_t b) { return int64_t(b); }
uint64_t rs_fb_u(uint64_t b) { return b; }
float rs_fb_f(uint64_t b) { return uintBitsToFloat(uint(b & 0xFFFFFFFFUL)); }
vec2 rs_fb_c(uint64_t b) { return vec2(uintBitsToFloat(uint(b & 0xFFFFFFFFUL)), uintBitsToFloat(uint(b >> 32))); }
#define rs_fb_11 rs_fb_b
#define rs_fb_0 rs_fb_i
#define rs_fb_1 rs_fb_i
#define rs_fb_2 rs_fb_i
#define rs_fb_3 rs_fb_i
#define rs_fb_4 rs_fb_i
#define rs_fb_27 rs_fb_i
#define rs_fb_28 rs_fb_i
#define rs_fb_29 rs_fb_u
#define rs_fb_5 rs_fb_f
#define rs_fb_6 rs_fb_f
#define rs_fb_15 rs_fb_f
#define rs_fb_23 rs_fb_f
#define rs_fb_24 rs_fb_f
#define rs_fb_25 rs_fb_f
#define rs_fb_26 rs_fb_f
#define rs_fb_44 rs_fb_f
#define rs_fb_8 rs_fb_c
#define rs_fb_9 rs_fb_c
#if RS_HAS_FP64
double rs_fb_d(uint64_t b) { return uint64BitsToDouble(b); }
#define rs_fb_7 rs_fb_d
// complex128 scalars do not fit a slot: the engine puts the 16 bytes in the
// stream's arena and the slot holds their address (0: an unused slot)
dvec2 rs_fb_cd(uint64_t b) {
    if (b == 0UL) return dvec2(0.0LF);
    return dvec2(uint64BitsToDouble(RsU64(b).v), uint64BitsToDouble(RsU64(b + 8UL).v));
}
#define rs_fb_10 rs_fb_cd
#endif

// v rounded on its own: its bits XORed with `zero`, a 0 the compiler cannot
// know (a push constant the engine sets), so that no compiler fuses the
// product v into a multiply-add with what follows. NVIDIA's fuses in spite
// of NoContraction (docs/gpu-testing.md); grid_sample.comp and linalg.comp
// need exact products.
float rs_rounded(float v, uint zero) { return uintBitsToFloat(floatBitsToUint(v) ^ zero); }
#if RS_HAS_FP64
double rs_rounded(double v, uint zero) { return uint64BitsToDouble(doubleBitsToUint64(v) ^ uint64_t(zero)); }
#endif

#endif
