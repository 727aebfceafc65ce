"""F.interpolate (nearest, nearest-exact, linear, bilinear, trilinear,
bicubic) and
its backward natively (src/torch/ops/upsample.cpp) against CPU: OpInfo
samples for every dtype CPU supports (float16/bfloat16: the float32
computation rounded once; uint8 bilinear/bicubic, antialiased or not: CPU's
fixed-point algorithm, bit for bit; float64 under apple: host),
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
    check_opinfo("nn.functional.interpolate", mode)


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


@pytest.mark.parametrize("mode", ["bilinear", "bicubic"])
@pytest.mark.parametrize("antialias", [False, True])
def test_uint8_is_cpus_fixed_point_bit_for_bit(mode, antialias):
    # torchvision's Resize on uint8 images: CPU's int16 weights with their
    # precision, a uint8 result after each dim (any channel count and
    # layout: every CPU path gives these bits)
    g = torch.Generator().manual_seed(1)
    shapes = [((8, 8), (12, 12)), ((16, 12), (7, 5)), ((5, 9), (5, 20)), ((32, 32), (3, 3)), ((3, 3), (40, 33)),
              ((10, 10), (10, 10)), ((1, 7), (4, 3)), ((100, 64), (17, 29))]
    for (h, w), size in shapes:
        for c, cl in ((3, False), (3, True), (1, False), (6, False), (4, True)):
            for ac in (False, True):
                x = torch.randint(0, 256, (2, c, h, w), dtype=torch.uint8, generator=g)
                if cl:
                    x = x.contiguous(memory_format=torch.channels_last)
                kw = dict(size=size, mode=mode, antialias=antialias, align_corners=ac)
                want = F.interpolate(x, **kw)
                got = host_free(lambda: F.interpolate(x.to(D), **kw))
                assert torch.equal(got.cpu(), want) and got.stride() == want.stride(), (kw, c, cl, (h, w))
    x = torch.randint(0, 256, (1, 3, 23, 34), dtype=torch.uint8, generator=g)[..., ::2]  # strided
    for sf in (0.37, 1.7, 2.0, 0.5, 3.3):
        kw = dict(scale_factor=sf, mode=mode, antialias=antialias, recompute_scale_factor=False)
        assert torch.equal(host_free(lambda: F.interpolate(x.to(D), **kw)).cpu(), F.interpolate(x, **kw)), sf


def test_uint8_without_a_cpu_kernel_raises_as_cpu():
    # uint8 linear (1-d) and trilinear: CPU has no kernel; russet gives its error
    for shape, mode in (((1, 2, 6), "linear"), ((1, 2, 3, 4, 5), "trilinear")):
        x = torch.randint(0, 255, shape, dtype=torch.uint8)
        with pytest.raises(RuntimeError, match="not implemented for 'Byte'"):
            F.interpolate(x, scale_factor=2, mode=mode)
        with pytest.raises(RuntimeError, match="not implemented for 'Byte'"):
            F.interpolate(x.to(D), scale_factor=2, mode=mode)
    x = torch.randint(0, 255, (1, 2, 5, 5), dtype=torch.uint8)
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


def test_antialiased_float64():
    # float64 under the apple profile: host, exactly CPU
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
