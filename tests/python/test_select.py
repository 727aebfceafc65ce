"""Searching and selection (src/engine/select.c) against PyTorch CPU:
searchsorted, bucketize, nonzero, argwhere, where(cond), masked_select."""

import pytest
import torch
from torch.testing import assert_close

from opinfo_check import check_opinfo
from scan_sort_util import D, native


@pytest.mark.parametrize("name", ["searchsorted", "bucketize", "nonzero", "nonzero_static", "argwhere", "masked_select"])
def test_opinfo(name):
    check_opinfo(name)


DTYPES = [torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64, torch.float16, torch.bfloat16,
          torch.float32, torch.float64]


@pytest.mark.parametrize("dtype", DTYPES)
def test_searchsorted_forms(dtype):
    g = torch.Generator().manual_seed(0)
    b = torch.randint(0, 20, (3, 12), generator=g).sort(1)[0].to(dtype)
    v = torch.randint(-2, 22, (3, 9), generator=g).to(dtype)
    for right in (False, True):
        for out_int32 in (False, True):
            exp = torch.searchsorted(b, v, right=right, out_int32=out_int32)
            got = native(lambda: torch.searchsorted(b.to(D), v.to(D), right=right, out_int32=out_int32))
            assert got.dtype == exp.dtype and torch.equal(got.cpu(), exp)
        side = "right" if right else "left"
        exp = torch.searchsorted(b[0], v, side=side)
        assert torch.equal(native(lambda: torch.searchsorted(b[0].to(D), v.to(D), side=side)).cpu(), exp)
        exp = torch.bucketize(v, b[1], right=right)
        assert torch.equal(native(lambda: torch.bucketize(v.to(D), b[1].to(D), right=right)).cpu(), exp)
    # sorter
    u = torch.randint(0, 20, (3, 12), generator=g).to(dtype)
    srt = u.argsort(1)
    exp = torch.searchsorted(u, v, sorter=srt)
    # ATen's argument check takes the sorter's aminmax (a reduction, not
    # this engine's): the only op allowed on the host
    torch.russet.reset_host_op_counts()
    assert torch.equal(torch.searchsorted(u.to(D), v.to(D), sorter=srt.to(D)).cpu(), exp)
    assert set(torch.russet.host_op_counts()) <= {"aten::aminmax.out"}


def test_searchsorted_scalar_nan_mixed_dtypes():
    for dt in (torch.float32, torch.float64):
        b = torch.tensor([-0.0, 1.0, 2.0, 2.0, 3.0, float("nan")], dtype=dt)
        for val in (2, 2.5, float("nan"), -1, 0.0, -0.0):
            for right in (False, True):
                exp = torch.searchsorted(b, val, right=right)
                assert torch.equal(native(lambda: torch.searchsorted(b.to(D), val, right=right)).cpu(), exp)
    bi = torch.tensor([0, 3, 5, 9])
    vf = torch.tensor([[2.5, 5.0], [9.5, -1.0]])
    assert torch.equal(torch.searchsorted(bi.to(D), vf.to(D)).cpu(), torch.searchsorted(bi, vf))
    assert torch.equal(torch.bucketize(3, bi.to(D)).cpu(), torch.bucketize(3, bi))
    out = torch.empty(4, device=D, dtype=torch.int64)
    torch.searchsorted(bi.to(D), vf.to(D), out=out)
    assert torch.equal(out.cpu(), torch.searchsorted(bi, vf))


@pytest.mark.parametrize("dtype", [torch.bool, torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64,  # CPU lacks uint16-64
                                   torch.float16, torch.bfloat16,
                                   torch.float32, torch.complex64])
