"""torch.autocast("russet") and torch.amp.GradScaler("russet")
(src/torch/runtime/autocast.cpp, src/torch/ops/amp.cpp), against CPU."""

import pytest
import torch
from torch.testing import assert_close

import russet  # noqa: F401

D = "russet"


@pytest.mark.parametrize("dt", [torch.float16, torch.bfloat16])
def test_autocast_policies(dt):
    assert torch.amp.is_autocast_available(D)
    assert dt in torch.russet.get_amp_supported_dtype()
    a, b = torch.randn(8, 8), torch.randn(8, 8)
    x, w = torch.randn(1, 2, 6, 6), torch.randn(3, 2, 3, 3)
    ad, bd, xd, wd = a.to(D), b.to(D), x.to(D), w.to(D)
    with torch.autocast(D, dtype=dt):
        mm = ad @ bd
        lin = torch.nn.functional.linear(ad, bd)
        conv = torch.nn.functional.conv2d(xd, wd)
        sm = torch.softmax(mm, 1)
        ex = torch.exp(mm)
        ce = torch.nn.functional.cross_entropy(mm, torch.arange(8, device=D) % 3)
        mixed = torch.addcmul(ad, mm, mm)  # promote: the widest input dtype
        plain = mm + 1  # no policy: falls through in the input's dtype
    with torch.autocast("cpu", dtype=dt):
        mm_c = a @ b
        conv_c = torch.nn.functional.conv2d(x, w)
    for t in (mm, lin, conv):
        assert t.dtype == dt
    for t in (sm, ex, ce, mixed):
        assert t.dtype == torch.float32
    assert plain.dtype == dt
    # the casts are the only change: the products equal the lower-precision ones
    assert_close(mm.cpu(), (a.to(dt) @ b.to(dt)))
    assert_close(mm.cpu(), mm_c)
    assert_close(conv.cpu(), conv_c, atol=2e-2, rtol=2e-2)
    # outside the region: float32 again
    assert (ad @ bd).dtype == torch.float32


def test_autocast_refuses_binary_cross_entropy():
    p, t = torch.rand(4, device=D), torch.rand(4, device=D)
    with torch.autocast(D, dtype=torch.float16):
        with pytest.raises(RuntimeError, match="unsafe to autocast"):
            torch.nn.functional.binary_cross_entropy(p, t)
        loss = torch.nn.functional.binary_cross_entropy_with_logits(p, t)
    assert loss.dtype == torch.float32


def test_autocast_disabled_and_nested():
    a = torch.randn(4, 4, device=D)
    with torch.autocast(D, dtype=torch.float16):
        with torch.autocast(D, enabled=False):
            assert (a @ a).dtype == torch.float32
        assert (a @ a).dtype == torch.float16


def test_unscale_and_found_inf():
    for dt in (torch.float32, torch.float16, torch.bfloat16):
        # (a transposed gradient: rs_amp_unscale reads and writes through strides)
        g = [torch.randn(5, 3).to(dt), torch.randn(7).to(dt), torch.empty(0, dtype=dt), torch.randn(4, 6).to(dt).t()]
        inv = torch.tensor(1 / 3.0)  # not a power of two: the rounding shows
        gd = [t.to(D) if t.is_contiguous() else t.t().to(D).t() for t in g]
        fi, fid = torch.zeros(1), torch.zeros(1, device=D)
        torch._amp_foreach_non_finite_check_and_unscale_(g, fi, inv)
        torch.russet.reset_host_op_counts()
        torch._amp_foreach_non_finite_check_and_unscale_(gd, fid, inv.to(D))
        assert torch.russet.host_op_counts() == {}
        for want, got in zip(g, gd):
            assert torch.equal(got.cpu(), want)
        assert fid.item() == 0.0
        gd[1][2] = float("nan")
        torch._amp_foreach_non_finite_check_and_unscale_(gd, fid, inv.to(D))
        assert fid.item() == 1.0
        gd[1][2] = float("inf")
        fid.zero_()
        torch._amp_foreach_non_finite_check_and_unscale_(gd[1:2], fid, inv.to(D))
        assert fid.item() == 1.0
    with pytest.raises(RuntimeError, match="1-element"):
        torch._amp_foreach_non_finite_check_and_unscale_([torch.ones(2, device=D)], torch.zeros(2, device=D),
                                                         torch.ones(1, device=D))
    with pytest.raises(RuntimeError, match="float tensor"):
        torch._amp_foreach_non_finite_check_and_unscale_([torch.ones(2, device=D)], torch.zeros(1, device=D),
                                                         torch.ones(1, dtype=torch.float16, device=D))


