"""The inference fast paths of nn.TransformerEncoderLayer and
nn.MultiheadAttention (eval mode, no autograd: _transformer_encoder_layer_fwd,
_native_multi_head_attention, _addmm_activation), which PyTorch takes on
russet as on CPU and CUDA: CPU's results, masks included, with no host
execution."""

import pytest
import torch
import torch.nn as nn
from torch.testing import assert_close

from opinfo_check import host_free

D = "russet"


def _pair(make):
    torch.manual_seed(0)
    mc = make().eval()
    md = make()
    md.load_state_dict(mc.state_dict())
    return mc, md.to(D).eval()


@pytest.mark.parametrize("norm_first", [False, True])
@pytest.mark.parametrize("activation", ["relu", "gelu"])
def test_encoder_layer_fast_path(norm_first, activation):
    mc, md = _pair(lambda: nn.TransformerEncoderLayer(16, 4, 32, dropout=0.1, activation=activation,
                                                      batch_first=True, norm_first=norm_first))
    x = torch.randn(2, 5, 16)
    with torch.no_grad():
        want = mc(x)
        got = host_free(lambda: md(x.to(D)))
    assert_close(got.cpu(), want)


def test_encoder_stack_fast_path():
    mc, md = _pair(lambda: nn.TransformerEncoder(
        nn.TransformerEncoderLayer(16, 2, 24, dropout=0.0, batch_first=True), 2, enable_nested_tensor=False))
    x = torch.randn(3, 7, 16)
    with torch.no_grad():
        assert_close(host_free(lambda: md(x.to(D))).cpu(), mc(x))


@pytest.mark.parametrize("need_weights,average", [(False, True), (True, True), (True, False)])
def test_multihead_attention_fast_path(need_weights, average):
    mc, md = _pair(lambda: nn.MultiheadAttention(16, 4, batch_first=True))
    q, kv = torch.randn(2, 5, 16), torch.randn(2, 7, 16)
    with torch.no_grad():
        for args in ((q, q, q), (q, kv, kv)):
            want = mc(*args, need_weights=need_weights, average_attn_weights=average)
            got = host_free(lambda: md(*(a.to(D) for a in args), need_weights=need_weights,
                                       average_attn_weights=average))
            assert_close(got[0].cpu(), want[0])
            assert (got[1] is None) == (want[1] is None)
            if want[1] is not None:
                assert_close(got[1].cpu(), want[1])


@pytest.mark.parametrize("need_weights", [False, True])
@pytest.mark.parametrize("mask_type", [0, 1, 2])
def test_masked_attention_like_cpu(mask_type, need_weights):
    """the op as the fast paths call it, with each mask type (true: left
    out): 0 one (L, S) mask, 1 key padding (B, S), 2 as given (B, H, L, S);
    rows with every key left out are NaN, as on CPU"""
    mc, md = _pair(lambda: nn.MultiheadAttention(16, 4, batch_first=True))
    x = torch.randn(2, 5, 16)
    mask = {0: torch.ones(5, 5, dtype=torch.bool).triu(1),
            1: torch.tensor([[True] * 5, [False, False, False, True, True]]),
            2: torch.rand(2, 4, 5, 5, generator=torch.Generator().manual_seed(3)) > 0.6}[mask_type]
    if mask_type == 2:
        mask[1, 2, 3] = True  # one query of one head sees no key

    def run(m, dev):
        t = x.to(dev)
        return torch._native_multi_head_attention(t, t, t, 16, 4, m.in_proj_weight, m.in_proj_bias, m.out_proj.weight,
                                                  m.out_proj.bias, mask.to(dev), need_weights, True, mask_type)

    with torch.no_grad():
        want = run(mc, "cpu")
        got = host_free(lambda: run(md, D))
    assert want[0].isnan().any() == (mask_type != 0)  # the samples do leave rows empty
    assert_close(got[0].cpu(), want[0], equal_nan=True)
    if need_weights:
        assert_close(got[1].cpu(), want[1], equal_nan=True)


def test_encoder_layer_with_a_causal_mask():
    mc, md = _pair(lambda: nn.TransformerEncoderLayer(16, 4, 32, dropout=0.0, batch_first=True))
    x = torch.randn(2, 6, 16)
    causal = nn.Transformer.generate_square_subsequent_mask(6)
    with torch.no_grad():
        want = mc(x, src_mask=causal, is_causal=True)
        got = host_free(lambda: md(x.to(D), src_mask=causal.to(D), is_causal=True))
    assert_close(got.cpu(), want)


@pytest.mark.parametrize("use_gelu", [False, True])
def test_addmm_activation(use_gelu):
    torch.manual_seed(1)
    bias, a, b = torch.randn(6), torch.randn(4, 5), torch.randn(5, 6)
    want = torch._addmm_activation(bias, a, b, beta=0.5, alpha=2.0, use_gelu=use_gelu)
    got = host_free(lambda: torch._addmm_activation(bias.to(D), a.to(D), b.to(D), beta=0.5, alpha=2.0,
                                                    use_gelu=use_gelu))
    assert_close(got.cpu(), want)


def test_bad_head_count_is_a_clear_error():
    w, bias = torch.randn(48, 16, device=D), torch.randn(48, device=D)
    pw, pb = torch.randn(16, 16, device=D), torch.randn(16, device=D)
    x = torch.randn(2, 5, 16, device=D)
    with pytest.raises(RuntimeError, match="not divisible"):
        torch._native_multi_head_attention(x, x, x, 16, 3, w, bias, pw, pb, None, False, True, None)