def test_nonzero_masked_select_dtypes(dtype):
    g = torch.Generator().manual_seed(1)
    x = (torch.randint(0, 3, (5, 7, 300), generator=g) == 0).to(dtype)
    if dtype.is_floating_point:
        x[0, 0, ::7] = float("nan")
        x[1, 1, ::5] = -0.0
    assert torch.equal(native(lambda: torch.nonzero(x.to(D))).cpu(), torch.nonzero(x))
    mask = torch.rand(5, 7, 300, generator=g) > 0.6
    assert_close(native(lambda: torch.masked_select(x.to(D), mask.to(D))).cpu(), torch.masked_select(x, mask),
                 equal_nan=True)


def test_nonzero_shapes_and_where():
    g = torch.Generator().manual_seed(2)
    for x in (torch.tensor(0.0), torch.tensor(2.0), torch.empty(0, 3), torch.zeros(4, 5),
              torch.randn(3, 4, 5, generator=g).transpose(0, 2) > 0.3):
        assert torch.equal(native(lambda: torch.nonzero(x.to(D))).cpu(), torch.nonzero(x))
        assert torch.equal(native(lambda: torch.argwhere(x.to(D))).cpu(), torch.argwhere(x))
    x = torch.randn(4, 6, generator=g) > 0
    got = torch.where(x.to(D))
    exp = torch.where(x)
    assert len(got) == len(exp) and all(torch.equal(a.cpu(), b) for a, b in zip(got, exp))
    big = torch.rand(200_000, generator=g) > 0.5
    assert torch.equal(native(lambda: torch.nonzero(big.to(D))).cpu(), torch.nonzero(big))
    # broadcast mask and a non-contiguous out=
    v = torch.randn(3, 4, generator=g)
    m = torch.tensor([True, False, True, True])
    assert torch.equal(native(lambda: torch.masked_select(v.to(D), m.to(D))).cpu(), torch.masked_select(v, m))
    out = torch.empty(2, 5, device=D, dtype=torch.int64).t()
    torch.nonzero(x.to(D), out=out)
    assert torch.equal(out.cpu(), torch.nonzero(x))


def test_errors():
    x = torch.randn(3, 4, device=D)
    with pytest.raises(RuntimeError, match="expected BoolTensor for mask"):
        torch.masked_select(x, (x > 0).to(torch.uint8))
    b = torch.arange(5, device=D)
    with pytest.raises(RuntimeError, match="side and right can't be set to opposites"):
        torch.searchsorted(b, b, right=True, side="left")
    with pytest.raises(RuntimeError, match="boundaries tensor must be 1 dimension"):
        torch.bucketize(b, b.reshape(1, 5))
    with pytest.raises(RuntimeError):
        torch.searchsorted(torch.arange(6, device=D).reshape(2, 3), torch.zeros(3, 2, device=D))


def _unique_check(name):
    from opinfo_check import HOST_DTYPES, _to, opinfo
    op = opinfo(name)
    checked = 0
    for dtype in sorted(op.supported_dtypes("cpu"), key=str):
        for s in list(op.sample_inputs("cpu", dtype))[:20]:
            exp = op.op(s.input, *s.args, **s.kwargs)
            torch.russet.reset_host_op_counts()
            got = op.op(s.input.to(D), *s.args, **_to(s.kwargs, D))
            host = torch.russet.host_op_counts()
            exp = exp if isinstance(exp, tuple) else (exp,)
            got = got if isinstance(got, tuple) else (got,)
            assert len(exp) == len(got)
            for e, g in zip(exp, got):
                assert_close(g.cpu(), e, equal_nan=True)
            # with a dim too: unique_dim and unique_dim_consecutive are native
            if dtype not in HOST_DTYPES:
                assert not host, f"{name} {dtype} {s}: ran on the host: {host}"
            checked += 1
    assert checked


@pytest.mark.parametrize("name", ["unique", "unique_consecutive"])
def test_opinfo_unique(name):
    _unique_check(name)


@pytest.mark.parametrize("dtype", [torch.bool, torch.uint8, torch.int8, torch.int32, torch.int64, torch.float16,
                                   torch.bfloat16, torch.float32, torch.float64])
