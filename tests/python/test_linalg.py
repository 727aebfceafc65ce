"""The native linear algebra (the C core's linalg engine, src/engine/linalg.c,
through src/torch/ops/linalg.cpp): Cholesky, the triangular solves, LU with
partial pivoting and what is built on it (solve, inv, det, slogdet), QR and
ormqr, the SVD and the Hermitian eigendecomposition (values and vectors),
against CPU (LAPACK); float64 and complex128 where the device has fp64."""

import re
import warnings

import pytest
import torch
from torch.testing import assert_close
from torch.testing._internal.common_methods_invocations import op_db

from opinfo_check import check_opinfo, host_free

D = "russet"
OPS = ["linalg.cholesky", "linalg.cholesky_ex", "cholesky", "linalg.solve_triangular", "cholesky_solve",
       "cholesky_inverse", "triangular_solve",
       "linalg.lu_factor", "linalg.lu_factor_ex", "linalg.lu", "linalg.lu_solve", "lu_unpack", "lu_solve", "lu",
       "linalg.solve", "linalg.solve_ex", "linalg.inv", "linalg.inv_ex", "linalg.det", "linalg.slogdet",
       "logdet", "linalg.tensorsolve", "linalg.tensorinv", "linalg.matrix_power",
       "linalg.qr", "qr", "geqrf", "linalg.householder_product", "ormqr", "linalg.svdvals", "linalg.eigvalsh"]
# torch 2.15 removed torch.cholesky (aten::cholesky) and the OpInfos of
# cholesky and qr: those run where torch has them (issue 22)
HAS_CHOLESKY = hasattr(torch.ops.aten, "cholesky")
_OPINFOS = {o.name for o in op_db}
OPS = [n for n in OPS if n not in ("cholesky", "qr") or n in _OPINFOS]


FP64 = torch.russet.get_device_properties().has_fp64
# the Jacobi iterations (singular values, Hermitian eigenvalues) are float32's
SINGLE_ONLY = {"linalg.svdvals", "linalg.eigvalsh"}


@pytest.mark.parametrize("name", OPS)
def test_opinfo_native(name):
    check_opinfo(name, dtypes=[torch.float32, torch.complex64])


@pytest.mark.skipif(not FP64, reason="float64 runs on the host without fp64 (the apple profile)")
@pytest.mark.parametrize("name", [n for n in OPS if n not in SINGLE_ONLY])
def test_opinfo_native_float64(name):
    check_opinfo(name, dtypes=[torch.float64, torch.complex128])


def spd(*shape, dtype=torch.float32, seed=0):
    """Symmetric/Hermitian positive-definite matrices of shape (..., n, n)
    (spd(n) alone: one n x n matrix)."""
    if len(shape) == 1:
        shape = (shape[0], shape[0])
    g = torch.Generator().manual_seed(seed)
    n = shape[-1]
    a = torch.randn(*shape, generator=g, dtype=dtype)
    return a @ a.mH + n * torch.eye(n, dtype=dtype)


@pytest.mark.parametrize("dtype", [torch.float32, torch.complex64])
@pytest.mark.parametrize("upper", [False, True])
def test_cholesky_batched_and_larger(dtype, upper):
    for shape in ((3, 2, 5, 5), (48, 48), (0, 4, 4), (2, 0, 0)):
        a = spd(*shape, dtype=dtype) if shape[-1] else torch.empty(shape, dtype=dtype)
        L, info = torch.linalg.cholesky_ex(a, upper=upper)
        Ld, infod = host_free(lambda: torch.linalg.cholesky_ex(a.to(D), upper=upper))
        assert_close(Ld.cpu(), L, atol=1e-4, rtol=1e-4)
        assert torch.equal(infod.cpu(), info) and infod.dtype == torch.int32


def test_upper_complex_cholesky_is_no_conjugate_view():
    # the upper factor is the lower one's mH: returned resolved, as CPU's,
    # so that view_as_real (and the sweep's complex gradients) work on it
    torch.manual_seed(3)
    a = torch.randn(2, 4, 4, dtype=torch.complex64)
    a = a @ a.mH + 4 * torch.eye(4)
    forms = [lambda t: torch.linalg.cholesky(t, upper=True)]
    if HAS_CHOLESKY:
        forms.append(lambda t: torch.cholesky(t, upper=True))
    for f in forms:
        got, want = f(a.to(D)), f(a)
        assert not got.is_conj()
        assert_close(torch.view_as_real(got).cpu(), torch.view_as_real(want), rtol=1e-5, atol=1e-5)


@pytest.mark.skipif(not HAS_CHOLESKY, reason="torch.cholesky was removed from this torch")
@pytest.mark.filterwarnings("ignore:torch.cholesky is deprecated")
@pytest.mark.parametrize("shape", [(0, 5), (3, 0, 5), (0,)])
def test_deprecated_cholesky_returns_an_empty_input_as_aten_does(shape):
    # ATen (CPU and CUDA) returns before its checks when A has no elements,
    # even for a matrix that is not square (the fuzzer found it)
    x = torch.zeros(shape)
    got = torch.cholesky(x.to(D))
    assert got.shape == torch.cholesky(x).shape and got.device.type == "russet"
    out = torch.empty(7, device=D)
    torch.cholesky(x.to(D), out=out)
    assert out.shape == x.shape


def test_cholesky_not_positive_definite():
    # info and the partial factor as LAPACK leaves them (the failing column's
    # d on the diagonal, the original values from there on)
    a = torch.tensor([[4.0, 2, 1, 0], [2, 1, 0, 1], [1, 0, 3, 0], [0, 1, 0, 2]])
    batch = torch.stack([spd(4), a, torch.full((4, 4), float("nan"))])
    L, info = torch.linalg.cholesky_ex(batch)
    Ld, infod = torch.linalg.cholesky_ex(batch.to(D))
    assert torch.equal(infod.cpu(), info)
    assert_close(Ld.cpu(), L, equal_nan=True)
    with pytest.raises(RuntimeError, match=r"\(Batch element 1\).*leading minor of order 2 is not positive-definite"):
        torch.linalg.cholesky(batch[:2].to(D))
    with pytest.raises(RuntimeError, match="leading minor of order 2 is not positive-definite"):
        torch.linalg.cholesky_ex(a.to(D), check_errors=True)
    if HAS_CHOLESKY:
        with pytest.raises(RuntimeError, match="not positive-definite"):
            torch.cholesky(a.to(D))


