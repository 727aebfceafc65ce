"""Max and average pooling natively (the C core's pooling engine,
src/engine/pool.c, through src/torch/ops/pool.cpp): every OpInfo of
max_pool1d/2d/3d, avg_pool1d/2d/3d and their adaptive forms for every dtype
CPU supports (float64 on the host under apple), the indices CPU returns (the
first maximum; the last NaN), ceil_mode, padding, dilation,
count_include_pad, divisor_override, the backward kernels (overlapping
windows add), channels_last kept, strided inputs, model-sized shapes, a bad
index and CPU's errors."""

import pytest
import torch
import torch.nn.functional as F
from torch.testing import assert_close

from opinfo_check import check_opinfo, host_free

D = "russet"
OPS = ["nn.functional.max_pool1d", "nn.functional.max_pool2d", "nn.functional.max_pool3d",
       "nn.functional.avg_pool1d", "nn.functional.avg_pool2d", "nn.functional.avg_pool3d",
       "max_pool2d_with_indices_backward"]


@pytest.mark.parametrize("name", OPS)
def test_opinfo_samples_match_cpu(name):
    check_opinfo(name)


def grads_match(fn, x):
    xc, xd = x.clone().requires_grad_(), x.to(D).requires_grad_()
    yc, yd = fn(xc), host_free(lambda: fn(xd))
    yc, yd = (yc if isinstance(yc, tuple) else (yc,)), (yd if isinstance(yd, tuple) else (yd,))
    for a, b in zip(yd, yc):
        assert_close(a.detach().cpu(), b.detach())
    g = torch.randn(yc[0].shape)
    yc[0].backward(g)
    host_free(lambda: yd[0].backward(g.to(D)))
    assert_close(xd.grad.cpu(), xc.grad)


@pytest.mark.parametrize("kw", [dict(kernel_size=3, stride=2, padding=1), dict(kernel_size=2, ceil_mode=True),
                                dict(kernel_size=3, stride=1, dilation=2), dict(kernel_size=(3, 2), stride=(2, 1),
                                                                               padding=(1, 0), ceil_mode=True)])
def test_max_pool2d_values_indices_and_gradient(kw):
    torch.manual_seed(0)
    x = torch.randn(2, 3, 7, 6)
    grads_match(lambda t: F.max_pool2d(t, return_indices=True, **kw), x)


# Max pooling's kernel takes windows without dilation, of at most 64
# positions, as constants (src/engine/pool.c, bake_geometry; unrolled loops),
# the others from its parameter block: both forms over strides below,
# equal to and above the kernel, the most padding, ceil_mode's partial
# windows, 1-d, 3-d and channels_last
@pytest.mark.parametrize("dims,kw", [
    (2, dict(kernel_size=2, stride=3)), (2, dict(kernel_size=(1, 4), stride=(1, 1), padding=(0, 2))),
    (2, dict(kernel_size=5, stride=2, padding=2, ceil_mode=True)), (2, dict(kernel_size=9, stride=4, padding=4)),
    (2, dict(kernel_size=3, stride=2, padding=1, dilation=(1, 2))), (1, dict(kernel_size=4, stride=1, padding=2)),
    (3, dict(kernel_size=(2, 3, 3), stride=(1, 2, 2), padding=(1, 1, 0))),
    (3, dict(kernel_size=(5, 4, 4), stride=2, padding=(2, 0, 1)))])
@pytest.mark.parametrize("channels_last", [False, True])
def test_max_pool_geometries_baked_or_not(dims, kw, channels_last):
    torch.manual_seed(6)
    shape = {1: (2, 3, 13), 2: (2, 3, 11, 10), 3: (1, 3, 7, 9, 8)}[dims]
    if channels_last and dims == 1:
        pytest.skip("no channels_last for 1-d")
    x = torch.randn(shape)
    if channels_last:
        x = x.to(memory_format=torch.channels_last if dims == 2 else torch.channels_last_3d)
    fn = (F.max_pool1d, F.max_pool2d, F.max_pool3d)[dims - 1]
    grads_match(lambda t: fn(t, return_indices=True, **kw), x)
    if dims > 1:  # (CPU's max_pool1d has no integer kernel)
        xi = (x * 10).to(torch.int32)
        assert_close(host_free(lambda: fn(xi.to(D), **kw)).cpu(), fn(xi, **kw))


