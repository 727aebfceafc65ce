/* dtype.c: dtype properties, and the host side of the dtype codecs.
 * The codecs mirror kernels/common/dtype.glsl line for line (integer
 * arithmetic only), so the host and the device agree bit for bit; both
 * reproduce c10's converters (torch/headeronly/util/Half.h, BFloat16.h,
 * Float8_*.h) and the casts of c10/util/TypeCast.h. */
#include <math.h>
#include <string.h>

#include "engine/engine.h"

int rs_dtype_valid(int dt) {
    switch (dt) {
    case RS_UINT8: case RS_INT8: case RS_INT16: case RS_INT32: case RS_INT64:
    case RS_FLOAT16: case RS_FLOAT32: case RS_FLOAT64: case RS_COMPLEX32:
    case RS_COMPLEX64: case RS_COMPLEX128: case RS_BOOL: case RS_BFLOAT16:
    case RS_FLOAT8_E5M2: case RS_FLOAT8_E4M3FN: case RS_FLOAT8_E5M2FNUZ:
    case RS_FLOAT8_E4M3FNUZ: case RS_UINT16: case RS_UINT32: case RS_UINT64:
    case RS_FLOAT8_E8M0FNU: case RS_FLOAT4_E2M1FN_X2:
        return 1;
    default:
        return 0;
    }
}

size_t rs_dtype_size(rs_dtype dt) {
    switch (dt) {
    case RS_UINT8: case RS_INT8: case RS_BOOL: case RS_FLOAT8_E5M2: case RS_FLOAT8_E4M3FN:
    case RS_FLOAT8_E5M2FNUZ: case RS_FLOAT8_E4M3FNUZ: case RS_FLOAT8_E8M0FNU: case RS_FLOAT4_E2M1FN_X2:
        return 1;
    case RS_INT16: case RS_UINT16: case RS_FLOAT16: case RS_BFLOAT16:
        return 2;
    case RS_INT32: case RS_UINT32: case RS_FLOAT32: case RS_COMPLEX32:
        return 4;
    case RS_INT64: case RS_UINT64: case RS_FLOAT64: case RS_COMPLEX64:
        return 8;
    case RS_COMPLEX128:
        return 16;
    }
    return 0;
}

const char *rs_dtype_name(rs_dtype dt) {
    switch (dt) {
    case RS_UINT8: return "uint8";
    case RS_INT8: return "int8";
    case RS_INT16: return "int16";
    case RS_INT32: return "int32";
    case RS_INT64: return "int64";
    case RS_FLOAT16: return "float16";
    case RS_FLOAT32: return "float32";
    case RS_FLOAT64: return "float64";
    case RS_COMPLEX32: return "complex32";
    case RS_COMPLEX64: return "complex64";
    case RS_COMPLEX128: return "complex128";
    case RS_BOOL: return "bool";
    case RS_BFLOAT16: return "bfloat16";
    case RS_FLOAT8_E5M2: return "float8_e5m2";
    case RS_FLOAT8_E4M3FN: return "float8_e4m3fn";
    case RS_FLOAT8_E5M2FNUZ: return "float8_e5m2fnuz";
    case RS_FLOAT8_E4M3FNUZ: return "float8_e4m3fnuz";
    case RS_UINT16: return "uint16";
    case RS_UINT32: return "uint32";
    case RS_UINT64: return "uint64";
    case RS_FLOAT8_E8M0FNU: return "float8_e8m0fnu";
    case RS_FLOAT4_E2M1FN_X2: return "float4_e2m1fn_x2";
    }
    return "invalid";
}

int rs_dtype_needs_fp64(rs_dtype dt) { return dt == RS_FLOAT64 || dt == RS_COMPLEX128; }

int rs_dtype_is_nn_float(rs_dtype dt) {
    return dt == RS_FLOAT32 || dt == RS_FLOAT16 || dt == RS_BFLOAT16 || dt == RS_FLOAT64;
}

int rs_dtype_is_complex(rs_dtype dt) { return dt == RS_COMPLEX32 || dt == RS_COMPLEX64 || dt == RS_COMPLEX128; }

