"""torch.histogram / torch.histogramdd (src/torch/ops/histogram.cpp) against
PyTorch CPU: OpInfo samples, bin-edge rules, weights, density, edge cases
and errors."""

import bisect
import subprocess
import sys
import tempfile

import numpy as np
import pytest
import torch
from torch.testing import assert_close

from opinfo_check import HOST_DTYPES, check_opinfo, flushed, flushes_denormals, host_free, moved

D = "russet"


def run_both(fn, *args, **kw):
    """fn on CPU and on russet (natively unless float64 under apple)."""
    exp = fn(*args, **kw)
    a, k = moved(args, D), moved(kw, D)
    dt = next((x.dtype for x in args if isinstance(x, torch.Tensor)), None)
    if dt in HOST_DTYPES:
        got = fn(*a, **k)
    else:
        got = host_free(lambda: fn(*a, **k))
    return exp, got


def same(exp, got, exact=False):
    got = moved(got, "cpu")
    if exact:
        assert_close(got, exp, rtol=0, atol=0, equal_nan=True)
    else:
        assert_close(got, exp, equal_nan=True)


@pytest.mark.parametrize("name", ["histogram", "histogramdd"])
def test_opinfo(name):
    check_opinfo(name)


def test_histogram_out_forms():
    g = torch.Generator().manual_seed(1)
    x = torch.randn(40, generator=g)
    w = torch.rand(40, generator=g)
    h, e = torch.empty(0, device=D), torch.empty(0, device=D)
    r = host_free(lambda: torch.histogram(x.to(D), 7, weight=w.to(D), density=True, out=(h, e)))
    exp = torch.histogram(x, 7, weight=w, density=True)
    assert r[0] is h and r[1] is e
    same(exp, (h, e))
    bins = torch.tensor([-3.0, -1.0, 0.0, 0.5, 2.0])
    h2, e2 = torch.empty(0, device=D), torch.empty(0, device=D)
    host_free(lambda: torch.histogram(x.to(D), bins.to(D), out=(h2, e2)))
    same(torch.histogram(x, bins), (h2, e2), exact=True)
    # histogramdd's .out forms (composites of the functional ones)
    y = torch.randn(20, 2, generator=g)
    out = torch.empty(0, device=D)
    host_free(lambda: torch.ops.aten._histogramdd_from_bin_cts.out(y.to(D), [3, 4], out=out))
    same(torch.ops.aten._histogramdd_from_bin_cts(y, [3, 4]), out, exact=True)


def cpu_rule(x, edges):
    """CPU's bin_ct rule (HistogramKernel.cpp, linear estimate + local
    search, right-most edge in the last bin) in float32, on given edges."""
    e = edges.numpy()
    ne = len(e)
    lo, hi = e[0], e[-1]
    hist = np.zeros(ne - 1, dtype=np.float32)
    for v in x.numpy():
        if not (v >= lo and v <= hi):
            continue
        pos = int(np.float32(np.float32(v - lo) * np.float32(ne - 1)) / np.float32(hi - lo))
        a, b = max(0, pos - 1), min(pos + 2, ne)
        pos = a + bisect.bisect_right(list(e[a:b]), v) - 1
        hist[min(pos, ne - 2)] += 1
    return torch.from_numpy(hist)


@pytest.mark.parametrize("bins", [1, 3, 10, 100, 1000])
def test_bin_counts_exact(bins):
    # edges and counts equal to CPU's to the bit, values on and next to the
    # edges included (CPU's float32 linspace rounds once per edge, and so
    # does russet's)
    g = torch.Generator().manual_seed(bins)
    x = torch.randn(300, generator=g)
    for rng in (None, (-1.0, 1.5)):
        kw = {} if rng is None else {"range": rng}
        edges = torch.histogram(x, bins, **kw).bin_edges
        inner = edges if rng else edges[1:-1]  # without a range, keep the data's min and max
        xe = torch.cat([x, edges, inner.nextafter(torch.tensor(-1e9)), inner.nextafter(torch.tensor(1e9))])
        if flushes_denormals():  # the neighbours of the edge 0 are denormals: read as 0 there
            xe = flushed(xe)
        exp, got = run_both(torch.histogram, xe, bins, **kw)
        same(exp, got, exact=True)
        assert torch.equal(got.hist.cpu(), cpu_rule(xe, edges))


