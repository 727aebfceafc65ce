"""Activations and their backward kernels against CPU, with PyTorch's OpInfo
samples for every dtype CPU supports; native (no host execution) except
float64/complex128 under the apple profile."""

import os

import pytest
import torch
import torch.nn.functional as F
from torch.testing import assert_close

from opinfo_check import as_accurate_as_cpu, FP64_HOST, HOST_DTYPES, check_opinfo

D = "russet"

OPS = [
    ("nn.functional.relu", ""), ("nn.functional.relu6", ""), ("nn.functional.leaky_relu", ""),
    ("nn.functional.elu", ""), ("nn.functional.selu", ""), ("nn.functional.celu", ""),
    ("nn.functional.gelu", ""), ("nn.functional.silu", ""), ("nn.functional.silu", "complex"),
    ("nn.functional.mish", ""), ("nn.functional.hardtanh", ""), ("nn.functional.hardsigmoid", ""),
    ("nn.functional.hardswish", ""), ("nn.functional.softplus", ""), ("nn.functional.softshrink", ""),
    ("nn.functional.hardshrink", ""), ("nn.functional.threshold", ""), ("nn.functional.logsigmoid", ""),
    ("nn.functional.prelu", ""), ("nn.functional.glu", ""),
]


@pytest.mark.parametrize("name,variant", OPS, ids=[f"{n}.{v}" if v else n for n, v in OPS])
def test_activation_matches_cpu(name, variant):
    check_opinfo(name, variant, host_dtypes=FP64_HOST if name == "nn.functional.glu" else ())


def test_tanhshrink_matches_cpu():
    # x - tanh(x): tanh is the unary family's kernel
    check_opinfo("nn.functional.tanhshrink", native=False)


FLOAT_DTYPES = [torch.float32, torch.float16, torch.bfloat16, torch.float64]

BACKWARD = [
    ("relu", F.relu), ("relu6", F.relu6), ("leaky_relu", lambda x: F.leaky_relu(x, 0.2)),
    ("elu", F.elu), ("elu_alpha", lambda x: F.elu(x, alpha=0.7)), ("selu", F.selu), ("celu", lambda x: F.celu(x, 1.3)),
    ("gelu", F.gelu), ("gelu_tanh", lambda x: F.gelu(x, approximate="tanh")), ("silu", F.silu),
    ("mish", F.mish), ("hardtanh", lambda x: F.hardtanh(x, -0.5, 0.7)), ("hardsigmoid", F.hardsigmoid),
    ("hardswish", F.hardswish), ("softplus", lambda x: F.softplus(x, beta=2.0, threshold=3.0)),
    ("softshrink", lambda x: F.softshrink(x, 0.3)), ("hardshrink", lambda x: F.hardshrink(x, 0.3)),
    ("threshold", lambda x: F.threshold(x, 0.1, -2.0)), ("logsigmoid", F.logsigmoid),
    ("sigmoid", torch.sigmoid), ("tanh", torch.tanh), ("logit", lambda x: torch.logit(x.sigmoid(), eps=1e-3)),
    ("prelu", lambda x: F.prelu(x, torch.tensor([0.25, -0.1, 0.5], device=x.device, dtype=x.dtype))),
]


def _grad(fn, x, g):
    x = x.detach().clone().requires_grad_(True)
    y = fn(x)
    y.backward(g)
    return y.detach(), x.grad


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=str)
@pytest.mark.parametrize("name,fn", BACKWARD, ids=[n for n, _ in BACKWARD])
def test_backward_matches_cpu(name, fn, dtype):
    torch.manual_seed(0)
    x = (torch.randn(4, 3) * 3).to(dtype)
    x[0, 0] = 0.0
    g = torch.randn(4, 3).to(dtype)
    y_cpu, gx_cpu = _grad(fn, x, g)
    torch.russet.reset_host_op_counts()
    y, gx = _grad(fn, x.to(D), g.to(D))
    host = torch.russet.host_op_counts()
    if dtype in (torch.float16, torch.bfloat16):
        # assert_close's defaults, else as accurate as CPU's own float16/
        # bfloat16 chain (forward rounded, backward from it) against float64:
        # CPU's sigmoid gradient is 2 float16 steps from it where russet's is
        # the float32 result rounded once
        y64, gx64 = _grad(fn, x.double(), g.double())
        for got, cpu, ref, what in ((y, y_cpu, y64, "output"), (gx, gx_cpu, gx64, "gradient")):
            try:
                assert_close(got.cpu(), cpu, equal_nan=True)
            except AssertionError:
                as_accurate_as_cpu(got.cpu(), cpu, ref, f"{name} {dtype} {what}", fudge=1)
    else:
        assert_close(y.cpu(), y_cpu, equal_nan=True)
        assert_close(gx.cpu(), gx_cpu, equal_nan=True)
    native_needed = {"sigmoid", "tanh", "logit"}  # forward kernels of the unary family
    if dtype not in HOST_DTYPES and name not in native_needed:
        assert not host, f"{name} {dtype}: ran on the host: {host}"