/* ---------------------------------------------------------------- codecs */

static float bitsf(uint32_t u) {
    float f;
    memcpy(&f, &u, 4);
    return f;
}
static int msb32(uint32_t x) { return 31 - __builtin_clz(x); } /* x != 0 */

static uint32_t rne_shift(uint32_t m, uint32_t s) {
    if (s >= 32) return 0;
    return (m + ((1u << (s - 1)) - 1) + ((m >> s) & 1)) >> s;
}

/* A positive float below a format's normal range, rounded to a multiple of
 * 2^-unit_exp (c10 does this with a float add of a magic constant). */
static uint32_t subnormal_bits(uint32_t a, int unit_exp) {
    uint32_t e = a >> 23;
    if (e == 0) return 0;
    uint32_t m = (a & 0x7FFFFFu) | 0x800000u;
    int s = 150 - unit_exp - (int)e;
    if (s <= 0) return m << -s;
    if (s > 25) return 0;
    return rne_shift(m, (uint32_t)s);
}

uint16_t rs_f16_from_f32(float f) {
    uint32_t w = rs_f32_bits(f), sign = (w >> 16) & 0x8000u, a = w & 0x7FFFFFFFu;
    if (a > 0x7F800000u) return (uint16_t)(sign | 0x7E00u);
    if (a >= 0x477FF000u) return (uint16_t)(sign | 0x7C00u);
    if (a >= 0x38800000u) {
        uint32_t m = a - 0x38000000u;
        return (uint16_t)(sign | ((m + 0xFFFu + ((m >> 13) & 1u)) >> 13));
    }
    return (uint16_t)(sign | subnormal_bits(a, 24));
}

float rs_f16_to_f32(uint16_t h) {
    uint32_t w = (uint32_t)h << 16, sign = w & 0x80000000u, nonsign = w & 0x7FFFFFFFu;
    if (nonsign == 0) return bitsf(sign);
    uint32_t renorm = 31u - (uint32_t)msb32(nonsign);
    renorm = renorm > 5 ? renorm - 5 : 0;
    uint32_t inf_nan = (uint32_t)((int32_t)(nonsign + 0x04000000u) >> 8) & 0x7F800000u;
    return bitsf(sign | ((((nonsign << renorm) >> 3) + ((0x70u - renorm) << 23)) | inf_nan));
}

uint16_t rs_bf16_from_f32(float f) {
    uint32_t w = rs_f32_bits(f);
    if ((w & 0x7FFFFFFFu) > 0x7F800000u) return 0x7FC0u;
    return (uint16_t)((w + 0x7FFFu + ((w >> 16) & 1u)) >> 16);
}
float rs_bf16_to_f32(uint16_t b) { return bitsf((uint32_t)b << 16); }

uint8_t rs_e4m3fn_from_f32(float f) {
    uint32_t w = rs_f32_bits(f), sign = (w >> 24) & 0x80u, a = w & 0x7FFFFFFFu, r;
    if (a >= 0x43F00000u) {
        r = a > 0x7F800000u ? 0x7Fu : 0x7Eu;
    } else if (a < (121u << 23)) {
        r = subnormal_bits(a, 9);
    } else {
        a += ((uint32_t)(7 - 127) << 23) + 0x7FFFFu + ((a >> 20) & 1u);
        r = (a >> 20) & 0xFFu;
        if (r == 0x7Fu) r = 0x7Eu;
    }
    return (uint8_t)(r | sign);
}
float rs_e4m3fn_to_f32(uint8_t x) {
    uint32_t w = (uint32_t)x << 24, sign = w & 0x80000000u, nonsign = w & 0x7FFFFFFFu;
    if (nonsign == 0) return bitsf(sign);
    uint32_t renorm = 31u - (uint32_t)msb32(nonsign);
    renorm = renorm > 4 ? renorm - 4 : 0;
    uint32_t inf_nan = (uint32_t)((int32_t)(nonsign + 0x01000000u) >> 8) & 0x7F800000u;
    return bitsf(sign | ((((nonsign << renorm) >> 4) + ((0x78u - renorm) << 23)) | inf_nan));
}

