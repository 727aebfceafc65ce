"""Hugging Face models as users train them: each built from a small config
(no download), put on russet with `.to("russet")`, trained two AdamW steps
beside the same model on CPU (eval mode: no dropout), with the same losses
and no host op; and four decoders generating greedily (KV cache, a
left-padded batch) in float32 and bfloat16, token for token as on CPU. Runs
where transformers is installed (`pip install
transformers`; not in CI's environment, where it skips). The forty-first
session's sweep found weight norm (wav2vec2) running on the host."""

import importlib.util

import pytest
import torch

pytestmark = pytest.mark.skipif(importlib.util.find_spec("transformers") is None,
                                reason="transformers is not installed")

NAMES = ['gpt2', 'bert', 'llama', 't5', 'vit', 'mistral', 'qwen2', 'whisper', 'convnext', 'deberta', 'bart', 'neox', 'phi', 'gemma', 'swin', 'wav2vec2', 'resnet', 'distilbert', 'mamba', 'gpt_bigcode']


def _model(name):
    import transformers as T
    if name == "gpt2": return T.GPT2LMHeadModel(T.GPT2Config(n_layer=2, n_embd=64, n_head=4, vocab_size=500, n_positions=64)), "lm"
    if name == "bert": return T.BertForSequenceClassification(T.BertConfig(num_hidden_layers=2, hidden_size=64, num_attention_heads=4, intermediate_size=128, vocab_size=500, num_labels=3)), "cls"
    if name == "llama": return T.LlamaForCausalLM(T.LlamaConfig(num_hidden_layers=2, hidden_size=64, num_attention_heads=4, num_key_value_heads=2, intermediate_size=128, vocab_size=500)), "lm"
    if name == "t5": return T.T5ForConditionalGeneration(T.T5Config(num_layers=2, d_model=64, d_ff=128, num_heads=4, d_kv=16, vocab_size=500, decoder_start_token_id=0, pad_token_id=0)), "s2s"
    if name == "vit": return T.ViTForImageClassification(T.ViTConfig(num_hidden_layers=2, hidden_size=64, num_attention_heads=4, intermediate_size=128, image_size=32, patch_size=8, num_labels=5)), "img"
    if name == "mistral": return T.MistralForCausalLM(T.MistralConfig(num_hidden_layers=2, hidden_size=64, num_attention_heads=4, num_key_value_heads=2, intermediate_size=128, vocab_size=500, sliding_window=16)), "lm"
    if name == "qwen2": return T.Qwen2ForCausalLM(T.Qwen2Config(num_hidden_layers=2, hidden_size=64, num_attention_heads=4, num_key_value_heads=2, intermediate_size=128, vocab_size=500)), "lm"
    if name == "whisper": return T.WhisperForConditionalGeneration(T.WhisperConfig(encoder_layers=1, decoder_layers=1, d_model=64, encoder_attention_heads=4, decoder_attention_heads=4, encoder_ffn_dim=128, decoder_ffn_dim=128, vocab_size=500, num_mel_bins=16, max_source_positions=32, max_target_positions=32, pad_token_id=0, bos_token_id=1, eos_token_id=2, decoder_start_token_id=1)), "whisper"
    if name == "convnext": return T.ConvNextForImageClassification(T.ConvNextConfig(depths=[1,1], hidden_sizes=[16,32], num_stages=2, image_size=32, num_labels=5)), "img"
    if name == "deberta": return T.DebertaV2ForSequenceClassification(T.DebertaV2Config(num_hidden_layers=2, hidden_size=64, num_attention_heads=4, intermediate_size=128, vocab_size=500, num_labels=3)), "cls"
    if name == "bart": return T.BartForConditionalGeneration(T.BartConfig(encoder_layers=1, decoder_layers=1, d_model=64, encoder_attention_heads=4, decoder_attention_heads=4, encoder_ffn_dim=128, decoder_ffn_dim=128, vocab_size=500, max_position_embeddings=64)), "s2s"
    if name == "neox": return T.GPTNeoXForCausalLM(T.GPTNeoXConfig(num_hidden_layers=2, hidden_size=64, num_attention_heads=4, intermediate_size=128, vocab_size=500)), "lm"
    if name == "phi": return T.PhiForCausalLM(T.PhiConfig(num_hidden_layers=2, hidden_size=64, num_attention_heads=4, intermediate_size=128, vocab_size=500)), "lm"
    if name == "gemma": return T.GemmaForCausalLM(T.GemmaConfig(num_hidden_layers=2, hidden_size=64, num_attention_heads=4, num_key_value_heads=1, head_dim=16, intermediate_size=128, vocab_size=500)), "lm"
    if name == "swin": return T.SwinForImageClassification(T.SwinConfig(image_size=32, patch_size=4, embed_dim=16, depths=[1, 1], num_heads=[2, 2], window_size=4, num_labels=5)), "img"
    if name == "wav2vec2": return T.Wav2Vec2ForSequenceClassification(T.Wav2Vec2Config(hidden_size=64, num_hidden_layers=2, num_attention_heads=4, intermediate_size=128, conv_dim=(16, 16), conv_stride=(5, 2), conv_kernel=(10, 3), num_conv_pos_embeddings=16, num_conv_pos_embedding_groups=4, num_labels=3)), "audio"
    if name == "resnet": return T.ResNetForImageClassification(T.ResNetConfig(embedding_size=16, hidden_sizes=[16, 32], depths=[1, 1], num_labels=5)), "img"
    if name == "distilbert": return T.DistilBertForSequenceClassification(T.DistilBertConfig(n_layers=2, dim=64, n_heads=4, hidden_dim=128, vocab_size=500, num_labels=3)), "cls"
    if name == "mamba": return T.MambaForCausalLM(T.MambaConfig(num_hidden_layers=2, hidden_size=64, state_size=8, vocab_size=500)), "lm"
    if name == "gpt_bigcode": return T.GPTBigCodeForCausalLM(T.GPTBigCodeConfig(n_layer=2, n_embd=64, n_head=4, vocab_size=500)), "lm"
    raise KeyError(name)

