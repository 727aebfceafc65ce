"""Matrix products (mm, bmm, addmm, baddbmm, addbmm, addmv, mv, dot, vdot,
addr, linalg.cross/cross, and the composites that reach them: matmul,
linear, einsum, tensordot, inner, kron, outer) against CPU with PyTorch's
OpInfo samples for every dtype CPU supports, natively except float64 and
complex128 under the apple profile; plus transposed, strided, expanded and
conjugated operands, k = 0 and empty shapes, batch broadcast, odd larger
sizes, out= and in-place forms, errors, and a Linear layer's backward."""

import pytest
import torch
from torch.testing import assert_close

from opinfo_check import HOST_DTYPES, check_opinfo

D = "russet"

# OpInfos that go through the GEMM engine only (every sample must be native)
GEMM_OPS = [
    ("mm", ""), ("bmm", ""), ("addmm", ""), ("addmm", "decomposed"), ("baddbmm", ""), ("addbmm", ""),
    ("addmv", ""), ("mv", ""), ("dot", ""), ("vdot", ""), ("addr", ""), ("matmul", ""),
    ("__rmatmul__", ""), ("linalg.cross", ""), ("cross", ""), ("inner", ""),
    ("kron", ""), ("outer", ""), ("nn.functional.linear", ""),
]


@pytest.mark.parametrize("name,variant", GEMM_OPS, ids=[f"{n}.{v}" if v else n for n, v in GEMM_OPS])
def test_op_matches_cpu(name, variant):
    check_opinfo(name, variant)


@pytest.mark.parametrize("name", ["einsum", "tensordot"])
def test_contractions_match_cpu(name):
    # einsum and tensordot contract through bmm/mm; some of their samples also
    # sum over a dimension (aten::sum: the reduction engine, outside this
    # file), so nativeness is checked in test_einsum_and_tensordot_native on
    # forms that are pure products
    check_opinfo(name, native=False)


def _native(fn):
    torch.russet.reset_host_op_counts()
    out = fn()
    torch.russet.synchronize()
    host = torch.russet.host_op_counts()
    assert not host, f"ran on the host: {host}"
    return out


def _rand(*shape, dtype=torch.float32):
    if dtype.is_complex or dtype.is_floating_point:
        return torch.randn(*shape, dtype=dtype)
    return torch.randint(0 if dtype == torch.uint8 else -9, 10, shape, dtype=dtype)


FLOATS = [torch.float32, torch.float16, torch.bfloat16, torch.complex64]
INTS = [torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64]


@pytest.mark.parametrize("dtype", FLOATS + INTS, ids=str)
def test_mm_layouts(dtype):
    """Transposed, strided (sliced) and expanded operands are read in place."""
    a = _rand(40, 33, dtype=dtype)
    b = _rand(50, 33, dtype=dtype)
    big = _rand(33, 90, dtype=dtype)
    cases = [
        (a, b.t()),                   # B transposed
        (b.t().t(), big[:, ::2]),     # B column-strided
        (a.t().contiguous().t(), big[:, 1:46]),  # A column-major
        (a[::2], big[:, :7]),         # A row-strided
        (torch.ones(1, 33, dtype=dtype).expand(6, 33), big),  # A expanded (stride 0)
    ]
    tol = {torch.float16: dict(atol=1e-2, rtol=1e-2), torch.bfloat16: dict(atol=8e-2, rtol=2e-2)}.get(dtype, {})
    for x, y in cases:
        got = _native(lambda: torch.mm(x.to(D) if x.is_contiguous() else _dev_view(x), _dev_view(y)))
        assert_close(got.cpu(), torch.mm(x, y), **tol)


def _dev_view(t):
    """The same strided view on the device (same sizes, strides and offset)."""
    base = t._base if t._base is not None else t
    d = base.to(D)
    return d.as_strided(t.size(), t.stride(), t.storage_offset())


def test_large_odd_sizes():
    a, b, c = torch.randn(257, 65), torch.randn(65, 129), torch.randn(257, 129)
    got = _native(lambda: torch.addmm(c.to(D), a.to(D), b.to(D), beta=0.5, alpha=-1.5))
    assert_close(got.cpu(), torch.addmm(c, a, b, beta=0.5, alpha=-1.5))
    a16, b16 = a.half(), b.half()
    got = _native(lambda: a16.to(D) @ b16.to(D))
    assert_close(got.cpu(), (a16.float() @ b16.float()).half(), atol=1e-2, rtol=1e-2)
    ai, bi = torch.randint(-100, 100, (257, 65), dtype=torch.int32), torch.randint(-100, 100, (65, 129), dtype=torch.int32)
    assert torch.equal(_native(lambda: ai.to(D) @ bi.to(D)).cpu(), ai @ bi)


