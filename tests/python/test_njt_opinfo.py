"""PyTorch's OpInfo samples for nested tensors of layout torch.jagged
(`njt_op_db`: every entry with supports_njt), on russet against CPU,
float32: each sample's NJT and tensor arguments moved to russet, the op
run on both, nested results compared component by component and dense ones
whole. A sample that raises on CPU must raise the same exception type on
russet. Results must be host-free (but float64 ones on a device without
fp64, the apple profile, as for dense tensors): jagged tensors are dense tensors
underneath, and the two kernels that pad and pack them
(_jagged_to_padded_dense_forward, _padded_dense_to_jagged_forward) run on
the C core's jagged engine (src/engine/jagged.c). The OpInfos that support
autograd also take a weighted sum of their outputs' values backward, and
the gradients of every input that requires one must match CPU's.
docs/sparse.md."""

import pytest
import torch
from torch.testing import assert_close
from torch.utils._pytree import tree_flatten, tree_map

try:
    from torch.testing._internal.opinfo.definitions.nested import njt_op_db
except ImportError:  # an older torch without NJT OpInfos
    njt_op_db = []

D = "russet"
SAMPLES = 4  # a sample function's first ones (the rest repeat their shapes with other arguments)
# ops whose values differ by design (random): shapes and layouts compared
RANDOM = {"nn.functional.dropout", "rand_like", "randn_like", "randint_like"}


def moved(x):
    return x.to(D) if isinstance(x, torch.Tensor) else x


def parts(x):
    """a result as a flat list of dense CPU tensors and other values"""
    if isinstance(x, torch.Tensor):
        return [c.cpu() for c in x.unbind()] if x.is_nested else [x.cpu()]
    if isinstance(x, (list, tuple)):
        return [p for e in x for p in parts(e)]
    return [x]


def cases():
    for op in njt_op_db:
        if getattr(op, "supports_njt", False):
            yield pytest.param(op, id=op.full_name if hasattr(op, "full_name") else op.name)


@pytest.mark.parametrize("op", list(cases()))
def test_njt_samples(op):
    try:
        samples = list(op.sample_inputs(device="cpu", dtype=torch.float32, requires_grad=False))[:SAMPLES]
    except Exception as e:  # noqa: BLE001  (the OpInfo has no float32 NJT samples)
        pytest.skip(f"no samples: {type(e).__name__}: {e}")
    if not samples:
        pytest.skip("no samples")
    fp64 = torch.russet.get_device_properties().features.has_fp64
    for s in samples:
        try:
            exp = op.op(s.input, *s.args, **s.kwargs)
        except Exception as e:  # noqa: BLE001  (an error sample for CPU too: the same type on russet)
            with pytest.raises(type(e)):
                op.op(moved(s.input), *tree_map(moved, s.args), **tree_map(moved, s.kwargs))
            continue
        torch.russet.reset_host_op_counts()
        got = op.op(moved(s.input), *tree_map(moved, s.args), **tree_map(moved, s.kwargs))
        gs, es = parts(got), parts(exp)
        f64 = any(isinstance(e, torch.Tensor) and e.dtype == torch.float64 for e in es)
        if fp64 or not f64:
            assert torch.russet.host_op_counts() == {}, f"{op.name}: ran on the host: {torch.russet.host_op_counts()}"
        assert len(gs) == len(es)
        for g, e in zip(gs, es):
            if not isinstance(e, torch.Tensor):
                assert g == e
                continue
            assert g.shape == e.shape and g.dtype == e.dtype
            if op.name not in RANDOM:
                assert_close(g, e, rtol=1.3e-5, atol=1e-5, equal_nan=True)


def grad_leaves(x):
    return [t for t in tree_flatten(x)[0] if isinstance(t, torch.Tensor) and t.requires_grad]


def weighted_sum(out):
    """a scalar from every floating output that requires grad: its values
    times a ramp (so that each element's gradient differs)"""
    total = None
    for t in tree_flatten(out)[0]:
        if isinstance(t, torch.Tensor) and t.requires_grad and t.dtype.is_floating_point:
            v = t.values() if t.is_nested else t
            w = torch.linspace(0.5, 1.5, v.numel(), device=v.device).reshape(v.shape)
            term = (v.float() * w).sum()
            total = term if total is None else total + term
    return total


def moved_leaf(x):
    if not isinstance(x, torch.Tensor):
        return x
    y = x.detach().to(D)
    return y.requires_grad_() if x.requires_grad else y


@pytest.mark.parametrize("op", [p for p in cases() if p.values[0].supports_autograd])
def test_njt_gradients(op):
    try:
        samples = list(op.sample_inputs(device="cpu", dtype=torch.float32, requires_grad=True))[:3]
    except Exception as e:  # noqa: BLE001
        pytest.skip(f"no samples: {type(e).__name__}: {e}")
    fp64 = torch.russet.get_device_properties().features.has_fp64
    ran = 0
    for s in samples:
        try:
            loss = weighted_sum(op.op(s.input, *s.args, **s.kwargs))
            if loss is None:
                continue
            exp = torch.autograd.grad(loss, grad_leaves((s.input, s.args, s.kwargs)), allow_unused=True)
        except Exception:  # noqa: BLE001  (CPU refuses the sample or its backward)
            continue
        args = (moved_leaf(s.input), tree_map(moved_leaf, s.args), tree_map(moved_leaf, s.kwargs))
        torch.russet.reset_host_op_counts()
        got = torch.autograd.grad(weighted_sum(op.op(args[0], *args[1], **args[2])), grad_leaves(args),
                                  allow_unused=True)
        if fp64 or op.name != "float_power":  # float_power computes in float64
            assert torch.russet.host_op_counts() == {}, f"{op.name}: ran on the host: {torch.russet.host_op_counts()}"
        assert len(got) == len(exp)
        for g, e in zip(got, exp):
            assert (g is None) == (e is None)
            if e is not None:
                assert_close(g.values().cpu() if g.is_nested else g.cpu(), e.values() if e.is_nested else e,
                             rtol=1e-4, atol=1e-4, equal_nan=True)
        ran += 1
    if ran == 0:
        pytest.skip("no sample with a gradient that CPU computes")
