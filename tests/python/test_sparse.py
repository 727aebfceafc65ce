"""Sparse COO tensors on russet (src/torch/sparse/, src/engine/sparse.c)
against PyTorch CPU: moves both ways, to_sparse on the device, coalesce,
dense + sparse, sparse + sparse, scalar products, sparse @ dense, the
generic kernels (pointwise on values, sums, views), autograd through
torch.sparse.mm, nn.Embedding(sparse=True) with SGD, SparseAdam and
Adagrad; host execution counted for what has no kernel; errors."""

import warnings

import pytest
import torch
from torch.testing import assert_close

from conftest import run_python
from opinfo_check import host_free

D = "russet"
# sparse_coo_tensor warns once that invariant checks are off by default
warnings.filterwarnings("ignore", message="Sparse invariant checks are implicitly disabled")


def rand_coo(sizes, nnz, dtype=torch.float32, dense_dims=0, dup=True, seed=0):
    """An uncoalesced COO tensor: random indices (duplicates when dup)."""
    g = torch.Generator().manual_seed(seed)
    sd = len(sizes) - dense_dims
    idx = torch.stack([torch.randint(0, max(s, 1), (nnz,), generator=g) for s in sizes[:sd]]) if nnz else \
        torch.zeros(sd, 0, dtype=torch.int64)
    if dup and nnz > 2:
        idx[:, -1] = idx[:, 0]
    vals = torch.randn(nnz, *sizes[sd:], generator=g)
    if dtype.is_complex:
        vals = torch.complex(vals, torch.randn(vals.shape, generator=g))
    elif not dtype.is_floating_point and dtype != torch.bool:
        vals = (vals * 10).round()
    return torch.sparse_coo_tensor(idx, vals.to(dtype), sizes)


def same_sparse(got, exp, exact=True, **tol):
    assert got.is_sparse and got.device.type == D
    assert got.shape == exp.shape and got.dtype == exp.dtype
    assert (got.sparse_dim(), got.dense_dim()) == (exp.sparse_dim(), exp.dense_dim())
    g, e = got.cpu().coalesce(), exp.coalesce()
    assert torch.equal(g.indices(), e.indices())
    if exact:
        assert torch.equal(g.values(), e.values())
    else:
        assert_close(g.values(), e.values(), **tol)


DTYPES = [torch.float32, torch.float16, torch.bfloat16, torch.int64, torch.int32, torch.uint8, torch.bool,
          torch.complex64, torch.float64]


@pytest.mark.parametrize("dtype", DTYPES)
def test_round_trip(dtype):
    s = rand_coo((7, 5), 12, dtype)
    r = host_free(lambda: s.to(D))
    assert r.is_sparse and not r.is_coalesced() and r._nnz() == 12
    back = r.cpu()
    assert torch.equal(back._indices(), s._indices()) and torch.equal(back._values(), s._values())
    assert back.is_coalesced() == s.is_coalesced()
    c = s.coalesce().to(D)
    assert c.is_coalesced()


@pytest.mark.parametrize("sizes,nnz,dense_dims", [((6, 4), 0, 0), ((0, 4), 0, 0), ((5, 3, 4), 9, 1),
                                                    ((3, 4, 2, 2), 6, 2), ((10,), 4, 0)])
def test_round_trip_shapes(sizes, nnz, dense_dims):
    s = rand_coo(sizes, nnz, dense_dims=dense_dims)
    r = s.to(D)
    assert (r.sparse_dim(), r.dense_dim(), r._nnz()) == (s.sparse_dim(), s.dense_dim(), nnz)
    assert torch.equal(r.cpu().to_dense(), s.to_dense())


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.int64, torch.bool, torch.complex64])
def test_to_dense_and_to_sparse(dtype):
    s = rand_coo((8, 6), 20, dtype)
    got = host_free(lambda: s.to(D).to_dense())
    assert got.device.type == D and torch.equal(got.cpu(), s.to_dense())
    a = s.to_dense()
    r = host_free(lambda: a.to(D).to_sparse())
    same_sparse(r, a.to_sparse())
    assert r.is_coalesced()
    r1 = a.to(D).to_sparse(1)  # hybrid: one sparse dim
    same_sparse(r1, a.to_sparse(1))


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.bfloat16, torch.int64, torch.complex64])
@pytest.mark.parametrize("sizes,nnz,dense_dims", [((9, 7), 40, 0), ((4, 5, 3), 30, 1), ((3, 4, 5), 50, 0),
                                                    ((50, 40), 1500, 0)])