def test_integer_overflow_wraps_like_cpu():
    a = torch.randint(-128, 128, (30, 70), dtype=torch.int8)
    b = torch.randint(-128, 128, (70, 20), dtype=torch.int8)
    assert torch.equal(_native(lambda: a.to(D) @ b.to(D)).cpu(), a @ b)
    a = torch.randint(0, 256, (30, 70), dtype=torch.uint8)
    b = torch.randint(0, 256, (70, 20), dtype=torch.uint8)
    assert torch.equal(_native(lambda: torch.addmm(a[:, :20].to(D), a.to(D), b.to(D), beta=3, alpha=5)).cpu(),
                       torch.addmm(a[:, :20], a, b, beta=3, alpha=5))
    x = torch.full((1000,), 2**40, dtype=torch.int64)
    assert torch.equal(_native(lambda: torch.dot(x.to(D), x.to(D))).cpu(), torch.dot(x, x))


def test_empty_and_k_zero():
    for m, k, n in [(0, 3, 4), (3, 0, 4), (3, 4, 0), (0, 0, 0)]:
        a, b = torch.randn(m, k), torch.randn(k, n)
        c = torch.full((m, n), float("nan"))
        assert_close(_native(lambda: a.to(D) @ b.to(D)).cpu(), a @ b)
        # beta = 0: NaN in self is ignored, as on CPU
        assert_close(_native(lambda: torch.addmm(c.to(D), a.to(D), b.to(D), beta=0)).cpu(),
                     torch.addmm(c, a, b, beta=0), equal_nan=True)
        # k = 0: alpha is ignored (inf * 0 would be nan)
        s = torch.randn(m, n)
        assert_close(_native(lambda: torch.addmm(s.to(D), a.to(D), b.to(D), beta=2, alpha=float("inf"))).cpu(),
                     torch.addmm(s, a, b, beta=2, alpha=float("inf")), equal_nan=True)
    assert_close(_native(lambda: torch.bmm(torch.randn(0, 2, 3).to(D), torch.randn(0, 3, 4).to(D))).cpu(),
                 torch.empty(0, 2, 4))
    assert_close(_native(lambda: torch.dot(torch.randn(0).to(D), torch.randn(0).to(D))).cpu(), torch.tensor(0.0))


def test_matmul_broadcast_forms():
    cases = [((7,), (7,)), ((5, 7), (7,)), ((7,), (7, 4)), ((3, 5, 7), (7, 4)), ((5, 7), (3, 7, 4)),
             ((2, 1, 5, 7), (3, 7, 4)), ((3, 5, 7), (7,)), ((7,), (2, 3, 7, 4)), ((1, 5, 7), (6, 7, 2))]
    for sa, sb in cases:
        a, b = torch.randn(sa), torch.randn(sb)
        got = _native(lambda: torch.matmul(a.to(D), b.to(D)))
        assert_close(got.cpu(), torch.matmul(a, b), msg=f"{sa} @ {sb}")


def test_bmm_batch_broadcast_and_baddbmm_bias():
    a = torch.randn(1, 6, 5).expand(4, 6, 5)
    b = torch.randn(4, 5, 3)
    bias = torch.randn(3)
    got = _native(lambda: torch.baddbmm(bias.to(D), a.to(D), b.to(D), beta=0.25, alpha=2))
    assert_close(got.cpu(), torch.baddbmm(bias, a, b, beta=0.25, alpha=2))
    got = _native(lambda: torch.addbmm(bias.to(D), a.to(D), b.to(D)))
    assert_close(got.cpu(), torch.addbmm(bias, a, b))