@pytest.mark.parametrize("dtype", [torch.float32, torch.complex64])
def test_solve_triangular_forms(dtype):
    g = torch.Generator().manual_seed(1)
    a = torch.randn(2, 1, 6, 6, generator=g, dtype=dtype) + 4 * torch.eye(6, dtype=dtype)
    b = torch.randn(3, 6, 4, generator=g, dtype=dtype)  # batch dims broadcast against a's
    br = torch.randn(3, 4, 6, generator=g, dtype=dtype)
    for upper in (False, True):
        for unit in (False, True):
            want = torch.linalg.solve_triangular(a, b, upper=upper, unitriangular=unit)
            got = host_free(lambda: torch.linalg.solve_triangular(a.to(D), b.to(D), upper=upper, unitriangular=unit))
            assert got.shape == want.shape
            assert_close(got.cpu(), want, atol=1e-4, rtol=1e-4)
            want = torch.linalg.solve_triangular(a, br, upper=upper, left=False, unitriangular=unit)
            got = host_free(lambda: torch.linalg.solve_triangular(a.to(D), br.to(D), upper=upper, left=False,
                                                                  unitriangular=unit))
            assert_close(got.cpu(), want, atol=1e-4, rtol=1e-4)
    with pytest.raises(RuntimeError, match="Incompatible shapes"):
        torch.linalg.solve_triangular(a.to(D), torch.randn(4, 2, dtype=dtype, device=D), upper=True)
    # a zero on the diagonal: inf/nan as CPU
    z = torch.tensor([[1.0, 0], [1, 0]])
    rhs = torch.tensor([[1.0], [2.0]])
    assert_close(torch.linalg.solve_triangular(z.to(D), rhs.to(D), upper=False).cpu(),
                 torch.linalg.solve_triangular(z, rhs, upper=False), equal_nan=True)


def test_cholesky_gradient_and_solve_chain():
    a = spd(5, seed=3)
    ac = a.clone().requires_grad_(True)
    ad = a.to(D).requires_grad_(True)
    b = torch.randn(5, 2)
    (torch.cholesky_solve(b, torch.linalg.cholesky(ac)) ** 2).sum().backward()
    torch.russet.reset_host_op_counts()
    (torch.cholesky_solve(b.to(D), torch.linalg.cholesky(ad)) ** 2).sum().backward()
    assert torch.russet.host_op_counts() == {}
    assert_close(ad.grad.cpu(), ac.grad, atol=1e-4, rtol=1e-4)
    assert_close(torch.cholesky_inverse(torch.linalg.cholesky(a.to(D))).cpu(), torch.linalg.inv(a),
                 atol=1e-4, rtol=1e-4)


def test_float64_without_fp64_goes_to_the_host_exactly():
    a = spd(4, dtype=torch.float64)
    if FP64:  # native: the engine's float64 kernels, close to LAPACK's
        got = host_free(lambda: torch.linalg.cholesky(a.to(D))).cpu()
        assert_close(got, torch.linalg.cholesky(a), atol=1e-12, rtol=1e-12)
    else:
        assert torch.equal(torch.linalg.cholesky(a.to(D)).cpu(), torch.linalg.cholesky(a))


@pytest.mark.parametrize("dtype", [torch.float32, torch.complex64])
def test_lu_pivots_and_factors_match_lapack(dtype):
    g = torch.Generator().manual_seed(4)
    for shape in ((6, 6), (3, 5, 5), (7, 4), (4, 7), (2, 0, 0)):
        a = torch.randn(*shape, generator=g, dtype=dtype)
        LU, piv, info = torch.linalg.lu_factor_ex(a)
        LUd, pivd, infod = host_free(lambda: torch.linalg.lu_factor_ex(a.to(D)))
        assert torch.equal(pivd.cpu(), piv) and torch.equal(infod.cpu(), info)
        assert_close(LUd.cpu(), LU, atol=1e-5, rtol=1e-5)
    # the complex pivot is the largest |re| + |im| (izamax), not the largest |z|
    z = torch.tensor([[3 + 0j, 1], [2 + 2j, 1]], dtype=torch.complex64)  # |3| > |2+2i|, but 3 < 2 + 2
    assert torch.equal(torch.linalg.lu_factor(z.to(D)).pivots.cpu(), torch.linalg.lu_factor(z).pivots)
    # ties: the first row
    t = torch.tensor([[1.0, 2], [-1, 3]])
    assert torch.equal(torch.linalg.lu_factor(t.to(D)).pivots.cpu(), torch.linalg.lu_factor(t).pivots)


def test_singular_matrices():
    s = torch.tensor([[1.0, 2, 3], [2, 4, 6], [1, 0, 1]])
    LU, piv, info = torch.linalg.lu_factor_ex(s)
    LUd, pivd, infod = torch.linalg.lu_factor_ex(s.to(D))
    assert torch.equal(infod.cpu(), info) and torch.equal(pivd.cpu(), piv)
    assert_close(LUd.cpu(), LU)
    assert torch.linalg.det(s.to(D)).item() == 0.0
    sign, logabs = torch.linalg.slogdet(s.to(D))
    assert sign.item() == 0.0 and logabs.item() == float("-inf")
    with pytest.raises(RuntimeError, match="singular"):
        torch.linalg.inv(s.to(D))
    with pytest.raises(RuntimeError, match="singular"):
        torch.linalg.solve(s.to(D), torch.ones(3, device=D))


def strided_out(shape, dtype):
    """An out= tensor whose batch dims cannot be flattened into one (every
    other matrix of a larger buffer, transposed): the engine writes a
    stand-in that is copied in."""
    big = torch.full((shape[0] * 2, *shape[1:]), 7.0, dtype=dtype, device=D)
    return big[::2].transpose(-1, -2).contiguous().transpose(-1, -2) if len(shape) > 2 else big[::2]


