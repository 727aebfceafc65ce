"""Index reductions (scatter_add, scatter_reduce, index_add, index_reduce,
index_copy, index_fill, index_put, put, take, masked_scatter, embedding
backward) against CPU: OpInfo samples for every dtype CPU supports (native
but float64/complex128 under the apple profile), bit-equality where CPU's
accumulation order is reproduced, determinism, layouts, empty inputs, bad
indices, and the gradients that go through scatter_add / index_add running
natively."""

import os

import pytest
import torch
from torch.testing import assert_close

from opinfo_check import HOST_DTYPES, check_opinfo, opinfo

D = "russet"

OPS = [("scatter_add", ""), ("scatter_reduce", "sum"), ("scatter_reduce", "prod"), ("scatter_reduce", "mean"),
       ("scatter_reduce", "amax"), ("scatter_reduce", "amin"), ("index_add", ""), ("index_reduce", "prod"),
       ("index_reduce", "mean"), ("index_reduce", "amax"), ("index_reduce", "amin"), ("index_copy", ""),
       ("index_fill", ""), ("index_put", ""), ("put", ""), ("take", ""), ("masked_scatter", ""), ("scatter", "")]


def _host_counts():
    return torch.russet.host_op_counts()


# complex128 with alpha != 1 has no push-constant slot: host on every profile
ALPHA_HOST = {("index_add", ""): {torch.complex128}}


@pytest.mark.parametrize("name,variant", OPS, ids=[f"{n}.{v}" if v else n for n, v in OPS])
def test_opinfo_matches_cpu(name, variant):
    host = ALPHA_HOST.get((name, variant), set())
    dtypes = sorted(opinfo(name, variant).supported_dtypes("cpu"), key=str)
    check_opinfo(name, variant, dtypes=[d for d in dtypes if d not in host])
    if host:
        check_opinfo(name, variant, dtypes=sorted(host, key=str), native=False)


@pytest.mark.parametrize("name,variant", [("scatter_add", ""), ("index_add", ""), ("index_copy", ""),
                                          ("index_fill", ""), ("put", "")])
def test_opinfo_inplace(name, variant):
    # (check_opinfo's inplace mode would run CPU's in-place op on the sample
    # itself before russet copies it: each side gets its own copy here)
    op = opinfo(name, variant)
    checked = 0
    for dtype in sorted(op.supported_dtypes("cpu"), key=str):
        for s in list(op.sample_inputs("cpu", dtype))[:8]:
            args = [s.input] + list(s.args)
            a = [x.clone() if isinstance(x, torch.Tensor) else x for x in args]
            try:
                want = op.inplace_variant(*a, **s.kwargs)
            except Exception:  # noqa: BLE001 - CPU rejects it
                continue
            b = [x.to(D) if isinstance(x, torch.Tensor) else x for x in args]
            torch.russet.reset_host_op_counts()
            got = op.inplace_variant(*b, **s.kwargs)
            assert got is b[0]
            if dtype not in HOST_DTYPES | ALPHA_HOST.get((name, variant), set()):
                assert _host_counts() == {}, (dtype, _host_counts())
            assert_close(got.cpu(), want, equal_nan=True)
            checked += 1
    assert checked


def _pair(shape, dtype=torch.float32):
    x = torch.testing.make_tensor(shape, dtype=dtype, device="cpu")
    return x, x.to(D)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.bfloat16, torch.int8, torch.int64,
                                   torch.bool, torch.complex64])
def test_scatter_add_duplicates_bit_equal(dtype):
    # many duplicates per target: CPU adds in increasing position order,
    # rounding each step to the dtype (integers wrap); so do we
    x, xd = _pair((3, 5), dtype)
    s, sd = _pair((3, 40), dtype)
    i = torch.randint(0, 5, (3, 40))
    for dim, idx, src in [(1, i, s), (0, torch.randint(0, 3, (2, 5)), s[:2, :5])]:
        torch.russet.reset_host_op_counts()
        got = xd.scatter_add(dim, idx.to(D), src.to(D))
        assert _host_counts() == {}, _host_counts()
        assert torch.equal(got.cpu(), x.scatter_add(dim, idx, src))


