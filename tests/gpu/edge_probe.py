"""Diagnoses the H200-only failures of tests/gpu/h200_failures_*.txt step
by step (run under each profile; prints, asserts nothing): dropout's mask
against its output and gradient in float16/bfloat16 (fifteenth session:
the kept elements with a zero output were zero inputs, the test's fault),
and fmod/remainder by the smallest normal float (float32 remainder loses
its sign fix to the device's denormal flush). "output mismatches" compares
with the scale in float; CPU rounds the scale to the dtype first, as russet
does, so those counts are expected."""
import torch
import torch.nn.functional as F

import russet  # noqa: F401

D = "russet"
p = torch.russet.get_device_properties()
print("profile", p.profile, "division", p.division, "infnan", p.features.preserve_infnan,
      "denorm", p.features.preserve_denorm)

for dtype in (torch.float16, torch.bfloat16, torch.float32):
    torch.manual_seed(0)
    x = torch.randn(1 << 14, dtype=dtype)
    xd = x.to(D)
    torch.manual_seed(5)
    y, mask = torch.native_dropout(xd, 0.4, True)
    y, mask = y.cpu(), mask.cpu()
    keep_y = y != 0
    print(dtype, "mask bytes", torch.unique(mask.view(torch.uint8)).tolist(),
          "mask true", int(mask.sum()), "y nonzero", int(keep_y.sum()),
          "mask&~ynz", int((mask & ~keep_y).sum()), "~mask&ynz", int((~mask & keep_y).sum()))
    # the output against CPU's from the same mask ((x * mask) * scale in
    # float, rounded once): where and what
    want_y = ((x.float() * mask.float()) * (1 / 0.6)).to(dtype)
    bad = (y != want_y).nonzero().flatten()
    print("  output mismatches", bad.numel(), "at", bad[:12].tolist(), "mod 64", (bad[:12] % 64).tolist())
    print("    x", x[bad[:6]].tolist(), "y", y[bad[:6]].tolist(), "want", want_y[bad[:6]].tolist())
    lost = (mask & ~keep_y).nonzero().flatten()
    print("  kept but zero at", lost[:16].tolist(), "mod 64", (lost[:16] % 64).tolist(), "x", x[lost[:8]].tolist(),
          "bits of x", x[lost[:8]].view(torch.int16).tolist())
    # the backward's kernels from the same mask
    yd2 = torch.ops.aten.native_dropout_backward(xd, mask.to(D), 1 / 0.6).cpu()
    print("  backward-of-x mismatches", int((yd2 != torch.ops.aten.native_dropout_backward(x, mask, 1 / 0.6)).sum()))
    g = torch.ones(x.shape, dtype=dtype)
    gb = torch.ops.aten.native_dropout_backward(g.to(D), mask.to(D), 1 / 0.6).cpu()
    want = torch.ops.aten.native_dropout_backward(g, mask, 1 / 0.6)
    bad = (gb != want).nonzero().flatten()
    print("  backward mismatches", bad.numel(), bad[:5].tolist(), gb[bad[:5]].tolist(), want[bad[:5]].tolist(),
          mask[bad[:5]].tolist())
    m16 = mask.to(D).to(dtype).cpu()
    print("  mask.to(dtype) mismatches", int((m16 != mask.to(dtype)).sum()))
    gm = (g.to(D) * mask.to(D)).cpu()
    print("  grad*mask mismatches", int((gm != g * mask).sum()))

for dtype in (torch.bfloat16, torch.float32):
    a = torch.tensor([-8.4375, 0.140625, 1.0, -3.0], dtype=dtype)
    b = torch.tensor([1.1755e-38, 1.1755e-38, 1.1755e-38, 2.0 ** -140], dtype=dtype)
    for name, fn in (("fmod", torch.fmod), ("remainder", torch.remainder)):
        print(dtype, name, fn(a.to(D), b.to(D)).cpu().tolist(), "cpu", fn(a, b).tolist())
    print(dtype, "div", (a.to(D) / b.to(D)).cpu().tolist(), "cpu", (a / b).tolist())
