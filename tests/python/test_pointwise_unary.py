"""Unary pointwise ops (arithmetic, rounding, classification, logical and
bitwise not, transcendental, complex) against CPU, with PyTorch's OpInfo
samples, for every dtype CPU supports; native (no host execution) except
float64/complex128 under the apple profile."""

import math

import pytest
import torch
from torch.testing import assert_close

import opinfo_check
from opinfo_check import check_opinfo

D = "russet"

OPS = [
    # arithmetic
    ("neg", ""), ("abs", ""), ("sign", ""), ("sgn", ""), ("reciprocal", ""), ("sqrt", ""), ("rsqrt", ""),
    ("trunc", ""), ("floor", ""), ("ceil", ""), ("round", ""), ("round", "decimals_0"), ("round", "decimals_3"),
    ("round", "decimals_neg_3"), ("frac", ""),
    # classification, logical, bitwise
    ("isnan", ""), ("isinf", ""), ("isfinite", ""), ("isposinf", ""), ("isneginf", ""), ("isreal", ""),
    ("signbit", ""), ("logical_not", ""), ("bitwise_not", ""),
    # transcendental
    ("exp", ""), ("exp2", ""), ("expm1", ""), ("log", ""), ("log2", ""), ("log10", ""), ("log1p", ""),
    ("sin", ""), ("cos", ""), ("tan", ""), ("asin", ""), ("acos", ""), ("atan", ""),
    ("sinh", ""), ("cosh", ""), ("tanh", ""), ("asinh", ""), ("acosh", ""), ("atanh", ""),
    ("sigmoid", ""), ("logit", ""), ("erf", ""), ("erfc", ""), ("sinc", ""), ("deg2rad", ""), ("rad2deg", ""),
    # complex
    ("angle", ""), ("conj_physical", ""), ("polar", ""), ("complex", ""),
]


@pytest.mark.parametrize("name,variant", OPS, ids=[f"{n}.{v}" if v else n for n, v in OPS])
def test_unary_op_matches_cpu(name, variant):
    check_opinfo(name, variant)