@pytest.mark.parametrize("reduce", ["sum", "prod", "mean", "amax", "amin"])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.int16, torch.uint8])
def test_scatter_reduce_include_self(reduce, dtype):
    x, xd = _pair((4, 6), dtype)
    s, sd = _pair((4, 9), dtype)
    i = torch.randint(0, 6, (4, 9))
    for include_self in (True, False):
        torch.russet.reset_host_op_counts()
        got = xd.scatter_reduce(1, i.to(D), sd, reduce, include_self=include_self)
        assert _host_counts() == {}, _host_counts()
        want = x.scatter_reduce(1, i, s, reduce, include_self=include_self)
        assert torch.equal(got.cpu(), want), (include_self, got.cpu(), want)


def test_amax_nan_and_mean_floor():
    x = torch.tensor([1.0, float("nan"), -5.0, 0.0])
    s = torch.tensor([2.0, float("nan"), 7.0, 0.5, -1.0])
    i = torch.tensor([0, 0, 1, 2, 2])
    for red in ("amax", "amin"):
        for inc in (True, False):
            got = x.to(D).scatter_reduce(0, i.to(D), s.to(D), red, include_self=inc).cpu()
            assert_close(got, x.scatter_reduce(0, i, s, red, include_self=inc), equal_nan=True)
    xi = torch.tensor([10, -20, 30, 100], dtype=torch.int8)
    si = torch.tensor([100, 100, -7, 5, 127, -128, 3, 50, -1], dtype=torch.int8)
    ii = torch.tensor([3, 3, 0, 0, 1, 1, 0, 3, 1])
    for inc in (True, False):
        got = xi.to(D).scatter_reduce(0, ii.to(D), si.to(D), "mean", include_self=inc).cpu()
        assert torch.equal(got, xi.scatter_reduce(0, ii, si, "mean", include_self=inc))


def test_deterministic():
    x = torch.randn(64, 16, device=D)
    i = torch.randint(0, 64, (4096, 16), device=D)
    s = torch.randn(4096, 16, device=D)
    a = x.scatter_add(0, i, s).cpu()
    for _ in range(2):
        assert torch.equal(x.scatter_add(0, i, s).cpu(), a)
    assert torch.equal(a, x.cpu().scatter_add(0, i.cpu(), s.cpu()))


def test_layouts_zero_size_and_out():
    x = torch.randn(5, 4, 3)
    for dim in range(3):
        xt = x.transpose(0, 2)  # non-contiguous self
        i = torch.randint(0, xt.shape[dim], (2, 3, 4)).transpose(1, 2)  # strided index
        s = torch.randn(3, 6, 7).transpose(0, 2)[:2, :4, :3]  # strided src, larger than the index
        got = xt.to(D).scatter_add(dim, i.to(D), s.to(D))
        assert torch.equal(got.cpu(), xt.scatter_add(dim, i, s))
        y = xt.to(D).clone()
        y.scatter_add_(dim, i.to(D), s.to(D))
        assert torch.equal(y.cpu(), xt.scatter_add(dim, i, s))
    out = torch.empty(0, device=D)
    torch.scatter_add(x.to(D), 1, torch.zeros(5, 2, 3, dtype=torch.long, device=D), x.to(D), out=out)
    assert torch.equal(out.cpu(), torch.scatter_add(x, 1, torch.zeros(5, 2, 3, dtype=torch.long), x))
    # zero-size index, zero-size self slices
    e = torch.empty(5, 0, 3, dtype=torch.long)
    assert torch.equal(x.to(D).scatter_add(1, e.to(D), x.to(D)).cpu(), x)
    assert torch.equal(x.to(D).index_add(1, torch.tensor([], dtype=torch.long, device=D),
                                         torch.empty(5, 0, 3, device=D)).cpu(), x)
    z = torch.empty(0, 4)
    assert torch.equal(z.to(D).index_add(1, torch.tensor([1, 1], device=D), torch.empty(0, 2, device=D)).cpu(),
                       z.index_add(1, torch.tensor([1, 1]), torch.empty(0, 2)))
    # 0-dim
    a0 = torch.tensor(2.0)
    assert torch.equal(a0.to(D).scatter_add(0, torch.tensor(0, device=D), torch.tensor(3.0, device=D)).cpu(),
                       a0.scatter_add(0, torch.tensor(0), torch.tensor(3.0)))


