"""F.embedding_bag / nn.EmbeddingBag against CPU: OpInfo samples for every
dtype CPU supports (native but float64 under the apple profile), every mode,
empty bags, include_last_offset, padding_idx, per_sample_weights, 2-D input,
all four results of the aten ops (output, offset2bag, bag_size, max_indices)
in CPU's shapes and values, the gradients (weight and per_sample_weights)
with no host op, determinism, and an nn.EmbeddingBag training step."""

import pytest
import torch
import torch.nn.functional as F
from torch.testing import assert_close

from opinfo_check import HOST_DTYPES, check_opinfo, host_free

D = "russet"
FLOATS = [torch.float32, torch.float16, torch.bfloat16]
MODES = ["sum", "mean", "max"]
MODE_ID = {"sum": 0, "mean": 1, "max": 2}


def test_opinfo_matches_cpu():
    check_opinfo("nn.functional.embedding_bag", max_samples=100)


def _weight(n, d, dtype, seed=0):
    g = torch.Generator().manual_seed(seed)
    return torch.randn(n, d, generator=g).to(dtype)


def _compare_aten(weight, idx, off, mode, psw, ilo, pad, forward_only):
    op = torch.ops.aten._embedding_bag_forward_only if forward_only else torch.ops.aten._embedding_bag
    args = (False, MODE_ID[mode], False)
    exp = op(weight, idx, off, *args, psw, ilo, pad)
    dev = [t.to(D) if t is not None else None for t in (weight, idx, off, psw)]
    got = host_free(lambda: op(dev[0], dev[1], dev[2], *args, dev[3], ilo, pad))
    assert_close(got[0].cpu(), exp[0], equal_nan=True)
    for k, name in [(1, "offset2bag"), (2, "bag_size"), (3, "max_indices")]:
        assert got[k].dtype == exp[k].dtype, name
        assert got[k].shape == exp[k].shape, (name, got[k].shape, exp[k].shape)
        assert torch.equal(got[k].cpu(), exp[k]), (name, got[k].cpu(), exp[k])


# bags: [1 2] [] [2 4 0] [5 2 2] [] (trailing empty), padding 2 in three bags
IDX = [1, 2, 2, 4, 0, 5, 2, 2]
OFF = [0, 2, 2, 5, 8]


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("ilo", [False, True])
@pytest.mark.parametrize("pad", [-1, 2])
@pytest.mark.parametrize("forward_only", [False, True])
def test_aten_results_match_cpu(dtype, mode, ilo, pad, forward_only):
    w = _weight(7, 5, dtype)
    idx = torch.tensor(IDX)
    off = torch.tensor(OFF)  # with include_last_offset: 4 bags, the last [5 2 2]
    _compare_aten(w, idx, off, mode, None, ilo, pad, forward_only)


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("pad", [-1, 2])
@pytest.mark.parametrize("itype", [torch.int32, torch.int64])
def test_per_sample_weights_and_index_types(dtype, pad, itype):
    w = _weight(7, 4, dtype)
    psw = torch.randn(len(IDX)).to(dtype)
    _compare_aten(w, torch.tensor(IDX, dtype=itype), torch.tensor(OFF, dtype=itype), "sum", psw, False, pad, False)
    # mixed index types are promoted (int64 results)
    _compare_aten(w, torch.tensor(IDX, dtype=torch.int32), torch.tensor(OFF), "mean", None, True, pad, True)


@pytest.mark.parametrize("mode", MODES)
def test_strided_weight_and_weights(mode):
    # a transposed weight (CPU's slow path: offset2bag kept) and strided
    # per_sample_weights
    w = _weight(5, 7, torch.float32).t()
    psw = torch.randn(2 * len(IDX))[::2] if mode == "sum" else None
    for ilo in [False, True]:
        _compare_aten(w, torch.tensor(IDX), torch.tensor(OFF), mode, psw, ilo, -1, False)


