"""Convolution natively (src/torch/ops/conv.cpp on the C core's implicit-GEMM
engine, rs_conv_run): every conv OpInfo (1-d, 2-d, 3-d,
transposed; strides, padding incl. 'same', dilation, groups) for every dtype
CPU supports, forward and backward, with no host execution except float64
under the apple profile (complex: ATen splits it into real convolutions).

Float sums in another order than CPU's differ from CPU by rounding, and conv
samples with cancellation put that beyond assert_close's float32 default.
So each result is measured against the float64 computation of the same
inputs: russet must be as accurate as CPU (within 2x of CPU's own error, or
a few ulps of the result's scale), which a wrong kernel cannot pass. Model
shapes (ResNet's stem, 3x3 and strided 1x1 layers), channels_last inputs
(contiguous results, as torch.compile plans them), the split weight gradient, float16/bfloat16 gradients
and repeatability are tested the same way."""

import os

import pytest
import torch
import torch.nn.functional as F
from torch.testing import assert_close
from torch.testing._internal.common_methods_invocations import op_db

from opinfo_check import check_opinfo, host_free, moved as _to

D = "russet"
OPS = ["nn.functional.conv1d", "nn.functional.conv2d", "nn.functional.conv3d",
       "nn.functional.conv_transpose1d", "nn.functional.conv_transpose2d", "nn.functional.conv_transpose3d"]


def as_accurate_as_cpu(got, cpu, exact, dtype, what):
    got, cpu, exact = got.double(), cpu.double(), exact.double()
    if not dtype.is_floating_point:
        assert torch.equal(got, cpu), what
        return
    scale = exact.abs().max().item() if exact.numel() else 0.0
    floor = 4 * torch.finfo(dtype).eps * max(scale, 1.0)
    err, cpu_err = (got - exact).abs().max().item(), (cpu - exact).abs().max().item()
    assert err <= max(2 * cpu_err, floor), f"{what}: russet error {err:.3g}, CPU's {cpu_err:.3g}, scale {scale:.3g}"


@pytest.mark.parametrize("name", OPS)
def test_conv_opinfo_forward_and_backward(name):
    op = next(o for o in op_db if o.name == name and o.variant_test_name == "")
    torch.manual_seed(0)
    checked = 0
    for dtype in sorted(op.supported_dtypes("cpu"), key=str):
        if dtype in (torch.float64, torch.complex128) or dtype.is_complex:
            continue
        grad = dtype == torch.float32
        for i, s in enumerate(list(op.sample_inputs("cpu", dtype, requires_grad=grad))[:8]):
            args, kw = [s.input] + list(s.args), s.kwargs
            what = f"{name} {dtype} sample {i}"
            ac = [a.detach().requires_grad_(grad) if isinstance(a, torch.Tensor) else a for a in args]
            ad = [a.detach().to(D).requires_grad_(grad) if isinstance(a, torch.Tensor) else a for a in args]
            cpu = op.op(*ac, **kw)
            exact = op.op(*_to(args, "cpu", torch.float64), **_to(kw, "cpu", torch.float64))
            got = host_free(lambda: op.op(*ad, **_to(kw, D)))
            assert got.dtype == cpu.dtype and got.shape == cpu.shape, what
            as_accurate_as_cpu(got.detach().cpu(), cpu.detach(), exact, dtype, what)
            if grad:
                g = torch.randn(cpu.shape)
                gc = torch.autograd.grad(cpu, [a for a in ac if isinstance(a, torch.Tensor)], g)
                gd = host_free(lambda: torch.autograd.grad(got, [a for a in ad if isinstance(a, torch.Tensor)],
                                                           g.to(D)))
                a64 = [a.detach().double().requires_grad_() if isinstance(a, torch.Tensor) else a for a in args]
                ge = torch.autograd.grad(op.op(*a64, **_to(kw, "cpu", torch.float64)),
                                         [a for a in a64 if isinstance(a, torch.Tensor)], g.double())
                for k, (x, y, z) in enumerate(zip(gd, gc, ge)):
                    as_accurate_as_cpu(x.cpu(), y, z, dtype, f"{what} grad {k}")
            checked += 1
    assert checked > 0


