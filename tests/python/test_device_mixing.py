"""A CPU tensor beside russet ones is ATen's device error, as on CUDA,
never memory read as the wrong kind (lavapipe shares the host's memory, so
a host pointer taken for a device address "works" there and hides the bug
that faults on a discrete GPU). 0-dim CPU tensors (scalars) may mix in.
tools/device_mix_audit.py sweeps every OpInfo this way."""

import pytest
import torch
import torch.nn.functional as F

D = "russet"
SAME_DEVICE = "same device"


@pytest.mark.parametrize("op", [torch.ops.aten._softmax_backward_data, torch.ops.aten._log_softmax_backward_data])
def test_softmax_backward_with_a_cpu_gradient_raises(op):
    g = torch.randn(5, 5)
    y = torch.softmax(torch.randn(5, 5), 1).to(D)
    with pytest.raises(RuntimeError, match=SAME_DEVICE):
        op(g, y, 1, torch.float32)
    with pytest.raises(RuntimeError, match=SAME_DEVICE):
        op(y, g, 1, torch.float32)
    # all on russet: the engine, matching CPU
    want = op(g, y.cpu(), 1, torch.float32)
    torch.testing.assert_close(op(g.to(D), y, 1, torch.float32).cpu(), want)


def test_mixed_binary_and_matmul_raise_and_cpu_scalars_mix_in():
    a, b = torch.randn(4, 4), torch.randn(4, 4, device=D)
    for f in (lambda: a + b, lambda: b + a, lambda: a @ b, lambda: b @ a, lambda: F.linear(b, a)):
        with pytest.raises(RuntimeError, match=SAME_DEVICE):
            f()
    with pytest.raises(RuntimeError, match="russet:0 and cpu"):  # both devices named
        a @ b
    s = torch.tensor(2.5)  # a 0-dim CPU tensor is a scalar, as on CUDA
    torch.testing.assert_close((b * s).cpu(), b.cpu() * 2.5)


def test_lu_solve_with_a_cpu_factor_raises():
    """linalg.lu_solve with its LU factor on the CPU ran russet's kernel and
    returned a CPU result (tools/device_mix_audit.py, fourteenth session);
    now ATen's device error, as on CUDA"""
    a = torch.randn(3, 3) + 3 * torch.eye(3)
    lu, piv = torch.linalg.lu_factor(a)
    b = torch.randn(3, 2)
    for args in ((lu, piv.to(D), b.to(D)), (lu.to(D), piv.to(D), b)):
        with pytest.raises(RuntimeError, match=SAME_DEVICE):
            torch.linalg.lu_solve(*args)
    torch.testing.assert_close(torch.linalg.lu_solve(lu.to(D), piv.to(D), b.to(D)).cpu(),
                               torch.linalg.lu_solve(lu, piv, b))
