"""Fused scaled-dot-product attention (src/torch/ops/attention.cpp on the C
core's attention engine): F.scaled_dot_product_attention picks russet's
`overrideable` backend wherever the engine computes the call (dropout below
1, no mask gradient), and the result and the gradients of q, k and v match
CPU's: causal, boolean and additive masks that broadcast, grouped-query
attention, odd lengths, float32/float16/bfloat16 (float64 natively where the
device has fp64), and rows that are all masked. Memory stays O(L + S)."""

import pytest
import torch
import torch.nn.functional as F
from torch.testing import assert_close

from opinfo_check import as_accurate_as_cpu, host_free

D = "russet"
TOL = {torch.float32: dict(rtol=2e-5, atol=2e-5), torch.float64: dict(rtol=1e-10, atol=1e-10)}


def ops_seen(fn):
    seen = []

    class Watch(torch.utils._python_dispatch.TorchDispatchMode):
        def __torch_dispatch__(self, f, types, a=(), k=None):
            seen.append(str(f))
            return f(*a, **(k or {}))

    with Watch():
        fn()
    return seen


def compare(q, k, v, dtype, **kw):
    """forward and backward on russet against CPU: float32 and float64 to a
    tight tolerance; float16/bfloat16 as accurate as CPU's own computation in
    that dtype, both measured against float32"""
    low = dtype in (torch.float16, torch.bfloat16)
    ref_dt = torch.float32 if low else dtype

    def run(dev, dt):
        ts = [t.to(dtype).to(dt).to(dev).requires_grad_() for t in (q, k, v)]
        kws = {n: (a.to(dt).to(dev) if isinstance(a, torch.Tensor) and a.is_floating_point() else
                   a.to(dev) if isinstance(a, torch.Tensor) else a) for n, a in kw.items()}
        y = F.scaled_dot_product_attention(*ts, **kws)
        torch.manual_seed(3)
        g = torch.randn(y.shape).to(dtype).to(dt).to(dev)
        return y, torch.autograd.grad(y, ts, g)

    yc, gc = run("cpu", ref_dt)
    yd, gd = host_free(lambda: run(D, dtype))
    assert yd.dtype == dtype
    if not low:
        assert_close(yd.detach().cpu(), yc.detach(), **TOL[dtype])
        for name, a, b in zip("qkv", gd, gc):
            assert_close(a.cpu(), b, **TOL[dtype], msg=lambda m: f"grad {name}: {m}")
        return
    yl, gl = run("cpu", dtype)
    as_accurate_as_cpu(yd.detach().cpu(), yl.detach(), yc.detach(), "out")
    for name, a, l, b in zip("qkv", gd, gl, gc):
        as_accurate_as_cpu(a.cpu(), l, b, f"grad {name}")


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.bfloat16])
@pytest.mark.parametrize("case", ["plain", "causal", "causal-more-keys", "causal-more-rows", "bool-mask", "additive-mask",
                                  "gqa", "gqa-causal-mask", "long-head", "long-causal", "wide-head", "strided"])
def test_matches_cpu_forward_and_backward(dtype, case):
    torch.manual_seed(0)
    b, h, l, s, e = 2, 3, 19, 23, 32
    kw, hk, ev = {}, h, e
    if case == "causal":
        s = l
        kw["is_causal"] = True
    if case in ("causal-more-keys", "causal-more-rows"):  # keys no row sees; rows that see every key
        l, s = (19, 23) if case == "causal-more-keys" else (23, 19)
        kw["is_causal"] = True
    if case == "gqa-causal-mask":
        h, hk = 6, 2
        kw["enable_gqa"] = True
        kw["attn_mask"] = torch.rand(b, 1, l, s) > 0.4
    if case == "bool-mask":
        kw["attn_mask"] = torch.rand(l, s) > 0.3  # broadcast over batch and heads
    if case == "additive-mask":
        kw["attn_mask"] = torch.randn(b, 1, l, s)
    if case == "gqa":
        h, hk = 4, 2
        kw["enable_gqa"] = True
    if case == "long-head":
        e, ev = 130, 72
        kw["scale"] = 0.3
    if case == "long-causal":  # several workgroups of rows and several key blocks, skipped where causal
        b, h, hk, l, s, e, ev = 1, 2, 2, 150, 150, 64, 64
        kw["is_causal"] = True
    if case == "wide-head":  # 256 dims: the most lanes a row, the fewest rows a block
        b, h, hk, l, s, e, ev = 1, 1, 1, 70, 90, 256, 200
        kw["attn_mask"] = torch.rand(l, s) > 0.2
    q, k, v = torch.randn(b, h, l, e), torch.randn(b, hk, s, e), torch.randn(b, hk, s, ev)
    if case == "strided":  # (B, L, H, E) layouts seen as (B, H, L, E), as a model's head split makes them
        q = torch.randn(b, l, h, e).transpose(1, 2)
        k = torch.randn(b, s, e, hk).permute(0, 3, 1, 2)
    compare(q, k, v, dtype, **kw)