def test_conv2d_layer_trains_natively():
    torch.manual_seed(0)
    conv = torch.nn.Conv2d(3, 4, 3, stride=2, padding=1)
    convd = torch.nn.Conv2d(3, 4, 3, stride=2, padding=1).to(D)
    convd.load_state_dict(conv.state_dict())
    x = torch.randn(2, 3, 9, 9, requires_grad=True)
    xd = x.detach().to(D).requires_grad_()
    y = conv(x)
    yd = host_free(lambda: convd(xd))
    assert_close(yd.detach().cpu(), y.detach(), rtol=1e-5, atol=1e-5)
    g = torch.randn(y.shape)
    y.backward(g)
    host_free(lambda: yd.backward(g.to(D)))
    assert_close(xd.grad.cpu(), x.grad, rtol=1e-5, atol=1e-5)
    assert_close(convd.weight.grad.cpu(), conv.weight.grad, rtol=1e-5, atol=1e-5)
    assert_close(convd.bias.grad.cpu(), conv.bias.grad, rtol=1e-5, atol=1e-5)


def test_grouped_transposed_conv():
    x = torch.randn(2, 4, 5)
    w = torch.randn(4, 3, 3)
    got = host_free(lambda: F.conv_transpose1d(x.to(D), w.to(D), groups=2, stride=2, output_padding=1)).cpu()
    assert_close(got, F.conv_transpose1d(x, w, groups=2, stride=2, output_padding=1), rtol=1e-5, atol=1e-5)


def test_channels_last_empty_batch_and_unbatched():
    torch.manual_seed(1)
    x, w, b = torch.randn(2, 3, 6, 6), torch.randn(5, 3, 3, 3), torch.randn(5)
    xc = x.to(memory_format=torch.channels_last)
    got = host_free(lambda: F.conv2d(xc.to(D), w.to(D), b.to(D), padding=1))
    assert_close(got.cpu(), F.conv2d(xc, w, b, padding=1), rtol=1e-5, atol=1e-5)
    e = torch.randn(0, 3, 6, 6)
    assert_close(F.conv2d(e.to(D), w.to(D)).cpu(), F.conv2d(e, w))
    assert_close(F.conv2d(x[0].to(D), w.to(D)).cpu(), F.conv2d(x[0], w), rtol=1e-5, atol=1e-5)


def test_float64_under_apple_is_counted_host_and_complex_is_native():
    x, w = torch.randn(1, 2, 5, dtype=torch.float64), torch.randn(3, 2, 3, dtype=torch.float64)
    torch.russet.reset_host_op_counts()
    got = F.conv1d(x.to(D), w.to(D))
    counts = torch.russet.host_op_counts()
    assert_close(got.cpu(), F.conv1d(x, w))
    apple = os.environ.get("RUSSET_PROFILE", "apple") == "apple"
    assert counts.get("aten::convolution_overrideable", 0) == (1 if apple else 0), counts
    # complex64: F.conv* split it into real convolutions (ATen's
    # complex_convolution), which run natively
    xc, wc = x.to(torch.complex64), w.to(torch.complex64)
    got = host_free(lambda: F.conv1d(xc.to(D), wc.to(D)))
    assert_close(got.cpu(), F.conv1d(xc, wc), rtol=1e-5, atol=1e-5)


def test_conv_with_a_cpu_weight_or_bias_is_a_device_error():
    with pytest.raises(RuntimeError, match="same device"):
        F.conv2d(torch.randn(1, 1, 4, 4, device=D), torch.randn(1, 1, 3, 3))
    for fn in (F.conv2d, F.conv_transpose2d):
        with pytest.raises(RuntimeError, match="same device"):
            fn(torch.randn(1, 2, 4, 4, device=D), torch.randn(2, 2, 3, 3, device=D), torch.randn(2))