def test_unique_forms(dtype):
    g = torch.Generator().manual_seed(3)
    x = torch.randint(0, 6, (4, 50), generator=g).to(dtype)
    if dtype.is_floating_point:
        x[0, ::9] = float("nan")
        x[1, ::4] = -0.0
    for ri in (False, True):
        for rc in (False, True):
            exp = torch.unique(x, return_inverse=ri, return_counts=rc)
            got = native(lambda: torch.unique(x.to(D), return_inverse=ri, return_counts=rc))
            exp = exp if isinstance(exp, tuple) else (exp,)
            got = got if isinstance(got, tuple) else (got,)
            assert_close(got[0].cpu(), exp[0], equal_nan=True)
            if ri:
                # which NaN slot a NaN maps to follows CPU's unstable sort:
                # the inverse must give back x
                assert_close(got[0].cpu()[got[1].cpu()], x, equal_nan=True)
            if rc:
                assert torch.equal(got[-1].cpu(), exp[-1])
            exp = torch.unique_consecutive(x, return_inverse=ri, return_counts=rc)
            got = native(lambda: torch.unique_consecutive(x.to(D), return_inverse=ri, return_counts=rc))
            exp = exp if isinstance(exp, tuple) else (exp,)
            got = got if isinstance(got, tuple) else (got,)
            for e, gg in zip(exp, got):
                assert_close(gg.cpu(), e, equal_nan=True)
    big = torch.randint(0, 1000, (30000,), generator=g)
    v, i, c = native(lambda: torch.unique(big.to(D), return_inverse=True, return_counts=True))
    ev, ei, ec = torch.unique(big, return_inverse=True, return_counts=True)
    assert torch.equal(v.cpu(), ev) and torch.equal(i.cpu(), ei) and torch.equal(c.cpu(), ec)
    e = torch.empty(0, 3)
    for a, b in zip(torch.unique(e.to(D), return_inverse=True, return_counts=True),
                    torch.unique(e, return_inverse=True, return_counts=True)):
        assert a.shape == b.shape


@pytest.mark.parametrize("dtype", [torch.bool, torch.uint8, torch.int16, torch.int64, torch.float16, torch.bfloat16,
                                   torch.float32])
def test_unique_dim(dtype):
    # rows (slices along dim) sorted lexicographically as CPU's unique_dim,
    # or consecutive runs; values laid out as CPU's (dim moved back over
    # the moved rows), inverse and counts equal to CPU's
    g = torch.Generator().manual_seed(4)
    for shape, dim in [((40, 3), 0), ((3, 40), 1), ((5, 6, 4), 1), ((2, 3, 30), -1), ((1, 5), 0), ((7, 1), 0)]:
        x = torch.randint(0, 3, shape, generator=g).to(dtype)
        for sort in (True, False):
            if sort:
                exp = torch.unique(x, dim=dim, return_inverse=True, return_counts=True)
                got = native(lambda: torch.unique(x.to(D), dim=dim, return_inverse=True, return_counts=True))
            else:
                exp = torch.unique_consecutive(x, dim=dim, return_inverse=True, return_counts=True)
                got = native(lambda: torch.unique_consecutive(x.to(D), dim=dim, return_inverse=True,
                                                              return_counts=True))
            for e, gg in zip(exp, got):
                assert gg.shape == e.shape and gg.dtype == e.dtype and gg.stride() == e.stride(), (shape, dim)
                assert torch.equal(gg.cpu(), e), (shape, dim, sort)
    # -0 equals +0; NaN rows are never equal (CPU: the same values)
    x = torch.tensor([[0.0, 1.0], [-0.0, 1.0], [float("nan"), 1.0], [float("nan"), 1.0], [2.0, 0.0]])
    if dtype.is_floating_point:
        x = x.to(dtype)
        exp = torch.unique(x, dim=0, return_counts=True)
        got = native(lambda: torch.unique(x.to(D), dim=0, return_counts=True))
        assert_close(got[0].cpu(), exp[0], equal_nan=True)
        assert torch.equal(got[1].cpu(), exp[1])