def test_max_ties_and_empty_bags():
    # equal maxima: CPU keeps the first position's index
    w = torch.tensor([[1.0, 2.0], [1.0, 3.0], [0.5, 3.0], [-1.0, -2.0]])
    idx = torch.tensor([0, 1, 2, 3, 3, 2, 1])
    off = torch.tensor([0, 0, 3, 3, 5, 7])
    for pad in [-1, 3]:
        _compare_aten(w, idx, off, "max", None, False, pad, False)
    # NaN: CPU takes it only as a bag's first row (a later value must be greater)
    w = torch.tensor([[float("nan"), 2.0], [1.0, float("nan")], [0.5, 3.0], [-1.0, -2.0]])
    for pad in [-1, 0, 3]:
        _compare_aten(w, idx, off, "max", None, False, pad, False)
    # no offsets at all, and no indices
    _compare_aten(w, torch.tensor([], dtype=torch.long), torch.tensor([0, 0]), "max", None, False, -1, False)
    _compare_aten(w, torch.tensor([], dtype=torch.long), torch.tensor([0, 0]), "mean", None, True, -1, False)


@pytest.mark.parametrize("mode", MODES)
def test_functional_2d_input(mode):
    w = _weight(9, 6, torch.float32)
    x = torch.tensor([[1, 2, 3], [8, 0, 3], [4, 4, 4], [5, 6, 7]])
    exp = F.embedding_bag(x, w, mode=mode, padding_idx=4)
    got = host_free(lambda: F.embedding_bag(x.to(D), w.to(D), mode=mode, padding_idx=4))
    assert_close(got.cpu(), exp)


def _grads(dev, dtype, mode, pad, ilo, psw_on, freq, x2d=False, ref32=False):
    """Forward and backward; `ref32`: the dtype's inputs computed in float32
    (float32 results)."""
    w = _weight(8, 5, dtype, seed=1)
    if x2d:
        idx, off = torch.tensor([[1, 2, 2], [3, 1, 7], [2, 2, 2]]), None
    else:
        idx, off = torch.tensor([1, 2, 2, 3, 1, 7, 2, 0, 1]), torch.tensor([0, 3, 3, 7, 9] if ilo else [0, 3, 3, 7])
    psw = torch.randn(idx.shape, generator=torch.Generator().manual_seed(2)).to(dtype) if psw_on else None
    if ref32:
        w, psw = w.float(), psw.float() if psw is not None else None
    wd = w.to(dev).requires_grad_()
    pd = psw.to(dev).requires_grad_() if psw is not None else None
    out = F.embedding_bag(idx.to(dev), wd, off.to(dev) if off is not None else None, mode=mode,
                          per_sample_weights=pd, include_last_offset=ilo, padding_idx=pad,
                          scale_grad_by_freq=freq)
    g = torch.randn(out.shape, generator=torch.Generator().manual_seed(3)).to(dtype).to(w.dtype)
    out.backward(g.to(dev))
    return out.detach().cpu(), wd.grad.cpu(), pd.grad.cpu() if pd is not None else None


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("pad", [None, 2])
@pytest.mark.parametrize("ilo", [False, True])
@pytest.mark.parametrize("freq", [False, True])
def test_gradients_native(dtype, mode, pad, ilo, freq):
    if freq and mode == "max":
        pytest.skip("max mode does not support scale_grad_by_freq (F.embedding_bag raises)")
    got = host_free(lambda: _grads(D, dtype, mode, pad, ilo, False, freq))
    if not freq:
        exp = _grads("cpu", dtype, mode, pad, ilo, False, False)
    else:
        # every occurrence of index v scaled by 1 / count(v) (CUDA's and the
        # documented rule; CPU's kernel divides by the count of another
        # index: counts[indices_data[i]] with i the group number). The
        # reference: CPU's sum mode with those scales as per_sample_weights
        # (CPU's roundings: the scale rounded to the dtype, then each product).
        exp = _grads("cpu", dtype, mode, pad, ilo, False, False)
        idx = torch.tensor([1, 2, 2, 3, 1, 7, 2, 0, 1])
        bag = torch.tensor([0, 0, 0, 2, 2, 2, 2, 3, 3])
        keep = idx != (pad if pad is not None else -1)
        scale = 1 / torch.bincount(idx, minlength=8)[idx].double()
        if mode == "mean":
            scale = scale / torch.bincount(bag[keep], minlength=4)[bag].clamp_min(1)
        w = _weight(8, 5, dtype, seed=1).requires_grad_()
        out = F.embedding_bag(idx, w, torch.tensor([0, 3, 3, 7]), mode="sum", per_sample_weights=scale.to(dtype),
                              padding_idx=pad)
        out.backward(torch.randn(out.shape, generator=torch.Generator().manual_seed(3)).to(dtype))
        exp = (exp[0], w.grad)
    assert_close(got[0], exp[0])
    assert_close(got[1], exp[1])


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("pad", [None, 2])
@pytest.mark.parametrize("x2d", [False, True])
def test_per_sample_weights_gradients_native(dtype, pad, x2d):
    exp = _grads("cpu", dtype, "sum", pad, False, True, False, x2d)
    got = host_free(lambda: _grads(D, dtype, "sum", pad, False, True, False, x2d))
    for a, b in zip(got, exp):
        assert_close(a, b)