def test_unfold_opinfo_and_fold_like_cpu():
    check_opinfo("nn.functional.unfold")
    torch.manual_seed(3)
    for dtype in (torch.float32, torch.float16, torch.bfloat16, torch.complex64):
        x = torch.randn(2, 3 * 2 * 3, 12).to(dtype)
        kw = dict(output_size=(5, 6), kernel_size=(2, 3), dilation=(1, 1), padding=(1, 0), stride=(2, 1))
        got = host_free(lambda: F.fold(x.to(D), **kw))
        if dtype in (torch.float16, torch.bfloat16):
            # overlapping windows sum in float32 and round once (CPU's kernel
            # adds in the dtype): the float32 computation, rounded
            assert_close(got.cpu(), F.fold(x.float(), **kw).to(dtype))
        else:
            assert_close(got.cpu(), F.fold(x, **kw), rtol=1e-5, atol=1e-5)
    # fold and unfold are each other's backward
    t = torch.randn(1, 2, 6, 5)
    tc, td = t.clone().requires_grad_(), t.to(D).requires_grad_()
    F.unfold(tc, 3, padding=1, stride=2).pow(2).sum().backward()
    host_free(lambda: F.unfold(td, 3, padding=1, stride=2).pow(2).sum().backward())
    assert_close(td.grad.cpu(), tc.grad, rtol=1e-5, atol=1e-5)
    with pytest.raises(RuntimeError):
        F.fold(torch.randn(1, 7, 4, device=D), (3, 3), 2)


def grads_as_accurate_as_cpu(fn, args, dtype, what, g_seed=0):
    """fn(*args) and its gradients for every tensor arg, on russet (no host
    op), CPU and in float64, compared with as_accurate_as_cpu"""
    ac = [a.detach().to(dtype).requires_grad_() for a in args]
    ad = [a.detach().to(dtype).to(D).requires_grad_() for a in args]
    a64 = [a.detach().double().requires_grad_() for a in args]
    cpu, exact = fn(*ac), fn(*a64)
    got = host_free(lambda: fn(*ad))
    as_accurate_as_cpu(got.detach().cpu(), cpu.detach(), exact.detach(), dtype, what)
    torch.manual_seed(g_seed)
    g = torch.randn(cpu.shape)
    gc = torch.autograd.grad(cpu, ac, g.to(dtype))
    ge = torch.autograd.grad(exact, a64, g.double())
    gd = host_free(lambda: torch.autograd.grad(got, ad, g.to(dtype).to(D)))
    for k, (x, y, z) in enumerate(zip(gd, gc, ge)):
        as_accurate_as_cpu(x.cpu(), y, z, dtype, f"{what} grad {k}")
    return got, gd


@pytest.mark.parametrize("layer", ["stem", "3x3", "1x1-stride2", "depthwise"])
def test_resnet_layer_shapes_forward_and_backward(layer):
    torch.manual_seed(4)
    shapes = {  # input, weight, conv keywords
        "stem": ((2, 3, 40, 40), (16, 3, 7, 7), dict(stride=2, padding=3)),
        "3x3": ((2, 32, 12, 12), (32, 32, 3, 3), dict(padding=1)),
        "1x1-stride2": ((2, 32, 12, 12), (64, 32, 1, 1), dict(stride=2)),
        "depthwise": ((2, 24, 10, 10), (24, 1, 3, 3), dict(padding=1, groups=24)),
    }
    xs, ws, kw = shapes[layer]
    x, w, b = torch.randn(xs), torch.randn(ws) / ws[1] ** 0.5, torch.randn(ws[0])
    grads_as_accurate_as_cpu(lambda x, w, b: F.conv2d(x, w, b, **kw), [x, w, b], torch.float32, layer)


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
def test_low_precision_gradients(dtype):
    torch.manual_seed(5)
    x, w, b = torch.randn(2, 8, 9, 9), torch.randn(6, 4, 3, 3) / 6, torch.randn(6)
    grads_as_accurate_as_cpu(lambda x, w, b: F.conv2d(x, w, b, padding=1, stride=2, groups=2), [x, w, b], dtype,
                             f"conv2d {dtype}")
    x1, w1 = torch.randn(2, 4, 7), torch.randn(4, 3, 3) / 3
    grads_as_accurate_as_cpu(lambda x, w: F.conv_transpose1d(x, w, stride=2, output_padding=1), [x1, w1], dtype,
                             f"conv_transpose1d {dtype}")


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
@pytest.mark.parametrize("layer", ["3x3", "3x3-stride2-channels_last", "1x1"])
def test_low_precision_model_layers(dtype, layer):
    # products many fragments wide: on a device with cooperative matrices
    # (the H200 under the native profile) these run on
    # conv_coopmat_khr.comp, elsewhere on conv.comp's FMA tiles
    torch.manual_seed(8)
    shapes = {"3x3": ((4, 32, 16, 16), (64, 32, 3, 3), dict(padding=1), False),
              "3x3-stride2-channels_last": ((4, 32, 17, 15), (48, 32, 3, 3), dict(padding=1, stride=2), True),
              "1x1": ((4, 64, 9, 9), (80, 64, 1, 1), {}, False)}
    xs, ws, kw, cl = shapes[layer]
    x, w, b = torch.randn(xs), torch.randn(ws) / (ws[1] * ws[2] * ws[3]) ** 0.5, torch.randn(ws[0])
    if cl:
        x, w = x.to(memory_format=torch.channels_last), w.to(memory_format=torch.channels_last)
    grads_as_accurate_as_cpu(lambda x, w, b: F.conv2d(x, w, b, **kw), [x, w, b], dtype, f"{layer} {dtype}")


