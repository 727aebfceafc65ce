import math

import pytest
import torch
from torch.testing import assert_close

D = "russet"

ALL_DTYPES = [
    torch.bool, torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64,
    torch.uint16, torch.uint32, torch.uint64,
    torch.float16, torch.bfloat16, torch.float32, torch.float64,
    torch.complex64, torch.complex128,
]
FLOAT_DTYPES = [torch.float16, torch.bfloat16, torch.float32, torch.float64]
ARANGE_DTYPES = [torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64,
                 torch.float16, torch.bfloat16, torch.float32, torch.float64]


def same(dev, cpu):
    assert dev.device.type == D
    assert dev.dtype == cpu.dtype
    assert dev.shape == cpu.shape
    assert dev.stride() == cpu.stride()
    assert_close(dev.cpu(), cpu, rtol=0, atol=0, equal_nan=True)


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
def test_empty(dtype):
    t = torch.empty(3, 5, device=D, dtype=dtype)
    assert t.device.type == D and t.dtype == dtype and t.shape == (3, 5)
    assert t.is_contiguous()
    s = torch.empty_strided((3, 4), (1, 3), device=D, dtype=dtype)
    assert s.stride() == (1, 3)
    z = torch.empty(0, device=D, dtype=dtype)
    assert z.numel() == 0 and z.cpu().numel() == 0


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
def test_zeros_ones(dtype):
    same(torch.zeros(4, 7, device=D, dtype=dtype), torch.zeros(4, 7, dtype=dtype))
    same(torch.ones(4, 7, device=D, dtype=dtype), torch.ones(4, 7, dtype=dtype))
    same(torch.zeros(0, 3, device=D, dtype=dtype), torch.zeros(0, 3, dtype=dtype))
    same(torch.ones((), device=D, dtype=dtype), torch.ones((), dtype=dtype))


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
def test_full(dtype):
    if dtype == torch.bool:
        value = True
    elif dtype.is_complex:
        value = complex(1.5, -2.25)
    elif dtype.is_floating_point:
        value = -3.375
    elif dtype in (torch.uint8, torch.uint16, torch.uint32, torch.uint64):
        value = 7
    else:
        value = -7
    same(torch.full((5, 3), value, device=D, dtype=dtype), torch.full((5, 3), value, dtype=dtype))


def test_full_extremes():
    for dtype in [torch.int64, torch.int32, torch.int16, torch.int8, torch.uint8]:
        info = torch.iinfo(dtype)
        for v in (info.min, info.max):
            same(torch.full((3,), v, device=D, dtype=dtype), torch.full((3,), v, dtype=dtype))
    for dtype in FLOAT_DTYPES:
        for v in (float("inf"), float("-inf"), float("nan"), -0.0, torch.finfo(dtype).max,
                  torch.finfo(dtype).tiny):
            same(torch.full((3,), v, device=D, dtype=dtype), torch.full((3,), v, dtype=dtype))


def test_fill_and_zero():
    t = torch.empty(6, 4, device=D)
    t.fill_(2.5)
    same(t, torch.full((6, 4), 2.5))
    t.zero_()
    same(t, torch.zeros(6, 4))
    # through a non-contiguous view
    t[:, 1].fill_(9.0)
    ref = torch.zeros(6, 4)
    ref[:, 1] = 9.0
    same(t, ref)
    t.t()[2].zero_()
    same(t, ref)


@pytest.mark.parametrize("dtype", [torch.float32, torch.int64, torch.float16, torch.bool,
                                   torch.complex64, torch.bfloat16, torch.uint8], ids=str)
def test_like(dtype):
    base = torch.ones(3, 4, device=D, dtype=dtype).t()
    e = torch.empty_like(base)
    assert e.device.type == D and e.dtype == dtype and e.shape == base.shape
    # preserve_format keeps the (transposed) strides of a dense tensor, as on CPU
    assert e.stride() == torch.empty_like(torch.ones(3, 4, dtype=dtype).t()).stride()
    same(torch.zeros_like(base), torch.zeros_like(base.cpu()))
    same(torch.ones_like(base), torch.ones_like(base.cpu()))
    v = True if dtype == torch.bool else 3
    same(torch.full_like(base, v), torch.full_like(base.cpu(), v))
    f = torch.full_like(base, v, dtype=torch.float32)
    same(f, torch.full_like(base.cpu(), v, dtype=torch.float32))
    c = torch.zeros_like(torch.ones(4, device="cpu"), device=D)
    same(c, torch.zeros(4))