def test_exact_edges_against_cpu():
    # edges that linspace gives exactly on both sides: counts equal to CPU's
    x = torch.tensor([-1.0, -0.75, -0.5, -0.25, 0.0, 0.25, 0.5, 0.75, 1.0, 1.25, 1.5, -0.9, 0.1, 1.49])
    for bins in (1, 2, 5, 10):
        exp, got = run_both(torch.histogram, x, bins, range=(-1.0, 1.5))
        same(exp, got, exact=True)
    exp, got = run_both(torch.histogramdd, x.reshape(7, 2), [5, 10], range=[-1.0, 1.5, -1.0, 1.5])
    same(exp, got, exact=True)


def test_local_search_degenerate_edges():
    # bins narrower than float32's spacing: edges repeat and CPU's linear
    # estimate + local search differs from a plain binary search; russet
    # follows CPU's rule
    x = torch.linspace(1e4, 1e4 + 0.01, 57)
    differs = False
    for bins in (7, 100, 333):
        exp, got = run_both(torch.histogram, x, bins, range=(1e4, 1e4 + 0.01))
        same(exp, got, exact=True)
        assert torch.equal(got.hist.cpu(), cpu_rule(x, got.bin_edges.cpu()))
        differs |= not torch.equal(exp.hist, torch.histogram(x, exp.bin_edges).hist)
    assert differs  # the case is one where the two rules part


def test_tensor_bins_and_weights():
    g = torch.Generator().manual_seed(2)
    x = torch.randn(6, 7, generator=g)
    w = torch.rand(6, 7, generator=g)
    # (unsorted edges and NaN edges: CPU's upper_bound probes and test decide)
    for bins in (torch.tensor([-1.0, 0.0, 1.0]), torch.tensor([-5.0, -0.1, 0.2, 0.3, 4.0]),
                 torch.tensor([0.0, 0.0, 1.0, 2.0]), torch.tensor([1.0, 0.0, 3.0]),
                 torch.tensor([-1.0, float("nan"), 0.5, 2.0]), torch.tensor([0.5, -1.0, float("nan"), 3.0])):
        for kw in ({}, {"weight": w}, {"density": True}, {"weight": w, "density": True}):
            exp, got = run_both(torch.histogram, x, bins, **kw)
            same(exp, got)
    # weight of another shape with the input's numel (CPU reshapes it)
    exp, got = run_both(torch.histogram, x, 5, weight=w.reshape(42))
    same(exp, got)


def test_non_contiguous():
    g = torch.Generator().manual_seed(3)
    x = torch.randn(8, 10, generator=g).t()
    w = torch.rand(16, 10, generator=g)[::2].t()
    assert not x.is_contiguous() and not w.is_contiguous()
    exp, got = run_both(torch.histogram, x, 6, weight=w, density=True)
    same(exp, got)
    y = torch.randn(3, 30, generator=g).t()  # (30, 3), column-strided
    exp, got = run_both(torch.histogramdd, y, [2, 3, 4], weight=w[:, :3].reshape(-1)[:30])
    same(exp, got)
    ex = [torch.tensor([-2.0, 0.0, 2.0]), torch.tensor([-1.0, 1.0]), torch.linspace(-3, 3, 7)[::2]]
    exp, got = run_both(torch.histogramdd, y, ex, density=True)
    same(exp, got)


