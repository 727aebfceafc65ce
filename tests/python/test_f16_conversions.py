"""float16 conversions, bit for bit against PyTorch CPU, on both paths:
the device's own conversions, which kernels use where the device passed
its check when it was made (src/vk/f16_check.c; lavapipe does), and c10's
conversions in software (RUSSET_HW_F16=0, in a fresh interpreter).

Every half is decoded; floats around every rounding point are encoded
(ties, one below, one above, sticky bits, subnormal halves, overflow to
infinity); and float16 add runs on halves of every kind. NaNs compare as
NaNs with their sign (CPU's vector conversions quiet signalling NaNs and
keep payloads that c10's scalar ones keep or drop; a sum of two NaNs may
take either's sign), bit for bit otherwise.
"""

import pytest
import torch

from conftest import run_python

CHECK = r'''
import torch, russet
D = "russet"

def nan_aware_equal(got_bits16, want_bits16, nan_sign=True):
    g, w = got_bits16.to(torch.int32) & 0xFFFF, want_bits16.to(torch.int32) & 0xFFFF
    g_nan = ((g & 0x7C00) == 0x7C00) & ((g & 0x3FF) != 0)
    w_nan = ((w & 0x7C00) == 0x7C00) & ((w & 0x3FF) != 0)
    sign_ok = ((g & 0x8000) == (w & 0x8000)) if nan_sign else True
    return (g == w) | (g_nan & w_nan & sign_ok)

halves = torch.arange(65536, dtype=torch.int32).to(torch.int16).view(torch.float16)
got = halves.to(D).float().cpu()
want = halves.float()
both_nan = got.isnan() & want.isnan() & (got.signbit() == want.signbit())
bad = ((got.view(torch.int32) != want.view(torch.int32)) & ~both_nan).nonzero().flatten()
assert bad.numel() == 0, f"decode: {bad.numel()} halves differ, first {int(bad[0]):#06x}"

top = torch.arange(65536, dtype=torch.int64) << 16
mid = torch.arange(8, dtype=torch.int64) << 13
low = torch.tensor([0, 1, 0x7FF, 0xFFF, 0x1000, 0x1001, 0x17FF, 0x1FFF], dtype=torch.int64)
bits = (top[:, None, None] | mid[None, :, None] | low[None, None, :]).reshape(-1)
floats = bits.to(torch.int32).view(torch.float32)
got = floats.to(D).half().cpu().view(torch.int16)
want = floats.half().view(torch.int16)
same = nan_aware_equal(got, want)
bad = (~same).nonzero().flatten()
assert bad.numel() == 0, f"encode: {bad.numel()} of {bits.numel()} differ, first input {int(bits[bad[0]]):#010x}"

g = torch.Generator().manual_seed(0)
a = torch.randint(-32768, 32768, (1 << 16,), generator=g, dtype=torch.int32).to(torch.int16).view(torch.float16)
b = torch.randint(-32768, 32768, (1 << 16,), generator=g, dtype=torch.int32).to(torch.int16).view(torch.float16)
got = (a.to(D) + b.to(D)).cpu().view(torch.int16)
want = (a + b).view(torch.int16)
bad = (~nan_aware_equal(got, want, nan_sign=False)).nonzero().flatten()  # NaN + NaN: either sign
assert bad.numel() == 0, f"add: {bad.numel()} differ, first {float(a[bad[0]])} + {float(b[bad[0]])}"
print("ok", torch.russet.get_device_properties().float16_conversions)
'''


def test_device_conversions_match_cpu():
    exec(compile(CHECK.replace('print("ok", ', "("), "f16_check", "exec"), {})


def test_properties_say_which_conversions():
    # the default is the check's verdict; the GEMM's float16 modules follow
    # it too (docs/gemm.md)
    assert torch.russet.get_device_properties().float16_conversions in ("device", "software")


@pytest.mark.parametrize("mode", ["0", "1"], ids=["c10-software", "device-forced"])
def test_each_path_matches_cpu(mode):
    # "1" takes the device's conversions without the check: on lavapipe,
    # which passes the check, that is the same path as the default
    r = run_python(CHECK, env={"RUSSET_HW_F16": mode})
    assert r.returncode == 0 and "ok" in r.stdout, r.stdout + r.stderr
    assert r.stdout.split()[-1] == ("software" if mode == "0" else "device"), r.stdout