uint8_t rs_e5m2_from_f32(float f) {
    uint32_t w = rs_f32_bits(f), sign = (w >> 24) & 0x80u, a = w & 0x7FFFFFFFu, r;
    if (a >= (143u << 23)) {
        r = a > 0x7F800000u ? 0x7Fu : 0x7Cu;
    } else if (a < (113u << 23)) {
        r = subnormal_bits(a, 16);
    } else {
        a += ((uint32_t)(15 - 127) << 23) + 0xFFFFFu + ((a >> 21) & 1u);
        r = (a >> 21) & 0xFFu;
    }
    return (uint8_t)(r | sign);
}
float rs_e5m2_to_f32(uint8_t x) { return rs_f16_to_f32((uint16_t)(x << 8)); }

static uint8_t fnuz_enc(float f, uint32_t max_bits, uint32_t denorm_lo, int unit_exp,
                        uint32_t rebias, uint32_t mshift) {
    uint32_t w = rs_f32_bits(f), sign = (w >> 24) & 0x80u, a = w & 0x7FFFFFFFu, r;
    if (a >= max_bits) return 0x80u;
    if (a < denorm_lo) {
        r = subnormal_bits(a, unit_exp);
        if (r == 0) return 0;
    } else {
        a += rebias + ((1u << (mshift - 1)) - 1u) + ((a >> mshift) & 1u);
        r = (a >> mshift) & 0xFFu;
    }
    return (uint8_t)(r | sign);
}
uint8_t rs_e4m3fnuz_from_f32(float f) {
    return fnuz_enc(f, 0x87u << 23, 0x78u << 23, 10, (uint32_t)(8 - 127) << 23, 20);
}
uint8_t rs_e5m2fnuz_from_f32(float f) {
    return fnuz_enc(f, 0x8Fu << 23, 0x70u << 23, 17, (uint32_t)(16 - 127) << 23, 21);
}
static float fnuz_dec(uint8_t x, uint32_t we, uint32_t wm) {
    if (x == 0) return 0.0f;
    if (x == 0x80) return bitsf(0x7F800001u);
    uint32_t mant = x & ((1u << wm) - 1u), expo = (x & 0x7Fu) >> wm;
    if (expo == 0) {
        uint32_t renorm = 31u - (uint32_t)msb32(mant);
        uint32_t sh = 1 + renorm - (32 - wm);
        mant <<= sh;
        expo += 1 - sh;
        mant &= (1u << wm) - 1u;
    }
    expo += (1u << 7) - (1u << (we - 1)) - 1u;
    mant <<= 23 - wm;
    return bitsf(((uint32_t)(x >> 7) << 31) | (expo << 23) | mant);
}
float rs_e4m3fnuz_to_f32(uint8_t x) { return fnuz_dec(x, 4, 3); }
float rs_e5m2fnuz_to_f32(uint8_t x) { return fnuz_dec(x, 5, 2); }

uint8_t rs_e8m0fnu_from_f32(float f) {
    uint32_t w = rs_f32_bits(f), e = (w >> 23) & 0xFFu;
    if (e == 0xFFu) return 0xFF;
    int g = (w & 0x400000u) != 0, r = (w & 0x200000u) != 0, s = (w & 0x1FFFFFu) != 0;
    if (g && (r || s || e > 0)) e++;
    return (uint8_t)e;
}
float rs_e8m0fnu_to_f32(uint8_t x) {
    if (x == 0) return bitsf(0x00400000u);
    if (x == 0xFF) return bitsf(0x7F800001u);
    return bitsf((uint32_t)x << 23);
}

/* ---------------------------------------------------------------- casts */

