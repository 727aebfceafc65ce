"""softmax, log_softmax, nll_loss and cross_entropy against CPU: OpInfo
samples for every dtype CPU supports (native but float64 under apple),
gradients through autograd, other dims and layouts, bad targets."""

import pytest
import torch
import torch.nn.functional as F
from torch.testing import assert_close

from opinfo_check import FP64_HOST, check_opinfo, host_free

D = "russet"

OPS = [("softmax", ""), ("softmax", "with_dtype"), ("log_softmax", ""), ("log_softmax", "with_dtype"),
       ("_softmax_backward_data", ""), ("nn.functional.nll_loss", ""), ("nn.functional.cross_entropy", "")]


@pytest.mark.parametrize("name,variant", OPS, ids=[f"{n}.{v}" if v else n for n, v in OPS])
def test_matches_cpu(name, variant):
    # the with_dtype samples compute in float64 (dtype=torch.float64): host
    # execution under the apple profile whatever the input dtype
    check_opinfo(name, variant, native=variant != "with_dtype", host_dtypes=FP64_HOST)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.bfloat16])
@pytest.mark.parametrize("shape,dim", [((7, 1000), 1), ((1000, 7), 0), ((3, 50, 9), 1), ((2, 3, 4, 5), -1),
                                       ((5,), 0), ((), 0), ((4, 0), 1)])
def test_softmax_dims_and_gradients(dtype, shape, dim):
    x = torch.randn(shape).to(dtype)
    for fn in (F.softmax, F.log_softmax):
        xc = x.clone().requires_grad_()
        xd = x.to(D).requires_grad_()
        yc, yd = fn(xc, dim), host_free(lambda: fn(xd, dim))
        assert_close(yd.detach().cpu(), yc.detach())
        g = torch.randn(shape).to(dtype)
        yc.backward(g)
        host_free(lambda: yd.backward(g.to(D)))
        if dtype == torch.float32:
            assert_close(xd.grad.cpu(), xc.grad)
            continue
        # float16/bfloat16: the backward's g - sum(...) cancels, and CPU's
        # reduced-precision kernel rounds intermediates its own way. The
        # reference is the backward formula in float32 over the same
        # (rounded) g and y that russet's backward got (y: russet's forward,
        # within one ulp of CPU's, checked above), rounded once to the dtype.
        gf, yf = g.float(), yd.detach().cpu().float()
        d = dim if len(shape) else 0
        if fn is F.softmax:
            ref = yf * (gf - (gf * yf).sum(d, keepdim=True)) if len(shape) else yf * 0
        else:
            ref = gf - torch.exp(yf) * gf.sum(d, keepdim=True) if len(shape) else gf * 0
        assert_close(xd.grad.cpu(), ref.to(dtype))


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16])
@pytest.mark.parametrize("n", [4096, 4093, 4100, 61])
def test_softmax_long_rows_every_kernel_path(dtype, n):
    """Rows of up to 4096 elements are held in registers (float32 rows of
    n % 4 == 0 through 16-byte accesses); longer rows take three passes.
    Forward and backward of both ops against CPU, with extremes in a row."""
    torch.manual_seed(n)
    x = torch.randn(3, n).to(dtype)
    x[1, 7] = float("-inf")
    x[2, n - 1] = 30.0
    g = torch.randn(3, n).to(dtype)
    for fn in (F.softmax, F.log_softmax):
        xc = x.float().clone().requires_grad_()
        xd = x.to(D).requires_grad_()
        yc, yd = fn(xc, 1), host_free(lambda: fn(xd, 1))
        assert_close(yd.detach().cpu(), yc.detach().to(dtype))
        yc.backward(g.float())
        host_free(lambda: yd.backward(g.to(D)))
        if dtype == torch.float16:
            assert_close(xd.grad.cpu().float(), xc.grad, atol=2e-3, rtol=2e-2)
        else:
            grad_within_row_sum_rounding(fn, x, g, xd.grad.cpu())