def test_max_pool_ties_nan_and_infinities_like_cpu():
    x = torch.tensor([[[[1., 1., 2., 2.], [float("nan"), 0., 2., 5.], [-float("inf"), 3., 3., 3.],
                        [0., 0., float("inf"), 1.]]]])
    for kw in (dict(kernel_size=2), dict(kernel_size=3, stride=1, padding=1)):
        vc, ic = F.max_pool2d(x, return_indices=True, **kw)
        vd, id_ = host_free(lambda: F.max_pool2d(x.to(D), return_indices=True, **kw))
        assert_close(vd.cpu(), vc, equal_nan=True)
        assert torch.equal(id_.cpu(), ic)
    # overlapping windows choosing the same input: its gradients add
    grads_match(lambda t: F.max_pool2d(t, 3, stride=1, padding=1), torch.ones(1, 1, 4, 4))


@pytest.mark.parametrize("kw", [dict(kernel_size=3, stride=2, padding=1),
                                dict(kernel_size=3, stride=2, padding=1, count_include_pad=False),
                                dict(kernel_size=2, ceil_mode=True), dict(kernel_size=3, stride=2, padding=1,
                                                                          ceil_mode=True, count_include_pad=False),
                                dict(kernel_size=2, divisor_override=3)])
def test_avg_pool2d_divisors_and_gradient(kw):
    torch.manual_seed(1)
    grads_match(lambda t: F.avg_pool2d(t, **kw), torch.randn(2, 3, 7, 5))


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16, torch.int32, torch.int64, torch.uint8])
def test_dtypes(dtype):
    x = (torch.randn(2, 2, 6, 6) * 20).to(dtype)
    assert_close(host_free(lambda: F.max_pool2d(x.to(D), 3, 2, 1)).cpu(), F.max_pool2d(x, 3, 2, 1))
    if dtype.is_floating_point or dtype == torch.int64:
        assert_close(host_free(lambda: F.avg_pool2d(x.to(D), 3, 2, 1)).cpu(), F.avg_pool2d(x, 3, 2, 1))


def test_3d_1d_channels_last_and_unbatched():
    torch.manual_seed(2)
    grads_match(lambda t: F.max_pool3d(t, 2, stride=(1, 2, 2), padding=1), torch.randn(1, 2, 4, 5, 6))
    grads_match(lambda t: F.avg_pool3d(t, (2, 3, 2), padding=(1, 1, 0), ceil_mode=True), torch.randn(2, 1, 5, 6, 4))
    grads_match(lambda t: F.max_pool1d(t, 3, 2, 1), torch.randn(2, 3, 9))
    x = torch.randn(2, 3, 8, 8).to(memory_format=torch.channels_last)
    assert_close(host_free(lambda: F.max_pool2d(x.to(D), 2)).cpu(), F.max_pool2d(x, 2))
    assert_close(host_free(lambda: F.avg_pool2d(x[0].to(D), 3)).cpu(), F.avg_pool2d(x[0], 3))


def test_errors_like_cpu():
    x = torch.randn(1, 1, 4, 4, device=D)
    with pytest.raises(RuntimeError, match="pad should be at most half"):
        F.max_pool2d(x, 2, padding=2)
    with pytest.raises(RuntimeError, match="pad should"):
        F.avg_pool2d(x, 2, padding=2)
    with pytest.raises(RuntimeError):
        F.max_pool3d(torch.randn(2, 2, device=D), 2)


@pytest.mark.parametrize("name", ["nn.functional.adaptive_avg_pool1d", "nn.functional.adaptive_avg_pool2d",
                                  "nn.functional.adaptive_avg_pool3d"])
def test_adaptive_avg_opinfo(name):
    # float16/bfloat16 average in float32 and round once (CPU's 3-d bfloat16
    # kernel sums in bfloat16: the harness accepts the float32 result rounded)
    check_opinfo(name)


@pytest.mark.parametrize("shape,out", [((2, 3, 7, 5), (3, 4)), ((1, 2, 9, 9), (9, 9)), ((2, 10, 6), (4, 1)),
                                       ((1, 2, 5, 6, 7), (2, 3, 4))])
