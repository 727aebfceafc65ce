// common/attention.glsl: what the attention kernels share (attention.comp,
// attention_bwd.comp): the push constants, the parameter block that
// src/engine/attention.c writes, loads and stores in DT with ACC
// arithmetic, and a score's scale, mask and visibility. The including
// kernel defines DT, ACCB and HAS_MASK.
#include "common/dtype.glsl"
#include "common/index.glsl"
#include "common/opmath.glsl"
#include "common/error.glsl"

#define T_DT DT
#include "common/dtype_inst.glsl"
#include "common/opmath_inst.glsl"
#undef T_DT
#define ACC RS_OPMT(DT)
#define rs_raise(code, value)  // (no op here raises)
#define CM_DT 6
#include "common/ops.glsl"

layout(push_constant) uniform Push {
    uint64_t q, k, v, o, mask, lse;
    uint64_t dout, dq, dk, dv, drow;  // backward; drow: D (ACC), contiguous (B, Hq, L)
    uint64_t params;
} pc;

// the parameter block (int64 slots; src/engine/attention.c writes them)
#define AP_B 0
#define AP_HQ 1
#define AP_HK 2
#define AP_L 3
#define AP_S 4
#define AP_E 5
#define AP_EV 6
#define AP_CAUSAL 7
#define AP_SCALE 8   // the bits of ACC's scale
#define AP_QS 9      // 4 strides each: b, h, row, dim
#define AP_KS 13
#define AP_VS 17
#define AP_OS 21
#define AP_MS 25
#define AP_DOS 29
#define AP_DQS 33
#define AP_DKS 37
#define AP_DVS 41
#define AP_SLOTS 45

int64_t ap(int slot) { return RsI64(pc.params + 8UL * uint64_t(slot)).v; }

layout(buffer_reference, std430, buffer_reference_align = 4) buffer AccEl { ACC v; };
AccEl acc_at(uint64_t base, int64_t e) { return AccEl(base + uint64_t(e) * uint64_t(ACCB)); }

#if RS_IS_DBL(DT)
ACC acc_bits(int64_t b) { return uint64BitsToDouble(uint64_t(b)); }
#define NEG_INF (-1.0LF / 0.0LF)
void store(uint64_t base, int64_t off, ACC v) { RS_SET_D(DT)(base, off, doubleBitsToUint64(v)); }
#else
ACC acc_bits(int64_t b) { return uintBitsToFloat(uint(b)); }
#define NEG_INF (-1.0 / 0.0)
void store(uint64_t base, int64_t off, ACC v) { RS_SET_F(DT)(base, off, v); }
#endif
ACC load(uint64_t base, int64_t off) { return RS_LDO(DT)(base, off); }

int64_t B, HQ, HK, L, S, E, EV;
bool causal;
ACC scale;
int64_t qs[4], ks[4], vs[4], os[4], ms[4], dos[4], dqs[4], dks[4], dvs[4];

void read_params() {
    B = ap(AP_B); HQ = ap(AP_HQ); HK = ap(AP_HK); L = ap(AP_L); S = ap(AP_S); E = ap(AP_E); EV = ap(AP_EV);
    causal = ap(AP_CAUSAL) != 0L;
    scale = acc_bits(ap(AP_SCALE));
    for (int j = 0; j < 4; ++j) {
        qs[j] = ap(AP_QS + j); ks[j] = ap(AP_KS + j); vs[j] = ap(AP_VS + j); os[j] = ap(AP_OS + j);
        ms[j] = ap(AP_MS + j); dos[j] = ap(AP_DOS + j); dqs[j] = ap(AP_DQS + j); dks[j] = ap(AP_DKS + j);
        dvs[j] = ap(AP_DVS + j);
    }
}

int64_t at(int64_t st[4], int64_t b, int64_t h, int64_t row) { return b * st[0] + h * st[1] + row * st[2]; }

#if RS_IS_DBL(DT)
#define ACC4 dvec4
#else
#define ACC4 vec4
#endif

// the score's scale, mask and visibility: -inf where masked out or outside
ACC finish_score(ACC dot, int64_t b, int64_t h, int64_t i, int64_t j) {
    if (i >= L || j >= S || (causal && j > i)) return NEG_INF;
    ACC s = dot * scale;
#if HAS_MASK
    s += load(pc.mask, at(ms, b, h, i) + j * ms[3]);
#endif
    return s;
}
