"""layer_norm, batch_norm (training and evaluation, running statistics),
group_norm and instance_norm against CPU: OpInfo samples for every dtype CPU
supports (native but float64 under apple), gradients through autograd, and
the normalization engine's paths (src/engine/norm.c): channels_last kept,
rows split into chunks, model-sized shapes."""

import pytest
import torch
import torch.nn.functional as F
from torch.testing import assert_close

from opinfo_check import check_opinfo, host_free

D = "russet"

OPS = [("nn.functional.layer_norm", ""), ("native_layer_norm", ""), ("nn.functional.batch_norm", ""),
       ("native_batch_norm", ""), ("_native_batch_norm_legit", ""), ("_batch_norm_with_update", ""),
       ("renorm", ""),
       ("nn.functional.group_norm", ""), ("nn.functional.instance_norm", ""), ("nn.functional.rms_norm", "")]


@pytest.mark.parametrize("name,variant", OPS, ids=[n for n, _ in OPS])
def test_matches_cpu(name, variant):
    check_opinfo(name, variant)


def grads_match(fn, *tensors, tol=None):
    cpu = [t.detach().clone().requires_grad_() for t in tensors]
    dev = [t.detach().to(D).requires_grad_() for t in tensors]
    yc, yd = fn(*cpu), host_free(lambda: fn(*dev))
    assert_close(yd.detach().cpu(), yc.detach(), **(tol or {}))
    g = torch.randn(yc.shape, dtype=yc.dtype)
    yc.backward(g)
    host_free(lambda: yd.backward(g.to(D)))
    for c, d in zip(cpu, dev):
        assert_close(d.grad.cpu(), c.grad, **(tol or {}))


@pytest.mark.parametrize("shape,norm", [((6, 10), [10]), ((2, 3, 4, 5), [4, 5]), ((7, 300), [300])])
def test_layer_norm_gradients(shape, norm):
    x = torch.randn(shape)
    w, b = torch.randn(norm), torch.randn(norm)
    grads_match(lambda x, w, b: F.layer_norm(x, norm, w, b, 1e-5), x, w, b, tol=dict(rtol=1e-4, atol=1e-5))
    grads_match(lambda x: F.layer_norm(x, norm), x, tol=dict(rtol=1e-4, atol=1e-5))


def test_layer_norm_half_with_float_parameters_gives_float_statistics():
    x = torch.randn(4, 8).half()
    w, b = torch.ones(8), torch.zeros(8)
    out, mean, rstd = torch.native_layer_norm(x.to(D), [8], w.to(D), b.to(D), 1e-5)
    co, cm, cr = torch.native_layer_norm(x, [8], w, b, 1e-5)
    assert (out.dtype, mean.dtype, rstd.dtype) == (co.dtype, cm.dtype, cr.dtype)
    assert_close(out.cpu(), co)
    assert_close(rstd.cpu(), cr)


@pytest.mark.parametrize("training", [True, False])
def test_batch_norm_module_training_and_eval(training):
    torch.manual_seed(0)
    x = torch.randn(4, 3, 5, 5) * 3 + 1
    m = torch.nn.BatchNorm2d(3)
    with torch.no_grad():
        m.weight.uniform_(0.5, 2)
        m.bias.uniform_(-1, 1)
    md = torch.nn.BatchNorm2d(3).to(D)
    md.load_state_dict(m.state_dict())
    m.train(training)
    md.train(training)
    for _ in range(2):
        xc, xd = x.clone().requires_grad_(), x.to(D).requires_grad_()
        yc, yd = m(xc), host_free(lambda: md(xd))
        assert_close(yd.detach().cpu(), yc.detach(), rtol=1e-5, atol=1e-5)
        yc.square().sum().backward()
        host_free(lambda: yd.square().sum().backward())
        assert_close(xd.grad.cpu(), xc.grad, rtol=1e-4, atol=1e-4)
        assert_close(md.weight.grad.cpu(), m.weight.grad, rtol=1e-4, atol=1e-3)
        assert_close(md.bias.grad.cpu(), m.bias.grad, rtol=1e-4, atol=1e-3)
    assert_close(md.running_mean.cpu(), m.running_mean)
    assert_close(md.running_var.cpu(), m.running_var)
    assert int(md.num_batches_tracked) == int(m.num_batches_tracked)


