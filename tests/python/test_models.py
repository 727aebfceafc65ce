"""End to end: small models of the common kinds train on russet with no
host execution under the apple profile, and follow CPU step by step. Each
model trains a few steps on CPU and on russet from the same weights and
data (SGD with momentum); at every step the loss, every parameter's
gradient, every parameter and every buffer (BatchNorm's running
statistics) must agree to float32 tolerance, the parameter count must not
change when the model moves (tied weights stay tied), the output in eval
mode (running statistics, dropout off) must agree at the end, and no op
may run on the host."""

import pytest
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.testing import assert_close

D = "russet"


def cnn():
    return nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(), nn.MaxPool2d(2),
                         nn.Conv2d(8, 8, 3, stride=2, padding=1, groups=2), nn.GELU(), nn.AvgPool2d(2),
                         nn.Flatten(), nn.Dropout(0.0), nn.Linear(8, 10))


class LSTMLM(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(50, 16, padding_idx=0)
        self.rnn = nn.LSTM(16, 24, num_layers=2, batch_first=True)
        self.out = nn.Linear(24, 50)

    def forward(self, t):
        return self.out(self.rnn(self.emb(t))[0])


class UNetBit(nn.Module):
    def __init__(self):
        super().__init__()
        self.down = nn.Conv2d(2, 4, 3, stride=2, padding=1, padding_mode="reflect")
        self.up = nn.ConvTranspose2d(4, 4, 2, stride=2)
        self.mix = nn.Conv2d(6, 2, 1)

    def forward(self, x):
        u = self.up(F.silu(self.down(x)))
        v = F.interpolate(u, size=x.shape[-2:], mode="bilinear", align_corners=False)
        return self.mix(torch.cat([x, v], 1))


class TiedLM(nn.Module):
    """an embedding tied to the output layer, with dropout (run in eval mode)"""

    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(40, 12)
        self.drop = nn.Dropout(0.5)
        self.norm = nn.LayerNorm(12)
        self.out = nn.Linear(12, 40, bias=False)
        self.out.weight = self.emb.weight

    def forward(self, t):
        return self.out(self.norm(self.drop(self.emb(t))))


CASES = {
    "cnn": (cnn, lambda: torch.randn(4, 3, 8, 8),
            lambda y: F.cross_entropy(y, torch.arange(4, device=y.device) % 10)),
    "lstm-lm": (LSTMLM, lambda: torch.randint(0, 50, (3, 7)),
                lambda y: F.cross_entropy(y.reshape(-1, 50), (torch.arange(21, device=y.device) * 7) % 50)),
    "transformer": (lambda: nn.TransformerEncoderLayer(16, 4, 32, dropout=0.0, batch_first=True),
                    lambda: torch.randn(2, 5, 16), lambda y: y.square().mean()),
    "unet-bit": (UNetBit, lambda: torch.randn(2, 2, 8, 8), lambda y: F.smooth_l1_loss(y, torch.zeros_like(y))),
    "tied-lm-eval": (TiedLM, lambda: torch.randint(0, 40, (3, 6)),
                     lambda y: F.cross_entropy(y.reshape(-1, 40), (torch.arange(18, device=y.device) * 5) % 40)),
}
TOL = dict(rtol=1e-4, atol=1e-5)


def _same(md, mc, step, what):
    """md's (russet) named tensors of kind `what` against mc's (CPU)"""
    named = (lambda m: m.named_buffers()) if what == "buffer" else (lambda m: m.named_parameters())
    ds, cs = dict(named(md)), dict(named(mc))
    assert ds.keys() == cs.keys(), f"step {step}: {what} names differ"
    for n, c in cs.items():
        d = ds[n]
        if what == "grad":
            d, c = d.grad, c.grad
        assert (d is None) == (c is None), f"step {step}: {what} of {n}: {d is None} on russet, {c is None} on CPU"
        if c is not None:
            assert_close(d.detach().cpu(), c.detach(), **TOL, msg=lambda m: f"step {step}: {what} of {n}: {m}")


@pytest.mark.parametrize("name", list(CASES))
def test_trains_like_cpu_with_no_host_ops(name):
    make, data, loss_fn = CASES[name]
    torch.manual_seed(0)
    mc = make()
    md = make()
    md.load_state_dict(mc.state_dict())
    nparams = len(list(mc.parameters()))
    md = md.to(D)
    assert len(list(md.parameters())) == nparams, "moving the model changed its parameter count"
    if name.endswith("-eval"):
        mc.eval(), md.eval()
    # SGD, whose step follows the gradient's scale: Adam's normalization
    # turns the noise-level gradient of a parameter whose true gradient is 0
    # (a bias before BatchNorm) into a full step of either sign. AdamW
    # itself is checked against CPU in test_foreach.py
    oc = torch.optim.SGD(mc.parameters(), lr=0.05, momentum=0.9)
    od = torch.optim.SGD(md.parameters(), lr=0.05, momentum=0.9)
    x = data()
    torch.russet.reset_host_op_counts()
    for step in range(3):
        oc.zero_grad()
        od.zero_grad()
        lc = loss_fn(mc(x))
        lc.backward()
        ld = loss_fn(md(x.to(D)))
        ld.backward()
        assert_close(ld.detach().cpu(), lc.detach(), **TOL, msg=lambda m: f"step {step}: {m}")
        _same(md, mc, step, "grad")
        oc.step()
        od.step()
        _same(md, mc, step, "param")
        _same(md, mc, step, "buffer")
    assert torch.russet.host_op_counts() == {}, torch.russet.host_op_counts()
    # inference as users run it: eval mode, no autograd
    mc.eval(), md.eval()
    with torch.no_grad():
        assert_close(md(x.to(D)).cpu(), mc(x), **TOL, msg=lambda m: f"eval output: {m}")
    # (nn.TransformerEncoderLayer takes its fused inference fast path here:
    # ops/transformer.cpp)
    assert torch.russet.host_op_counts() == {}, torch.russet.host_op_counts()