def test_index_add_alpha_int32_index_and_dims():
    w = torch.randn(7, 5, 3)
    for dim in range(3):
        n = w.shape[dim]
        idx = torch.randint(0, n, (9,), dtype=torch.int32)
        shape = list(w.shape)
        shape[dim] = 9
        src = torch.randn(shape)
        for alpha in (1, 2.5):
            got = w.to(D).index_add(dim, idx.to(D), src.to(D), alpha=alpha).cpu()
            assert_close(got, w.index_add(dim, idx, src, alpha=alpha))
    wi = torch.randint(-100, 100, (6, 4), dtype=torch.int32)
    si = torch.randint(-100, 100, (8, 4), dtype=torch.int32)
    ii = torch.randint(0, 6, (8,))
    assert torch.equal(wi.to(D).index_add(0, ii.to(D), si.to(D), alpha=3).cpu(), wi.index_add(0, ii, si, alpha=3))


def test_index_put_and_advanced_assignment():
    z = torch.randn(5, 4, 3)
    cases = [((torch.tensor([0, 2, 0]),), torch.randn(3, 4, 3)),
             ((slice(None), torch.tensor([1, 1, 3])), torch.randn(5, 3, 3)),
             ((torch.tensor([0, 4, 0]), slice(None), torch.tensor([1, 1, 2])), torch.randn(3, 4)),
             ((torch.tensor([[0], [4]]), torch.tensor([1, -1])), torch.randn(3)),
             ((z > 0,), torch.tensor(7.0))]
    for key, v in cases:
        for acc in (True, False):
            dkey = tuple(k.to(D) if isinstance(k, torch.Tensor) else k for k in key)
            y, yd = z.clone(), z.to(D)
            torch.russet.reset_host_op_counts()
            if acc:
                yd[dkey] += v.to(D) if v.dim() else v.item()
                y[key] += v if v.dim() else v.item()
            else:
                yd[dkey] = v.to(D)
                y[key] = v
            host = {k: c for k, c in _host_counts().items() if "index.Tensor" not in k}  # the read of +=
            assert host == {}, host
            assert torch.equal(yd.cpu(), y), (key, acc)
    # accumulate with duplicates: CPU's order
    t = torch.zeros(4)
    i = torch.tensor([1, 1, 1, 3, 1])
    v = torch.tensor([1e8, 1.0, -1e8, 2.0, 1.0])
    assert torch.equal(t.to(D).index_put((i.to(D),), v.to(D), accumulate=True).cpu(),
                       t.index_put((i,), v, accumulate=True))


def test_put_take_fill_masked_scatter():
    x = torch.randn(3, 4)
    xt = x.t()  # non-contiguous: put_ works on a contiguous copy
    i = torch.tensor([0, -1, 5, 5, 2])
    v = torch.randn(5)
    for acc in (True, False):
        a, b = xt.clone(), xt.to(D)
        a.put_(i, v, accumulate=acc)
        b.put_(i.to(D), v.to(D), accumulate=acc)
        if acc:
            assert torch.equal(b.cpu(), a)
        else:  # duplicates: the last, as CPU's serial loop
            assert torch.equal(b.cpu(), a)
    assert torch.equal(torch.take(xt.to(D), torch.tensor([[11, -12]], device=D)).cpu(),
                       torch.take(xt, torch.tensor([[11, -12]])))
    for dt in (torch.float64, torch.complex128, torch.bool, torch.int8):
        y, yd = _pair((4, 5), dt)
        torch.russet.reset_host_op_counts()
        got = yd.index_fill(1, torch.tensor([0, -1, 0], device=D), 1)
        assert _host_counts() == {}, _host_counts()
        assert torch.equal(got.cpu(), y.index_fill(1, torch.tensor([0, -1, 0]), 1))
        m = torch.rand(4, 5) > 0.4
        src, _ = _pair((6, 4), dt)
        got = yd.masked_scatter(m.to(D), src.to(D))
        if dt not in HOST_DTYPES:
            assert _host_counts() == {}, _host_counts()
        assert torch.equal(got.cpu(), y.masked_scatter(m, src))
        got = yd.index_copy(0, torch.tensor([3, 1], device=D), src[:2, :5].contiguous().to(D) if src.shape[1] >= 5
                            else torch.zeros(2, 5, dtype=dt, device=D))
        assert _host_counts() == {}, _host_counts()  # copies move bits: float64 too
    # broadcast mask, empty source, all-false mask
    y = torch.randn(3, 4)
    assert torch.equal(y.to(D).masked_scatter(torch.tensor([True, False, True, False], device=D),
                                              torch.arange(12.0, device=D)).cpu(),
                       y.masked_scatter(torch.tensor([True, False, True, False]), torch.arange(12.0)))
    assert torch.equal(y.to(D).masked_scatter(torch.zeros(3, 4, dtype=torch.bool, device=D),
                                              torch.empty(0, device=D)).cpu(), y)