def test_group_norm_gradients():
    x = torch.randn(2, 6, 4)
    w, b = torch.randn(6), torch.randn(6)
    grads_match(lambda x, w, b: F.group_norm(x, 3, w, b), x, w, b, tol=dict(rtol=1e-4, atol=1e-5))


def test_bad_input_raises_like_cpu():
    d = torch.randn(3, 4, device=D)
    with pytest.raises(RuntimeError, match="normalized_shape"):
        F.layer_norm(d, [5])
    with pytest.raises(ValueError, match="more than 1 value per channel"):
        F.batch_norm(torch.randn(1, 3, device=D), None, None, training=True)


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16, torch.float32])
@pytest.mark.parametrize("shape", [(1, 25, 5), (5, 5, 5), (3, 2, 3, 4), (2, 8, 40)])
def test_batch_norm_statistics_bitwise_as_cpu(dtype, shape):
    # CPU saves mean/invstd in the parameters' dtype and transforms with those
    # rounded values (its bfloat16 kernel also rounds the sum of squares):
    # russet reproduces the bits for float16/bfloat16 (float32: CPU sums in
    # double, so within float32 rounding)
    torch.manual_seed(sum(shape))
    c = shape[1]
    x = (torch.randn(shape) * 3 + 1).to(dtype)
    w, b = torch.randn(c).to(dtype), torch.randn(c).to(dtype)
    rm, rv = torch.randn(c).to(dtype), torch.rand(c).to(dtype) + 0.5
    rmd, rvd = rm.to(D), rv.to(D)
    exp = torch.native_batch_norm(x, w, b, rm, rv, True, 0.1, 0.6)
    got = host_free(lambda: torch.native_batch_norm(x.to(D), w.to(D), b.to(D), rmd, rvd, True, 0.1, 0.6))
    exact = dict(rtol=0, atol=0) if dtype != torch.float32 else {}
    for g, e in zip(got, exp):
        assert g.dtype == e.dtype
        assert_close(g.cpu(), e, **exact)
    # the running statistics (bfloat16: CPU's bfloat16 arithmetic; float16:
    # float, rounded once)
    assert_close(rmd.cpu(), rm, **exact)
    assert_close(rvd.cpu(), rv, **exact)


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16, torch.float32])
@pytest.mark.parametrize("affine", [True, False])
def test_batch_norm_evaluation_as_cpu(dtype, affine):
    # evaluation: alpha = weight / sqrt(running_var + eps), beta = bias -
    # running_mean alpha per channel in one launch (BN_PARAMS), then y = x
    # alpha + beta: CPU's bits for float16/bfloat16, float32 within rounding;
    # the backward's invstd and scale the same way
    torch.manual_seed(7)
    c = 6
    x = (torch.randn(3, c, 4, 5) * 2 + 0.5).to(dtype)
    w, b = (torch.randn(c).to(dtype), torch.randn(c).to(dtype)) if affine else (None, None)
    rm, rv = torch.randn(c).to(dtype), torch.rand(c).to(dtype) + 0.25
    dev = lambda t: None if t is None else t.to(D)
    exp = torch.native_batch_norm(x, w, b, rm, rv, False, 0.1, 1e-3)
    got = host_free(lambda: torch.native_batch_norm(x.to(D), dev(w), dev(b), rm.to(D), rv.to(D), False, 0.1, 1e-3))
    exact = dict(rtol=0, atol=0) if dtype != torch.float32 else {}
    assert_close(got[0].cpu(), exp[0], **exact)
    g = torch.randn(x.shape).to(dtype)
    mask = [True, affine, affine]
    exp = torch.ops.aten.native_batch_norm_backward(g, x, w, rm, rv, None, None, False, 1e-3, mask)
    got = host_free(lambda: torch.ops.aten.native_batch_norm_backward(g.to(D), x.to(D), dev(w), rm.to(D), rv.to(D),
                                                                      None, None, False, 1e-3, mask))
    for gg, e in zip(got, exp):
        if e is not None:
            assert_close(gg.cpu(), e, **({} if dtype == torch.float32 else dict(rtol=1e-2, atol=1e-2)))


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
@pytest.mark.parametrize("memory_format", [torch.contiguous_format, torch.channels_last])
def test_batch_norm_half_input_with_float_parameters(dtype, memory_format):
    # autocast's batch norm: a float16/bfloat16 input (a convolution's
    # output) with float32 weight, bias and running statistics; the
    # statistics, the running update and the transform are one kernel's
    # (rs_norm.bn_train), float32 throughout as CPU
    torch.manual_seed(2)
    x = (torch.randn(4, 6, 5, 7) * 2 + 0.5).to(dtype).to(memory_format=memory_format)
    w, b, rm, rv = torch.randn(6), torch.randn(6), torch.randn(6), torch.rand(6) + 0.5
    rmd, rvd = rm.to(D), rv.to(D)
    exp = torch.native_batch_norm(x, w, b, rm, rv, True, 0.2, 1e-5)
    got = host_free(lambda: torch.native_batch_norm(x.to(D), w.to(D), b.to(D), rmd, rvd, True, 0.2, 1e-5))
    for g, e in zip(got, exp):
        assert g.dtype == e.dtype
        assert_close(g.cpu(), e)
    assert_close(rmd.cpu(), rm)
    assert_close(rvd.cpu(), rv)