def test_histogramdd_forms():
    g = torch.Generator().manual_seed(4)
    y = torch.randn(4, 5, 3, generator=g)  # more than 2 dims: leading ones flattened
    w = torch.rand(4, 5, generator=g)
    for bins in ([2, 3, 4], 3):
        for kw in ({}, {"weight": w}, {"density": True}, {"range": [-1.0, 1.0, -2.0, 0.5, 0.0, 3.0]}):
            exp, got = run_both(torch.histogramdd, y, bins, **kw)
            same(exp, got)
    # 1-d coordinates (N = 1)
    exp, got = run_both(torch.histogramdd, y[..., :1], [5])
    same(exp, got, exact=True)


def test_edge_cases():
    # empty input: range [0, 1] (numpy's default) or the given one
    e = torch.empty(0)
    for kw in ({}, {"range": (-2.0, 3.0)}, {"density": True}):
        exp, got = run_both(torch.histogram, e, 4, **kw)
        same(exp, got)
    exp, got = run_both(torch.histogramdd, torch.empty(0, 2), [2, 3])
    same(exp, got)
    # all values equal: the range widens by 0.5 on each side
    exp, got = run_both(torch.histogram, torch.full((9,), 2.5), 4)
    same(exp, got, exact=True)
    exp, got = run_both(torch.histogram, torch.tensor(7.0), 3)  # 0-dim
    same(exp, got, exact=True)
    # values outside the range and NaN are skipped; inf too
    x = torch.tensor([-5.0, 0.0, 0.25, 0.5, 1.0, 1.0001, float("nan"), float("inf"), -float("inf"), 0.999])
    for kw in ({"range": (0.0, 1.0)}, {"range": (0.0, 1.0), "weight": torch.arange(10.0)},
               {"range": (0.0, 1.0), "density": True}):
        exp, got = run_both(torch.histogram, x, 4, **kw)
        same(exp, got, exact=True)
    exp, got = run_both(torch.histogram, x, torch.tensor([0.0, 0.5, 1.0]))
    same(exp, got, exact=True)
    # density with nothing counted: NaN, as on CPU
    exp, got = run_both(torch.histogram, torch.tensor([5.0]), 2, range=(0.0, 1.0), density=True)
    same(exp, got)


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
def test_half_precision(dtype):
    # CPU's kernel takes float16/bfloat16 with a range or edge tensors; the
    # edges computed in the dtype, every step of the bin estimate rounded
    g = torch.Generator().manual_seed(5)
    x = (torch.randn(200, generator=g) * 3).to(dtype)
    w = torch.rand(200, generator=g).to(dtype)
    for bins in (4, 33):
        for kw in ({}, {"weight": w}, {"density": True}):
            exp, got = run_both(torch.histogram, x, bins, range=(-4.0, 5.0), **kw)
            same(exp, got, exact=not kw)
    b = torch.tensor([-2.0, -0.5, 0.0, 0.75, 3.0], dtype=dtype)
    exp, got = run_both(torch.histogram, x, b, weight=w)
    same(exp, got)
    y = x.reshape(100, 2)
    exp, got = run_both(torch.histogramdd, y, [3, 5], range=[-1.0, 1.0, -3.0, 3.0])
    same(exp, got, exact=True)
    # without a range CPU's edge selection raises for these dtypes
    with pytest.raises(NotImplementedError):
        torch.histogram(x.to(D), 4)


def test_float64_host():
    x = torch.randn(30, dtype=torch.float64)
    exp = torch.histogram(x, 5, density=True)
    torch.russet.reset_host_op_counts()
    got = torch.histogram(x.to(D), 5, density=True)
    same(exp, got)
    if torch.float64 in HOST_DTYPES:
        assert torch.russet.host_op_counts()


def errors_of(fn, *args, **kw):
    try:
        fn(*args, **kw)
    except Exception as e:  # noqa: BLE001
        return type(e)
    return None