def test_out_and_inplace_forms():
    a, b, c = torch.randn(6, 4), torch.randn(4, 5), torch.randn(6, 5)
    out = torch.empty(6, 5, device=D)
    _native(lambda: torch.mm(a.to(D), b.to(D), out=out))
    assert_close(out.cpu(), a @ b)
    out_t = torch.empty(5, 6, device=D).t()  # a transposed out is written in place
    _native(lambda: torch.addmm(c.to(D), a.to(D), b.to(D), out=out_t))
    assert_close(out_t.cpu(), torch.addmm(c, a, b))
    dc = c.to(D)
    _native(lambda: dc.addmm_(a.to(D), b.to(D), alpha=3))
    assert_close(dc.cpu(), c.addmm(a, b, alpha=3))
    # out aliasing an operand: computed into a temporary
    sq = torch.randn(5, 5)
    dsq = sq.to(D)
    torch.mm(dsq, dsq, out=dsq)
    assert_close(dsq.cpu(), sq @ sq)
    v = torch.randn(4)
    dv = torch.zeros(6, device=D)
    _native(lambda: torch.mv(a.to(D), v.to(D), out=dv))
    assert_close(dv.cpu(), a @ v)
    r = torch.randn(6, 4)
    dr = r.to(D)
    _native(lambda: dr.addr_(torch.ones(6, device=D), torch.arange(4.0, device=D), beta=2))
    assert_close(dr.cpu(), r.addr(torch.ones(6), torch.arange(4.0), beta=2))


def test_conjugate_views():
    """Conj views (the conj bit) are read with the kernel's conj flags."""
    a = torch.randn(5, 4, dtype=torch.complex64)
    b = torch.randn(4, 3, dtype=torch.complex64)
    da, db = a.to(D), b.to(D)
    for ca, cb in [(True, False), (False, True), (True, True)]:
        x, y = (a.conj() if ca else a), (b.conj() if cb else b)
        dx, dy = (da.conj() if ca else da), (db.conj() if cb else db)
        assert dx.is_conj() == ca
        assert_close(_native(lambda: torch.mm(dx, dy)).cpu(), x.resolve_conj() @ y.resolve_conj())
        assert_close(_native(lambda: torch.mm(dy.t(), dx.t())).cpu(), y.resolve_conj().t() @ x.resolve_conj().t())
    u, v = torch.randn(9, dtype=torch.complex64), torch.randn(9, dtype=torch.complex64)
    du, dv = u.to(D), v.to(D)
    for cu, cv in [(False, False), (True, False), (False, True), (True, True)]:
        x, y = (u.conj() if cu else u), (v.conj() if cv else v)
        dx, dy = (du.conj() if cu else du), (dv.conj() if cv else dv)
        assert_close(_native(lambda: torch.vdot(dx, dy)).cpu(), torch.vdot(x, y))
        assert_close(_native(lambda: torch.dot(dx, dy)).cpu(), torch.dot(x, y))


def test_einsum_and_tensordot_native():
    a, b = torch.randn(3, 4, 5), torch.randn(3, 5, 6)
    assert_close(_native(lambda: torch.einsum("bij,bjk->bik", a.to(D), b.to(D))).cpu(),
                 torch.einsum("bij,bjk->bik", a, b))
    assert_close(_native(lambda: torch.einsum("ij,jk->ik", a[0].to(D), b[0].to(D))).cpu(), a[0] @ b[0])
    x, y = torch.randn(2, 3, 4), torch.randn(4, 3, 5)
    assert_close(_native(lambda: torch.tensordot(x.to(D), y.to(D), dims=([1, 2], [1, 0]))).cpu(),
                 torch.tensordot(x, y, dims=([1, 2], [1, 0])))


def test_host_dtypes_under_apple():
    a, b = torch.randn(4, 3, dtype=torch.float64), torch.randn(3, 2, dtype=torch.float64)
    torch.russet.reset_host_op_counts()
    assert_close((a.to(D) @ b.to(D)).cpu(), a @ b)
    if torch.float64 in HOST_DTYPES:
        assert torch.russet.host_op_counts(), "float64 mm must run on the host under the apple profile"


def test_errors_match_cpu():
    def both(fn, *args):
        with pytest.raises(RuntimeError) as cpu_err:
            fn(*args)
        with pytest.raises(RuntimeError) as dev_err:
            fn(*[t.to(D) for t in args])
        return str(cpu_err.value), str(dev_err.value)

    cases = [
        (torch.mm, torch.randn(2, 3), torch.randn(4, 5)),
        (torch.mm, torch.randn(2, 3), torch.randn(3, 4, dtype=torch.float64)),
        (torch.bmm, torch.randn(2, 2, 3), torch.randn(3, 3, 4)),
        (torch.mv, torch.randn(2, 3), torch.randn(4)),
        (torch.dot, torch.randn(3), torch.randn(4)),
        (torch.dot, torch.randn(3), torch.randn(3, dtype=torch.float64)),
        (torch.dot, torch.randn(3, 1), torch.randn(3)),
        (torch.addbmm, torch.randn(2, 4), torch.randn(3, 2, 3), torch.randn(2, 3, 4)),
        (torch.addr, torch.randn(2, 3), torch.randn(2, 1), torch.randn(3)),
        (torch.linalg.cross, torch.randn(2, 4), torch.randn(2, 4)),
        (torch.matmul, torch.randn(2, 3), torch.randn(4, 5)),
    ]
    for fn, *args in cases:
        cpu_msg, dev_msg = both(fn, *args)
        assert dev_msg.split("\n")[0] == cpu_msg.split("\n")[0], (fn, cpu_msg, dev_msg)