def test_batch_norm_out_legit_and_with_update_forms():
    torch.manual_seed(1)
    x, w, b = torch.randn(4, 3, 6), torch.randn(3), torch.randn(3)
    rm, rv = torch.zeros(3), torch.ones(3)
    rmd, rvd = rm.to(D), rv.to(D)
    # out= forms write into (and resize) the given tensors
    outs_c = [torch.empty(0) for _ in range(3)]
    outs_d = [torch.empty(0, device=D) for _ in range(3)]
    torch.native_batch_norm(x, w, b, rm, rv, True, 0.1, 1e-5, out=tuple(outs_c))
    host_free(lambda: torch.native_batch_norm(x.to(D), w.to(D), b.to(D), rmd, rvd, True, 0.1, 1e-5,
                                              out=tuple(outs_d)))
    for g, e in zip(outs_d, outs_c):
        assert_close(g.cpu(), e)
    assert_close(rmd.cpu(), rm)
    assert_close(rvd.cpu(), rv)
    # the no-stats form (instance norm without running statistics)
    exp = torch.ops.aten._native_batch_norm_legit.no_stats(x, w, b, True, 0.1, 1e-5)
    got = host_free(lambda: torch.ops.aten._native_batch_norm_legit.no_stats(x.to(D), w.to(D), b.to(D), True,
                                                                               0.1, 1e-5))
    for g, e in zip(got, exp):
        assert_close(g.cpu(), e)
    # _batch_norm_with_update and its backward (batch_norm_backward)
    xc, xd = x.clone().requires_grad_(), x.to(D).requires_grad_()
    yc = torch.ops.aten._batch_norm_with_update(xc, w, b, rm, rv, 0.1, 1e-5)
    yd = host_free(lambda: torch.ops.aten._batch_norm_with_update(xd, w.to(D), b.to(D), rmd, rvd, 0.1, 1e-5))
    assert yd[3].dtype == yc[3].dtype and yd[3].numel() == yc[3].numel() == 0
    for g, e in zip(yd[:3], yc[:3]):
        assert_close(g.detach().cpu(), e.detach())
    gc = torch.ops.aten.batch_norm_backward(yc[0].detach(), x, w, rm, rv, yc[1], yc[2], True, 1e-5,
                                            [True, True, True], yc[3])
    gd = host_free(lambda: torch.ops.aten.batch_norm_backward(yd[0].detach(), xd.detach(), w.to(D), rmd, rvd,
                                                              yd[1], yd[2], True, 1e-5, [True, True, True], yd[3]))
    for g, e in zip(gd, gc):
        assert_close(g.cpu(), e, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16, torch.float32, torch.complex64])
