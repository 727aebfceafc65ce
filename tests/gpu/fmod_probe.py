"""fmod and remainder in bfloat16 on the H200 (the apple sweep's NaN, issue
15): every OpInfo sample against CPU, printing each mismatch with its
inputs' bits, so a wrong element can be reproduced by hand.

    RUSSET_PROFILE=apple python3 tests/gpu/fmod_probe.py
"""

import torch
from torch.testing._internal.common_methods_invocations import op_db

import russet  # noqa: F401


def bits(v):
    return hex(v.to(torch.bfloat16).view(torch.int16).item() & 0xFFFF)


def main():
    bad = 0
    for name in ("fmod", "remainder"):
        for dtype in (torch.bfloat16, torch.float16, torch.float32):
            op = [o for o in op_db if o.name == name and o.variant_test_name == ""][0]
            torch.manual_seed(0)
            for s in op.sample_inputs("cpu", dtype):
                x, y = s.input, s.args[0]
                want = op.op(x, y)
                got = op.op(x.to("russet"), y.to("russet") if isinstance(y, torch.Tensor) else y).cpu()
                diff = ~((got == want) | (got.isnan() & want.isnan()))
                if diff.any():
                    yb = torch.broadcast_to(y, want.shape) if isinstance(y, torch.Tensor) else torch.full_like(want, y)
                    xb = torch.broadcast_to(x, want.shape)
                    for idx in diff.nonzero()[:4].tolist():
                        i = tuple(idx)
                        bad += 1
                        print(f"{name} {dtype} shape {tuple(want.shape)} at {i}: x {xb[i].item()!r} ({bits(xb[i])}) "
                              f"y {yb[i].item()!r} ({bits(yb[i])}) cpu {want[i].item()!r} russet {got[i].item()!r}")
    print(f"fmod_probe: {bad} mismatches, profile {torch.russet.get_device_properties().profile}")


if __name__ == "__main__":
    main()
