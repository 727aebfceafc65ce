"""torch.cdist and torch.pdist (_cdist_forward/_backward, _pdist_forward/
_backward) against CPU: OpInfo samples, every p form (0, 1, 2, inf, p < 1,
1 < p < 2, p > 2), the matrix-product form for p = 2 past 25 rows, batch
broadcasting, gradients, empty inputs and CPU's errors."""

import pytest
import torch
from torch.testing import assert_close

from opinfo_check import check_opinfo, host_free

D = "russet"
PS = [0.0, 0.5, 1.0, 1.5, 2.0, 3.0, float("inf")]


@pytest.mark.parametrize("name", ["cdist", "nn.functional.pdist"])
def test_opinfo_samples_match_cpu(name):
    check_opinfo(name)


def grads(fn, *tensors):
    cpu = [t.clone().requires_grad_() for t in tensors]
    dev = [t.to(D).requires_grad_() for t in tensors]
    yc, yd = fn(*cpu), host_free(lambda: fn(*dev))
    assert_close(yd.detach().cpu(), yc.detach(), rtol=1e-5, atol=1e-5)
    g = torch.rand(yc.shape)
    yc.backward(g)
    host_free(lambda: yd.backward(g.to(D)))
    for c, d in zip(cpu, dev):
        assert_close(d.grad.cpu(), c.grad, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("p", PS)
def test_cdist_forms_and_gradients(p):
    torch.manual_seed(0)
    a, b = torch.randn(2, 1, 5, 3), torch.randn(3, 4, 3)
    b[0, 1] = a[0, 0, 2]  # a zero distance: its gradient is 0, as CPU's
    grads(lambda x, y: torch.cdist(x, y, p), a, b)


@pytest.mark.parametrize("mode", ["use_mm_for_euclid_dist_if_necessary", "use_mm_for_euclid_dist",
                                  "donot_use_mm_for_euclid_dist"])
def test_cdist_matrix_product_form_past_25_rows(mode):
    torch.manual_seed(1)
    a, b = torch.randn(30, 4), torch.randn(27, 4)
    grads(lambda x, y: torch.cdist(x, y, 2.0, compute_mode=mode), a, b)


@pytest.mark.parametrize("p", PS)
def test_pdist_forms_and_gradients(p):
    torch.manual_seed(2)
    x = torch.randn(6, 3)
    x[4] = x[1]
    grads(lambda t: torch.pdist(t, p), x)


def test_empty_and_degenerate_shapes():
    for a, b in (((0, 3), (4, 3)), ((2, 0), (3, 0)), ((2, 3), (0, 3)), ((0, 2, 3), (1, 4, 3))):
        x, y = torch.randn(a), torch.randn(b)
        assert_close(torch.cdist(x.to(D), y.to(D)).cpu(), torch.cdist(x, y))
    for shape in ((1, 3), (0, 3), (4, 0)):
        x = torch.randn(shape)
        assert_close(torch.pdist(x.to(D)).cpu(), torch.pdist(x))


def test_errors_like_cpu():
    x = torch.randn(3, 2, device=D)
    with pytest.raises(RuntimeError, match="same number of columns"):
        torch.cdist(x, torch.randn(3, 4, device=D))
    with pytest.raises(RuntimeError, match="non-negative p"):
        torch.cdist(x, x, -1.0)
    with pytest.raises(RuntimeError, match="floating-point"):
        torch.cdist(x.long(), x.long())
    with pytest.raises(NotImplementedError, match="not implemented for 'Half'"):
        torch.cdist(x.half(), x.half())
    with pytest.raises(NotImplementedError, match="not implemented for 'Half'"):
        torch.pdist(x.half())


def test_cdist_direct_form_in_row_chunks():
    # (300, 300, 200) differences exceed the 16M-element chunk: rows go in parts
    torch.manual_seed(3)
    a, b = torch.randn(300, 200), torch.randn(300, 200)
    assert_close(host_free(lambda: torch.cdist(a.to(D), b.to(D), 1.0)).cpu(), torch.cdist(a, b, 1.0))
