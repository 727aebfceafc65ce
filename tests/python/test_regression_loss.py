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