def test_renorm_inplace_out_and_layouts(dtype):
    torch.manual_seed(2)
    x = (torch.randn(4, 6, 3) * 2).to(dtype)
    for p, dim, maxnorm in ((2, 0, 1.0), (1, 1, 0.5), (float("inf"), -1, 2.0), (3.5, 2, 100.0)):
        exp = torch.renorm(x, p, dim, maxnorm)
        assert_close(host_free(lambda: torch.renorm(x.to(D), p, dim, maxnorm)).cpu(), exp)
        assert_close(host_free(lambda: torch.renorm(x.transpose(0, 2).to(D), p, dim, maxnorm)).cpu(),
                     torch.renorm(x.transpose(0, 2), p, dim, maxnorm))
        y = x.to(D)
        host_free(lambda: y.renorm_(p, dim, maxnorm))
        assert_close(y.cpu(), exp)
        out = torch.empty(0, dtype=dtype, device=D)
        host_free(lambda: torch.renorm(x.to(D), p, dim, maxnorm, out=out))
        assert_close(out.cpu(), exp)


@pytest.mark.parametrize("memory_format", [torch.contiguous_format, torch.channels_last])
@pytest.mark.parametrize("training", [True, False])
@pytest.mark.parametrize("c", [4, 40])
def test_batch_norm_channels_last_and_chunked_rows(memory_format, training, c):
    # (8, c, 64, 64): 32768 elements a channel, split into chunks whose
    # partial statistics are merged; channels_last stays channels_last (its
    # channels reduced side by side, 32 a workgroup: 40 is a full tile and
    # a partial one)
    torch.manual_seed(3)
    x = (torch.randn(8, c, 64, 64) * 2 + 3).to(memory_format=memory_format)
    m = torch.nn.BatchNorm2d(c)
    with torch.no_grad():
        m.weight.uniform_(0.5, 2)
        m.bias.uniform_(-1, 1)
        m.running_mean.uniform_(-1, 1)
        m.running_var.uniform_(0.5, 2)
    md = torch.nn.BatchNorm2d(c).to(D)
    md.load_state_dict(m.state_dict())
    m.train(training)
    md.train(training)
    m64 = torch.nn.BatchNorm2d(c).double()
    m64.load_state_dict(m.state_dict())
    m64.train(training)
    xc, xd, x64 = x.clone().requires_grad_(), x.to(D).requires_grad_(), x.double().requires_grad_()
    yc, yd, y64 = m(xc), host_free(lambda: md(xd)), m64(x64)
    assert yd.is_contiguous(memory_format=memory_format)

    def no_worse_than_cpu(got, cpu, exact, tol):
        # within tol of the float64 result, or no further from it than
        # CPU's float32 kernel is (CPU's channels_last statistics are less
        # exact: 1.8e-5 where russet's are 2.9e-6 at c = 40)
        err = (got.cpu().double() - exact).abs().max().item()
        cpu_err = (cpu.double() - exact).abs().max().item()
        assert err <= max(cpu_err, tol), (err, cpu_err)

    no_worse_than_cpu(yd.detach(), yc.detach(), y64.detach(), 1e-5)
    g = torch.randn(yc.shape).to(memory_format=memory_format)
    yc.backward(g)
    y64.backward(g.double())
    host_free(lambda: yd.backward(g.to(D)))
    no_worse_than_cpu(xd.grad, xc.grad, x64.grad, 1e-4)
    assert_close(md.weight.grad.cpu(), m.weight.grad, rtol=1e-4, atol=1e-2)
    assert_close(md.bias.grad.cpu(), m.bias.grad, rtol=1e-4, atol=1e-2)
    assert_close(md.running_mean.cpu(), m.running_mean)
    assert_close(md.running_var.cpu(), m.running_var)


@pytest.mark.parametrize("shape,offset", [((3, 5, 36, 37), 0), ((3, 5, 36, 37), 1), ((3, 5, 36, 36), 4),
                                          ((2, 3, 7, 9), 0), ((4, 2, 100, 101), 0), ((3, 8, 36, 37), 0),
                                          ((3, 40, 6, 7), 0), ((3, 8, 36, 37), 1), ((3, 12, 2, 3), 0)])