@pytest.mark.parametrize("dt", [torch.float32, torch.int8, torch.complex128, torch.bool])
def test_masked_scatter_large_strided(dt):
    # thousands of elements (several blocks of the rank count), a
    # non-contiguous self, full and broadcast masks
    g = torch.Generator().manual_seed(5)
    y = (torch.randn(70, 50, generator=g) * 10).to(dt).t()  # (50, 70), strided
    src = (torch.randn(3600, generator=g) * 10).to(dt)
    for m in (torch.rand(50, 70, generator=g) > 0.3, torch.rand(70, generator=g) > 0.5,
              torch.rand(50, 1, generator=g) > 0.5):
        yd = y.to(D).t().contiguous().t()  # the same strides on russet
        assert yd.stride() == y.stride()
        yd.masked_scatter_(m.to(D), src.to(D))
        assert torch.equal(yd.cpu(), y.clone().masked_scatter_(m, src))


def test_bad_indices_raise():
    x = torch.randn(3, 4, device=D)
    bad = [lambda: x.scatter_add(1, torch.tensor([[0], [4], [1]], device=D), x),
           lambda: x.scatter_reduce(1, torch.tensor([[0], [-1], [1]], device=D), x, "amax"),
           lambda: x.index_add(0, torch.tensor([0, 3], device=D), torch.ones(2, 4, device=D)),
           lambda: x.index_copy(0, torch.tensor([-1], device=D), torch.ones(1, 4, device=D)),
           lambda: x.put(torch.tensor([12], device=D), torch.ones(1, device=D)),
           lambda: torch.take(x, torch.tensor([-13], device=D)),
           lambda: x.index_fill(1, torch.tensor([4], device=D), 0.0),
           lambda: x.index_put((torch.tensor([0, 3], device=D),), torch.ones(4, device=D), accumulate=True)]
    for f in bad:
        f()
        with pytest.raises(RuntimeError, match="out of bounds"):
            torch.russet.synchronize()
    # too short a source: CPU's message, at the sync (CPU checks in its loop)
    x.masked_scatter(torch.ones(3, 4, dtype=torch.bool, device=D), torch.ones(5, device=D))
    with pytest.raises(RuntimeError, match="Number of elements of source < number of ones in mask"):
        torch.russet.synchronize()
    torch.russet.synchronize()  # the flag is clear again
    with pytest.raises(RuntimeError, match="int32/int64"):
        x.scatter_add(1, torch.tensor([[0.0]], device=D), x)
    with pytest.raises(RuntimeError, match="reduce argument"):
        x.scatter_reduce(1, torch.tensor([[0]], device=D), x, "add")
    # int32 indices and the "max"/"min" spellings, as CPU
    i32 = torch.tensor([[0, 0]], dtype=torch.int32)
    s = torch.randn(1, 2)
    for red in ("max", "min"):
        assert torch.equal(x.scatter_reduce(1, i32.to(D), s.to(D), red).cpu(),
                           x.cpu().scatter_reduce(1, i32, s, red))