def test_linear_forward_backward_native():
    lin = torch.nn.Linear(17, 9)
    dlin = torch.nn.Linear(17, 9).to(D)
    dlin.load_state_dict(lin.state_dict())
    x = torch.randn(6, 17, requires_grad=True)
    dx = x.detach().to(D).requires_grad_()
    g = torch.randn(6, 9)
    lin(x).backward(g)
    torch.russet.reset_host_op_counts()
    dlin(dx).backward(g.to(D))
    torch.russet.synchronize()
    host = torch.russet.host_op_counts()
    # the bias gradient is a sum over the batch: the reduction engine's op
    assert set(host) <= {"aten::sum.IntList_out"}, host
    assert_close(dx.grad.cpu(), x.grad)
    assert_close(dlin.weight.grad.cpu(), lin.weight.grad)
    assert_close(dlin.bias.grad.cpu(), lin.bias.grad)


def test_cpu_operand_raises():
    a = torch.ones(3, 3, device=D)
    b = torch.ones(3, 3)
    for fn in (lambda: torch.mm(a, b), lambda: torch.addmm(b, a, a), lambda: torch.bmm(a[None], b[None]),
               lambda: torch.mv(a, b[0]), lambda: torch.dot(a[0], b[0]), lambda: torch.addr(a, a[0], b[0]),
               lambda: torch.linalg.cross(a, b), lambda: torch.addbmm(a, a[None], b[None]),
               lambda: torch.mm(a, a, out=b)):
        with pytest.raises(RuntimeError, match="device"):
            fn()
    assert (a.cpu() == 1).all()


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16], ids=str)
def test_addr_and_cross_round_like_cpu(dtype):
    """CPU's addr and cross compute in Half/BFloat16 arithmetic (a rounding
    after every operation): the same bits here."""
    g = torch.Generator().manual_seed(3)
    s, v1, v2 = (torch.randn(40, 30, generator=g).to(dtype), torch.randn(40, generator=g).to(dtype),
                 torch.randn(30, generator=g).to(dtype))
    for beta, alpha in [(1, 1), (0.5, -3.25), (0, 2)]:
        got = _native(lambda: torch.addr(s.to(D), v1.to(D), v2.to(D), beta=beta, alpha=alpha))
        assert torch.equal(got.cpu(), torch.addr(s, v1, v2, beta=beta, alpha=alpha)), (beta, alpha)
    a, b = torch.randn(50, 3, generator=g).to(dtype), torch.randn(50, 3, generator=g).to(dtype)
    assert torch.equal(_native(lambda: torch.linalg.cross(a.to(D), b.to(D))).cpu(), torch.linalg.cross(a, b))


def test_long_k_few_tiles_matches_cpu():
    """nn.Linear's weight-gradient shapes (a small product over many rows,
    the first operand transposed): float32 k split into chunks whose partial
    products a second pass adds, with addmm's alpha and beta there. Against
    float64, within 1e-5 of sum |a_ik b_kj| per element (the rounding of a
    2049-term sum in any order; a lost or doubled chunk is ~1e-1 of it)"""
    torch.manual_seed(7)
    x, go, bias = torch.randn(2049, 96), torch.randn(2049, 80), torch.randn(80)

    def within(got, a, b, exact):
        bound = 1e-5 * (a.abs().double() @ b.abs().double()) + 1e-6
        assert ((got.double() - exact).abs() <= bound).all()

    within((go.t().to("russet") @ x.to("russet")).cpu(), go.t(), x, go.t().double() @ x.double())
    got = torch.addmm(bias.to("russet"), x.t().to("russet"), go.to("russet"), beta=0.5, alpha=2.0)
    exact = torch.addmm(bias.double(), x.t().double(), go.double(), beta=0.5, alpha=2.0)
    within(got.cpu(), 2 * x.t(), go, exact)
