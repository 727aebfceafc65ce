"""cat, flip, roll, tril/triu, equal against CPU: OpInfo samples for every
dtype CPU supports (all native: copies move float64 as bits, and the
triangle ops are a where over index comparisons), plus layouts and errors."""

import pytest
import torch
from torch.testing import assert_close

from opinfo_check import check_opinfo, host_free

D = "russet"

OPS = [("cat", ""), ("flip", ""), ("fliplr", ""), ("flipud", ""), ("roll", ""), ("rot90", ""),
       ("tril", ""), ("triu", "")]


@pytest.mark.parametrize("name,variant", OPS, ids=[f"{n}.{v}" if v else n for n, v in OPS])
def test_matches_cpu(name, variant):
    # copies and where need no float64 arithmetic: native for every dtype
    check_opinfo(name, variant, native=False)
    torch.russet.reset_host_op_counts()
    x = torch.randn(4, 5, dtype=torch.float64)
    {"cat": lambda t: torch.cat([t, t], 1), "flip": lambda t: t.flip(0), "fliplr": torch.fliplr,
     "flipud": torch.flipud, "roll": lambda t: t.roll(2, 1), "rot90": torch.rot90, "tril": torch.tril,
     "triu": torch.triu}[name](x.to(D))
    assert torch.russet.host_op_counts() == {}, torch.russet.host_op_counts()


@pytest.mark.parametrize("dtype", [torch.float32, torch.int64, torch.bool, torch.complex64, torch.float16])
def test_layouts(dtype):
    x = torch.testing.make_tensor((3, 4, 5), dtype=dtype, device="cpu")
    d = x.to(D)
    for t, u in [(x, d), (x.transpose(0, 2), d.transpose(0, 2)), (x[:, ::2], d[:, ::2])]:
        assert torch.equal(torch.cat([u, u[:1]], 0).cpu(), torch.cat([t, t[:1]], 0))
        assert torch.equal(u.flip(0, 2).cpu(), t.flip(0, 2))
        assert torch.equal(u.roll((1, -3), (1, 2)).cpu(), t.roll((1, -3), (1, 2)))
        assert torch.equal(u.roll(7).cpu(), t.roll(7))
        assert torch.equal(u.tril(-1).cpu(), t.tril(-1))
        assert torch.equal(u.triu(2).cpu(), t.triu(2))
    y = d.clone()
    y.tril_(1)
    assert torch.equal(y.cpu(), x.tril(1))


@pytest.mark.parametrize("dtype", [torch.float64, torch.complex128, torch.uint8, torch.bfloat16, torch.bool,
                                   torch.complex32])
def test_triangles_of_every_element_size(dtype):
    # rs_triangle moves bits: 1 to 16 bytes, a conjugate view resolved, a
    # batch of 1-size dims, diagonals past both ends, a strided out=
    x = torch.randn(2, 1, 4, 6, dtype=torch.complex64 if dtype.is_complex else torch.float32).to(dtype)
    d = x.to(D)
    for k in (0, 2, -1, 7, -7):
        assert torch.equal(d.tril(k).cpu().view(torch.uint8), x.tril(k).view(torch.uint8))
        assert torch.equal(d.mT.triu(k).cpu().view(torch.uint8), x.mT.triu(k).view(torch.uint8))
    if dtype.is_complex and dtype != torch.complex32:
        assert torch.equal(d.conj().tril(1).cpu(), x.conj().tril(1))
    out = torch.zeros(4, 6, 4, dtype=dtype, device=D)[::2].mT
    torch.triu(d.squeeze(1), 1, out=out)
    assert torch.equal(out.cpu().contiguous().view(torch.uint8), x.squeeze(1).triu(1).view(torch.uint8))
    assert torch.russet.host_op_counts() == {} or "aten::triu.out" not in torch.russet.host_op_counts()


@pytest.mark.parametrize("dtype", [torch.float8_e4m3fn, torch.float8_e5m2, torch.uint16, torch.uint64])
def test_triangles_refuse_what_cpu_refuses(dtype):
    for fn in (torch.tril, torch.triu):
        with pytest.raises(NotImplementedError, match="not implemented for"):
            fn(torch.zeros(3, 3, dtype=dtype))
        with pytest.raises(NotImplementedError, match="not implemented for"):
            fn(torch.zeros(3, 3, dtype=dtype, device=D))


def test_cat_promotes_skips_legacy_empty_and_writes_out():
    a = torch.arange(6, dtype=torch.int32).view(2, 3)
    b = torch.rand(1, 3)
    got = torch.cat([a.to(D), torch.empty(0, device=D), b.to(D)])
    assert_close(got.cpu(), torch.cat([a, torch.empty(0), b]))
    out = torch.empty(0, device=D)
    torch.cat([b.to(D), b.to(D)], 1, out=out)
    assert out.shape == (1, 6)
    with pytest.raises(RuntimeError, match="Sizes of tensors must match"):
        torch.cat([a.to(D), torch.rand(2, 2, device=D)], 0)
    with pytest.raises(RuntimeError, match="same device"):  # as CUDA
        torch.cat([b.to(D), b])


def test_equal():
    x = torch.tensor([1.0, float("nan"), 3.0])
    d = x.to(D)
    assert torch.equal(d, d.clone()) == torch.equal(x, x.clone())
    assert torch.equal(d[:1], d[:1].clone())
    assert not torch.equal(d, d[:2])
    assert torch.equal(torch.empty(0, device=D), torch.empty(0, device=D))
    # two dtypes: by value, as this torch's CPU (the fuzzer found russet refusing them)
    a, b = torch.tensor([1, 2, 3], dtype=torch.uint8), torch.tensor([1.0, 2.0, 3.0])
    for u, v in [(a, b), (a, b + 0.5), (b, b.int())]:
        try:
            want = torch.equal(u, v)
        except RuntimeError:  # torch 2.11's CPU refuses two dtypes
            continue
        assert torch.equal(u.to(D), v.to(D)) == want


