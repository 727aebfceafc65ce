"""Result layouts and out= tensors as CPU has them (issue 23; the conformance
sweep's out-layouts and channels-last variants check every OpInfo, these
pin the fixes they led to): nonzero's transposed result, LAPACK-style
results column-major, 3-d pooling keeping channels_last_3d, resize warnings
where CPU gives them, batch norm's eval out= leaving its statistics alone."""

import warnings

import pytest
import torch
import torch.nn.functional as F

from conformance import _sized_strides as sized_strides  # the sweep's own comparison

D = "russet"


def both(fn):
    """fn on CPU and on russet: (cpu result, russet result)"""
    return fn("cpu"), fn(D)


def test_nonzero_result_is_transposed_like_cpus_and_an_out_keeps_its_layout():
    x = torch.tensor([[0.0, 1.0, 2.0], [3.0, 0.0, 4.0]])
    c, r = both(lambda d: torch.nonzero(x.to(d)))
    assert r.stride() == c.stride() == (1, 4) and torch.equal(r.cpu(), c)
    c, r = both(lambda d: torch.argwhere(torch.zeros(3, 3, device=d)))
    assert r.shape == c.shape == (0, 2)
    for d in ("cpu", D):  # an out of the right shape keeps its strides
        out = torch.empty(4, 2, dtype=torch.long, device=d)
        torch.nonzero(x.to(d), out=out)
        assert out.stride() == (2, 1) and torch.equal(out.cpu(), torch.nonzero(x))


# (torch.cholesky is gone from torch 2.15: issue 22)
@pytest.mark.parametrize("op", ["cholesky"] * hasattr(torch.ops.aten, "cholesky") +
                         ["cholesky_inverse", "cholesky_solve", "geqrf", "householder_product"])
def test_lapack_style_results_are_column_major(op):
    torch.manual_seed(0)
    g = torch.randn(2, 5, 5)
    spd = g @ g.mT + 5 * torch.eye(5)
    fns = {
        "cholesky": lambda a: torch.cholesky(a),
        "cholesky_inverse": lambda a: torch.cholesky_inverse(torch.linalg.cholesky(a)),
        "cholesky_solve": lambda a: torch.cholesky_solve(a[..., :3], torch.linalg.cholesky(a)),
        "geqrf": lambda a: torch.geqrf(a)[0],
        "householder_product": lambda a: torch.linalg.householder_product(*torch.geqrf(a)),
    }
    c, r = both(lambda d: fns[op](spd.to(d)))
    assert sized_strides(r) == sized_strides(c), (r.stride(), c.stride())
    torch.testing.assert_close(r.cpu(), c, rtol=1e-4, atol=1e-4)


def test_a_resized_triangular_solve_out_is_column_major():
    a = torch.randn(4, 4).triu() + 4 * torch.eye(4)
    b = torch.randn(4, 3)
    for d in ("cpu", D):
        out = torch.empty(7, device=d)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            torch.linalg.solve_triangular(a.to(d), b.to(d), upper=True, out=out)
        assert out.stride() == (1, 4), d


def test_3d_pooling_keeps_channels_last_3d_like_cpu():
    x = torch.randn(2, 3, 4, 6, 6).contiguous(memory_format=torch.channels_last_3d)
    c, r = both(lambda d: F.max_pool3d(x.to(d), 2, return_indices=True))
    for a, b in zip(r, c):
        assert a.is_contiguous(memory_format=torch.channels_last_3d) and sized_strides(a) == sized_strides(b)
        assert torch.equal(a.cpu(), b)
    # unbatched (C, D, H, W) input is not a channels_last batch; 3-d adaptive
    # averaging is contiguous whatever the input (as on CPU and CUDA)
    u = torch.randn(3, 4, 6, 6).contiguous(memory_format=torch.channels_last)
    for t in (u, x):
        c, r = both(lambda d: F.adaptive_avg_pool3d(t.to(d), 2))
        assert r.stride() == c.stride() and r.is_contiguous()


def _warned(fn):
    with warnings.catch_warnings(record=True) as ws:
        warnings.simplefilter("always")
        fn()
    return any("resized" in str(w.message) for w in ws)