_SPLIT_SCRIPT = r"""
import torch, torch.nn.functional as F, russet, sys
sys.path.insert(0, "tests/python")
from test_attention import compare
torch.manual_seed(4)
for b, h, hk, l, s, kw in [(2, 4, 2, 9, 11, dict(enable_gqa=True)), (3, 2, 2, 10, 10, dict(is_causal=True)),
                           (2, 2, 1, 7, 12, dict(attn_mask=torch.rand(7, 12) > 0.3, enable_gqa=True))]:
    q, k, v = torch.randn(b, h, l, 16), torch.randn(b, hk, s, 16), torch.randn(b, hk, s, 8)
    for dtype in (torch.float32, torch.bfloat16):
        compare(q, k, v, dtype, **kw)
print("ok")
"""


@pytest.mark.parametrize("budget", ["200", "1000"])
def test_backward_splits_rows_and_batches_like_one_block(budget):
    """the backward's blocks: a budget of 200 bytes leaves one query row of
    one (batch, head) pair a block, 1000 a few rows of several pairs; the
    gradients must not change (RUSSET_ATTENTION_BLOCK_BYTES shrinks the
    128 MiB that real shapes get)"""
    import os
    import subprocess
    import sys
    env = dict(os.environ, RUSSET_ATTENTION_BLOCK_BYTES=budget)
    r = subprocess.run([sys.executable, "-c", _SPLIT_SCRIPT], env=env, capture_output=True, text=True, timeout=600)
    assert r.returncode == 0 and r.stdout.strip().endswith("ok"), r.stdout + r.stderr


_BLOCKS_FORWARD_SCRIPT = r"""
import torch, russet, sys
sys.path.insert(0, "tests/python")
import test_attention as t
cases = ["plain", "causal", "causal-more-keys", "causal-more-rows", "bool-mask", "additive-mask", "gqa",
         "gqa-causal-mask", "long-head", "long-causal", "wide-head", "strided"]
for dtype in (torch.float16, torch.bfloat16):
    for case in cases:
        t.test_matches_cpu_forward_and_backward(dtype, case)
    # a row that sees no key: out 0 and lse -inf; the others' lse as CPU's
    torch.manual_seed(1)
    q, k, v = (torch.randn(1, 2, 5, 8).to(dtype) for _ in range(3))
    mask = torch.ones(5, 5, dtype=torch.bool)
    mask[2] = False
    add = torch.zeros(5, 5).masked_fill(~mask, float("-inf")).to(dtype)
    r = torch.ops.aten._scaled_dot_product_fused_attention_overrideable(q.to("russet"), k.to("russet"),
                                                                      v.to("russet"), attn_bias=add.to("russet"))
    out, lse = r[0].cpu(), r[1].cpu()
    assert out.dtype == dtype and (out[:, :, 2] == 0).all(), out
    s = (q.float() @ k.float().transpose(-1, -2)) / 8 ** 0.5 + add.float()
    want = torch.logsumexp(s, -1)
    assert torch.isneginf(lse[:, :, 2]).all(), lse
    keep = [0, 1, 3, 4]
    torch.testing.assert_close(lse[:, :, keep], want[:, :, keep], rtol=0, atol=1e-5)
    torch.testing.assert_close(out[:, :, keep].float(), (torch.softmax(s, -1) @ v.float())[:, :, keep],
                               rtol=0, atol=2e-2)
    # 128 dims (the fused kernel's second size), several row and key blocks
    torch.manual_seed(2)
    t.compare(torch.randn(1, 2, 70, 128), torch.randn(1, 2, 90, 128), torch.randn(1, 2, 90, 100), dtype,
              is_causal=True)
    t.compare(torch.randn(2, 2, 130, 100), torch.randn(2, 1, 200, 100), torch.randn(2, 1, 200, 128), dtype,
              attn_mask=torch.randn(2, 1, 130, 200), enable_gqa=True)
    for case in t.DROPOUT_CASES:  # dropout (the fused kernels' _drop modules)
        t.check_dropout(dtype, case)
print("ok")
"""


@pytest.mark.parametrize("path, budget", [("blocks", ""), ("blocks", "1000"), ("fused", "")])
def test_forward_paths_match_cpu(path, budget):
    """float16/bfloat16's other forwards, over every case of
    test_matches_cpu_forward_and_backward, 128-dim heads and a row that
    sees no key: `blocks` (scores through the GEMM engine's float32 results
    of half-precision products, then p in the dtype and p v; forced here
    with RUSSET_ATTENTION_FORWARD=blocks, in one block and in blocks of a
    few rows) and `fused` (attention_coopmat_khr.comp and its backward,
    flash attention on cooperative matrices, RUSSET_ATTENTION_FORWARD=fused
    where the device has them: on the GPU runs, skipped on lavapipe)"""
    import os
    import subprocess
    import sys
    if path == "fused" and not torch.russet.get_device_properties().has_cooperative_matrix:
        pytest.skip("the fused forward needs cooperative matrices (never under the apple profile)")
    env = dict(os.environ, RUSSET_ATTENTION_FORWARD=path)
    if budget:
        env["RUSSET_ATTENTION_BLOCK_BYTES"] = budget
    r = subprocess.run([sys.executable, "-c", _BLOCKS_FORWARD_SCRIPT], env=env, capture_output=True, text=True,
                       timeout=900)
    assert r.returncode == 0 and r.stdout.strip().endswith("ok"), r.stdout + r.stderr