@pytest.mark.parametrize("dtype", [torch.float32, torch.complex64])
def test_unpack_det_qr_eigvalsh_into_strided_outs(dtype):
    g = torch.Generator().manual_seed(9)
    a = torch.randn(3, 5, 5, generator=g, dtype=dtype)
    LU, piv = torch.linalg.lu_factor(a)
    P, L, U = torch.lu_unpack(LU, piv)
    outs = [strided_out((3, 5, 5), dtype) for _ in range(3)]
    # the batch of 3 as 3 x 1: a size-1 dim; the transposed views: strides the engine writes through
    host_free(lambda: torch.lu_unpack(LU.to(D), piv.to(D), out=outs))
    for got, want in zip(outs, (P, L, U)):
        assert_close(got.cpu(), want, atol=1e-6, rtol=1e-6)
    wide = torch.randn(2, 3, 6, generator=g, dtype=dtype)
    LUw, pivw = torch.linalg.lu_factor(wide)
    for got, want in zip(host_free(lambda: torch.lu_unpack(LUw.to(D), pivw.to(D))), torch.lu_unpack(LUw, pivw)):
        assert_close(got.cpu(), want, atol=1e-6, rtol=1e-6)
    # only the pivots, only the data
    Pd, Ld, Ud = torch.lu_unpack(LU.to(D), piv.to(D), unpack_data=False)
    assert torch.equal(Pd.cpu(), P) and Ld.numel() == 0 and Ud.numel() == 0
    det = torch.full((6,), 5.0, dtype=dtype, device=D)[::2]
    torch.linalg.det(a.to(D), out=det)
    assert_close(det.cpu(), torch.linalg.det(a), atol=1e-4, rtol=1e-4)
    sign = torch.empty(6, dtype=dtype, device=D)[1::2]
    logabs = torch.empty(6, dtype=torch.float32, device=D)[::2]
    torch.linalg.slogdet(a.to(D), out=(sign, logabs))
    sc, lc = torch.linalg.slogdet(a)
    assert_close(sign.cpu(), sc, atol=1e-5, rtol=1e-5) and assert_close(logabs.cpu(), lc, atol=1e-5, rtol=1e-5)
    # det of 0 x 0 matrices is 1; of an empty batch, empty
    assert torch.equal(torch.linalg.det(torch.ones(2, 0, 0, dtype=dtype, device=D)).cpu(), torch.ones(2, dtype=dtype))
    assert torch.linalg.det(torch.ones(0, 3, 3, dtype=dtype, device=D)).shape == (0,)
    q, r = strided_out((3, 5, 5), dtype), strided_out((3, 5, 5), dtype)
    host_free(lambda: torch.linalg.qr(a.to(D), mode="complete", out=(q, r)))
    assert_close((q @ r).cpu(), a, atol=1e-5, rtol=1e-5)
    assert torch.equal(r.cpu().tril(-1), torch.zeros_like(a))
    h = a @ a.mH
    w = torch.empty(6, 5, dtype=torch.float32, device=D)[::2]
    host_free(lambda: torch.linalg.eigvalsh(h.to(D), out=w))
    assert_close(w.cpu(), torch.linalg.eigvalsh(h), atol=1e-4, rtol=1e-4)


def test_slogdet_and_logdet_of_nan_and_inf_pivots():
    # CPU's sign is the product of sgn(u_jj): a NaN pivot gives 0, an
    # infinite one +-1 (russet took u / |u|, NaN for both: tools/fuzz.py
    # seed 44); logdet is NaN where that sign is -1
    nan, inf = float("nan"), float("inf")
    a = torch.tensor([[[1.0, 2.0], [nan, 4.0]], [[inf, 2.0], [3.0, 4.0]], [[-inf, 2.0], [3.0, 4.0]],
                      [[2.0, 1.0], [1.0, -inf]], [[1.0, 2.0], [3.0, 4.0]]])
    sc, lc = torch.linalg.slogdet(a)
    sd, ld = host_free(lambda: torch.linalg.slogdet(a.to(D)))
    assert_close(sd.cpu(), sc, equal_nan=True)
    assert_close(ld.cpu(), lc, equal_nan=True)
    assert_close(host_free(lambda: torch.logdet(a.to(D))).cpu(), torch.logdet(a), equal_nan=True)


@pytest.mark.parametrize("dtype", [torch.float32, torch.complex64])
def test_solve_inv_det_forms(dtype):
    g = torch.Generator().manual_seed(5)
    a = torch.randn(2, 1, 5, 5, generator=g, dtype=dtype)
    for b in (torch.randn(5, generator=g, dtype=dtype), torch.randn(2, 1, 5, generator=g, dtype=dtype),
              torch.randn(3, 5, 2, generator=g, dtype=dtype)):
        for left in (True, False):
            if not left and b.shape[-1] != 2:  # XA = B: B a matrix
                continue
            bb = b if left else b.mT
            want = torch.linalg.solve(a, bb, left=left)
            got = host_free(lambda: torch.linalg.solve(a.to(D), bb.to(D), left=left)).cpu()
            assert got.shape == want.shape
            assert_close(got, want, atol=1e-4, rtol=1e-4)
    assert_close(host_free(lambda: torch.linalg.inv(a.to(D))).cpu(), torch.linalg.inv(a), atol=1e-4, rtol=1e-4)
    assert_close(host_free(lambda: torch.linalg.det(a.to(D))).cpu(), torch.linalg.det(a), atol=1e-4, rtol=1e-4)
    sd, ld = host_free(lambda: torch.linalg.slogdet(a.to(D)))
    sc, lc = torch.linalg.slogdet(a)
    assert_close(sd.cpu(), sc, atol=1e-5, rtol=1e-5)
    assert_close(ld.cpu(), lc, atol=1e-5, rtol=1e-5)
    # gradients through solve and det: native
    ac = a.clone().requires_grad_(True)
    ad = a.to(D).requires_grad_(True)
    (torch.linalg.det(ac).abs().sum() + torch.linalg.solve(ac, a.mH).abs().sum()).backward()
    torch.russet.reset_host_op_counts()
    (torch.linalg.det(ad).abs().sum() + torch.linalg.solve(ad, a.mH.to(D)).abs().sum()).backward()
    assert torch.russet.host_op_counts() == {}
    assert_close(ad.grad.cpu(), ac.grad, atol=1e-3, rtol=1e-3)


