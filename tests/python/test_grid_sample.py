"""F.grid_sample on 4-d inputs (grid_sampler_2d and its backward,
src/torch/ops_grid_sample.cpp) against CPU: OpInfo samples, bilinear and
nearest with every padding mode and align_corners, gradients of input and
grid, host-free, 2-d and 3-d (bicubic runs on the host: counted). float16/bfloat16
compute coordinates and blends in float32 and round once: CPU's bfloat16
kernel works in bfloat16 (so it can even pick another pixel), and russet is
compared with CPU's float32 result rounded."""

import pytest
import torch
import torch.nn.functional as F
from torch.testing import assert_close
from torch.testing._internal.common_methods_invocations import op_db

from opinfo_check import host_free, moved as _to

D = "russet"
REDUCED = (torch.float16, torch.bfloat16)


def host_case(name, s):
    """bicubic has no native kernel yet"""
    return s.kwargs.get("mode") == "bicubic" if name == "nn.functional.grid_sample" else s.args[1] == 2


@pytest.mark.parametrize("name", ["nn.functional.grid_sample", "grid_sampler_2d", "grid_sampler_3d"])
def test_opinfo_samples(name):
    op = next(o for o in op_db if o.name == name and o.variant_test_name == "")
    checked = 0
    for dtype in (torch.float32, torch.float16, torch.bfloat16):
        for s in op.sample_inputs("cpu", dtype):
            if s.input.numel() > 200_000:  # lavapipe: keep the large 3-d samples out
                continue
            args = [s.input] + list(s.args)
            if dtype in REDUCED and not host_case(name, s):
                exp = op.op(*_to(args, "cpu", torch.float32), **s.kwargs).to(dtype)
            else:
                exp = op.op(*args, **s.kwargs)
            run = lambda: op.op(*_to(args, D), **s.kwargs)
            got = run() if host_case(name, s) else host_free(run)
            # float32: the blend's sums differ from CPU's in order (3-d: 8 corners)
            assert_close(got.cpu(), exp, rtol=1e-4 if dtype == torch.float32 else None,
                         atol=2e-5 if dtype == torch.float32 else None)
            checked += 1
    assert checked


@pytest.mark.parametrize("mode", ["bilinear", "nearest"])
@pytest.mark.parametrize("padding_mode", ["zeros", "border", "reflection"])
@pytest.mark.parametrize("align_corners", [False, True])
def test_values_and_gradients(mode, padding_mode, align_corners):
    torch.manual_seed(0)
    x = torch.randn(2, 3, 5, 7)
    grid = torch.rand(2, 4, 6, 2) * 2.6 - 1.3  # some points outside [-1, 1]
    kw = dict(mode=mode, padding_mode=padding_mode, align_corners=align_corners)
    xc, gc = x.clone().requires_grad_(), grid.clone().requires_grad_()
    xd, gd = x.to(D).requires_grad_(), grid.to(D).requires_grad_()
    yc = F.grid_sample(xc, gc, **kw)
    yd = host_free(lambda: F.grid_sample(xd, gd, **kw))
    assert_close(yd.detach().cpu(), yc.detach(), rtol=1e-5, atol=1e-5)
    g = torch.randn(yc.shape)
    yc.backward(g)
    host_free(lambda: yd.backward(g.to(D)))
    assert_close(xd.grad.cpu(), xc.grad, rtol=1e-5, atol=1e-5)
    assert_close(gd.grad.cpu(), gc.grad, rtol=1e-4, atol=1e-4)


def test_bicubic_is_counted_host_and_errors():
    x, grid = torch.randn(1, 1, 4, 4), torch.rand(1, 2, 2, 2) * 2 - 1
    torch.russet.reset_host_op_counts()
    got = F.grid_sample(x.to(D), grid.to(D), mode="bicubic", align_corners=False)
    assert torch.russet.host_op_counts()
    assert_close(got.cpu(), F.grid_sample(x, grid, mode="bicubic", align_corners=False))
    with pytest.raises(RuntimeError, match="same dtype"):
        torch.grid_sampler_2d(x.to(D), grid.half().to(D), 0, 0, False)


@pytest.mark.parametrize("mode", ["bilinear", "nearest"])
@pytest.mark.parametrize("padding_mode", ["zeros", "border", "reflection"])
def test_3d_values_and_gradients(mode, padding_mode):
    torch.manual_seed(1)
    x = torch.randn(1, 2, 3, 4, 5)
    grid = torch.rand(1, 2, 3, 4, 3) * 2.4 - 1.2
    kw = dict(mode=mode, padding_mode=padding_mode, align_corners=padding_mode == "border")
    xc, gc = x.clone().requires_grad_(), grid.clone().requires_grad_()
    xd, gd = x.to(D).requires_grad_(), grid.to(D).requires_grad_()
    yc = F.grid_sample(xc, gc, **kw)
    yd = host_free(lambda: F.grid_sample(xd, gd, **kw))
    assert_close(yd.detach().cpu(), yc.detach(), rtol=1e-5, atol=1e-5)
    g = torch.randn(yc.shape)
    yc.backward(g)
    host_free(lambda: yd.backward(g.to(D)))
    assert_close(xd.grad.cpu(), xc.grad, rtol=1e-5, atol=1e-5)
    assert_close(gd.grad.cpu(), gc.grad, rtol=1e-4, atol=1e-4)