def _grad_native(fn, *shapes, int_args=()):
    xs = [torch.randn(s) for s in shapes]
    xc = [t.clone().requires_grad_() for t in xs]
    xd = [t.to(D).requires_grad_() for t in xs]
    out_c = fn(*xc, *int_args)
    g = torch.randn(out_c.shape)
    out_c.backward(g)
    out_d = fn(*xd, *[a.to(D) if isinstance(a, torch.Tensor) else a for a in int_args])
    torch.russet.reset_host_op_counts()
    out_d.backward(g.to(D))
    assert _host_counts() == {}, _host_counts()
    for a, b in zip(xd, xc):
        assert_close(a.grad.cpu(), b.grad)


def test_gradients_native():
    i = torch.randint(0, 6, (4, 9))
    _grad_native(lambda x, idx: torch.gather(x, 1, idx), (4, 6), int_args=(i,))
    _grad_native(lambda x, idx: torch.take_along_dim(x, idx, 1), (4, 6), int_args=(i,))
    _grad_native(lambda x: torch.cummax(x, 1).values, (4, 7))
    _grad_native(lambda x: torch.cummin(x, 0).values, (5, 3))
    _grad_native(lambda x, idx: torch.index_select(x, 0, idx), (6, 5), int_args=(torch.tensor([5, 0, 0, 3]),))
    _grad_native(lambda a, b: a.scatter_add(1, i.to(a.device), b), (4, 6), (4, 9))
    _grad_native(lambda a, b: a.index_add(0, torch.tensor([1, 1, 0], device=a.device), b), (3, 4), (3, 4))


@pytest.mark.parametrize("padding_idx,scale", [(None, False), (2, False), (None, True), (0, True)])
def test_embedding_backward_native(padding_idx, scale):
    emb = torch.nn.Embedding(10, 4, padding_idx=padding_idx, scale_grad_by_freq=scale)
    embd = torch.nn.Embedding(10, 4, padding_idx=padding_idx, scale_grad_by_freq=scale).to(D)
    embd.load_state_dict(emb.state_dict())
    ids = torch.tensor([[1, 2, 9, 1], [0, 0, 4, 1]])
    g = torch.randn(2, 4, 4)
    emb(ids).backward(g)
    out = embd(ids.to(D))
    torch.russet.reset_host_op_counts()
    out.backward(g.to(D))
    assert _host_counts() == {}, _host_counts()
    assert_close(embd.weight.grad.cpu(), emb.weight.grad)
    if not scale:  # adds in index order from zero, as CPU: bit-equal
        assert torch.equal(embd.weight.grad.cpu(), emb.weight.grad)


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
def test_reduced_float_rounding_as_cpu(dtype):
    # CPU's scatter kernels accumulate float16/bfloat16 in float and round
    # once (mean: the rounded sum, then divided); index_add does too on the
    # first/last dim of 2+-dim tensors; index_reduce, index_put/put with
    # accumulate and 1-D index_add round every step. All equal here, with
    # NaN where CPU has NaN (products overflow to inf, and inf times a 0 in
    # the source is NaN; which values make_tensor draws depends on the torch
    # version: torch 2.11's made one on the H200, where torch.equal failed)
    def equal(a, b):
        assert_close(a, b, rtol=0, atol=0, equal_nan=True)
        return True

    for dim, shape, ishape in [(1, (3, 5), (3, 40)), (0, (5, 3, 2), (40, 3, 2)), (1, (2, 5, 3), (2, 30, 3))]:
        x = torch.testing.make_tensor(shape, dtype=dtype, device="cpu")
        s = torch.testing.make_tensor(ishape, dtype=dtype, device="cpu")
        i = torch.randint(0, shape[dim], ishape)
        assert equal(x.to(D).scatter_add(dim, i.to(D), s.to(D)).cpu(), x.scatter_add(dim, i, s))
        for red in ("sum", "prod", "mean"):
            assert equal(x.to(D).scatter_reduce(dim, i.to(D), s.to(D), red).cpu(),
                               x.scatter_reduce(dim, i, s, red)), red
        k = torch.randint(0, shape[dim], (40,))
        src = torch.testing.make_tensor(shape[:dim] + (40,) + shape[dim + 1:], dtype=dtype, device="cpu")
        assert equal(x.to(D).index_add(dim, k.to(D), src.to(D)).cpu(), x.index_add(dim, k, src)), dim
        for red in ("prod", "mean"):
            assert equal(x.to(D).index_reduce(dim, k.to(D), src.to(D), red).cpu(),
                               x.index_reduce(dim, k, src, red)), red
    w = torch.testing.make_tensor((6,), dtype=dtype, device="cpu")
    k = torch.randint(0, 6, (50,))
    v = torch.testing.make_tensor((50,), dtype=dtype, device="cpu")
    assert equal(w.to(D).index_add(0, k.to(D), v.to(D)).cpu(), w.index_add(0, k, v))
    assert equal(w.to(D).put(k.to(D), v.to(D), accumulate=True).cpu(), w.put(k, v, accumulate=True))
    assert equal(w.to(D).index_put((k.to(D),), v.to(D), accumulate=True).cpu(),
                       w.index_put((k,), v, accumulate=True))