@pytest.mark.parametrize("wanted", ["q", "k", "v", "kv"])
def test_backward_computes_only_the_gradients_asked_for(wanted):
    torch.manual_seed(6)
    q, k, v = torch.randn(1, 2, 9, 8), torch.randn(1, 2, 10, 8), torch.randn(1, 2, 10, 8)
    cpu = [t.clone().requires_grad_(n in wanted) for n, t in zip("qkv", (q, k, v))]
    dev = [t.to(D).requires_grad_(n in wanted) for n, t in zip("qkv", (q, k, v))]
    F.scaled_dot_product_attention(*cpu, is_causal=True).sum().backward()
    host_free(lambda: F.scaled_dot_product_attention(*dev, is_causal=True).sum().backward())
    for n, a, b in zip("qkv", dev, cpu):
        assert (a.grad is None) == (n not in wanted)
        if a.grad is not None:
            assert_close(a.grad.cpu(), b.grad, rtol=2e-5, atol=2e-5)


def test_the_fused_backend_runs():
    q, k, v = (torch.randn(1, 2, 5, 8, device=D) for _ in range(3))
    seen = ops_seen(lambda: F.scaled_dot_product_attention(q, k, v, is_causal=True))
    assert "aten._scaled_dot_product_fused_attention_overrideable.default" in seen, seen
    # dropout takes it too; dropping everything and a mask that needs a
    # gradient take the math backend
    seen = ops_seen(lambda: F.scaled_dot_product_attention(q, k, v, dropout_p=0.5))
    assert "aten._scaled_dot_product_fused_attention_overrideable.default" in seen, seen
    seen = ops_seen(lambda: F.scaled_dot_product_attention(q, k, v, dropout_p=1.0))
    assert not any("overrideable" in s for s in seen), seen
    m = torch.randn(5, 5, device=D, requires_grad=True)
    seen = ops_seen(lambda: F.scaled_dot_product_attention(q, k, v, attn_mask=m))
    assert not any("overrideable" in s for s in seen), seen
    # and torch.nn.attention.sdpa_kernel can turn it off
    from torch.nn.attention import SDPBackend, sdpa_kernel
    with sdpa_kernel([SDPBackend.MATH]):
        seen = ops_seen(lambda: F.scaled_dot_product_attention(q, k, v))
    assert not any("overrideable" in s for s in seen), seen


def test_fully_masked_rows_and_empty_inputs_like_cpu():
    torch.manual_seed(1)
    q, k, v = torch.randn(1, 1, 4, 8), torch.randn(1, 1, 6, 8), torch.randn(1, 1, 6, 8)
    mask = torch.ones(4, 6, dtype=torch.bool)
    mask[2] = False  # row 2 sees nothing
    want = F.scaled_dot_product_attention(q, k, v, attn_mask=mask)
    got = host_free(lambda: F.scaled_dot_product_attention(q.to(D), k.to(D), v.to(D), attn_mask=mask.to(D)))
    assert_close(got.cpu(), want, rtol=2e-5, atol=2e-5)
    e = torch.randn(0, 2, 3, 8)
    assert F.scaled_dot_product_attention(e.to(D), e.to(D), e.to(D)).shape == (0, 2, 3, 8)


def test_float64_where_the_device_has_it():
    if torch.russet.get_device_properties().profile == "apple":
        pytest.skip("no float64 arithmetic under the apple profile")
    torch.manual_seed(2)
    q, k, v = torch.randn(1, 2, 9, 16), torch.randn(1, 2, 11, 16), torch.randn(1, 2, 11, 16)
    compare(q, k, v, torch.float64, attn_mask=torch.randn(9, 11))


def test_memory_is_linear_in_the_sequence():
    # 2048 x 2048 float32 scores would take 16 MiB; the forward keeps
    # partial sums of a block of rows against 16 staged keys, and the causal
    # backward blocks of 128 rows (two blocks of 1 MiB here)
    t = 2048
    q = torch.randn(1, 1, t, 16, device=D, requires_grad=True)
    torch.russet.synchronize()
    torch.russet.reset_peak_memory_stats()
    base = torch.russet.memory_allocated()
    y = F.scaled_dot_product_attention(q, q, q, is_causal=True)
    torch.russet.synchronize()
    assert torch.russet.max_memory_allocated() - base < 4 * t * t // 8
    assert y.shape == q.shape
    torch.russet.reset_peak_memory_stats()
    y.sum().backward()
    torch.russet.synchronize()
    assert torch.russet.max_memory_allocated() - base < 4 * t * t // 4


def test_bad_inputs_raise_like_cpu():
    q = torch.randn(1, 2, 4, 8, device=D)
    with pytest.raises(RuntimeError):
        F.scaled_dot_product_attention(q, torch.randn(1, 2, 4, 7, device=D), q)
    with pytest.raises(RuntimeError, match="device"):  # a CPU key or mask: never read as device memory
        F.scaled_dot_product_attention(q, torch.randn(1, 2, 4, 8), q)
    with pytest.raises(RuntimeError, match="device"):
        F.scaled_dot_product_attention(q, q, q, attn_mask=torch.zeros(4, 4))
    with pytest.raises(RuntimeError):  # both a mask and is_causal: ATen's error
        F.scaled_dot_product_attention(q, q, q, attn_mask=torch.ones(4, 4, dtype=torch.bool, device=D),
                                       is_causal=True)


