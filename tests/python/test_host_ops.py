"""Host execution: ops without a native kernel run PyTorch's CPU kernel on the
device memory. It is counted, and RUSSET_HOST_OPS=error turns it off."""

import os

import pytest
import torch
from torch.testing import assert_close

from conftest import run_python

D = "russet"


# an op with no native kernel yet (general eigenvalues and vectors:
# docs/linalg.md)
KEY = "aten::linalg_eig"


def test_linalg_eig_runs_on_host_and_is_counted():
    torch.russet.reset_host_op_counts()
    assert sum(torch.russet.host_op_counts().values()) == 0
    a = torch.randn(5, 5)
    a = a + a.t() + 5 * torch.eye(5)
    w, v = torch.linalg.eig(a.to(D))
    assert w.device.type == D and v.device.type == D
    assert_close(w.cpu(), torch.linalg.eig(a).eigenvalues)
    # counts are keyed by the overload that ran: eig reaches linalg_eig
    counts = torch.russet.host_op_counts()
    assert counts.get(KEY, 0) >= 1, counts
    torch.linalg.eig(a.to(D))
    assert torch.russet.host_op_counts()[KEY] == counts[KEY] + 1
    torch.russet.reset_host_op_counts()
    assert torch.russet.host_op_counts().get(KEY, 0) == 0


def test_host_op_results_match_cpu():
    torch.manual_seed(0)
    a = torch.randn(4, 6)
    b = torch.randn(4, 6)
    da, db = a.to(D), b.to(D)
    assert_close((da + db).cpu(), a + b)
    assert_close((da * 2 - db).cpu(), a * 2 - b)
    assert_close(da.sum(1).cpu(), a.sum(1))
    assert_close(torch.relu(da).cpu(), torch.relu(a))
    assert_close(da.t().exp().cpu(), a.t().exp())
    # in-place on a view mutates the base
    da[:, 1:3].add_(10)
    a[:, 1:3].add_(10)
    assert_close(da.cpu(), a)
    # out= variant
    out = torch.empty(4, 6, device=D)
    torch.add(da, db, out=out)
    assert_close(out.cpu(), a + b)


def test_host_op_with_scalar_output_and_indexing():
    a = torch.arange(10.0)
    da = a.to(D)
    assert da.max().item() == 9.0
    idx = torch.tensor([1, 3, 5])
    assert_close(da[idx.to(D)].cpu(), a[idx])
    assert_close(torch.where(da > 4, da, torch.zeros_like(da)).cpu(),
                 torch.where(a > 4, a, torch.zeros_like(a)))


def test_autograd_through_host_ops():
    torch.manual_seed(1)
    w = torch.randn(3, 4)
    x = torch.randn(2, 3)
    wd = w.to(D).requires_grad_()
    wc = w.clone().requires_grad_()
    (x.to(D) @ wd).pow(2).sum().backward()
    (x @ wc).pow(2).sum().backward()
    assert wd.grad.device.type == D
    assert_close(wd.grad.cpu(), wc.grad)


def test_fp64_compute_goes_to_host_under_apple():
    if os.environ.get("RUSSET_PROFILE") != "apple":
        pytest.skip("apple profile only")
    assert not torch.russet.get_device_properties().has_fp64
    a = torch.randn(8, dtype=torch.float64)
    torch.russet.reset_host_op_counts()
    out = (a.to(D) * 3 + 1).sin()
    assert out.dtype == torch.float64
    assert_close(out.cpu(), (a * 3 + 1).sin(), rtol=0, atol=0)
    counts = torch.russet.host_op_counts()
    assert sum(counts.values()) >= 3, counts
    # complex128 too
    c = torch.randn(4, dtype=torch.complex128)
    torch.russet.reset_host_op_counts()
    assert_close((c.to(D) * c.to(D)).cpu(), c * c, rtol=0, atol=0)
    assert sum(torch.russet.host_op_counts().values()) >= 1
    # but float64 copies and fills stay native
    torch.russet.reset_host_op_counts()
    z = torch.zeros(4, dtype=torch.float64, device=D)
    z.fill_(2.5)
    assert z.cpu().eq(2.5).all()
    assert sum(torch.russet.host_op_counts().values()) == 0, torch.russet.host_op_counts()


def test_native_ops_are_not_counted():
    torch.russet.reset_host_op_counts()
    t = torch.zeros(16, device=D)
    t.fill_(1.0)
    t.zero_()
    u = t.clone()
    u.copy_(torch.ones(16))
    torch.rand(8, device=D).uniform_()
    torch.arange(5, device=D)
    u.view(4, 4).t().contiguous()
    u.cpu()
    assert sum(torch.russet.host_op_counts().values()) == 0, torch.russet.host_op_counts()