def test_bincount_float_weights_bit_equal():
    # summed in input order by the sorted segments, as CPU's loop
    for dt in (torch.uint8, torch.int64):
        x = torch.randint(0, 20, (3000,), dtype=dt)
        w = torch.randn(3000)
        torch.russet.reset_host_op_counts()
        got = torch.bincount(x.to(D), w.to(D), minlength=25)
        assert _host_counts() == {}, _host_counts()
        assert torch.equal(got.cpu(), torch.bincount(x, w, minlength=25))


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.int8, torch.bool, torch.complex128])
def test_advanced_indexing_reads(dtype):
    z, zd = _pair((5, 4, 3), dtype)
    keys = [(torch.tensor([0, 2, -1]),), (slice(None), torch.tensor([[1], [3]])),
            (torch.tensor([0, 4]), slice(1, 3), torch.tensor([1, -1])), (torch.tensor(2), torch.tensor([0, 0, 1])),
            (torch.rand(5, 4) > 0.5,), (Ellipsis, torch.tensor([2, 0]))]
    for key in keys:
        dkey = tuple(k.to(D) if isinstance(k, torch.Tensor) else k for k in key)
        torch.russet.reset_host_op_counts()
        got = zd[dkey]
        assert _host_counts() == {}, _host_counts()
        assert torch.equal(got.cpu(), z[key]), key
    zt = z.transpose(0, 2)  # a non-contiguous self: the indexed dims do not merge into a view
    got = zd.transpose(0, 2)[torch.tensor([1, 0], device=D), torch.tensor([3, 3], device=D)]
    assert torch.equal(got.cpu(), zt[torch.tensor([1, 0]), torch.tensor([3, 3])])
    zd[torch.tensor([9], device=D)]
    with pytest.raises(RuntimeError, match="out of bounds"):
        torch.russet.synchronize()
    # CPU index tensors (and masks, lists, CPU values) index a russet tensor too
    m = torch.rand(5, 4) > 0.5
    for key in [(torch.tensor([0, 2]),), ([0, 2], slice(None), [1, 1]), (m,)]:
        torch.russet.reset_host_op_counts()
        assert torch.equal(zd[key].cpu(), z[key])
        y, yd = z.clone(), zd.clone()
        y[key] = torch.ones((), dtype=dtype)
        yd[key] = torch.ones((), dtype=dtype)
        assert torch.equal(yd.cpu(), y)
        assert _host_counts() == {}, _host_counts()


def test_index_put_and_getitem_gradients_native():
    idx = torch.tensor([0, 2, 2])
    _grad_native(lambda x, v: x.index_put((idx.to(x.device),), v, accumulate=True), (4, 3), (3, 3))
    _grad_native(lambda x: x[idx.to(x.device), 1:], (4, 3))
    _grad_native(lambda x, s: x.scatter_reduce(1, torch.tensor([[0, 0, 2]], device=x.device), s, "sum"),
                 (1, 4), (1, 3))


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.bfloat16])
def test_embedding_max_norm_native(dtype):
    # embedding_renorm_: rows named by the ids scaled down to max_norm
    w = torch.randn(10, 4).to(dtype) * 2
    ids = torch.tensor([[1, 2, 9, 1], [0, 0, 4, 1]])
    for norm_type in (2.0, 1.0):
        a, b = w.clone(), w.to(D)
        torch.embedding_renorm_(a, ids, 1.5, norm_type)
        torch.russet.reset_host_op_counts()
        torch.embedding_renorm_(b, ids.to(D), 1.5, norm_type)
        assert _host_counts() == {}, _host_counts()
        # float16/bfloat16: CPU's own steps, bit for bit (its scale is rounded
        # to the weight's dtype before the product: one step at times)
        assert_close(b.cpu(), a, **({} if dtype == torch.float32 else dict(atol=0, rtol=0)))
        untouched = torch.tensor([3, 5, 6, 7, 8])
        assert torch.equal(b.cpu()[untouched], w[untouched])
    emb = torch.nn.Embedding(10, 4, max_norm=1.0)
    embd = torch.nn.Embedding(10, 4, max_norm=1.0).to(D)
    embd.load_state_dict(emb.state_dict())
    torch.russet.reset_host_op_counts()
    out = embd(ids.to(D))
    assert _host_counts() == {}, _host_counts()
    assert_close(out.detach().cpu(), emb(ids).detach())