@pytest.mark.parametrize("fused", [True, False], ids=["fused", "math"])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_dropout_backward_uses_the_forwards_mask(dtype, fused):
    """With dropout the values depend on the draw, so the conformance sweep
    checks only metadata there; here the gradients are checked against the
    mask the forward drew: with V the identity the output is the dropped-out
    probabilities themselves, from which dV and dQ follow exactly. On the
    fused engine and on ATen's math composition (sdpa_kernel(MATH)). Twice
    backward (create_graph) through the math path; the fused backward, like
    CUDA's flash and efficient kernels, has no derivative of its own, and
    says so (torch 2.15 sends 3-d inputs there too)."""
    from torch.nn.attention import SDPBackend, sdpa_kernel
    if fused and dtype == torch.float64 and torch.russet.get_device_properties().profile == "apple":
        pytest.skip("no float64 arithmetic under the apple profile: float64 takes the math path")
    torch.manual_seed(0)
    n = 6
    q = torch.randn(2, 1, 3, n, dtype=dtype)
    k = torch.randn(2, 1, n, n, dtype=dtype)
    v = torch.eye(n, dtype=dtype).expand(2, 1, n, n).contiguous()
    q, k, v = (t.to(D).requires_grad_() for t in (q, k, v))
    backends = [SDPBackend.OVERRIDEABLE] if fused else [SDPBackend.MATH]
    with sdpa_kernel(backends):
        out = F.scaled_dot_product_attention(q, k, v, dropout_p=0.5)
    assert ("Overrideable" in out.grad_fn.name()) == fused, out.grad_fn.name()
    g = torch.randn(out.shape, dtype=dtype).to(D)
    dq, dk, dv = torch.autograd.grad(out, (q, k, v), g, create_graph=True)
    pd = out.detach().cpu()  # P * mask / (1 - p)
    zeros = int((pd == 0).sum())
    assert 0 < zeros < pd.numel()  # some dropped, some kept
    gc, qc, kc = g.cpu(), q.detach().cpu(), k.detach().cpu()
    torch.testing.assert_close(dv.detach().cpu(), pd.transpose(-1, -2) @ gc)
    p = (qc @ kc.transpose(-1, -2) / n ** 0.5).softmax(-1)
    dp = gc * (pd != 0).to(dtype) / 0.5  # g @ V^T = g, through the mask
    ds = p * (dp - (dp * p).sum(-1, keepdim=True))
    torch.testing.assert_close(dq.detach().cpu(), ds @ kc / n ** 0.5)
    if fused:
        with pytest.raises(RuntimeError, match="derivative for .*_backward is not implemented"):
            torch.autograd.grad(dq.sum(), (q,))
        return
    # the second derivative exists and is finite (its values depend on the
    # same mask: sum(dq) is differentiable in q through P)
    (gg,) = torch.autograd.grad(dq.sum(), (q,))
    assert torch.isfinite(gg.cpu()).all()


def test_opinfo_samples_without_dropout_match_cpu():
    """The OpInfo's samples with dropout_p=0 (those with dropout are random
    and listed in known_failures.json), forward in every dtype and the
    float32 backward, compared strictly: the known-failures listing must not
    hide the deterministic samples (issue 23)"""
    from torch.testing._internal.common_methods_invocations import op_db
    op = next(o for o in op_db if o.name == "nn.functional.scaled_dot_product_attention")
    checked = 0
    for dtype in (torch.float32, torch.float16, torch.bfloat16):
        for s in op.sample_inputs("cpu", dtype, requires_grad=dtype == torch.float32):
            if s.kwargs.get("dropout_p", 0.0) > 0:
                continue
            args = [s.input] + list(s.args)
            kwd = {n: (a.to(D) if isinstance(a, torch.Tensor) else a) for n, a in s.kwargs.items()}
            ad = [a.detach().to(D).requires_grad_(a.requires_grad) for a in args]
            got = host_free(lambda: F.scaled_dot_product_attention(*ad, **kwd))
            cpu = F.scaled_dot_product_attention(*args, **s.kwargs)
            if dtype == torch.float32:
                assert_close(got.detach().cpu(), cpu.detach(), rtol=2e-5, atol=2e-5)
                # gradients: within 5x CPU's float32 error against float64
                # (PyTorch's default fudge for its fused kernels). A fixed
                # 2e-5 against CPU's float32 failed on the H200 by 2.4e-5
                # where dO . v and D = dO . out reach hundreds and cancel;
                # 2x failed there at 2.8x (8.5e-7 against CPU's 3.1e-7)
                # with the fused backward of then. The blocked backward
                # recomputes the softmax from its own scores and sums
                # dP * P over the keys, as the math backend does; on
                # lavapipe it is 0.3x to 2.8x CPU's error
                g = torch.randn(cpu.shape)
                gc = torch.autograd.grad(cpu, args, g)
                gd = host_free(lambda: torch.autograd.grad(got, ad, g.to(D)))
                a64 = [a.detach().double().requires_grad_() for a in args]
                k64 = {n: (a.double() if isinstance(a, torch.Tensor) and a.is_floating_point() else a)
                       for n, a in s.kwargs.items()}
                g64 = torch.autograd.grad(F.scaled_dot_product_attention(*a64, **k64), a64, g.double())
                for a, b, r in zip(gd, gc, g64):
                    as_accurate_as_cpu(a.cpu(), b, r, f"sample {checked} gradient", fudge=5)
            else:
                ref = F.scaled_dot_product_attention(*[a.detach().float() for a in args],
                                                     **{n: (a.float() if isinstance(a, torch.Tensor) and
                                                            a.is_floating_point() else a)
                                                        for n, a in s.kwargs.items()})
                as_accurate_as_cpu(got.cpu(), cpu, ref, f"sample {checked} {dtype}")
            checked += 1
    assert checked >= 30