def test_float64_host_or_native():
    exp = _grads("cpu", torch.float64, "mean", 2, False, False, False)
    torch.russet.reset_host_op_counts()
    got = _grads(D, torch.float64, "mean", 2, False, False, False)
    host = torch.russet.host_op_counts()
    assert bool(host) == (torch.float64 in HOST_DTYPES), host
    assert_close(got[0], exp[0])
    assert_close(got[1], exp[1])


def test_deterministic():
    w = _weight(16, 33, torch.float32).to(D).requires_grad_()
    idx = torch.randint(0, 16, (400,), generator=torch.Generator().manual_seed(4)).to(D)
    off = torch.arange(0, 400, 7).to(D)
    runs = []
    for _ in range(2):
        w.grad = None
        out = F.embedding_bag(idx, w, off, mode="sum")
        out.backward(torch.ones_like(out))
        runs.append((out.detach().cpu(), w.grad.cpu()))
    assert torch.equal(runs[0][0], runs[1][0]) and torch.equal(runs[0][1], runs[1][1])


def test_embedding_bag_module_training_step():
    torch.manual_seed(0)
    cpu = torch.nn.Sequential(torch.nn.EmbeddingBag(20, 8, mode="mean", padding_idx=0), torch.nn.Linear(8, 3))
    dev = torch.nn.Sequential(torch.nn.EmbeddingBag(20, 8, mode="mean", padding_idx=0), torch.nn.Linear(8, 3)).to(D)
    dev.load_state_dict(cpu.state_dict())
    idx = torch.tensor([3, 0, 5, 7, 7, 1, 19, 0, 2, 4])
    off = torch.tensor([0, 3, 3, 6])
    y = torch.tensor([0, 2, 1, 1])
    for model, dv in [(cpu, "cpu"), (dev, D)]:
        opt = torch.optim.SGD(model.parameters(), lr=0.5)

        def step():
            for _ in range(2):
                opt.zero_grad()
                loss = F.cross_entropy(model[1](model[0](idx.to(dv), off.to(dv))), y.to(dv))
                loss.backward()
                opt.step()
            return loss
        if dv == D:
            host_free(step)
        else:
            step()
    for (k, a), b in zip(cpu.state_dict().items(), dev.state_dict().values()):
        assert_close(b.cpu(), a, msg=k)


@pytest.mark.parametrize("mode", ["sum", "mean"])  # max: CPU refuses sparse weights
def test_sparse_gradient(mode):
    # sparse=True: the weight's gradient is a sparse COO tensor, as on CPU
    # (ATen's composition over russet's sparse kernels), and SGD applies it
    w = _weight(10, 3, torch.float32)
    idx, offs = torch.tensor([1, 2, 4, 5, 2, 2]), torch.tensor([0, 2, 3])
    grads = []
    for dv in ("cpu", D):
        wd = w.detach().clone().to(dv).requires_grad_()  # (the CPU step must not move w)
        out = F.embedding_bag(idx.to(dv), wd, offs.to(dv), mode=mode, sparse=True)
        (out * torch.arange(out.numel(), dtype=torch.float32).view(out.shape).to(dv)).sum().backward()
        assert wd.grad.is_sparse
        grads.append(wd.grad.cpu().to_dense())
        opt = torch.optim.SGD([wd], lr=0.5)
        opt.step()
        grads.append(wd.detach().cpu())
    assert_close(grads[2], grads[0])
    assert_close(grads[3], grads[1])


