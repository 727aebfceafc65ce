"""Convolution runs through host execution (no native kernel yet): every
conv OpInfo matches CPU, is counted as host execution, and nn.Conv2d trains
(forward and backward). Before, convolution_overrideable had no kernel and
every conv layer failed."""

import pytest
import torch
import torch.nn.functional as F
from torch.testing import assert_close

from opinfo_check import check_opinfo

D = "russet"

OPS = ["nn.functional.conv1d", "nn.functional.conv2d", "nn.functional.conv3d",
       "nn.functional.conv_transpose1d", "nn.functional.conv_transpose2d", "nn.functional.conv_transpose3d"]


@pytest.mark.parametrize("name", OPS)
def test_conv_opinfo_matches_cpu_through_the_host(name):
    check_opinfo(name, native=False, max_samples=6)


def test_conv2d_layer_trains_and_is_counted_as_host():
    torch.manual_seed(0)
    conv = torch.nn.Conv2d(3, 4, 3, stride=2, padding=1, groups=1)
    convd = torch.nn.Conv2d(3, 4, 3, stride=2, padding=1).to(D)
    convd.load_state_dict(conv.state_dict())
    x = torch.randn(2, 3, 9, 9, requires_grad=True)
    xd = x.detach().to(D).requires_grad_()
    torch.russet.reset_host_op_counts()
    yd = convd(xd)
    y = conv(x)
    assert_close(yd.detach().cpu(), y.detach(), rtol=1e-5, atol=1e-5)
    g = torch.randn(y.shape)
    y.backward(g)
    yd.backward(g.to(D))
    counts = torch.russet.host_op_counts()
    assert counts.get("aten::convolution_overrideable") == 1, counts
    assert counts.get("aten::convolution_backward_overrideable") == 1, counts
    assert_close(xd.grad.cpu(), x.grad, rtol=1e-5, atol=1e-5)
    assert_close(convd.weight.grad.cpu(), conv.weight.grad, rtol=1e-5, atol=1e-5)
    assert_close(convd.bias.grad.cpu(), conv.bias.grad, rtol=1e-5, atol=1e-5)


def test_grouped_transposed_conv():
    x = torch.randn(2, 4, 5)
    w = torch.randn(4, 3, 3)
    got = F.conv_transpose1d(x.to(D), w.to(D), groups=2, stride=2, output_padding=1).cpu()
    assert_close(got, F.conv_transpose1d(x, w, groups=2, stride=2, output_padding=1))


def test_conv_with_a_cpu_weight_is_a_device_error():
    with pytest.raises(RuntimeError, match="same device"):
        F.conv2d(torch.randn(1, 1, 4, 4, device=D), torch.randn(1, 1, 3, 3))