/* x86-64 truncations (the "integer indefinite" for NaN and out of range). */
static uint64_t i64_from_d(double d) {
    return fabs(d) < 9223372036854775808.0 ? (uint64_t)(int64_t)d : 0x8000000000000000ull;
}
static uint64_t i32_from_d(double d) {
    return fabs(d) < 2147483648.0 ? (uint64_t)(int64_t)(int32_t)d : 0x80000000ull;
}
static uint64_t u64_from_d(double d) {
    if (d >= 9223372036854775808.0) return d < 18446744073709551616.0 ? (uint64_t)d : 0;
    return i64_from_d(d);
}

typedef enum { K_INT, K_UINT64, K_FLT, K_DBL, K_CF, K_CD } kind;

static kind kind_of(rs_dtype dt) {
    switch (dt) {
    case RS_FLOAT16: case RS_FLOAT32: case RS_BFLOAT16: case RS_FLOAT8_E5M2:
    case RS_FLOAT8_E4M3FN: case RS_FLOAT8_E5M2FNUZ: case RS_FLOAT8_E4M3FNUZ:
    case RS_FLOAT8_E8M0FNU:
        return K_FLT;
    case RS_FLOAT64: return K_DBL;
    case RS_COMPLEX32: case RS_COMPLEX64: return K_CF;
    case RS_COMPLEX128: return K_CD;
    case RS_UINT64: return K_UINT64;
    default: return K_INT;
    }
}

static float flt_get(const void *p, rs_dtype dt) {
    uint8_t b = *(const uint8_t *)p;
    uint16_t h;
    float f;
    switch (dt) {
    case RS_FLOAT32: memcpy(&f, p, 4); return f;
    case RS_FLOAT16: memcpy(&h, p, 2); return rs_f16_to_f32(h);
    case RS_BFLOAT16: memcpy(&h, p, 2); return rs_bf16_to_f32(h);
    case RS_FLOAT8_E5M2: return rs_e5m2_to_f32(b);
    case RS_FLOAT8_E4M3FN: return rs_e4m3fn_to_f32(b);
    case RS_FLOAT8_E5M2FNUZ: return rs_e5m2fnuz_to_f32(b);
    case RS_FLOAT8_E4M3FNUZ: return rs_e4m3fnuz_to_f32(b);
    default: return rs_e8m0fnu_to_f32(b);
    }
}

static void flt_set(void *p, rs_dtype dt, float f) {
    uint8_t *b = p;
    uint16_t h;
    switch (dt) {
    case RS_FLOAT32: memcpy(p, &f, 4); return;
    case RS_FLOAT16: h = rs_f16_from_f32(f); memcpy(p, &h, 2); return;
    case RS_BFLOAT16: h = rs_bf16_from_f32(f); memcpy(p, &h, 2); return;
    case RS_FLOAT8_E5M2: *b = rs_e5m2_from_f32(f); return;
    case RS_FLOAT8_E4M3FN: *b = rs_e4m3fn_from_f32(f); return;
    case RS_FLOAT8_E5M2FNUZ: *b = rs_e5m2fnuz_from_f32(f); return;
    case RS_FLOAT8_E4M3FNUZ: *b = rs_e4m3fnuz_from_f32(f); return;
    default: *b = rs_e8m0fnu_from_f32(f); return;
    }
}

static uint64_t int_get(const void *p, rs_dtype dt) {
    switch (dt) {
    case RS_BOOL: return *(const uint8_t *)p != 0;
    case RS_UINT8: return *(const uint8_t *)p;
    case RS_INT8: return (uint64_t)(int64_t) * (const int8_t *)p;
    case RS_INT16: { int16_t v; memcpy(&v, p, 2); return (uint64_t)(int64_t)v; }
    case RS_UINT16: { uint16_t v; memcpy(&v, p, 2); return v; }
    case RS_INT32: { int32_t v; memcpy(&v, p, 4); return (uint64_t)(int64_t)v; }
    case RS_UINT32: { uint32_t v; memcpy(&v, p, 4); return v; }
    default: { uint64_t v; memcpy(&v, p, 8); return v; }
    }
}

