"""Ternary and miscellaneous pointwise ops (where, masked_fill, clamp, pow,
lerp, addcmul, addcdiv, hypot, copysign, nextafter, ldexp, xlogy, logaddexp,
heaviside, floor_divide, rsub, shifts, logical ops, nan_to_num) against CPU
with PyTorch's OpInfo samples, for every dtype CPU supports; native except
float64/complex128 under the apple profile."""

import pytest
import torch
from torch.testing import assert_close

from opinfo_check import check_opinfo, flushed, flushes_denormals, opinfo

D = "russet"


def _dtypes(name, variant="", drop=()):
    return sorted((d for d in opinfo(name, variant).supported_dtypes("cpu") if d not in drop), key=str)


OPS = [
    ("where", ""), ("masked_fill", ""), ("clamp", ""), ("clamp_min", ""), ("clamp_max", ""),
    ("lerp", ""), ("addcmul", ""), ("addcdiv", ""), ("hypot", ""), ("copysign", ""), ("nextafter", ""),
    ("xlogy", ""), ("logaddexp2", ""), ("heaviside", ""), ("floor_divide", ""), ("rsub", ""),
    ("true_divide", ""), ("logical_and", ""), ("logical_or", ""), ("logical_xor", ""), ("nan_to_num", ""),
    ("clamp", "scalar"), ("clip", ""),
]
OPS = [(n, v) for n, v in OPS if any(o.name == n and o.variant_test_name == v
                                     for o in __import__("torch.testing._internal.common_methods_invocations",
                                                         fromlist=["op_db"]).op_db)]


@pytest.mark.parametrize("name,variant", OPS, ids=[f"{n}.{v}" if v else n for n, v in OPS])
def test_misc_op_matches_cpu(name, variant):
    check_opinfo(name, variant)


def test_pow_matches_cpu():
    # every dtype, complex64 included (complex pow: cexp(y clog(x)) with
    # y log(x) in double-float, ops_misc.glsl), every sample
    check_opinfo("pow", max_samples=10**6)


def test_logaddexp_matches_cpu():
    check_opinfo("logaddexp", max_samples=10**6)


def test_ldexp_matches_cpu():
    check_opinfo("ldexp")


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.bfloat16, torch.float64])
def test_ldexp_integer_exponents_are_exact_as_cpu(dtype):
    # CPU's kernel for an integer exponent: x 2^e rounded once, the exponent
    # narrowed to int (wrapping); the product self * 2^e overflowed where the
    # result does not (0.5 2^128) and gave NaN for 0 2^30 in float16
    # (last six: subnormal results rounded to nearest even, subnormal selves)
    x = torch.tensor([1.0, 1.0, 1.0, -0.0, float("nan"), float("inf"), 3.0, 1e-45, 1.5, 0.5, 65504.0, 1e-30, 7.0,
                      3.0, 1.0, 1.25, -5.0, 1e-40, -3e-39])
    e = torch.tensor([2 ** 32 + 1, -(2 ** 40), 2 ** 31, 5, 3, -2, -200, 160, -124, 128, 1, 30, -1074,
                      -150, -150, -149, -148, 10, -3])
    for et in (torch.int64, torch.int32, torch.int16, torch.int8, torch.uint8):
        want = torch.ldexp(x.to(dtype), e.to(et))
        got = torch.ldexp(x.to(dtype).to(D), e.to(et).to(D)).cpu()
        assert got.dtype == want.dtype and torch.equal(got.isnan(), want.isnan()), et
        assert torch.equal(got.nan_to_num(), want.nan_to_num()), (et, got, want)
        y = x.to(dtype).to(D)
        y.ldexp_(e.to(et).to(D))
        assert torch.equal(y.cpu().nan_to_num(), want.nan_to_num())
    # broadcasting, out=, the product's path (float and complex exponents or
    # selves, integer selves), CPU's refusals
    xb = torch.randn(3, 1).to(dtype)
    eb = torch.tensor([[-3, 0, 7, 40]])
    out = torch.empty(0, dtype=dtype, device=D)
    torch.ldexp(xb.to(D), eb.to(D), out=out)
    assert torch.equal(out.cpu(), torch.ldexp(xb, eb))
    for a, b in ((x.to(dtype), e.float()), (torch.tensor([1, 2]), torch.tensor([3, 4])),
                 (torch.tensor([1 + 1j, 2j]), torch.tensor([3, 1]))):
        want = torch.ldexp(a, b)
        wants = [want]
        if a.dtype in (torch.float32, torch.bfloat16) and flushes_denormals():
            # the product a 2^b is a multiply: a flushing device reads the
            # denormal 1e-45 as 0 (0 inf = NaN where CPU has inf); the
            # integer exponents above stay exact there
            wants.append(flushed(torch.ldexp(flushed(a), b)))
        got = torch.ldexp(a.to(D), b.to(D)).cpu()
        assert got.dtype == want.dtype, (a.dtype, b.dtype)
        assert any(torch.allclose(got, w, equal_nan=True) for w in wants), (a.dtype, b.dtype, got, want)
    for bad in (torch.ones(19, dtype=torch.bool), torch.ones(19, dtype=torch.uint16)):
        with pytest.raises(NotImplementedError) as cpu:
            torch.ldexp(x.to(dtype), bad)
        with pytest.raises(NotImplementedError, match=str(cpu.value)[:20].replace("'", ".")):
            torch.ldexp(x.to(dtype).to(D), bad.to(D))


