"""Random pointwise distributions on the Philox generator: bernoulli (scalar
and tensor p), dropout, exponential_, geometric_, cauchy_, log_normal_,
normal with tensor mean/std, multinomial.
Native for float16/bfloat16/float32 (and any output dtype of bernoulli/
geometric), reproducible under torch.manual_seed; statistics checked against
the distribution."""

import math

import pytest
import torch
import torch.nn.functional as F

D = "russet"
N = 200_000
DTYPES = [torch.float32, torch.float16, torch.bfloat16]


def _native(fn):
    torch.russet.reset_host_op_counts()
    out = fn()
    assert not torch.russet.host_op_counts(), torch.russet.host_op_counts()
    return out


def _reproducible(fn):
    torch.manual_seed(123)
    a = fn().cpu()
    torch.manual_seed(123)
    b = fn().cpu()
    assert torch.equal(a, b)
    c = fn().cpu()
    assert not torch.equal(a, c)
    return a


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_bernoulli_scalar(dtype):
    x = _native(lambda: _reproducible(lambda: torch.empty(N, device=D, dtype=dtype).bernoulli_(0.3)))
    assert set(x.unique().tolist()) <= {0.0, 1.0}
    assert abs(x.float().mean().item() - 0.3) < 0.01


@pytest.mark.parametrize("dtype", [torch.bool, torch.int64, torch.uint8], ids=str)
def test_bernoulli_integer_outputs(dtype):
    x = _native(lambda: torch.empty(N, device=D, dtype=dtype).bernoulli_(0.7)).cpu()
    assert abs(x.float().mean().item() - 0.7) < 0.01


