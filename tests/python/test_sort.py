"""Sorting (src/engine/sort.c) against PyTorch CPU: sort, argsort, msort,
topk, kthvalue, median, nanmedian."""

import pytest
import torch
from torch.testing import assert_close

from opinfo_check import check_opinfo
from scan_sort_util import D, check_samples, native, values_and_consistent_indices

ALL = [torch.bool, torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64, torch.uint16,
       torch.uint32, torch.uint64, torch.float16, torch.bfloat16, torch.float32, torch.float64]


def _bits(t):
    """The tensor's bit patterns (NaN payloads and -0.0 included), for exact
    comparisons: the sort's values are decoded from keys where the key
    determines the bits, and read from the source elsewhere."""
    if t.dtype.is_floating_point:
        return t.view({2: torch.int16, 4: torch.int32, 8: torch.int64}[t.element_size()])
    return t


def _stable_sort_compare(expected, got, s):
    # CPU's unstable sort may order ties differently: compare values, and
    # that the indices gather them
    if isinstance(expected, torch.Tensor):
        exp_v = expected
        got_v = got
        if exp_v.dtype == torch.int64 and s.input.dtype != torch.int64:  # argsort
            x = s.input
            dim = s.kwargs.get("dim", s.args[0] if s.args else -1) if x.dim() else 0
            if x.dim() == 0:
                assert torch.equal(got, expected)
                return
            assert_close(x.gather(dim, got), x.gather(dim, expected), equal_nan=True)
            return
        assert_close(got_v, exp_v, equal_nan=True)
        return
    x = s.input
    assert_close(got[0], expected[0], equal_nan=True)
    if x.dim() == 0:
        assert got[1].item() == 0
        return
    dim = s.kwargs.get("dim", s.args[0] if s.args and isinstance(s.args[0], int) else -1)
    assert_close(x.gather(dim, got[1]), got[0], equal_nan=True)
    if s.kwargs.get("stable"):
        assert torch.equal(got[1], expected[1])


@pytest.mark.parametrize("name", ["sort", "argsort", "msort"])
def test_opinfo_sort(name):
    check_samples(name, _stable_sort_compare)


def test_opinfo_topk():
    def dim_of(s):
        return s.kwargs.get("dim", s.args[1] if len(s.args) > 1 else -1)

    def cmp(expected, got, s):
        if len(s.args) > 3 and not s.args[3]:  # sorted=False: same set of values
            ev = expected[0].sort(dim_of(s))[0] if s.input.dim() else expected[0]
            gv = got[0].sort(dim_of(s))[0] if s.input.dim() else got[0]
            assert_close(gv, ev, equal_nan=True)
            if s.input.dim():
                assert_close(s.input.gather(dim_of(s), got[1]), got[0], equal_nan=True)
            return
        values_and_consistent_indices(expected, got, s, dim_of)

    check_samples("topk", cmp)


@pytest.mark.parametrize("name", ["kthvalue", "median", "nanmedian", "mode"])
def test_opinfo_order_statistics(name):
    def dim_of(s):
        a = s.args[1:] if name == "kthvalue" else s.args
        return s.kwargs.get("dim", a[0] if a else -1)

    def cmp(expected, got, s):
        if isinstance(expected, torch.Tensor):  # median() of all elements
            assert_close(got, expected, equal_nan=True)
        else:
            values_and_consistent_indices(expected, got, s, dim_of)

    check_samples(name, cmp)