@pytest.mark.parametrize("norm_type", [2.0, float("inf"), 3.0, 0.0])
def test_embedding_renorm_wide_rows_negative_ids_and_no_sync(norm_type):
    # rs_embedding_renorm: the ids wrapped (CPU's self[i]: -1 is the last
    # row) and sorted on the device, each row scaled once; rows wider than
    # a workgroup; a transposed weight; nothing waits for the GPU
    g = torch.Generator().manual_seed(7)
    w = torch.randn(300, 12, generator=g).t() * 3  # (12, 300), column-major
    ids = torch.tensor([[3, -1, 11, 3], [0, 5, 5, -12]])
    a, b = w.clone(), w.to(D)
    torch.embedding_renorm_(a, ids, 2.5, norm_type)
    torch.russet.synchronize()
    torch.russet.reset_host_op_counts()
    di = ids.to(D)
    syncs = torch.russet.host_sync_count()
    torch.embedding_renorm_(b, di, 2.5, norm_type)
    assert torch.russet.host_sync_count() == syncs
    assert _host_counts() == {}, _host_counts()
    assert_close(b.cpu(), a, rtol=1e-5, atol=1e-5)
    with pytest.raises(RuntimeError, match="out of bounds"):
        torch.embedding_renorm_(b, torch.tensor([12], device=D), 2.5, norm_type)
        torch.russet.synchronize()


def test_embedding_max_norm_float64():
    # the scale in double for float64 weights (float only for the float32
    # family): float64's precision, on the host under apple
    w = torch.randn(10, 4, dtype=torch.float64) * 2
    ids = torch.tensor([1, 2, 9, 1, 0])
    a, b = w.clone(), w.to(D)
    torch.embedding_renorm_(a, ids, 1.5, 1.0)
    torch.embedding_renorm_(b, ids.to(D), 1.5, 1.0)
    assert_close(b.cpu(), a, atol=1e-12, rtol=1e-12)


@pytest.fixture
def force_sort():
    # small shapes take the direct pass; this forces the sorted segments
    # (the engine reads RUSSET_INDEX_REDUCE at every call)
    old = os.environ.get("RUSSET_INDEX_REDUCE")
    os.environ["RUSSET_INDEX_REDUCE"] = "sort"
    yield
    if old is None:
        del os.environ["RUSSET_INDEX_REDUCE"]
    else:
        os.environ["RUSSET_INDEX_REDUCE"] = old


@pytest.mark.parametrize("name,variant", [("scatter_add", ""), ("scatter_reduce", "mean"), ("scatter_reduce", "amax"),
                                          ("index_add", ""), ("index_reduce", "prod"), ("index_copy", ""),
                                          ("index_put", ""), ("put", ""), ("masked_scatter", "")])
def test_opinfo_sorted_segments(force_sort, name, variant):
    host = ALPHA_HOST.get((name, variant), set())
    dtypes = sorted(opinfo(name, variant).supported_dtypes("cpu"), key=str)
    check_opinfo(name, variant, dtypes=[d for d in dtypes if d not in host])


def test_sorted_segments_match_direct(force_sort):
    test_scatter_add_duplicates_bit_equal(torch.float16)
    test_amax_nan_and_mean_floor()
    test_embedding_backward_native(2, True)
    test_bad_indices_raise()