@pytest.mark.parametrize("need_weights", [False, True])
def test_multihead_attention_forward_and_backward_like_cpu(need_weights):
    # deterministic (dropout configured but eval mode): the OpInfo's only
    # gradient sample trains with dropout, so its backward is never compared
    torch.manual_seed(4)
    mha = torch.nn.MultiheadAttention(32, 4, dropout=0.3, batch_first=True).eval()
    mhd = torch.nn.MultiheadAttention(32, 4, dropout=0.3, batch_first=True).to(D).eval()
    mhd.load_state_dict(mha.state_dict())
    x = torch.randn(2, 9, 32, requires_grad=True)
    xd = x.detach().to(D).requires_grad_()
    mask = torch.rand(9, 9) > 0.2
    mask.fill_diagonal_(True)
    y, w = mha(x, x, x, attn_mask=~mask, need_weights=need_weights)
    yd, wd = host_free(lambda: mhd(xd, xd, xd, attn_mask=~mask.to(D), need_weights=need_weights))
    assert_close(yd.detach().cpu(), y.detach(), rtol=2e-5, atol=2e-5)
    if need_weights:
        assert_close(wd.detach().cpu(), w.detach(), rtol=2e-5, atol=2e-5)
    g = torch.randn(y.shape)
    y.backward(g)
    host_free(lambda: yd.backward(g.to(D)))
    assert_close(xd.grad.cpu(), x.grad, rtol=2e-5, atol=2e-5)
    for (n, p), pd in zip(mha.named_parameters(), mhd.parameters()):
        assert_close(pd.grad.cpu(), p.grad, rtol=2e-5, atol=2e-5, msg=lambda m: f"{n}: {m}")


def test_backward_recomputes_the_softmax_without_the_logsumexp():
    """float32's backward (on blocks) takes its probabilities from its own scores (docs/attention.md):
    the logsumexp it is handed does not change the gradients"""
    torch.manual_seed(5)
    q, k, v = (torch.randn(1, 2, 7, 8, device=D) for _ in range(3))
    fwd = torch.ops.aten._scaled_dot_product_fused_attention_overrideable(q, k, v)
    out, lse = fwd[0], fwd[1]
    g = torch.randn(out.shape, device=D)

    def grads(l):
        return torch.ops.aten._scaled_dot_product_fused_attention_overrideable_backward(
            g, q, k, v, torch.zeros(7, 7, device=D), [True, True, True, False], out, l, fwd[2], fwd[3], fwd[4], fwd[5], 0.0,
            False, fwd[6], fwd[7])[:3]

    for a, b in zip(grads(lse), grads(torch.zeros_like(lse))):
        assert torch.equal(a.cpu(), b.cpu())


@pytest.mark.parametrize("is_causal", [False, True])
def test_dropout_keeps_each_probability_or_drops_it(is_causal):
    """SDPA with dropout (the math backend, russet's dropout kernel): with v
    the identity, the output is the dropped probability matrix. Each element
    is either 0 or CPU's probability / (1 - p); the dropped fraction is p
    within six standard deviations; the same seed gives the same mask, and
    the mask is the one the output with any v used, forward and backward."""
    torch.manual_seed(6)
    p, L, S = 0.3, 33, 40
    q, k = torch.randn(2, 3, L, 16), torch.randn(2, 3, S, 16)
    eye = torch.eye(S).expand(2, 3, S, S)
    probs = F.scaled_dot_product_attention(q, k, eye, is_causal=is_causal)
    qd, kd = q.to(D), k.to(D)

    def dropped(seed, vd):
        torch.manual_seed(seed)
        return F.scaled_dot_product_attention(qd, kd, vd, dropout_p=p, is_causal=is_causal)

    a = dropped(7, eye.to(D)).cpu()
    kept = a != 0
    assert_close(a[kept], (probs / (1 - p))[kept], rtol=2e-5, atol=1e-6)
    live = probs > 0  # causal: the masked keys are 0 either way
    frac = 1 - kept[live].double().mean().item()
    n = live.sum().item()
    assert abs(frac - p) < 6 * (p * (1 - p) / n) ** 0.5, (frac, n)
    assert torch.equal(dropped(7, eye.to(D)).cpu(), a)
    assert not torch.equal(dropped(8, eye.to(D)).cpu(), a)

    # any v, the same seed: the same mask, and the gradients of that product
    v = torch.randn(2, 3, S, 16)
    qg, kg, vg = (t.clone().requires_grad_() for t in (q, k, v))
    qdg, kdg, vdg = (t.to(D).requires_grad_() for t in (q, k, v))
    torch.manual_seed(7)
    y = F.scaled_dot_product_attention(qdg, kdg, vdg, dropout_p=p, is_causal=is_causal)
    mask = (kept / (1 - p)).float()
    sc = (qg @ kg.mT) / 16 ** 0.5
    if is_causal:
        sc = sc.masked_fill(~torch.ones(L, S, dtype=torch.bool).tril(), float("-inf"))
    ref = (sc.softmax(-1) * mask) @ vg
    assert_close(y.detach().cpu(), ref.detach(), rtol=2e-5, atol=2e-5)
    g = torch.randn(ref.shape)
    ref.backward(g)
    y.backward(g.to(D))
    for name, got, want in (("q", qdg, qg), ("k", kdg, kg), ("v", vdg, vg)):
        assert_close(got.grad.cpu(), want.grad, rtol=1e-4, atol=1e-5, msg=lambda m: f"d{name}: {m}")


