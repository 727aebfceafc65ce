"""Device times of one copy kernel in several shapes, beside russet's eager
copy: an element an invocation with 64-bit or 32-bit offsets, `restrict`
buffers, 4 elements as one 16-byte access; 64, 256 and 1024 invocations a
workgroup. Written to learn what torch.compile's generated pointwise kernels
should look like (docs/compile.md, fifty-third session). Launched as the
generated kernels are (russet.inductor.launch.GlslKernel), timed with the C
core's profiler (kernel_times.py). A tool for tuning, not a benchmark.

    python bench/copy_kernel_shapes.py [--n ELEMENTS]
"""
import os
import sys
import time

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "python"))
import kernel_times as kt  # noqa: E402
from russet.inductor.launch import GlslKernel  # noqa: E402

HEAD = r'''#version 460
#include "common/dtype.glsl"
#define T_DT 6
#include "common/dtype_inst.glsl"
#undef T_DT
layout(local_size_x = WGS) in;
layout(push_constant) uniform Push { uint64_t w[5]; } pc;
#define ARG(i) pc.w[i]
'''
BODY = {
 "gen": r'''void main() {
    uint lid = gl_LocalInvocationID.x;
    uint gid = gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;
    int xnumel = NUMEL;
    int64_t linear64 = int64_t(gid) * int64_t(WGS) + int64_t(lid);
    if (linear64 >= int64_t(xnumel)) return;
    int x0 = int(linear64);
    float tmp0 = RS_GET(6)(ARG(3), x0);
    RS_SET_F(6)(ARG(2), x0, tmp0 + 0.0);
}''',
 "i32": r'''layout(buffer_reference, std430, buffer_reference_align = 4) buffer F32 { float v[]; };
void main() {
    uint gid = gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;
    uint x0 = gid * uint(WGS) + gl_LocalInvocationID.x;
    if (x0 >= uint(NUMEL)) return;
    F32(ARG(2)).v[x0] = F32(ARG(3)).v[x0] + 0.0;
}''',
 "restrict": r'''layout(buffer_reference, std430, buffer_reference_align = 4) restrict readonly buffer R32 { float v[]; };
layout(buffer_reference, std430, buffer_reference_align = 4) restrict writeonly buffer W32 { float v[]; };
void main() {
    uint gid = gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;
    uint x0 = gid * uint(WGS) + gl_LocalInvocationID.x;
    if (x0 >= uint(NUMEL)) return;
    W32(ARG(2)).v[x0] = R32(ARG(3)).v[x0] + 0.0;
}''',
 "vec4": r'''layout(buffer_reference, std430, buffer_reference_align = 16) buffer V4 { vec4 v[]; };
void main() {
    uint gid = gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;
    uint x0 = gid * uint(WGS) + gl_LocalInvocationID.x;
    if (x0 >= uint(NUMEL) / 4u) return;
    V4(ARG(2)).v[x0] = V4(ARG(3)).v[x0] + 0.0;
}''',
}
N = int(sys.argv[sys.argv.index("--n") + 1]) if "--n" in sys.argv else 1 << 24
x = torch.randn(N, device="russet"); y = torch.empty_like(x)
lib, dev = kt.core()
recs = (kt.Record * 65536)()
def devtime(fn, reps=20):
    for _ in range(3): fn()
    torch.russet.synchronize(); lib.rs_profiler_take(dev, recs, 65536); lib.rs_profiler_start(dev)
    t0 = time.perf_counter()
    for _ in range(reps): fn()
    torch.russet.synchronize(); wall = (time.perf_counter() - t0) / reps * 1e6
    lib.rs_profiler_stop(dev); n = lib.rs_profiler_take(dev, recs, 65536)
    return sum(r.end_ns - r.start_ns for r in recs[:n]) / reps / 1e3, wall, n
print("eager x + 0: %.1f us (wall %.1f, %d records)" % devtime(lambda: torch.add(x, 0, out=y)))
print("eager copy_: %.1f us (wall %.1f, %d records)" % devtime(lambda: y.copy_(x)))
for name, body in BODY.items():
    for wgs in (256, 64, 1024):
        src = (HEAD + body).replace("WGS", str(wgs)).replace("NUMEL", str(N))
        k = GlslKernel(f"exp_{name}_{wgs}", src, 2, 1, wgs)
        thr = N // 4 if name == "vec4" else N
        try:
            t = devtime(lambda: k(y, x, threads=thr))
            ok = torch.equal(y.cpu(), x.cpu())
            print(f"{name:9s} wg {wgs:5d}: {t[0]:7.1f} us (wall {t[1]:.1f}) {'ok' if ok else 'WRONG'}")
        except Exception as e:
            print(f"{name} wg {wgs}: {type(e).__name__}: {str(e)[:200]}")