def test_relu_threshold_backward_native_int_and_nan():
    x = torch.tensor([-2, 0, 3, 7], dtype=torch.int32)
    torch.russet.reset_host_op_counts()
    assert torch.equal(F.relu(x.to(D)).cpu(), F.relu(x))
    assert torch.equal(F.threshold(x.to(D), 2, 9).cpu(), F.threshold(x, 2, 9))
    f = torch.tensor([float("nan"), -1.0, 0.0, 2.0])
    assert_close(F.relu(f.to(D)).cpu(), F.relu(f), equal_nan=True)
    g = torch.ones(4)
    assert_close(torch.ops.aten.threshold_backward(g.to(D), f.to(D), 0.0).cpu(),
                 torch.ops.aten.threshold_backward(g, f, 0.0), equal_nan=True)
    y = torch.zeros(4, device=D)
    F.relu_(y)
    assert not torch.russet.host_op_counts()


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_rrelu(dtype):
    # float64 (native on fp64 devices) compares in float64: a tiny negative
    # double keeps its random slope
    x = (torch.randn(64) * 3).to(dtype)
    if dtype == torch.float64:
        x[0] = -1e-300
    if dtype == torch.float64 and torch.russet.get_device_properties().profile == "apple":
        pytest.skip("float64 runs on the host under apple")
    # eval: leaky_relu with the mean slope
    assert_close(F.rrelu(x.to(D), 0.1, 0.3, training=False).cpu(), F.rrelu(x, 0.1, 0.3, training=False))
    torch.russet.reset_host_op_counts()
    torch.manual_seed(3)
    y = F.rrelu(x.to(D), 0.1, 0.3, training=True).cpu()
    assert not torch.russet.host_op_counts()
    pos = x > 0
    assert torch.equal(y[pos], x[pos])
    slope = y[~pos] / x[~pos]
    assert ((slope >= 0.1 - 1e-6) & (slope <= 0.3 + 1e-6)).all()
    torch.manual_seed(3)
    assert torch.equal(F.rrelu(x.to(D), 0.1, 0.3, training=True).cpu(), y)  # reproducible
    # backward through the noise
    xr = x.to(D).requires_grad_(True)
    F.rrelu(xr, 0.1, 0.3, training=True).sum().backward()
    assert xr.grad.shape == x.shape


def test_log_sigmoid_forward_out_and_buffer():
    x = torch.randn(5, 4)
    out, buf = torch.ops.aten.log_sigmoid_forward(x.to(D))
    out_c, buf_c = torch.ops.aten.log_sigmoid_forward(x)
    assert_close(out.cpu(), out_c)
    assert_close(buf.cpu(), buf_c)


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=str)
@pytest.mark.parametrize("dim", [0, -1])
def test_glu_forward_backward_matches_cpu(dtype, dim):
    # glu_backward as ATen's: sigmoid of the second half, the fused
    # (1 - s) s a g, then the first half times grad
    torch.manual_seed(0)
    x = (torch.randn(6, 8) * 3).to(dtype)
    if dim == 0:
        x = x.t()  # (8, 6), non-contiguous
    g = torch.randn(4, 6).to(dtype) if dim == 0 else torch.randn(6, 4).to(dtype)
    y_cpu, gx_cpu = _grad(lambda t: F.glu(t, dim=dim), x, g)
    torch.russet.reset_host_op_counts()
    y, gx = _grad(lambda t: F.glu(t, dim=dim), x.to(D), g.to(D))
    host = torch.russet.host_op_counts()
    assert_close(y.cpu(), y_cpu)
    assert_close(gx.cpu(), gx_cpu)
    if dtype not in HOST_DTYPES and dtype not in FP64_HOST:
        assert not host, host
    out = torch.empty(0, device=D, dtype=dtype)
    torch._C._nn.glu(x.to(D), dim, out=out)
    assert_close(out.cpu(), F.glu(x, dim))
    with pytest.raises(RuntimeError, match="even"):
        F.glu(torch.ones(3, 5, device=D, dtype=dtype), -1)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.bfloat16], ids=str)
def test_softshrink_nan_and_signed_zero(dtype):
    # CPU returns x * 0 between the bounds: NaN stays NaN, a negative x
    # gives -0 (the OpInfo's reference inputs hold NaN)
    x = torch.tensor([float("nan"), -0.1, 0.1, -0.0, 0.0, 0.3, -0.3, 0.7, float("inf"), float("-inf")]).to(dtype)
    want = F.softshrink(x, 0.5)
    got = F.softshrink(x.to("russet"), 0.5).cpu()
    assert_close(got, want, equal_nan=True, atol=0, rtol=0)
    assert torch.equal(got.signbit(), want.signbit())


@pytest.mark.parametrize("limits", [(-1, 1), (-5, 3), (2, 9), (0, 0)])
def test_hardtanh_unsigned_limits_like_this_torchs_cpu(limits):
    # torch 2.13's CPU refuses a negative limit on uint8; 2.15's takes a
    # lower limit below 0 as 0: russet does what the torch it runs with does
    x = torch.tensor([0, 1, 5, 200], dtype=torch.uint8)
    try:
        want = F.hardtanh(x, *limits)
    except RuntimeError as e:
        with pytest.raises(RuntimeError, match=str(e)):
            F.hardtanh(x.to(D), *limits)
        return
    assert torch.equal(F.hardtanh(x.to(D), *limits).cpu(), want)