def test_resize_warnings_where_cpu_gives_them():
    for d in ("cpu", D):
        assert _warned(lambda: torch.arange(5, out=torch.empty(3, device=d))), d
        assert not _warned(lambda: torch.arange(5, out=torch.empty(0, device=d))), d
        b1, b2 = torch.randn(2, 3, 4, device=d), torch.randn(2, 4, 5, device=d)
        # CPU's addbmm resizes silently
        assert not _warned(lambda: torch.addbmm(torch.zeros(3, 5, device=d), b1, b2, out=torch.empty(2, device=d))), d


def test_batch_norm_out_outside_training_leaves_the_statistics_outputs_alone():
    x = torch.randn(2, 3, 4)
    for d in ("cpu", D):
        w, b, rm, rv = torch.ones(3, device=d), torch.zeros(3, device=d), torch.zeros(3, device=d), torch.ones(3, device=d)
        out, sm, si = torch.empty(0, device=d), torch.full((5,), 7.0, device=d), torch.full((5,), 7.0, device=d)
        torch.ops.aten.native_batch_norm.out(x.to(d), w, b, rm, rv, False, 0.1, 1e-5, out=out, save_mean=sm,
                                             save_invstd=si)
        assert sm.shape == si.shape == (5,) and bool((sm.cpu() == 7).all()), d
        torch.testing.assert_close(out.cpu(), F.batch_norm(x, torch.zeros(3), torch.ones(3), torch.ones(3),
                                                           torch.zeros(3), False, 0.1, 1e-5))


HOST_LAYOUT = """
import torch, russet
a = torch.randn(4, 4)
torch.russet.reset_host_op_counts()
got = torch.linalg.eig(a.to("russet")).eigenvectors
assert torch.russet.host_op_counts(), "eig no longer runs on the host: pick another host op"
want = torch.linalg.eig(a).eigenvectors
assert got.stride() == want.stride() == (1, 4), (got.stride(), want.stride())
torch.testing.assert_close(got.cpu(), want, rtol=1e-4, atol=1e-4)
print("ok")
"""


@pytest.mark.parametrize("copies", ["0", "1"])
def test_host_executed_results_keep_cpus_layout(copies):
    """a host-executed op's resized out= takes the CPU kernel's layout, on
    unified memory (aliases) and through copies (PyTorch's cpu_fallback,
    as on a discrete GPU): eig's eigenvectors are column-major (LAPACK's)"""
    import os
    import subprocess
    import sys

    env = dict(os.environ, RUSSET_HOST_COPY=copies)
    r = subprocess.run([sys.executable, "-c", HOST_LAYOUT], env=env, capture_output=True, text=True)
    assert r.returncode == 0 and r.stdout.strip().endswith("ok"), r.stderr[-2000:]


@pytest.mark.parametrize("dtype", [torch.int8, torch.uint8, torch.int16, torch.int32, torch.int64])
@pytest.mark.parametrize("op", ["sign", "sgn", "neg", "abs"])
def test_integer_unary_ops_into_strided_and_transposed_outs(op, dtype):
    # the H200's compiler refused sign/sgn's int8/int16 kernel for a
    # non-contiguous out= (twenty-fourth session's sweep); int64's extremes
    # are where a sign taken from the wrong word would show
    lo, hi = (0, 200) if dtype == torch.uint8 else (-100, 100)
    x = torch.randint(lo, hi, (4, 6), dtype=dtype)
    x[0, :3] = torch.tensor([0, 1, hi - 1], dtype=dtype)
    if dtype == torch.int64:
        x[1, :4] = torch.tensor([-2**63, 2**63 - 1, -2**32, 2**32])
    if op == "neg" and dtype == torch.uint8:
        pytest.skip("CPU: negation is not supported on uint8")
    want = getattr(torch, op)(x)
    for out in (torch.empty(4, 12, dtype=dtype, device=D)[:, ::2], torch.empty(6, 4, dtype=dtype, device=D).t()):
        getattr(torch, op)(x.to(D), out=out)
        assert torch.equal(out.cpu(), want), (op, dtype, out.stride())
    assert torch.equal(getattr(torch, op)(x.to(D).t()).cpu(), getattr(torch, op)(x.t()))
