"""The _foreach_ ops that torch.optim's foreach paths use (src/torch/ops/foreach.cpp):
each runs ATen's per-tensor loop with the pointwise launches batched into one
for a list of like contiguous tensors (rs_pointwise_run_many; its C test
counts the launches). The results must be the per-tensor ops' own, bit for
bit, and CPU's within the ops' usual tolerance; lists with empty, scalar,
non-contiguous and aliased tensors, and mixed dtypes, run too."""
import pytest
import torch
from torch.testing import assert_close

import russet  # noqa: F401
from opinfo_check import host_free

D = "russet"


def tensors(dtype, seed, shapes=((0,), (1,), (7,), (300,), (5, 33), ())):
    g = torch.Generator().manual_seed(seed)
    return [(torch.rand(s, generator=g) + 0.5).to(dtype) for s in shapes]


# (op, list arguments, extra arguments); the extras are Python scalars or lists of them
CASES = [
    ("_foreach_add", 1, (2.5,)), ("_foreach_add", 2, ()), ("_foreach_add", 1, ("list",)),
    ("_foreach_sub", 1, (0.75,)), ("_foreach_sub", 2, ()), ("_foreach_sub", 1, ("list",)),
    ("_foreach_mul", 1, (0.9,)), ("_foreach_mul", 2, ()), ("_foreach_mul", 1, ("list",)),
    ("_foreach_div", 1, (3.0,)), ("_foreach_div", 2, ()), ("_foreach_div", 1, ("list",)),
    ("_foreach_addcmul", 3, (0.001,)), ("_foreach_addcmul", 3, ("list",)),
    ("_foreach_addcdiv", 3, (-0.01,)), ("_foreach_addcdiv", 3, ("list",)),
    ("_foreach_lerp", 2, (0.1,)), ("_foreach_lerp", 2, ("list",)),
    ("_foreach_sqrt", 1, ()),
]


def call(name, inplace, lists, extras):
    fn = getattr(torch, name + ("_" if inplace else ""))
    n = len(lists[0])
    args = [e if e != "list" else [0.25 + 0.5 * i for i in range(n)] for e in extras]
    if name in ("_foreach_add", "_foreach_sub") and len(lists) == 2:
        return fn(*lists, alpha=0.5)
    return fn(*lists, *args)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.bfloat16])
@pytest.mark.parametrize("inplace", [False, True])
@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c[0]}-{c[1]}-{'list' if 'list' in c[2] else len(c[2])}")
def test_foreach_matches_the_per_tensor_ops_and_cpu(case, inplace, dtype):
    name, nlists, extras = case
    cpu = [tensors(dtype, 10 + j) for j in range(nlists)]
    for lst in cpu:
        lst[4] = lst[4].t()  # a non-contiguous member (runs one by one)
    dev = [[t.to(D) for t in lst] for lst in cpu]
    one = [[t.to(D) for t in lst] for lst in cpu]
    want = call(name, inplace, cpu, extras)
    got = host_free(lambda: call(name, inplace, dev, extras))
    # the per-tensor ops, one list of one tensor at a time
    each = [call(name, inplace, [[lst[i]] for lst in one], extras if "list" not in extras else
                 [[0.25 + 0.5 * i]]) for i in range(len(one[0]))]
    if inplace:
        want, got, each = cpu[0], dev[0], [lst[0] for lst in [[t] for t in one[0]]]
    else:
        each = [r[0] for r in each]
    for i, (w, g, e) in enumerate(zip(want, got, each)):
        assert g.dtype == w.dtype and g.shape == w.shape
        assert torch.equal(g.cpu(), e.cpu()), f"tensor {i}: not the per-tensor op's bits"
        assert_close(g.cpu(), w, msg=lambda m: f"tensor {i}: {m}")


def test_aliased_members_apply_in_order_like_cpu():
    x = torch.rand(50) + 1
    y = torch.rand(50)
    xd, yd = x.to(D), y.to(D)
    torch._foreach_add_([x, x, y], [y, y, x], alpha=2.0)  # x twice: both updates land
    torch._foreach_add_([xd, xd, yd], [yd, yd, xd], alpha=2.0)
    assert_close(xd.cpu(), x)
    assert_close(yd.cpu(), y)


def test_mixed_dtypes_and_devices_in_one_call():
    a = [torch.rand(9), torch.rand(4).half(), torch.rand(3, dtype=torch.bfloat16)]
    b = [t.to(D) for t in a]
    torch._foreach_mul_(a, 3.0)
    torch._foreach_mul_(b, 3.0)
    for x, y in zip(a, b):
        assert torch.equal(y.cpu(), x)
    with pytest.raises(RuntimeError):
        torch._foreach_add_([torch.rand(3, device=D)], [torch.rand(4, device=D)])


@pytest.mark.parametrize("opt", ["SGD", "Adam", "AdamW", "Adagrad", "RMSprop"])
def test_foreach_optimizers_step_like_the_per_tensor_loop_and_cpu(opt):
    """foreach=True on russet gives the bits of foreach=False (the per-tensor
    loop), and CPU's values; RMSprop's first steps divide by sqrt of squared
    gradients near 0, which turns the last bits of a gradient into 1e-4, so
    it is compared with russet's loop only"""
    torch.manual_seed(0)
    x, y = torch.randn(32, 8), torch.randint(0, 3, (32,))
    ref = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.ReLU(), torch.nn.Linear(16, 3))
    runs = []
    for dev, foreach in (("cpu", True), (D, True), (D, False)):
        model = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.ReLU(), torch.nn.Linear(16, 3)).to(dev)
        model.load_state_dict(ref.state_dict())
        kw = dict(lr=0.01, foreach=foreach)
        if opt == "SGD":
            kw["momentum"] = 0.9
        o = getattr(torch.optim, opt)(model.parameters(), **kw)
        for _ in range(3):
            o.zero_grad()
            torch.nn.functional.cross_entropy(model(x.to(dev)), y.to(dev)).backward()
            o.step()
        runs.append([p.detach().cpu() for p in model.parameters()])
    for c, f, loop in zip(*runs):
        assert torch.equal(f, loop)
        if opt != "RMSprop":
            assert_close(f, c, rtol=1e-5, atol=1e-6)