def test_adaptive_avg_values_and_gradients(shape, out):
    torch.manual_seed(4)
    fn = F.adaptive_avg_pool3d if len(out) == 3 else F.adaptive_avg_pool2d
    grads_match(lambda t: fn(t, out), torch.randn(shape))
    with pytest.raises(RuntimeError, match="non-zero size"):
        F.adaptive_avg_pool2d(torch.randn(1, 0, 3, device=D), (2, 2))


@pytest.mark.parametrize("name", ["nn.functional.adaptive_max_pool1d", "nn.functional.adaptive_max_pool2d",
                                  "nn.functional.adaptive_max_pool3d"])
def test_adaptive_max_opinfo(name):
    check_opinfo(name)


@pytest.mark.parametrize("shape,out", [((2, 3, 7, 5), (3, 4)), ((1, 2, 5, 5), (5, 5)), ((2, 1, 9, 4), (2, 3)),
                                       ((1, 2, 5, 6, 7), (2, 3, 4))])
def test_adaptive_max_indices_and_gradients(shape, out):
    torch.manual_seed(5)
    fn = F.adaptive_max_pool3d if len(out) == 3 else F.adaptive_max_pool2d
    x = torch.randn(shape)
    x.view(-1)[::7] = 1.0  # ties: the first maximum in row-major order, as CPU
    grads_match(lambda t: fn(t, out, return_indices=True), x)
    xi = torch.full(shape, -float("inf"))
    vc, ic = fn(xi, out, return_indices=True)
    vd, id_ = host_free(lambda: fn(xi.to(D), out, return_indices=True))
    assert_close(vd.cpu(), vc)
    assert torch.equal(id_.cpu(), ic)


@pytest.mark.parametrize("name", ["nn.functional.max_unpool1d", "nn.functional.max_unpool2d",
                                  "nn.functional.max_unpool3d"])
def test_max_unpool_opinfo(name):
    check_opinfo(name)


def test_max_unpool_round_trip_gradient_and_bad_index():
    torch.manual_seed(6)
    x = torch.randn(2, 3, 6, 6)
    v, i = F.max_pool2d(x, 3, stride=2, padding=1, return_indices=True)  # overlapping windows
    grads_match(lambda t: F.max_unpool2d(t, i.to(t.device), 3, stride=2, padding=1, output_size=(6, 6)), v)
    with pytest.raises(RuntimeError, match="out of bounds"):
        F.max_unpool2d(v.to(D), torch.full_like(i, 99).to(D), 3, stride=2, padding=1, output_size=(6, 6)).cpu()


def test_nan_windows_take_the_last_nan_like_cpu():
    nan = float("nan")
    x = torch.tensor([[[[1., nan, 3.], [nan, 2., nan], [0., 5., 1.]]]])
    for fn in (lambda t: F.max_pool2d(t, 3, stride=1, padding=1, return_indices=True),
               lambda t: F.max_pool2d(t, 2, stride=1, return_indices=True),
               lambda t: F.adaptive_max_pool2d(t, (2, 2), return_indices=True)):
        vc, ic = fn(x)
        vd, id_ = host_free(lambda: fn(x.to(D)))
        assert_close(vd.cpu(), vc, equal_nan=True)
        assert torch.equal(id_.cpu(), ic)


@pytest.mark.parametrize("fn", [lambda t: F.max_pool2d(t, 3, 2, 1), lambda t: F.avg_pool2d(t, 3, 2, 1),
                                lambda t: F.adaptive_avg_pool2d(t, (1, 1)), lambda t: F.adaptive_avg_pool2d(t, (3, 5)),
                                lambda t: F.adaptive_max_pool2d(t, (2, 3))])
def test_channels_last_is_kept_and_strided_inputs(fn):
    torch.manual_seed(7)
    x = torch.randn(2, 5, 9, 11).to(memory_format=torch.channels_last)
    grads_match(fn, x)
    yc, yd = fn(x), host_free(lambda: fn(x.to(D)))
    assert yd.is_contiguous(memory_format=torch.channels_last) == yc.is_contiguous(memory_format=torch.channels_last)
    # a strided view (every other column, channels permuted)
    xs = torch.randn(2, 5, 9, 22)[..., ::2].permute(0, 1, 3, 2)
    assert_close(host_free(lambda: fn(xs.to(D))).cpu(), fn(xs))