def test_update_scale_matches_cpu():
    cases = [0.0, 0.0, 0.0, 1.0, 0.0, 1.0, 1.0, 0.0, 0.0, 0.0]
    for growth, backoff, interval in ((2.0, 0.5, 2), (3.0, 0.3, 1), (2.0, 0.5, 3)):
        s, t = torch.tensor([1024.0]), torch.tensor([0], dtype=torch.int32)
        sd, td = s.to(D), t.to(D)
        for f in cases:
            torch._amp_update_scale_(s, t, torch.tensor([f]), growth, backoff, interval)
            torch.russet.reset_host_op_counts()
            torch._amp_update_scale_(sd, td, torch.tensor([f], device=D), growth, backoff, interval)
            assert torch.russet.host_op_counts() == {}
            assert torch.equal(sd.cpu(), s) and torch.equal(td.cpu(), t), (growth, backoff, interval, f)
    # float times double, rounded once, as CPU's kernel: random scales and
    # factors that float32 cannot hold
    g = torch.Generator().manual_seed(0)
    for _ in range(60):
        s0 = float(torch.empty(1).uniform_(-30, 30, generator=g).exp2().item())
        f = float(torch.empty(1, dtype=torch.float64).uniform_(0.05, 0.95, generator=g).item())
        for found in (1.0, 0.0):
            s, t = torch.tensor([s0]), torch.tensor([0], dtype=torch.int32)
            sd, td = s.to(D), t.to(D)
            torch._amp_update_scale_(s, t, torch.tensor([found]), 1 / f, f, 1)
            torch._amp_update_scale_(sd, td, torch.tensor([found], device=D), 1 / f, f, 1)
            assert torch.equal(sd.cpu(), s), (s0, f, found, sd.item(), s.item())
    # a grown scale that is not finite is not taken
    sd, td = torch.tensor([3e38], device=D), torch.tensor([0], dtype=torch.int32, device=D)
    torch._amp_update_scale_(sd, td, torch.zeros(1, device=D), 2.0, 0.5, 1)
    assert sd.item() == pytest.approx(3e38) and td.item() == 0


def test_grad_scaler_training_matches_cpu():
    def run(dev):
        torch.manual_seed(0)
        m = torch.nn.Sequential(torch.nn.Linear(16, 32), torch.nn.ReLU(), torch.nn.Linear(32, 4)).to(dev)
        opt = torch.optim.SGD(m.parameters(), lr=0.1)
        scaler = torch.amp.GradScaler(dev, init_scale=2.0 ** 16, growth_interval=2)
        x, y = torch.randn(8, 16).to(dev), torch.randint(0, 4, (8,)).to(dev)
        hist = []
        for i in range(6):
            opt.zero_grad()
            loss = torch.nn.functional.cross_entropy(m(x), y)
            scaled = scaler.scale(loss)
            if i == 2:
                scaled = scaled * float("inf")  # a skipped step
            scaled.backward()
            scaler.step(opt)
            scaler.update()
            hist.append((scaler.get_scale(), int(scaler._growth_tracker.item())))
        return hist, [p.detach().cpu() for p in m.parameters()]

    torch.russet.reset_host_op_counts()
    hist_d, params_d = run(D)
    counts = torch.russet.host_op_counts()
    # GradScaler computes 1 / scale in float64 (host under the apple profile)
    assert set(counts) <= {"aten::reciprocal.out"}, counts
    hist_c, params_c = run("cpu")
    assert hist_d == hist_c
    for pd, pc in zip(params_d, params_c):
        assert_close(pd, pc)
