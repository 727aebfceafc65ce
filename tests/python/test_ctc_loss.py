"""F.ctc_loss natively (_ctc_loss and _ctc_loss_backward,
src/torch/ops/ctc_loss.cpp) against CPU: OpInfo samples, padded and
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


def test_long_targets_int32_and_targets_on_the_cpu():
    # S = 2 L + 1 past the 256 invocations of a workgroup: each computes
    # several positions of a frame; int32 targets; targets left on the CPU
    torch.manual_seed(2)
    T, N, C = 160, 3, 20
    lp = torch.randn(T, N, C).log_softmax(2)
    tl = torch.tensor([70, 150, 3])
    il = torch.tensor([160, 155, 40])
    targets = torch.randint(1, C, (N, 150), dtype=torch.int32)
    check(lp, targets, il, tl, reduction="sum")
    x = lp.to(D).requires_grad_()
    got = host_free(lambda: F.ctc_loss(x, targets, il, tl, reduction="none"))  # targets stay on the CPU
    assert_close(got.cpu(), F.ctc_loss(lp, targets, il, tl, reduction="none"), rtol=1e-4, atol=1e-4)


def test_float64_matches_cpu():
    torch.manual_seed(3)
    lp = torch.randn(9, 2, 5, dtype=torch.float64).log_softmax(2)
    targets = torch.tensor([[1, 2, 2], [4, 3, 1]])
    il, tl = torch.tensor([9, 7]), torch.tensor([3, 2])
    x = lp.to(D).requires_grad_()
    loss = F.ctc_loss(x, targets.to(D), il, tl, reduction="sum")  # native, or the host without fp64
    loss.backward()
    y = lp.clone().requires_grad_()
    want = F.ctc_loss(y, targets, il, tl, reduction="sum")
    want.backward()
    assert_close(loss.cpu(), want, rtol=1e-12, atol=1e-12)
    assert_close(x.grad.cpu(), y.grad, rtol=1e-10, atol=1e-12)


def test_float64_target_out_of_range_raises_on_either_path():
    # the native kernel raises at the sync; the host path (float64 without
    # fp64) checks first, where CPU's kernel would read out of bounds (the
    # fuzzer crashed it); padding past a row's length is not read
    lp = torch.randn(6, 2, 5, dtype=torch.float64).log_softmax(2).to(D)
    bad = torch.tensor([[1, 1000000], [2, 3]], device=D)
    with pytest.raises(RuntimeError, match="index 1000000 is out of bounds"):
        F.ctc_loss(lp, bad, [6, 6], [2, 2])
        torch.russet.synchronize()
    padded = torch.tensor([[1, -7], [2, 3]], device=D)  # row 0 uses one target
    assert F.ctc_loss(lp, padded, [6, 6], [1, 2]).isfinite().item()


def test_bad_arguments_raise_like_cpu():
    lp = torch.randn(6, 2, 4).log_softmax(2)
    targets = torch.tensor([[1, 2], [3, 1]])
    for kw, match in [
        (dict(input_lengths=[7, 6], target_lengths=[2, 2]), "input_lengths to have value at most 6"),
        (dict(input_lengths=[6, 6], target_lengths=[2, -1]), "target_lengths to have value at least 0"),
        (dict(input_lengths=[6, 6], target_lengths=[3, 2]), "size at least 3 at dimension 1"),
        (dict(input_lengths=[6, 6], target_lengths=[2, 2], blank=4), "blank must be in label range"),
    ]:
        with pytest.raises(RuntimeError, match=match):
            F.ctc_loss(lp, targets, reduction="none", **kw)
        with pytest.raises(RuntimeError, match=match):
            F.ctc_loss(lp.to(D), targets.to(D), reduction="none", **kw)
    # a label past the classes: the device error, at the next sync
    with pytest.raises(RuntimeError, match="out of bounds"):
        F.ctc_loss(lp.to(D), torch.tensor([[1, 9], [3, 1]]).to(D), [6, 6], [2, 2], reduction="none").cpu()
