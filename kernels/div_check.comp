// div_check.comp: is the device's float32 division rounded once? Run once
// per device (src/vk/device_checks.c), before the exact-math rewriting of
// divisions is decided: invocation i divides the pair ab[2i], ab[2i+1] and
// counts a quotient that differs from the host's want[i] in out.v[0].
#version 460
#extension GL_EXT_buffer_reference : require
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require

layout(local_size_x = 64) in;
layout(buffer_reference, std430, buffer_reference_align = 4) buffer F32s { float v[]; };
layout(buffer_reference, std430, buffer_reference_align = 4) buffer CheckOut { uint v[1]; };
layout(push_constant) uniform Push { uint64_t ab; uint64_t want; uint64_t out_addr; uint64_t n; } pc;

void main() {
    const uint i = gl_GlobalInvocationID.x;
    if (uint64_t(i) >= pc.n) return;
    F32s ab = F32s(pc.ab);
    CheckOut o = CheckOut(pc.out_addr);
    float a = ab.v[2u * i], b = ab.v[2u * i + 1u];
    if (floatBitsToUint(a / b) != floatBitsToUint(F32s(pc.want).v[i])) atomicAdd(o.v[0], 1u);
}