def test_unique_dim_edges_and_errors():
    # empty slices along dim, as CPU; CPU's errors for other zero-size dims
    for t, dim in [(torch.empty(0, 3), 0), (torch.empty(3, 0), 1)]:
        got = native(lambda: torch.ops.aten.unique_dim(t.to(D), dim, True, True, True))
        exp = torch.ops.aten.unique_dim(t, dim, True, True, True)
        assert [a.shape for a in got] == [b.shape for b in exp]
    with pytest.raises(RuntimeError, match="There are 0 sized dimensions, and they aren't selected"):
        torch.unique(torch.empty(3, 0, device=D), dim=0)
    with pytest.raises(RuntimeError, match="Number of zero sized dimensions is more than one"):
        torch.unique(torch.empty(0, 0, device=D), dim=1)
    with pytest.raises(IndexError):
        torch.unique(torch.ones(3, device=D), dim=2)
    with pytest.raises(NotImplementedError, match="unique_dim"):
        torch.ops.aten.unique_dim(torch.ones(2, 2, dtype=torch.complex64, device=D), 0)
    # float64 runs on the host under the apple profile (counted), as CPU
    x = torch.randint(0, 3, (20, 2)).double()
    assert torch.equal(torch.unique(x.to(D), dim=0).cpu(), torch.unique(x, dim=0))


def test_opinfo_counting():
    # float32 histc is native; float16/bfloat16/float64 histc run on the
    # host under apple. bincount's integer weights (a float64 result, summed
    # as int64 where they fit a double exactly) are native
    check_opinfo("histc", dtypes=[torch.float32, torch.float16, torch.bfloat16])
    check_opinfo("histc", dtypes=[torch.float64], native=False)
    check_opinfo("bincount")


def test_bincount_weights_of_other_dtypes():
    # CPU sums any weights but float32 as doubles: integer weights are exact
    # on both; float64 (and float16/bfloat16) sums need the device's fp64,
    # else host execution (counted)
    g = torch.Generator().manual_seed(7)
    x = torch.randint(0, 40, (2000,), generator=g)
    fp64 = torch.russet.get_device_properties().has_fp64
    for w in (torch.randint(-1000, 1000, (2000,), generator=g), torch.randint(0, 255, (2000,), generator=g).to(torch.uint8),
              torch.randint(0, 2, (2000,), generator=g).bool(), torch.randint(-5, 5, (2000,), generator=g).to(torch.int8)):
        exp = torch.bincount(x, weights=w, minlength=50)
        got = native(lambda: torch.bincount(x.to(D), weights=w.to(D), minlength=50)).cpu()
        assert got.dtype == exp.dtype == torch.float64 and torch.equal(got, exp), w.dtype
    # weights past 2^53 / n: int64 sums would not be CPU's double sums
    big = torch.full((2000,), 2 ** 50, dtype=torch.int64)
    exp = torch.bincount(x, weights=big)
    torch.russet.reset_host_op_counts()
    assert torch.equal(torch.bincount(x.to(D), weights=big.to(D)).cpu(), exp)
    if not fp64:
        assert torch.russet.host_op_counts().get("aten::bincount") == 1
    wd = torch.randn(2000, generator=g, dtype=torch.float64)
    got = torch.bincount(x.to(D), weights=wd.to(D)).cpu()
    assert torch.equal(got, torch.bincount(x, weights=wd))