@pytest.mark.parametrize("channels_last", [False, True])
def test_batch_norm_statistics_as_words_and_not(shape, offset, channels_last):
    # float32 statistics load 16-byte words where a channel's elements come
    # in aligned runs of 4 (36 x 37 = 1332 a plane; chunks rounded to a
    # multiple of 4), and in channels_last where the channels are a multiple
    # of 4 (a word: 4 channels' element; 40 channels: a full tile of 32 and
    # a partial one); a storage offset of 1 element, planes of 63 elements,
    # 5 channels, or 18 elements a channel (one lane in order) take the
    # element path
    torch.manual_seed(7)
    n = torch.Size(shape).numel()
    base = torch.randn(offset + n) * 3 + 2
    if channels_last:
        nb, c, h, w = shape
        x = base[offset:].view(nb, h, w, c).permute(0, 3, 1, 2)
        xd = base.to(D)[offset:].view(nb, h, w, c).permute(0, 3, 1, 2)
        assert xd.is_contiguous(memory_format=torch.channels_last)
    else:
        x = base[offset:].view(shape)
        xd = base.to(D)[offset:].view(shape)
    assert xd.storage_offset() == offset
    rm, rv = torch.zeros(shape[1]), torch.ones(shape[1])
    rmd, rvd = rm.to(D), rv.to(D)
    got = host_free(lambda: F.batch_norm(xd, rmd, rvd, training=True, momentum=0.1))
    rm64, rv64 = rm.double(), rv.double()
    want = F.batch_norm(x.double(), rm64, rv64, training=True, momentum=0.1)
    assert_close(got.cpu().double(), want, rtol=1e-5, atol=1e-5)
    assert_close(rmd.cpu().double(), rm64, rtol=1e-5, atol=1e-6)
    assert_close(rvd.cpu().double(), rv64, rtol=1e-5, atol=1e-6)


def test_layer_norm_transformer_sized():
    # a GPT block's layer norm: (8, 128, 768), weight and bias
    torch.manual_seed(4)
    x = torch.randn(8, 128, 768)
    w, b = torch.randn(768), torch.randn(768)
    grads_match(lambda x, w, b: F.layer_norm(x, [768], w, b), x, w, b, tol=dict(rtol=1e-4, atol=1e-3))


@pytest.mark.parametrize("offset", [0, 1, 4])
@pytest.mark.parametrize("affine", [True, False])
def test_layer_and_rms_norm_rows_as_words_and_not(offset, affine):
    # float32 rows of a multiple of 4 run the forward on 16-byte words
    # where every vector is 16-byte aligned; a storage offset of 1 element
    # leaves the input 4 bytes off (the element path), 4 elements 16 off
    torch.manual_seed(6)
    for n in (768, 12, 5000):
        base = torch.randn(offset + 9 * n)
        x = base[offset:].view(9, n)
        w, b = (torch.randn(n), torch.randn(n)) if affine else (None, None)
        xd = base.to(D)[offset:].view(9, n)
        assert xd.storage_offset() == offset
        wd, bd = (w.to(D), b.to(D)) if affine else (None, None)
        got = host_free(lambda: F.layer_norm(xd, [n], wd, bd))
        assert_close(got.cpu(), F.layer_norm(x, [n], w, b), rtol=1e-5, atol=1e-5)
        got = host_free(lambda: F.rms_norm(xd, [n], wd))
        assert_close(got.cpu(), F.rms_norm(x, [n], w), rtol=1e-5, atol=1e-5)


