"""mse_loss, smooth_l1_loss, huber_loss (and l1_loss, which composes on
native ops) against CPU: OpInfo samples for every dtype CPU supports (native
but float64 under apple), and their gradients through autograd."""

import pytest
import torch
import torch.nn.functional as F
from torch.testing import assert_close

from opinfo_check import check_opinfo

D = "russet"

OPS = ["nn.functional.mse_loss", "nn.functional.smooth_l1_loss", "nn.functional.huber_loss",
       "nn.functional.l1_loss"]


@pytest.mark.parametrize("name", OPS)
def test_matches_cpu(name):
    # l1_loss has samples mixing complex64 with float64 0-dim tensors: they
    # promote to complex128, host execution under the apple profile
    check_opinfo(name, native=name != "nn.functional.l1_loss")


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("fn", [lambda a, b, r: F.mse_loss(a, b, reduction=r),
                                lambda a, b, r: F.smooth_l1_loss(a, b, reduction=r, beta=0.7),
                                lambda a, b, r: F.smooth_l1_loss(a, b, reduction=r, beta=0.0),
                                lambda a, b, r: F.huber_loss(a, b, reduction=r, delta=0.4),
                                lambda a, b, r: F.l1_loss(a, b, reduction=r)])
def test_gradients_native(fn, reduction):
    a, b = torch.randn(5, 7), torch.randn(5, 7)
    ac, ad = a.clone().requires_grad_(), a.to(D).requires_grad_()
    lc = fn(ac, b, reduction)
    torch.russet.reset_host_op_counts()
    ld = fn(ad, b.to(D), reduction)
    g = torch.randn(lc.shape)
    lc.backward(g)
    ld.backward(g.to(D))
    assert torch.russet.host_op_counts() == {}, torch.russet.host_op_counts()
    assert_close(ld.detach().cpu(), lc.detach())
    assert_close(ad.grad.cpu(), ac.grad)


def test_bad_arguments():
    a = torch.randn(3, device=D)
    with pytest.raises(RuntimeError, match="negative values for beta"):
        F.smooth_l1_loss(a, a, beta=-1.0)
    with pytest.raises(RuntimeError, match="non-positive values for delta"):
        F.huber_loss(a, a, delta=0.0)


def test_mse_float16_rounds_like_cpu():
    # CPU rounds the difference to float16 before squaring: bit-equal here
    torch.manual_seed(0)
    a, b = (torch.randn(4096) * 10).half(), (torch.randn(4096) * 10).half()
    got = F.mse_loss(a.to(D), b.to(D), reduction="none").cpu()
    assert torch.equal(got, F.mse_loss(a, b, reduction="none"))


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16, torch.float16])
@pytest.mark.parametrize("name", ["mse_loss", "smooth_l1_loss", "huber_loss"])
def test_aten_ops_broadcast_strided_and_out(name, dtype):
    # the aten ops themselves (F.* broadcasts before them): a target that
    # broadcasts, a transposed input, a 0-dim upstream gradient, out= of
    # another shape (resized, as CPU does), all with no host op
    op = getattr(torch.ops.aten, name)
    extra = {"mse_loss": [], "smooth_l1_loss": [0.5], "huber_loss": [0.8]}[name]
    g = torch.Generator().manual_seed(3)
    a = torch.randn(7, 5, generator=g).to(dtype).t()
    b = torch.randn(1, 7, generator=g).to(dtype)
    torch.russet.reset_host_op_counts()
    for reduction in (0, 1, 2):
        want = op(a, b, reduction, *extra)
        got = op(a.to(D), b.to(D), reduction, *extra)
        assert_close(got.cpu(), want, atol=1e-2 if dtype != torch.float32 else 1e-6, rtol=1e-2)
        gout = torch.randn(want.shape, generator=g).to(dtype)
        bw = getattr(torch.ops.aten, name + "_backward")
        gw = bw(gout, a, b, reduction, *extra)
        gd = bw(gout.to(D), a.to(D), b.to(D), reduction, *extra)
        assert_close(gd.cpu(), gw, atol=1e-2 if dtype != torch.float32 else 1e-6, rtol=1e-2)
    out = torch.empty(3, dtype=dtype, device=D)
    getattr(torch.ops.aten, name).out(a.to(D), b.to(D), 1, *extra, out=out)
    assert out.shape == () and torch.russet.host_op_counts() == {}, torch.russet.host_op_counts()


def test_other_dtypes_refuse_as_cpu():
    # integer inputs: CPU has no kernel for them; russet gives CPU's error
    # (smooth_l1 through host execution, which runs CPU's kernel)
    a, b = torch.arange(6).view(2, 3), torch.ones(2, 3, dtype=torch.long)
    for fn, kernel in ((lambda x, y: F.mse_loss(x, y), "mse_cpu"), (lambda x, y: F.smooth_l1_loss(x, y), "smooth_l1_cpu"),
                       (lambda x, y: F.huber_loss(x, y), "huber_cpu")):
        with pytest.raises(NotImplementedError, match=kernel):
            fn(a, b)
        with pytest.raises(NotImplementedError, match=kernel):
            fn(a.to(D), b.to(D))