@pytest.mark.parametrize("case", range(13))
def test_errors(case):
    x = torch.randn(10)
    calls = [
        (torch.histogram, (x, 0), {}),
        (torch.histogram, (x, 4), {"range": (1.0, 0.0)}),
        (torch.histogram, (x, 4), {"range": (0.0, float("inf"))}),
        (torch.histogram, (x, 4), {"weight": torch.ones(9)}),
        (torch.histogram, (x, 4), {"weight": torch.ones(10, dtype=torch.float64)}),
        (torch.histogram, (x, torch.tensor([[1.0, 2.0]])), {}),
        (torch.histogram, (x, torch.tensor([])), {}),
        (torch.histogram, (x, torch.tensor([1.0])), {}),
        (torch.histogram, (x, torch.tensor([0.0, 1.0], dtype=torch.float64)), {}),
        (torch.histogram, (torch.tensor([1.0, float("nan")]), 3), {}),
        (torch.histogram, (x.to(torch.int32), 4), {}),
        (torch.histogramdd, (x.reshape(5, 2), [2, 2]), {"range": [0.0, 1.0]}),
        (torch.histogramdd, (x.reshape(5, 2), [torch.tensor([0.0, 1.0])]), {}),
    ]
    fn, args, kw = calls[case]
    exp = errors_of(fn, *args, **kw)
    assert exp is not None
    got = errors_of(fn, *moved(args, D), **moved(kw, D))
    assert got is exp


def test_out_dtype_error():
    x = torch.randn(10, device=D)
    h, e = torch.empty(0, device=D, dtype=torch.float16), torch.empty(0, device=D)
    with pytest.raises(RuntimeError, match="hist tensor should have the same dtype"):
        torch.histogram(x, 4, out=(h, e))


def test_weighted_long_bin():
    # 50000 weights in one bin: longer than a window of the index
    # reductions' segment pass
    g = torch.Generator().manual_seed(6)
    x = torch.cat([torch.full((50000,), 0.5), torch.rand(1000, generator=g)])
    w = torch.rand(51000, generator=g)
    # russet sums each bin in input order: CPU's order on one thread (with
    # more threads CPU adds per-thread partial sums, which round differently),
    # computed in a process of its own: lowering this process's threads and
    # raising them again left torch 2.13's CPU LAPACK (MKL) broken for the
    # rest of the run (a later (2, 200, 200) slogdet never returned, "Intel
    # oneMKL ERROR: Parameter 6 was incorrect on entry to SLASWP")
    with tempfile.TemporaryDirectory() as d:
        torch.save((x, w), f"{d}/in.pt")
        code = ("import sys, torch; torch.set_num_threads(1); x, w = torch.load(sys.argv[1]); "
                "torch.save(tuple(torch.histogram(x, 4, weight=w)), sys.argv[2])")
        subprocess.run([sys.executable, "-c", code, f"{d}/in.pt", f"{d}/out.pt"], check=True)
        exp = torch.load(f"{d}/out.pt")
    got = host_free(lambda: torch.histogram(x.to(D), 4, weight=w.to(D)))
    same(tuple(exp), got, exact=True)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.bfloat16])
def test_degenerate_spans(dtype):
    # all values equal where +-0.5 (or a tiny range) rounds back to one value
    # in the dtype: the edges are all one value, CPU's bin estimate is NaN and
    # lands in bin 0 before its local search (bin 1 in the end); and a range
    # the dtype cannot hold raises as CPU's linspace does
    for v in (5000.0, 1e8, 2.0, -3e5, 70000.0):
        x = torch.full((5,), v).to(dtype)
        for kw in ({"range": (v, v)}, {}, {"range": (v - 0.1, v + 0.1)}):
            if dtype == torch.float32 or kw:
                try:
                    exp = torch.histogram(x, 4, **kw)
                except RuntimeError:
                    with pytest.raises(RuntimeError, match="without overflow"):
                        torch.histogram(x.to(D), 4, **kw)
                    continue
                got = host_free(lambda: torch.histogram(x.to(D), 4, **kw))
                same(exp, got, exact=True)