def test_bad_input():
    w = _weight(5, 3, torch.float32).to(D)
    with pytest.raises(RuntimeError, match="per_sample_weights only supported with mode='sum'"):
        torch.ops.aten._embedding_bag(w, torch.tensor([1, 2]).to(D), torch.tensor([0]).to(D), False, 2, False,
                                      torch.ones(2).to(D))
    with pytest.raises(RuntimeError, match="Long, Int"):
        torch.ops.aten._embedding_bag(w, torch.tensor([1.0]).to(D), torch.tensor([0]).to(D))
    # out-of-range indices and offsets (CPU checks offsets[0] == 0 and
    # offsets[-1] <= len): device-side, at the next sync
    for mode in MODES:
        for idx, off in [([1, 5], [0]), ([1, -1], [0]), ([1, 2, 3], [1, 2]), ([1, 2, 3], [0, 4])]:
            with pytest.raises(RuntimeError, match="out of bounds"):
                F.embedding_bag(torch.tensor(idx).to(D), w, torch.tensor(off).to(D), mode=mode).cpu()
        # offsets that decrease (CPU's sum and mean raise; its max returns
        # bags read out of order): raised in every mode
        with pytest.raises(RuntimeError, match="offsets must be non-decreasing"):
            F.embedding_bag(torch.tensor([1, 2, 3, 4]).to(D), w, torch.tensor([0, 3, 1]).to(D), mode=mode).cpu()


@pytest.mark.parametrize("mode", MODES)
def test_backward_of_the_fast_sum_path_and_direct_calls(mode):
    """The weight's gradient where CPU's forward left offset2bag empty (the
    bags found from the offsets), and _embedding_bag_dense_backward and
    _embedding_bag_per_sample_weights_backward called directly with CPU's
    forward results, against CPU's; all natively."""
    torch.manual_seed(3)
    w = torch.randn(9, 5)
    idx = torch.tensor([3, 1, 4, 1, 5, 8, 2, 6, 5, 3])
    off = torch.tensor([0, 3, 3, 7])
    m = MODES.index(mode)
    res = torch.ops.aten._embedding_bag(w, idx, off, False, m, False, None, False, -1)
    g = torch.randn(4, 5)
    dev = [t.to(D) for t in (g, idx, off, res[1], res[2], res[3], w)]
    want = torch.ops.aten._embedding_bag_backward(g, idx, off, res[1], res[2], res[3], 9, False, m, False, None, -1)
    got = host_free(lambda: torch.ops.aten._embedding_bag_backward(*dev[:6], 9, False, m, False, None, -1))
    torch.testing.assert_close(got.cpu(), want)
    # with padding_idx, every mode's forward returns offset2bag
    res = torch.ops.aten._embedding_bag(w, idx, off, False, m, False, None, False, 1)
    pdev = [t.to(D) for t in res[1:]]
    # (scale_grad_by_freq: test_gradients_native; CPU's kernel divides by
    # another index's count there)
    want = torch.ops.aten._embedding_bag_dense_backward(g, idx, *res[1:], 9, False, m, None, 1)
    got = host_free(lambda: torch.ops.aten._embedding_bag_dense_backward(dev[0], dev[1], *pdev, 9, False, m, None,
                                                                         1))
    torch.testing.assert_close(got.cpu(), want)
    if mode == "sum":
        assert dev[3].numel() == 0  # CPU's fast path
        want = torch.ops.aten._embedding_bag_per_sample_weights_backward(g, w, idx, off, res[1][:0], 0, 5)
        got = host_free(lambda: torch.ops.aten._embedding_bag_per_sample_weights_backward(
            dev[0], dev[6], dev[1], dev[2], dev[3], 0, 5))
        torch.testing.assert_close(got.cpu(), want)
