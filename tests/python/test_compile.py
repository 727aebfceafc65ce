"""torch.compile on russet (issue 18; docs/compile.md): Inductor's generated
GLSL kernels against PyTorch's CPU and russet's eager ops, fusion counted,
training through compiled models, fallbacks, errors, torch.export."""

import copy
import os

import pytest
import torch
import torch.nn as nn
import torch.nn.functional as F

import russet.inductor as ri

D = "russet"


@pytest.fixture(autouse=True)
def fresh_dynamo():
    torch._dynamo.reset()
    torch._dynamo.utils.counters.clear()
    yield
    torch._dynamo.reset()


def generated():
    return ri.stats()["kernels"]


def compiled(fn, *args, **kw):
    """fn compiled, its result, and how many kernels the compile generated."""
    before = generated()
    out = torch.compile(fn, **kw)(*args)
    return out, generated() - before


def assert_matches_cpu(fn, *args, rtol=1e-5, atol=1e-5, **kw):
    out, n = compiled(fn, *args, **kw)
    ref = fn(*[a.cpu() if isinstance(a, torch.Tensor) else a for a in args])
    outs = out if isinstance(out, (tuple, list)) else (out,)
    refs = ref if isinstance(ref, (tuple, list)) else (ref,)
    for o, r in zip(outs, refs):
        assert o.device.type == D
        assert o.dtype == r.dtype and o.shape == r.shape
        torch.testing.assert_close(o.cpu(), r, rtol=rtol, atol=atol, equal_nan=True)
    return n


def test_a_chain_of_ten_pointwise_ops_is_one_kernel():
    def chain(x, y):
        z = x * y + 1
        z = z.relu().sin() * 2 - y
        z = torch.exp(-z.abs()) / (1 + y * y)
        return z.tanh() + x.sigmoid()

    x, y = torch.randn(3000, device=D), torch.randn(3000, device=D)
    assert assert_matches_cpu(chain, x, y) == 1


@pytest.mark.parametrize("n", [1, 255, 256, 1023, 1024, 1025, 4097])
def test_pointwise_invocations_cover_every_element(n):
    # an invocation handles several elements, a workgroup apart (kernel.py,
    # _elements_per_invocation): every element is written once, at any length,
    # static or dynamic, with each element's own index (arange) and value
    x = torch.randn(n, device=D)
    idx = torch.arange(n, device=D)
    fn = lambda x, i: x * 2 + i  # noqa: E731
    assert assert_matches_cpu(fn, x, idx) == 1
    torch._dynamo.reset()
    out = torch.compile(fn, dynamic=True)(x, idx)
    torch.testing.assert_close(out.cpu(), fn(x.cpu(), idx.cpu()))


@pytest.mark.parametrize(
    "fn",
    [
        lambda a: a.sum(1),
        lambda a: a.sum(),
        lambda a: a.mean(0),
        lambda a: a.amax(1),
        lambda a: a.amin(0),
        lambda a: a.argmax(1),
        lambda a: a.argmin(0),
        lambda a: a.var(1),
        lambda a: a.std(0, correction=0),
        lambda a: a.prod(1),
        lambda a: (a > 1).any(1),
        lambda a: (a > 0).sum(0),
        lambda a: torch.softmax(a, -1),
        lambda a: torch.log_softmax(a, 0),
        lambda a: F.layer_norm(a, (a.shape[-1],)),
        lambda a: a - a.mean(1, keepdim=True),
    ],
    ids=["sum1", "sum_all", "mean0", "amax", "amin", "argmax", "argmin", "var", "std", "prod", "any",
         "count", "softmax", "log_softmax", "layer_norm", "center"],
)
@pytest.mark.parametrize("layout", ["contiguous", "transposed"])
def test_reductions_match_cpu(fn, layout):
    a = torch.randn(33, 300, device=D)
    if layout == "transposed":
        a = torch.randn(300, 33, device=D).t()
    a[3, 7] = 2.5  # a tie for argmax/argmin along either dim is possible; CPU takes the first
    a[5, 7] = 2.5
    assert_matches_cpu(fn, a, rtol=2e-5, atol=2e-5)


