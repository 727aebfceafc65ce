"""End to end: small models of the common kinds train on russet with no
host execution under the apple profile, and their losses follow CPU's.
Each model trains a few steps on CPU and on russet from the same weights
and data; the losses must agree step by step (to float32 tolerance over a
few steps), and no op may run on the host."""

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


CASES = {
    "cnn": (cnn, lambda: torch.randn(4, 3, 8, 8),
            lambda y: F.cross_entropy(y, torch.arange(4, device=y.device) % 10)),
    "lstm-lm": (LSTMLM, lambda: torch.randint(0, 50, (3, 7)),
                lambda y: F.cross_entropy(y.reshape(-1, 50), (torch.arange(21, device=y.device) * 7) % 50)),
    "transformer": (lambda: nn.TransformerEncoderLayer(16, 4, 32, dropout=0.0, batch_first=True),
                    lambda: torch.randn(2, 5, 16), lambda y: y.square().mean()),
    "unet-bit": (UNetBit, lambda: torch.randn(2, 2, 8, 8), lambda y: F.smooth_l1_loss(y, torch.zeros_like(y))),
}


@pytest.mark.parametrize("name", list(CASES))
def test_trains_like_cpu_with_no_host_ops(name):
    make, data, loss_fn = CASES[name]
    torch.manual_seed(0)
    mc = make()
    md = make()
    md.load_state_dict(mc.state_dict())
    md = md.to(D)
    oc = torch.optim.AdamW(mc.parameters(), lr=1e-2)
    od = torch.optim.AdamW(md.parameters(), lr=1e-2)
    x = data()
    torch.russet.reset_host_op_counts()
    for step in range(3):
        lc = loss_fn(mc(x))
        oc.zero_grad()
        lc.backward()
        oc.step()
        ld = loss_fn(md(x.to(D)))
        od.zero_grad()
        ld.backward()
        od.step()
        assert_close(ld.detach().cpu(), lc.detach(), rtol=1e-4, atol=1e-5, msg=lambda m: f"step {step}: {m}")
    assert torch.russet.host_op_counts() == {}, torch.russet.host_op_counts()