@pytest.mark.parametrize("dtype", ALL)
def test_sort_dtypes_stable_exact(dtype):
    g = torch.Generator().manual_seed(3)
    if dtype == torch.bool:
        x = torch.rand(5, 300, generator=g) > 0.5
    elif dtype.is_floating_point:
        x = torch.randint(-8, 8, (5, 300), generator=g).to(dtype) / 4
        x[0, ::7] = float("nan")
        x[1, ::5] = float("inf")
        x[1, ::11] = -float("inf")
        x[2, ::3] = -0.0
    elif dtype in (torch.uint16, torch.uint32, torch.uint64):
        x = torch.randint(0, 60000, (5, 300), generator=g).to(dtype)
    else:
        info = torch.iinfo(dtype)
        x = torch.randint(max(info.min, -100), min(info.max, 100), (5, 300), generator=g).to(dtype)
    for dim in (0, 1):
        for desc in (False, True):
            ev, ei = torch.sort(x, dim=dim, descending=desc, stable=True)
            v, i = native(lambda: torch.sort(x.to(D), dim=dim, descending=desc, stable=True))
            assert torch.equal(i.cpu(), ei), (dtype, dim, desc)
            assert_close(v.cpu(), ev, equal_nan=True)
            assert torch.equal(_bits(v.cpu()), _bits(ev)), (dtype, dim, desc)


# the radix sort's two rankings of the scatter (src/engine/sort.c); the
# device falls back to "shared" where it has no subgroup ballots
RANKS = [("shared", None), ("subgroup", "4"), ("subgroup", "8")]


def _set_rank(monkeypatch, rank, items):
    monkeypatch.setenv("RUSSET_SORT_RANK", rank)
    if items:
        monkeypatch.setenv("RUSSET_SORT_ITEMS", items)
    else:
        monkeypatch.delenv("RUSSET_SORT_ITEMS", raising=False)


def test_radix_rank_capability():
    # the subgroup ranking runs wherever ballots are reported; lavapipe has
    # them (subgroups of 8 here, under either profile), so the tests below
    # do exercise it there
    p = torch.russet.get_device_properties()
    assert p.features.has_subgroup_ballot in (0, 1)
    if p.is_cpu and "llvmpipe" in p.name:
        assert p.features.has_subgroup_ballot == 1


@pytest.mark.parametrize("rank,items", RANKS)
@pytest.mark.parametrize("dtype", ALL)
def test_sort_long_rows_radix_dtypes(dtype, rank, items, monkeypatch):
    # rows longer than a shared-memory block take the radix sort
    _set_rank(monkeypatch, rank, items)
    g = torch.Generator().manual_seed(7)
    if dtype == torch.bool:
        x = torch.rand(2, 6000, generator=g) > 0.5
    elif dtype.is_floating_point:
        x = torch.randint(-300, 300, (2, 6000), generator=g).to(dtype) / 8
        x[0, ::13] = float("nan")
        x[0, 1::26] = -float("nan")  # another NaN bit pattern
        x[1, ::17] = -float("inf")
        x[1, ::19] = -0.0
    elif dtype in (torch.uint16, torch.uint32, torch.uint64):
        x = torch.randint(0, 60000, (2, 6000), generator=g).to(dtype)
    else:
        info = torch.iinfo(dtype)
        x = torch.randint(max(info.min, -1000), min(info.max, 1000), (2, 6000), generator=g).to(dtype)
    for desc in (False, True):
        ev, ei = torch.sort(x, dim=1, descending=desc, stable=True)
        v, i = native(lambda: torch.sort(x.to(D), dim=1, descending=desc, stable=True))
        assert torch.equal(i.cpu(), ei), (dtype, desc)
        assert_close(v.cpu(), ev, equal_nan=True)
        assert torch.equal(_bits(v.cpu()), _bits(ev)), (dtype, desc)
    if dtype not in (torch.bool, torch.uint16, torch.uint32, torch.uint64):  # CPU has no kthvalue for these
        ev, _ = torch.kthvalue(x, 777, dim=1)
        v, i = native(lambda: torch.kthvalue(x.to(D), 777, dim=1))
        assert_close(v.cpu(), ev, equal_nan=True)