def test_complex_pow_special_values():
    inf, nan = float("inf"), float("nan")
    v = torch.tensor([0.0, -0.0, 1.0, -1.0, 2.5, -0.5, inf, -inf, nan, 1e-20, 30.0])
    z = torch.complex(v[:, None].expand(-1, 11), v[None, :].expand(11, -1)).reshape(-1)
    y = torch.cat([z[::3], torch.tensor([2.0 + 0j, 0.5 + 0j, -1.0 + 0j, 3.0 + 0j])])[None, :].expand(121, -1)
    x = z[:, None].expand(-1, y.shape[1])
    torch.russet.reset_host_op_counts()
    got = torch.pow(x.to(D), y.to(D)).cpu()
    assert not torch.russet.host_op_counts()
    want = torch.pow(x, y)
    # the OpInfo's complex64 tolerance where CPU is finite; non-finite
    # results where CPU's are
    fin = want.real.isfinite() & want.imag.isfinite()
    assert_close(got[fin], want[fin], rtol=1.3e-5, atol=1e-4)
    assert torch.equal(got.real.isfinite() & got.imag.isfinite(), fin)
    for e in [2.0, 3.0, -2.0, 0.5, -1.0, 1.5, 2 + 1j, -0.5j]:
        got = torch.pow(z.to(D), e).cpu()
        want = torch.pow(z, e)
        fin = want.real.isfinite() & want.imag.isfinite()
        assert_close(got[fin], want[fin], rtol=1.3e-5, atol=1e-4)


def test_complex_logaddexp_special_values():
    inf, nan = float("inf"), float("nan")
    v = torch.tensor([0.0, -1.0, 3.5, inf, -inf, nan, 80.0, -80.0])
    z = torch.complex(v[:, None].expand(-1, 8), v.flip(0)[None, :].expand(8, -1)).reshape(-1)
    a, b = z[:, None].expand(-1, 64), z[None, :].expand(64, -1)
    torch.russet.reset_host_op_counts()
    got = torch.logaddexp(a.to(D), b.to(D)).cpu()
    assert not torch.russet.host_op_counts()
    assert_close(got, torch.logaddexp(a, b), equal_nan=True)


def test_float_power_matches_cpu():
    # computes in float64/complex128: host under the apple profile
    check_opinfo("float_power", native=False)


def test_pow_special_values():
    inf, nan = float("inf"), float("nan")
    xs = torch.tensor([0.0, -0.0, 1.0, -1.0, 2.0, -2.0, 0.5, inf, -inf, nan, 3.0, 1e-30, 1e30, 7.5])
    ys = torch.tensor([0.0, -0.0, 1.0, -1.0, 2.0, 3.0, -3.0, 0.5, -0.5, inf, -inf, nan, 2.5, 40.0, -40.0, 1e-3])
    X, Y = torch.meshgrid(xs, ys, indexing="ij")
    assert_close(torch.pow(X.to(D), Y.to(D)).cpu(), torch.pow(X, Y), equal_nan=True)
    for e in (2, 3, -2, 0.5, -0.5, -1, 0, 1, 1.7, -2.3):
        assert_close(torch.pow(X.to(D), e).cpu(), torch.pow(X, e), equal_nan=True)
    assert_close(torch.pow(2.0, Y.to(D)).cpu(), torch.pow(2.0, Y), equal_nan=True)
    i = torch.arange(-5, 6)
    assert torch.equal(torch.pow(i.to(D), i.abs().to(D)).cpu(), torch.pow(i, i.abs()))
    assert torch.equal(torch.pow(i.to(D), torch.tensor([-1, -2, 3]).repeat(4)[:11].to(D)).cpu(),
                       torch.pow(i, torch.tensor([-1, -2, 3]).repeat(4)[:11]))