def check_large(name, variant="", dtypes=(torch.float32, torch.complex64, torch.int32), n=6000):
    """The OpInfo's tensor samples tiled into one contiguous tensor of n
    elements: the kernels' contiguous path, where each invocation computes
    several elements (OpInfo samples are too small to reach it)."""
    op = opinfo_check.opinfo(name, variant)
    checked = 0
    for dtype in dtypes:
        if dtype not in op.supported_dtypes("cpu"):
            continue
        for s in op.sample_inputs("cpu", dtype):
            args = [s.input] + list(s.args)
            tensors = [a for a in args if isinstance(a, torch.Tensor)]
            if s.input.numel() == 0:
                continue
            try:
                shape = torch.broadcast_shapes(*[t.shape for t in tensors])
            except RuntimeError:
                continue
            reps = -(-n // max(1, shape.numel()))
            big = [a.expand(shape).reshape(-1).repeat(reps)[:n].contiguous() if isinstance(a, torch.Tensor) else a
                   for a in args]
            expected = op.op(*big, **s.kwargs)
            torch.russet.reset_host_op_counts()
            got = op.op(*[opinfo_check._to(a, D) for a in big], **s.kwargs)
            assert not torch.russet.host_op_counts(), f"{name} {dtype} ran on the host"
            assert_close(got.cpu(), expected, equal_nan=True, msg=lambda m: f"{name} {dtype}: {m}",
                         **opinfo_check._tolerance(op, dtype))
            checked += 1
            break
    return checked


@pytest.mark.parametrize("name,variant", OPS, ids=[f"{n}.{v}" if v else n for n, v in OPS])
def test_unary_op_large_contiguous(name, variant):
    assert check_large(name, variant) > 0


# the float32 functions over wide ranges, against CPU (the OpInfo samples
# are small): PyTorch's float32 tolerances. sinh/cosh stop at 88: CPU's
# vectorized path overflows to inf from 88.72 (its scalar path does not)
SWEEPS = {
    torch.exp: (-100, 89), torch.exp2: (-140, 127), torch.expm1: (-20, 88), torch.log: (1e-30, 1e30),
    torch.log2: (1e-30, 1e30), torch.log10: (1e-30, 1e30), torch.log1p: (-0.999, 1e6),
    torch.sin: (-1e4, 1e4), torch.cos: (-1e4, 1e4), torch.tan: (-100, 100), torch.asin: (-1, 1),
    torch.acos: (-1, 1), torch.atan: (-1e3, 1e3), torch.sinh: (-88, 88), torch.cosh: (-88, 88),
    torch.tanh: (-20, 20), torch.asinh: (-1e5, 1e5), torch.acosh: (1, 1e5), torch.atanh: (-1, 1),
    torch.sigmoid: (-80, 80), torch.erf: (-5, 5), torch.erfc: (-5, 9),
}


@pytest.mark.parametrize("fn", list(SWEEPS), ids=[f.__name__ for f in SWEEPS])
def test_float32_accuracy_sweep(fn):
    lo, hi = SWEEPS[fn]
    if lo > 0 and hi / lo > 1e3:
        x = torch.logspace(math.log10(lo), math.log10(hi), 20001)
    else:
        x = torch.linspace(lo, hi, 20001)
    x = torch.cat([x, torch.linspace(-1, 1, 2001).clamp(lo, hi)])
    torch.russet.reset_host_op_counts()
    got = fn(x.to(D)).cpu()
    assert not torch.russet.host_op_counts()
    assert_close(got, fn(x), equal_nan=True)


def test_special_values():
    v = torch.tensor([0.0, -0.0, 1.0, -1.0, float("inf"), float("-inf"), float("nan"), 1e-30, -1e-30, 0.5])
    for fn in (torch.exp, torch.expm1, torch.log, torch.log1p, torch.log2, torch.log10, torch.sqrt, torch.rsqrt,
               torch.sin, torch.cos, torch.tan, torch.asin, torch.acos, torch.atan, torch.sinh, torch.cosh,
               torch.tanh, torch.asinh, torch.acosh, torch.atanh, torch.sigmoid, torch.erf, torch.erfc,
               torch.reciprocal, torch.sign, torch.frac, torch.round, torch.trunc, torch.floor, torch.ceil,
               torch.exp2, torch.sinc, torch.angle):
        assert_close(fn(v.to(D)).cpu(), fn(v), equal_nan=True, msg=lambda m: f"{fn.__name__}: {m}")
    for fn in (torch.isnan, torch.isinf, torch.isfinite, torch.isposinf, torch.isneginf, torch.signbit,
               torch.logical_not):
        assert torch.equal(fn(v.to(D)).cpu(), fn(v)), fn.__name__


def test_out_inplace_and_strides():
    a = torch.randn(6, 8)
    x = a.to(D)[:, ::2].t()
    assert_close(torch.exp(x).cpu(), torch.exp(a[:, ::2].t()))
    out = torch.empty(4, 6, dtype=torch.float16, device=D)
    torch.sin(x, out=out)
    assert_close(out.cpu(), torch.sin(a[:, ::2].t()).half())
    y = a.to(D)
    y.cos_()
    assert_close(y.cpu(), a.cos())
    i = torch.arange(-5, 5, dtype=torch.int32)
    assert_close(torch.sqrt(i.to(D)).cpu(), torch.sqrt(i), equal_nan=True)
    r = torch.empty(0, device=D, dtype=torch.float32)
    torch.abs(torch.randn(3, dtype=torch.complex64).to(D), out=r)
    assert r.shape == (3,)
    b = torch.tensor([0, 1, 2], dtype=torch.int8)
    assert torch.equal(torch.logical_not(b.to(D), out=torch.empty(3, dtype=torch.int16, device=D)).cpu(),
                       torch.logical_not(b, out=torch.empty(3, dtype=torch.int16)))


def test_complex_abs_angle_to_real():
    z = torch.randn(5, dtype=torch.complex64) * 3
    for fn in (torch.abs, torch.angle):
        got = fn(z.to(D))
        assert got.dtype == torch.float32
        assert_close(got.cpu(), fn(z))


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.bfloat16], ids=str)
def test_frexp(dtype):
    check_opinfo("frexp", dtypes=[dtype])
    v = torch.tensor([0.0, -0.0, 1e-45, -3e-40, 1.17e-38, 1.5, -0.75, 1024.0, 3e38, float("inf"), float("-inf"),
                      float("nan"), 65504.0, 6e-8]).to(dtype)
    torch.russet.reset_host_op_counts()
    m, e = torch.frexp(v.to(D))
    assert not torch.russet.host_op_counts()
    mc, ec = torch.frexp(v)
    assert torch.equal(e.cpu(), ec)
    assert_close(m.cpu(), mc, equal_nan=True, atol=0, rtol=0)
    assert torch.equal(m.cpu().signbit(), mc.signbit())
    # out= and a strided view
    mo, eo = torch.empty(0, device=D, dtype=dtype), torch.empty(0, device=D, dtype=torch.int32)
    torch.frexp(v.to(D)[::2], out=(mo, eo))
    assert torch.equal(eo.cpu(), ec[::2])