@pytest.mark.parametrize("dtype", [torch.float32, torch.complex64])
def test_ormqr_every_side_and_transpose_with_cpus_layout(dtype):
    """rs_ormqr: Q (or Q^H) of geqrf's reflectors from the left and the
    right, batched, tall and wide reflector matrices, a conjugate view as
    input; the result column-major as CPU's, an out= of the right shape
    kept as it is; a gradient through it host-free; bad shapes raise as on
    CPU"""
    g = torch.Generator().manual_seed(11)
    for mq, k in ((6, 4), (5, 7), (70, 66)):
        a = torch.randn(2, mq, k, dtype=dtype, generator=g)
        q, tau = torch.geqrf(a)
        for left in (True, False):
            other = torch.randn(2, mq, 3, dtype=dtype, generator=g) if left else torch.randn(2, 3, mq, dtype=dtype,
                                                                                             generator=g)
            for transpose in (False, True):
                want = torch.ormqr(q, tau, other, left, transpose)
                got = host_free(lambda: torch.ormqr(q.to(D), tau.to(D), other.to(D), left, transpose))
                assert got.stride() == want.stride()
                assert_close(got.cpu(), want, atol=1e-4, rtol=1e-4)
    # out=, as CPU lays it out: of the right shape, kept; empty, resized
    # column-major; of other sizes, resized row-major
    for out in (torch.empty(2, 70, 3, dtype=dtype), torch.empty(0, dtype=dtype), torch.empty(3, dtype=dtype)):
        od = out.to(D)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # (resize_output's, on both)
            torch.ormqr(q, tau, torch.ones(2, 70, 3, dtype=dtype), out=out)
            torch.ormqr(q.to(D), tau.to(D), torch.ones(2, 70, 3, dtype=dtype, device=D), out=od)
        assert od.stride() == out.stride()
        assert_close(od.cpu(), out, atol=1e-4, rtol=1e-4)
    if dtype.is_complex:  # a conjugate view reads its values
        other = torch.randn(6, 2, dtype=dtype, generator=g)
        q, tau = torch.geqrf(torch.randn(6, 4, dtype=dtype, generator=g))
        assert_close(torch.ormqr(q.to(D), tau.to(D), other.to(D).conj()).cpu(), torch.ormqr(q, tau, other.conj()),
                     atol=1e-5, rtol=1e-5)
    # the gradient (ATen's formula: householder products and ormqr) runs natively
    q, tau = torch.geqrf(torch.randn(5, 3, dtype=dtype, generator=g))
    other = torch.randn(5, 2, dtype=dtype, generator=g)
    qc, oc = q.clone().requires_grad_(), other.clone().requires_grad_()
    torch.ormqr(qc, tau, oc).abs().sum().backward()
    qd, od = q.to(D).requires_grad_(), other.to(D).requires_grad_()
    torch.russet.reset_host_op_counts()
    torch.ormqr(qd, tau.to(D), od).abs().sum().backward()
    assert torch.russet.host_op_counts() == {}
    assert_close(qd.grad.cpu(), qc.grad, atol=1e-4, rtol=1e-4)
    assert_close(od.grad.cpu(), oc.grad, atol=1e-4, rtol=1e-4)
    # what ATen refuses raises its error (the host's kernel checks): other's
    # rows, fewer scalars than min(rows, reflectors), batches, dimensions
    for qq, tt, oo in ((q, tau, torch.randn(4, 2, dtype=dtype)), (q, tau[:2], other),
                       (q.expand(2, 5, 3), tau.expand(1, 3), other.expand(2, 5, 2)), (q, tau[None], other)):
        with pytest.raises(RuntimeError) as cpu:
            torch.ormqr(qq, tt, oo)
        with pytest.raises(RuntimeError, match=re.escape(str(cpu.value).splitlines()[0][:60])):
            torch.ormqr(qq.to(D), tt.to(D), oo.to(D))


def relative_residual(a, x, b):
    """|A X - B| / (|A| |X|) in float64: a backward-stable solve's is a few
    float32 roundings whatever A's condition"""
    a, x, b = (t.cpu().to(torch.complex128 if t.is_complex() else torch.float64) for t in (a, x, b))
    return ((a @ x - b).abs().max() / (a.abs().max() * x.abs().max() * a.shape[-1])).item()


# Past 64 rows or columns the engine's blocked drivers run (64-wide blocks,
# trailing updates as GEMMs; n = 200 leaves a last block of 8)
@pytest.mark.parametrize("dtype", [torch.float32, torch.complex64])
def test_blocked_cholesky_and_its_solves(dtype):
    n = 200
    a = spd(2, n, n, dtype=dtype, seed=6)
    b = torch.randn(2, n, 3, dtype=dtype, generator=torch.Generator().manual_seed(6))
    for upper in (False, True):
        L, info = torch.linalg.cholesky_ex(a, upper=upper)
        Ld, infod = host_free(lambda: torch.linalg.cholesky_ex(a.to(D), upper=upper))
        assert torch.equal(infod.cpu(), info)
        assert_close(Ld.cpu(), L, atol=2e-4, rtol=1e-4)
        x = host_free(lambda: torch.cholesky_solve(b.to(D), Ld, upper=upper))
        assert relative_residual(a, x, b) < 1e-6
    # a failure in the third block: info and CPU's error message
    bad = a.clone()
    bad[1, 150, 150] = -1e4
    _, info = torch.linalg.cholesky_ex(bad)
    _, infod = host_free(lambda: torch.linalg.cholesky_ex(bad.to(D)))
    assert torch.equal(infod.cpu(), info) and info.tolist() == [0, 151]
    with pytest.raises(RuntimeError, match=r"\(Batch element 1\).*leading minor of order 151 is not positive-definite"):
        torch.linalg.cholesky(bad.to(D))


@pytest.mark.parametrize("dtype", [torch.float32, torch.complex64])
def test_blocked_lu_solve_inv_det(dtype):
    g = torch.Generator().manual_seed(7)
    for shape in ((2, 200, 200), (300, 150), (150, 300), (10000, 3)):
        a = torch.randn(*shape, generator=g, dtype=dtype)
        LUd, pivd, infod = host_free(lambda: torch.linalg.lu_factor_ex(a.to(D)))
        assert not infod.any()
        P, L, U = torch.lu_unpack(LUd.cpu(), pivd.cpu())
        assert_close(P @ L @ U, a, atol=1e-4, rtol=1e-4)
        if dtype == torch.float32:  # partial pivoting: every multiplier at most 1
            assert L.abs().max() <= 1
        if shape[-1] == 3:  # few columns, no near ties: LAPACK's pivots exactly
            assert torch.equal(pivd.cpu(), torch.linalg.lu_factor(a).pivots)
    a = torch.randn(2, 200, 200, generator=g, dtype=dtype)
    b = torch.randn(2, 200, 4, generator=g, dtype=dtype)
    x = host_free(lambda: torch.linalg.solve(a.to(D), b.to(D)))
    assert relative_residual(a, x, b) < 1e-6
    x = host_free(lambda: torch.linalg.solve(a.to(D).mH, b.to(D)))
    assert relative_residual(a.mH, x, b) < 1e-6
    inv = host_free(lambda: torch.linalg.inv(a.to(D)))
    assert relative_residual(a, inv, torch.eye(200, dtype=dtype).expand(2, 200, 200)) < 1e-6
    sd, ld = host_free(lambda: torch.linalg.slogdet(a.to(D)))
    sc, lc = torch.linalg.slogdet(a)
    assert_close(ld.cpu(), lc, atol=1e-3, rtol=1e-5)
    assert_close(sd.cpu(), sc, atol=1e-3, rtol=1e-3)
    # a zero pivot in a later block: column 100 all zeros
    z = a.clone()
    z[1, :, 100] = 0
    _, _, info = torch.linalg.lu_factor_ex(z)
    _, _, infod = host_free(lambda: torch.linalg.lu_factor_ex(z.to(D)))
    assert torch.equal(infod.cpu(), info) and info.tolist() == [0, 101]
    sd, ld = host_free(lambda: torch.linalg.slogdet(z.to(D)))
    assert sd[1].item() == 0 and ld[1].item() == float("-inf")


