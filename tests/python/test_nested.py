"""Strided nested tensors on russet (src/torch/nested/generic.cpp: PyTorch's
device-generic NestedTensor kernels over russet's dense ops) against
PyTorch CPU, component by component: moves both ways, construction from
russet tensors, pointwise ops, linear layers, softmax, matmul/bmm, padding,
a transformer encoder layer's fast path where torch takes it, and host
execution counted for what has no kernel."""

import warnings

import pytest
import torch
from torch.testing import assert_close

from opinfo_check import host_free

D = "russet"
warnings.filterwarnings("ignore", message="The PyTorch API of nested tensors is in prototype stage")


def components(seed=0, dims=(3,), lens=(2, 5, 1), dtype=torch.float32):
    g = torch.Generator().manual_seed(seed)
    return [torch.randn(n, *dims, generator=g).to(dtype) for n in lens]


def same(got, exp, **tol):
    assert got.is_nested and got.device.type == D
    gs, es = got.unbind(), exp.unbind()
    assert len(gs) == len(es)
    for g, e in zip(gs, es):
        assert_close(g.cpu(), e, **tol)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.int64])
def test_round_trip_and_construction(dtype):
    parts = components(dtype=dtype)
    nt = torch.nested.nested_tensor(parts)
    r = host_free(lambda: nt.to(D))
    same(r, nt, rtol=0, atol=0)
    assert torch.equal(r.cpu().to_padded_tensor(0), nt.to_padded_tensor(0))
    made = host_free(lambda: torch.nested.nested_tensor([p.to(D) for p in parts]))
    same(made, nt, rtol=0, atol=0)


def test_pointwise():
    nt = torch.nested.nested_tensor(components())
    other = torch.nested.nested_tensor(components(seed=1))
    r, o = nt.to(D), other.to(D)
    for f in (torch.sin, torch.relu, torch.nn.functional.gelu, lambda x: x * 2 + 1, lambda x: x + x,
              lambda x: x.abs().sqrt()):
        same(host_free(lambda: f(r)), f(nt), rtol=1e-5, atol=1e-5)
    same(host_free(lambda: r * o), nt * other, rtol=1e-6, atol=1e-6)
    same(host_free(lambda: r - o), nt - other, rtol=1e-6, atol=1e-6)


def test_linear_softmax_matmul_and_padding():
    nt = torch.nested.nested_tensor(components(dims=(4,)))
    r = nt.to(D)
    lin = torch.nn.Linear(4, 6)
    lin_r = torch.nn.Linear(4, 6).to(D)
    lin_r.load_state_dict(lin.state_dict())
    with torch.no_grad():
        same(host_free(lambda: lin_r(r)), lin(nt), rtol=1e-5, atol=1e-5)
    same(host_free(lambda: torch.softmax(r, -1)), torch.softmax(nt, -1), rtol=1e-5, atol=1e-6)
    m = torch.nested.nested_tensor([torch.randn(4, k) for k in (3, 2, 5)])
    same(host_free(lambda: torch.bmm(r, m.to(D))), torch.bmm(nt, m), rtol=1e-5, atol=1e-5)
    same(host_free(lambda: torch.matmul(r, m.to(D))), torch.matmul(nt, m), rtol=1e-5, atol=1e-5)
    padded = host_free(lambda: r.to_padded_tensor(-1.0, (3, 6, 5)))
    assert torch.equal(padded.cpu(), nt.to_padded_tensor(-1.0, (3, 6, 5)))


def test_transformer_encoder_inference():
    # torch's encoder fast path takes nested tensors in inference
    torch.manual_seed(0)
    layer = torch.nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, batch_first=True).eval()
    layer_r = torch.nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, batch_first=True).to(D).eval()
    layer_r.load_state_dict(layer.state_dict())
    nt = torch.nested.nested_tensor(components(dims=(8,), lens=(3, 5)))
    with torch.no_grad():
        exp = layer(nt)
        got = layer_r(nt.to(D))
    same(got, exp, rtol=1e-4, atol=1e-4)