def _ulps(got, ref):
    """float32 results' distance from a float64 reference, in float32 ulps"""
    ulp = torch.finfo(torch.float32).eps * ref.abs().clamp(min=2.0**-126)
    return (got.double() - ref).abs() / ulp


def test_trig_large_arguments_float32():
    # every exponent from 2^-10 to 2^127 with random significands and both
    # signs, and the edges of the two range reductions (Cody-Waite below
    # 2^20, Payne-Hanek above): GLSL's sin/cos are not used, and the
    # reduction must stay exact where a float's multiple of pi/4 is far
    # from its integer part (before: inf or NaN above 2^24, tan off by 150
    # ulp near 2^23)
    g = torch.Generator().manual_seed(7)
    n = 12000
    e = torch.randint(-10, 128, (n,), generator=g).double()
    x = ((torch.rand(n, generator=g, dtype=torch.float64) + 1) * torch.pow(2.0, e)).float()
    x = x * (torch.randint(0, 2, (n,), generator=g) * 2 - 1)
    edges = [2.0**20, 2.0**20 - 0.0625, 2.0**23, 2.0**24, 2.0**24 + 2, 1e10, 1e20, -1e20, 1e30, 3.4028235e38,
             -3.4028235e38, 102943.5, 0.7853982, 1.5707964]
    x = torch.cat([x, torch.tensor(edges)])
    torch.russet.reset_host_op_counts()
    xd = x.to(D)
    for fn in (torch.sin, torch.cos, torch.tan):
        got = fn(xd).cpu()
        assert torch.isfinite(got).all(), fn.__name__
        worst = float(_ulps(got, fn(x.double())).max())
        assert worst <= 3.0, (fn.__name__, worst)
    assert not torch.russet.host_op_counts()


@pytest.mark.parametrize("name", ["polar", "special.spherical_bessel_j0"])
def test_extreme_reference_inputs_float32(name):
    # the OpInfo's reference inputs with extreme values (+-1e20 angles and
    # arguments: PyTorch's test_compare_cpu found inf where CPU is finite)
    op = opinfo_check.opinfo(name, "")
    for s in op.reference_inputs("cpu", torch.float32):
        want = op(s.input, *s.args, **s.kwargs)
        sd = s.transform(lambda t: t.to(D) if isinstance(t, torch.Tensor) else t)
        got = op(sd.input, *sd.args, **sd.kwargs).cpu()
        assert_close(got, want, equal_nan=True, atol=1e-5, rtol=2e-6)