def test_flip_errors():
    d = torch.rand(2, 3, device=D)
    with pytest.raises(RuntimeError, match="duplicates"):
        d.flip(0, 0)
    with pytest.raises(IndexError):
        d.flip(2)


@pytest.mark.parametrize("name", ["repeat_interleave", "nn.functional.channel_shuffle"])
def test_repeat_interleave_and_channel_shuffle_opinfo(name):
    check_opinfo(name)


def test_repeat_interleave_forms_and_errors():
    for dt in (torch.int64, torch.int32):
        r = torch.tensor([2, 0, 3, 1], dtype=dt)
        got = host_free(lambda: torch.repeat_interleave(r.to(D)))
        assert got.dtype == torch.repeat_interleave(r).dtype
        assert torch.equal(got.cpu(), torch.repeat_interleave(r))
        assert torch.equal(host_free(lambda: torch.repeat_interleave(r.to(D), output_size=6)).cpu(),
                           torch.repeat_interleave(r, output_size=6))
    x = torch.randn(4, 3)
    r = torch.tensor([1, 0, 2, 3])
    assert_close(host_free(lambda: x.to(D).repeat_interleave(r.to(D), dim=0)).cpu(), x.repeat_interleave(r, dim=0))
    with pytest.raises(RuntimeError, match="can not be negative"):
        torch.repeat_interleave(torch.tensor([1, -1], device=D))
    with pytest.raises(RuntimeError, match="Long or Int"):
        torch.repeat_interleave(torch.tensor([1.0], device=D))
    with pytest.raises(RuntimeError, match="divisible by groups"):
        torch.nn.functional.channel_shuffle(torch.randn(1, 3, 2, 2, device=D), 2)


@pytest.mark.parametrize("name", ["narrow_copy", "tril_indices", "triu_indices"])
def test_narrow_copy_and_tri_indices_opinfo(name):
    check_opinfo(name, native=False)


def test_narrow_copy_out():
    x = torch.arange(24.0).reshape(4, 6)
    out = torch.empty(0, device=D)  # resized
    got = host_free(lambda: torch.narrow_copy(x.to(D), 1, -4, 3, out=out))
    assert got is out and torch.equal(out.cpu(), torch.narrow_copy(x, 1, -4, 3))
    xt = x.t()  # a transposed input
    assert torch.equal(host_free(lambda: torch.narrow_copy(xt.to(D), 0, 1, 2, out=torch.empty(0, device=D))).cpu(),
                       torch.narrow_copy(xt, 0, 1, 2))
    with pytest.raises(RuntimeError, match="dtype"):
        torch.narrow_copy(x.to(D), 1, 0, 2, out=torch.empty(0, dtype=torch.int64, device=D))
    with pytest.raises(RuntimeError, match="exceeds dimension size"):
        torch.narrow_copy(x.to(D), 1, 5, 2, out=torch.empty(0, device=D))


@pytest.mark.parametrize("row,col,offset", [(0, 3, 0), (3, 0, 0), (4, 4, 0), (3, 5, 1), (5, 3, -1), (4, 6, -10),
                                            (4, 6, 10), (1, 1, 0), (7, 3, 2)])
def test_tri_indices(row, col, offset):
    for fn in (torch.tril_indices, torch.triu_indices):
        for dt in (torch.int64, torch.int32):
            got = host_free(lambda: fn(row, col, offset, dtype=dt, device=D))
            want = fn(row, col, offset, dtype=dt)
            assert got.dtype == want.dtype and got.shape == want.shape
            assert torch.equal(got.cpu(), want)


def test_tri_indices_errors():
    with pytest.raises(RuntimeError, match="row must be non-negative"):
        torch.tril_indices(-1, 3, device=D)
    with pytest.raises(RuntimeError, match="col must be non-negative"):
        torch.triu_indices(3, -1, device=D)
    with pytest.raises(RuntimeError, match="not implemented for 'Float'"):
        torch.tril_indices(3, 3, dtype=torch.float32, device=D)


@pytest.mark.parametrize("shape,dim,size,step", [((10,), 0, 3, 2), ((10,), 0, 3, 3), ((10,), 0, 2, 4),
                                                 ((3, 9, 2), 1, 4, 1), ((3, 9, 2), -1, 1, 1), ((5, 4), 0, 5, 1),
                                                 ((), 0, 1, 1), ((6, 0), 0, 2, 2)])
def test_unfold_backward(shape, dim, size, step):
    # the gradient of unfold: overlapping windows (step < size) sum
    for dt in (torch.float32, torch.float16, torch.bfloat16):
        x = torch.randn(shape).to(dt)
        g = torch.randn(x.unfold(dim, size, step).shape).to(dt)
        want = torch.ops.aten.unfold_backward(g, list(shape), dim, size, step)
        got = host_free(lambda: torch.ops.aten.unfold_backward(g.to(D), list(shape), dim, size, step))
        assert_close(got.cpu(), want)
    xr = torch.randn(shape, device=D, requires_grad=True)
    xc = xr.detach().cpu().requires_grad_(True)
    xr.unfold(dim, size, step).sum().backward()
    xc.unfold(dim, size, step).sum().backward()
    assert_close(xr.grad.cpu(), xc.grad)