def test_layer_norm_bfloat16_gradients_sum_in_float32():
    # bfloat16: russet sums the weight and bias gradients over the rows in
    # float32 and rounds once; CPU's kernel sums in bfloat16 (off by 3.6 on
    # sums near 100 here), so the reference is CPU's float32 result rounded
    torch.manual_seed(4)
    x, g = torch.randn(8, 128, 768).bfloat16(), torch.randn(8, 128, 768).bfloat16()
    w, b = torch.randn(768).bfloat16(), torch.randn(768).bfloat16()
    _, mean, rstd = torch.native_layer_norm(x, [768], w, b, 1e-5)
    want = torch.ops.aten.native_layer_norm_backward(g.float(), x.float(), [768], mean.float(), rstd.float(),
                                                     w.float(), b.float(), [True, True, True])
    got = host_free(lambda: torch.ops.aten.native_layer_norm_backward(
        g.to(D), x.to(D), [768], mean.to(D), rstd.to(D), w.to(D), b.to(D), [True, True, True]))
    for gd, wf in zip(got, want):
        assert gd.dtype == torch.bfloat16
        assert_close(gd.cpu(), wf.bfloat16())


def test_layer_norm_large_mean_is_stable():
    # Welford: a common offset of 1000 (float32 spacing 6e-5, std 1) does not
    # cancel the variance away, as E[x^2] - E[x]^2 would
    x = torch.randn(16, 4096) + 1e3
    want = F.layer_norm(x.double(), [4096]).float()
    assert_close(host_free(lambda: F.layer_norm(x.to(D), [4096])).cpu(), want, rtol=1e-3, atol=1e-3)


@pytest.mark.parametrize("affine", [True, False])
def test_group_norm_model_sized_forward_and_backward(affine):
    # a diffusion U-Net's GroupNorm(8, 32) on (4, 32, 16, 16): the engine's
    # statistics per (n, group), the backward's per-(n, c) sums in one pass
    torch.manual_seed(5)
    x = torch.randn(4, 32, 16, 16) * 2 + 1
    w, b = torch.randn(32), torch.randn(32)
    if affine:
        grads_match(lambda x, w, b: F.group_norm(x, 8, w, b), x, w, b, tol=dict(rtol=1e-4, atol=1e-4))
    else:
        grads_match(lambda x: F.group_norm(x, 8), x, tol=dict(rtol=1e-4, atol=1e-4))


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16, torch.float16])
@pytest.mark.parametrize("with_weight", [True, False])
def test_rms_norm_runs_fused_forward_and_backward(dtype, with_weight):
    # F.rms_norm reaches _fused_rms_norm (registered for russet) and its
    # autograd _fused_rms_norm_backward: two engine passes each way, no
    # composition of pow/mean/rsqrt/mul; eps None is the opmath epsilon
    torch.manual_seed(6)
    x = (torch.randn(4, 64, 512) * 2).to(dtype)
    w = torch.randn(512).to(dtype)
    fn = (lambda x, w: F.rms_norm(x, [512], w)) if with_weight else (lambda x: F.rms_norm(x, [512], eps=1e-6))
    args = (x, w) if with_weight else (x,)
    tol = dict(rtol=1e-4, atol=1e-4) if dtype == torch.float32 else None
    grads_match(fn, *args, tol=tol)
    # the fused op, not its composite
    seen = []

    class Watch(torch.utils._python_dispatch.TorchDispatchMode):
        def __torch_dispatch__(self, f, types, a=(), k=None):
            seen.append(str(f))
            return f(*a, **(k or {}))

    dev_args = [t.to(D) for t in args]
    with Watch():
        fn(*dev_args)
    assert seen == ["aten._fused_rms_norm.default"], seen


@pytest.mark.parametrize("shape, normalized", [((3, 5, 8), [8]), ((3, 5, 8), [5, 8]), ((8,), [8]), ((4, 0), [0])])
def test_rms_norm_backward_where_the_engine_cannot_run_it(shape, normalized):
    # float64 under the apple profile (no fp64) and empty rows: CPU has no
    # _fused_rms_norm_backward kernel to run through host execution, so the
    # backward composes ATen ops (each native or host on its own)
    torch.manual_seed(7)
    dtype = torch.float64 if shape[-1] else torch.float32
    x = torch.randn(shape, dtype=dtype)
    w = torch.randn(normalized, dtype=dtype)
    g = torch.randn(shape, dtype=dtype)
    xc, wc = x.clone().requires_grad_(), w.clone().requires_grad_()
    xd, wd = x.to(D).requires_grad_(), w.to(D).requires_grad_()
    F.rms_norm(xc, normalized, wc).backward(g)
    F.rms_norm(xd, normalized, wd).backward(g.to(D))
    tol = dict(rtol=1e-12, atol=1e-12) if dtype == torch.float64 else None
    assert_close(xd.grad.cpu(), xc.grad, **(tol or {}))
    assert_close(wd.grad.cpu(), wc.grad, **(tol or {}))
    # without a weight
    xd.grad = None
    xc.grad = None
    F.rms_norm(xc, normalized).backward(g)
    F.rms_norm(xd, normalized).backward(g.to(D))
    assert_close(xd.grad.cpu(), xc.grad, **(tol or {}))


