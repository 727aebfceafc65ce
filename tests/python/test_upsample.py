"""F.interpolate (nearest, nearest-exact, linear, bilinear, trilinear,
bicubic) and
its backward natively (src/torch/ops/upsample.cpp) against CPU: OpInfo
samples for every dtype CPU supports (float16/bfloat16: the float32
computation rounded once; uint8 bilinear/bicubic and float64 under apple:
host),
scale factors, align_corners, gradients."""

import pytest
import torch
import torch.nn.functional as F
from torch.testing import assert_close

from opinfo_check import check_opinfo, host_free

D = "russet"
MODES = ["nearest", "nearest-exact", "linear", "bilinear", "trilinear", "bicubic"]


@pytest.mark.parametrize("mode", MODES)
def test_opinfo_samples_match_cpu(mode):
    op_dtypes = None
    if mode in ("bilinear", "bicubic"):
        # uint8 bilinear/bicubic: CPU's fixed-point kernels, served on the host
        op_dtypes = [torch.float16, torch.bfloat16, torch.float32]
    check_opinfo("nn.functional.interpolate", mode, dtypes=op_dtypes)


@pytest.mark.parametrize("mode,shape", [("nearest", (2, 3, 5, 4)), ("nearest-exact", (1, 2, 4, 5)),
                                        ("linear", (2, 3, 7)), ("bilinear", (2, 2, 5, 6)),
                                        ("trilinear", (1, 2, 3, 4, 5)), ("nearest", (1, 1, 3, 4, 2)),
                                        ("bicubic", (2, 2, 5, 6))])
@pytest.mark.parametrize("how", [dict(scale_factor=2), dict(scale_factor=0.6), dict(size="odd")])
def test_values_and_gradients(mode, shape, how):
    torch.manual_seed(0)
    kw = dict(how)
    if kw.get("size") == "odd":
        kw["size"] = tuple(s * 2 + 1 for s in shape[2:])
    if mode in ("linear", "bilinear", "trilinear", "bicubic"):
        kw["align_corners"] = shape[0] == 2
    x = torch.randn(shape)
    xc, xd = x.clone().requires_grad_(), x.to(D).requires_grad_()
    yc = F.interpolate(xc, mode=mode, **kw)
    yd = host_free(lambda: F.interpolate(xd, mode=mode, **kw))
    assert_close(yd.detach().cpu(), yc.detach(), rtol=1e-5, atol=1e-5)
    g = torch.randn(yc.shape)
    yc.backward(g)
    host_free(lambda: yd.backward(g.to(D)))
    assert_close(xd.grad.cpu(), xc.grad, rtol=1e-5, atol=1e-5)


def test_uint8_bilinear_goes_through_the_counted_host_path():
    x = torch.randint(0, 255, (1, 2, 5, 5), dtype=torch.uint8)
    torch.russet.reset_host_op_counts()
    got = F.interpolate(x.to(D), scale_factor=2, mode="bilinear")
    assert torch.russet.host_op_counts()
    assert torch.equal(got.cpu(), F.interpolate(x, scale_factor=2, mode="bilinear"))
    assert torch.equal(host_free(lambda: F.interpolate(x.to(D), scale_factor=2, mode="nearest")).cpu(),
                       F.interpolate(x, scale_factor=2, mode="nearest"))


@pytest.mark.parametrize("mode", ["bilinear", "bicubic"])
@pytest.mark.parametrize("size,kw", [((7, 5), {}), ((3, 11), {}), ((16, 9), {}), ((9, 20), {}),
                                     (None, {"scale_factor": (0.37, 0.5)}), (None, {"scale_factor": (2.5, 0.25)}),
                                     ((4, 13), {"align_corners": True}), ((13, 4), {"align_corners": True}),
                                     ((9, 3), {})])