def test_coalesce(dtype, sizes, nnz, dense_dims):
    s = rand_coo(sizes, nnz, dtype, dense_dims)
    exp = s.coalesce()
    got = host_free(lambda: s.to(D).coalesce())
    assert got.is_coalesced()
    assert torch.equal(got.cpu().indices(), exp.indices())
    # duplicates are summed in entry order; CPU's loop too (float16 and
    # bfloat16 accumulate in float there and here)
    tol = {} if dtype in (torch.int64,) else dict(rtol=1e-6, atol=1e-6) if dtype in (torch.float32, torch.complex64) \
        else dict(rtol=1e-2, atol=1e-2)
    assert_close(got.cpu().values(), exp.values(), **tol)


def test_coalesce_small_and_empty():
    for nnz in (0, 1):
        s = rand_coo((4, 4), nnz)
        got = host_free(lambda: s.to(D).coalesce())
        assert got.is_coalesced() and torch.equal(got.cpu().to_dense(), s.to_dense())


def test_coalesce_sums_in_entry_order_exactly():
    # float32 duplicates summed left to right: 1e8 + 1 + -1e8 + 1 = 1 (a
    # pairwise or reordered sum gives 0 or 2); CPU's coalesce gives 1 too
    idx = torch.tensor([[0, 0, 0, 0, 1]])
    vals = torch.tensor([1e8, 1.0, -1e8, 1.0, 5.0])
    s = torch.sparse_coo_tensor(idx, vals, (2,))
    got = s.to(D).coalesce().cpu()
    assert torch.equal(got.values(), s.coalesce().values())


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16, torch.int64, torch.complex64])
@pytest.mark.parametrize("alpha", [1, 3])
def test_add_dense_sparse(dtype, alpha):
    s = rand_coo((6, 5), 15, dtype)
    d = rand_coo((6, 5), 30, dtype, seed=1).to_dense()
    exp = torch.add(d, s, alpha=alpha)
    got = host_free(lambda: torch.add(d.to(D), s.to(D), alpha=alpha))
    tol = dict(rtol=1e-2, atol=1e-2) if dtype == torch.bfloat16 else dict(rtol=1e-6, atol=1e-6)
    assert_close(got.cpu(), exp, **tol)
    # in place, on a non-contiguous dense tensor
    dt = d.t().contiguous().to(D).t()
    host_free(lambda: dt.add_(s.to(D), alpha=alpha))
    assert_close(dt.cpu(), exp, **tol)


def test_add_dense_sparse_hybrid_and_3d():
    s = rand_coo((4, 3, 5), 10, dense_dims=1)
    d = torch.randn(4, 3, 5)
    assert_close(host_free(lambda: d.to(D) + s.to(D)).cpu(), d + s)
    s3 = rand_coo((3, 4, 5), 12)
    assert_close(host_free(lambda: d.reshape(3, 4, 5).to(D) + s3.to(D)).cpu(), d.reshape(3, 4, 5) + s3)


@pytest.mark.parametrize("dtype", [torch.float32, torch.int64])
def test_add_sparse_sparse(dtype):
    a, b = rand_coo((6, 5), 12, dtype), rand_coo((6, 5), 9, dtype, seed=2)
    got = host_free(lambda: torch.add(a.to(D), b.to(D), alpha=2))
    same_sparse(got, torch.add(a, b, alpha=2), exact=False, rtol=1e-6, atol=1e-6)
    got = host_free(lambda: a.to(D) - b.to(D))
    same_sparse(got, a - b, exact=False, rtol=1e-6, atol=1e-6)
    r = a.to(D)
    r.add_(b.to(D))
    same_sparse(r, a + b, exact=False, rtol=1e-6, atol=1e-6)