@pytest.mark.parametrize("memory_format", [torch.contiguous_format, torch.channels_last])
def test_resnet_sized_pooling(memory_format):
    # ResNet's stem max pool and head average pool, forward and backward
    torch.manual_seed(8)
    grads_match(lambda t: F.max_pool2d(t, 3, 2, 1),
                torch.randn(4, 64, 56, 56).to(memory_format=memory_format))
    grads_match(lambda t: F.adaptive_avg_pool2d(t, (1, 1)),
                torch.randn(4, 512, 7, 7).to(memory_format=memory_format))


def test_backward_with_indices_outside_their_windows_raises():
    x = torch.randn(1, 1, 4, 4)
    _, i = F.max_pool2d(x, 2, return_indices=True)
    bad = i.clone()
    bad[0, 0, 0, 0] = 15  # the bottom-right element: not in window (0, 0)
    g = torch.ones(1, 1, 2, 2, device=D)
    with pytest.raises(RuntimeError, match="index"):
        torch.ops.aten.max_pool2d_with_indices_backward(g, x.to(D), [2, 2], [2, 2], [0, 0], [1, 1], False,
                                                        bad.to(D)).cpu()
    # the device is usable afterwards
    gi = torch.ops.aten.max_pool2d_with_indices_backward(g, x.to(D), [2, 2], [2, 2], [0, 0], [1, 1], False, i.to(D))
    assert gi.sum().item() == 4


@pytest.mark.parametrize("name", ["nn.functional.fractional_max_pool2d", "nn.functional.fractional_max_pool3d"])
def test_fractional_max_opinfo_samples_with_the_same_draw(name):
    # the windows are random: each OpInfo sample with samples drawn once on
    # the CPU and given to both (the conformance sweep compares the free
    # draws by shape and dtype)
    from torch.testing._internal.common_methods_invocations import op_db

    op = next(o for o in op_db if o.name == name)
    k = 2 if name.endswith("2d") else 3
    g = torch.Generator().manual_seed(5)
    for dt in (torch.float32, torch.float16, torch.bfloat16):
        for smp in op.sample_inputs("cpu", dt):
            x = smp.input
            n = 1 if x.dim() == k + 1 else x.shape[0]
            kw = dict(smp.kwargs, _random_samples=torch.rand(n, x.shape[-k - 1], k, generator=g).to(dt))
            want = op.op(x, *smp.args, **kw)
            got = host_free(lambda: op.op(x.to(D), *smp.args, **dict(kw, _random_samples=kw["_random_samples"].to(D))))
            want, got = (want, got) if isinstance(want, tuple) else ((want,), (got,))
            for a, b in zip(got, want):
                assert torch.equal(a.cpu(), b), (dt, smp.args, smp.kwargs)


FRACTIONAL_2D = [((2, 3, 9, 9), (3, 3), (4, 4)), ((1, 3, 9, 9), (4, 4), (2, 3)), ((2, 2, 17, 13), (2, 3), (8, 5)),
                 ((1, 1, 40, 40), (3, 3), (19, 20)), ((3, 7, 7), (2, 2), (5, 6)), ((1, 2, 700, 9), (5, 2), (600, 4))]
FRACTIONAL_3D = [((2, 3, 5, 5, 5), (2, 2, 2), (2, 3, 2)), ((1, 2, 6, 5, 4), (2, 2, 2), (3, 3, 2)),
                 ((2, 9, 8, 7), (3, 2, 2), (4, 5, 5))]


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.bfloat16])
def test_fractional_max_windows_are_cpus(dtype):
    # with the same samples, CPU's windows (generate_intervals in the dtype's
    # arithmetic: float16/bfloat16 round each step), maxima and indices
    g = torch.Generator().manual_seed(3)
    for k, cases in ((2, FRACTIONAL_2D), (3, FRACTIONAL_3D)):
        op = torch.ops.aten.fractional_max_pool2d if k == 2 else torch.ops.aten.fractional_max_pool3d
        for shape, kernel, out in cases:
            x = torch.randn(shape, generator=g).to(dtype)
            n = 1 if len(shape) == k + 1 else shape[0]
            for extra in (0, 2):  # samples may cover more batches than the input has
                s = torch.rand(n + extra, shape[-k - 1], k, generator=g).to(dtype)
                want = op(x, kernel, out, s)
                got = host_free(lambda: op(x.to(D), kernel, out, s.to(D)))
                assert torch.equal(got[0].cpu(), want[0]) and torch.equal(got[1].cpu(), want[1]), (shape, extra)