def test_antialiased_matches_cpu(mode, size, kw):
    # torchvision's Resize(antialias=True): _upsample_bilinear2d_aa / _upsample_bicubic2d_aa,
    # down- and upsampling, one dim unchanged (9 -> 9), forward and backward
    g = torch.Generator().manual_seed(0)
    x = torch.randn(2, 3, 9, 13, generator=g)
    args = dict(mode=mode, antialias=True, **kw)
    if size is not None:
        args["size"] = size
    want = F.interpolate(x, **args)
    got = host_free(lambda: F.interpolate(x.to(D), **args)).cpu()
    assert_close(got, want, atol=2e-5, rtol=1e-5)
    xc = x.clone().requires_grad_(True)
    xd = x.to(D).requires_grad_(True)
    gout = torch.randn(want.shape, generator=g)
    F.interpolate(xc, **args).backward(gout)
    torch.russet.reset_host_op_counts()
    F.interpolate(xd, **args).backward(gout.to(D))
    assert torch.russet.host_op_counts() == {}
    assert_close(xd.grad.cpu(), xc.grad, atol=2e-5, rtol=1e-5)


def test_antialiased_host_dtypes():
    # uint8 (CPU's fixed-point kernel) and float64 under the apple profile: host, exactly CPU
    x = torch.randint(0, 255, (1, 3, 10, 12), dtype=torch.uint8)
    assert torch.equal(F.interpolate(x.to(D), size=(4, 5), mode="bilinear", antialias=True).cpu(),
                       F.interpolate(x, size=(4, 5), mode="bilinear", antialias=True))
    xd = torch.randn(1, 2, 8, 8, dtype=torch.float64)
    for mode in ("bicubic", "bilinear"):
        got = F.interpolate(xd.to(D), size=(3, 3), mode=mode, antialias=True).cpu()
        want = F.interpolate(xd, size=(3, 3), mode=mode, antialias=True)
        if torch.russet.get_device_properties().profile == "apple":
            assert torch.equal(got, want)
        else:  # float64 natively: the weights made in float64, as CPU's
            assert_close(got, want, rtol=1e-12, atol=1e-12)
            xc, xr = xd.clone().requires_grad_(True), xd.to(D).requires_grad_(True)
            F.interpolate(xc, size=(3, 5), mode=mode, antialias=True).sum().backward()
            F.interpolate(xr, size=(3, 5), mode=mode, antialias=True).sum().backward()
            assert_close(xr.grad.cpu(), xc.grad, rtol=1e-12, atol=1e-12)


def test_special_values_layouts_and_repeatability_like_cpu():
    # a dim whose size does not change still takes CPU's weights (1, 0):
    # inf * 0 makes the NaNs CPU shows
    x = torch.tensor([[[[float("inf"), 1.0], [2.0, float("nan")]]]])
    for mode, size in [("bilinear", (2, 4)), ("bicubic", (2, 2)), ("bilinear", (3, 2)), ("nearest", (2, 5))]:
        want = F.interpolate(x, size=size, mode=mode)
        got = host_free(lambda: F.interpolate(x.to(D), size=size, mode=mode)).cpu()
        assert torch.equal(got.isnan(), want.isnan()), (mode, size)
        assert_close(got, want, equal_nan=True)
    # channels_last in, channels_last out (as CPU), the same values
    torch.manual_seed(1)
    x = torch.randn(2, 5, 6, 7).contiguous(memory_format=torch.channels_last)
    for mode in ["nearest", "bilinear", "bicubic"]:
        want = F.interpolate(x, scale_factor=1.5, mode=mode)
        got = host_free(lambda: F.interpolate(x.to(D), scale_factor=1.5, mode=mode))
        assert got.is_contiguous(memory_format=torch.channels_last) == want.is_contiguous(
            memory_format=torch.channels_last)
        assert_close(got.cpu(), want, rtol=1e-5, atol=1e-5)
    # the backward gathers in a fixed order: the same bits every run
    xd = torch.randn(1, 3, 9, 11, device=D, requires_grad=True)
    g = torch.randn(1, 3, 20, 7, device=D)
    runs = [torch.autograd.grad(F.interpolate(xd, size=(20, 7), mode="bicubic"), xd, g)[0].cpu() for _ in range(2)]
    assert torch.equal(runs[0], runs[1])
