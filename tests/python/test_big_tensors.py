"""Tensors past 2^31 elements and past 4 GiB (issue 4: 64-bit indexing).

Every check uses values whose results are known exactly, so the CPU side
costs nothing: a fill, a few elements set past 2^31, then the pointwise,
reduction, cast and gather engines over the whole tensor, read back as small
slices. The peak device memory is about 11 GiB, so the tests run only where
the device has at least 32 GiB (the lent H200, a Mac with enough unified
memory; lavapipe here reports a 2 GiB heap). `RUSSET_TEST_BIG=0` skips them,
`RUSSET_TEST_BIG=1` runs them whatever the memory.

On a machine without pytest (the GPU image) run this file directly:
`PYTHONPATH=python python3 tests/python/test_big_tensors.py` (bench/gpu.sh big).
"""

import math
import os
import sys

if __name__ == "__main__":
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))

import torch

import russet  # noqa: F401

DEVICE = "russet"
BIG = 1 << 31    # the boundary the checks straddle; the same checks run
SMALL = 1 << 20  # small everywhere, so that the checks themselves are tested


def _enabled():
    flag = os.environ.get("RUSSET_TEST_BIG")
    if flag is not None:
        return flag != "0"
    return torch.russet.get_device_properties(0).total_memory >= (32 << 30)


def check_uint8_past_2_31(BOUND=BIG):
    N8 = BOUND + 4096  # uint8 elements: past 2^31 (2 GiB)
    x = torch.empty(N8, dtype=torch.uint8, device=DEVICE)
    x.fill_(3)
    x[-7:] = 5                      # the last elements, past 2^31
    x[BOUND - 1:BOUND + 1] = 9  # the two around 2^31
    y = x + 1                       # the contiguous pointwise path
    assert y[:3].cpu().tolist() == [4, 4, 4]
    assert y[BOUND - 2:BOUND + 2].cpu().tolist() == [4, 10, 10, 4]
    assert y[-8:].cpu().tolist() == [4] + [6] * 7
    # int64 accumulation over 2^31 + 4096 elements
    assert y.sum().item() == 4 * N8 + 2 * 7 + 6 * 2
    assert y.max().item() == 10 and y.argmax().item() == BOUND - 1
    # a transposed view: element offsets past 2^31 through the strided path
    t = y.view(2, N8 // 2).t()      # (N8 / 2, 2), strides (1, N8 / 2)
    z = t * 2
    assert z.shape == (N8 // 2, 2)
    assert z[-1].cpu().tolist() == [8, 12]  # y[N8 / 2 - 1], y[N8 - 1]
    r = BOUND - 1 - N8 // 2             # the row whose column 1 is y[2^31 - 1]
    assert z[r].cpu().tolist() == [8, 20]
    assert z.sum().item() == 2 * y.sum().item()
    # gathers with indices past 2^31
    idx = torch.tensor([0, BOUND - 1, BOUND + 5, N8 - 1], device=DEVICE)
    assert y.index_select(0, idx).cpu().tolist() == [4, 10, 4, 6]
    assert y[idx].cpu().tolist() == [4, 10, 4, 6]
    del x, y, t, z


def check_float32_past_4_gib(BOUND=BIG):
    N32 = BOUND // 2 + 1024  # float32 elements: past 4 GiB
    a = torch.ones(N32, device=DEVICE)   # 4 GiB + 4 KiB
    a[-3:] = 2.0
    b = torch.exp(a)                   # a transcendental over > 4 GiB
    tail = b[-4:].cpu()
    want = torch.tensor([math.e, math.exp(2.0), math.exp(2.0), math.exp(2.0)], dtype=torch.float64)
    assert torch.allclose(tail.double(), want, rtol=1e-6, atol=0), tail
    assert b.argmax().item() == N32 - 3    # the first maximum, an index past 2^30
    assert b.amin().item() == b[0].item()
    h = b.to(torch.float16)            # the cast (the copy engine)
    assert torch.equal(h[-4:].cpu(), tail.half())
    assert torch.equal(h[:2].cpu(), b[:2].cpu().half())
    # a comparison over > 4 GiB, counted into int64
    assert (a == 2.0).sum().item() == 3
    assert (b > 3.0).nonzero().flatten().cpu().tolist() == [N32 - 3, N32 - 2, N32 - 1]
    del a, b, h


def test_checks_at_a_small_boundary():
    check_uint8_past_2_31(SMALL)
    check_float32_past_4_gib(SMALL)


def test_uint8_past_2_31():
    import pytest

    if not _enabled():
        pytest.skip("needs a device with >= 32 GiB (RUSSET_TEST_BIG=1 forces it)")
    check_uint8_past_2_31()


def test_float32_past_4_gib():
    import pytest

    if not _enabled():
        pytest.skip("needs a device with >= 32 GiB (RUSSET_TEST_BIG=1 forces it)")
    check_float32_past_4_gib()


if __name__ == "__main__":
    for f in (check_uint8_past_2_31, check_float32_past_4_gib):
        f()
        torch.russet.synchronize()
        print(f"{f.__name__}: ok", flush=True)
    print("big tensors: all checks pass")
