"""F.ctc_loss natively (_ctc_loss and _ctc_loss_backward,
src/torch/ops_ctc_loss.cpp) against CPU: OpInfo samples, padded and
concatenated targets, tensor and list lengths, frames shorter than T, empty
targets, impossible alignments with zero_infinity, another blank, every
reduction. The log-space recursion accumulates float32 rounding over the
frames on both sides, so gradients are measured against float64: russet's
error within 2x of CPU's own."""

import pytest
import torch
import torch.nn.functional as F
from torch.testing import assert_close

from opinfo_check import check_opinfo, host_free

D = "russet"


def test_opinfo_samples_match_cpu():
    check_opinfo("nn.functional.ctc_loss")


def run(dev, dtype, lp, targets, il, tl, **kw):
    x = lp.to(dtype).to(dev).detach().requires_grad_()
    tgt = targets.to(dev)
    fn = lambda: F.ctc_loss(x, tgt, il, tl, **kw)
    loss = fn() if dev == "cpu" else host_free(fn)
    g = torch.linspace(0.5, 1.5, loss.numel()).view(loss.shape).to(dtype).to(dev)
    (loss.backward(g) if dev == "cpu" else host_free(lambda: loss.backward(g)))
    return loss.detach().cpu().double(), x.grad.cpu().double()


def check(lp, targets, il, tl, **kw):
    lc, gc = run("cpu", torch.float32, lp, targets, il, tl, **kw)
    ld, gd = run(D, torch.float32, lp, targets, il, tl, **kw)
    le, ge = run("cpu", torch.float64, lp, targets, il, tl, **kw)
    assert_close(ld, lc, rtol=1e-4, atol=1e-4, equal_nan=True)
    finite = ge.isfinite()
    cpu_err = (gc - ge)[finite].abs().max().item() if finite.any() else 0.0
    err = (gd - ge)[finite].abs().max().item() if finite.any() else 0.0
    assert err <= max(2 * cpu_err, 1e-6), (err, cpu_err)
    assert torch.equal(gd.isfinite(), gc.isfinite())


@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
@pytest.mark.parametrize("concat", [False, True])
def test_forms_and_gradients(reduction, concat):
    torch.manual_seed(0)
    T, N, C, L = 12, 4, 6, 4
    lp = torch.randn(T, N, C).log_softmax(2)
    tl = torch.tensor([4, 1, 0, 3])
    il = torch.tensor([12, 9, 5, 12])
    padded = torch.randint(1, C, (N, L))
    targets = torch.cat([padded[i, :tl[i]] for i in range(N)]) if concat else padded
    check(lp, targets, il, tl, reduction=reduction)
    check(lp, targets, il.tolist(), tl.tolist(), reduction=reduction)


def test_repeats_other_blank_and_impossible_alignments():
    torch.manual_seed(1)
    T, N, C = 6, 3, 5
    lp = torch.randn(T, N, C).log_softmax(2)
    targets = torch.tensor([[1, 1, 2, 2], [3, 3, 3, 3], [1, 2, 1, 2]])  # repeats need blanks between
    tl = torch.tensor([4, 4, 2])
    il = torch.tensor([6, 5, 1])  # sample 1: 4 repeats need 7 frames; sample 2: 2 labels in 1 frame
    check(lp, targets, il, tl, reduction="none", zero_infinity=True)
    l_inf, _ = run(D, torch.float32, lp, targets, il, tl, reduction="none")
    assert l_inf[1].isinf() and l_inf[2].isinf()
    check(lp, targets.remainder(4), il, tl, blank=4, reduction="none", zero_infinity=True)
