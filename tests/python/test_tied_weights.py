"""Tied parameters stay one Parameter on russet (issue 15): through
module.to("russet"), .russet(), .to(dtype), .cpu(), load_state_dict and
torch.load(map_location="russet"), and their gradient is the sum of both
uses, as on CPU. Language models tie the embedding and the output layer;
when the move untied them, each copy trained apart and nothing said so."""

import copy
import importlib.util
import io

import pytest
import torch
import torch.nn as nn
from torch.testing import assert_close

D = "russet"


class TiedLM(nn.Module):
    """An embedding and an output layer that share one matrix, plus a
    buffer-carrying norm (running statistics move with the module)."""

    def __init__(self, vocab=20, dim=8):
        super().__init__()
        self.emb = nn.Embedding(vocab, dim)
        self.mix = nn.Linear(dim, dim)
        self.norm = nn.BatchNorm1d(dim)
        self.out = nn.Linear(dim, vocab, bias=False)
        self.out.weight = self.emb.weight

    def forward(self, t):
        h = torch.tanh(self.mix(self.emb(t)))
        return self.out(self.norm(h.transpose(1, 2)).transpose(1, 2))


def shared_ids(m):
    return {id(p) for p in m.parameters()}


def check_tied(m):
    assert m.out.weight is m.emb.weight
    assert len(list(m.parameters())) == 5  # emb/out, mix.weight, mix.bias, norm.weight, norm.bias


def test_has_compatible_shallow_copy_type():
    c, r = torch.zeros(2), torch.zeros(2, device=D)
    assert torch._has_compatible_shallow_copy_type(c, r)
    assert torch._has_compatible_shallow_copy_type(r, c)
    assert torch._has_compatible_shallow_copy_type(r, r)
    assert not torch._has_compatible_shallow_copy_type(r, c.to_sparse())
    assert not torch._has_compatible_shallow_copy_type(r, torch.zeros(2, device="meta"))


@pytest.mark.parametrize("move", ["to", "russet", "to_dtype", "roundtrip"])
def test_moves_keep_ties(move):
    torch.manual_seed(0)
    m = TiedLM()
    check_tied(m)
    if move == "to":
        m.to(D)
    elif move == "russet":
        m.russet()
    elif move == "to_dtype":
        m.to(D).to(torch.bfloat16)
        assert m.emb.weight.dtype == torch.bfloat16
    else:
        m.to(D).cpu().to(D)
    check_tied(m)
    assert m.emb.weight.device.type == D
    assert m.norm.running_mean.device.type == D


def test_gradients_match_cpu():
    torch.manual_seed(0)
    ref = TiedLM()
    m = copy.deepcopy(ref).to(D)
    check_tied(m)
    t = torch.randint(0, 20, (4, 6))
    target = torch.randint(0, 20, (4, 6))
    for model, dev in ((ref, "cpu"), (m, D)):
        opt = torch.optim.SGD(model.parameters(), lr=0.1)
        for _ in range(2):
            opt.zero_grad()
            out = model(t.to(dev))
            nn.functional.cross_entropy(out.flatten(0, 1), target.to(dev).flatten()).backward()
            opt.step()
    names = [n for n, _ in ref.named_parameters()]
    assert names == [n for n, _ in m.named_parameters()]
    for (n, p), q in zip(ref.named_parameters(), m.parameters()):
        assert_close(q.grad.cpu(), p.grad, rtol=1e-4, atol=1e-5, msg=lambda s, n=n: f"{n}: {s}")
        assert_close(q.detach().cpu(), p.detach(), rtol=1e-4, atol=1e-5, msg=lambda s, n=n: f"{n}: {s}")
    assert_close(m.norm.running_var.cpu(), ref.norm.running_var)
    check_tied(m)


def test_load_state_dict_and_torch_load_keep_ties():
    torch.manual_seed(0)
    src = TiedLM()
    m = TiedLM().to(D)
    m.load_state_dict(src.state_dict())
    check_tied(m)
    assert_close(m.out.weight.cpu(), src.emb.weight.detach())
    buf = io.BytesIO()
    torch.save(src, buf)
    buf.seek(0)
    loaded = torch.load(buf, map_location=D, weights_only=False)
    check_tied(loaded)
    assert loaded.emb.weight.device.type == D
    buf = io.BytesIO()
    torch.save(m.state_dict(), buf)
    buf.seek(0)
    sd = torch.load(buf, map_location=D)
    assert sd["emb.weight"].data_ptr() == sd["out.weight"].data_ptr()  # saved once, shared on load


# ---- transformers models that tie weights (when transformers is installed)

HAS_TRANSFORMERS = importlib.util.find_spec("transformers") is not None


def hf_models():
    import transformers as tf

    small = dict(vocab_size=64)
    return {
        "gpt2": lambda: tf.GPT2LMHeadModel(tf.GPT2Config(n_embd=32, n_layer=2, n_head=2, n_positions=32, **small)),
        "bert": lambda: tf.BertForMaskedLM(tf.BertConfig(hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
                                                         intermediate_size=64, max_position_embeddings=32, **small)),
        "t5": lambda: tf.T5ForConditionalGeneration(tf.T5Config(d_model=32, d_ff=64, d_kv=16, num_layers=2,
                                                                num_heads=2, **small)),
    }


@pytest.mark.skipif(not HAS_TRANSFORMERS, reason="transformers is not installed")
@pytest.mark.parametrize("name", ["gpt2", "bert", "t5"])
def test_transformers_ties_and_gradients(name):
    torch.manual_seed(0)
    ref = hf_models()[name]().eval()  # eval: no dropout, so CPU and russet see the same graph
    m = copy.deepcopy(ref).to(D)
    assert len(list(m.parameters())) == len(list(ref.parameters()))
    assert m.get_output_embeddings().weight is m.get_input_embeddings().weight
    ids = torch.randint(1, 64, (2, 12))
    kw = {"decoder_input_ids": ids[:, :6]} if name == "t5" else {}
    for model, dev in ((ref, "cpu"), (m, D)):
        out = model(input_ids=ids.to(dev), **{k: v.to(dev) for k, v in kw.items()})
        out.logits.float().square().mean().backward()
    for (n, p), q in zip(ref.named_parameters(), m.parameters()):
        if p.grad is None:
            assert q.grad is None, n
            continue
        assert q.grad is not None, n
        assert_close(q.grad.cpu(), p.grad, rtol=2e-3, atol=2e-5, msg=lambda s, n=n: f"{n}: {s}")
