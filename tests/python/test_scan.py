"""Scans (src/engine/scan.c) against PyTorch CPU: cumsum, cumprod, cummax,
cummin, logcumsumexp."""

import pytest
import torch
from torch.testing import assert_close

from opinfo_check import check_opinfo
from scan_sort_util import D, native

SCANS = ["cumsum", "cumprod", "cummax", "cummin", "logcumsumexp"]


@pytest.mark.parametrize("name", SCANS)
def test_opinfo(name):
    # complex128 scans, and float64 logcumsumexp, have no kernels yet (host)
    check_opinfo(name, host_dtypes=(torch.float64, torch.complex128) if name == "logcumsumexp" else (torch.complex128,))


INT_DTYPES = [torch.bool, torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64,
              torch.uint16, torch.uint32, torch.uint64]


@pytest.mark.parametrize("dtype", INT_DTYPES + [torch.float16, torch.bfloat16, torch.float32])
def test_cumsum_cumprod_dtypes(dtype):
    g = torch.Generator().manual_seed(0)
    if dtype == torch.bool:
        x = torch.rand(4, 37, generator=g) > 0.5
    elif dtype.is_floating_point:
        x = (torch.rand(4, 37, generator=g) + 0.5).to(dtype)
    else:
        x = torch.randint(0, 5, (4, 37), generator=g).to(dtype)
    for dim in (0, 1, -1):
        for f in (torch.cumsum, torch.cumprod):
            if dtype in (torch.uint16, torch.uint32, torch.uint64):
                try:
                    exp = f(x, dim)
                except RuntimeError:
                    continue
            else:
                exp = f(x, dim)
            got = native(lambda: f(x.to(D), dim))
            assert got.dtype == exp.dtype
            assert_close(got.cpu(), exp)


def test_cumsum_dtype_arg_and_out():
    x = torch.arange(-20, 20, dtype=torch.int8).reshape(4, 10)
    for dt in (torch.int8, torch.int32, torch.float32, torch.float16):
        exp = torch.cumsum(x, 1, dtype=dt)
        got = native(lambda: torch.cumsum(x.to(D), 1, dtype=dt))
        assert got.dtype == dt
        assert_close(got.cpu(), exp)
    out = torch.empty(0, device=D, dtype=torch.int64)
    native(lambda: torch.cumsum(x.to(D), 0, out=out))
    assert_close(out.cpu(), torch.cumsum(x, 0))
    # in place
    y = torch.rand(5, 6)
    yd = y.to(D)
    native(lambda: yd.cumsum_(0))
    assert_close(yd.cpu(), y.cumsum(0))


def test_noncontiguous_and_strided_out():
    x = torch.randn(6, 7, 5)
    xt = x.transpose(0, 2)
    for dim in range(3):
        assert_close(native(lambda: torch.cumsum(xt.to(D), dim)).cpu(), torch.cumsum(xt, dim))
        v, i = native(lambda: torch.cummin(xt.to(D), dim))
        ev, ei = torch.cummin(xt, dim)
        assert_close(v.cpu(), ev)
        assert torch.equal(i.cpu(), ei)
    xd = x.to(D)
    out = torch.empty(5, 7, 6, device=D).transpose(0, 2)
    native(lambda: torch.cumprod(xd[:, :, :], 1, out=out))
    assert_close(out.cpu(), torch.cumprod(x, 1))
    # a strided (sliced) input
    xs = x[::2, 1:, ::2]
    assert_close(native(lambda: torch.logcumsumexp(xs.to(D), 1)).cpu(), torch.logcumsumexp(xs, 1))


def test_empty_and_scalar():
    for x in (torch.empty(0, 3), torch.empty(3, 0), torch.tensor(2.5)):
        for f in (torch.cumsum, torch.cumprod, torch.logcumsumexp):
            assert_close(native(lambda: f(x.to(D), 0)).cpu(), f(x, 0))
        v, i = native(lambda: torch.cummax(x.to(D), 0))
        ev, ei = torch.cummax(x, 0)
        assert_close(v.cpu(), ev)
        assert torch.equal(i.cpu(), ei)