def test_multihead_attention_dropout_is_unbiased_and_drops_p():
    """nn.MultiheadAttention training with dropout: the per-head weights are
    0 or the eval weights / (1 - p), a fraction p of them 0, and the output
    averaged over many draws (a batch of one repeated sequence) approaches
    the eval output within its standard error"""
    torch.manual_seed(9)
    p, B = 0.25, 256
    mha = torch.nn.MultiheadAttention(16, 2, dropout=p, batch_first=True)
    mhd = torch.nn.MultiheadAttention(16, 2, dropout=p, batch_first=True).to(D)
    mhd.load_state_dict(mha.state_dict())
    x = torch.randn(1, 6, 16).expand(B, 6, 16).contiguous()
    xd = x.to(D)
    mha.eval()
    y0, w0 = mha(x, x, x, need_weights=True, average_attn_weights=False)
    mhd.train()
    with torch.no_grad():
        y, w = mhd(xd, xd, xd, need_weights=True, average_attn_weights=False)
    y, w = y.cpu(), w.cpu()
    kept = w != 0
    assert_close(w[kept], (w0 / (1 - p)).expand_as(w)[kept], rtol=2e-5, atol=1e-6)
    frac = 1 - kept.double().mean().item()
    assert abs(frac - p) < 6 * (p * (1 - p) / w.numel()) ** 0.5, frac
    se = y.std(0) / B ** 0.5
    assert ((y.mean(0) - y0[0]).abs() <= 6 * se + 1e-5).all()
    assert not torch.equal(y[0], y[1])  # each row drew its own mask


# ---------------------------------------------------------------- dropout

DROPOUT_CASES = ["plain", "causal", "gqa-mask", "long-causal", "wide"]


def dropout_case(case):
    """(q, k, v, attn_bias, is_causal, scale) of a dropout case"""
    torch.manual_seed(11)
    b, h, hk, l, s, e = 2, 2, 2, 13, 17, 16
    bias, causal, scale = None, False, None
    if case == "causal":
        l = s = 17
        causal = True
    if case == "gqa-mask":
        h, hk = 4, 2
        bias = torch.randn(b, 1, l, s).masked_fill(torch.rand(b, 1, l, s) > 0.7, float("-inf"))
        bias = bias.expand(b, h, l, s)
        scale = 0.4
    # several row and key blocks of the fused kernels (64 a block at 64
    # dims, 32 keys at 128), rows whose flat index is not a multiple of 4
    # (S odd: a lane's keys start inside a Philox block)
    if case == "long-causal":
        b, h, hk, l, s, e = 1, 2, 1, 150, 150, 64
        causal = True
    if case == "wide":
        b, h, hk, l, s, e = 1, 2, 2, 70, 131, 128
    q, k, v = torch.randn(b, h, l, e), torch.randn(b, hk, s, e), torch.randn(b, hk, s, e)
    return q, k, v, bias, causal, scale


def dropout_reference(q, k, v, bias, causal, scale, keep, p, dt):
    """CPU's math with the given keep mask, in dt, and its gradients"""
    ts = [t.to(dt).requires_grad_() for t in (q, k, v)]
    g = q.shape[1] // k.shape[1]  # grouped-query heads: key head h / g
    kk, vv = ts[1].repeat_interleave(g, 1), ts[2].repeat_interleave(g, 1)
    sc = (ts[0] @ kk.transpose(-1, -2)) * (scale if scale is not None else q.shape[-1] ** -0.5)
    if bias is not None:
        sc = sc + bias.to(dt)
    if causal:
        sc = sc.masked_fill(torch.ones(sc.shape[-2:], dtype=torch.bool).triu(1), float("-inf"))
    attn = torch.softmax(sc, -1)
    y = (attn * keep.to(dt) / (1 - p)) @ vv
    return y, ts


def check_dropout(dtype, case, p=0.3):
    """the op on russet with dropout, then the mask of its seed and offset
    (_fill_mem_eff_dropout_mask_): out and the gradients of q, k and v
    against CPU's math with that mask"""
    q, k, v, bias, causal, scale = dropout_case(case)
    low = dtype in (torch.float16, torch.bfloat16)
    dev = [t.to(dtype).to(D).requires_grad_() for t in (q, k, v)]
    r = torch.ops.aten._scaled_dot_product_fused_attention_overrideable(
        *dev, bias.to(dtype).to(D) if bias is not None else None, p, causal, False, scale=scale)
    out, seed, offset = r[0], r[6], r[7]
    torch.manual_seed(5)
    g = torch.randn(out.shape).to(dtype)
    grads = torch.autograd.grad(out, dev, g.to(D))
    keep = torch.empty(q.shape[0], q.shape[1], q.shape[2], k.shape[2], device=D)
    torch.ops.aten._fill_mem_eff_dropout_mask_(keep, p, int(seed), int(offset))
    keep = keep.cpu()
    assert set(keep.unique().tolist()) <= {0.0, 1.0}
    frac = 1 - keep.mean().item()
    assert abs(frac - p) < 0.06, f"dropped {frac:.3f} of the probabilities, dropout_p {p}"
    qk = [t.to(dtype) for t in (q, k, v)]
    yc, tc = dropout_reference(*qk, bias, causal, scale, keep, p, torch.float64 if not low else torch.float32)
    gc = torch.autograd.grad(yc, tc, g.to(yc.dtype))
    if not low:
        assert_close(out.detach().cpu().double(), yc.detach(), rtol=1e-4, atol=1e-4)
        for name, a, b in zip("qkv", grads, gc):
            assert_close(a.cpu().double(), b, rtol=1e-4, atol=1e-4, msg=lambda m: f"grad {name}: {m}")
        return
    yl, tl = dropout_reference(*qk, bias, causal, scale, keep, p, dtype)
    gl = torch.autograd.grad(yl, tl, g)
    as_accurate_as_cpu(out.detach().cpu(), yl.detach(), yc.detach(), "out", fudge=4)
    for name, a, l, b in zip("qkv", grads, gl, gc):
        as_accurate_as_cpu(a.cpu(), l, b, f"grad {name}", fudge=4)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.bfloat16])