def test_bernoulli_tensor_p_and_functional():
    p = torch.tensor([0.0, 0.25, 0.5, 1.0]).repeat(N // 4, 1)
    x = _native(lambda: torch.bernoulli(p.to(D))).cpu()
    assert torch.allclose(x.mean(0), torch.tensor([0.0, 0.25, 0.5, 1.0]), atol=0.01)
    y = _native(lambda: torch.empty(p.shape, device=D, dtype=torch.float16).bernoulli_(p.to(D).half())).cpu()
    assert torch.allclose(y.float().mean(0), torch.tensor([0.0, 0.25, 0.5, 1.0]), atol=0.01)
    with pytest.raises(RuntimeError, match="bernoulli_ expects p"):
        torch.empty(3, device=D).bernoulli_(1.5)


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_exponential(dtype):
    x = _native(lambda: _reproducible(lambda: torch.empty(N, device=D, dtype=dtype).exponential_(2.0))).float()
    assert (x >= 0).all()
    assert abs(x.mean().item() - 0.5) < 0.01
    with pytest.raises(RuntimeError, match="lambda"):
        torch.empty(3, device=D).exponential_(-1.0)


@pytest.mark.parametrize("dtype", DTYPES + [torch.int32], ids=str)
def test_geometric(dtype):
    x = _native(lambda: _reproducible(lambda: torch.empty(N, device=D, dtype=dtype).geometric_(0.25))).float()
    assert (x >= 1).all()
    assert abs(x.mean().item() - 4.0) < 0.1


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_cauchy(dtype):
    x = _native(lambda: _reproducible(lambda: torch.empty(N, device=D, dtype=dtype).cauchy_(1.0, 2.0))).float()
    assert abs(x.median().item() - 1.0) < 0.05
    q = torch.quantile(x[torch.isfinite(x)][:100000], torch.tensor([0.25, 0.75]))
    assert abs(q[0].item() - (1.0 - 2.0)) < 0.1 and abs(q[1].item() - 3.0) < 0.1


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_log_normal(dtype):
    x = _native(lambda: _reproducible(lambda: torch.empty(N, device=D, dtype=dtype).log_normal_(0.5, 0.25))).float()
    assert (x > 0).all()
    assert abs(x.log().mean().item() - 0.5) < 0.01
    assert abs(x.log().std().item() - 0.25) < 0.01


def test_float64_on_host_is_reproducible():
    def f():
        return torch.empty(1000, device=D, dtype=torch.float64).exponential_(1.0)
    x = _reproducible(f)
    assert abs(x.mean().item() - 1.0) < 0.15


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_dropout(dtype):
    x = torch.randn(N, dtype=dtype)
    # no zeros: a kept element is told by a nonzero output (torch 2.11's
    # float16/bfloat16 randn draws exact zeros: 8 and 46 of 16384 on the H200)
    x[x == 0] = 1
    xd = x.to(D).requires_grad_(True)
    torch.manual_seed(5)
    y = _native(lambda: F.dropout(xd, 0.4, training=True))
    keep = y.detach().cpu() != 0
    assert abs(keep.float().mean().item() - 0.6) < 0.01
    expected = (x.float() / 0.6).to(dtype)
    assert torch.allclose(y.detach().cpu()[keep].float(), expected[keep].float(), rtol=1e-2 if dtype != torch.float32 else 1e-6)
    torch.russet.reset_host_op_counts()
    y.backward(torch.ones_like(y))  # (sum is a reduction: not this family)
    assert not torch.russet.host_op_counts()
    g = xd.grad.cpu().float()
    assert torch.allclose(g[keep], torch.full_like(g[keep], 1 / 0.6), rtol=1e-2)
    assert (g[~keep] == 0).all()
    torch.manual_seed(5)
    y2 = F.dropout(xd.detach(), 0.4, training=True)
    assert torch.equal(y2.cpu(), y.detach().cpu())
    assert torch.equal(F.dropout(xd.detach(), 0.4, training=False).cpu(), x)


# ---------------------------------------------------------------- one launch a sample (rs_rng_sample)
# Each distribution maps, at every element, the float32 uniform (normal)
# that uniform_ (normal_) draws there for the same seed: compared here
# element by element with ATen's transformation on CPU, on a transposed view
# (the logical order, not memory's, picks the draw).

def _uniforms(shape, seed, normal=None):
    torch.manual_seed(seed)
    u = torch.empty(shape, device=D)
    (u.normal_(*normal) if normal else u.uniform_()).cpu()
    return u.cpu().double()


def _transposed(dtype=torch.float32):
    return torch.empty(48, 40, device=D, dtype=dtype).t()  # (40, 48), strides (1, 40)


@pytest.mark.parametrize(
    "name, fill, ref",
    [
        ("bernoulli", lambda t: t.bernoulli_(0.3), lambda u: (u < torch.tensor(0.3).float().double()).double()),
        ("exponential", lambda t: t.exponential_(2.5), lambda u: -1 / 2.5 * torch.log1p(-u)),
        ("geometric", lambda t: t.geometric_(0.2), lambda u: torch.clamp(torch.ceil(torch.log(1 - u) / math.log1p(-0.2)), min=1)),
        ("cauchy", lambda t: t.cauchy_(1.0, 0.5), lambda u: 1.0 + 0.5 * torch.tan(math.pi * (u - 0.5))),
    ],
)
def test_each_sample_is_its_uniforms_transform(name, fill, ref):
    u = _uniforms((40, 48), 11)
    torch.manual_seed(11)
    x = _native(lambda: fill(_transposed())).cpu().double()
    want = ref(u)
    if name == "geometric":  # float32 may round a value on a boundary up or down
        edge = (torch.log(1 - u) / math.log1p(-0.2) - torch.round(torch.log(1 - u) / math.log1p(-0.2))).abs() < 1e-4
        assert torch.equal(x[~edge], want[~edge]) and edge.sum() < 20
    elif name == "cauchy":  # tan near its pole
        torch.testing.assert_close(x, want, rtol=1e-3, atol=1e-5)
    elif name == "bernoulli":
        assert torch.equal(x, want)
    else:
        torch.testing.assert_close(x, want, rtol=1e-5, atol=1e-6)


def test_log_normal_is_exp_of_the_normal_draws():
    n = _uniforms((40, 48), 12, normal=(0.5, 0.25))
    torch.manual_seed(12)
    x = _native(lambda: _transposed().log_normal_(0.5, 0.25)).cpu().double()
    torch.testing.assert_close(x, n.exp(), rtol=1e-5, atol=0)


def test_bernoulli_tensor_p_strided_and_float64():
    p = torch.rand(40, 1, dtype=torch.float64)
    u = _uniforms((40, 48), 13)
    torch.manual_seed(13)
    # p broadcast along dim 1, float64 (read as bits: native under every profile)
    x = _native(lambda: torch.empty(40, 48, device=D, dtype=torch.int64).bernoulli_(p.to(D))).cpu()
    assert torch.equal(x, (u < p.float().double()).long())


def test_integer_valued_samples_into_float64_are_native():
    # 0/1 and whole numbers convert exactly, so no host op under any profile
    x = _native(lambda: torch.empty(N, device=D, dtype=torch.float64).bernoulli_(0.25)).cpu()
    assert abs(x.mean().item() - 0.25) < 0.01
    g = _native(lambda: torch.empty(N, device=D, dtype=torch.float64).geometric_(0.5)).cpu()
    assert (g >= 1).all() and torch.equal(g, g.round()) and abs(g.mean().item() - 2.0) < 0.05


# transposed (out keeps x's strides); contiguous (float32: whole blocks of 4
# as 16-byte words); contiguous with a last partial block; 1 element into
# its storage (the words' alignment fails: element by element)
LAYOUTS = ["transposed", "contiguous", "partial_block", "offset"]


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.bfloat16, torch.float64], ids=str)
def test_dropout_is_one_launch_on_the_bernoulli_draws(dtype, layout):
    base = torch.randn(1 + 48 * 40, dtype=dtype)
    base[1] = float("nan")
    x = {"transposed": lambda: base[1:].view(48, 40).t(), "contiguous": lambda: base[1:].view(40, 48),
         "partial_block": lambda: base[1:].view(40, 48)[:39, :47].contiguous(), "offset": lambda: base[1:]}[layout]()
    shape = tuple(x.shape)
    xd = base.to(D)[1:] if layout == "offset" else x.to(D)
    assert (xd.storage_offset() == 1) == (layout == "offset")
    u = _uniforms(shape, 14)
    torch.manual_seed(14)
    torch.russet.reset_host_op_counts()
    out, mask = torch.native_dropout(xd, 0.3, True)
    hosted = torch.russet.host_op_counts()
    if dtype == torch.float64 and not torch.russet.get_device_properties().has_fp64:
        assert hosted and "aten::native_dropout" not in hosted  # the product only; the mask is native
    else:
        assert not hosted, hosted
    keep = u < torch.tensor(0.7).float().double()
    assert torch.equal(mask.cpu(), keep)
    assert out.stride() == x.stride()
    assert out.shape == shape
    scale = torch.tensor(1 / 0.7, dtype=torch.float32 if dtype != torch.float64 else dtype)
    want = ((x.to(scale.dtype) * keep) * scale).to(dtype)
    torch.testing.assert_close(out.cpu(), want, rtol=0, atol=0, equal_nan=True)
    # p = 1 drops everything, as CPU (NaN * 0 stays NaN)
    out1, mask1 = torch.native_dropout(x.to(D), 1.0, True)
    assert not mask1.cpu().any()
    torch.testing.assert_close(out1.cpu(), torch.native_dropout(x, 1.0, True)[0], rtol=0, atol=0, equal_nan=True)


