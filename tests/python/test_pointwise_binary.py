"""Binary pointwise ops against CPU, with PyTorch's OpInfo samples, for every
dtype CPU supports; native (no host execution) except float64/complex128
under the apple profile."""

import os

import pytest
import torch
from torch.testing import assert_close

from opinfo_check import check_opinfo

D = "russet"

OPS = [
    ("add", ""), ("sub", ""), ("mul", ""), ("div", "no_rounding_mode"), ("div", "trunc_rounding"),
    ("div", "floor_rounding"), ("remainder", ""), ("fmod", ""), ("maximum", ""), ("minimum", ""),
    ("fmax", ""), ("fmin", ""), ("atan2", ""), ("bitwise_and", ""), ("bitwise_or", ""),
    ("bitwise_xor", ""), ("bitwise_left_shift", ""), ("bitwise_right_shift", ""),
    ("eq", ""), ("ne", ""), ("lt", ""), ("le", ""), ("gt", ""), ("ge", ""), ("gcd", ""), ("lcm", ""),
]


@pytest.mark.parametrize("name,variant", OPS, ids=[f"{n}.{v}" if v else n for n, v in OPS])
def test_binary_op_matches_cpu(name, variant):
    check_opinfo(name, variant)


def test_scalars_broadcast_and_strides():
    a = torch.randn(4, 1, 3)
    b = torch.randn(3, 1).t()  # (1, 3) transposed view
    x, y = a.to(D), b.to(D)
    assert_close((x + y).cpu(), a + b)
    assert_close((x * 2.5 - y).cpu(), a * 2.5 - b)
    t = torch.randn(6, 8)
    tt = t.to(D)[:, ::2].t()  # strided, non-contiguous
    assert_close((tt * tt).cpu(), t[:, ::2].t() * t[:, ::2].t())
    z = torch.empty(0, 3, device=D)
    assert (z + 1).shape == (0, 3)


def test_mixed_dtypes_and_out():
    i = torch.arange(-5, 5, dtype=torch.int32)
    f = torch.linspace(-2, 2, 10, dtype=torch.float16)
    assert_close((i.to(D) + f.to(D)).cpu(), i + f)
    out = torch.empty(10, dtype=torch.float32, device=D)
    torch.add(i.to(D), f.to(D), out=out)
    assert_close(out.cpu(), torch.add(i, f, out=torch.empty(10)))
    # in place, through a view
    base = torch.zeros(4, 4, device=D)
    base[:, 1].add_(3)
    assert_close(base.cpu(), torch.zeros(4, 4).index_fill_(1, torch.tensor([1]), 3))


def test_integer_wraparound_and_division():
    a = torch.tensor([127, -128, 100], dtype=torch.int8)
    b = torch.tensor([1, -1, 100], dtype=torch.int8)
    assert torch.equal((a.to(D) + b.to(D)).cpu(), a + b)
    assert torch.equal((a.to(D) * b.to(D)).cpu(), a * b)
    n = torch.tensor([7, -7, 7, -7])
    m = torch.tensor([2, 2, -2, -2])
    for mode in ("trunc", "floor"):
        assert torch.equal(torch.div(n.to(D), m.to(D), rounding_mode=mode).cpu(),
                           torch.div(n, m, rounding_mode=mode))
    assert torch.equal(torch.remainder(n.to(D), m.to(D)).cpu(), torch.remainder(n, m))
    assert torch.equal(torch.fmod(n.to(D), m.to(D)).cpu(), torch.fmod(n, m))


def test_integer_division_by_zero_raises():
    a = torch.tensor([1, 2, 3], device=D)
    z = torch.tensor([1, 0, 1], device=D)
    with pytest.raises(RuntimeError, match="ZeroDivisionError"):
        torch.div(a, z, rounding_mode="trunc").cpu()
    # the process goes on
    assert torch.equal((a + 1).cpu(), torch.tensor([2, 3, 4]))


def test_nan_semantics():
    a = torch.tensor([float("nan"), 1.0, -0.0, float("inf")])
    b = torch.tensor([1.0, float("nan"), 0.0, float("-inf")])
    for f in (torch.maximum, torch.minimum, torch.fmax, torch.fmin):
        assert_close(f(a.to(D), b.to(D)).cpu(), f(a, b), equal_nan=True)
    assert torch.equal((a.to(D) == b.to(D)).cpu(), a == b)
    assert torch.equal((a.to(D) != a.to(D)).cpu(), a != a)


def test_float64_runs_on_host_under_apple():
    import os
    a = torch.randn(5, dtype=torch.float64)
    torch.russet.reset_host_op_counts()
    assert_close((a.to(D) + a.to(D)).cpu(), a + a)
    if os.environ.get("RUSSET_PROFILE", "apple") == "apple":
        assert torch.russet.host_op_counts().get("aten::add.out", 0) >= 1


_VEC_DTYPES = [torch.bool, torch.uint8, torch.int8, torch.int16, torch.uint16, torch.int32, torch.uint32,
               torch.int64, torch.float16, torch.bfloat16, torch.float32, torch.float64]