def test_channels_last_inputs_give_contiguous_results_as_compile_plans():
    # PyTorch's fake tensors plan an out-of-tree backend's convolution
    # results as contiguous (_conv_determine_backend_memory_format,
    # ConvBackend::Overrideable) and torch.compile asserts the real strides
    # against them: russet's results are contiguous for channels_last
    # inputs and weights too (CPU would keep channels_last); values as CPU's
    torch.manual_seed(6)
    cl = torch.channels_last
    x, w = torch.randn(2, 8, 10, 10).to(memory_format=cl), torch.randn(12, 8, 3, 3).to(memory_format=cl)
    got, (gx, gw) = grads_as_accurate_as_cpu(lambda x, w: F.conv2d(x, w, padding=1), [x, w], torch.float32, "cl")
    assert got.is_contiguous() and gx.is_contiguous() and gw.is_contiguous()
    xd, wd = x.to(D), w.to(D)
    backend = torch._C._select_conv_backend(xd, wd, None, [1, 1], [1, 1], [1, 1], False, [0, 0], 1, None)
    assert torch._C._conv_determine_backend_memory_format(xd, wd, backend) == torch.contiguous_format
    x3 = torch.randn(1, 4, 5, 6, 7).to(memory_format=torch.channels_last_3d)
    w3 = torch.randn(6, 4, 2, 3, 3)
    got3, _ = grads_as_accurate_as_cpu(lambda x, w: F.conv3d(x, w, stride=(1, 2, 1)), [x3, w3], torch.float32, "cl3d")
    assert got3.is_contiguous()


def test_long_weight_gradient_is_split_and_repeats_bit_for_bit():
    # N x the output length is long: the weight gradient's sum is split and
    # the parts added in order; the same inputs give the same bits
    torch.manual_seed(7)
    x, w = torch.randn(4, 3, 3000), torch.randn(5, 3, 3)
    _, (gx, gw) = grads_as_accurate_as_cpu(lambda x, w: F.conv1d(x, w, padding=1), [x, w], torch.float32, "long")
    wd = w.to(D).requires_grad_()
    runs = []
    for _ in range(2):
        y = F.conv1d(x.to(D), wd, padding=1)
        runs.append(torch.autograd.grad(y, [wd], torch.ones_like(y))[0].cpu())
    assert torch.equal(runs[0], runs[1])


def test_integer_convolutions_follow_cpu():
    x, w = torch.randint(-3, 4, (1, 2, 5, 5)), torch.randint(-3, 4, (3, 2, 2, 2))
    for dt in (torch.int64, torch.int32, torch.uint8):
        xi, wi = x.to(dt), w.to(dt)
        assert torch.equal(host_free(lambda: F.conv2d(xi.to(D), wi.to(D))).cpu(), F.conv2d(xi, wi))
    # transposed: int64 natively; CPU has no int32 kernel, and neither error is hidden
    wt = w.transpose(0, 1).contiguous()
    assert torch.equal(host_free(lambda: F.conv_transpose2d(x.to(D), wt.to(D))).cpu(), F.conv_transpose2d(x, wt))
    with pytest.raises(RuntimeError, match="not implemented for 'Int'"):
        F.conv_transpose2d(x.int().to(D), wt.int().to(D))