static void int_set(void *p, rs_dtype dt, uint64_t v) {
    size_t n = rs_dtype_size(dt);
    if (dt == RS_BOOL) v = v != 0;
    memcpy(p, &v, n); /* little-endian: the low bytes */
}

/* The value of any element as (re, im) in double, plus its integer bits
 * for the integer kinds. float64 NaN payloads survive: the host keeps
 * doubles in registers, as the kernels keep their bits. */
void rs_convert_host(void *dst, rs_dtype ddt, const void *src, rs_dtype sdt) {
    kind sk = kind_of(sdt), dk = kind_of(ddt);
    uint64_t iv = 0;
    double re = 0, im = 0;     /* the source as double(s) */
    float fre = 0, fim = 0;    /* the source as float(s), when it is one */
    int is_float_src = 0;      /* the source value is a float32 value */
    switch (sk) {
    case K_INT: iv = int_get(src, sdt); re = (double)(int64_t)iv; break;
    case K_UINT64: iv = int_get(src, sdt); re = (double)iv; break;
    case K_FLT: fre = flt_get(src, sdt); re = fre; is_float_src = 1; break;
    case K_DBL: memcpy(&re, src, 8); break;
    case K_CF:
        if (sdt == RS_COMPLEX32) {
            uint16_t h[2];
            memcpy(h, src, 4);
            fre = rs_f16_to_f32(h[0]);
            fim = rs_f16_to_f32(h[1]);
        } else {
            memcpy(&fre, src, 4);
            memcpy(&fim, (const char *)src + 4, 4);
        }
        re = fre;
        im = fim;
        is_float_src = 1;
        break;
    case K_CD: memcpy(&re, src, 8); memcpy(&im, (const char *)src + 8, 8); break;
    }
    int src_is_int = sk == K_INT || sk == K_UINT64;

    if (ddt == RS_BOOL) {
        int nz = src_is_int ? iv != 0 : (re != 0 || im != 0);
        int_set(dst, ddt, (uint64_t)nz);
        return;
    }
    switch (dk) {
    case K_INT:
    case K_UINT64:
        if (src_is_int) {
            int_set(dst, ddt, iv);
        } else if (ddt == RS_INT8 || ddt == RS_INT16 || ddt == RS_INT32 || ddt == RS_UINT16) {
            int_set(dst, ddt, i32_from_d(re));
        } else if (ddt == RS_UINT64) {
            int_set(dst, ddt, u64_from_d(re));
        } else {
            int_set(dst, ddt, i64_from_d(re));
        }
        return;
    case K_FLT: {
        /* integers convert straight to float (RNE); doubles round to float */
        float f = sk == K_INT ? (float)(int64_t)iv : sk == K_UINT64 ? (float)iv
                  : is_float_src ? fre : (float)re;
        flt_set(dst, ddt, f);
        return;
    }
    case K_DBL: {
        double d = is_float_src ? (double)fre : re;
        memcpy(dst, &d, 8);
        return;
    }
    case K_CF: {
        float fr, fi;
        if (sk == K_INT) fr = (float)(int64_t)iv, fi = 0;
        else if (sk == K_UINT64) fr = (float)iv, fi = 0;
        else if (is_float_src) fr = fre, fi = fim;
        else fr = (float)re, fi = (float)im;
        if (ddt == RS_COMPLEX32) {
            uint16_t h[2] = {rs_f16_from_f32(fr), rs_f16_from_f32(fi)};
            memcpy(dst, h, 4);
        } else {
            memcpy(dst, &fr, 4);
            memcpy((char *)dst + 4, &fi, 4);
        }
        return;
    }
    case K_CD: {
        double d[2] = {is_float_src ? (double)fre : re, is_float_src ? (double)fim : im};
        memcpy(dst, d, 16);
        return;
    }
    }
}

float rs_round_float(rs_dtype dt, float f) {
    uint8_t buf[16]; /* room for any dtype: float64 and complex ones keep f */
    float r;
    rs_convert_host(buf, dt, &f, RS_FLOAT32);
    rs_convert_host(&r, RS_FLOAT32, buf, dt);
    return r;
}
