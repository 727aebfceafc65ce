"""F.grid_sample (grid_sampler_2d/3d and their backward, the C core's
grid-sampling engine: src/engine/grid_sample.c, kernels/grid_sample.comp)
against CPU: OpInfo samples, bilinear and nearest with every padding mode
and align_corners, gradients of input and grid, host-free, 2-d and 3-d,
NaN/infinite/huge grid values, a deterministic input gradient (bicubic runs
on the host: counted). float16/bfloat16 compute coordinates and blends in
float32 and round once: CPU's bfloat16 kernel works in bfloat16 (so it can
even pick another pixel), and russet is compared with CPU's float32 result
rounded."""

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


SPECIAL = [float("nan"), float("inf"), -float("inf"), 1e30, -1e30, 1e10, -1e10, 3e7, -7e6, 0.25]


@pytest.mark.parametrize("dims", [2, 3])
@pytest.mark.parametrize("mode", ["bilinear", "nearest"])
@pytest.mark.parametrize("padding_mode", ["zeros", "border", "reflection"])
def test_special_grid_values(dims, mode, padding_mode):
    """NaN, infinite and huge grid values give CPU's results (its 2-d
    forward clips NaN to 0 under border/reflection, its 3-d one to size - 1;
    bilinear's weights make NaN under zeros padding in 2-d). CPU's 2-d
    backward crashes (segfaults) on NaN, infinite and huge positions (an
    out-of-bounds write), so gradients are compared in 3-d only, and in 2-d
    russet must leave a NaN point out of the input's gradient."""
    torch.manual_seed(2)
    for align_corners in (False, True):
        x = torch.randn(1, 2, *([3] * dims))
        grid = torch.tensor(SPECIAL * dims).reshape(1, *([1] * (dims - 1)), len(SPECIAL), dims)
        if dims == 3:
            grid = grid[..., [2, 0, 1]]
        kw = dict(mode=mode, padding_mode=padding_mode, align_corners=align_corners)
        got = host_free(lambda: F.grid_sample(x.to(D), grid.to(D), **kw))
        assert_close(got.cpu(), F.grid_sample(x, grid, **kw), equal_nan=True)
        if dims == 2:
            continue
        xc, gc = x.clone().requires_grad_(), grid.clone().requires_grad_()
        xd, gd = x.to(D).requires_grad_(), grid.to(D).requires_grad_()
        yc, yd = F.grid_sample(xc, gc, **kw), F.grid_sample(xd, gd, **kw)
        go = torch.randn(yc.shape)
        yc.backward(go)
        host_free(lambda: yd.backward(go.to(D)))
        assert_close(xd.grad.cpu(), xc.grad, equal_nan=True)
        assert_close(gd.grad.cpu(), gc.grad, equal_nan=True)
    if dims == 2 and padding_mode == "zeros":
        # a NaN point adds nothing to the input's gradient
        grid = torch.tensor([[[[float("nan"), 0.1], [0.2, -0.3]]]])
        xd = x.to(D).requires_grad_()
        F.grid_sample(xd, grid.to(D), **kw).sum().backward()
        xc = x.clone().requires_grad_()
        F.grid_sample(xc, grid[:, :, 1:], **kw).sum().backward()
        assert_close(xd.grad.cpu(), xc.grad)


def test_input_gradient_is_deterministic_and_matches_cpu():
    """many grid points on few pixels (the engine's sorted index sum, no
    atomics): the same bits on every run, and CPU's values"""
    torch.manual_seed(3)
    x = torch.randn(2, 3, 6, 5)
    grid = torch.rand(2, 40, 30, 2) * 2.2 - 1.1
    g = torch.randn(2, 3, 40, 30)
    xc = x.clone().requires_grad_()
    F.grid_sample(xc, grid, align_corners=False).backward(g)
    grads = []
    for _ in range(2):
        xd = x.to(D).requires_grad_()
        host_free(lambda: F.grid_sample(xd, grid.to(D), align_corners=False).backward(g.to(D)))
        grads.append(xd.grad.cpu())
    assert torch.equal(grads[0], grads[1])
    assert_close(grads[0], xc.grad, rtol=1e-5, atol=1e-5)