@pytest.mark.parametrize("dtype", ARANGE_DTYPES, ids=str)
def test_arange(dtype):
    cases = [(10,), (2, 20, 3), (0, 50)]
    if dtype.is_floating_point:
        cases += [(-1.5, 2.5, 0.25), (0.0, 1.0, 0.1), (5.0, -5.0, -0.75)]
    elif dtype not in (torch.uint8,):
        cases += [(10, -10, -3)]
    for args in cases:
        same(torch.arange(*args, device=D, dtype=dtype), torch.arange(*args, dtype=dtype))


def test_arange_default_dtypes():
    same(torch.arange(7, device=D), torch.arange(7))
    same(torch.arange(0.5, 3.0, 0.5, device=D), torch.arange(0.5, 3.0, 0.5))
    same(torch.arange(0, 2**33, 2**30, device=D), torch.arange(0, 2**33, 2**30))


@pytest.mark.parametrize("dtype", FLOAT_DTYPES + [torch.int32, torch.int64, torch.complex64],
                         ids=str)
def test_linspace(dtype):
    for start, end, steps in [(0, 1, 5), (-3, 7, 11), (2, -2, 8), (0, 100, 1), (1, 2, 0),
                              (-1, 1, 33)]:
        dev = torch.linspace(start, end, steps, device=D, dtype=dtype)
        cpu = torch.linspace(start, end, steps, dtype=dtype)
        if dtype == torch.complex64:
            # complex<float> arithmetic: within one float32 ulp
            assert dev.shape == cpu.shape and dev.dtype == cpu.dtype and dev.device.type == D
            assert_close(dev.cpu(), cpu, rtol=1.2e-7, atol=1.2e-7)
        else:
            same(dev, cpu)


def test_linspace_overflow_errors():
    # CPU converts start and end to the dtype with a check
    for args, kw in (((1e8, 2e8, 5), {"dtype": torch.float16}), ((0, 1e10, 5), {"dtype": torch.int32}),
                     ((0.0, 1e39, 3), {})):
        with pytest.raises(RuntimeError, match="without overflow"):
            torch.linspace(*args, **kw)
        with pytest.raises(RuntimeError, match="without overflow"):
            torch.linspace(*args, **kw, device=D)
    with pytest.raises(NotImplementedError):
        torch.linspace(0, 1, 5, dtype=torch.bool, device=D)


def _result_or_error(fn):
    try:
        return fn().cpu()
    except RuntimeError as e:
        return "RuntimeError: " + str(e).split("\n")[0]


@pytest.mark.parametrize("fn", ["linspace", "logspace"])
def test_range_factories_convert_start_and_end_as_cpu(fn):
    # one step: CPU fills start (linspace) or 10^start (logspace) and checks
    # neither against the dtype's range; two or more convert both with a check
    # (found by the GPU fuzz: linspace(-2, -1e6, 1, dtype=int8))
    for dt in (torch.int8, torch.uint8, torch.int64, torch.float16, torch.bfloat16, torch.float32,
               torch.complex64):
        for steps in (1, 2, 3):
            for s, e in ((2.0, -1e6), (-1e6, 2.0), (2.0, 300.0), (1e6, 1e6), (300.0, 2.0), (1.5, -0.5)):
                want = _result_or_error(lambda: getattr(torch, fn)(s, e, steps, dtype=dt))
                got = _result_or_error(lambda: getattr(torch, fn)(s, e, steps, dtype=dt, device=D))
                if isinstance(want, str) or isinstance(got, str):
                    assert got == want, (fn, dt, steps, s, e)
                else:
                    assert_close(got, want, equal_nan=True, msg=lambda m: f"{fn} {dt} {steps} {s} {e}: {m}")


