"""The H200's remaining wrong numbers, element by element, beside CPU:
test_histogram.py::test_bin_counts_exact[10] (which values land in
another bin, and the linear estimate of their bin), and the bfloat16
fmod/remainder OpInfo samples (which elements differ, with their inputs).
Run under each profile (docs/gpu-testing.md); prints only differences."""
import torch
from torch.testing._internal.common_methods_invocations import op_db

import russet  # noqa: F401

D = "russet"

# ---- histogram: test_bin_counts_exact[10]'s data
bins = 10
g = torch.Generator().manual_seed(bins)
x = torch.randn(300, generator=g)
for rng in (None, (-1.0, 1.5)):
    kw = {} if rng is None else {"range": rng}
    edges = torch.histogram(x, bins, **kw).bin_edges
    inner = edges if rng else edges[1:-1]
    xe = torch.cat([x, edges, inner.nextafter(torch.tensor(-1e9)), inner.nextafter(torch.tensor(1e9))])
    want = torch.histogram(xe, bins, **kw)
    got = torch.histogram(xe.to(D), bins, **kw)
    print(f"histogram range={rng}: edges equal {torch.equal(want.bin_edges, got.bin_edges.cpu())}, "
          f"counts equal {torch.equal(want.hist, got.hist.cpu())}")
    if not torch.equal(want.hist, got.hist.cpu()):
        print("   cpu   ", want.hist.tolist(), "\n   russet", got.hist.cpu().tolist())
        lo, hi = edges[0], edges[-1]
        est_c = (xe - lo) * float(bins) / (hi - lo)
        xd = xe.to(D)
        est_d = ((xd - lo.to(D)) * float(bins) / (hi - lo).to(D)).cpu()
        diff = (est_c != est_d).nonzero().flatten().tolist()
        print(f"   linear estimates differing: {len(diff)}")
        for i in diff[:10]:
            print(f"     x {xe[i].item()!r} est cpu {est_c[i].item()!r} russet {est_d[i].item()!r}")
        # each value's bin alone
        for i in range(len(xe)):
            a = torch.histogram(xe[i:i + 1], edges)
            b = torch.histogram(xe[i:i + 1].to(D), edges.to(D))
            if not torch.equal(a.hist, b.hist.cpu()):
                print(f"     x {xe[i].item()!r}: cpu bin {a.hist.argmax().item()} russet {b.hist.cpu().argmax().item()}")

# ---- fmod / remainder, bfloat16 and float32 OpInfo samples
for name in ("fmod", "remainder"):
    op = next(o for o in op_db if o.name == name and o.variant_test_name == "")
    for dt in (torch.bfloat16, torch.float32):
        for n, s in enumerate(op.sample_inputs("cpu", dt)):
            want = op(s.input, *s.args, **s.kwargs)
            mv = lambda t: t.to(D) if isinstance(t, torch.Tensor) else t  # noqa: E731
            got = op(mv(s.input), *[mv(a) for a in s.args], **s.kwargs).cpu()
            bad = ~((want == got) | (want.isnan() & got.isnan()) | ((want - got).abs() <= 1e-5 + 1e-2 * want.abs()))
            if bad.any():
                other = s.args[0]
                idx = bad.nonzero()[:6]
                print(f"{name} {dt} sample {n}: {int(bad.sum())} of {bad.numel()} differ; input {tuple(s.input.shape)} "
                      f"other {tuple(other.shape) if isinstance(other, torch.Tensor) else other}")
                for i in idx.tolist():
                    a = s.input[tuple(i)].item()
                    b = torch.broadcast_to(other, want.shape)[tuple(i)].item() if isinstance(other, torch.Tensor) else other
                    print(f"   {a!r} , {b!r}: cpu {want[tuple(i)].item()!r} russet {got[tuple(i)].item()!r}")
# ---- complex pow of special values (test_complex_pow_special_values): the
# elements that differ, with their inputs
inf, nan = float("inf"), float("nan")
v = torch.tensor([0.0, -0.0, 1.0, -1.0, 2.5, -0.5, inf, -inf, nan, 1e-20, 30.0])
z = torch.complex(v[:, None].expand(-1, 11), v[None, :].expand(11, -1)).reshape(-1)
y = torch.cat([z[::3], torch.tensor([2.0 + 0j, 0.5 + 0j, -1.0 + 0j, 3.0 + 0j])])[None, :].expand(121, -1)
x = z[:, None].expand(-1, y.shape[1])
want = torch.pow(x, y)
got = torch.pow(x.to(D), y.to(D)).cpu()
fin = want.real.isfinite() & want.imag.isfinite()
bad = fin & ~torch.isclose(got, want, rtol=1.3e-5, atol=1e-4)
print(f"complex pow: {int(bad.sum())} differing of {int(fin.sum())} finite")
for i in bad.nonzero()[:12].tolist():
    print(f"   x {x[tuple(i)].item()} y {y[tuple(i)].item()}: cpu {want[tuple(i)].item()} russet {got[tuple(i)].item()}")
print("numerics_probe done")
