"""torch.optim's fused=True steps on russet (src/torch/ops/fused_optim.cpp:
_fused_adam_, _fused_adamw_, _fused_sgd_, _fused_adagrad_) against CPU's
own fused kernels on the same parameters and gradients: float32 to
float32's rounding, float16/bfloat16 to one unit in their last place (both
sides compute in float and round once), every option that changes the
math, and a step skipped through found_inf.

CPU's own fused SGD is wrong for float16/bfloat16 in torch 2.13: its
vectorized loop leaves the first multiple of 32 elements of each parameter
unchanged (a (40,) parameter moves only its last 8). So SGD in those dtypes
is checked for one step against CPU's float32 fused step rounded to the
dtype, which is what the fused kernels compute."""
import pytest
import torch
from torch.testing import assert_close

import russet  # noqa: F401
from opinfo_check import host_free

D = "russet"

CONFIGS = {
    "SGD": [dict(lr=0.1), dict(lr=0.1, momentum=0.9), dict(lr=0.1, momentum=0.9, nesterov=True, weight_decay=0.01),
            dict(lr=0.1, momentum=0.9, dampening=0.1, maximize=True)],
    "Adam": [dict(lr=0.01), dict(lr=0.01, weight_decay=0.1, amsgrad=True), dict(lr=0.01, maximize=True)],
    "AdamW": [dict(lr=0.01, weight_decay=0.1), dict(lr=0.01, amsgrad=True)],
    "Adagrad": [dict(lr=0.1), dict(lr=0.1, weight_decay=0.1, lr_decay=0.01, maximize=True)],
}
CASES = [(o, i) for o, cs in CONFIGS.items() for i in range(len(cs))]


def params(dtype, seed):
    g = torch.Generator().manual_seed(seed)
    return [torch.randn(s, generator=g).to(dtype) for s in ((7,), (33, 5), (300,), (1,))]


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.bfloat16])
@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c[0]}-{c[1]}")
def test_fused_steps_match_cpu(case, dtype):
    name, i = case
    kw = CONFIGS[name][i]
    low = dtype != torch.float32
    cpu_bug = name == "SGD" and low  # (see the module's docstring)
    ref_dt = torch.float32 if cpu_bug else dtype
    cpu = [p.to(ref_dt).requires_grad_() for p in params(dtype, 1)]
    dev = [p.detach().to(dtype).to(D).requires_grad_() for p in cpu]
    oc = getattr(torch.optim, name)(cpu, fused=True, **kw)
    od = getattr(torch.optim, name)(dev, fused=True, **kw)
    for step in range(1 if cpu_bug else 3):
        grads = params(dtype, 10 + step)
        for p, pd, g in zip(cpu, dev, grads):
            p.grad, pd.grad = g.to(ref_dt), g.to(D)
        oc.step()
        host_free(od.step)
    if cpu_bug:
        cpu = [p.detach().to(dtype) for p in cpu]
    for k, (p, pd) in enumerate(zip(cpu, dev)):
        if dtype == torch.float32:
            assert_close(pd.detach().cpu(), p.detach(), rtol=2e-6, atol=2e-7, msg=lambda m: f"param {k}: {m}")
        else:
            # one unit in the last place of the dtype at most
            ulp = torch.finfo(dtype).eps * p.detach().float().abs().clamp_min(torch.finfo(dtype).tiny)
            err = (pd.detach().cpu().float() - p.detach().float()).abs()
            assert bool((err <= ulp * 1.0001).all()), f"param {k}: {err.max().item()} off"


@pytest.mark.parametrize("name", ["SGD", "Adam"])
def test_found_inf_skips_the_step(name):
    """found_inf = 1 on the device (GradScaler's overflow): the parameter
    stays as it was, with no host read"""
    p = torch.randn(10, device=D)
    before = p.clone()
    g, z, one = torch.randn(10, device=D), torch.zeros(10, device=D), torch.ones((), device=D)
    if name == "SGD":
        torch.ops.aten._fused_sgd_([p], [g], [z], weight_decay=0.0, momentum=0.9, lr=0.1, dampening=0.0,
                                   nesterov=False, maximize=False, is_first_step=True, found_inf=one)
    else:
        torch.ops.aten._fused_adam_([p], [g], [z], [z.clone()], [], [one.clone()], lr=0.01, beta1=0.9, beta2=0.999,
                                    weight_decay=0.0, eps=1e-8, amsgrad=False, maximize=False, found_inf=one)
    assert torch.equal(p.cpu(), before.cpu())