def test_linspace_float32_bit_exact():
    # CPU's float32 linspace: start + step * i (end - step * (steps - 1 - i)
    # past halfway) with one rounding (its build fuses the multiply-add)
    g = torch.Generator().manual_seed(0)
    for _ in range(60):
        base = float(torch.randn(1, generator=g)) * 10 ** int(torch.randint(-3, 7, (1,), generator=g))
        width = float(torch.rand(1, generator=g)) * 10 ** int(torch.randint(-5, 4, (1,), generator=g))
        n = int(torch.randint(1, 500, (1,), generator=g))
        for lo, hi in ((base, base + width), (base + width, base)):
            same(torch.linspace(lo, hi, n, device=D), torch.linspace(lo, hi, n))
    same(torch.linspace(1e4, 1e4 + 0.01, 101, device=D), torch.linspace(1e4, 1e4 + 0.01, 101))


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.float16, torch.bfloat16],
                         ids=str)
def test_logspace(dtype):
    for start, end, steps, base in [(0, 3, 4, 10.0), (-2, 2, 9, 2.0), (1, 0, 5, math.e),
                                    (0, 1, 1, 10.0)]:
        dev = torch.logspace(start, end, steps, base=base, device=D, dtype=dtype)
        cpu = torch.logspace(start, end, steps, base=base, dtype=dtype)
        assert dev.dtype == dtype and dev.device.type == D
        # pow in a kernel may differ from libm by an ulp or so
        assert_close(dev.cpu(), cpu)


@pytest.mark.parametrize("dtype", [torch.float32, torch.int64, torch.bool, torch.float16,
                                   torch.complex64, torch.float64], ids=str)
def test_eye(dtype):
    for args in [(4,), (3, 5), (5, 2), (0,), (1, 1)]:
        same(torch.eye(*args, device=D, dtype=dtype), torch.eye(*args, dtype=dtype))


def test_tensor_constructor_and_scalars():
    data = [[1.5, -2.0], [3.25, 4.0]]
    same(torch.tensor(data, device=D), torch.tensor(data))
    assert torch.tensor(3.5, device=D).item() == 3.5
    assert torch.tensor(-7, device=D).item() == -7
    assert torch.tensor(True, device=D).item() is True
    assert torch.tensor(2**40 + 3, device=D).item() == 2**40 + 3
    assert torch.tensor(1 + 2j, device=D).item() == 1 + 2j


def test_clone_and_contiguous():
    base = torch.arange(24, dtype=torch.float32).reshape(4, 6)
    t = base.to(D)
    c = t.clone()
    assert c.untyped_storage().data_ptr() != t.untyped_storage().data_ptr()
    same(c, base)
    tt = t.t()
    cc = tt.contiguous()
    assert cc.is_contiguous()
    same(cc, base.t().contiguous())
    assert t.contiguous() is t
    same(tt.clone(), base.t().clone())


def test_tensors_of_more_dims_than_descriptors_hold():
    # PyTorch allows more dims than russet's descriptors hold (RS_MAX_DIMS,
    # 25): copies, fills and random fills describe such a tensor without its
    # size-1 dims, and so do reductions; the reductions' own 64-dim limit
    # raises as on CPU
    shape = [1] * 40 + [3, 1, 2]
    x = torch.randn(shape)
    d = x.to(D)
    assert d.shape == x.shape and torch.equal(d.cpu(), x)
    d.fill_(2.5)
    assert torch.equal(d.cpu(), torch.full(shape, 2.5))
    assert torch.equal(torch.ones(shape, device=D).cpu(), torch.ones(shape))
    u = torch.empty(shape, device=D).uniform_()
    assert ((u >= 0) & (u < 1)).all().item() and u.cpu().unique().numel() == 6
    b = torch.randint(0, 2, [1] * 65, device=D, dtype=torch.bool)
    with pytest.raises(RuntimeError, match="only tensors with up to 64 dims are supported"):
        torch.amax(b, dim=64)
    # a strided one too
    y = torch.randn([1] * 30 + [4, 5]).transpose(-1, -2)
    assert torch.equal(y.to(D).cpu(), y)
    # reductions go without the size-1 dims (reduced or not)
    for f in (lambda t: t.sum(), lambda t: t.sum(-1), lambda t: t.sum(31, keepdim=True), lambda t: t.amax((0, 30)),
              lambda t: t.var(30), lambda t: t.argmax()):
        assert_close(f(y.to(D)).cpu(), f(y))
    for dim in (3, 31):  # a size-1 dim and a real one, with indices
        vg, ig = y.to(D).max(dim=dim)
        ve, ie = y.max(dim=dim)
        assert torch.equal(vg.cpu(), ve) and torch.equal(ig.cpu(), ie)