def test_scalar_products():
    s = rand_coo((5, 4), 10)
    same_sparse(host_free(lambda: s.to(D) * 2.5), s * 2.5, exact=False)
    same_sparse(host_free(lambda: 3 * s.to(D)), 3 * s, exact=False)
    same_sparse(host_free(lambda: s.to(D) / 4), s / 4, exact=False)
    r = s.to(D)
    r.mul_(-2)
    same_sparse(r, s * -2, exact=False)


@pytest.mark.parametrize("dense_dims", [0, 1])
def test_mul_sparse_dense_and_mask(dense_dims):
    s = rand_coo((6, 5, 3), 14, dense_dims=dense_dims)
    d = torch.randn(6, 5, 3)
    for got, exp in [(lambda: s.to(D) * d.to(D), s * d), (lambda: d.to(D) * s.to(D), d * s)]:
        same_sparse(host_free(got), exp, exact=False, rtol=1e-6, atol=1e-6)
    same_sparse(host_free(lambda: d.to(D).sparse_mask(s.coalesce().to(D))), d.sparse_mask(s.coalesce()))


@pytest.mark.parametrize("dtype", [torch.float32, torch.int64])
def test_mul_sparse_sparse(dtype):
    a = rand_coo((7, 6), 30, dtype)
    b = rand_coo((7, 6), 25, dtype, seed=3)
    got = host_free(lambda: a.to(D) * b.to(D))
    assert got.is_coalesced()
    # coalesced inputs: CPU's result has the same entries (uncoalesced, CPU
    # keeps explicit zeros where only one side has an entry)
    same_sparse(got, a.coalesce() * b.coalesce(), exact=False, rtol=1e-6, atol=1e-6)
    assert_close(got.cpu().to_dense(), (a * b).to_dense(), rtol=1e-6, atol=1e-6)
    empty = torch.sparse_coo_tensor(torch.zeros(2, 0, dtype=torch.int64), torch.zeros(0, dtype=dtype), (7, 6))
    same_sparse(host_free(lambda: a.to(D) * empty.to(D)), a * empty)


@pytest.mark.parametrize("dtype,tol", [(torch.float32, 1e-5), (torch.float16, 1e-2), (torch.bfloat16, 3e-2)])
def test_mm(dtype, tol):
    s = rand_coo((9, 7), 25, dtype)
    x = torch.randn(7, 6).to(dtype)
    exp = torch.sparse.mm(s.float(), x.float())
    got = host_free(lambda: torch.sparse.mm(s.to(D), x.to(D)))
    assert got.dtype == dtype and not got.is_sparse
    assert_close(got.cpu().float(), exp, rtol=tol, atol=tol)
    assert_close(host_free(lambda: torch.mm(s.to(D), x.to(D))).cpu().float(), exp, rtol=tol, atol=tol)
    assert_close(host_free(lambda: (s.to(D) @ x.to(D))).cpu().float(), exp, rtol=tol, atol=tol)


def test_addmm_beta_alpha_and_layouts():
    s = rand_coo((8, 6), 20)
    x = torch.randn(10, 6).t()  # non-contiguous
    t = torch.randn(8, 10)
    for beta, alpha in [(1, 1), (0.5, -2), (0, 1)]:
        exp = torch.addmm(t, s, x, beta=beta, alpha=alpha)
        got = host_free(lambda: torch.addmm(t.to(D), s.to(D), x.to(D), beta=beta, alpha=alpha))
        assert_close(got.cpu(), exp, rtol=1e-5, atol=1e-5)
    # beta 0 ignores NaN in t; a broadcast t
    tn = torch.full((8, 10), float("nan"))
    assert_close(torch.addmm(tn.to(D), s.to(D), x.to(D), beta=0).cpu(), torch.addmm(tn, s, x, beta=0))
    tb = torch.randn(10)
    assert_close(torch.addmm(tb.to(D), s.to(D), x.to(D)).cpu(), torch.addmm(tb, s, x), rtol=1e-5, atol=1e-5)
    # in place and out=
    tt = t.to(D)
    host_free(lambda: tt.addmm_(s.to(D), x.to(D), alpha=2))
    assert_close(tt.cpu(), t.addmm(s, x, alpha=2), rtol=1e-5, atol=1e-5)
    out = torch.empty(0, device=D)
    torch.addmm(t.to(D), s.to(D), x.to(D), out=out)
    assert_close(out.cpu(), torch.addmm(t, s, x), rtol=1e-5, atol=1e-5)
    # an empty product and rows with no entries
    e = torch.sparse_coo_tensor(torch.zeros(2, 0, dtype=torch.int64), torch.zeros(0), (8, 6))
    assert torch.equal(torch.sparse.mm(e.to(D), x.to(D)).cpu(), torch.zeros(8, 10))