def test_long_rows_precision():
    # float32 accumulates in double on CPU; float-float here
    g = torch.Generator().manual_seed(1)
    x = torch.randn(3, 20000, generator=g)
    assert_close(native(lambda: torch.cumsum(x.to(D), 1)).cpu(), torch.cumsum(x, 1))
    y = 1 + torch.randn(2, 3000, generator=g) * 1e-3
    assert_close(native(lambda: torch.cumprod(y.to(D), 1)).cpu(), torch.cumprod(y, 1))
    i = torch.randint(-1000, 1000, (5000,), generator=g, dtype=torch.int32)
    assert torch.equal(native(lambda: torch.cumsum(i.to(D), 0)).cpu(), torch.cumsum(i, 0))
    assert_close(native(lambda: torch.logcumsumexp(x.to(D), 1)).cpu(), torch.logcumsumexp(x, 1))


def test_cummax_cummin_ties_nan_inf():
    nan, inf = float("nan"), float("inf")
    x = torch.tensor([[1, 3, 3, 2, nan, 5, nan, 0], [-inf, -inf, 2, 2, inf, inf, -1, nan]])
    for f in (torch.cummax, torch.cummin):
        for dt in (torch.float32, torch.float16, torch.bfloat16):
            v, i = native(lambda: f(x.to(dt).to(D), 1))
            ev, ei = f(x.to(dt), 1)
            assert_close(v.cpu(), ev, equal_nan=True)
            assert torch.equal(i.cpu(), ei)
    n = torch.randint(0, 4, (3, 6000), dtype=torch.int64)  # the three-pass path
    for f in (torch.cummax, torch.cummin):
        v, i = native(lambda: f(n.to(D), 1))
        ev, ei = f(n, 1)
        assert torch.equal(v.cpu(), ev) and torch.equal(i.cpu(), ei)
    xf = torch.randn(2, 7000)
    xf[0, 3000:3010] = float("nan")
    for f in (torch.cummax, torch.cummin):
        v, i = native(lambda: f(xf.to(D), 1))
        ev, ei = f(xf, 1)
        assert torch.equal(i.cpu(), ei)
        assert_close(v.cpu(), ev, equal_nan=True)
    u = torch.tensor([0, 200, 7, 255, 3, 255, 0], dtype=torch.uint8)
    for f in (torch.cummax, torch.cummin):
        v, i = native(lambda: f(u.to(D), 0))
        ev, ei = f(u, 0)
        assert torch.equal(v.cpu(), ev) and torch.equal(i.cpu(), ei)


def test_logcumsumexp_infinities():
    inf = float("inf")
    x = torch.tensor([-inf, -inf, 0.0, inf, 1.0, inf, float("nan"), 2.0])
    assert_close(native(lambda: torch.logcumsumexp(x.to(D), 0)).cpu(), torch.logcumsumexp(x, 0), equal_nan=True)


def complex_lcse_ref(x):
    """CPU's complex logcumsumexp fold along the last dim, in complex128
    (CPU accumulates complex64 in complex<double>)."""
    return torch.logcumsumexp(x.to(torch.complex128), -1).to(torch.complex64)