@pytest.mark.parametrize("dtype", [torch.float32, torch.complex64])
def test_blocked_triangular_solves(dtype):
    g = torch.Generator().manual_seed(8)
    n = 200
    a = torch.randn(2, n, n, generator=g, dtype=dtype) / n + 4 * torch.eye(n, dtype=dtype)
    b = torch.randn(2, n, 5, generator=g, dtype=dtype)
    for upper in (False, True):
        for unit in (False, True):
            for left in (True, False):
                bb = b if left else b.mT
                want = torch.linalg.solve_triangular(a, bb, upper=upper, left=left, unitriangular=unit)
                got = host_free(lambda: torch.linalg.solve_triangular(a.to(D), bb.to(D), upper=upper, left=left,
                                                                      unitriangular=unit))
                assert_close(got.cpu(), want, atol=1e-5, rtol=1e-5)


@pytest.mark.parametrize("dtype", [torch.float32, torch.complex64])
def test_qr_modes_and_orthogonal_init(dtype):
    g = torch.Generator().manual_seed(6)
    for shape in ((6, 4), (4, 6), (2, 5, 5), (3, 0), (0, 3)):
        a = torch.randn(*shape, generator=g, dtype=dtype)
        if a.numel():
            a[..., :, 0] = 0  # a zero column: tau 0, H = I (LAPACK's convention)
        for mode in ("reduced", "complete", "r"):
            q, r = torch.linalg.qr(a, mode=mode)
            qd, rd = host_free(lambda: torch.linalg.qr(a.to(D), mode=mode))
            assert qd.shape == q.shape and rd.shape == r.shape
            assert_close(qd.cpu(), q, atol=1e-5, rtol=1e-5)
            assert_close(rd.cpu(), r, atol=1e-5, rtol=1e-5)
        a2, tau = torch.geqrf(a)
        a2d, taud = host_free(lambda: torch.geqrf(a.to(D)))
        assert_close(a2d.cpu(), a2, atol=1e-5, rtol=1e-5)
        assert_close(taud.cpu(), tau, atol=1e-5, rtol=1e-5)
    # nn.init.orthogonal_ (a QR on the tensor's device)
    w = torch.empty(8, 5, device=D)
    host_free(lambda: torch.nn.init.orthogonal_(w))
    assert_close((w.T @ w).cpu(), torch.eye(5), atol=1e-5, rtol=1e-5)


# ---- singular values (one-sided Jacobi, compute_uv=False)

@pytest.mark.parametrize("dtype", [torch.float32, torch.complex64])
@pytest.mark.parametrize("shape", [(5, 5), (3, 7), (9, 4), (2, 3, 6, 5), (1, 1), (4, 0), (0, 3), (33, 20)])
def test_svdvals_native(dtype, shape):
    g = torch.Generator().manual_seed(sum(shape))
    A = torch.randn(shape, dtype=dtype, generator=g)
    got = host_free(lambda: torch.linalg.svdvals(A.to(D))).cpu()
    want = torch.linalg.svdvals(A)
    assert got.dtype == want.dtype == torch.float32 and got.shape == want.shape
    if want.numel():  # to float32's rounding of the largest value
        assert (got - want).abs().max() <= 4e-6 * want.max() + 1e-7


@pytest.mark.parametrize("dtype", [torch.float32, torch.complex64])
def test_singular_value_norms_and_rank(dtype):
    g = torch.Generator().manual_seed(7)
    A = torch.randn(6, 3, dtype=dtype, generator=g) @ torch.randn(3, 6, dtype=dtype, generator=g)  # rank 3
    for ord in ("nuc", 2, -2):
        got = host_free(lambda: torch.linalg.matrix_norm(A.to(D), ord)).cpu()
        assert_close(got, torch.linalg.matrix_norm(A, ord), rtol=1e-5, atol=1e-5)
    # matrix_rank's tolerance arithmetic is float64 (ATen's own): host ops, by design
    assert torch.linalg.matrix_rank(A.to(D)).item() == 3
    B = torch.randn(4, 4, dtype=dtype, generator=g)
    assert_close(host_free(lambda: torch.linalg.cond(B.to(D))).cpu(), torch.linalg.cond(B), rtol=1e-4, atol=0)


def test_svd_non_finite_input_as_cpu():
    """a NaN raises LAPACK's LinAlgError, naming the batch element as CPU
    does; an infinity without a NaN gives CPU's values (NaN), not an error"""
    bad = torch.tensor([[float("nan"), 1.0], [1.0, 1.0]])
    batch = torch.stack([torch.eye(2), bad])
    for fn in (torch.linalg.svdvals, torch.linalg.svd):
        for a, msg in ((bad, r"^linalg.svd: The algorithm"), (batch, r"^linalg.svd: \(Batch element 1\): The")):
            with pytest.raises(torch.linalg.LinAlgError, match=msg):
                fn(a)
            with pytest.raises(torch.linalg.LinAlgError, match=msg):
                fn(a.to(D))
    inf = torch.stack([torch.eye(2), torch.tensor([[float("inf"), 1.0], [1.0, 1.0]])])
    assert_close(torch.linalg.svdvals(inf.to(D)).cpu(), torch.linalg.svdvals(inf), equal_nan=True)


def assert_same_columns_up_to_phase(got, want, k, atol):
    """got's first k columns (..., rows, >= k) are want's up to a unit
    factor each (sign or phase): |want^H got| has ones on its diagonal"""
    if k == 0 or got.shape[-2] == 0:
        return
    d = (want[..., :k].mH @ got[..., :k]).diagonal(dim1=-2, dim2=-1).abs()
    assert_close(d, torch.ones_like(d), atol=atol, rtol=0)