def grad_within_row_sum_rounding(fn, x, g, got):
    """A float32 softmax/log_softmax gradient against float64: each element
    within assert_close's float32 tolerance plus the rounding of the row's
    sum, which the backward scales by the element's probability p:
    log_softmax's g - p * sum(g), softmax's p * (g - sum(g * p)). Where p is
    near 1 (the 30.0 in a row of randn) that sum of 4096 terms decides the
    result, and any two float32 summation orders (CPU's, the GPU's) differ by
    up to ~1e-5 there; a lost or doubled term is off by ~|g|, far outside."""
    x64 = x.double().requires_grad_()
    y64 = fn(x64, 1)
    y64.backward(g.double())
    p = (y64.exp() if fn is F.log_softmax else y64).detach()
    terms = g.double().abs() if fn is F.log_softmax else (g.double() * p).abs()
    sum_rounding = 8 * torch.finfo(torch.float32).eps * terms.sum(1, keepdim=True) * p
    err = (got.double() - x64.grad).abs()
    bound = 1e-5 + 1.3e-6 * x64.grad.abs() + sum_rounding
    worst = (err / bound).max().item()
    assert worst <= 1, f"{fn.__name__} gradient {worst:.2f} times its bound (row-sum rounding included)"


def test_softmax_of_transposed_input_and_extremes():
    x = torch.randn(6, 9)
    x[0] = float("-inf")
    x[1, 3] = float("inf")
    x[2, 4] = float("nan")
    x[3] = 1e30
    for t in (x, x.t()):
        for dim in (0, 1):
            assert_close(F.softmax(t.to(D), dim).cpu(), F.softmax(t, dim), equal_nan=True)
            assert_close(F.log_softmax(t.to(D), dim).cpu(), F.log_softmax(t, dim), equal_nan=True)


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("weighted", [False, True])
def test_cross_entropy_1d_and_2d_with_ignore_index(reduction, weighted):
    for shape, tshape in [((8, 5), (8,)), ((2, 5, 3, 4), (2, 3, 4)), ((5,), ())]:
        x = torch.randn(shape)
        t = torch.randint(0, 5, tshape)
        if t.dim():
            t.view(-1)[::3] = -100
        w = torch.rand(5) if weighted else None
        xc = x.clone().requires_grad_()
        xd = x.to(D).requires_grad_()
        lc = F.cross_entropy(xc, t, weight=w, reduction=reduction)
        ld = host_free(lambda: F.cross_entropy(xd, t.to(D), weight=None if w is None else w.to(D),
                                               reduction=reduction))
        assert_close(ld.detach().cpu(), lc.detach(), equal_nan=True)
        g = torch.rand(lc.shape)
        lc.backward(g)
        host_free(lambda: ld.backward(g.to(D)))
        assert_close(xd.grad.cpu(), xc.grad, equal_nan=True)


def test_all_targets_ignored_gives_nan_like_cpu():
    x = torch.randn(3, 4)
    t = torch.full((3,), -100)
    assert_close(F.nll_loss(x.to(D), t.to(D)).cpu(), F.nll_loss(x, t), equal_nan=True)


def test_target_out_of_range_raises_at_sync():
    x = torch.randn(3, 4, device=D)
    F.nll_loss(x, torch.tensor([0, 7, 1], device=D))
    with pytest.raises(RuntimeError, match="out of bounds"):
        torch.russet.synchronize()
    F.nll_loss(x, torch.tensor([0, 1, 1], device=D))
    torch.russet.synchronize()


def test_bad_shapes_raise_like_cpu():
    x = torch.randn(3, 4, device=D)
    with pytest.raises(ValueError):
        F.nll_loss(x, torch.tensor([0, 1], device=D))
    with pytest.raises(RuntimeError, match="weight tensor should be defined"):
        F.nll_loss(x, torch.tensor([0, 1, 2], device=D), weight=torch.ones(3, device=D))
    with pytest.raises(IndexError):
        F.softmax(x, 2)


def test_nll_loss_with_a_target_or_weight_on_another_device_is_a_device_error():
    # as CUDA: a CPU target was read as device memory
    x = torch.randn(4, 5, device="russet")
    with pytest.raises(RuntimeError, match="same device"):
        F.cross_entropy(x, torch.tensor([0, 1, 2, 3]))
    with pytest.raises(RuntimeError, match="same device"):
        F.nll_loss(x, torch.tensor([0, 1, 2, 3], device="russet"), weight=torch.ones(5))
    with pytest.raises(RuntimeError, match="same device"):
        F.nll_loss(torch.randn(2, 5, 3, 3, device="russet"), torch.zeros(2, 3, 3, dtype=torch.long))
