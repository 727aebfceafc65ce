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
import sys
import zlib

import torch
from torch.testing import assert_close
from torch.testing._internal.common_methods_invocations import op_db

# the conformance harness (tools/conformance.py: its tolerances), importable
# in the child processes that some tests run this module in
_TOOLS = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "tools")
if _TOOLS not in sys.path:
    sys.path.insert(0, _TOOLS)

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


# float32/complex64 results that miss assert_close's defaults are held to
# CPU's own accuracy against these
WIDER = {torch.float32: torch.float64, torch.complex64: torch.complex128}

# Known accuracy gaps, each measured and explained (docs/architecture.md,
# "How a test compares with CPU"): a
# fudge over CPU's own float64 distance (default 2), or a tolerance for one
# (op, dtype). Tighter than the OpInfo overrides for other tests and devices
# that these checks used to borrow (addbmm bfloat16's atol 0.2, rtol 0.6).
FUDGE_GAPS = {
    # one accumulator over batch x k (reduce_batch) where CPU adds per-batch
    # products: 2.5x CPU's error on one sample (4.6e-5 against 1.8e-5)
    ("addbmm", torch.float32): 3,
}
TOLERANCE_GAPS = {}


def _upcast(x, dtype, table=REDUCED):
    if isinstance(x, torch.Tensor):
        return x.detach().to(table[dtype]) if x.dtype == dtype else x.detach()
    if isinstance(x, (list, tuple)):
        return type(x)(_upcast(e, dtype, table) for e in x)
    if isinstance(x, dict):
        return {k: _upcast(v, dtype, table) for k, v in x.items()}
    return x


def _as_accurate_as_cpu_everywhere(got, expected, ref, what, fudge=2):
    """as_accurate_as_cpu over an op's tensor outputs, with NaN and infinity
    where CPU has them and the accuracy rule on CPU's finite elements"""
    gots, exps, refs = ((x,) if isinstance(x, torch.Tensor) else tuple(x) for x in (got, expected, ref))
    for g, e, r in zip(gots, exps, refs):
        if not isinstance(e, torch.Tensor):
            assert_close(g, e, equal_nan=True, msg=lambda m: f"{what}: {m}")
            continue
        fin = e.isfinite()
        assert_close(g.masked_fill(fin, 0), e.masked_fill(fin, 0), equal_nan=True, rtol=0, atol=0,
                     msg=lambda m: f"{what}: non-finite elements differ: {m}")
        if fin.any():
            as_accurate_as_cpu(g[fin], e[fin], r[fin], what, fudge=fudge)


def _downcast(x, dtype, wide=None):
    """x's tensors of the wider type (REDUCED[dtype] unless `wide`) back in dtype"""
    if isinstance(x, torch.Tensor):
        return x.to(dtype) if x.dtype == (wide or REDUCED[dtype]) else x
    if isinstance(x, (list, tuple)):
        return type(x)(_downcast(e, dtype, wide) for e in x)
    return x


def flushes_denormals():
    """True where float32 denormals may read as zero: the device offers no
    DenormPreserve for float32 (the apple profile never asks for it; NVIDIA
    then flushes). Exact tests with denormal values expect the flushed
    answer there (docs/architecture.md, "Exact math")."""
    return not torch.russet.get_device_properties().features.preserve_denorm & 2


def flushed(x):
    """x with its float32 denormals made zeros, signs kept (what such a device
    reads)"""
    return torch.where(x.abs() < torch.finfo(x.dtype).tiny, x * 0, x)


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


def fresh_cpu(x):
    """x's tensors as new CPU copies: an op that writes its input (the
    max_norm of embedding and embedding_bag renormalizes the weight in
    place) must not hand the next call an input it already changed"""
    if isinstance(x, torch.Tensor):
        return x.detach().cpu().clone()
    if isinstance(x, (list, tuple)):
        return type(x)(fresh_cpu(e) for e in x)
    if isinstance(x, dict):
        return {k: fresh_cpu(v) for k, v in x.items()}
    return x


def as_accurate_as_cpu(got, cpu_lp, ref, what, fudge=2):
    """russet's distance from a wider computation of the same inputs (float32
    for float16/bfloat16, float64 for float32) is at most `fudge` times CPU's
    own in that dtype (or a rounding step of the result): PyTorch's rule for
    its fused attention kernels (test_transformers.py: the tolerance is a
    fudge factor times the math backend's low-precision error; 5 by default,
    4 for out, 8 to 160 for the memory-efficient kernel's gradients)"""
    err = (got.to(ref.dtype) - ref).abs().max().item()
    cpu_err = (cpu_lp.to(ref.dtype) - ref).abs().max().item()
    floor = torch.finfo(got.dtype).eps * max(ref.abs().max().item(), 1.0)
    assert err <= max(fudge * cpu_err, floor), f"{what}: russet {err:.3g} from the wider result, CPU {cpu_err:.3g}"