def test_attention_dropout_mask_matches_the_bernoulli_draws():
    m = torch.empty(2, 3, 5, 7, device=D)
    torch.ops.aten._fill_mem_eff_dropout_mask_(m, 0.25, 21, 8)
    g = torch.Generator(device=D)
    g.manual_seed(21)
    g.set_offset(8)
    u = torch.empty(2, 3, 5, 7, device=D).uniform_(generator=g).cpu()
    assert torch.equal(m.cpu(), (u < torch.tensor(0.75).float()).float())


@pytest.mark.parametrize(
    "dtype, fill",
    [
        (torch.complex64, lambda t: t.bernoulli_(0.5)),
        (torch.complex64, lambda t: t.bernoulli_(torch.full(t.shape, 0.5, device=t.device))),
        (torch.int64, lambda t: t.exponential_()),
        (torch.bool, lambda t: t.exponential_()),
        (torch.int32, lambda t: t.cauchy_()),
        (torch.int32, lambda t: t.log_normal_()),
        (torch.complex64, lambda t: t.log_normal_()),
        (torch.bool, lambda t: t.geometric_(0.5)),
        (torch.float32, lambda t: torch.native_dropout(t, 1.5, True)),
        (torch.int64, lambda t: torch.native_dropout(t, 0.5, True)),
        (torch.bool, lambda t: torch.native_dropout(t, 0.5, True)),
        # an expanded self: one memory location for several elements
        (torch.float32, lambda t: t[:1].expand(8).uniform_()),
        (torch.float32, lambda t: t[:1].expand(8).normal_()),
        (torch.int64, lambda t: t[:1].expand(8).random_()),
        (torch.float32, lambda t: t[:1].expand(8).exponential_()),
        (torch.float32, lambda t: t[:1].expand(8).bernoulli_(0.5)),
        (torch.float32, lambda t: torch.bernoulli(t, out=t[:1].expand(8))),
    ],
)
def test_sampling_errors_match_cpu(dtype, fill):
    with pytest.raises(Exception) as cpu:
        fill(torch.ones(8, dtype=dtype))
    with pytest.raises(type(cpu.value)) as ours:
        fill(torch.ones(8, dtype=dtype, device=D))
    assert str(ours.value).splitlines()[0] == str(cpu.value).splitlines()[0]


