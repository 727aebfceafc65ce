"""3-d grid_sample reflection with huge and special grid values, one
coordinate at a time, russet beside CPU; and the fmod/floor pieces the
reflection uses. Run on the H200 (docs/gpu-testing.md): prints only the
cases that differ."""
import itertools
import torch
import torch.nn.functional as F
import russet  # noqa: F401

torch.manual_seed(2)
x = torch.randn(1, 1, 3, 3, 3)
vals = [float("nan"), float("inf"), -float("inf"), 1e30, -1e30, 1e10, -1e10, 3e7, 1e5, 0.25]
bad = 0
for mode, align in itertools.product(("bilinear", "nearest"), (False, True)):
    for j, v in itertools.product(range(3), vals):
        g = torch.full((1, 1, 1, 1, 3), 0.25)
        g[..., j] = v
        kw = dict(mode=mode, padding_mode="reflection", align_corners=align)
        want = F.grid_sample(x, g, **kw).flatten()
        got = F.grid_sample(x.to("russet"), g.to("russet"), **kw).cpu().flatten()
        if not torch.equal(torch.nan_to_num(want, 7.0), torch.nan_to_num(got, 7.0)):
            bad += 1
            print(f"{mode} align={align} coord {j} = {v}: cpu {want.tolist()} russet {got.tolist()}")
print("grid_sample cases differing:", bad)

a = torch.tensor([1.5e30, 1e30, 5e29, 3e10, 1.5e10 + 0.5, 4.5e7, 1e5 + 0.5, 2.0, -8.4375])
for b in (3.0, 2.0, 1.1754944e-38):
    want = torch.fmod(a, b)
    got = torch.fmod(a.to("russet"), b).cpu()
    print(f"fmod(a, {b}): cpu {want.tolist()}\n            russet {got.tolist()}")
    want = torch.floor(a / b)
    got = torch.floor(a.to("russet") / b).cpu()
    print(f"floor(a / {b}): equal {torch.equal(want, got)} russet {got.tolist()}")

# the reflected source position itself: an input that is its own W index,
# bilinear, the other coordinates at the centre
xw = torch.arange(3.0).reshape(1, 1, 1, 1, 3).expand(1, 1, 3, 3, 3).contiguous()
for align in (False, True):
    for v in (1e30, -1e30, 1e10, -1e10, 3e7, -3e7):
        g = torch.tensor([v, 0.0, 0.0]).reshape(1, 1, 1, 1, 3)
        kw = dict(mode="bilinear", padding_mode="reflection", align_corners=align)
        want = F.grid_sample(xw, g, **kw).item()
        got = F.grid_sample(xw.to("russet"), g.to("russet"), **kw).item()
        # the unnormalized position, elementwise on russet
        gd = g.to("russet")[..., 0]
        un = (((gd + 1) * 3 - 1) / 2 if not align else ((gd + 1) / 2) * 2).cpu().item()
        unc = (((g[..., 0] + 1) * 3 - 1) / 2 if not align else ((g[..., 0] + 1) / 2) * 2).item()
        print(f"align={align} g={v}: position cpu {want} russet {got}; unnormalized cpu {unc!r} russet {un!r}")
