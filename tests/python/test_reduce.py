"""Reductions against CPU: PyTorch's OpInfo samples for every dtype CPU
supports (native except float64/complex128 under the apple profile), plus
the layouts OpInfo samples miss (transposed, sliced, large enough for the
chunked two-pass path), determinism, empty inputs, out= and bad input."""

import pytest
import torch
from torch.testing import assert_close

from opinfo_check import check_opinfo, host_free

D = "russet"

OPS = [
    ("sum", ""), ("mean", ""), ("prod", ""), ("nansum", ""), ("nanmean", ""),
    ("amax", ""), ("amin", ""), ("max", "reduction_with_dim"), ("max", "reduction_no_dim"),
    ("min", "reduction_with_dim"), ("min", "reduction_no_dim"), ("argmax", ""), ("argmin", ""),
    ("aminmax", ""), ("all", ""), ("any", ""), ("count_nonzero", ""),
    ("linalg.vector_norm", ""), ("norm", ""), ("norm", "fro"), ("norm", "inf"),
    ("var", ""), ("var", "unbiased"), ("std", ""), ("std", "unbiased"),
    ("var_mean", ""), ("var_mean", "unbiased"), ("std_mean", ""), ("std_mean", "unbiased"),
    ("logsumexp", ""), ("masked.sum", ""), ("masked.amax", ""), ("trace", ""),
]


@pytest.mark.parametrize("name,variant", OPS, ids=[f"{n}.{v}" if v else n for n, v in OPS])
def test_reduction_matches_cpu(name, variant):
    check_opinfo(name, variant)


def both(x):
    return x, x.to(D)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.bfloat16, torch.int32, torch.uint8,
                                   torch.bool, torch.complex64])
def test_layouts_transposed_sliced_and_expanded(dtype):
    base = torch.testing.make_tensor((6, 9, 10), dtype=dtype, device="cpu", low=-3, high=3)
    views = [lambda t: t.transpose(0, 2), lambda t: t[:, 1::2, ::3], lambda t: t[:, :1].expand(6, 7, 10),
             lambda t: t.permute(1, 2, 0)[2:]]
    for view in views:
        x, d = both(base)
        x, d = view(x), view(d)
        for dims in [(0,), (1,), (2,), (0, 2), (1, 2), None]:
            kw = {} if dims is None else {"dim": dims}
            if dtype != torch.bool:
                assert_close(host_free(lambda: d.sum(**kw)).cpu(), x.sum(**kw),
                             **({} if dtype.is_floating_point or dtype.is_complex else dict(atol=0, rtol=0)))
            if not dtype.is_complex:
                assert_close(host_free(lambda: d.amax(**kw)).cpu(), x.amax(**kw), atol=0, rtol=0)
            assert_close(host_free(lambda: d.any(**kw) if dims is None else d.any(dim=dims)).cpu(),
                         x.any(**kw) if dims is None else x.any(dim=dims))
        if not dtype.is_complex:
            for dim in range(3):
                v, i = host_free(lambda: d.max(dim))
                cv, ci = x.max(dim)
                assert_close(v.cpu(), cv, atol=0, rtol=0)
                assert torch.equal(i.cpu(), ci)


@pytest.mark.parametrize("shape,dim", [((1 << 20,), 0), ((3, 200000), 1), ((200000, 3), 0), ((64, 4096), 1)])
def test_large_reductions_take_the_chunked_path_and_are_deterministic(shape, dim):
    x = torch.randn(shape)
    d = x.to(D)
    s1 = host_free(lambda: d.sum(dim)).cpu()
    s2 = d.sum(dim).cpu()
    assert torch.equal(s1, s2), "the same input must give the same bits"
    assert_close(s1, x.double().sum(dim).float(), rtol=1e-4, atol=1e-3)
    assert_close(d.var(dim).cpu(), x.double().var(dim).float(), rtol=1e-4, atol=1e-5)
    assert_close(d.amax(dim).cpu(), x.amax(dim), atol=0, rtol=0)
    assert torch.equal(d.argmin(dim).cpu(), x.argmin(dim))
    assert_close(torch.linalg.vector_norm(d, 2, dim).cpu(), torch.linalg.vector_norm(x.double(), 2, dim).float(),
                 rtol=1e-4, atol=1e-5)


