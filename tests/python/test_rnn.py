"""nn.LSTM, nn.GRU, nn.LSTMCell, nn.GRUCell against CPU: on any device but
CPU, ATen's RNN code calls the fused cells (_thnn_fused_lstm_cell,
_thnn_fused_gru_cell and their backward kernels), which PyTorch has only for
CUDA; russet runs each as one kernel of its C core (src/engine/rnn.c). CPU runs the unfused path with the same
mathematics: outputs, states and every gradient must match, with no host
execution."""

import pytest
import torch
import torch.nn as nn
from torch.testing import assert_close

from opinfo_check import host_free

D = "russet"


def compare(module, inputs, tol):
    torch.manual_seed(0)
    dev = type(module)(**module.init_kwargs).to(D)
    dev.load_state_dict(module.state_dict())
    xc = [x.clone().requires_grad_() for x in inputs]
    xd = [x.to(D).requires_grad_() for x in inputs]
    oc, od = module(*xc), host_free(lambda: dev(*xd))
    flat = lambda o: [t for t in (o if isinstance(o, tuple) else (o,)) for t in (t if isinstance(t, tuple) else (t,))]
    for a, b in zip(flat(od), flat(oc)):
        assert_close(a.detach().cpu(), b.detach(), **tol)
    gs = [torch.randn(t.shape) for t in flat(oc)]
    torch.autograd.backward(flat(oc), gs)
    host_free(lambda: torch.autograd.backward(flat(od), [g.to(D) for g in gs]))
    for a, b in zip(xd, xc):
        assert_close(a.grad.cpu(), b.grad, **tol)
    for (n, pd), (_, pc) in zip(dev.named_parameters(), module.named_parameters()):
        assert_close(pd.grad.cpu(), pc.grad, **tol, msg=lambda m: f"{n}: {m}")


def make(cls, **kw):
    m = cls(**kw)
    m.init_kwargs = kw
    return m


TOL = dict(rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("kw", [dict(), dict(num_layers=2, bidirectional=True), dict(bias=False),
                                dict(proj_size=3), dict(batch_first=True, num_layers=2)],
                         ids=["plain", "2layer-bidir", "nobias", "proj", "batchfirst"])
def test_lstm_matches_cpu(kw):
    torch.manual_seed(1)
    m = make(nn.LSTM, input_size=5, hidden_size=6, **kw)
    x = torch.randn(4, 3, 5)
    compare(m, [x], TOL)


@pytest.mark.parametrize("kw", [dict(), dict(num_layers=2, bidirectional=True), dict(bias=False)],
                         ids=["plain", "2layer-bidir", "nobias"])
def test_gru_matches_cpu(kw):
    torch.manual_seed(2)
    m = make(nn.GRU, input_size=5, hidden_size=6, **kw)
    x = torch.randn(4, 3, 5)
    compare(m, [x], TOL)


def test_lstm_with_initial_state():
    torch.manual_seed(3)
    m = make(nn.LSTM, input_size=4, hidden_size=5)
    x, h, c = torch.randn(3, 2, 4), torch.randn(1, 2, 5), torch.randn(1, 2, 5)
    dev = make(nn.LSTM, input_size=4, hidden_size=5).to(D)
    dev.load_state_dict(m.state_dict())
    oc, (hc, cc) = m(x, (h, c))
    od, (hd, cd) = host_free(lambda: dev(x.to(D), (h.to(D), c.to(D))))
    for a, b in ((od, oc), (hd, hc), (cd, cc)):
        assert_close(a.detach().cpu(), b.detach(), **TOL)


@pytest.mark.parametrize("cls", [nn.LSTMCell, nn.GRUCell])
def test_cells_match_cpu(cls):
    torch.manual_seed(4)
    m = make(cls, input_size=5, hidden_size=7)
    compare(m, [torch.randn(3, 5)], TOL)


def test_bad_state_shape_raises():
    g = torch.randn(2, 8, device=D)
    with pytest.raises(RuntimeError, match="state must be"):
        torch.ops.aten._thnn_fused_lstm_cell(g, g, torch.randn(3, 2, device=D))


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
@pytest.mark.parametrize("cls", [nn.LSTM, nn.GRU])
def test_reduced_precision_forward(cls, dtype):
    # the fused cells compute in float32 and round once; CPU's unfused path
    # rounds every op, and over the recurrence the two drift apart by more
    # than the dtype's tolerance. So both are measured against the float32
    # computation on the same (rounded) weights and inputs: russet must be at
    # least as close to it as CPU's own reduced-precision result, and close.
    torch.manual_seed(5)
    m = cls(5, 6).to(dtype)
    x = torch.randn(4, 3, 5).to(dtype)
    ref = cls(5, 6)
    ref.load_state_dict({k: v.float() for k, v in m.state_dict().items()})
    exact = ref(x.float())[0].detach()
    dev = cls(5, 6).to(dtype).to(D)
    dev.load_state_dict(m.state_dict())
    got = host_free(lambda: dev(x.to(D))[0]).cpu().float()
    cpu_err = (m(x)[0].detach().float() - exact).abs().max()
    our_err = (got - exact).abs().max()
    assert our_err <= max(cpu_err, torch.finfo(dtype).eps), (our_err, cpu_err)
    assert_close(got.to(dtype), exact.to(dtype), atol=4 * torch.finfo(dtype).eps, rtol=0)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64], ids=str)