@pytest.mark.parametrize("rank,items", RANKS)
def test_sort_radix_ties_zeros_nans(rank, items, monkeypatch):
    # many equal keys (stability across blocks and subgroups), -0.0 == +0.0
    # kept in input order, NaNs of several payloads and signs as one key
    # (last ascending, first descending), +-inf; row lengths that are not
    # multiples of a block (1024 or 2048), just over the bitonic limit, and
    # several rows
    _set_rank(monkeypatch, rank, items)
    g = torch.Generator().manual_seed(11)
    for rows, n in ((1, 4097), (3, 6145), (2, 2 * 2048 + 2047)):
        x = torch.randint(-3, 4, (rows, n), generator=g).to(torch.float32) / 2
        x[:, ::3] = 0.0
        x[:, 1::5] = -0.0
        bits = torch.tensor([0x7FC00000, 0xFFC00000, 0x7F800001, 0x7FC00123], dtype=torch.int64).to(torch.int32).view(torch.float32)
        x[:, 2::29] = bits[torch.arange(x[:, 2::29].numel()).remainder(4)].reshape(rows, -1)
        x[:, 4::31] = float("inf")
        x[:, 6::37] = -float("inf")
        for desc in (False, True):
            ev, ei = torch.sort(x, dim=1, descending=desc, stable=True)
            v, i = native(lambda: torch.sort(x.to(D), dim=1, descending=desc, stable=True))
            assert torch.equal(i.cpu(), ei), (rows, n, desc)
            assert_close(v.cpu(), ev, equal_nan=True)
            # -0.0 and +0.0, and the NaN payloads, keep their own bits
            assert torch.equal(_bits(v.cpu()), _bits(ev))
        # indices only, values only (the last radix pass writes either alone)
        ai = native(lambda: torch.argsort(x.to(D), dim=1, descending=True, stable=True))
        assert torch.equal(ai.cpu(), torch.argsort(x, dim=1, descending=True, stable=True))
        mv = native(lambda: torch.msort(x.t().to(D)))
        assert torch.equal(_bits(mv.cpu()), _bits(torch.sort(x.t(), dim=0, stable=True)[0]))
        # one key everywhere: the identity permutation
        c = torch.full((rows, n), 0.25)
        v, i = native(lambda: torch.sort(c.to(D), dim=1, descending=True, stable=True))
        assert torch.equal(i.cpu(), torch.arange(n).expand(rows, n))
    # int64 keys (16 passes), every element equal in the high 32 bits
    y = torch.randint(0, 5, (2, 5000), generator=g) + (1 << 40)
    ev, ei = torch.sort(y, dim=1, stable=True)
    v, i = native(lambda: torch.sort(y.to(D), dim=1, stable=True))
    assert torch.equal(v.cpu(), ev) and torch.equal(i.cpu(), ei)


_SUBGROUP_SCRIPT = """
import torch, russet
p = torch.russet.get_device_properties()
assert p.features.has_subgroup_ballot == 1
g = torch.Generator().manual_seed(5)
x = torch.randint(-20, 20, (2, 6145), generator=g).to(torch.float32) / 4
x[:, ::7] = float("nan")
x[:, 1::9] = -0.0
y = torch.randint(0, 3, (1, 5000), generator=g) << 40
for items in ("4", "8"):
    import os
    os.environ["RUSSET_SORT_ITEMS"] = items
    for t in (x, y):
        for desc in (False, True):
            ev, ei = torch.sort(t, dim=1, descending=desc, stable=True)
            v, i = torch.sort(t.to("russet"), dim=1, descending=desc, stable=True)
            assert torch.equal(i.cpu(), ei), (items, t.dtype, desc)
            assert torch.equal(v.cpu().view(torch.int32) if t.is_floating_point() else v.cpu(),
                               ev.view(torch.int32) if t.is_floating_point() else ev)
print("subgroup size", p.features.subgroup_size)
"""


@pytest.mark.parametrize("width", [128, 1024])
def test_radix_subgroup_ranking_other_subgroup_sizes(width, tmp_path):
    # llvmpipe's subgroups follow its vector width: 128 bits give subgroups
    # of 4; at 1024 bits it reports 32 but runs subgroups of 16, which the
    # ranking must not trust (it counts the live invocations)
    from conftest import run_python

    p = torch.russet.get_device_properties()
    if not (p.is_cpu and "llvmpipe" in p.name):
        pytest.skip("llvmpipe only")
    r = run_python(_SUBGROUP_SCRIPT, env={"LP_NATIVE_VECTOR_WIDTH": str(width), "RUSSET_SORT_RANK": "subgroup",
                                          "RUSSET_CACHE_DIR": str(tmp_path)})
    assert r.returncode == 0, r.stdout + r.stderr
    assert "subgroup size" in r.stdout