def test_fractional_max_layouts_nan_and_gradients():
    g = torch.Generator().manual_seed(4)
    x = torch.randn(2, 3, 11, 10, generator=g)
    x[0, 1, 3, 4] = float("nan")
    s = torch.rand(2, 3, 2, generator=g)
    for xin in (x, x.contiguous(memory_format=torch.channels_last), x.transpose(2, 3)):
        want = torch.ops.aten.fractional_max_pool2d(xin, (3, 2), (5, 6), s)
        got = host_free(lambda: torch.ops.aten.fractional_max_pool2d(xin.to(D), (3, 2), (5, 6), s.to(D)))
        assert torch.equal(got[1].cpu(), want[1]) and torch.allclose(got[0].cpu(), want[0], equal_nan=True)
        assert got[0].stride() == want[0].stride()
    # the backward scatters by the indices, overlapping windows adding in the
    # outputs' order (CPU's); through F with the samples given
    for k, shape, kernel, out in ((2, (2, 3, 9, 9), 3, 5), (3, (2, 3, 6, 6, 6), 2, 4)):
        fn = F.fractional_max_pool2d if k == 2 else F.fractional_max_pool3d
        x = torch.randn(shape, generator=g)
        s = torch.rand(shape[0], shape[1], k, generator=g)
        xc, xd = x.clone().requires_grad_(), x.to(D).requires_grad_()
        yc = fn(xc, kernel, output_size=out, _random_samples=s)
        yd = host_free(lambda: fn(xd, kernel, output_size=out, _random_samples=s.to(D)))
        gout = torch.randn(yc.shape, generator=g)
        yc.backward(gout)
        host_free(lambda: yd.backward(gout.to(D)))
        assert torch.equal(yd.detach().cpu(), yc.detach()) and torch.equal(xd.grad.cpu(), xc.grad)
    # grad_input given as out=: contiguous (the sums land in it) or not
    x = torch.randn(2, 3, 11, 10, generator=g)
    s = torch.rand(2, 3, 2, generator=g)
    y, idx = torch.ops.aten.fractional_max_pool2d(x, (3, 2), (5, 6), s)
    gout = torch.randn(y.shape, generator=g)
    want = torch.ops.aten.fractional_max_pool2d_backward(gout, x, (3, 2), (5, 6), idx)
    for out in (torch.full(x.shape, 7.0, device=D), torch.full(x.shape, 7.0, device=D).contiguous(
            memory_format=torch.channels_last), torch.full((2, 3, 10, 11), 7.0, device=D).transpose(2, 3)):
        got = host_free(lambda: torch.ops.aten.fractional_max_pool2d_backward.grad_input(
            gout.to(D), x.to(D), (3, 2), (5, 6), idx.to(D), grad_input=out))
        assert got is out and torch.equal(out.cpu(), want)


def test_fractional_max_errors_like_cpu():
    x = torch.randn(2, 3, 9, 9)
    for s, match in ((torch.rand(2, 3, 2, dtype=torch.float64), "same dtype"), (torch.rand(1, 3, 2), "batch size"),
                     (torch.rand(2, 3, 3), "equals to 2"), (torch.rand(2, 3), "3 dimensions")):
        with pytest.raises(RuntimeError, match=match):
            torch.ops.aten.fractional_max_pool2d(x, [3, 3], [4, 4], s)
        with pytest.raises(RuntimeError, match=match):
            torch.ops.aten.fractional_max_pool2d(x.to(D), [3, 3], [4, 4], s.to(D))
    with pytest.raises(RuntimeError, match="too large relative to input height"):
        torch.ops.aten.fractional_max_pool2d(x.to(D), [3, 3], [8, 8], torch.rand(2, 3, 2, device=D))
    # an index that no forward made: the device's index error, as a scatter's
    y, idx = torch.ops.aten.fractional_max_pool2d(x.to(D), [3, 3], [4, 4], torch.rand(2, 3, 2, device=D))
    bad = idx.clone()
    bad[0, 0, 0, 0] = 10 ** 6
    with pytest.raises(RuntimeError, match="out of bounds|index"):
        torch.ops.aten.fractional_max_pool2d_backward(torch.ones_like(y), x.to(D), [3, 3], [4, 4], bad)
        torch.russet.synchronize()
