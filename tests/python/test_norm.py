"""layer_norm, batch_norm (training and evaluation, running statistics),
group_norm and instance_norm against CPU: OpInfo samples for every dtype CPU
supports (native but float64 under apple) and gradients through autograd."""

import pytest
import torch
import torch.nn.functional as F
from torch.testing import assert_close

from opinfo_check import check_opinfo

D = "russet"

OPS = [("nn.functional.layer_norm", ""), ("native_layer_norm", ""), ("nn.functional.batch_norm", ""),
       ("nn.functional.group_norm", ""), ("nn.functional.instance_norm", ""), ("nn.functional.rms_norm", "")]


@pytest.mark.parametrize("name,variant", OPS, ids=[n for n, _ in OPS])
def test_matches_cpu(name, variant):
    check_opinfo(name, variant)


def host_free(fn):
    torch.russet.reset_host_op_counts()
    r = fn()
    assert torch.russet.host_op_counts() == {}, torch.russet.host_op_counts()
    return r


def grads_match(fn, *tensors, tol=None):
    cpu = [t.detach().clone().requires_grad_() for t in tensors]
    dev = [t.detach().to(D).requires_grad_() for t in tensors]
    yc, yd = fn(*cpu), host_free(lambda: fn(*dev))
    assert_close(yd.detach().cpu(), yc.detach(), **(tol or {}))
    g = torch.randn(yc.shape, dtype=yc.dtype)
    yc.backward(g)
    host_free(lambda: yd.backward(g.to(D)))
    for c, d in zip(cpu, dev):
        assert_close(d.grad.cpu(), c.grad, **(tol or {}))


@pytest.mark.parametrize("shape,norm", [((6, 10), [10]), ((2, 3, 4, 5), [4, 5]), ((7, 300), [300])])
def test_layer_norm_gradients(shape, norm):
    x = torch.randn(shape)
    w, b = torch.randn(norm), torch.randn(norm)
    grads_match(lambda x, w, b: F.layer_norm(x, norm, w, b, 1e-5), x, w, b, tol=dict(rtol=1e-4, atol=1e-5))
    grads_match(lambda x: F.layer_norm(x, norm), x, tol=dict(rtol=1e-4, atol=1e-5))


def test_layer_norm_half_with_float_parameters_gives_float_statistics():
    x = torch.randn(4, 8).half()
    w, b = torch.ones(8), torch.zeros(8)
    out, mean, rstd = torch.native_layer_norm(x.to(D), [8], w.to(D), b.to(D), 1e-5)
    co, cm, cr = torch.native_layer_norm(x, [8], w, b, 1e-5)
    assert (out.dtype, mean.dtype, rstd.dtype) == (co.dtype, cm.dtype, cr.dtype)
    assert_close(out.cpu(), co)
    assert_close(rstd.cpu(), cr)


@pytest.mark.parametrize("training", [True, False])
def test_batch_norm_module_training_and_eval(training):
    torch.manual_seed(0)
    x = torch.randn(4, 3, 5, 5) * 3 + 1
    m = torch.nn.BatchNorm2d(3)
    with torch.no_grad():
        m.weight.uniform_(0.5, 2)
        m.bias.uniform_(-1, 1)
    md = torch.nn.BatchNorm2d(3).to(D)
    md.load_state_dict(m.state_dict())
    m.train(training)
    md.train(training)
    for _ in range(2):
        xc, xd = x.clone().requires_grad_(), x.to(D).requires_grad_()
        yc, yd = m(xc), host_free(lambda: md(xd))
        assert_close(yd.detach().cpu(), yc.detach(), rtol=1e-5, atol=1e-5)
        yc.square().sum().backward()
        host_free(lambda: yd.square().sum().backward())
        assert_close(xd.grad.cpu(), xc.grad, rtol=1e-4, atol=1e-4)
        assert_close(md.weight.grad.cpu(), m.weight.grad, rtol=1e-4, atol=1e-3)
        assert_close(md.bias.grad.cpu(), m.bias.grad, rtol=1e-4, atol=1e-3)
    assert_close(md.running_mean.cpu(), m.running_mean)
    assert_close(md.running_var.cpu(), m.running_var)
    assert int(md.num_batches_tracked) == int(m.num_batches_tracked)


def test_group_norm_gradients():
    x = torch.randn(2, 6, 4)
    w, b = torch.randn(6), torch.randn(6)
    grads_match(lambda x, w, b: F.group_norm(x, 3, w, b), x, w, b, tol=dict(rtol=1e-4, atol=1e-5))


def test_bad_input_raises_like_cpu():
    d = torch.randn(3, 4, device=D)
    with pytest.raises(RuntimeError, match="normalized_shape"):
        F.layer_norm(d, [5])
    with pytest.raises(ValueError, match="more than 1 value per channel"):
        F.batch_norm(torch.randn(1, 3, device=D), None, None, training=True)
