"""gather and scatter (src and value) against CPU: OpInfo samples for every
dtype CPU supports (native: elements move as bytes, float64 included),
layouts, out-of-range indices, and the backward of sort/topk/kthvalue/median
(which goes through scatter) running natively."""

import pytest
import torch
from torch.testing import assert_close

from opinfo_check import check_opinfo

D = "russet"

OPS = [("gather", ""), ("scatter", ""), ("take_along_dim", ""), ("index_select", "")]


@pytest.mark.parametrize("name,variant", OPS, ids=[n for n, _ in OPS])
def test_matches_cpu(name, variant):
    check_opinfo(name, variant, native=False)
    torch.russet.reset_host_op_counts()
    x = torch.arange(12, dtype=torch.float64).view(3, 4).to(D)
    i = torch.tensor([[0, 2], [1, 1], [2, 0]], device=D)
    torch.gather(x, 1, i)
    x.scatter(1, i, x[:, :2])
    assert torch.russet.host_op_counts() == {}, torch.russet.host_op_counts()


@pytest.mark.parametrize("dtype", [torch.float32, torch.int8, torch.bool, torch.complex64, torch.float16])
def test_layouts_and_dims(dtype):
    x = torch.testing.make_tensor((4, 5, 6), dtype=dtype, device="cpu")
    for dim in range(3):
        for t, u in [(x, x.to(D)), (x.transpose(0, 2), x.to(D).transpose(0, 2))]:
            j = torch.randint(0, t.shape[dim], (3, 4, 4))
            assert torch.equal(torch.gather(u, dim, j.to(D)).cpu(), torch.gather(t, dim, j))
            jt = torch.randint(0, t.shape[dim], (4, 4, 3)).transpose(0, 2)  # a strided index
            assert torch.equal(torch.gather(u, dim, jt.to(D)).cpu(), torch.gather(t, dim, jt))
        # scatter with a permutation along dim: no duplicate targets
        perm = torch.argsort(torch.rand(x.shape), dim=dim)
        src = torch.testing.make_tensor(x.shape, dtype=dtype, device="cpu")
        assert torch.equal(x.to(D).scatter(dim, perm.to(D), src.to(D)).cpu(), x.scatter(dim, perm, src))
        assert torch.equal(x.to(D).scatter(dim, perm.to(D)[:2], 1).cpu(), x.scatter(dim, perm[:2], 1))
    y = x.to(D)
    y.scatter_(0, torch.zeros(1, 5, 6, dtype=torch.long, device=D), 0)
    assert torch.equal(y.cpu(), x.scatter(0, torch.zeros(1, 5, 6, dtype=torch.long), 0))


def test_out_of_range_index_raises_at_sync():
    x = torch.randn(3, 4, device=D)
    torch.gather(x, 1, torch.tensor([[0], [4], [1]], device=D))
    with pytest.raises(RuntimeError, match="out of bounds"):
        torch.russet.synchronize()
    torch.gather(x, 1, torch.tensor([[0], [3], [1]], device=D))
    torch.russet.synchronize()
    with pytest.raises(RuntimeError, match="int64"):
        torch.gather(x, 1, torch.tensor([[0.0]], device=D))


@pytest.mark.parametrize("fn", [lambda t: t.sort(1).values, lambda t: t.topk(3, 1).values,
                                lambda t: t.kthvalue(2, 1).values, lambda t: t.median(1).values,
                                lambda t: t.max(1).values])
def test_selection_backward_runs_natively(fn):
    x = torch.randn(4, 7)
    xc, xd = x.clone().requires_grad_(), x.to(D).requires_grad_()
    g = torch.randn(fn(x).shape)
    fn(xc).backward(g)
    torch.russet.reset_host_op_counts()
    fn(xd).backward(g.to(D))
    assert torch.russet.host_op_counts() == {}, torch.russet.host_op_counts()
    assert_close(xd.grad.cpu(), xc.grad)


def test_index_select_and_embedding_forward():
    x = torch.randn(6, 5)
    d = x.to(D)
    for dim, idx in [(0, torch.tensor([5, 0, 0, 3])), (1, torch.tensor([4, 1], dtype=torch.int32)),
                     (1, torch.tensor(2)), (0, torch.tensor([], dtype=torch.long))]:
        torch.russet.reset_host_op_counts()
        got = torch.index_select(d, dim, idx.to(D))
        assert torch.russet.host_op_counts() == {}, torch.russet.host_op_counts()
        assert torch.equal(got.cpu(), torch.index_select(x, dim, idx))
    assert torch.equal(torch.index_select(d.t(), 0, torch.tensor([1, 3], device=D)).cpu(),
                       torch.index_select(x.t(), 0, torch.tensor([1, 3])))
    emb = torch.nn.Embedding(10, 4)
    embd = torch.nn.Embedding(10, 4).to(D)
    embd.load_state_dict(emb.state_dict())
    ids = torch.tensor([[1, 2, 9], [0, 0, 4]])
    torch.russet.reset_host_op_counts()
    out = embd(ids.to(D))
    assert torch.russet.host_op_counts() == {}, torch.russet.host_op_counts()
    assert torch.equal(out.detach().cpu(), emb(ids).detach())
    with pytest.raises(IndexError, match="vector"):  # CPU's type: IndexError
        torch.index_select(d, 0, torch.tensor([[0]], device=D))
    with pytest.raises(RuntimeError, match="int32 or int64"):
        torch.index_select(d, 0, torch.tensor([0.0], device=D))
