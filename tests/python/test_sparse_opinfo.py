"""PyTorch's OpInfo samples for the sparse layouts, for every OpInfo with
supports_sparse or supports_sparse_csr/csc/bsr/bsc, on russet against CPU,
float32 and int64: the OpInfo's own sparse samples (`sample_inputs_sparse`)
or, where it has none (the unary ufuncs), its dense samples' inputs
converted to the layout, as PyTorch's test_sparse_unary_ufuncs does.
Results are compared as dense tensors, and must be host-free except the
(layout, op) pairs in HOST, which run some of their work on the host
(counted), and float64 results where the device has no fp64 (apple)."""

import warnings

import pytest
import torch
from torch.testing import assert_close
from torch.testing._internal.common_methods_invocations import op_db
from torch.utils._pytree import tree_map

D = "russet"
warnings.filterwarnings("ignore", message="Sparse (CSR )?(invariant checks|tensor support)")

LAYOUTS = {"coo": torch.sparse_coo, "csr": torch.sparse_csr, "csc": torch.sparse_csc, "bsr": torch.sparse_bsr,
           "bsc": torch.sparse_bsc}
# where part of the work has no russet kernel (docs/sparse.md): why
HOST = {
    ("coo", "mul"): "a sparse * sparse sample with broadcast dense dims",
    ("csr", "sum"): "_sparse_csr_sum (CPU's and CUDA's own kernels)",
    ("csr", "masked.sum"): "_sparse_csr_sum",
    ("csr", "masked.prod"): "_sparse_csr_prod",
}
HOST[("csr", "mul")] = "batched CSR * CSR (3-d samples): no kernel yet (2-d CSR * CSR runs natively)"
RANDOM = {"randn_like"}  # values differ by design; shapes and layouts are compared


def cases():
    for lname, layout in LAYOUTS.items():
        attr = "supports_sparse" if lname == "coo" else f"supports_sparse_{lname}"
        for op in op_db:
            if getattr(op, attr, False):
                yield pytest.param(lname, op, id=f"{lname}-{op.name}")


def moved(x):
    """a sample's argument as russet's run takes it: tensors moved, the CPU named by a device argument russet"""
    if isinstance(x, torch.Tensor):
        return x.to(D)
    if (isinstance(x, str) and x == "cpu") or (isinstance(x, torch.device) and x.type == "cpu"):
        return torch.device(D)
    return x


def samples_of(op, lname, dtype):
    """the OpInfo's sparse samples, or its dense samples' inputs converted"""
    layout = LAYOUTS[lname]
    try:
        return list(op.sample_inputs_sparse(layout, "cpu", dtype))
    except NotImplementedError:
        pass
    out = []
    for s in op.sample_inputs("cpu", dtype):
        x = s.input
        if not isinstance(x, torch.Tensor) or x.dim() < (1 if lname == "coo" else 2):
            continue
        kw = {"blocksize": (1, 1)} if lname in ("bsr", "bsc") else {}
        out.append(s.__class__(x.to_sparse(layout=layout, **kw), args=s.args, kwargs=s.kwargs))
    return out


def as_dense(x):
    x = x.cpu()
    return x.to_dense() if x.layout != torch.strided else x


@pytest.mark.parametrize("lname,op", list(cases()))
@pytest.mark.parametrize("dtype", [torch.float32, torch.int64])
def test_sparse_samples(lname, op, dtype):
    if dtype not in op.supported_dtypes("cpu"):
        pytest.skip("CPU has no kernel for the dtype")
    try:
        samples = samples_of(op, lname, dtype)
    except Exception as e:  # noqa: BLE001  (OpInfo's sample functions refuse this layout)
        pytest.skip(f"no samples: {type(e).__name__}: {e}")
    fp64 = torch.russet.get_device_properties().features.has_fp64
    ran = 0
    for s in samples:
        try:
            exp = op(s.input, *s.args, **s.kwargs)
        except Exception:  # noqa: BLE001  (an error sample for CPU too)
            continue
        torch.russet.reset_host_op_counts()
        got = op(moved(s.input), *tree_map(moved, s.args), **tree_map(moved, s.kwargs))
        host = torch.russet.host_op_counts()
        if (lname, op.name) not in HOST and (fp64 or torch.float64 not in (exp.dtype, dtype)):
            assert host == {}, f"{op.name} on {lname}: ran on the host: {host}"
        assert got.layout == exp.layout and got.shape == exp.shape and got.dtype == exp.dtype
        if op.name not in RANDOM:
            assert_close(as_dense(got), as_dense(exp), rtol=1e-5, atol=1e-5, equal_nan=True)
        ran += 1
    if ran == 0:
        pytest.skip("every sample raises on CPU")
