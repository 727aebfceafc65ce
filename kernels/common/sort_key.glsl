// sort_key.glsl: the order-preserving sort keys of kernels/sort*.comp.
// Values map to unsigned integers whose order is PyTorch's order: NaN above
// everything (canonicalised, so all NaNs are one key), -0 == +0; signed
// integers flip the sign bit; floats flip all bits when negative, else the
// sign bit; DESC inverts the key. 64-bit dtypes (int64, uint64, float64)
// use 64-bit keys (KEY64); float64 needs no fp64 arithmetic.
// Needs IN_DT (with its dtype_inst.glsl included), KEY64 and DESC.
#ifndef RS_SORT_KEY_GLSL
#define RS_SORT_KEY_GLSL

#if KEY64
#define KT uint64_t
#define KPAD 0xFFFFFFFFFFFFFFFFUL
#define KNAN 0xFFF8000000000000UL
layout(buffer_reference, std430, buffer_reference_align = 8) buffer KRef { uint64_t v; };
#define KSZ 8UL
#else
#define KT uint
#define KPAD 0xFFFFFFFFu
#define KNAN 0xFFC00000u
layout(buffer_reference, std430, buffer_reference_align = 4) buffer KRef { uint v; };
#define KSZ 4UL
#endif


#define IS_FLOATY (RS_IS_FLT(IN_DT) || IN_DT == 7)

// The order-preserving key of src element o.
KT encode(uint64_t src, int64_t o) {
    KT key;
#if KEY64
    uint64_t v = RS_GET(IN_DT)(src, o);
#if IN_DT == 4
    key = v ^ 0x8000000000000000UL;
#elif IN_DT == 29
    key = v;
#else  // float64 bits
    if ((v & 0x7FFFFFFFFFFFFFFFUL) > 0x7FF0000000000000UL) v = 0x7FF8000000000000UL;
    if (v == 0x8000000000000000UL) v = 0UL;
    key = rs_sign64(v) ? ~v : (v | 0x8000000000000000UL);
#endif
#else
#if RS_IS_FLT(IN_DT)
    float f = RS_GET(IN_DT)(src, o);
    uint b = isnan(f) ? 0x7FC00000u : (f == 0.0 ? 0u : floatBitsToUint(f));
    key = (b & 0x80000000u) != 0u ? ~b : (b | 0x80000000u);
#elif IN_DT == 1 || IN_DT == 2 || IN_DT == 3
    key = uint(RS_GET(IN_DT)(src, o)) ^ 0x80000000u;
#else  // bool, uint8, uint16, uint32
    key = uint(RS_GET(IN_DT)(src, o));
#endif
#endif
#if DESC
    key = ~key;
#endif
    return key;
}

// The bits of the element (its low RS_SIZE(IN_DT) bytes) that `key`
// encodes, where the key alone determines them: integers, float32 and
// float64. False where one key stands for several bit patterns (a float
// zero, which -0 shares; NaN, which every NaN payload shares) and for the
// dtypes whose elements are read back from the source instead (bool,
// float16, bfloat16: their keys are not their bits).
bool decode(KT key, out uint64_t bits) {
    bits = 0UL;
#if DESC
    key = ~key;
#endif
#if KEY64
#if IN_DT == 4
    bits = key ^ 0x8000000000000000UL;
#elif IN_DT == 29
    bits = key;
#else  // float64
    if (key == 0x8000000000000000UL || key == KNAN) return false;
    bits = (key & 0x8000000000000000UL) != 0UL ? key ^ 0x8000000000000000UL : ~key;
#endif
    return true;
#else
#if IN_DT == 6
    if (key == 0x80000000u || key == KNAN) return false;
    bits = uint64_t((key & 0x80000000u) != 0u ? key ^ 0x80000000u : ~key);
    return true;
#elif RS_IS_FLT(IN_DT) || IN_DT == 11
    return false;
#elif IN_DT == 1 || IN_DT == 2 || IN_DT == 3
    bits = uint64_t(key ^ 0x80000000u);  // the low bytes of the two's complement value
    return true;
#else  // uint8, uint16, uint32
    bits = uint64_t(key);
    return true;
#endif
#endif
}

bool greater(KT ka, uint ia, KT kb, uint ib) { return ka > kb || (ka == kb && ia > ib); }

#endif