def test_bincount_histc_forms():
    g = torch.Generator().manual_seed(4)
    for dt in (torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64):
        x = torch.randint(0, 50, (3000,), generator=g).to(dt)
        assert torch.equal(native(lambda: torch.bincount(x.to(D))).cpu(), torch.bincount(x))
        assert torch.equal(native(lambda: torch.bincount(x.to(D), minlength=80)).cpu(), torch.bincount(x, minlength=80))
    w = torch.rand(3000, generator=g)
    assert_close(native(lambda: torch.bincount(x.to(D), weights=w.to(D))).cpu(), torch.bincount(x, weights=w))
    assert torch.equal(native(lambda: torch.bincount(torch.empty(0, dtype=torch.int64, device=D), minlength=3)).cpu(),
                       torch.zeros(3, dtype=torch.int64))
    # float16 weights give float64 on CPU: host execution under apple
    wh = w.to(torch.float16)
    assert_close(torch.bincount(x.to(D), weights=wh.to(D)).cpu(), torch.bincount(x, weights=wh))
    y = torch.randn(5000, generator=g) * 3
    for args in ((), (10,), (7, -2, 2), (13, -1.5, 4.25)):
        assert torch.equal(native(lambda: torch.histc(y.to(D), *args)).cpu(), torch.histc(y, *args)), args
    y[::97] = float("nan")  # NaNs are skipped (with an explicit range)
    for args in ((7, -2, 2), (13, -1.5, 4.25), (100, -5, 5)):
        assert torch.equal(native(lambda: torch.histc(y.to(D), *args)).cpu(), torch.histc(y, *args)), args
    z = torch.randn(4, 6, generator=g).t()
    assert torch.equal(native(lambda: torch.histc(z.to(D), 5)).cpu(), torch.histc(z, 5))
    # float16/bfloat16: CPU's binning arithmetic rounds to the dtype; counts
    # below 256 are exact in both
    for dt in (torch.float16, torch.bfloat16):
        for k in range(6):
            h = (torch.randn(600, generator=g) * 3).to(dt)
            for args in ((7,), (100,), (13, -1.5, 4.25), (33, -9.0, 2.0)):
                assert torch.equal(native(lambda: torch.histc(h.to(D), *args)).cpu(), torch.histc(h, *args)), (dt, args)
    # past 256 per bin CPU's bfloat16 sums saturate; ours are the exact counts rounded once
    h = torch.zeros(1000, dtype=torch.bfloat16)
    assert native(lambda: torch.histc(h.to(D), 1)).cpu().item() == torch.tensor(1000.0).to(torch.bfloat16).item()
    assert torch.equal(torch.histc(torch.empty(0, device=D), 4).cpu(), torch.histc(torch.empty(0), 4))
    assert torch.equal(torch.histc(torch.full((5,), 2.0, device=D), 4).cpu(), torch.histc(torch.full((5,), 2.0), 4))
    # all values equal: CPU widens float32 ranges by at least one float step
    # (+-1 rounds back to the value past 2^24), and where float16/bfloat16
    # edges stay one value CPU's NaN bin estimate lands in bin 0
    for dt in (torch.float32, torch.float16, torch.bfloat16):
        for v in (1e8, -1e9, 3e38, 5000.0, 300.0, -257.0, 0.0):
            h = torch.full((5,), v).to(dt)
            if not torch.isfinite(h).all():
                continue
            try:
                exp = torch.histc(h, 4)
            except RuntimeError:  # +-1 lost in the double (3e38): CPU raises, so does russet
                with pytest.raises(RuntimeError, match="max must be larger than min"):
                    torch.histc(h.to(D), 4)
                continue
            assert torch.equal(native(lambda: torch.histc(h.to(D), 4)).cpu(), exp), (dt, v)


def test_counting_errors():
    with pytest.raises(RuntimeError, match="bincount only supports 1-d non-negative integral inputs"):
        torch.bincount(torch.tensor([-1, 2], device=D))
    with pytest.raises(RuntimeError, match="bincount only supports 1-d non-negative integral inputs"):
        torch.bincount(torch.tensor([[1]], device=D))
    with pytest.raises(RuntimeError, match="minlength should be >= 0"):
        torch.bincount(torch.tensor([1], device=D), minlength=-1)
    with pytest.raises(RuntimeError, match="weights should be 1-d and have the same length as input"):
        torch.bincount(torch.tensor([1, 2], device=D), weights=torch.ones(1, device=D))
    with pytest.raises(RuntimeError, match="bins must be > 0"):
        torch.histc(torch.ones(3, device=D), bins=0)
    with pytest.raises(RuntimeError, match="max must be larger than min"):
        torch.histc(torch.ones(3, device=D), min=3, max=1)
    with pytest.raises(RuntimeError, match="is not finite"):
        torch.histc(torch.tensor([1.0, float("nan")], device=D))