def assert_orthonormal_columns(x, atol):
    if x.shape[-1] == 0:
        return
    eye = torch.eye(x.shape[-1], dtype=x.dtype).expand(*x.shape[:-2], -1, -1)
    assert_close(x.mH @ x, eye, atol=atol, rtol=0)


# ---- the SVD with vectors (one-sided Jacobi, V accumulated, U from the QR
# of the sorted columns): as CPU's up to each pair of vectors' sign/phase

@pytest.mark.parametrize("dtype", [torch.float32, torch.complex64])
@pytest.mark.parametrize("shape", [(5, 5), (3, 7), (9, 4), (2, 3, 6, 5), (1, 1), (4, 0), (0, 3), (2, 0, 0), (33, 20)])
@pytest.mark.parametrize("full", [False, True])
def test_svd_with_vectors_native(dtype, shape, full):
    A = torch.randn(shape, dtype=dtype, generator=torch.Generator().manual_seed(sum(shape) + full))
    U, S, Vh = host_free(lambda: torch.linalg.svd(A.to(D), full_matrices=full))
    Uc, Sc, Vhc = torch.linalg.svd(A, full_matrices=full)
    U, S, Vh = U.cpu(), S.cpu(), Vh.cpu()
    assert (U.shape, S.shape, Vh.shape) == (Uc.shape, Sc.shape, Vhc.shape)
    assert U.dtype == dtype and S.dtype == torch.float32 and Vh.dtype == dtype
    assert U.stride() == Uc.stride() and Vh.stride() == Vhc.stride()  # LAPACK's column-major outs
    k = min(shape[-2], shape[-1])
    scale = float(Sc.max()) if Sc.numel() else 1.0
    assert_close(S, Sc, atol=4e-6 * scale + 1e-7, rtol=0)
    assert_close((U[..., :k] * S.unsqueeze(-2).to(dtype)) @ Vh[..., :k, :], A, atol=2e-5 * scale, rtol=0)
    assert_orthonormal_columns(U, 1e-5)  # every column: the full basis too
    assert_orthonormal_columns(Vh.mH, 1e-5)
    assert_same_columns_up_to_phase(U, Uc, k, 1e-4)
    assert_same_columns_up_to_phase(Vh.mH, Vhc.mH, k, 1e-4)
    if A.numel() == 0:  # the full bases of an empty matrix: identities, as CPU's
        assert torch.equal(U, Uc) and torch.equal(Vh, Vhc)


@pytest.mark.parametrize("dtype", [torch.float32, torch.complex64])
@pytest.mark.parametrize("scale", [1e-30, 1e-16, 1e19, 1e30])
def test_svd_and_eigh_of_tiny_and_huge_matrices(dtype, scale):
    """Jacobi's squared column norms underflowed for matrices near 1e-16
    (singular values 33% off) and overflowed near 1e19 (inf): rs_svd scales
    each matrix by a power of two first"""
    A = torch.randn(2, 6, 5, dtype=dtype, generator=torch.Generator().manual_seed(4)) * scale
    want = torch.linalg.svdvals(A)
    got = host_free(lambda: torch.linalg.svdvals(A.to(D))).cpu()
    assert_close(got, want, atol=0, rtol=4e-6)
    U, S, Vh = host_free(lambda: torch.linalg.svd(A.to(D), full_matrices=False))
    assert_close(((U * S.unsqueeze(-2).to(dtype)) @ Vh).cpu(), A, atol=2e-6 * scale * 10, rtol=0)
    H = A[..., :5, :] + A[..., :5, :].mH
    w, V = host_free(lambda: torch.linalg.eigh(H.to(D)))
    wc = torch.linalg.eigvalsh(H)
    assert_close(w.cpu(), wc, atol=4e-6 * float(wc.abs().max()), rtol=0)


@pytest.mark.parametrize("dtype", [torch.float32, torch.complex64])
def test_svd_rank_deficient_strided_and_out(dtype):
    g = torch.Generator().manual_seed(3)
    A = (torch.randn(7, 3, dtype=dtype, generator=g) @ torch.randn(3, 5, dtype=dtype, generator=g)).mT  # rank 3, strided
    U, S, Vh = host_free(lambda: torch.linalg.svd(A.to(D)))
    U, S, Vh = U.cpu(), S.cpu(), Vh.cpu()
    Sc = torch.linalg.svdvals(A)
    assert_close(S, Sc, atol=1e-5 * float(Sc.max()), rtol=0)
    assert float(S[3:].max()) <= 1e-5 * float(Sc.max())
    assert_orthonormal_columns(U, 1e-5)  # complete where the singular values are 0
    assert_orthonormal_columns(Vh.mH, 1e-5)
    assert_close((U[:, :5] * S.to(dtype)) @ Vh[:5], A, atol=1e-4 * float(Sc.max()), rtol=0)
    # out= tensors that are not column-major: written through
    Uo = torch.empty(5, 5, dtype=dtype, device=D)
    So = torch.empty(5, device=D)
    Vo = torch.empty(7, 7, dtype=dtype, device=D)
    host_free(lambda: torch.linalg.svd(A.to(D), out=(Uo, So, Vo)))
    assert_close(Uo.cpu(), U)
    assert_close(So.cpu(), S)
    assert_close(Vo.cpu(), Vh)


@pytest.mark.parametrize("dtype", [torch.float32, torch.complex64])
def test_svd_gradient_as_cpu(dtype):
    """a loss that does not depend on the vectors' phases: its gradient
    through the native SVD (U and V saved) equals CPU's"""
    g = torch.Generator().manual_seed(11)
    A = torch.randn(2, 6, 4, dtype=dtype, generator=g)
    wu, wv = torch.rand(2, 6, 4, generator=g), torch.rand(2, 4, 4, generator=g)

    def loss(a):
        U, S, Vh = torch.linalg.svd(a, full_matrices=False)
        return (U.abs() * wu.to(a.device)).sum() + S.sum() + (Vh.abs() * wv.to(a.device)).sum()

    a = A.clone().requires_grad_()
    loss(a).backward()
    ad = A.to(D).requires_grad_()
    host_free(lambda: loss(ad).backward())
    assert_close(ad.grad.cpu(), a.grad, atol=1e-4, rtol=1e-3)