def test_host_ops_error_mode_raises():
    code = (
        "import torch, russet\n"
        "a = torch.ones(2, 2, device='russet')\n"
        "b = a.clone() + torch.eye(2, device='russet')\n"  # native: must still work
        "try:\n"
        "    torch.linalg.eig(b)\n"
        "except RuntimeError as e:\n"
        "    print('RAISED', 'linalg_eig' in str(e))\n"
        "else:\n"
        "    print('NO_ERROR')\n"
        "print('AFTER', a.cpu().sum().item())\n"
    )
    r = run_python(code, env={"RUSSET_HOST_OPS": "error"})
    assert r.returncode == 0, r.stderr
    assert "RAISED True" in r.stdout, r.stdout + r.stderr
    assert "AFTER 4.0" in r.stdout


def test_host_ops_warn_mode_warns_once_per_op():
    code = (
        "import warnings, torch, russet\n"
        "a = torch.eye(2, device='russet')\n"
        "with warnings.catch_warnings(record=True) as w:\n"
        "    warnings.simplefilter('always')\n"
        "    torch.linalg.eig(a); torch.linalg.eig(a); torch.linalg.eig(a)\n"
        "    print('N', sum('linalg_eig' in str(x.message) for x in w))\n"
    )
    r = run_python(code, env={"RUSSET_HOST_OPS": "warn"})
    assert r.returncode == 0, r.stderr
    # a once-per-op warning: either through Python warnings or on stderr
    n = int(r.stdout.split("N")[-1].split()[0])
    assert n == 1 or (n == 0 and r.stderr.count("linalg_eig") >= 1), r.stdout + r.stderr


@pytest.mark.parametrize("dtype", [torch.complex64, torch.complex128], ids=str)
def test_host_kernel_flipping_the_conjugate_bit_of_out(dtype):
    # linalg_lu_solve with left=False transposes its out= argument and flips
    # its conjugate bit to return X^H: the bit must reach the russet tensor
    torch.manual_seed(0)
    a = torch.randn(4, 4, dtype=dtype)
    b = torch.randn(3, 4, dtype=dtype)
    lu, piv = torch.linalg.lu_factor(a)
    for adjoint in (False, True):
        want = torch.linalg.lu_solve(lu, piv, b, left=False, adjoint=adjoint)
        got = torch.linalg.lu_solve(lu.to(D), piv.to(D), b.to(D), left=False, adjoint=adjoint)
        assert_close(got.cpu(), want)


def test_host_execution_through_copies_keeps_writes():
    """On a discrete GPU host execution stages through copies (PyTorch's
    cpu_fallback), which writes back only the arguments a schema marks as
    written: native_batch_norm's running statistics were lost (float64
    batch norm under the apple profile on the H200: issue 15).
    RUSSET_HOST_COPY=1 takes that path on lavapipe too."""
    code = """
import torch, russet
torch.manual_seed(0)
assert torch.russet.get_device_properties().profile == "apple"
x = torch.randn(4, 3, 5, 5, dtype=torch.float64)
for mod in (torch.nn.BatchNorm2d(3), torch.nn.InstanceNorm2d(3, track_running_stats=True)):
    ref = mod.double()
    dev = type(mod)(3, track_running_stats=True).double().to("russet")
    for _ in range(2):
        ry, dy = ref(x), dev(x.to("russet"))
    assert torch.allclose(dy.cpu(), ry), type(mod).__name__
    assert torch.allclose(dev.running_mean.cpu(), ref.running_mean), (dev.running_mean.cpu(), ref.running_mean)
    assert torch.allclose(dev.running_var.cpu(), ref.running_var)
# in-place and out= host ops
a = torch.randn(6, dtype=torch.float64)
d = a.to("russet")
d.mul_(3).add_(1)
assert torch.equal(d.cpu(), a * 3 + 1)
o = torch.empty(6, dtype=torch.float64, device="russet")
torch.exp(d, out=o)
assert torch.allclose(o.cpu(), torch.exp(a * 3 + 1))
print("ok", sum(torch.russet.host_op_counts().values()) > 0)
"""
    r = run_python(code, env={"RUSSET_HOST_COPY": "1", "RUSSET_PROFILE": "apple"})
    assert r.returncode == 0, r.stderr[-3000:]
    assert r.stdout.strip() == "ok True"