def test_where_scalars_and_masked_fill_tensor():
    c = torch.tensor([True, False, True])
    a = torch.tensor([1.0, 2.0, 3.0])
    torch.russet.reset_host_op_counts()
    assert_close(torch.where(c.to(D), a.to(D), 0.5).cpu(), torch.where(c, a, 0.5))
    assert_close(torch.where(c.to(D), 2, a.to(D)).cpu(), torch.where(c, 2, a))
    v = torch.tensor(7.0)
    y = a.to(D).masked_fill(c.to(D), v.to(D))
    assert_close(y.cpu(), a.masked_fill(c, v))
    assert not torch.russet.host_op_counts()


def test_shift_operators():
    a = torch.tensor([1, -8, 3, 100], dtype=torch.int32)
    b = torch.tensor([1, 2, 33, -1], dtype=torch.int32)
    assert torch.equal((a.to(D) << b.to(D)).cpu(), a << b)
    assert torch.equal((a.to(D) >> 2).cpu(), a >> 2)
    x = a.to(D)
    x <<= 3
    assert torch.equal(x.cpu(), a << 3)
    x >>= b.to(D)
    assert torch.equal(x.cpu(), (a << 3) >> b)


def test_clamp_nan_bounds_and_int():
    x = torch.tensor([1.0, float("nan"), -3.0])
    assert_close(torch.clamp(x.to(D), min=float("nan"), max=1.0).cpu(),
                 torch.clamp(x, min=float("nan"), max=1.0), equal_nan=True)
    i = torch.tensor([-5, 0, 5], dtype=torch.int8)
    assert torch.equal(torch.clamp(i.to(D), -2, 3).cpu(), torch.clamp(i, -2, 3))
    lo = torch.tensor([0.0, 2.0, float("nan")])
    assert_close(torch.clamp(x.to(D), lo.to(D), 1.5).cpu() if False else
                 torch.clamp(x.to(D), min=lo.to(D)).cpu(), torch.clamp(x, min=lo), equal_nan=True)


@pytest.mark.parametrize("dtype", [torch.uint8, torch.int8, torch.int16])
@pytest.mark.parametrize("fn", ["clamp", "clamp_", "clamp_min", "clamp_max"])
@pytest.mark.parametrize("limits", [(-1, 1), (-1, None), (None, 300), (2, 300), (-300, -200), (300, 400),
                                    (-40000, 40000), (None, -1), (200, None)])
def test_clamp_integer_limits_outside_the_dtype_like_this_torchs_cpu(dtype, fn, limits):
    # torch 2.13 converts an out-of-range limit to the dtype (-1 wraps to 255
    # for uint8, 300 raises); 2.15 ignores a limit past its own side of the
    # range and raises for one past the other (docs/torch-versions.md)
    lo, hi = limits
    if fn == "clamp_min":
        if lo is None:
            return
        call = lambda t: torch.clamp_min(t, lo)  # noqa: E731
    elif fn == "clamp_max":
        if hi is None:
            return
        call = lambda t: torch.clamp_max(t, hi)  # noqa: E731
    elif fn == "clamp_":
        call = lambda t: t.clone().clamp_(lo, hi)  # noqa: E731
    else:
        call = lambda t: torch.clamp(t, lo, hi)  # noqa: E731
    x = torch.tensor([-128, -5, 0, 1, 2, 5, 100, 127], dtype=torch.int16).to(dtype)
    try:
        want = call(x)
    except RuntimeError as e:
        with pytest.raises(RuntimeError) as got:
            call(x.to(D))
        assert str(got.value).split("\n")[0] == str(e).split("\n")[0]
        return
    got = call(x.to(D))
    assert got.dtype == want.dtype
    assert torch.equal(got.cpu(), want)


@pytest.mark.parametrize("args", [(), (0.5, 3.0, -4.0)])
def test_nan_to_num_out_complex_is_native(args):
    # torch 2.15's nan_to_num sends complex input to nan_to_num.out: the
    # real and imaginary parts are replaced as real elements, natively
    x = torch.tensor([complex(float("nan"), 1), complex(float("inf"), float("-inf")), complex(2, float("nan")),
                      complex(-1.5, 0.25)], dtype=torch.complex64)
    out = torch.empty(0, dtype=torch.complex64, device=D)
    torch.russet.reset_host_op_counts()
    torch.ops.aten.nan_to_num.out(x.to(D), *args, out=out)
    assert not torch.russet.host_op_counts()
    assert torch.equal(out.cpu(), torch.nan_to_num(x, *args))
    assert torch.equal(torch.nan_to_num(x.to(D), *args).cpu(), torch.nan_to_num(x, *args))