def test_layer_norm_one_element_gradients_are_exact():
    # normalized_shape (1,): the variance is 0, x - mean is exactly 0, so the
    # input and weight gradients are exactly 0 (CPU's x * rstd - mean * rstd
    # leaves about 2e-5 of rounding: tests/conformance/known_failures.json)
    x, w, b = torch.tensor([-4.3228]), torch.tensor([-8.4784]), torch.tensor([-1.7658])
    xd, wd, bd = (t.to(D).requires_grad_() for t in (x, w, b))
    y = F.layer_norm(xd, [1], wd, bd)
    gx, gw, gb = torch.autograd.grad(y, (xd, wd, bd), torch.full((1,), 0.7, device=D))
    assert gx.cpu().item() == 0 and gw.cpu().item() == 0 and gb.cpu().item() == pytest.approx(0.7)
    assert y.cpu().item() == pytest.approx(-1.7658)


def test_backward_with_a_gradient_of_another_dtype_raises_like_cpu():
    # the engine reads the gradient in the input's dtype: a float32 gradient
    # for a bfloat16 input (never from autograd) goes to the host, which
    # raises CPU's error
    x, w, b = torch.randn(6, 16).bfloat16(), torch.randn(16).bfloat16(), torch.randn(16).bfloat16()
    g = torch.randn(6, 16)
    _, mean, rstd = torch.native_layer_norm(x, [16], w, b, 1e-5)
    args = [g, x, [16], mean, rstd, w, b, [True, True, True]]
    with pytest.raises(RuntimeError, match="expected scalar type"):
        torch.ops.aten.native_layer_norm_backward(*args)
    with pytest.raises(RuntimeError, match="expected scalar type"):
        torch.ops.aten.native_layer_norm_backward(*[a.to(D) if isinstance(a, torch.Tensor) else a for a in args])


def test_a_parameter_on_another_device_is_a_device_error():
    # as CUDA: never a host pointer read as device memory
    x = torch.randn(2, 4, 5, 5, device=D)
    w, b, rm, rv = torch.randn(4), torch.randn(4), torch.zeros(4), torch.ones(4)
    for fn in (lambda: F.layer_norm(x, [5], torch.randn(5), torch.randn(5)),
               lambda: F.rms_norm(x, [5], torch.randn(5)),
               lambda: F.group_norm(x, 2, w, b),
               lambda: F.batch_norm(x, rm, rv, w, b, training=False),
               lambda: F.batch_norm(x, rm.to(D), rv.to(D), w, b.to(D), training=True)):
        with pytest.raises(RuntimeError, match="same device"):
            fn()


def test_parameters_of_another_dtype_raise_like_cpu():
    # CPU takes the input's dtype, or float32 beside float16/bfloat16; russet
    # converted an integer weight silently (a fuzzer find)
    x = torch.randn(2, 4, 3)
    w, b = torch.ones(4, dtype=torch.long), torch.zeros(4)
    calls = [lambda t, w, b: F.group_norm(t, 2, w, b),
             lambda t, w, b: F.layer_norm(t.transpose(1, 2), (4,), w, b),
             lambda t, w, b: F.batch_norm(t, None, None, w, b, training=True)]
    for f in calls:
        with pytest.raises(RuntimeError):
            f(x, w, b)
        with pytest.raises(RuntimeError, match="mixed dtype"):
            f(x.to(D), w.to(D), b.to(D))
        # float32 parameters beside a bfloat16 input: allowed on both
        got = f(x.to(D).bfloat16(), w.float().to(D), b.to(D))
        want = f(x.bfloat16(), w.float(), b)
        assert_close(got.cpu().float(), want.float(), rtol=2e-2, atol=2e-2)


