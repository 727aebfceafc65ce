"""segment_reduce and _segment_reduce_backward (src/torch/ops/segment_reduce.cpp)
against PyTorch CPU: OpInfo samples, both forms (lengths, offsets), every
reduction, initial, unsafe, batched lengths, gradients, NaN/zero/tie cases,
errors."""

import pytest
import torch
from torch.testing import assert_close

from opinfo_check import HOST_DTYPES, check_opinfo, flushed, flushes_denormals, host_free, moved

D = "russet"
REDUCTIONS = ["sum", "mean", "max", "min", "prod", "amax", "amin"]


def both(data, reduce, **kw):
    exp = torch.segment_reduce(data, reduce, **kw)
    got = host_free(lambda: torch.segment_reduce(data.to(D), reduce, **moved(kw, D)))
    return exp, got.cpu()


def exact(exp, got):
    assert_close(got, exp, rtol=0, atol=0, equal_nan=True)


@pytest.mark.parametrize("variant", ["lengths", "offsets"])
def test_opinfo(variant):
    check_opinfo("_segment_reduce", variant, max_samples=200)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.bfloat16])
@pytest.mark.parametrize("reduce", REDUCTIONS)
def test_forms_bit_exact(dtype, reduce):
    # CPU folds each segment in order, rounding to the dtype at each step;
    # so does russet (the index reductions' ordered segments): equal bits
    g = torch.Generator().manual_seed(0)
    x = (torch.randn(9, 4, generator=g) * 3).to(dtype)
    x[2, 1] = float("nan")
    x[5, 0] = 0.0
    x[6, 2] = x[7, 2]  # a tie
    lengths = torch.tensor([2, 0, 4, 3])
    offsets = torch.tensor([1, 3, 3, 7, 8])  # starts past 0, ends before the last row
    for kw in ({"lengths": lengths}, {"offsets": offsets}, {"lengths": lengths, "initial": 2.5},
               {"offsets": offsets, "initial": -1.0}, {"lengths": torch.tensor([1, 2, 0]), "unsafe": True},
               {"lengths": lengths.to(torch.int32)}, {"offsets": offsets.to(torch.int32)}):
        exp, got = both(x, reduce, **kw)
        exact(exp, got)


def test_batched_lengths_and_axis():
    g = torch.Generator().manual_seed(1)
    x = torch.randn(3, 6, 2, generator=g)
    lengths = torch.tensor([[2, 4, 0], [6, 0, 0], [1, 1, 4]])
    offsets = torch.tensor([[0, 2, 6], [0, 3, 3], [1, 2, 5]])
    for reduce in REDUCTIONS:
        exact(*both(x, reduce, lengths=lengths, axis=1))
        exact(*both(x, reduce, offsets=offsets, axis=1, initial=0.5))
        exact(*both(x, reduce, lengths=lengths, axis=-2, unsafe=True))
    # axis 0 of a 1-d input, non-contiguous data
    xt = torch.randn(5, 8, generator=g).t()  # (8, 5)
    for reduce in REDUCTIONS:
        exact(*both(xt, reduce, lengths=torch.tensor([3, 0, 5])))
        exact(*both(xt[:, 0], reduce, offsets=torch.tensor([0, 8])))


def test_empty_cases():
    x = torch.randn(4, 3)
    for reduce in REDUCTIONS:
        # every segment empty (unsafe), with and without initial
        exact(*both(x, reduce, lengths=torch.tensor([0, 0]), unsafe=True))
        exact(*both(x, reduce, lengths=torch.tensor([0, 0]), unsafe=True, initial=3.0))
        # no segments
        exact(*both(x, reduce, offsets=torch.tensor([0])))
        # no data
        exact(*both(torch.empty(0, 3), reduce, lengths=torch.tensor([0, 0])))


def grads(x, reduce, g, **kw):
    a = x.clone().requires_grad_()
    torch.autograd.backward(torch.segment_reduce(a, reduce, **kw), g)
    b = x.to(D).requires_grad_()
    host_free(lambda: torch.autograd.backward(torch.segment_reduce(b, reduce, **moved(kw, D)), g.to(D)))
    return a.grad, b.grad.cpu()


@pytest.mark.parametrize("reduce", REDUCTIONS)
def test_backward(reduce):
    g = torch.Generator().manual_seed(2)
    x = torch.randn(10, 3, generator=g)
    x[1, 0] = x[0, 0]  # a tie in the first segment
    x[4, 1] = x[5, 1] = x[6, 1] = 7.0  # a three-way tie for max
    x[4, 2] = 0.0  # one zero
    x[7, 2] = x[8, 2] = 0.0  # two zeros
    x[9, 0] = float("nan")
    lengths = torch.tensor([3, 0, 4, 3])
    gr = torch.randn(4, 3, generator=g)
    for kw in ({"lengths": lengths}, {"offsets": torch.tensor([0, 3, 3, 7, 10])},
               {"lengths": lengths, "initial": 1.5}, {"offsets": torch.tensor([1, 4, 8]), "initial": 0.5}):
        n = torch.segment_reduce(x, reduce, **kw).shape[0]
        exp, got = grads(x, reduce, gr[:n], **kw)
        assert_close(got, exp, equal_nan=True)


def test_backward_prod_zero_nan():
    x = torch.tensor([[2.0, 0.0, 3.0], [0.0, 0.0, 1.0], [float("nan"), 2.0, 0.0], [4.0, 5.0, 0.5]])
    gr = torch.tensor([[1.0, -2.0, 3.0]])
    for kw in ({"lengths": torch.tensor([4])}, {"lengths": torch.tensor([4]), "initial": 2.0}):
        exp, got = grads(x, "prod", gr, **kw)
        assert_close(got, exp, equal_nan=True)