@pytest.mark.parametrize("n", [300, 20000])
@pytest.mark.parametrize("dtype", [torch.float16, torch.float32, torch.int64])
def test_sort_out_aliases_input(n, dtype):
    # out=(x, i) and out=(v, x): the outputs overlap the input, which the
    # sort still reads while writing them (it sorts into scratch then)
    g = torch.Generator().manual_seed(9)
    x = (torch.randn(n, generator=g) * 10).round().to(dtype)
    x[::5] = 0
    if dtype.is_floating_point:
        x[1::7] = -0.0
        x[2::11] = float("nan")
    ev, ei = torch.sort(x, stable=True)
    xr = x.to(D)
    ir = torch.empty(0, dtype=torch.int64, device=D)
    native(lambda: torch.sort(xr, stable=True, out=(xr, ir)))
    assert torch.equal(_bits(xr.cpu()), _bits(ev)) and torch.equal(ir.cpu(), ei)
    if dtype == torch.int64:
        xr = x.to(D)
        vr = torch.empty(0, dtype=dtype, device=D)
        native(lambda: torch.sort(xr, stable=True, out=(vr, xr)))
        assert torch.equal(vr.cpu(), ev) and torch.equal(xr.cpu(), ei)


def test_sort_rank_env_errors(monkeypatch):
    x = torch.randn(5000, device=D)
    monkeypatch.setenv("RUSSET_SORT_RANK", "ballot")
    with pytest.raises(ValueError, match="RUSSET_SORT_RANK"):
        torch.sort(x)
    monkeypatch.setenv("RUSSET_SORT_RANK", "subgroup")
    monkeypatch.setenv("RUSSET_SORT_ITEMS", "16")
    with pytest.raises(ValueError, match="RUSSET_SORT_ITEMS"):
        torch.sort(x)


def test_sort_long_rows():
    g = torch.Generator().manual_seed(4)
    x = torch.randn(100_000, generator=g)
    ev, ei = torch.sort(x, stable=True)
    v, i = native(lambda: torch.sort(x.to(D), stable=True))
    assert torch.equal(v.cpu(), ev) and torch.equal(i.cpu(), ei)
    # ties across shared-memory blocks, descending, int64 keys
    n = torch.randint(0, 50, (3, 9000), generator=g)
    ev, ei = torch.sort(n, dim=1, descending=True, stable=True)
    v, i = native(lambda: torch.sort(n.to(D), dim=1, descending=True, stable=True))
    assert torch.equal(v.cpu(), ev) and torch.equal(i.cpu(), ei)


def test_sort_noncontiguous_out_and_small():
    x = torch.randn(7, 6, 5)
    xt = x.permute(2, 0, 1)
    for dim in range(3):
        ev, ei = torch.sort(xt, dim=dim, stable=True)
        v, i = native(lambda: torch.sort(xt.to(D), dim=dim, stable=True))
        assert torch.equal(v.cpu(), ev) and torch.equal(i.cpu(), ei)
    vo = torch.empty(0, device=D)
    io = torch.empty(0, device=D, dtype=torch.int64)
    native(lambda: torch.sort(x.to(D), dim=0, out=(vo, io)))
    ev, ei = torch.sort(x, dim=0, stable=True)
    assert torch.equal(vo.cpu(), ev) and torch.equal(io.cpu(), ei)
    for t in (torch.tensor(3.0), torch.empty(0), torch.empty(2, 0), torch.tensor([1.0])):
        ev, ei = torch.sort(t)
        v, i = native(lambda: torch.sort(t.to(D)))
        assert torch.equal(v.cpu(), ev) and torch.equal(i.cpu(), ei)
    assert torch.equal(native(lambda: torch.argsort(x.to(D), dim=1, stable=True)).cpu(),
                       torch.argsort(x, dim=1, stable=True))
    assert torch.equal(native(lambda: torch.msort(x.to(D))).cpu(), torch.msort(x))