def _tolerance(op, dtype):
    """The OpInfo's own tolerance overrides for this dtype, as the
    conformance sweep reads them (tools/conformance.py tolerances: only those for
    every test or for test_compare_cpu, PyTorch's device-against-CPU test,
    never another device's), each no looser than assert_close's default;
    else {} (the defaults)."""
    from torch.testing._comparison import default_tolerances
    from conformance import tolerances

    t = tolerances(op, dtype)
    if t is None:
        return {}
    rtol, atol = default_tolerances(dtype)
    return dict(atol=max(atol, t[0]), rtol=max(rtol, t[1]))


def _reduced_as_float32(fn, got, args_cpu, s, name, dtype, tol):
    """CPU's float16/bfloat16 kernels are not consistent with themselves:
    the vectorized body computes in float32 and rounds once, the scalar tail
    rounds intermediates. Accept the float32 computation rounded to the
    dtype, exactly as strict as the direct comparison."""
    up = _upcast(args_cpu, dtype)
    ref = fn(*up, **_upcast(s.kwargs, dtype))
    try:
        assert_close(_to(got, "cpu"), _downcast(ref, dtype), equal_nan=True,
                     msg=lambda m: f"{name} {dtype} {s}: {m}", **tol)
    except AssertionError:
        # CPU's float32 is not always right either: fmod(-8.4375, 2^-126) is
        # an exact -0, and the vectorized float32 fmod of the H200's host
        # (AVX-512) gives NaN. The float64 result rounded to the dtype, the
        # best answer there is, is accepted at the same tolerance.
        table = {dtype: torch.float64}
        ref64 = fn(*_upcast(args_cpu, dtype, table), **_upcast(s.kwargs, dtype, table))
        assert_close(_to(got, "cpu"), _downcast(ref64, dtype, torch.float64), equal_nan=True,
                     msg=lambda m: f"{name} {dtype} {s}: {m}", **tol)


def check_opinfo(name, variant="", dtypes=None, max_samples=12, native=True, inplace=False, host_dtypes=()):
    """Compares the op with CPU on OpInfo's samples. With `native`, no
    sample may run on the host, except in HOST_DTYPES (the profile's) and
    `host_dtypes` (dtypes documented to run there under every profile)."""
    op = opinfo(name, variant)
    if dtypes is None:
        dtypes = sorted(op.supported_dtypes("cpu"), key=str)
    checked = 0
    for dtype in dtypes:
        # the same samples on every run and machine (OpInfo draws them from
        # the global generator): a failure on the H200 is one lavapipe can
        # reproduce
        torch.manual_seed(zlib.crc32(f"{name}.{variant}.{dtype}".encode()))
        samples = list(op.sample_inputs("cpu", dtype, requires_grad=False))[:max_samples]
        for s in samples:
            fn = op.inplace_variant if inplace else op.op
            if fn is None:
                continue
            args_cpu = [s.input] + list(s.args)
            try:
                expected = fn(*fresh_cpu(args_cpu), **fresh_cpu(s.kwargs))
            except Exception:  # noqa: BLE001 - CPU rejects it: russet may too
                continue
            torch.russet.reset_host_op_counts()
            got = fn(*_to(args_cpu, D), **_to(s.kwargs, D))
            host = torch.russet.host_op_counts()
            tol = TOLERANCE_GAPS.get((name, dtype)) or _tolerance(op, dtype)
            try:
                assert_close(_to(got, "cpu"), expected, equal_nan=True, msg=lambda m: f"{name} {dtype}: {m}", **tol)
            except AssertionError:
                if dtype in WIDER:
                    # a summation order or a last ulp apart from CPU's: then
                    # at most twice CPU's own distance from float64
                    # (PyTorch's rule for its fused kernels, fudge 2)
                    ref = fn(*_upcast(args_cpu, dtype, WIDER), **_upcast(s.kwargs, dtype, WIDER))
                    _as_accurate_as_cpu_everywhere(_to(got, "cpu"), expected, ref, f"{name} {dtype} {s}",
                                                   fudge=FUDGE_GAPS.get((name, dtype), 2))
                elif dtype not in REDUCED:
                    raise
                else:
                    _reduced_as_float32(fn, got, args_cpu, s, name, dtype, tol)
            if native and dtype not in HOST_DTYPES and dtype not in host_dtypes:
                assert not host, f"{name} {dtype}: ran on the host: {host}"
            checked += 1
    assert checked > 0, f"{name}: no sample was checked"
    return checked