# ---------------------------------------------------------------- normal with tensor mean / std

@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_normal_tensor_mean_and_std(dtype):
    mean = torch.tensor([-3.0, 0.0, 2.0, 10.0], dtype=dtype).repeat(N // 4, 1)
    std = torch.tensor([0.5, 1.0, 2.0, 0.0], dtype=dtype).repeat(N // 4, 1)
    forms = {
        "Tensor_Tensor": lambda: torch.normal(mean.to(D), std.to(D)),
        "Tensor_float": lambda: torch.normal(mean.to(D), 2.0),
        "float_Tensor": lambda: torch.normal(1.5, std.to(D)),
        "Tensor_Tensor_out": lambda: torch.normal(mean.to(D), std.to(D), out=torch.empty(0, device=D, dtype=dtype)),
    }
    want_mean = {"Tensor_Tensor": mean[0], "Tensor_float": mean[0], "float_Tensor": torch.full((4,), 1.5),
                 "Tensor_Tensor_out": mean[0]}
    want_std = {"Tensor_Tensor": std[0], "Tensor_float": torch.full((4,), 2.0), "float_Tensor": std[0],
                "Tensor_Tensor_out": std[0]}
    for name, fn in forms.items():
        x = _native(lambda: _reproducible(fn))
        assert x.dtype == dtype and x.shape == mean.shape, name
        x = x.float()
        assert torch.allclose(x.mean(0), want_mean[name].float(), atol=0.05), (name, x.mean(0))
        assert torch.allclose(x.std(0), want_std[name].float(), rtol=0.03, atol=0.01), (name, x.std(0))


def test_normal_tensor_broadcast_and_errors():
    x = _native(lambda: torch.normal(torch.zeros(3, 1, device=D), torch.ones(1, 4, device=D)))
    assert x.shape == (3, 4)
    with pytest.raises(RuntimeError, match="std >= 0.0"):
        torch.normal(torch.zeros(3, device=D), torch.tensor([1.0, -1.0, 1.0], device=D))
    with pytest.raises(RuntimeError, match="std >= 0.0"):
        torch.normal(torch.zeros(3, device=D), -1.0)


# ---------------------------------------------------------------- multinomial

P = torch.tensor([0.1, 0.0, 0.6, 0.3])


def _freq(s, k):
    return torch.bincount(s.flatten(), minlength=k).double() / s.numel()


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_multinomial_with_replacement(dtype):
    p = (P * 7).to(dtype)  # unnormalized weights
    s = _native(lambda: _reproducible(lambda: torch.multinomial(p.to(D), N, replacement=True)))
    assert s.dtype == torch.int64 and s.shape == (N,)
    assert torch.allclose(_freq(s, 4), P.double(), atol=0.005)
    rows = torch.stack([P, P.flip(0)]).to(dtype)
    s2 = _native(lambda: torch.multinomial(rows.to(D), N // 2, replacement=True)).cpu()
    assert s2.shape == (2, N // 2)
    assert torch.allclose(_freq(s2[0], 4), P.double(), atol=0.01)
    assert torch.allclose(_freq(s2[1], 4), P.flip(0).double(), atol=0.01)


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_multinomial_without_replacement(dtype):
    n = 20_000
    rows = P.to(dtype).expand(n, 4).contiguous()
    one = _native(lambda: _reproducible(lambda: torch.multinomial(rows.to(D), 1)))
    assert one.shape == (n, 1)
    assert torch.allclose(_freq(one, 4), P.double(), atol=0.015)
    three = _native(lambda: torch.multinomial(rows.to(D), 3)).cpu()
    # three distinct categories per row, never the zero-probability one
    assert (three != 1).all()
    assert (three.sort(1).values == torch.tensor([0, 2, 3])).all()
    # the first draw follows p
    assert torch.allclose(_freq(three[:, 0], 4), P.double(), atol=0.015)


def test_multinomial_strided_views_and_float64():
    """a transposed p and a strided out (the C core's rs_multinomial reads
    and writes any strides), and float64 p: native where the device has
    fp64, else through the host, counted"""
    rows = torch.stack([P, P.flip(0)])
    pt = rows.t().contiguous().to(D).t()  # (2, 4) with strides (1, 2)
    big = torch.full((N // 4, 3), -1, dtype=torch.int64, device=D)
    out = big[:, 1:3].t()  # (2, N // 4), strides (1, 3)
    _native(lambda: torch.multinomial(pt, N // 4, replacement=True, out=out))
    got = big.cpu()
    assert (got[:, 0] == -1).all()
    assert torch.allclose(_freq(got[:, 1], 4), P.double(), atol=0.02)
    assert torch.allclose(_freq(got[:, 2], 4), P.flip(0).double(), atol=0.02)
    three = _native(lambda: torch.multinomial(pt, 3)).cpu()
    assert (three != torch.tensor([[1], [2]])).all()
    torch.russet.reset_host_op_counts()
    s64 = torch.multinomial(rows.double().to(D), N // 4, replacement=True).cpu()
    assert torch.allclose(_freq(s64[0], 4), P.double(), atol=0.02)
    host = torch.russet.host_op_counts()
    assert ("aten::multinomial" in host) == (not torch.russet.get_device_properties().has_fp64), host


def test_multinomial_out_and_errors():
    out = torch.empty(0, dtype=torch.int64, device=D)
    r = _native(lambda: torch.multinomial(P.to(D), 5, replacement=True, out=out))
    assert r is out and out.shape == (5,)
    with pytest.raises(RuntimeError, match="without replacement"):
        torch.multinomial(P.to(D), 5)
    # the probabilities are checked on the device (as CUDA's device assert):
    # CPU's message at the next sync, no sync in the call itself
    bad = torch.tensor([0.5, -0.1], device=D)
    syncs = torch.russet.host_sync_count()
    r = torch.multinomial(bad, 1)
    assert torch.russet.host_sync_count() == syncs
    with pytest.raises(RuntimeError, match="probability tensor contains"):
        r.cpu()
    with pytest.raises(RuntimeError, match="probability tensor contains"):
        torch.multinomial(torch.tensor([0.5, float("inf")], device=D), 1).cpu()
    # CPU's messages with replacement (NaN fails its >= 0 check first)
    with pytest.raises(RuntimeError, match="entry < 0"):
        torch.multinomial(torch.tensor([0.5, float("nan")], device=D), 2, replacement=True).cpu()
    with pytest.raises(RuntimeError, match="infinity or NaN"):
        torch.multinomial(torch.tensor([0.5, float("inf")], device=D), 2, replacement=True).cpu()
    with pytest.raises(RuntimeError, match="sum of probabilities"):
        torch.multinomial(torch.zeros(3, device=D), 2, replacement=True).cpu()
    with pytest.raises(RuntimeError, match="sum of probabilities"):
        torch.multinomial(torch.zeros(2, 3, device=D), 1).cpu()
    # after the error the device works on
    assert torch.multinomial(P.to(D), 2).cpu().shape == (2,)
    with pytest.raises(RuntimeError, match="1 or 2 dim"):
        torch.multinomial(torch.ones(2, 2, 2, device=D), 1)