@pytest.mark.parametrize("case", DROPOUT_CASES)
def test_dropout_matches_cpu_with_the_same_mask(dtype, case):
    check_dropout(dtype, case)


def test_dropout_replays_under_the_seed_and_differs_between_calls():
    torch.manual_seed(0)
    q, k, v = (torch.randn(1, 2, 33, 8, device=D) for _ in range(3))
    torch.manual_seed(7)
    a = F.scaled_dot_product_attention(q, k, v, dropout_p=0.4).cpu()
    b = F.scaled_dot_product_attention(q, k, v, dropout_p=0.4).cpu()
    torch.manual_seed(7)
    c = F.scaled_dot_product_attention(q, k, v, dropout_p=0.4).cpu()
    assert torch.equal(a, c)
    assert not torch.equal(a, b)
    # a user's training step: the gradient flows through the same mask
    qg = q.clone().requires_grad_()
    torch.manual_seed(7)
    F.scaled_dot_product_attention(qg, k, v, dropout_p=0.4).sum().backward()
    assert qg.grad is not None and torch.isfinite(qg.grad.cpu()).all()


def test_dropout_bad_probability_is_a_clear_error():
    q = torch.randn(1, 1, 4, 8, device=D)
    with pytest.raises(RuntimeError, match=r"dropout_p must be in \[0, 1\)"):
        torch.ops.aten._scaled_dot_product_fused_attention_overrideable(q, q, q, None, -0.5)
    with pytest.raises(RuntimeError, match=r"dropout_p must be in \[0, 1\)"):
        torch.ops.aten._scaled_dot_product_fused_attention_overrideable(q, q, q, None, 1.0)


# _scaled_dot_product_flash_attention_for_cpu (and its backward) called by
# name, as OpInfo (torch 2.15) and programs traced on CPU do: the engine
# computes it with CPU's output layouts. CPU's own kernel assumes a dense last
# dimension without checking (a channels-last query gives uninitialized
# values there), so the reference is CPU's on the same values, laid out densely.
FLASH_CPU = torch.ops.aten._scaled_dot_product_flash_attention_for_cpu
FLASH_CPU_BW = torch.ops.aten._scaled_dot_product_flash_attention_for_cpu_backward


def flash_cpu_case(dtype, layout="contiguous", hq=4, hk=4, mask=None, is_causal=False, scale=None):
    torch.manual_seed(5)
    q = torch.randn(2, hq, 5, 8, dtype=dtype)
    k, v = torch.randn(2, hk, 7, 8, dtype=dtype), torch.randn(2, hk, 7, 8, dtype=dtype)
    m = None if mask is None else torch.randn(*mask, dtype=dtype)
    kw = dict(is_causal=is_causal, attn_mask=m, scale=scale)
    out, lse = FLASH_CPU(q, k, v, **kw)
    g = torch.randn_like(out)
    grads = FLASH_CPU_BW(g, q, k, v, out, lse, 0.0, is_causal, attn_mask=m, scale=scale)
    lay = {"contiguous": lambda t: t, "transposed": lambda t: t.transpose(1, 2).contiguous().transpose(1, 2),
           "channels-last": lambda t: t.contiguous(memory_format=torch.channels_last)}[layout]
    qd, kd, vd = (lay(t).to(D) for t in (q, k, v))
    md = None if m is None else m.to(D)
    run = lambda: (FLASH_CPU(qd, kd, vd, is_causal=is_causal, attn_mask=md, scale=scale),)  # noqa: E731
    native = dtype != torch.float64 or torch.russet.get_device_properties().profile != "apple"
    ((od, lsed),) = host_free(run) if native else run()
    gd = FLASH_CPU_BW(g.to(D), qd, kd, vd, od, lsed, 0.0, is_causal, attn_mask=md, scale=scale)
    tol = {torch.float32: dict(rtol=2e-5, atol=2e-5), torch.float64: dict(rtol=1e-10, atol=1e-10),
           torch.float16: dict(rtol=2e-3, atol=2e-3), torch.bfloat16: dict(rtol=2e-2, atol=2e-2)}[dtype]
    assert_close(od.cpu(), out, **tol)
    assert_close(lsed.cpu(), lse, **tol)
    for name, a, b in zip("qkv", gd, grads):
        assert_close(a.cpu(), b, **tol, msg=lambda msg: f"grad {name}: {msg}")
    # CPU's layouts: the output like the query, logsumexp (B, L, H)-ordered,
    # the gradients (B, L, H, E)-ordered
    assert od.stride() == torch.empty_like(lay(q)).stride()
    assert lsed.stride() == lse.stride() == (20, 1, 4)
    assert [t.stride() for t in gd] == [t.stride() for t in grads]


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.bfloat16, torch.float64])
@pytest.mark.parametrize("layout", ["contiguous", "transposed", "channels-last"])
def test_flash_attention_for_cpu_by_name_matches_cpu(dtype, layout):
    flash_cpu_case(dtype, layout)