def _batch(kind, dev):
    g = torch.Generator().manual_seed(1)
    if kind == "lm": ids = torch.randint(0, 500, (2, 16), generator=g); return dict(input_ids=ids.to(dev), labels=ids.to(dev))
    if kind == "cls": ids = torch.randint(0, 500, (2, 16), generator=g); return dict(input_ids=ids.to(dev), labels=torch.tensor([0, 2]).to(dev))
    if kind == "s2s": ids = torch.randint(0, 500, (2, 16), generator=g); return dict(input_ids=ids.to(dev), labels=ids[:, :8].contiguous().to(dev))
    if kind == "img": return dict(pixel_values=torch.randn(2, 3, 32, 32, generator=g).to(dev), labels=torch.tensor([1, 4]).to(dev))
    if kind == "audio": return dict(input_values=torch.randn(2, 1600, generator=g).to(dev), labels=torch.tensor([0, 2]).to(dev))
    if kind == "whisper": return dict(input_features=torch.randn(2, 16, 64, generator=g).to(dev), labels=torch.randint(0, 500, (2, 8), generator=g).to(dev))


@pytest.mark.parametrize("name", NAMES)
def test_trains_like_cpu_without_host_ops(name):
    torch.manual_seed(0)
    model, kind = _model(name)
    model.eval()
    ours = type(model)(model.config)
    ours.load_state_dict(model.state_dict())
    ours.eval()
    ours.to("russet")
    losses = {}
    for dev, m in (("cpu", model), ("russet", ours)):
        opt = torch.optim.AdamW(m.parameters(), lr=1e-3)
        torch.russet.reset_host_op_counts()
        losses[dev] = []
        for _ in range(2):
            out = m(**_batch(kind, dev))
            out.loss.backward()
            opt.step()
            opt.zero_grad()
            losses[dev].append(out.loss.item())
        if dev == "russet":
            assert torch.russet.host_op_counts() == {}, torch.russet.host_op_counts()
    for a, b in zip(losses["cpu"], losses["russet"]):
        assert abs(a - b) <= 1e-4 * max(1.0, abs(a)), losses


@pytest.mark.parametrize("name", ["llama", "gpt2", "qwen2", "mistral"])
@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
def test_generates_like_cpu(name, dtype):
    # greedy decoding with the KV cache, a left-padded batch: the same tokens
    # as the same weights on CPU, and no host op
    torch.manual_seed(0)
    model, _ = _model(name)
    model.eval()
    ours = type(model)(model.config)
    ours.load_state_dict(model.state_dict())
    model, ours = model.to(dtype), ours.to(dtype).eval().to("russet")
    g = torch.Generator().manual_seed(2)
    ids = torch.randint(3, 500, (2, 7), generator=g)
    mask = torch.ones_like(ids)
    mask[1, :3] = 0
    kw = dict(max_new_tokens=12, do_sample=False, pad_token_id=0)
    exp = model.generate(ids, attention_mask=mask, **kw)
    torch.russet.reset_host_op_counts()
    got = ours.generate(ids.to("russet"), attention_mask=mask.to("russet"), **kw)
    assert torch.russet.host_op_counts() == {}, torch.russet.host_op_counts()
    assert torch.equal(got.cpu(), exp)