def test_ties_and_nan_pick_the_first_index_like_cpu():
    x = torch.tensor([[1.0, 3.0, 3.0, float("nan"), 2.0, float("nan")], [5.0, 5.0, 1.0, 1.0, 0.0, 0.0]])
    d = x.to(D)
    for dim in (0, 1):
        assert torch.equal(d.argmax(dim).cpu(), x.argmax(dim))
        assert torch.equal(d.argmin(dim).cpu(), x.argmin(dim))
        assert torch.equal(d.max(dim).indices.cpu(), x.max(dim).indices)
    assert torch.equal(d.argmax().cpu(), x.argmax())
    assert d.amax().cpu().isnan()
    assert_close(d.nansum(1).cpu(), x.nansum(1))


def test_empty_reductions_follow_cpu():
    x = torch.zeros(3, 0)
    d = x.to(D)
    assert_close(d.sum(1).cpu(), x.sum(1))
    assert_close(d.prod(1).cpu(), x.prod(1))
    assert_close(d.mean(1).cpu(), x.mean(1), equal_nan=True)
    assert_close(d.sum(0).cpu(), x.sum(0))
    assert torch.equal(d.all(1).cpu(), x.all(1)) and torch.equal(d.any(1).cpu(), x.any(1))
    assert_close(torch.linalg.vector_norm(d, 2, 1).cpu(), torch.linalg.vector_norm(x, 2, 1))
    with pytest.raises(RuntimeError, match="numel\\(\\) == 0"):
        d.max()
    with pytest.raises((RuntimeError, IndexError)):
        d.amax(1)
    with pytest.raises((RuntimeError, IndexError)):
        d.argmax(1)


def test_dtype_argument_and_integer_accumulation():
    x = torch.randint(-100, 100, (50, 40), dtype=torch.int8)
    d = x.to(D)
    assert host_free(lambda: d.sum(1)).dtype == torch.int64
    assert torch.equal(d.sum(1).cpu(), x.sum(1))
    assert torch.equal(d.sum(1, dtype=torch.int16).cpu(), x.sum(1, dtype=torch.int16))
    assert_close(d.sum(0, dtype=torch.float32).cpu(), x.sum(0, dtype=torch.float32))
    assert torch.equal(d.prod(0).cpu(), x.prod(0))
    h = torch.randn(300, 7).half()
    assert_close(h.to(D).sum(0).cpu(), h.float().sum(0).half())
    assert_close(h.to(D).mean(0, dtype=torch.float32).cpu(), h.mean(0, dtype=torch.float32))


def test_out_variants_resize_and_check_dtype():
    x, d = both(torch.randn(4, 5))
    out = torch.empty(0, device=D)
    torch.sum(d, 1, out=out)
    assert out.shape == (4,) and torch.allclose(out.cpu(), x.sum(1))
    vals, idx = torch.empty(0, device=D), torch.empty(0, dtype=torch.long, device=D)
    torch.max(d, 0, out=(vals, idx))
    assert torch.equal(idx.cpu(), x.max(0).indices)
    # CPU takes the out= dtype as the result dtype
    for fn in (lambda t, o: torch.sum(t, 1, out=o), lambda t, o: torch.var(t, 1, out=o),
               lambda t, o: torch.amax(t, 1, out=o)):
        for dt in (torch.int32, torch.float16):
            try:
                want = fn(x, torch.empty(0, dtype=dt))
            except RuntimeError as e:
                with pytest.raises(RuntimeError, match=str(e)[:20]):
                    fn(d, torch.empty(0, dtype=dt, device=D))
                continue
            got = fn(d, torch.empty(0, dtype=dt, device=D))
            assert got.dtype == want.dtype
            assert_close(got.cpu(), want, rtol=1e-3, atol=1e-3)


def test_bad_input_raises_like_cpu():
    d = torch.randn(3, 4, device=D)
    with pytest.raises(IndexError, match="Dimension out of range"):
        d.sum(2)
    with pytest.raises(RuntimeError, match="only support floating point and complex"):
        torch.ones(3, dtype=torch.int32, device=D).var()
    with pytest.raises(RuntimeError):
        torch.ones(3, dtype=torch.int32, device=D).mean()
    with pytest.raises(RuntimeError, match="complex"):
        torch.ones(3, dtype=torch.complex64, device=D).nansum()
    with pytest.raises(RuntimeError, match="multiple times"):
        d.sum((0, 0))


def test_float64_runs_on_the_host_under_apple():
    import os
    x = torch.randn(5, 6, dtype=torch.float64)
    torch.russet.reset_host_op_counts()
    assert_close(x.to(D).sum(1).cpu(), x.sum(1))
    if os.environ.get("RUSSET_PROFILE", "apple") == "apple":
        assert torch.russet.host_op_counts(), "float64 must be counted as host execution"