def test_layer_norm_and_gradients():
    nt = torch.nested.nested_tensor(components(dims=(6,)))
    ln = torch.nn.LayerNorm(6)
    ln_r = torch.nn.LayerNorm(6).to(D)
    with torch.no_grad():
        ln.weight.uniform_(), ln.bias.uniform_()
    ln_r.load_state_dict(ln.state_dict())
    with torch.no_grad():
        same(host_free(lambda: ln_r(nt.to(D))), ln(nt), rtol=1e-5, atol=1e-5)
    # gradients through a nested layer norm, into dense parameters
    ln(nt).to_padded_tensor(0.0).pow(2).sum().backward()
    ln_r(nt.to(D)).to_padded_tensor(0.0).pow(2).sum().backward()
    assert_close(ln_r.weight.grad.cpu(), ln.weight.grad, rtol=1e-4, atol=1e-5)
    assert_close(ln_r.bias.grad.cpu(), ln.bias.grad, rtol=1e-4, atol=1e-5)


def test_host_ops_are_counted():
    # a nested op whose kernel is CPU's own (not device-generic) runs on the
    # host, counted, with CPU's result
    qkv = torch.nested.nested_tensor(components(dims=(12,), lens=(3, 5)))
    bias = torch.randn(12)
    exp = torch._transform_bias_rescale_qkv(qkv, bias, 2)
    torch.russet.reset_host_op_counts()
    got = torch._transform_bias_rescale_qkv(qkv.to(D), bias.to(D), 2)
    for g, e in zip(got, exp):
        assert g.device.type == D and torch.equal(g.cpu(), e)
    assert torch.russet.host_op_counts() == {"aten::_transform_bias_rescale_qkv": 1}


def _sdpa_grads(dev, layout, parts):
    """scaled_dot_product_attention over a nested (batch, heads, seq, dim)
    leaf made from `parts` on `dev` (strided: (heads, seq, dim) each, as
    SDPA takes contiguous nested inputs only; jagged: (seq, heads, dim),
    transposed): the output's components and the leaf's gradient's"""
    nt = torch.nested.nested_tensor([p.to(dev) for p in parts], layout=layout, requires_grad=True)
    q = nt if layout == torch.strided else nt.transpose(1, 2)
    out = torch.nn.functional.scaled_dot_product_attention(q, q, q)
    flat = out.to_padded_tensor(0.0) if layout == torch.strided else out.transpose(1, 2).values()
    flat.square().sum().backward()
    return [o.detach().cpu() for o in out.unbind()], [g.cpu() for g in nt.grad.unbind()]


@pytest.mark.parametrize("layout", [torch.strided, torch.jagged])
def test_sdpa_forward_and_backward(layout):
    # nested SDPA takes ATen's math path on both devices (the jagged one
    # views its strided result through _nested_view_from_buffer: a dense
    # kernel russet lacked before, so the backward failed)
    dims, lens = ((4, 16), (3, 5, 2))
    parts = [p.transpose(0, 1).contiguous() for p in components(dims=dims, lens=lens)] \
        if layout == torch.strided else components(dims=dims, lens=lens)
    exp_out, exp_grads = _sdpa_grads("cpu", layout, parts)
    got_out, got_grads = host_free(lambda: _sdpa_grads(D, layout, parts))
    assert len(got_grads) == len(exp_grads) == 3
    for g, e in zip(got_out + got_grads, exp_out + exp_grads):
        assert_close(g, e, rtol=1e-4, atol=1e-5)

def test_sdpa_causal_jagged_as_on_cpu():
    # torch 2.13 refuses is_causal on jagged inputs ("No viable backend");
    # 2.15's CUDA build asks CUDA first and raises its driver error where
    # there is no GPU: whatever CPU does, russet does the same
    parts = components(dims=(4, 16), lens=(3, 5))

    def run(dev):
        nt = torch.nested.as_nested_tensor([p.to(dev) for p in parts], layout=torch.jagged).transpose(1, 2)
        return torch.nn.functional.scaled_dot_product_attention(nt, nt, nt, is_causal=True)

    try:
        exp = run("cpu")
    except Exception as e:  # noqa: BLE001
        with pytest.raises(type(e)) as got:
            run(D)
        assert str(got.value).splitlines()[0] == str(e).splitlines()[0]
        return
    same(run(D), exp, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.int64, torch.bool, torch.complex64])