def test_nonzero_static():
    g = torch.Generator().manual_seed(5)
    x = torch.randn(7, 300, generator=g) > 0.5
    for size in (0, 1, 10, 2000, 3000):
        for fill in (-1, 5):
            exp = torch.nonzero_static(x, size=size, fill_value=fill)
            got = native(lambda: torch.nonzero_static(x.to(D), size=size, fill_value=fill))
            assert torch.equal(got.cpu(), exp)
    with pytest.raises(RuntimeError, match="'size' must be an non-negative integer"):
        torch.nonzero_static(x.to(D), size=-1)


@pytest.mark.parametrize("dtype", [torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64, torch.float16,
                                   torch.bfloat16, torch.float32], ids=str)
def test_isin_opinfo(dtype):
    check_opinfo("isin", dtypes=[dtype])


def test_isin_values_and_forms():
    # NaN is never in, -0 equals 0, mixed dtypes promote, invert, empty test
    e = torch.tensor([[0.0, -0.0, 1.5, float("nan")], [3.0, 7.0, -2.0, 1e30]])
    t = torch.tensor([float("nan"), 0.0, 3, -2, 5, 1e30, 1.5000001])
    for inv in (False, True):
        want = torch.isin(e, t, invert=inv)
        assert torch.equal(native(lambda: torch.isin(e.to(D), t.to(D), invert=inv)).cpu(), want)
        assert torch.equal(native(lambda: torch.isin(e.t().to(D), t.to(D)[::2], invert=inv)).cpu(),
                           torch.isin(e.t(), t[::2], invert=inv))
    ei = torch.arange(-5, 5, dtype=torch.int32)
    ti = torch.tensor([[1.0, 2.5], [-3.0, 4.0]])
    assert torch.equal(native(lambda: torch.isin(ei.to(D), ti.to(D))).cpu(), torch.isin(ei, ti))
    assert torch.equal(native(lambda: torch.isin(ei.to(D), torch.empty(0, device=D))).cpu(),
                       torch.zeros(10, dtype=torch.bool))
    assert torch.equal(native(lambda: torch.isin(ei.to(D), 3)).cpu(), torch.isin(ei, 3))
    assert torch.equal(native(lambda: torch.isin(3, ei.to(D))).cpu(), torch.isin(3, ei))
    out = torch.empty(0, dtype=torch.bool, device=D)
    torch.isin(ei.to(D), ei.to(D)[:3], out=out)
    assert torch.equal(out.cpu(), torch.isin(ei, ei[:3]))


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16, torch.float16, torch.complex64])
def test_denormals_are_nonzero(dtype):
    # a denormal is true and nonzero, as on CPU, on a device that flushes
    # denormals in its float comparisons (NVIDIA float32 without
    # DenormPreserve: the H200 made bfloat16 0x8001 false)
    tiny = {torch.float16: 6e-8, torch.bfloat16: 1e-40, torch.float32: 1e-40, torch.complex64: 1e-40}[dtype]
    x = torch.tensor([tiny, -tiny, 0.0, -0.0, float("nan"), 1.0, -tiny]).to(dtype)
    if dtype == torch.complex64:
        x = x * 1j  # the imaginary part decides
    assert x[0] != 0  # the test's value is a denormal of the dtype, not a zero
    d = x.to(D)
    assert torch.equal(d.bool().cpu(), x.bool())
    assert torch.equal(native(lambda: torch.logical_not(d)).cpu(), torch.logical_not(x))
    assert torch.equal(native(lambda: torch.nonzero(d)).cpu(), torch.nonzero(x))
    assert torch.equal(native(lambda: torch.count_nonzero(d)).cpu(), torch.count_nonzero(x))