# ---------------------------------------------------------------- weight norm
# _weight_norm_interface and its backward (weight_norm over the first or
# the last dim): were host ops (found training HF's wav2vec2 from a config)

@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16], ids=str)
@pytest.mark.parametrize("shape, dim", [((8, 3, 5), 0), ((8, 3, 5), 2), ((6,), 0), ((4, 7), 1)])
def test_weight_norm_interface_like_cpu(dtype, shape, dim):
    v = torch.randn(shape, dtype=dtype)
    gs = [1] * len(shape)
    gs[dim] = shape[dim]
    g = torch.randn(gs, dtype=dtype)
    w, n = torch._weight_norm_interface(v, g, dim)
    wr, nr = host_free(lambda: torch._weight_norm_interface(v.to(D), g.to(D), dim))
    assert nr.dtype == n.dtype and nr.shape == n.shape and wr.dtype == w.dtype
    tol = dict(rtol=1e-5, atol=1e-6) if dtype == torch.float32 else dict(rtol=1e-2, atol=1e-2)
    assert_close(wr.cpu(), w, **tol)
    assert_close(nr.cpu(), n, **tol)
    # the backward against float64's, at least as accurate as CPU's (a 1-d v
    # normalizes each element by itself: its gradient is 0 up to rounding)
    gw = torch.randn(shape, dtype=dtype)
    bw = torch.ops.aten._weight_norm_interface_backward
    gv, gg = bw(gw, v, g, n, dim)
    gvr, ggr = host_free(lambda: bw(gw.to(D), v.to(D), g.to(D), nr, dim))
    assert gvr.dtype == gv.dtype and ggr.dtype == gg.dtype
    # Bound: twice CPU's error plus 4 float32 roundings of the terms' scale
    # (ATen's formula takes about six float32 steps; a GPU contracts and
    # orders them its own way: the H200 measured 2.2 of them). bfloat16's
    # own rounding is in CPU's error too; computing in bfloat16 throughout
    # (the mistake this catches) costs far more.
    ref = bw(gw.double(), v.double(), g.double(), n.double(), dim)
    scale = (gw.double().abs() * (g.double() / n.double()).abs()).max().item()
    eps = torch.finfo(torch.float32).eps * scale
    for got, cpu, want in zip((gvr.cpu(), ggr.cpu()), (gv, gg), ref):
        err_cpu = (cpu.double() - want).abs().max().item()
        err = (got.double() - want).abs().max().item()
        assert err <= 2 * err_cpu + 4 * eps, (err, err_cpu, eps)


def test_weight_norm_conv_trains_like_cpu():
    torch.manual_seed(0)
    conv = torch.nn.utils.parametrizations.weight_norm(torch.nn.Conv1d(4, 6, 5, padding=2), dim=2)
    conv_r = torch.nn.utils.parametrizations.weight_norm(torch.nn.Conv1d(4, 6, 5, padding=2), dim=2)
    conv_r.load_state_dict(conv.state_dict())
    conv_r.to(D)
    x = torch.randn(2, 4, 16)
    y = conv(x)
    y.square().sum().backward()
    yr = host_free(lambda: conv_r(x.to(D)))
    host_free(lambda: yr.square().sum().backward())
    assert_close(yr.cpu(), y, rtol=1e-5, atol=1e-5)
    for p, pr in zip(conv.parameters(), conv_r.parameters()):
        assert_close(pr.grad.cpu(), p.grad, rtol=1e-4, atol=1e-5)


def test_weight_norm_errors_like_cpu():
    v = torch.randn(4, 3, 5)
    with pytest.raises(RuntimeError, match="first or last dim"):
        torch._weight_norm_interface(v.to(D), torch.randn(1, 3, 1, device=D), 1)
    with pytest.raises(RuntimeError, match="same device"):
        torch._weight_norm_interface(v.to(D), torch.randn(4, 1, 1), 0)