def test_jagged_padding_kernels_like_cpu(dtype):
    # the two dense kernels jagged tensors pad and pack with (the C core's
    # jagged engine): an empty item, an item cut at max_length, trailing dims
    values = (torch.randn(9, 2, 3) * 4).to(dtype)
    offsets = torch.tensor([0, 3, 3, 8, 9])
    def to_padded_on_cpu(v, max_len, pad):
        if not v.is_complex():
            return torch.ops.aten._jagged_to_padded_dense_forward(v, [offsets], [max_len], pad)
        # CPU's kernel refuses complex values (russet's moves any dtype's
        # bits): the parts padded apart, the imaginary part with 0
        return torch.complex(to_padded_on_cpu(v.real, max_len, pad), to_padded_on_cpu(v.imag, max_len, 0.0))

    for max_len, pad in ((5, 0.0), (4, -2.0), (0, 1.0)):
        exp = to_padded_on_cpu(values, max_len, pad)
        got = host_free(lambda: torch.ops.aten._jagged_to_padded_dense_forward(
            values.to(D), [offsets.to(D)], [max_len], pad))
        assert got.device.type == D and torch.equal(got.cpu(), exp)
    padded = (torch.randn(4, 5, 2, 3) * 4).to(dtype)
    for total in (None, 9):
        exp = torch.ops.aten._padded_dense_to_jagged_forward(padded, [offsets], total)
        got = host_free(lambda: torch.ops.aten._padded_dense_to_jagged_forward(padded.to(D), [offsets.to(D)], total))
        assert got.device.type == D and torch.equal(got.cpu(), exp)
    # strided values and int32 offsets
    t = values.transpose(1, 2).contiguous().transpose(1, 2)
    exp = to_padded_on_cpu(t, 5, 0.0)
    got = torch.ops.aten._jagged_to_padded_dense_forward(t.to(D), [offsets.int().to(D)], [5], 0.0)
    assert torch.equal(got.cpu(), exp)


def test_jagged_padding_kernels_refuse_as_cpu():
    values, offsets = torch.randn(9, 3, device=D), torch.tensor([0, 3, 3, 8, 9], device=D)
    with pytest.raises(RuntimeError, match="expected 1D offsets"):
        torch.ops.aten._jagged_to_padded_dense_forward(values, [offsets[None]], [5], 0.0)
    with pytest.raises(RuntimeError, match="only a single jagged dim"):
        torch.ops.aten._jagged_to_padded_dense_forward(values, [offsets, offsets], [5, 5], 0.0)
    padded = torch.randn(4, 4, 3, device=D)
    # an item (5 rows) longer than the padded length (4): CPU checks on the
    # host, russet's kernel at the next sync
    with pytest.raises(RuntimeError, match="found batch item of length 5"):
        torch.ops.aten._padded_dense_to_jagged_forward(padded, [offsets], None)
        torch.russet.synchronize()
    with pytest.raises(RuntimeError, match="final offset should match total_L"):
        torch.ops.aten._padded_dense_to_jagged_forward(torch.randn(4, 5, 3, device=D), [offsets], 10)
        torch.russet.synchronize()
    with pytest.raises(RuntimeError, match="expected padded dim >= 2"):
        torch.ops.aten._padded_dense_to_jagged_forward(torch.randn(4, device=D), [offsets], None)
    # the device is usable after the errors
    assert torch.equal(torch.ops.aten._padded_dense_to_jagged_forward(torch.ones(4, 5, 3, device=D), [offsets],
                                                                      9).cpu(), torch.ones(9, 3))