@pytest.mark.parametrize("dtype", _VEC_DTYPES, ids=str)
def test_sixteen_byte_path_every_width(dtype):
    """The contiguous 16-byte path (16 / size elements per access, the tail
    as a second launch): lengths around the word, unaligned views (plain
    path), a scalar operand, against CPU."""
    from torch.testing._internal.common_utils import make_tensor
    for n in [1, 3, 15, 16, 17, 31, 33, 1000, 4099]:
        a = make_tensor((n + 1,), dtype=dtype, device="cpu", low=-50, high=50)
        b = make_tensor((n + 1,), dtype=dtype, device="cpu", low=-50, high=50)
        for x, y in [(a[:n], b[:n]), (a[1:], b[1:]), (a[:n], b[1:])]:
            torch.russet.reset_host_op_counts()
            xd, yd = x.to(D), y.to(D)
            checked = 0
            for f in [lambda p, q: torch.add(p, q, alpha=2), lambda p, q: torch.mul(p, 3), torch.maximum,
                      torch.bitwise_xor, torch.logical_xor]:
                try:
                    want = f(x, y)
                except (RuntimeError, NotImplementedError):  # CPU has no kernel for the dtype
                    continue
                assert_close(f(xd, yd).cpu(), want, equal_nan=True)
                checked += 1
            assert checked >= 2
            if dtype != torch.float64 or os.environ.get("RUSSET_PROFILE") == "native":
                assert not torch.russet.host_op_counts(), dtype


@pytest.mark.parametrize("dtype", [torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64], ids=str)
def test_gcd_lcm_edge_values(dtype):
    # |min| wraps to min in the dtype (std::abs), C's truncating remainder,
    # lcm's product wraps as CPU's (int32 in int, the narrower in int)
    # (CPU itself dies of SIGFPE on lcm(min, x) when gcd is -1: min / -1,
    # so lcm leaves min out)
    info = torch.iinfo(dtype)
    v = [info.min, info.min + 2, -7, -1, 0, 1, 6, 12, 35, 97, 120, info.max - 1, info.max]
    for fn in (torch.gcd, torch.lcm):
        vv = v if fn is torch.gcd else v[1:]
        a = torch.tensor(vv, dtype=torch.int64).clamp(info.min, info.max).to(dtype)
        x, y = a[:, None].expand(-1, len(vv)), a[None, :].expand(len(vv), -1)
        torch.russet.reset_host_op_counts()
        got = fn(x.to(D), y.to(D)).cpu()
        assert not torch.russet.host_op_counts()
        assert torch.equal(got, fn(x, y)), fn.__name__
    with pytest.raises(RuntimeError, match="not implemented for"):
        torch.gcd(torch.ones(2, device=D), torch.ones(2, device=D))


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16], ids=str)
def test_reduced_float_mul_div_by_python_number(dtype):
    # CPU's mul/div kernels read a Python number at its value in float, not
    # rounded to float16/bfloat16 (original_scalar_value): bit-equal results
    x = torch.linspace(-3, 3, 1001).to(dtype)
    fns = [lambda t: t * 0.7071067811865476, lambda t: 0.3 * t, lambda t: t / 0.3, lambda t: t * 3,
           lambda t: torch.div(t, 0.3, rounding_mode="floor"), lambda t: torch.div(t, -0.7, rounding_mode="trunc"),
           lambda t: t.clone().mul_(0.1), lambda t: t.clone().div_(0.1), lambda t: t + 0.3, lambda t: t - 0.3]
    for i, fn in enumerate(fns):
        torch.russet.reset_host_op_counts()
        got = fn(x.to(D)).cpu()
        assert not torch.russet.host_op_counts()
        assert torch.equal(got, fn(x)), i
    # a one-element float32 tensor on the device: also read in float
    s = torch.tensor(0.7071067811865476)
    for i, fn in enumerate([torch.mul, torch.div, lambda a, b: torch.div(a, b, rounding_mode="trunc")]):
        torch.russet.reset_host_op_counts()
        got = fn(x.to(D), s.to(D)).cpu()
        assert not torch.russet.host_op_counts()
        assert torch.equal(got, fn(x, s)), i


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16, torch.complex32], ids=str)
def test_reduced_add_sub_alpha_rounds_alpha_to_the_dtype(dtype):
    # CPU's add kernel takes alpha.to<scalar_t>() and computes a + alpha * b
    # in float with one rounding in its vectorized body: a contiguous length
    # that is a multiple of 64 has no scalar tail on any vector width
    torch.manual_seed(0)
    real = torch.complex64 if dtype.is_complex else torch.float32
    x = (torch.randn(256, dtype=real) * 5).to(dtype)
    y = (torch.randn(256, dtype=real) * 5).to(dtype)
    for fn in (lambda a, b: torch.add(a, b, alpha=3.14), lambda a, b: torch.sub(a, b, alpha=0.3),
               lambda a, b: a.clone().add_(b, alpha=-1.7)):
        torch.russet.reset_host_op_counts()
        got = fn(x.to(D), y.to(D)).cpu()
        assert not torch.russet.host_op_counts()
        want = fn(x, y)
        if dtype.is_complex:
            got, want = got.to(torch.complex64), want.to(torch.complex64)
        assert torch.equal(got, want)