def test_backward_prod_overflow_after_zeros():
    # two zeros first: CPU's exclusive product for each is 0 from the other
    # zero on (0 * 1e30 * 1e30 = 0), where the composition russet used
    # before its C engine multiplied the product of the rest (inf) by 0: NaN
    x = torch.tensor([[0.0], [0.0], [1e30], [1e30], [1e-30]])
    gr = torch.tensor([[1.0]])
    exp, got = grads(x, "prod", gr, lengths=torch.tensor([5]))
    assert exp[0, 0] == 0 and exp[1, 0] == 0
    exact(exp, got)


def test_backward_half():
    g = torch.Generator().manual_seed(3)
    x = torch.randn(8, 2, generator=g).to(torch.float16)
    gr = torch.randn(3, 2, generator=g).to(torch.float16)
    for reduce in REDUCTIONS:
        exp = torch.ops.aten._segment_reduce_backward(gr, torch.segment_reduce(x, reduce, lengths=torch.tensor([3, 1, 4])),
                                                      x, reduce, lengths=torch.tensor([3, 1, 4]))
        out = torch.segment_reduce(x.to(D), reduce, lengths=torch.tensor([3, 1, 4]).to(D))
        got = host_free(lambda: torch.ops.aten._segment_reduce_backward(gr.to(D), out, x.to(D), reduce,
                                                                         lengths=torch.tensor([3, 1, 4]).to(D)))
        assert_close(got.cpu(), exp)


def test_out_form():
    x = torch.randn(6, 2)
    out = torch.empty(0, device=D)
    host_free(lambda: torch.ops.aten.segment_reduce.out(x.to(D), "mean", lengths=torch.tensor([2, 4]).to(D), out=out))
    exact(torch.segment_reduce(x, "mean", lengths=torch.tensor([2, 4])), out.cpu())


def test_float64():
    x = torch.randn(5, 2, dtype=torch.float64)
    exp = torch.segment_reduce(x, "sum", lengths=torch.tensor([2, 3]))
    torch.russet.reset_host_op_counts()
    got = torch.segment_reduce(x.to(D), "sum", lengths=torch.tensor([2, 3]).to(D))
    assert_close(got.cpu(), exp)
    if torch.float64 in HOST_DTYPES:
        assert torch.russet.host_op_counts()


def test_float64_bounds_past_the_axis():
    # the host path (float64 without fp64) runs CPU's kernel, which reads
    # the data through offsets (or unsafe lengths) past the axis unchecked
    # and crashed the fuzzer's process: there they raise first; the native
    # kernel never reads past the axis and returns the initial values
    x = torch.randn(3, dtype=torch.float64)
    bad = [{"offsets": torch.tensor([0, 1000000, 1000000])}, {"offsets": torch.tensor([-5, 1, 2])},
           {"lengths": torch.tensor([2, 9]), "unsafe": True}]
    for kw in bad:
        if torch.float64 in HOST_DTYPES:
            with pytest.raises(RuntimeError, match="is out of bounds"):
                torch.segment_reduce(x.to(D), "sum", **moved(kw, D))
        else:
            torch.segment_reduce(x.to(D), "sum", **moved(kw, D)).cpu()


def error_type(fn, *args, **kw):
    try:
        r = fn(*args, **kw)
        if isinstance(r, torch.Tensor):
            r.cpu()  # device-side checks report at the next sync
    except Exception as e:  # noqa: BLE001
        return type(e)
    return None


@pytest.mark.parametrize("case", range(11))
def test_errors(case):
    x = torch.randn(6, 3)
    l = torch.tensor([2, 0, 4])
    calls = [
        ((x, "sum"), {"lengths": torch.tensor([2, 0, 3])}),            # rows do not sum to 6
        ((x, "sum"), {"lengths": torch.tensor([2, -1, 5])}),           # negative (checked)
        ((x, "sum"), {"lengths": torch.tensor([2, -1, 5]), "unsafe": True}),  # negative (in the kernel)
        ((x, "sum"), {"offsets": torch.tensor([0, 3, 2, 6])}),         # decreasing offsets
        ((x, "foo"), {"lengths": l}),
        ((x, "sum"), {}),
        ((x, "sum"), {"lengths": l, "axis": 1}),
        ((x.long(), "sum"), {"lengths": l}),
        ((x, "sum"), {"lengths": l.float()}),
        ((x, "sum"), {"lengths": l, "indices": l}),
        ((x, "sum"), {"lengths": torch.tensor([], dtype=torch.long)}),
    ]
    args, kw = calls[case]
    exp = error_type(torch.segment_reduce, *args, **kw)
    assert exp is not None
    got = error_type(torch.segment_reduce, *moved(args, D), **moved(kw, D))
    assert got is exp
    torch.russet.synchronize()  # nothing left pending


def test_long_segments():
    # segments longer than a window of the index reductions' segment pass
    g = torch.Generator().manual_seed(7)
    x = torch.rand(45000, 2, generator=g) + 0.5
    for reduce in ("sum", "mean", "max", "prod"):
        exp, got = both(x, reduce, lengths=torch.tensor([40000, 5000]))
        if reduce == "prod" and flushes_denormals() and not torch.equal(exp, got.cpu()):
            exp = flushed(exp)  # the products end as denormals: 0 where they are flushed
        exact(exp, got)