@pytest.mark.parametrize("dtype,tol", [(torch.float32, 1e-5), (torch.bfloat16, 3e-2)])
def test_bmm(dtype, tol):
    # a 3-d COO batch @ dense, empty batches and a non-contiguous out included
    s = rand_coo((4, 6, 5), 30, dtype)
    s = torch.sparse_coo_tensor(s._indices()[:, s._indices()[0] != 2], s._values()[s._indices()[0] != 2], s.shape)
    x = torch.randn(4, 5, 3).to(dtype)
    exp = torch.bmm(s.float(), x.float())
    assert_close(host_free(lambda: torch.bmm(s.to(D), x.to(D))).cpu().float(), exp, rtol=tol, atol=tol)
    out = torch.empty(4, 3, 6, dtype=dtype, device=D).transpose(1, 2)
    host_free(lambda: torch.bmm(s.to(D), x.to(D), out=out))
    assert_close(out.cpu().float(), exp, rtol=tol, atol=tol)
    with pytest.raises(RuntimeError):
        torch.bmm(s.to(D), torch.randn(4, 4, 3, device=D).to(dtype))


def test_mv_and_matmul_vector():
    s = rand_coo((6, 5), 12).coalesce()
    v = torch.randn(5)
    assert_close(torch.mv(s.to(D), v.to(D)).cpu(), torch.mv(s, v), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("op", ["sin", "abs", "neg", "sqrt", "tanh", "sign", "floor", "expm1", "relu"])
def test_pointwise_on_values(op):
    s = rand_coo((6, 5), 14)
    if op == "sqrt":
        s = torch.sparse_coo_tensor(s._indices(), s._values().abs(), s.shape)
    got = host_free(lambda: getattr(torch, op)(s.to(D)))
    same_sparse(got, getattr(torch, op)(s), exact=False, rtol=1e-6, atol=1e-6)


def test_sums_views_and_structure():
    s = rand_coo((5, 4, 3), 16, dense_dims=1)
    r = s.to(D)
    assert_close(host_free(lambda: r.sum()).cpu(), s.sum(), rtol=1e-5, atol=1e-5)
    assert_close(torch.sparse.sum(r, dim=1).cpu().to_dense(), torch.sparse.sum(s, dim=1).to_dense(),
                 rtol=1e-5, atol=1e-5)
    assert_close(torch.sparse.sum(r, dim=(0, 2)).cpu(), torch.sparse.sum(s, dim=(0, 2)), rtol=1e-5, atol=1e-5)
    same_sparse(r.permute(1, 0, 2), s.permute(1, 0, 2))
    same_sparse(r.unsqueeze(0), s.unsqueeze(0))
    same_sparse(torch.cat([r, r], 0), torch.cat([s, s], 0))
    same_sparse(r.narrow_copy(0, 1, 3), s.narrow_copy(0, 1, 3))
    same_sparse(r.clone(), s.clone())
    z = r.clone()
    z.zero_()
    assert z._nnz() == 0 and z.device.type == D
    assert torch.equal(r.coalesce().indices().cpu(), s.coalesce().indices())


def test_sparse_mask_of_sparse():
    # ATen's generic sparse_mask reaches the intersection stubs (stubs.cpp)
    x, y = rand_coo((6, 5), 14), rand_coo((6, 5), 10, seed=4)
    got = host_free(lambda: x.to(D).sparse_mask(y.to(D)))
    exp = x.sparse_mask(y)
    assert got._nnz() == exp._nnz() and got.is_coalesced() == exp.is_coalesced()
    assert_close(got.cpu().to_dense(), exp.to_dense())
    got = host_free(lambda: torch.ops.aten._sparse_mask_projection(x.to(D), y.coalesce().to(D)))
    assert_close(got.cpu().to_dense(), torch.ops.aten._sparse_mask_projection(x, y.coalesce()).to_dense())


@pytest.mark.parametrize("dim", [None, 0, 1, 2, (0, 1), (0, 2), (1, 2)])
def test_sparse_sum_gradient(dim):
    # _sparse_sum_backward: dense gradient when every sparse dim is summed,
    # else sparse, looked up by the kept indices
    s = rand_coo((5, 4, 3), 14, dense_dims=1).coalesce()
    w = None

    def run(dev):
        nonlocal w
        x = s.detach().to(dev).requires_grad_()
        y = torch.sparse.sum(x) if dim is None else torch.sparse.sum(x, dim)
        yd = y.to_dense() if y.is_sparse else y
        if w is None:
            w = torch.randn(yd.shape)
        (yd * w.to(dev)).sum().backward()
        return x.grad.cpu().to_dense()

    exp = run("cpu")
    assert_close(host_free(lambda: run(D)), exp, rtol=1e-5, atol=1e-6)


def test_sparse_mm_gradients():
    s = rand_coo((6, 5), 12).coalesce()
    x = torch.randn(5, 4)
    sr = s.to(D).requires_grad_()
    xr = x.to(D).requires_grad_()
    torch.sparse.mm(sr, xr).sum().backward()
    sc, xc = s.clone().requires_grad_(), x.clone().requires_grad_()
    torch.sparse.mm(sc, xc).sum().backward()
    assert_close(xr.grad.cpu(), xc.grad, rtol=1e-5, atol=1e-5)
    assert sr.grad.is_sparse
    assert_close(sr.grad.cpu().to_dense(), sc.grad.to_dense(), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("dtype,tol", [(torch.float32, 1e-5), (torch.bfloat16, 2e-2)])
@pytest.mark.parametrize("dim", [0, 1, 2, -1])
@pytest.mark.parametrize("log", [False, True])
def test_sparse_softmax(dtype, tol, dim, log):
    # pools over a sparse dim (0, 1) or the dense dim (2): forward and gradient
    s = rand_coo((6, 5, 3), 20, dense_dims=1).coalesce()
    s = torch.sparse_coo_tensor(s._indices(), s._values().to(dtype), s.shape).coalesce()
    f = torch.sparse.log_softmax if log else torch.sparse.softmax
    exp = f(s.float(), dim)
    got = host_free(lambda: f(s.to(D), dim))
    assert got.is_coalesced()
    same_sparse(got, exp.to(dtype), exact=False, rtol=tol, atol=tol)
    # the gradient, with a weight per entry so that pools differ
    w = torch.randn(exp._values().shape)
    sc = s.detach().float().requires_grad_()
    # CPU's gradient for dim -1 is wrong (it differs from dim 2's, the same
    # softmax: its backward does not wrap the dim); russet's is dim 2's
    (f(sc, dim % 3).coalesce().values() * w).sum().backward()
    sr = s.detach().to(D).requires_grad_()
    host_free(lambda: (f(sr, dim).coalesce().values() * w.to(dtype).to(D)).sum().backward())
    assert_close(sr.grad.cpu().to_dense().float(), sc.grad.to_dense(), rtol=tol * 4, atol=tol * 4)


def test_sparse_softmax_gradient_through_to_dense_and_masks():
    # the gradient arrives on other entries than the output's (to_dense's
    # backward, a masked one): looked up by index, 0 where absent
    s = rand_coo((5, 4), 12).coalesce()
    g = torch.randn(5, 4)
    sc, sr = s.detach().clone().requires_grad_(), s.detach().to(D).requires_grad_()
    (torch.sparse.softmax(sc, 1).to_dense() * g).sum().backward()
    (torch.sparse.softmax(sr, 1).to_dense() * g.to(D)).sum().backward()
    assert_close(sr.grad.cpu().to_dense(), sc.grad.to_dense(), rtol=1e-5, atol=1e-6)
    # an empty pool set and a float64 input (the host, counted)
    e = torch.sparse_coo_tensor(torch.zeros(2, 0, dtype=torch.int64), torch.zeros(0), (3, 3))
    assert torch.sparse.softmax(e.to(D), 0)._nnz() == 0
    torch.russet.reset_host_op_counts()
    same_sparse(torch.sparse.softmax(s.double().to(D), 1), torch.sparse.softmax(s.double(), 1), exact=False)
    assert "aten::_sparse_softmax" in torch.russet.host_op_counts()


@pytest.mark.parametrize("opt", ["sgd", "sgd_momentum", "sparse_adam", "adagrad"])
def test_sparse_embedding_training(opt):
    def run(device):
        torch.manual_seed(0)
        emb = torch.nn.Embedding(20, 6, sparse=True).to(device)
        lin = torch.nn.Linear(6, 1).to(device)
        make = {"sgd": lambda p: torch.optim.SGD(p, lr=0.1),
                "sgd_momentum": lambda p: torch.optim.SGD(p, lr=0.1, momentum=0.9),
                "sparse_adam": lambda p: torch.optim.SparseAdam(p, lr=0.05),
                "adagrad": lambda p: torch.optim.Adagrad(p, lr=0.1)}[opt]
        o1 = make(list(emb.parameters()))
        o2 = torch.optim.SGD(lin.parameters(), lr=0.1)
        g = torch.Generator().manual_seed(1)
        losses = []
        for _ in range(4):
            ids = torch.randint(0, 20, (8, 5), generator=g).to(device)
            loss = lin(emb(ids)).pow(2).mean()
            o1.zero_grad(), o2.zero_grad()
            loss.backward()
            assert emb.weight.grad.is_sparse
            o1.step(), o2.step()
            losses.append(loss.item())
        return losses, emb.weight.detach().cpu()

    lc, wc = run("cpu")
    lr, wr = run(D)
    assert_close(torch.tensor(lr), torch.tensor(lc), rtol=1e-5, atol=1e-6)
    assert_close(wr, wc, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("dim", [0, 1, 2])
def test_index_select(dim):
    # along a sparse dim every entry comes once per matching index position
    # (repeats, absent values); along the dense dim, the values' own
    s = rand_coo((6, 5, 3), 16, dense_dims=1)
    for idx in ([4, 0, 4, 2], [1], [], [2, 2, 2]):
        idx = torch.tensor(idx, dtype=torch.int64) if dim < 2 else torch.tensor(idx[:2], dtype=torch.int64) % 3
        exp = s.index_select(dim, idx)
        got = host_free(lambda: s.to(D).index_select(dim, idx.to(D)))
        assert got.shape == exp.shape and got._nnz() == exp._nnz()
        assert torch.equal(got.cpu().to_dense(), exp.to_dense())
    got = host_free(lambda: s.to(D).index_select(dim, torch.tensor([1, 0], dtype=torch.int32, device=D)))
    assert torch.equal(got.cpu().to_dense(), s.index_select(dim, torch.tensor([1, 0])).to_dense())
    # an index out of range: CPU's error, through the host
    with pytest.raises((IndexError, RuntimeError)) as cpu:
        s.index_select(dim, torch.tensor([0, 9]))
    with pytest.raises((IndexError, RuntimeError)) as dev:
        s.to(D).index_select(dim, torch.tensor([0, 9], device=D))
    assert type(dev.value) is type(cpu.value) and str(dev.value) == str(cpu.value)


def test_host_ops_are_counted():
    s = rand_coo((6, 5), 12).coalesce()
    x = torch.randn(5, 3)
    torch.russet.reset_host_op_counts()
    got = torch.hspmm(s.to(D), x.to(D))
    same_sparse(got, torch.hspmm(s, x), exact=False, rtol=1e-6, atol=1e-6)
    assert "aten::hspmm" in torch.russet.host_op_counts()


def test_host_ops_error_mode():
    r = run_python(
        "import torch, russet\n"
        "s = torch.sparse_coo_tensor(torch.tensor([[0, 1], [1, 0]]), torch.tensor([1.0, 2.0]), (3, 2)).to('russet')\n"
        "ok = (s + s).to_dense().cpu().tolist() == [[0.0, 2.0], [4.0, 0.0], [0.0, 0.0]]\n"
        "try:\n"
        "    torch.hspmm(s, torch.ones(2, 2, device='russet'))\n"
        "    print('no error')\n"
        "except NotImplementedError as e:\n"
        "    print('raised', ok, 'hspmm' in str(e))\n",
        env={"RUSSET_HOST_OPS": "error"})
    assert r.stdout.strip() == "raised True True", r.stdout + r.stderr


def test_errors_match_cpu():
    a, b = rand_coo((4, 5), 6), rand_coo((5, 4), 6)
    with pytest.raises(RuntimeError) as cpu:
        a + b
    with pytest.raises(RuntimeError) as dev:
        a.to(D) + b.to(D)
    assert str(dev.value) == str(cpu.value)
    with pytest.raises(RuntimeError):
        torch.sparse.mm(a.to(D), torch.randn(4, 3, device=D))
    with pytest.raises(RuntimeError, match="same device|devices"):
        torch.sparse.mm(a.to(D), torch.randn(5, 3))
    # an index past the size: the constructor's check where asked for, as on
    # CPU; unchecked, to_dense raises at the next sync (CPU would write out
    # of bounds)
    with pytest.raises(RuntimeError, match="size is inconsistent with indices"):
        torch.sparse_coo_tensor(torch.tensor([[0, 7]]), torch.ones(2), (4,), device=D, check_invariants=True)
    bad = torch.sparse_coo_tensor(torch.tensor([[0, 7]]), torch.ones(2), (4,), device=D)
    with pytest.raises(RuntimeError, match="index 7 is out of bounds"):
        bad.to_dense().cpu()
    assert torch.ones(2, device=D).cpu().tolist() == [1.0, 1.0]  # the device goes on


# ---- compressed layouts (CSR, CSC, BSR, BSC)

def dense_with_zeros(shape, dtype=torch.float32, seed=0):
    g = torch.Generator().manual_seed(seed)
    a = torch.randn(shape, generator=g)
    a[a.abs() < 0.7] = 0
    return a.to(dtype)


def to_layout(a, layout, blocksize=None):
    return {"csr": a.to_sparse_csr, "csc": a.to_sparse_csc}[layout]() if blocksize is None else \
        {"bsr": a.to_sparse_bsr, "bsc": a.to_sparse_bsc}[layout](blocksize)


@pytest.mark.parametrize("layout,blocksize", [("csr", None), ("csc", None), ("bsr", (2, 1)), ("bsc", (1, 2))])
@pytest.mark.parametrize("dtype", [torch.float32, torch.int64, torch.complex64, torch.bfloat16])
def test_compressed_round_trip_and_conversions(layout, blocksize, dtype):
    a = dense_with_zeros((6, 4), dtype)
    c = to_layout(a, layout, blocksize)
    r = host_free(lambda: c.to(D))
    assert r.layout == c.layout and r.device.type == D
    assert torch.equal(r.cpu().to_dense(), a)
    assert torch.equal(host_free(lambda: r.to_dense()).cpu(), a)
    made = host_free(lambda: to_layout(a.to(D), layout, blocksize))  # dense -> compressed on the device
    assert made.layout == c.layout and torch.equal(made.to_dense().cpu(), a)
    assert torch.equal(host_free(lambda: r.to_sparse()).to_dense().cpu(), a)  # -> COO


def test_csr_batched_int32_and_empty():
    a = dense_with_zeros((5, 4)).expand(3, 5, 4) * torch.tensor([1.0, 2.0, -1.0]).view(3, 1, 1)
    c = a.to_sparse_csr()  # batches share the number of entries
    r = c.to(D)
    assert torch.equal(r.to_dense().cpu(), a)
    i32 = torch.sparse_csr_tensor(torch.tensor([0, 2, 2, 3], dtype=torch.int32), torch.tensor([0, 3, 1], dtype=torch.int32),
                                  torch.tensor([1.0, 2.0, 3.0]), (3, 4))
    assert torch.equal(host_free(lambda: i32.to(D).to_dense()).cpu(), i32.to_dense())
    e = torch.zeros(4, 3).to_sparse_csr()
    assert torch.equal(e.to(D).to_dense().cpu(), torch.zeros(4, 3))


@pytest.mark.parametrize("dtype,tol", [(torch.float32, 1e-5), (torch.float16, 1e-2), (torch.bfloat16, 3e-2)])
def test_csr_mm(dtype, tol):
    a = dense_with_zeros((9, 7), dtype)
    x = torch.randn(7, 5).to(dtype)
    exp = a.float() @ x.float()
    c = a.to_sparse_csr().to(D)
    assert_close(host_free(lambda: c @ x.to(D)).cpu().float(), exp, rtol=tol, atol=tol)
    assert_close(host_free(lambda: torch.mm(c, x.to(D))).cpu().float(), exp, rtol=tol, atol=tol)
    t = torch.randn(9, 5).to(dtype)
    got = host_free(lambda: torch.addmm(t.to(D), c, x.to(D), beta=0.5, alpha=2))
    assert_close(got.cpu().float(), torch.addmm(t.float(), a.float(), x.float(), beta=0.5, alpha=2),
                 rtol=tol, atol=tol)
    i32 = torch.sparse_csr_tensor(c.crow_indices().int(), c.col_indices().int(), c.values(), c.shape)
    assert_close(host_free(lambda: i32 @ x.to(D)).cpu().float(), exp, rtol=tol, atol=tol)


def test_compressed_ops_and_host():
    a = dense_with_zeros((6, 5))
    c = a.to_sparse_csr().to(D)
    assert_close(host_free(lambda: c.sin()).to_dense().cpu(), a.sin())
    assert_close(host_free(lambda: c * 3).to_dense().cpu(), a * 3)
    x = torch.randn(5, 3)
    # CSC @ dense: flipped to CSR on the device (ATen's flatten_indices stub)
    assert_close(host_free(lambda: a.to_sparse_csc().to(D) @ x.to(D)).cpu(), a @ x, rtol=1e-5, atol=1e-5)
    # CSR + CSR (the union, coalesced, as CPU's), dense + CSR, in place
    b = dense_with_zeros((6, 5), seed=1)
    got = host_free(lambda: torch.add(c, b.to_sparse_csr().to(D), alpha=2))
    exp = torch.add(a.to_sparse_csr(), b.to_sparse_csr(), alpha=2)
    assert got.layout == torch.sparse_csr and got._nnz() == exp._nnz()
    assert torch.equal(got.crow_indices().cpu(), exp.crow_indices())
    assert_close(got.to_dense().cpu(), exp.to_dense())
    assert_close(host_free(lambda: b.to(D) + c).cpu(), b + a)
    cc = a.to_sparse_csr().to(D)
    host_free(lambda: cc.add_(b.to_sparse_csr().to(D)))
    assert_close(cc.to_dense().cpu(), a + b)
    assert_close(host_free(lambda: c * c).to_dense().cpu(), a * a)
    # a sum over a dim of a CSR tensor has no kernel here: the host, counted
    torch.russet.reset_host_op_counts()
    assert_close(torch.sum(c, 1, keepdim=True).to_dense().cpu(), a.sum(1, keepdim=True))
    assert "aten::_sparse_csr_sum.dim_dtype" in torch.russet.host_op_counts()
    with pytest.raises(RuntimeError):
        c @ torch.randn(4, 3, device=D)