def test_a_long_reduction_loops_over_its_row():
    a = torch.randn(200_003, device=D)
    assert_matches_cpu(lambda t: (t * 2).sum(), a, rtol=1e-4, atol=1e-3)
    assert_matches_cpu(lambda t: t.amax(), a)
    assert_matches_cpu(lambda t: t.argmin(), a)


def test_nan_propagates_through_max_and_argmax_as_on_cpu():
    a = torch.randn(4, 50, device=D)
    a[1, 10] = float("nan")
    a[2, 3] = float("nan")
    a[2, 30] = float("nan")
    assert_matches_cpu(lambda t: t.amax(1), a)
    assert_matches_cpu(lambda t: t.argmax(1), a)
    assert_matches_cpu(lambda t: t.argmin(1), a)


@pytest.mark.parametrize("dtype", [torch.int8, torch.uint8, torch.int32, torch.int64])
def test_integer_arithmetic_wraps_and_divides_as_on_cpu(dtype):
    lo, hi = (0, 255) if dtype == torch.uint8 else (-100, 100)
    a = torch.randint(lo, hi, (1000,), dtype=dtype, device=D)
    b = torch.randint(1, 20, (1000,), dtype=dtype, device=D)
    assert_matches_cpu(lambda x, y: (x * 3 + y) // y % 7 - x.abs(), a, b)
    assert_matches_cpu(lambda x, y: torch.maximum(x, y) * 100 + 7, a, b)  # wraps in int8/uint8
    assert_matches_cpu(lambda x: x.sum(), a)


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
def test_reduced_floats_store_as_on_cpu(dtype):
    # Inductor computes in float32 and rounds once on the store: compare
    # with CPU's float32 result rounded to the dtype
    a = torch.randn(2000, device=D).to(dtype)
    out, n = compiled(lambda t: (t.float() * 1.5 + 0.25).exp().to(dtype), a)
    ref = (a.cpu().float() * 1.5 + 0.25).exp().to(dtype)
    assert n == 1 and out.dtype == dtype
    torch.testing.assert_close(out.cpu(), ref, rtol=0, atol=0)


def test_casts_bool_and_where():
    a = torch.randn(500, device=D) * 300
    assert_matches_cpu(lambda t: t.to(torch.int8).to(torch.float32), a)
    assert_matches_cpu(lambda t: torch.where(t > 0, t, t * 0.1), a)
    assert_matches_cpu(lambda t: (t > 0) & (t < 100) | (t == 0), a)
    assert_matches_cpu(lambda t: (t > 0).float() - (t < 0).to(torch.int32), a)


def test_views_broadcasts_and_indexing():
    a = torch.randn(37, 64, device=D)
    b = torch.randn(64, device=D)
    idx = torch.tensor([0, 5, 36, -1, -37], device=D)
    assert_matches_cpu(lambda x, y: (x + y).tanh() * y, a, b)
    assert_matches_cpu(lambda x: (x.t() * 2).contiguous(), a)
    assert_matches_cpu(lambda x: x[::3, 1::2] + 1, a)
    assert_matches_cpu(lambda x, i: x[i] * 2, a, idx)
    assert_matches_cpu(lambda x: torch.cat([x, x * 2], 1), a)
    # masks from 64-bit comparisons of 32-bit indices (lavapipe once got them wrong)
    assert_matches_cpu(lambda x, y: torch.cat([x * 1, y[:37, :32] * 2, x[:, :16] + 1], -1), a, a.t().contiguous())
    assert_matches_cpu(lambda x: F.pad(x, (2, 3, 1, 0), value=-1.0), a)
    assert_matches_cpu(lambda x: x.view(37, 8, 8).permute(2, 0, 1).sum(1), a)


def test_empty_and_scalar_tensors():
    assert_matches_cpu(lambda x: x * 2 + 1, torch.randn(0, 5, device=D))
    assert_matches_cpu(lambda x: x.sum(1), torch.randn(0, 5, device=D))
    assert_matches_cpu(lambda x: (x * 2).exp(), torch.tensor(1.5, device=D))


@pytest.mark.parametrize(
    "scalar", [torch.tensor(3.0), torch.tensor(-2), torch.tensor(True), torch.tensor(0.1, dtype=torch.float64)],
    ids=["float32", "int64", "bool", "float64"],
)
def test_cpu_scalar_tensors_are_read_by_value(scalar):
    # a 0-d CPU tensor beside russet tensors (PyTorch lets device ops read
    # it): the kernel gets its value, never its host address
    x = torch.randn(100, device=D)
    out = torch.compile(lambda a, b: a * b + 1)(x, scalar)
    torch.testing.assert_close(out.cpu(), x.cpu() * scalar + 1)
    out = torch.compile(lambda a, b: (a * b).sum())(x, scalar)
    torch.testing.assert_close(out.cpu(), (x.cpu() * scalar).sum(), rtol=1e-5, atol=1e-5)


def test_atomic_adds_scatter_and_accumulate():
    src = torch.randn(1000, device=D)
    idx = torch.randint(0, 10, (1000,), device=D)
    out, _ = compiled(lambda s, i: torch.zeros(10, device=D).scatter_add(0, i, s), src, idx)
    torch.testing.assert_close(out.cpu(), torch.zeros(10).scatter_add(0, idx.cpu(), src.cpu()), rtol=1e-4, atol=1e-4)
    out, _ = compiled(lambda s, i: torch.zeros(10, device=D).index_put((i,), s, accumulate=True), src, idx)
    torch.testing.assert_close(out.cpu(), torch.zeros(10).index_put((idx.cpu(),), src.cpu(), accumulate=True),
                               rtol=1e-4, atol=1e-4)


def test_dynamic_shapes_reuse_one_graph():
    fn = torch.compile(lambda x: (x * 2).sum(0) + x.mean(0), dynamic=True)
    for n in (7, 19, 130):
        x = torch.randn(n, 33, device=D)
        torch.testing.assert_close(fn(x).cpu(), (x.cpu() * 2).sum(0) + x.cpu().mean(0), rtol=1e-5, atol=1e-5)
    assert torch._dynamo.utils.counters["stats"]["unique_graphs"] == 1


def test_ops_without_generated_code_run_as_russet_ops():
    # sort and cumsum have no generated kernel here (no SORT or SCAN
    # feature): Inductor calls russet's eager ops around the fused code
    a = torch.randn(300, device=D)
    assert_matches_cpu(lambda t: t.sort().values * 2 + 1, a)
    assert_matches_cpu(lambda t: t.cumsum(0).relu(), a, rtol=1e-4, atol=1e-4)
    x, w = torch.randn(8, 32, device=D), torch.randn(16, 32, device=D)
    assert_matches_cpu(lambda p, q: F.gelu(p @ q.t()) + 1, x, w, rtol=1e-4, atol=1e-4)


def test_dropout_keeps_the_expected_fraction_and_scales():
    x = torch.ones(20_000, device=D)
    out = torch.compile(lambda t: F.dropout(t, 0.3, training=True))(x).cpu()
    kept = out != 0
    assert 0.68 < kept.float().mean().item() < 0.72
    torch.testing.assert_close(out[kept], torch.full_like(out[kept], 1 / 0.7))


def test_an_index_out_of_range_raises_not_crashes():
    a = torch.randn(10, device=D)
    i = torch.tensor([3, 12], device=D)
    with pytest.raises(RuntimeError):
        out = torch.compile(lambda x, j: x[j] + 1)(a, i)
        out.cpu()
    # inside a reduction kernel (a gather feeding a sum): the workgroup's
    # barriers still meet (no early return), the error comes at the sync,
    # and the device works on
    m = torch.randn(6, 40, device=D)
    rows = torch.tensor([1, 7, 2], device=D)
    with pytest.raises(RuntimeError):
        torch.compile(lambda x, r: (x[r] * 2).sum(1))(m, rows).cpu()
    good = torch.tensor([1, 5, 2], device=D)
    out = torch.compile(lambda x, r: (x[r] * 2).sum(1))(m, good)
    torch.testing.assert_close(out.cpu(), (m.cpu()[good.cpu()] * 2).sum(1))


def _one_hot_decomposition_asserts():
    """torch 2.13's one_hot decomposition checks the range with
    _assert_async; older ones (2.11, on the H200) do not, and the compiled
    one_hot then has no assertion to raise (as on CUDA)"""
    import inspect

    from torch._decomp import decompositions

    fn = getattr(decompositions, "one_hot", None)
    return fn is not None and "_assert_async" in inspect.getsource(fn)


@pytest.mark.skipif(not _one_hot_decomposition_asserts(), reason="this torch's one_hot compiles without a range check")
def test_device_asserts_of_generated_code_raise_at_the_sync():
    # one_hot's range check is an assertion in the generated kernel
    t = torch.tensor([1, 5, 32], device=D)
    assert_matches_cpu(lambda v: F.one_hot(v, 33).float().sum(0), t)
    torch._dynamo.reset()
    with pytest.raises(RuntimeError, match="device-side assertion"):
        torch.compile(lambda v: F.one_hot(v, 33).float().sum(0))(torch.tensor([1, 40], device=D)).cpu()
    assert torch.ones(3, device=D).sum().item() == 3  # the device works on


def test_float64_without_fp64_is_refused_clearly():
    if torch.russet.get_device_properties().has_fp64:
        a = torch.randn(10, 7, dtype=torch.float64, device=D)
        assert_matches_cpu(lambda t: (t * 2).exp().sum(0), a, rtol=1e-12, atol=1e-12)
        return
    a = torch.randn(10, dtype=torch.float64, device=D)
    with pytest.raises(Exception, match="no fp64"):
        torch.compile(lambda t: (t * 2).exp())(a)


class Block(nn.Module):
    def __init__(self, d=32, h=4):
        super().__init__()
        self.ln1, self.ln2 = nn.LayerNorm(d), nn.LayerNorm(d)
        self.qkv, self.proj = nn.Linear(d, 3 * d), nn.Linear(d, d)
        self.mlp = nn.Sequential(nn.Linear(d, 4 * d), nn.GELU(), nn.Linear(4 * d, d))
        self.head = nn.Linear(d, 10)
        self.h = h

    def forward(self, x):
        b, t, c = x.shape
        q, k, v = self.qkv(self.ln1(x)).split(c, 2)
        q, k, v = (z.view(b, t, self.h, c // self.h).transpose(1, 2) for z in (q, k, v))
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True).transpose(1, 2).reshape(b, t, c)
        x = x + self.proj(y)
        x = x + self.mlp(self.ln2(x))
        return self.head(x.mean(1))


MODELS = {
    "mlp": (lambda: nn.Sequential(nn.Linear(32, 64), nn.ReLU(), nn.Linear(64, 10)), (16, 32)),
    "cnn": (
        lambda: nn.Sequential(
            nn.Conv2d(3, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(), nn.MaxPool2d(2),
            nn.Flatten(), nn.Linear(8 * 8 * 8, 10),
        ),
        (4, 3, 16, 16),
    ),
    "transformer_block": (Block, (2, 16, 32)),
}


@pytest.mark.parametrize("name", list(MODELS))
def test_training_compiled_matches_eager(name):
    make, shape = MODELS[name]
    torch.manual_seed(0)
    base = make()
    x = torch.randn(*shape)
    y = torch.randint(0, 10, (shape[0],))
    losses = {}
    for mode in ("eager", "compiled"):
        m = copy.deepcopy(base).to(D)
        opt = torch.optim.SGD(m.parameters(), lr=0.05)
        fwd = torch.compile(m) if mode == "compiled" else m
        losses[mode] = []
        for _ in range(3):
            opt.zero_grad()
            loss = F.cross_entropy(fwd(x.to(D)), y.to(D))
            loss.backward()
            opt.step()
            losses[mode].append(loss.item())
    torch.testing.assert_close(losses["compiled"], losses["eager"], rtol=1e-5, atol=1e-6)


def test_backward_through_compile_gives_eager_gradients():
    w = torch.randn(20, 30, device=D, requires_grad=True)
    x = torch.randn(30, 8, device=D)

    def f(w, x):
        return (torch.tanh(w @ x) * w.sum(1, keepdim=True)).softmax(0).pow(2).sum()

    g = torch.autograd.grad(torch.compile(f)(w, x), w)[0]
    g_ref = torch.autograd.grad(f(w, x), w)[0]
    torch.testing.assert_close(g.cpu(), g_ref.cpu(), rtol=1e-4, atol=1e-6)


def test_export_runs_on_russet():
    torch.manual_seed(0)
    m = nn.Sequential(nn.Linear(12, 24), nn.GELU(), nn.LayerNorm(24), nn.Linear(24, 3)).to(D)
    x = torch.randn(5, 12, device=D)
    ep = torch.export.export(m, (x,))
    torch.testing.assert_close(ep.module()(x).cpu(), m(x).cpu())


# a kernel as the codegen writes them: words ARG(0) error flag, ARG(1) site,
# then the tensors (out, in), a CPU scalar's value, n, and ARG(NW - 1)
_WORDS_KERNEL = """#version 460
#extension GL_EXT_buffer_reference : require
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
layout(local_size_x = 64) in;
layout(buffer_reference, std430) buffer F32 { float v[]; };
#if NW > 16
layout(buffer_reference, std430, buffer_reference_align = 8) buffer RsArgs { uint64_t w[NW]; };
layout(push_constant) uniform Push { uint64_t args; } pc;
#define ARG(i) RsArgs(pc.args).w[i]
#else
layout(push_constant) uniform Push { uint64_t w[NW]; } pc;
#define ARG(i) pc.w[i]
#endif
void main() {
    uint64_t i = uint64_t(gl_GlobalInvocationID.y) * uint64_t(gl_NumWorkGroups.x * 64u) + gl_GlobalInvocationID.x;
    if (i >= ARG(5)) return;
    F32(ARG(2)).v[uint(i)] = F32(ARG(3)).v[uint(i)] * uintBitsToFloat(uint(ARG(4))) + float(int64_t(ARG(NW - 1)));
}
"""


@pytest.mark.parametrize("words", [7, 20], ids=["push-constants", "arena"])
def test_the_launcher_passes_words_and_orders_by_addresses(words):
    """GlslKernel's one C call (rs_dispatch_words): tensors by address (a
    view into its allocation), a CPU scalar by value, integers (a negative
    one), past 16 words through the arena; a chain of launches ordered by
    the allocations the C core finds from the addresses; a tensor on the
    CPU refused, naming its argument"""
    from russet.inductor.launch import GlslKernel

    k = GlslKernel(f"words{words}", _WORDS_KERNEL.replace("NW", str(words)), n_tensors=3, n_out=1, wg=64)
    base = torch.arange(1100.0, device=D)
    x, y = base[100:], torch.zeros(1000, device=D)
    three = torch.tensor(3.0)
    extra = [0] * (words - 7)
    k(y, x, three, 1000, *extra, -2, threads=1000)
    k(x, y, three, 1000, *extra, -2, threads=1000)  # reads what the first wrote
    want = (torch.arange(100.0, 1100.0) * 3 - 2) * 3 - 2
    torch.testing.assert_close(x.cpu(), want)
    assert torch.equal(base[:100].cpu(), torch.arange(100.0))  # the rest of the allocation untouched
    k(y, x, three, 1000, *extra, -2, threads=0)  # nothing to do
    with pytest.raises(RuntimeError, match="argument 1"):
        k(y, torch.zeros(1000), three, 1000, *extra, -2, threads=1000)


def test_graph_cache_key_names_the_profile():
    """Inductor's graph cache is one directory for every process of a
    machine: code generated under the native profile (doubles) must not be
    reused under apple (no fp64), so the key carries the device's profile"""
    import subprocess
    import sys

    code = ("import torch, russet; from russet.inductor import _source_version; "
            "print(_source_version().uuid())")
    keys = {}
    for prof in ("apple", "native"):
        env = dict(os.environ, RUSSET_PROFILE=prof)
        keys[prof] = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                                    check=True).stdout.strip()
    assert keys["apple"] != keys["native"] and "|apple|fp64=False" in keys["apple"], keys
