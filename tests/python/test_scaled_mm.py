"""torch._scaled_mm and torch._scaled_mm_v2 on russet (src/torch/ops/scaled_mm.cpp):
float8 products with per-tensor and per-row scales, bias, a float8 output
with scale_result, out=, against CPU with no host op; bad inputs raise as
on CPU."""

import pytest
import torch
from torch.testing import assert_close

from opinfo_check import check_opinfo, host_free

D = "russet"
# The CPU reference these tests compare with is torch 2.13's: before it, CPU
# _scaled_mm took per-tensor scales only, had no _scaled_mm_v2, and raised
# other errors (the H200 image's torch 2.11 shows all three)
pytestmark = pytest.mark.skipif(tuple(int(v) for v in torch.__version__.split(".")[:2]) < (2, 13),
                                reason="CPU's torch._scaled_mm before torch 2.13 is not the reference")
F8 = [torch.float8_e4m3fn, torch.float8_e5m2, torch.float8_e4m3fnuz, torch.float8_e5m2fnuz]


@pytest.fixture(autouse=True)
def cpu_reference_kernel():
    """CPU's own _scaled_mm kernel as the reference, on every host: on a CPU
    with AMX (an Intel Xeon here since the thirty-eighth session) CPU takes
    oneDNN's float8 path instead, which rounds a float8 result through
    bfloat16 (30.99 becomes 32, not 30), turns an overflow into NaN rather
    than saturating, and takes float64 scales; with oneDNN off CPU computes
    as on an AMD host and as cuBLASLt does (float32, then float8 with
    saturation), which russet follows"""
    with torch.backends.mkldnn.flags(enabled=False):
        yield


@pytest.mark.parametrize("name", ["torch._scaled_mm", "torch._scaled_mm_v2"])
def test_opinfo_native(name):
    check_opinfo(name, dtypes=F8)


def f8(shape, dtype, seed):
    g = torch.Generator().manual_seed(seed)
    return (torch.randn(shape, generator=g) * 4).to(dtype)


def both(fn, *args, **kwargs):
    """fn on CPU and on russet (same inputs, no host op), results on the CPU"""
    cpu = fn(*args, **kwargs)
    mv = lambda v: v.to(D) if isinstance(v, torch.Tensor) else v  # noqa: E731
    got = host_free(lambda: fn(*[mv(a) for a in args], **{k: mv(v) for k, v in kwargs.items()}))
    return cpu, got.cpu()


@pytest.mark.parametrize("adt,bdt", [(torch.float8_e4m3fn, torch.float8_e4m3fn),
                                     (torch.float8_e5m2, torch.float8_e4m3fn)])
@pytest.mark.parametrize("out_dtype", [None, torch.bfloat16, torch.float16, torch.float32])
def test_tensorwise_bias(adt, bdt, out_dtype):
    a, b = f8((33, 48), adt, 1), f8((48, 40), bdt, 2)
    sa, sb = torch.tensor(0.75), torch.tensor(-1.5)
    bias = torch.randn(40, generator=torch.Generator().manual_seed(3)).to(out_dtype or torch.float32)
    kwargs = {"bias": bias if out_dtype is not None else None, "out_dtype": out_dtype}
    cpu, got = both(torch._scaled_mm, a, b, sa, sb, **kwargs)
    assert got.dtype == cpu.dtype and got.shape == (33, 40)
    if out_dtype is None:  # float8 out: the float32 sums are exact here, so the same bits
        assert_close(got.float(), cpu.float(), rtol=0, atol=0)
    else:
        assert_close(got, cpu, rtol=1.6e-2 if cpu.dtype in (torch.bfloat16, torch.float16) else 1e-5, atol=1e-3)


def test_rowwise_and_transposed_b():
    a = f8((16, 64), torch.float8_e4m3fn, 4)
    b = f8((24, 64), torch.float8_e4m3fn, 5).t()  # column-major B, as the fp8 kernels want it
    g = torch.Generator().manual_seed(6)
    sa, sb = torch.rand(16, 1, generator=g) + 0.5, torch.rand(1, 24, generator=g) + 0.5
    cpu, got = both(torch._scaled_mm, a, b, sa, sb, out_dtype=torch.bfloat16)
    assert_close(got, cpu, rtol=1.6e-2, atol=1e-3)


def test_float8_output_with_scale_result():
    a, b = f8((8, 32), torch.float8_e4m3fn, 7), f8((32, 16), torch.float8_e4m3fn, 8)
    sa, sb, sr = torch.tensor(0.5), torch.tensor(0.25), torch.tensor(3.0)
    cpu, got = both(torch._scaled_mm, a, b, sa, sb, scale_result=sr, out_dtype=torch.float8_e4m3fn)
    assert got.dtype == torch.float8_e4m3fn
    # exact float32 sums, then times float(1 / 3) and one rounding: the same bits
    assert_close(got.float(), cpu.float(), rtol=0, atol=0)


def test_out_and_empty_k():
    a, b = f8((5, 16), torch.float8_e5m2, 9), f8((16, 7), torch.float8_e5m2, 10)
    s = torch.tensor(1.0)
    out = torch.empty(5, 7, dtype=torch.float32, device=D)
    r = host_free(lambda: torch._scaled_mm(a.to(D), b.to(D), s.to(D), s.to(D), out_dtype=torch.float32, out=out))
    assert r is out
    assert_close(out.cpu(), torch._scaled_mm(a, b, s, s, out_dtype=torch.float32))
    z = host_free(lambda: torch._scaled_mm(a[:, :0].to(D), b[:0].to(D), s.to(D), s.to(D), out_dtype=torch.float32))
    assert z.shape == (5, 7) and (z.cpu() == 0).all()


def test_v2_recipes():
    from torch.nn.functional import ScalingType, SwizzleType
    a, b = f8((12, 32), torch.float8_e4m3fn, 11), f8((32, 20), torch.float8_e4m3fn, 12)
    g = torch.Generator().manual_seed(13)
    for recipe, sa, sb in [(ScalingType.TensorWise, torch.tensor([0.5]), torch.tensor([2.0])),
                           (ScalingType.RowWise, torch.rand(12, 1, generator=g) + 0.5,
                            torch.rand(1, 20, generator=g) + 0.5)]:
        def fn(a, b, sa, sb):
            return torch._scaled_mm_v2(a, b, [sa], [recipe], [SwizzleType.NO_SWIZZLE], [sb], [recipe],
                                       [SwizzleType.NO_SWIZZLE], None, torch.bfloat16)
        cpu, got = both(fn, a, b, sa, sb)
        assert_close(got, cpu, rtol=1.6e-2, atol=1e-3)


def test_bad_inputs_raise_like_cpu():
    a, b = f8((8, 16), torch.float8_e4m3fn, 14), f8((16, 8), torch.float8_e4m3fn, 15)
    s = torch.tensor(1.0)
    cases = [
        (a.float(), b, s, s, {}),                          # not float8
        (a, b[:8], s, s, {}),                              # shapes do not multiply
        (a, b, torch.ones(3), s, {}),                      # neither scaling recipe
        (a, b, s.double(), s, {}),                         # scale not float32
        (a, b, s, s, {"bias": torch.ones(5)}),             # bias of the wrong size
    ]
    for x, y, sa, sb, kw in cases:
        with pytest.raises((RuntimeError, ValueError)) as cpu_err:
            torch._scaled_mm(x, y, sa, sb, **kw)
        kw_d = {k: v.to(D) for k, v in kw.items()}
        with pytest.raises(type(cpu_err.value)):
            torch._scaled_mm(x.to(D), y.to(D), sa.to(D), sb.to(D), **kw_d)