@pytest.mark.parametrize("dtype", [torch.float32, torch.complex64])
def test_pinv_lowrank_and_norm_gradients_run_on_the_svd(dtype):
    g = torch.Generator().manual_seed(5)
    A = torch.randn(6, 4, dtype=dtype, generator=g)
    assert_close(torch.linalg.pinv(A.to(D)).cpu(), torch.linalg.pinv(A), atol=1e-4, rtol=1e-4)
    for fn in (torch.linalg.svdvals, lambda a: torch.linalg.matrix_norm(a, "nuc"), torch.linalg.cond):
        a = A.clone().requires_grad_()
        fn(a).sum().backward()
        ad = A.to(D).requires_grad_()
        host_free(lambda: fn(ad).sum().backward())
        assert_close(ad.grad.cpu(), a.grad, atol=1e-4, rtol=1e-3)


# ---- eigenvalues of Hermitian matrices (two-sided Jacobi, compute_v=False)

@pytest.mark.parametrize("dtype", [torch.float32, torch.complex64])
@pytest.mark.parametrize("shape", [(5, 5), (2, 3, 6, 6), (1, 1), (0, 0), (33, 33)])
@pytest.mark.parametrize("uplo", ["L", "U"])
def test_eigvalsh_native(dtype, shape, uplo):
    # not Hermitian on purpose: only the UPLO triangle (and the diagonal's real part) counts
    A = torch.randn(shape, dtype=dtype, generator=torch.Generator().manual_seed(sum(shape)))
    got = host_free(lambda: torch.linalg.eigvalsh(A.to(D), UPLO=uplo)).cpu()
    want = torch.linalg.eigvalsh(A, UPLO=uplo)
    assert got.dtype == want.dtype == torch.float32 and got.shape == want.shape
    if want.numel():
        assert (got - want).abs().max() <= 4e-6 * want.abs().max() + 1e-6


@pytest.mark.parametrize("dtype", [torch.float32, torch.complex64])
@pytest.mark.parametrize("shape", [(5, 5), (2, 3, 6, 6), (1, 1), (0, 0), (2, 0, 0), (33, 33)])
@pytest.mark.parametrize("uplo", ["L", "U"])
def test_eigh_with_vectors_native(dtype, shape, uplo):
    """values as CPU's, vectors as CPU's up to each one's sign/phase,
    orthonormal, A V = V diag(w); only the UPLO triangle is read"""
    A = torch.randn(shape, dtype=dtype, generator=torch.Generator().manual_seed(sum(shape) + 1))
    w, V = host_free(lambda: torch.linalg.eigh(A.to(D), UPLO=uplo))
    wc, Vc = torch.linalg.eigh(A, UPLO=uplo)
    w, V = w.cpu(), V.cpu()
    assert w.shape == wc.shape and V.shape == Vc.shape and V.dtype == dtype and V.stride() == Vc.stride()
    if not A.numel():
        return
    scale = float(wc.abs().max())
    assert_close(w, wc, atol=4e-6 * scale + 1e-6, rtol=0)
    H = A.tril() + A.tril(-1).mH if uplo == "L" else A.triu() + A.triu(1).mH
    H = H - 1j * H.diagonal(dim1=-2, dim2=-1).imag.diag_embed() if dtype.is_complex else H
    assert_close(H @ V, V * w.unsqueeze(-2).to(dtype), atol=2e-5 * scale, rtol=0)
    assert_orthonormal_columns(V, 1e-5)
    assert_same_columns_up_to_phase(V, Vc, shape[-1], 1e-4)


@pytest.mark.parametrize("dtype", [torch.float32, torch.complex64])
def test_eigh_gradient_as_cpu(dtype):
    g = torch.Generator().manual_seed(13)
    A = torch.randn(2, 5, 5, dtype=dtype, generator=g)
    A = A + A.mH
    wv, ww = torch.rand(2, 5, 5, generator=g), torch.rand(2, 5, generator=g)

    def loss(a):
        w, V = torch.linalg.eigh(a)
        return (V.abs() * wv.to(a.device)).sum() + (w * ww.to(a.device)).sum()

    a = A.clone().requires_grad_()
    loss(a).backward()
    ad = A.to(D).requires_grad_()
    host_free(lambda: loss(ad).backward())
    assert_close(ad.grad.cpu(), a.grad, atol=1e-4, rtol=1e-3)


@pytest.mark.parametrize("dtype", [torch.float32, torch.complex64])
def test_lstsq_every_driver_native(dtype):
    # the solution (a column-major view of LAPACK's work array, as CPU's),
    # the residuals, rank and singular values of each driver, against CPU;
    # tall, wide, batched, vector right-hand sides
    g = torch.Generator().manual_seed(6)
    for sa, sb in [((5, 3), (5, 2)), ((3, 5), (3, 2)), ((2, 6, 4), (2, 6, 3)), ((2, 4, 6), (2, 4, 1)),
                   ((2, 5, 3), (2, 5)), ((4, 4), (4,)), ((7, 3), (7,))]:
        A = torch.randn(*sa, dtype=dtype, generator=g)
        B = torch.randn(*sb, dtype=dtype, generator=g)
        for driver in (None, "gels", "gelsy", "gelsd", "gelss"):
            want = torch.linalg.lstsq(A, B, driver=driver)
            got = host_free(lambda: torch.linalg.lstsq(A.to(D), B.to(D), driver=driver))
            for name, w, r in zip(("solution", "residuals", "rank", "singular_values"), want, got):
                what = (name, driver, sa, sb)
                assert r.shape == w.shape and r.dtype == w.dtype, what
                assert r.numel() <= 1 or r.stride() == w.stride(), (what, r.stride(), w.stride())
                assert_close(r.cpu(), w, atol=1e-4, rtol=1e-4, msg=str(what))


