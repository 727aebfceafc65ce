"""binary_cross_entropy and its backward against CPU: OpInfo samples for
every dtype CPU supports, CPU's per-step rounding in float16/bfloat16,
weights, reductions, the ends of [0, 1], empty inputs, and CPU's errors for
values outside [0, 1] (raised by the device at the next sync). Not bit for
bit: russet's float32 log/log1p are within an ulp of glibc's, not equal."""

import pytest
import torch
import torch.nn.functional as F
from torch.testing import assert_close

from opinfo_check import check_opinfo, host_free

D = "russet"
DTYPES = [torch.float16, torch.bfloat16, torch.float32]


def test_opinfo_samples_match_cpu():
    check_opinfo("nn.functional.binary_cross_entropy")


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
@pytest.mark.parametrize("weighted", [False, True])
def test_forward_and_backward(dtype, reduction, weighted):
    torch.manual_seed(3)
    # include the ends of [0, 1] (log terms clamped at -100) and values near them
    x = torch.cat([torch.rand(37), torch.tensor([0.0, 1.0, 1e-30, 1 - 1e-7])]).to(dtype).view(-1, 1)
    y = torch.cat([torch.rand(37), torch.tensor([1.0, 0.0, 0.5, 1.0])]).to(dtype).view(-1, 1)
    w = (torch.rand(41, 1) + 0.5).to(dtype) if weighted else None
    xc = x.clone().requires_grad_()
    xd = x.to(D).requires_grad_()
    lc = F.binary_cross_entropy(xc, y, w, reduction=reduction)
    ld = host_free(lambda: F.binary_cross_entropy(xd, y.to(D), None if w is None else w.to(D), reduction=reduction))
    assert_close(ld.detach().cpu(), lc.detach())
    g = torch.rand(lc.shape).to(dtype)
    lc.backward(g)
    host_free(lambda: ld.backward(g.to(D)))
    # (float16: 1 - x rounds to 0 at x = 1 - 1e-7, and CPU's 1e-12 floor
    # underflows, so that gradient is NaN on both)
    assert_close(xd.grad.cpu(), xc.grad, equal_nan=True)


def test_out_and_empty():
    x, y = torch.rand(3, 4), torch.rand(3, 4)
    out = torch.empty(0, device=D)
    host_free(lambda: torch.ops.aten.binary_cross_entropy.out(x.to(D), y.to(D), None, 0, out=out))
    assert_close(out.cpu(), F.binary_cross_entropy(x, y, reduction="none"))
    e = torch.empty(0, 3)
    for red in ("none", "sum", "mean"):
        assert_close(F.binary_cross_entropy(e.to(D), e.to(D), reduction=red).cpu(),
                     F.binary_cross_entropy(e, e, reduction=red), equal_nan=True)


@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
def test_warns_only_where_cpu_does(reduction):
    """the functional form, and out= into a tensor shaped like the input (as
    CPU's functional form hands its out= kernel), give no warning, as on CPU
    (CPU's and CUDA's kernels resize it to the reduced loss silently): a
    reduced loss once warned that an output with elements was resized"""
    import warnings
    x, y, w = torch.rand(4, 5), torch.rand(4, 5), torch.rand(5)
    for dev in ("cpu", D):
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            got = F.binary_cross_entropy(x.to(dev), y.to(dev), w.to(dev), reduction=reduction)
            out = torch.empty(4, 5, device=dev)
            torch.ops.aten.binary_cross_entropy.out(x.to(dev), y.to(dev), None, 1, out=out)
        assert_close(got.cpu(), F.binary_cross_entropy(x, y, w, reduction=reduction))
        assert_close(out.cpu(), F.binary_cross_entropy(x, y))


@pytest.mark.parametrize("bad,which", [([0.5, 1.5], "input"), ([-0.1, 0.5], "input"), ([float("nan"), 0.5], "input")])
def test_input_outside_unit_interval_raises_like_cpu(bad, which):
    x, y = torch.tensor(bad), torch.tensor([0.0, 1.0])
    with pytest.raises(RuntimeError, match=f"all elements of {which} should be between 0 and 1"):
        F.binary_cross_entropy(x, y)
    with pytest.raises(RuntimeError, match=f"all elements of {which} should be between 0 and 1"):
        F.binary_cross_entropy(x.to(D), y.to(D)).cpu()
    # the device is usable afterwards
    assert F.binary_cross_entropy(torch.full((2,), 0.5, device=D), torch.zeros(2, device=D)).cpu().isfinite()


def test_target_outside_unit_interval_raises_like_cpu():
    x, y = torch.tensor([0.5, 0.5]), torch.tensor([0.0, 2.0])
    with pytest.raises(RuntimeError, match="all elements of target should be between 0 and 1"):
        F.binary_cross_entropy(x, y)
    with pytest.raises(RuntimeError, match="all elements of target should be between 0 and 1"):
        F.binary_cross_entropy(x.to(D), y.to(D)).cpu()
