"""Checks an op on russet against CPU with PyTorch's own OpInfo sample inputs.

    check_opinfo("add", dtypes=[...])

For every sample of the OpInfo (sample_inputs, small sizes) and every dtype
given (default: every dtype CPU supports for the op), it runs the op on CPU
and on russet with the same inputs and compares with assert_close, using
PyTorch's per-dtype tolerances (tighter or looser only where the OpInfo
itself says so). It also asserts that nothing ran on the host for the
dtypes that must be native: under the apple profile every dtype but float64
and complex128 (which the device cannot compute there).
"""

import os

import torch
from torch.testing import assert_close
from torch.testing._internal.common_methods_invocations import op_db

D = "russet"
HOST_DTYPES = {torch.float64, torch.complex128} if os.environ.get("RUSSET_PROFILE", "apple") == "apple" else set()
# float64/complex128 of the families that have no such kernels yet (special
# functions, softmax and nll_loss, complex128 scans, glu): on the host under
# every profile, the native one included (README)
FP64_HOST = (torch.float64, torch.complex128)
_BY_NAME = {}
for _op in op_db:
    _BY_NAME.setdefault((_op.name, _op.variant_test_name), _op)


REDUCED = {torch.float16: torch.float32, torch.bfloat16: torch.float32, torch.complex32: torch.complex64}


def _upcast(x, dtype):
    if isinstance(x, torch.Tensor):
        return x.detach().to(REDUCED[dtype]) if x.dtype == dtype else x.detach()
    if isinstance(x, (list, tuple)):
        return type(x)(_upcast(e, dtype) for e in x)
    if isinstance(x, dict):
        return {k: _upcast(v, dtype) for k, v in x.items()}
    return x


def _downcast(x, dtype):
    if isinstance(x, torch.Tensor):
        return x.to(dtype) if x.dtype == REDUCED[dtype] else x
    if isinstance(x, (list, tuple)):
        return type(x)(_downcast(e, dtype) for e in x)
    return x


def host_free(fn):
    """Runs fn() and asserts that nothing ran through host execution."""
    torch.russet.reset_host_op_counts()
    r = fn()
    assert torch.russet.host_op_counts() == {}, torch.russet.host_op_counts()
    return r


def opinfo(name, variant=""):
    return _BY_NAME[(name, variant)]


def moved(x, device, dtype=None):
    """x (tensors, nested in lists/tuples/dicts) on `device`; floating
    tensors also cast to `dtype` when given."""
    if isinstance(x, torch.Tensor):
        x = x.detach().to(device)
        return x.to(dtype) if dtype is not None and x.is_floating_point() else x
    if isinstance(x, (list, tuple)):
        return type(x)(moved(e, device, dtype) for e in x)
    if isinstance(x, dict):
        return {k: moved(v, device, dtype) for k, v in x.items()}
    return x


_to = moved


def _tolerance(op, dtype):
    """The OpInfo's own tolerance override for this dtype (toleranceOverride
    decorators), if any; else assert_close's per-dtype defaults."""
    for dec in getattr(op, "decorators", ()) or ():
        for d in getattr(dec, "decorators", None) or [dec]:
            table = getattr(d, "d", None)
            if isinstance(table, dict) and dtype in table and hasattr(table[dtype], "atol"):
                return dict(atol=table[dtype].atol, rtol=table[dtype].rtol)
    return {}


def check_opinfo(name, variant="", dtypes=None, max_samples=12, native=True, inplace=False, host_dtypes=()):
    """Compares the op with CPU on OpInfo's samples. With `native`, no
    sample may run on the host, except in HOST_DTYPES (the profile's) and
    `host_dtypes` (dtypes documented to run there under every profile)."""
    op = opinfo(name, variant)
    if dtypes is None:
        dtypes = sorted(op.supported_dtypes("cpu"), key=str)
    checked = 0
    for dtype in dtypes:
        samples = list(op.sample_inputs("cpu", dtype, requires_grad=False))[:max_samples]
        for s in samples:
            fn = op.inplace_variant if inplace else op.op
            if fn is None:
                continue
            args_cpu = [s.input] + list(s.args)
            try:
                expected = fn(*_to(args_cpu, "cpu"), **_to(s.kwargs, "cpu"))
            except Exception:  # noqa: BLE001 - CPU rejects it: russet may too
                continue
            torch.russet.reset_host_op_counts()
            got = fn(*_to(args_cpu, D), **_to(s.kwargs, D))
            host = torch.russet.host_op_counts()
            tol = _tolerance(op, dtype)
            try:
                assert_close(_to(got, "cpu"), expected, equal_nan=True, **tol)
            except AssertionError:
                if dtype not in REDUCED:
                    raise
                # CPU's float16/bfloat16 kernels are not consistent with
                # themselves: the vectorized body computes in float32 and
                # rounds once, the scalar tail rounds intermediates. Accept
                # the float32 computation rounded to the dtype, exactly as
                # strict as the direct comparison.
                up = _upcast(args_cpu, dtype)
                ref = fn(*up, **_upcast(s.kwargs, dtype))
                assert_close(_to(got, "cpu"), _downcast(ref, dtype), equal_nan=True,
                             msg=lambda m: f"{name} {dtype} {s}: {m}", **tol)
            if native and dtype not in HOST_DTYPES and dtype not in host_dtypes:
                assert not host, f"{name} {dtype}: ran on the host: {host}"
            checked += 1
    assert checked > 0, f"{name}: no sample was checked"
    return checked