def test_lstsq_rank_deficient_out_and_errors():
    g = torch.Generator().manual_seed(7)
    A = torch.randn(6, 3, generator=g)
    A[:, 1] = 0
    B = torch.randn(6, 2, generator=g)
    # the minimum-norm solution and the rank, as CPU's gelsd/gelss; CPU's
    # gelsy (MKL) is compared with gelsd: on this matrix (an exactly zero
    # column) it gave rank 1 or 2 from one call to the next (measured on
    # torch 2.13's CPU), the true rank is 2
    for driver in (None, "gelsd", "gelss"):
        want = torch.linalg.lstsq(A, B, driver="gelsd" if driver is None else driver)
        got = host_free(lambda: torch.linalg.lstsq(A.to(D), B.to(D), driver=driver))
        assert got.rank.item() == want.rank.item() == 2
        assert_close(got.solution.cpu(), want.solution, atol=1e-5, rtol=1e-5)
        assert got.residuals.numel() == 0  # rank < n: none, as CPU
    # gels asks for full rank: CPU's error
    with pytest.raises(torch.linalg.LinAlgError, match="does not have full rank"):
        torch.linalg.lstsq(A.to(D), B.to(D), driver="gels")
    # out=: empty outs become the results (CPU's layout); given outs are filled
    A, B = torch.randn(5, 3, generator=g), torch.randn(5, 2, generator=g)
    want = torch.linalg.lstsq(A, B, driver="gelsd")
    outs = (torch.empty(0, device=D), torch.empty(0, device=D), torch.empty(0, dtype=torch.long, device=D),
            torch.empty(0, device=D))
    host_free(lambda: torch.linalg.lstsq(A.to(D), B.to(D), driver="gelsd", out=outs))
    assert outs[0].shape == (3, 2) and outs[0].stride() == want.solution.stride()
    outs = (torch.empty(2, 3, device=D).t(), torch.empty(2, device=D), torch.empty((), dtype=torch.long, device=D),
            torch.empty(3, device=D))
    host_free(lambda: torch.linalg.lstsq(A.to(D), B.to(D), driver="gelsd", out=outs))
    for o, w in zip(outs, want):
        assert_close(o.cpu(), w, atol=1e-5, rtol=1e-5)
    # CPU's errors
    with pytest.raises(RuntimeError, match="input must have at least 2 dimensions"):
        torch.linalg.lstsq(torch.randn(3, device=D), torch.randn(3, device=D))
    with pytest.raises(RuntimeError, match="should match other.size"):
        torch.linalg.lstsq(torch.randn(3, 2, device=D), torch.randn(4, device=D))
    with pytest.raises(RuntimeError, match="to have the same dtype"):
        torch.linalg.lstsq(torch.randn(3, 2, device=D), torch.randn(3, 1, dtype=torch.complex64, device=D))
    with pytest.raises(RuntimeError, match="parameter `driver` should be one of"):
        torch.linalg.lstsq(torch.randn(3, 2, device=D), torch.randn(3, 1, device=D), driver="qr")
    # through host execution, as CPU: float64 (apple), broadcast batches, empty matrices
    for a, b in [(torch.randn(5, 3, dtype=torch.float64), torch.randn(5, 2, dtype=torch.float64)),
                 (torch.randn(1, 5, 3), torch.randn(4, 5, 2)), (torch.randn(0, 3), torch.randn(0, 2))]:
        want = torch.linalg.lstsq(a, b)
        got = torch.linalg.lstsq(a.to(D), b.to(D))
        for w, r in zip(want, got):
            assert r.shape == w.shape
        assert_close(got.solution.cpu(), want.solution, atol=1e-5, rtol=1e-5)


@pytest.mark.parametrize("dtype", [torch.float32, torch.complex64])
def test_matrix_exp_native(dtype):
    # scaling and squaring of a Taylor polynomial (rs_matrix_exp): as close
    # to the float64 result as CPU's degree-18 scheme (within 2x CPU's
    # error, or 2 ulp of the largest element), batched, with gradients
    g = torch.Generator().manual_seed(8)
    for shape, scale in [((5, 5), 1.0), ((3, 4, 4), 0.3), ((6, 6), 5.0), ((2, 8, 8), 20.0), ((2, 2), 1e-3),
                         ((5, 5), 0.0), ((1, 1), 2.0), ((0, 0), 1.0)]:
        a = torch.randn(*shape, dtype=dtype, generator=g) * scale
        got = host_free(lambda: torch.linalg.matrix_exp(a.to(D))).cpu()
        cpu = torch.linalg.matrix_exp(a)
        ref = torch.linalg.matrix_exp(a.to(torch.complex128 if dtype.is_complex else torch.float64))
        assert got.shape == cpu.shape and got.dtype == dtype and got.stride() == cpu.stride()
        if ref.numel() == 0:
            continue
        e_got = (got.to(ref.dtype) - ref).abs().max().item()
        e_cpu = (cpu.to(ref.dtype) - ref).abs().max().item()
        assert e_got <= 2 * e_cpu + 2 * 1.2e-7 * ref.abs().max().item(), (shape, scale, e_got, e_cpu)
    # the gradient (ATen's: a matrix_exp of a block matrix, native too)
    a = torch.randn(2, 4, 4, dtype=dtype, generator=g)
    ac = a.clone().requires_grad_(True)
    ad = a.to(D).requires_grad_(True)
    torch.linalg.matrix_exp(ac).abs().sum().backward()
    host_free(lambda: torch.linalg.matrix_exp(ad).abs().sum().backward())
    assert_close(ad.grad.cpu(), ac.grad, atol=1e-4, rtol=1e-4)


def test_matrix_exp_edges_and_host_dtypes():
    # NaN anywhere gives NaN, as CPU; float16/bfloat16 (CPU computes in the
    # dtype) and float64 under apple run on the host; CPU's errors
    a = torch.randn(3, 3)
    a[1, 2] = float("nan")
    assert torch.isnan(torch.linalg.matrix_exp(a.to(D)).cpu()).all()
    for dt in (torch.float16, torch.bfloat16, torch.float64):
        x = torch.randn(4, 4).to(dt)
        assert_close(torch.linalg.matrix_exp(x.to(D)).cpu(), torch.linalg.matrix_exp(x), equal_nan=True)
    with pytest.raises(RuntimeError, match="square"):
        torch.linalg.matrix_exp(torch.randn(3, 4, device=D))
    with pytest.raises(RuntimeError):
        torch.linalg.matrix_exp(torch.ones(3, 3, dtype=torch.int64, device=D))


def test_orthogonal_parametrization_trains_host_free():
    # torch.nn.utils.parametrizations.orthogonal maps a square weight
    # through matrix_exp: a user's model, host-free, as CPU
    torch.manual_seed(0)
    lin = torch.nn.Linear(6, 6)
    torch.nn.utils.parametrizations.orthogonal(lin)
    lin_d = torch.nn.Linear(6, 6)
    torch.nn.utils.parametrizations.orthogonal(lin_d)
    lin_d.load_state_dict(lin.state_dict())
    lin_d.to(D)
    x = torch.randn(5, 6)
    for m, inp in ((lin, x), (lin_d, x.to(D))):
        opt = torch.optim.SGD(m.parameters(), lr=0.1)
        for _ in range(3):
            opt.zero_grad()
            m(inp).pow(2).sum().backward()
            opt.step()
    w, wd = lin.weight, lin_d.weight.cpu()
    assert_close(wd, w, atol=1e-5, rtol=1e-5)
    assert_close(wd @ wd.T, torch.eye(6), atol=1e-5, rtol=1e-5)
