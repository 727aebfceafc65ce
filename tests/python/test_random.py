import math

import pytest
import torch

D = "russet"
FLOATS = [torch.float32, torch.float16, torch.bfloat16, torch.float64]


def draws():
    return [
        torch.empty(1000, device=D).uniform_().cpu(),
        torch.empty(1000, device=D).normal_().cpu(),
        torch.empty(1000, device=D, dtype=torch.int64).random_(0, 100).cpu(),
        torch.rand(257, device=D).cpu(),
        torch.randn(3, 5, device=D).cpu(),
    ]


def test_manual_seed_reproducible():
    torch.russet.manual_seed(1234)
    a = draws()
    torch.russet.manual_seed(1234)
    b = draws()
    for x, y in zip(a, b):
        assert torch.equal(x, y)
    torch.russet.manual_seed(1235)
    c = draws()
    assert not torch.equal(a[0], c[0])
    assert not torch.equal(a[1], c[1])


def test_torch_manual_seed_seeds_russet():
    torch.manual_seed(7)
    a = torch.rand(100, device=D).cpu()
    torch.manual_seed(7)
    b = torch.rand(100, device=D).cpu()
    assert torch.equal(a, b)
    assert torch.russet.initial_seed() == 7
    torch.russet.manual_seed_all(9)
    assert torch.russet.initial_seed() == 9


def test_successive_draws_differ():
    torch.russet.manual_seed(0)
    a = torch.rand(64, device=D).cpu()
    b = torch.rand(64, device=D).cpu()
    assert not torch.equal(a, b)


def test_seed_is_nondeterministic_and_readable():
    s1 = torch.russet.seed()
    assert isinstance(s1, int) and s1 == torch.russet.initial_seed()
    s2 = torch.russet.seed()
    assert s1 != s2


def test_get_set_rng_state():
    torch.russet.manual_seed(42)
    torch.rand(10, device=D)
    st = torch.russet.get_rng_state()
    assert st.dtype == torch.uint8 and st.device.type == "cpu" and st.dim() == 1
    assert st.numel() == 16
    seed = int.from_bytes(bytes(st[:8].tolist()), "little")
    assert seed == 42
    a = torch.randn(50, device=D).cpu()
    torch.russet.set_rng_state(st)
    b = torch.randn(50, device=D).cpu()
    assert torch.equal(a, b)
    assert torch.equal(torch.russet.get_rng_state(0), torch.russet.get_rng_state("russet:0"))
    with pytest.raises(Exception):
        torch.russet.set_rng_state(torch.zeros(3, dtype=torch.uint8))


def test_fork_rng():
    torch.russet.manual_seed(5)
    with torch.random.fork_rng(device_type="russet"):
        inside = torch.rand(20, device=D).cpu()
    after = torch.rand(20, device=D).cpu()
    assert torch.equal(inside, after), "fork_rng must restore the russet state"
    with torch.random.fork_rng(devices=[0], device_type="russet"):
        torch.russet.manual_seed(999)
        torch.rand(5, device=D)
    nxt = torch.rand(20, device=D).cpu()
    torch.russet.manual_seed(5)
    torch.rand(20, device=D)
    assert torch.equal(nxt, torch.rand(20, device=D).cpu())


@pytest.mark.parametrize("dtype", FLOATS, ids=str)
def test_uniform_distribution(dtype):
    torch.russet.manual_seed(3)
    x = torch.empty(20000, device=D, dtype=dtype).uniform_(-2.0, 3.0).cpu().double()
    assert x.min() >= -2.0 and x.max() <= 3.0
    assert abs(x.mean().item() - 0.5) < 0.06
    assert abs(x.var().item() - 25 / 12) < 0.15
    hist = torch.histc(x, bins=10, min=-2.0, max=3.0)
    assert hist.min() > 1600 and hist.max() < 2400
    r = torch.rand(20000, device=D, dtype=dtype).cpu().double()
    assert r.min() >= 0 and r.max() < 1.0 + 1e-12


@pytest.mark.parametrize("dtype", FLOATS, ids=str)
def test_normal_distribution(dtype):
    torch.russet.manual_seed(4)
    x = torch.empty(20000, device=D, dtype=dtype).normal_(1.5, 2.0).cpu().double()
    assert torch.isfinite(x).all()
    assert abs(x.mean().item() - 1.5) < 0.06
    assert abs(x.std().item() - 2.0) < 0.06
    z = torch.randn(20000, device=D, dtype=dtype).cpu().double()
    frac = (z.abs() < 1).double().mean().item()
    assert abs(frac - 0.6827) < 0.02


@pytest.mark.parametrize("dtype", [torch.int64, torch.int32, torch.int16, torch.uint8,
                                   torch.int8, torch.float32, torch.bool], ids=str)
def test_random_(dtype):
    torch.russet.manual_seed(5)
    if dtype == torch.bool:
        x = torch.empty(4000, device=D, dtype=dtype).random_().cpu()
        frac = x.double().mean().item()
        assert 0.45 < frac < 0.55
        return
    x = torch.empty(10000, device=D, dtype=dtype).random_(3, 13).cpu().long()
    assert x.min() == 3 and x.max() == 12
    counts = torch.bincount(x - 3, minlength=10)
    assert counts.min() > 850 and counts.max() < 1150
    y = torch.empty(4000, device=D, dtype=dtype).random_(50).cpu().long()
    assert y.min() >= 0 and y.max() < 50


def test_random_full_range():
    torch.russet.manual_seed(6)
    x = torch.empty(4000, device=D, dtype=torch.uint8).random_().cpu().long()
    assert x.min() >= 0 and x.max() <= 255 and x.unique().numel() > 200
    y = torch.empty(2000, device=D, dtype=torch.int64).random_().cpu()
    assert y.min() >= 0 and (y > 2**62).any()


def test_random_on_views():
    torch.russet.manual_seed(8)
    base = torch.zeros(20, 10, device=D)
    base[:, ::2].uniform_()
    c = base.cpu()
    assert (c[:, 1::2] == 0).all()
    assert (c[:, ::2] > 0).float().mean() > 0.95
    base.t()[3].normal_()
    assert (base.cpu()[:, 3] != 0).any()


def test_randint_randperm_like():
    torch.russet.manual_seed(9)
    x = torch.randint(0, 7, (3000,), device=D).cpu()
    assert x.min() == 0 and x.max() == 6
    r = torch.rand_like(torch.empty(3, 4, device=D))
    assert r.device.type == D and r.shape == (3, 4)
    n = torch.randn_like(torch.empty(3, 4, device=D, dtype=torch.float16))
    assert n.dtype == torch.float16
    assert not math.isnan(n.cpu().double().sum().item())
