"""Shared helpers of test_scan.py, test_sort.py and test_select.py."""

import os

import torch
from torch.testing import assert_close

from opinfo_check import HOST_DTYPES, _to, opinfo

D = "russet"
APPLE = os.environ.get("RUSSET_PROFILE", "apple") == "apple"


def native(fn):
    """Runs fn and asserts that nothing ran on the host; returns its value."""
    torch.russet.reset_host_op_counts()
    out = fn()
    host = torch.russet.host_op_counts()
    assert not host, f"ran on the host: {host}"
    return out


def check_samples(name, compare, dtypes=None, max_samples=20, variant=""):
    """Every OpInfo sample of `name` on CPU and on russet; compare(cpu, dev,
    sample) checks the results (for ops whose tie-breaking is not defined)."""
    op = opinfo(name, variant)
    if dtypes is None:
        dtypes = sorted(op.supported_dtypes("cpu"), key=str)
    checked = 0
    for dtype in dtypes:
        for s in list(op.sample_inputs("cpu", dtype, requires_grad=False))[:max_samples]:
            args = [s.input] + list(s.args)
            try:
                expected = op.op(*_to(args, "cpu"), **_to(s.kwargs, "cpu"))
            except Exception:  # noqa: BLE001 - CPU rejects it
                continue
            torch.russet.reset_host_op_counts()
            got = op.op(*_to(args, D), **_to(s.kwargs, D))
            host = torch.russet.host_op_counts()
            compare(expected, _to(got, "cpu"), s)
            if dtype not in HOST_DTYPES:
                assert not host, f"{name} {dtype}: ran on the host: {host}"
            checked += 1
    assert checked > 0
    return checked


def values_and_consistent_indices(expected, got, s, dim_arg=None):
    """(values, indices) results: values as CPU, and the indices pick those
    values out of the input (ties may pick another equal element)."""
    assert_close(got[0], expected[0], equal_nan=True)
    x = s.input
    if x.dim() == 0:
        assert got[1].item() == 0
        return
    dim = dim_arg(s) if dim_arg else -1
    idx = got[1]
    vals = got[0]
    if vals.dim() < x.dim():
        idx = idx.unsqueeze(dim)
        vals = vals.unsqueeze(dim)
    assert_close(x.gather(dim, idx), vals, equal_nan=True)
