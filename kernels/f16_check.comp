// f16_check.comp: do the device's float16 conversions give c10's bits?
// Run once per device (src/vk/device_checks.c). Invocation h (65,536 of them)
// decodes the half h, and encodes 64 floats whose top 16 bits are h: every
// combination of the three bits above a normal half's rounding point with
// the round bit and the sticky bits around it (ties, just below, just
// above), so that ties-to-even, overflow to infinity, subnormals (whose
// rounding point lies in the top bits) and NaNs are all met. Counts of
// mismatches go to out[0] (decode) and out[1] (encode).
#version 460
#include "common/dtype.glsl"

layout(local_size_x = 64) in;
layout(buffer_reference, std430, buffer_reference_align = 4) buffer RsCheckOut { uint v[2]; };
layout(push_constant) uniform Push { uint64_t out_addr; } pc;

void main() {
    const uint h = gl_GlobalInvocationID.x;
    if (h >= 65536u) return;
    RsCheckOut o = RsCheckOut(pc.out_addr);
    if (floatBitsToUint(rs_f16_dec_dev(h)) != floatBitsToUint(rs_f16_dec_c10(h))) atomicAdd(o.v[0], 1u);
    const uint low[8] = uint[8](0x0000u, 0x0001u, 0x07FFu, 0x0FFFu, 0x1000u, 0x1001u, 0x17FFu, 0x1FFFu);
    for (uint b = 0u; b < 8u; ++b) {
        for (uint r = 0u; r < 8u; ++r) {
            const uint bits = (h << 16) | (b << 13) | low[r];
            const float f = uintBitsToFloat(bits);
            if (rs_f16_enc_dev(f) != rs_f16_enc_c10(f)) atomicAdd(o.v[1], 1u);
        }
    }
}