def test_fused_lstm_cell_strided_gates_and_missing_grad_cy(dtype):
    """the fused cell (one kernel, src/engine/rnn.c) on transposed gates,
    against ATen's formulas on CPU; the backward without grad_cy. float64
    without fp64 (apple) runs the formulas on the host, counted: CPU has no
    fused cells for the generic host fallback to call"""
    torch.manual_seed(6)
    torch.russet.reset_host_op_counts()
    ig, hg = torch.randn(8, 3, dtype=dtype).t(), torch.randn(3, 8, dtype=dtype)
    cx, ib, hb = torch.randn(3, 2, dtype=dtype), torch.randn(8, dtype=dtype), torch.randn(8, dtype=dtype)
    hy, cy, ws = torch.ops.aten._thnn_fused_lstm_cell(ig.to(D), hg.to(D), cx.to(D), ib.to(D), hb.to(D))
    g = (ig + hg + ib + hb).chunk(4, 1)
    i, f, c, o = g[0].sigmoid(), g[1].sigmoid(), g[2].tanh(), g[3].sigmoid()
    cy_ref = f * cx + i * c
    tol = dict(rtol=1e-6, atol=1e-6) if dtype == torch.float32 else dict(rtol=1e-12, atol=1e-12)
    assert_close(cy.cpu(), cy_ref, **tol)
    assert_close(hy.cpu(), o * cy_ref.tanh(), **tol)
    assert_close(ws.cpu(), torch.cat([i, f, c, o], 1), **tol)
    ghy = torch.randn(3, 2, dtype=dtype)
    gates, gcx, gb = torch.ops.aten._thnn_fused_lstm_cell_backward_impl(ghy.to(D), None, cx.to(D), cy, ws, True)
    tc = cy_ref.tanh()
    gc = ghy * o * (1 - tc * tc)
    want = torch.cat([gc * c * i * (1 - i), gc * cx * f * (1 - f), gc * i * (1 - c * c), ghy * tc * o * (1 - o)], 1)
    assert_close(gates.cpu(), want, **tol)
    assert_close(gcx.cpu(), gc * f, **tol)
    assert_close(gb.cpu(), want.sum(0), **tol)
    host = torch.russet.host_op_counts()
    fp64 = torch.russet.get_device_properties().features.has_fp64
    if dtype == torch.float64 and not fp64:
        assert host == {"aten::_thnn_fused_lstm_cell": 1, "aten::_thnn_fused_lstm_cell_backward_impl": 1}, host
    else:
        assert not host, host


@pytest.mark.parametrize("cls", [nn.LSTM, nn.GRU])
def test_float64_recurrence(cls):
    """float64 nn.LSTM/nn.GRU run on every profile, matching CPU: natively
    with fp64, else with the cells on the host (counted)"""
    torch.manual_seed(7)
    m = make(cls, input_size=4, hidden_size=3).double()
    dev = type(m)(**m.init_kwargs).double().to(D)
    dev.load_state_dict(m.state_dict())
    x = torch.randn(5, 2, 4, dtype=torch.float64)
    tol = dict(rtol=1e-10, atol=1e-12)
    torch.russet.reset_host_op_counts()
    xd = x.to(D).requires_grad_()
    out, _ = dev(xd)
    out.sum().backward()
    host = torch.russet.host_op_counts()
    xc = x.clone().requires_grad_()
    oc, _ = m(xc)
    oc.sum().backward()
    assert_close(out.detach().cpu(), oc.detach(), **tol)
    assert_close(xd.grad.cpu(), xc.grad, **tol)
    for (n, pd), (_, pc) in zip(dev.named_parameters(), m.named_parameters()):
        assert_close(pd.grad.cpu(), pc.grad, **tol, msg=lambda msg: f"{n}: {msg}")
    if torch.russet.get_device_properties().features.has_fp64:
        assert not host, host
    else:
        assert any("fused" in k for k in host), host