def test_autograd_through_reductions():
    x = torch.randn(4, 6, requires_grad=True)
    d = x.detach().to(D).requires_grad_()
    (x.sum(1) * 2 + x.amax(0).sum() + x.var() + x.norm()).sum().backward()
    (d.sum(1) * 2 + d.amax(0).sum() + d.var() + d.norm()).sum().backward()
    assert_close(d.grad.cpu(), x.grad, rtol=1e-5, atol=1e-5)


def test_trace_dtypes_layouts_and_errors_like_cpu():
    for dt in (torch.uint8, torch.int32, torch.float16, torch.float32, torch.complex64):
        x = (torch.randn(5, 7) * 4).to(dt)
        try:
            torch.trace(x)
        except NotImplementedError:  # CPU before torch 2.13 has no float16 trace: no reference
            continue
        for v in (x, x.t(), x[1:, ::2]):
            got = torch.trace(v.to(D))
            assert got.dtype == torch.trace(v).dtype
            assert_close(got.cpu(), torch.trace(v))
    assert_close(torch.trace(torch.empty(0, 3, device=D)).cpu(), torch.trace(torch.empty(0, 3)))
    with pytest.raises(RuntimeError, match="expected a matrix"):
        torch.trace(torch.randn(2, 2, 2, device=D))
    with pytest.raises(NotImplementedError, match="not implemented for 'Bool'"):
        torch.trace(torch.ones(2, 2, dtype=torch.bool, device=D))


_HASH_DTYPES = [torch.bool, torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64, torch.float16,
                torch.bfloat16, torch.float32, torch.float64]


@pytest.mark.parametrize("dtype", _HASH_DTYPES, ids=str)
def test_hash_tensor_matches_cpu_bits(dtype):
    # XOR of the values widened to 64 bits (floats to double: subnormals,
    # -0, inf and NaN included), every dim set, keepdim, strided input;
    # native for every dtype, float64 too (a view of its bits)
    torch.manual_seed(0)
    x = (torch.randn(5, 6, 7) * 100).to(dtype)
    if dtype.is_floating_point:
        x[0, 0, :4] = torch.tensor([float("nan"), -0.0, float("-inf"), float("inf")]).to(dtype)
        x[1, 0, 0] = torch.finfo(dtype).tiny / 4 if dtype != torch.bfloat16 else 1e-39
    check_opinfo("hash_tensor", dtypes=[dtype], native=True)
    for x_ in (x, x.transpose(0, 2)):
        for kw in ({}, {"dim": [1]}, {"dim": [0, 2]}, {"dim": [2], "keepdim": True}, {"dim": [0, 1, 2]}):
            torch.russet.reset_host_op_counts()
            got = torch.hash_tensor(x_.to(D), **kw).cpu()
            assert not torch.russet.host_op_counts()
            want = torch.hash_tensor(x_, **kw)
            assert got.dtype == torch.uint64 and got.shape == want.shape
            assert torch.equal(got.view(torch.int64), want.view(torch.int64)), kw
    out = torch.empty(0, dtype=torch.uint64, device=D)
    torch.hash_tensor(x.to(D), dim=[1], out=out)
    assert torch.equal(out.cpu().view(torch.int64), torch.hash_tensor(x, dim=[1]).view(torch.int64))
    with pytest.raises(IndexError, match="non-zero size"):
        torch.hash_tensor(torch.ones(3, 0, device=D, dtype=dtype), 1)


@pytest.mark.parametrize("dtype", [torch.float32, torch.complex64, torch.float64, torch.complex128])
def test_norms_propagate_nan_and_inf(dtype):
    # every order's vector norm (and so matrix norms and matrix_exp's
    # scaling) with a NaN or an infinite element, as CPU: complex128 norms
    # of order 1, 3 and inf once skipped NaN (GLSL's max dropped it; found
    # by the fiftieth session, native profile)
    for bad in (float("nan"), float("inf"), complex(float("nan"), 1.0), complex(2.0, float("inf"))):
        if isinstance(bad, complex) and not dtype.is_complex:
            continue
        x = torch.randn(7, dtype=dtype)
        x[2] = bad
        for order in (1, 2, 3, 0.5, float("inf"), -float("inf"), 0):
            want = torch.linalg.vector_norm(x, order)
            got = torch.linalg.vector_norm(x.to(D), order).cpu()
            assert_close(got, want, equal_nan=True, msg=f"{dtype} {bad} ord {order}")
        assert_close(torch.linalg.matrix_norm(x[:6].reshape(2, 3).to(D), 1).cpu(),
                     torch.linalg.matrix_norm(x[:6].reshape(2, 3), 1), equal_nan=True)