def test_logcumsumexp_complex():
    # complex64: one sequential fold per row in CPU's order (a reordered
    # fold can land 2*pi away in the imaginary part)
    g = torch.Generator().manual_seed(0)
    # (1, 70000): several dispatches per row (lavapipe ends a shader's loops
    # after 65535 iterations)
    for shape in [(1, 1), (5, 9), (3, 2000), (70, 33), (1, 70000)]:
        x = torch.complex(torch.rand(shape, generator=g) * 18 - 9, torch.rand(shape, generator=g) * 18 - 9)
        got = native(lambda: torch.logcumsumexp(x.to(D), -1)).cpu()
        assert_close(got, torch.logcumsumexp(x, -1))
        # the imaginary parts follow CPU's branch, not only modulo 2*pi
        assert_close(got.imag, torch.logcumsumexp(x, -1).imag)
    # another dim, non-contiguous input, out=
    x = torch.complex(torch.randn(6, 8, 4, generator=g) * 4, torch.randn(6, 8, 4, generator=g) * 4)
    xs = x.to(D).transpose(0, 2)
    assert_close(native(lambda: torch.logcumsumexp(xs, 1)).cpu(), torch.logcumsumexp(x.transpose(0, 2), 1))
    out = torch.empty(0, dtype=torch.complex64, device=D)
    native(lambda: torch.logcumsumexp(x.to(D), 0, out=out))
    assert_close(out.cpu(), torch.logcumsumexp(x, 0))


def test_logcumsumexp_complex_special():
    inf, nan = float("inf"), float("nan")
    rows = [
        [complex(-inf, 0), complex(1, 2), complex(nan, 0), complex(3, 1)],
        [complex(-inf, 1), complex(-inf, 2), complex(inf, 0), complex(inf, 3)],
        [complex(0, nan), complex(1, 1), complex(2, 2), complex(3, 3)],
        [complex(2, 3), complex(2, -3), complex(-inf, 5), complex(2, 3.0)],
        [complex(-50, 1), complex(50, -1), complex(-1e30, 0), complex(0, 0)],
    ]
    x = torch.tensor(rows, dtype=torch.complex64)
    got = native(lambda: torch.logcumsumexp(x.to(D), 1)).cpu()
    assert_close(got, torch.logcumsumexp(x, 1), equal_nan=True)


def test_logcumsumexp_complex_backward():
    g = torch.Generator().manual_seed(1)
    x = torch.complex(torch.randn(3, 7, generator=g), torch.randn(3, 7, generator=g)).requires_grad_()
    xd = x.detach().to(D).requires_grad_()
    gr = torch.complex(torch.randn(3, 7, generator=g), torch.randn(3, 7, generator=g))
    (gx,) = torch.autograd.grad(torch.logcumsumexp(x, 1), x, gr)
    (gd,) = torch.autograd.grad(torch.logcumsumexp(xd, 1), xd, gr.to(D))
    assert_close(gd.cpu(), gx)


def test_float64():
    # cumsum/cumprod need fp64 (host under apple); cummax/cummin compare bits
    x = torch.randn(4, 3000, dtype=torch.float64)
    x[1, ::7] = float("nan")
    x[2, ::5] = -0.0
    assert_close(torch.cumsum(x.to(D), 1).cpu(), torch.cumsum(x, 1), equal_nan=True)
    for f in (torch.cummax, torch.cummin):
        v, i = native(lambda: f(x.to(D), 1))
        ev, ei = f(x, 1)
        assert torch.equal(i.cpu(), ei)
        assert_close(v.cpu(), ev, equal_nan=True)


def test_backward():
    x = torch.randn(4, 6, requires_grad=True)
    xd = x.detach().to(D).requires_grad_()
    for f in (lambda t: t.cumsum(1), lambda t: t.cumprod(1), lambda t: t.logcumsumexp(1),
              lambda t: t.cummax(1)[0], lambda t: t.cummin(0)[0]):
        g = torch.randn(4, 6)
        (gx,) = torch.autograd.grad(f(x), x, g)
        (gd,) = torch.autograd.grad(f(xd), xd, g.to(D))
        assert_close(gd.cpu(), gx)


def test_errors():
    x = torch.randn(3, 4, device=D)
    with pytest.raises(IndexError, match="Dimension out of range"):
        torch.cumsum(x, 2)
    with pytest.raises(IndexError, match="Dimension out of range"):
        torch.cummax(x, -3)
    with pytest.raises(RuntimeError, match="Expected out tensor to have dtype"):
        torch.cumsum(x, 0, dtype=torch.float16, out=torch.empty(3, 4, device=D, dtype=torch.int64))