def test_topk_largest_smallest():
    g = torch.Generator().manual_seed(5)
    x = torch.randn(4, 5000, generator=g)
    for largest in (True, False):
        for k in (1, 7, 5000):
            ev, ei = torch.topk(x, k, dim=1, largest=largest)
            v, i = native(lambda: torch.topk(x.to(D), k, dim=1, largest=largest))
            assert torch.equal(v.cpu(), ev) and torch.equal(i.cpu(), ei)
    xn = x.clone()
    xn[:, ::100] = float("nan")
    ev, _ = torch.topk(xn, 60, dim=1)
    v, i = native(lambda: torch.topk(xn.to(D), 60, dim=1))
    assert_close(v.cpu(), ev, equal_nan=True)


def test_kthvalue_median():
    g = torch.Generator().manual_seed(6)
    x = torch.randn(6, 501, generator=g)
    x[1, 7] = float("nan")
    x[2, ::2] = float("nan")
    x[3] = float("nan")
    for keepdim in (False, True):
        for f, args in ((torch.kthvalue, (17, 1)), (torch.median, (1,)), (torch.nanmedian, (1,))):
            ev, ei = f(x, *args, keepdim=keepdim)
            v, i = native(lambda: f(x.to(D), *args, keepdim=keepdim))
            assert_close(v.cpu(), ev, equal_nan=True)
            assert_close(x.gather(1, i.cpu().reshape(6, 1)).reshape(ev.shape), ev, equal_nan=True)
    # the first NaN's index, as CPU
    _, i = torch.median(x.to(D), 1)
    assert i[1].item() == 7 and i[2].item() == 0
    y = torch.randn(4, 9, generator=g)
    assert_close(native(lambda: torch.median(y.to(D))).cpu(), torch.median(y))
    assert_close(native(lambda: torch.nanmedian(x.to(D))).cpu(), torch.nanmedian(x))
    assert native(lambda: torch.median(x.to(D))).cpu().isnan()
    assert native(lambda: torch.median(torch.arange(10, device=D))).item() == 4


def test_mode_out():
    x = torch.randint(0, 4, (5, 30))
    v = torch.empty(0, dtype=torch.int64, device=D)
    i = torch.empty(0, dtype=torch.int64, device=D)
    native(lambda: torch.mode(x.to(D), 1, out=(v, i)))
    ev, _ = torch.mode(x, 1)
    assert torch.equal(v.cpu(), ev)
    assert torch.equal(x.gather(1, i.cpu().unsqueeze(1)).squeeze(1), ev)


def test_quantile_runs():
    x = torch.randn(5, 40)
    q = torch.tensor([0.1, 0.5, 0.9])
    assert_close(torch.quantile(x.to(D), q.to(D), dim=1).cpu(), torch.quantile(x, q, dim=1))
    assert_close(torch.nanquantile(x.to(D), 0.3).cpu(), torch.nanquantile(x, 0.3))


def test_sort_backward():
    x = torch.randn(4, 7, requires_grad=True)
    xd = x.detach().to(D).requires_grad_()
    g = torch.randn(4, 7)
    (gx,) = torch.autograd.grad(torch.sort(x, 1)[0], x, g)
    (gd,) = torch.autograd.grad(torch.sort(xd, 1)[0], xd, g.to(D))
    assert_close(gd.cpu(), gx)


def test_errors():
    x = torch.randn(3, 4, device=D)
    with pytest.raises(IndexError, match="Dimension out of range"):
        torch.sort(x, dim=2)
    with pytest.raises(RuntimeError, match="selected index k out of range"):
        torch.topk(x, 5, dim=1)
    with pytest.raises(RuntimeError, match="kthvalue\\(\\): selected number k out of range"):
        torch.kthvalue(x, 0, 1)
    with pytest.raises(IndexError, match="Expected reduction dim 1 to have non-zero size"):
        torch.median(torch.empty(3, 0, device=D), 1)
