"""multi_margin_loss and multilabel_margin_loss (src/torch/ops/margin_loss.cpp)
against CPU: OpInfo samples, p = 1 and 2, margins, class weights, every
reduction, 1-d inputs, label lists ended by -1 (with repeats), gradients with
no host execution, and CPU's errors."""

import pytest
import torch
import torch.nn.functional as F
from torch.testing import assert_close

from opinfo_check import check_opinfo, host_free

D = "russet"


@pytest.mark.parametrize("name", ["nn.functional.multi_margin_loss", "nn.functional.multilabel_margin_loss"])
def test_opinfo_samples_match_cpu(name):
    check_opinfo(name)


def grads_match(fn, x, *rest):
    xc, xd = x.clone().requires_grad_(), x.to(D).requires_grad_()
    yc = fn(xc, *rest)
    yd = host_free(lambda: fn(xd, *[r.to(D) if isinstance(r, torch.Tensor) else r for r in rest]))
    assert_close(yd.detach().cpu(), yc.detach(), rtol=1e-5, atol=1e-6)
    g = torch.rand(yc.shape)
    yc.backward(g)
    host_free(lambda: yd.backward(g.to(D)))
    assert_close(xd.grad.cpu(), xc.grad, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("p", [1, 2])
@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
@pytest.mark.parametrize("weighted", [False, True])
def test_multi_margin(p, reduction, weighted):
    torch.manual_seed(0)
    x, t = torch.randn(6, 5), torch.randint(0, 5, (6,))
    w = torch.rand(5) + 0.5 if weighted else None
    grads_match(lambda a, b: F.multi_margin_loss(a, b, p=p, margin=0.7, weight=None if w is None else
                                                 w.to(a.device), reduction=reduction), x, t)
    grads_match(lambda a, b: F.multi_margin_loss(a, b, p=p, reduction=reduction), torch.randn(4), t[:1])


@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
def test_multilabel_margin(reduction):
    torch.manual_seed(1)
    x = torch.randn(4, 6)
    t = torch.tensor([[3, 0, -1, 1, 2, 5], [1, 1, 4, -1, -1, -1], [-1, 2, 3, 0, 0, 0], [0, 1, 2, 3, 4, 5]])
    grads_match(lambda a, b: F.multilabel_margin_loss(a, b, reduction=reduction), x, t)
    grads_match(lambda a, b: F.multilabel_margin_loss(a, b, reduction=reduction), x[0], t[0])


def test_errors_like_cpu():
    x = torch.randn(3, 4, device=D)
    with pytest.raises(RuntimeError, match="only p == 1 and p == 2"):
        torch.ops.aten.multi_margin_loss(x, torch.zeros(3, dtype=torch.long, device=D), 3, 1.0, None, 1)
    # CPU's own checks (LossMulti.h): the same messages as this torch's CPU
    xc = x.cpu()
    for f, t in [(F.multi_margin_loss, torch.zeros(2, dtype=torch.long)),       # target size
                 (F.multi_margin_loss, torch.zeros(3, 4, dtype=torch.long)),    # target dims
                 (F.multi_margin_loss, torch.zeros(3)),                         # float target
                 (F.multilabel_margin_loss, torch.zeros(3, 3, dtype=torch.long)),
                 (F.multilabel_margin_loss, torch.zeros(3, 4))]:
        with pytest.raises(RuntimeError) as cpu_err:
            f(xc, t)
        with pytest.raises(RuntimeError) as dev_err:
            f(x, t.to(D))
        assert str(dev_err.value) == str(cpu_err.value)
    for shape in [(3, 0), (0,)]:  # empty input rows
        with pytest.raises(RuntimeError, match="Expected non-empty vector or matrix"):
            F.multilabel_margin_loss(torch.randn(shape, device=D), torch.zeros(shape, dtype=torch.long, device=D))
    # bad targets: a device-side assertion at the next sync (as on CUDA), CPU's text
    with pytest.raises(RuntimeError, match="target out of range"):
        F.multi_margin_loss(x, torch.full((3,), 7, device=D)).cpu()
    labels = torch.tensor([[0, -1, 0, 0], [2, -2, 0, 0], [1, 2, 3, -1]])
    with pytest.raises(RuntimeError, match="argument #2 'target' is out of range"):
        F.multilabel_margin_loss(xc, labels)
    with pytest.raises(RuntimeError, match="argument #2 'target' is out of range"):
        F.multilabel_margin_loss(x, labels.to(D)).cpu()
    good = labels.clone()
    good[1, 1] = -1
    bad_is = torch.zeros(3, 4)
    bad_is[0, 1] = 2
    for dev in ["cpu", D]:
        with pytest.raises(RuntimeError, match="argument #5 'is_target' is out of range"):
            torch.ops.aten.multilabel_margin_loss_backward(torch.tensor(1.0, device=dev), x.to(dev), good.to(dev), 1,
                                                           bad_is.to(dev)).cpu()
    # CPU's kernels exist for float32 and float64, and read the weights in the input's dtype
    for dt in [torch.float16, torch.bfloat16]:
        for f, t in [(F.multi_margin_loss, torch.zeros(3, dtype=torch.long)),
                     (F.multilabel_margin_loss, torch.zeros(3, 4, dtype=torch.long))]:
            with pytest.raises(RuntimeError) as cpu_err:
                f(xc.to(dt), t)
            with pytest.raises(RuntimeError) as dev_err:
                f(x.to(dt), t.to(D))
            assert str(dev_err.value) == str(cpu_err.value)
    w = torch.ones(4, dtype=torch.float64)
    with pytest.raises(RuntimeError) as cpu_err:
        F.multi_margin_loss(xc, torch.zeros(3, dtype=torch.long), weight=w)
    with pytest.raises(RuntimeError) as dev_err:
        F.multi_margin_loss(x, torch.zeros(3, dtype=torch.long, device=D), weight=w.to(D))
    assert str(dev_err.value) == str(cpu_err.value)


@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
def test_bit_equal_to_cpu(reduction):
    # one invocation per row in CPU's loop order, the reduced totals in CPU's
    # double accumulate type (a float-float pair without fp64): the same bits
    torch.manual_seed(3)
    x = torch.randn(33, 50)
    t = torch.randint(0, 50, (33,))
    labels = torch.randint(-1, 50, (33, 50))
    w = torch.rand(50) + 0.5
    for p in [1, 2]:
        want = F.multi_margin_loss(x, t, p=p, margin=0.3, weight=w, reduction=reduction)
        got = F.multi_margin_loss(x.to(D), t.to(D), p=p, margin=0.3, weight=w.to(D), reduction=reduction).cpu()
        assert torch.equal(got, want)
    want = F.multilabel_margin_loss(x, labels, reduction=reduction)
    got = F.multilabel_margin_loss(x.to(D), labels.to(D), reduction=reduction).cpu()
    assert torch.equal(got, want)
    # many small shapes: a reduced multilabel loss sums the rows' sums, each
    # rounded to float32 first (CPU's inner sum returns the dtype), in double;
    # summing them unrounded differed in about one case in eight
    for trial in range(40):
        n, c = int(torch.randint(1, 9, ())), int(torch.randint(1, 40, ()))
        xs = torch.randn(n, c) * float(torch.rand(())) * 5
        ls = torch.randint(-1, c, (n, c))
        want = F.multilabel_margin_loss(xs, ls, reduction=reduction)
        got = F.multilabel_margin_loss(xs.to(D), ls.to(D), reduction=reduction).cpu()
        assert torch.equal(got, want), (n, c)
        ts = torch.randint(0, c, (n,))
        want = F.multi_margin_loss(xs, ts, p=2, margin=0.6, reduction=reduction)
        got = F.multi_margin_loss(xs.to(D), ts.to(D), p=2, margin=0.6, reduction=reduction).cpu()
        assert torch.equal(got, want), (n, c)
    for f, tt in [(lambda a, b: F.multi_margin_loss(a, b, p=2, reduction=reduction), t),
                  (lambda a, b: F.multilabel_margin_loss(a, b, reduction=reduction), labels)]:
        xc, xd = x.clone().requires_grad_(), x.to(D).requires_grad_()
        yc, yd = f(xc, tt), f(xd, tt.to(D))
        g = torch.rand(yc.shape)
        yc.backward(g)
        yd.backward(g.to(D))
        assert torch.equal(xd.grad.cpu(), xc.grad)


def test_nan_margins_add_nothing_like_cpu():
    # CPU adds a margin term only where it is > 0; a NaN term is not, so it
    # adds nothing (russet multiplied by the mask: NaN * 0 = NaN)
    x = torch.randn(4, 5)
    x[1, 2] = float("nan")
    cases = [(F.multi_margin_loss, torch.tensor([0, 1, 4, 3])),
             (F.multi_margin_loss, torch.tensor([0, 1, 4, 3]), 2),
             (F.multilabel_margin_loss, torch.tensor([[0, 1, -1, 0, 0]] * 4))]
    for f, t, *p in cases:
        kw = {"p": p[0]} if p else {}
        xc, xd = x.clone().requires_grad_(), x.to(D).requires_grad_()
        yc, yd = f(xc, t, **kw), f(xd, t.to(D), **kw)
        assert torch.isfinite(yc)
        assert_close(yd.cpu(), yc)
        yc.backward()
        yd.backward()
        assert_close(xd.grad.cpu(), xc.grad)


@pytest.mark.parametrize("target", [torch.tensor(2), torch.tensor([2])], ids=["0-d target", "1-element target"])
def test_multi_margin_unbatched_shape(target):
    # an unbatched input's unreduced loss is 0-d where the target is 0-d
    # (CPU's resize), one element where the target has one
    x = torch.randn(5)
    want = F.multi_margin_loss(x, target, reduction="none")
    got = F.multi_margin_loss(x.to(D), target.to(D), reduction="none")
    assert got.shape == want.shape
    torch.testing.assert_close(got.cpu(), want)