@pytest.mark.parametrize("case", [dict(is_causal=True), dict(mask=(5, 7)), dict(mask=(2, 1, 5, 7), is_causal=True),
                                  dict(hk=2), dict(scale=0.3)])
def test_flash_attention_for_cpu_masks_causal_gqa_scale(case):
    flash_cpu_case(torch.float32, **case)


@pytest.mark.parametrize("masked", [False, True])
def test_flash_attention_for_cpu_through_autograd(masked):
    # autograd's formula calls the backward with an optional holding an
    # undefined mask when there is none
    torch.manual_seed(7)
    q, k, v = torch.randn(2, 3, 5, 8), torch.randn(2, 3, 6, 8), torch.randn(2, 3, 6, 8)
    m = torch.randn(5, 6) if masked else None

    def run(dev):
        ts = [t.to(dev).requires_grad_() for t in (q, k, v)]
        out, _ = FLASH_CPU(*ts, is_causal=not masked, attn_mask=None if m is None else m.to(dev))
        return out, torch.autograd.grad(out, ts, torch.ones_like(out))

    want, gwant = run("cpu")
    got, ggot = host_free(lambda: run(D))
    assert_close(got.detach().cpu(), want.detach(), rtol=2e-5, atol=2e-5)
    for name, a, b in zip("qkv", ggot, gwant):
        assert_close(a.cpu(), b, rtol=2e-5, atol=2e-5, msg=lambda msg: f"grad {name}: {msg}")


def test_flash_attention_for_cpu_without_rows_or_keys():
    # CPU's kernel divides by zero there (SIGFPE); russet answers as math:
    # no keys gives zeros and a logsumexp of -inf
    for dtype in (torch.float32, torch.float64):
        for rows, keys in ((0, 7), (5, 0)):
            q = torch.randn(2, 4, rows, 8, dtype=dtype, device=D)
            k = torch.randn(2, 4, keys, 8, dtype=dtype, device=D)
            out, lse = host_free(lambda: FLASH_CPU(q, k, k))
            assert out.shape == q.shape and lse.shape == (2, 4, rows)
            assert out.cpu().eq(0).all() and lse.cpu().eq(float("-inf")).all()
            grads = host_free(lambda: FLASH_CPU_BW(torch.ones_like(out), q, k, k, out, lse, 0.0, False))
            assert [t.shape for t in grads] == [q.shape, k.shape, k.shape]
            assert all(t.cpu().eq(0).all() for t in grads)
    # no heads: CPU's kernel divides by zero there too
    e = torch.randn(2, 0, 3, 8, device=D)
    out, lse = host_free(lambda: FLASH_CPU(e, e, e))
    assert out.shape == e.shape and lse.shape == (2, 0, 3)


def test_flash_attention_for_cpu_refuses_what_cpu_refuses():
    q = torch.randn(1, 2, 3, 8)
    for kw, args in ((dict(dropout_p=0.5), (q, q, q)), (dict(), (q[0], q[0], q[0])),
                     (dict(attn_mask=torch.ones(3, 3, dtype=torch.bool)), (q, q, q))):
        with pytest.raises(RuntimeError) as cpu:
            FLASH_CPU(*args, **kw)
        dev_kw = {n: (a.to(D) if isinstance(a, torch.Tensor) else a) for n, a in kw.items()}
        with pytest.raises(RuntimeError) as dev:
            FLASH_CPU(*(t.to(D) for t in args), **dev_kw)
        assert str(cpu.value).splitlines()[0] in str(dev.value)


@pytest.mark.parametrize("transform", ["vmap", "vmap-grad", "jvp"])
def test_torch_func_transforms_of_four_dimensional_attention(transform):
    # the fused op has no batching rule and no forward derivative: under a
    # torch.func transform the math backend runs
    torch.manual_seed(6)
    q, k, v = torch.randn(3, 2, 4, 5, 8), torch.randn(3, 2, 4, 6, 8), torch.randn(3, 2, 4, 6, 8)

    def f(q, k, v):
        return F.scaled_dot_product_attention(q, k, v, is_causal=True)

    fn = {"vmap": torch.vmap(f),
          "vmap-grad": torch.vmap(torch.func.grad(lambda q, k, v: f(q, k, v).sum(), argnums=(0, 1, 2))),
          "jvp": lambda q, k, v: torch.func.jvp(f, (q, k, v), (q.cos(), k.sin(), v))}[transform]
    want = fn(q, k, v)
    got = fn(q.to(D), k.to(D), v.to(D))
    for a, b in zip(got if isinstance(got, tuple) else (got,), want if isinstance(want, tuple) else (want,)):
        assert_close(a.cpu(), b, rtol=2e-5, atol=2e-5)
