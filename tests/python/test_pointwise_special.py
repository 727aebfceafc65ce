"""Special functions (gamma family, erf family, Bessel, torch.special)
against CPU, with PyTorch's OpInfo samples, for every dtype CPU supports;
native (no host execution) except float64/complex128 under the apple
profile, and except the functions listed in HOST (still correct, through
host execution)."""

import pytest
import torch
from torch.testing import assert_close

from test_pointwise_unary import check_large
from opinfo_check import FP64_HOST, check_opinfo

D = "russet"

NATIVE = [
    ("erfinv", ""), ("lgamma", ""), ("digamma", ""), ("i0", ""),
    ("polygamma", "polygamma_n_0"), ("polygamma", "polygamma_n_1"), ("polygamma", "polygamma_n_2"),
    ("polygamma", "polygamma_n_3"), ("polygamma", "polygamma_n_4"),
    ("special.polygamma", "special_polygamma_n_0"),
    ("special.i0e", ""), ("special.i1", ""), ("special.i1e", ""), ("special.ndtr", ""),
    ("special.log_ndtr", ""), ("special.entr", ""), ("special.xlog1py", ""), ("special.zeta", ""),
    ("special.ndtri", ""), ("special.erfcx", ""), ("special.airy_ai", ""), ("special.bessel_j0", ""),
    ("special.bessel_j1", ""), ("special.bessel_y0", ""), ("special.bessel_y1", ""),
    ("special.modified_bessel_i0", ""), ("special.modified_bessel_i1", ""), ("special.modified_bessel_k0", ""),
    ("special.modified_bessel_k1", ""), ("special.scaled_modified_bessel_k0", ""),
    ("special.scaled_modified_bessel_k1", ""), ("special.spherical_bessel_j0", ""),
    ("special.chebyshev_polynomial_t", ""), ("special.chebyshev_polynomial_u", ""),
    ("special.chebyshev_polynomial_v", ""), ("special.chebyshev_polynomial_w", ""),
    ("special.shifted_chebyshev_polynomial_t", ""), ("special.shifted_chebyshev_polynomial_u", ""),
    ("special.shifted_chebyshev_polynomial_v", ""), ("special.shifted_chebyshev_polynomial_w", ""),
    ("special.hermite_polynomial_h", ""), ("special.hermite_polynomial_he", ""),
    ("special.laguerre_polynomial_l", ""), ("special.legendre_polynomial_p", ""),
    ("mvlgamma", "mvlgamma_p_1"), ("mvlgamma", "mvlgamma_p_3"), ("mvlgamma", "mvlgamma_p_5"),
]


@pytest.mark.parametrize("name,variant", NATIVE, ids=[f"{n}.{v}" if v else n for n, v in NATIVE])
def test_special_op_matches_cpu(name, variant):
    # float64/complex128: most special functions have float32 kernels only
    # and run on the host with fp64 too (README, native profile)
    check_opinfo(name, variant, host_dtypes=FP64_HOST)


@pytest.mark.parametrize("name,variant", NATIVE, ids=[f"{n}.{v}" if v else n for n, v in NATIVE])
def test_special_op_large_contiguous(name, variant):
    assert check_large(name, variant) > 0


def _sweep(fn, x, **kw):
    torch.russet.reset_host_op_counts()
    got = fn(x.to(D), **kw).cpu()
    assert not torch.russet.host_op_counts()
    assert_close(got, fn(x, **kw), equal_nan=True)


@pytest.mark.parametrize("fn,lo,hi", [
    (torch.lgamma, -20.0, 30.0), (torch.digamma, -20.0, 30.0), (torch.erfinv, -0.999, 0.999),
    (torch.i0, -20.0, 20.0), (torch.special.i0e, -50.0, 50.0), (torch.special.i1, -20.0, 20.0),
    (torch.special.i1e, -50.0, 50.0), (torch.special.ndtr, -10.0, 10.0),
    (torch.special.log_ndtr, -30.0, 10.0), (torch.special.entr, -1.0, 20.0), (torch.special.ndtri, 0.0, 1.0),
    (torch.special.erfcx, -9.0, 100.0), (torch.special.bessel_j0, -50.0, 50.0),
    (torch.special.bessel_y1, 0.0, 50.0), (torch.special.modified_bessel_k1, 0.0, 50.0),
], ids=lambda v: getattr(v, "__name__", ""))
def test_float32_sweep(fn, lo, hi):
    x = torch.linspace(lo, hi, 20011)
    _sweep(fn, x)


@pytest.mark.parametrize("name", ["igamma", "igammac"])
def test_igamma_all_opinfo_samples(name):
    """Every OpInfo sample, every CPU dtype. These kernels once took 90 s
    each to compile on lavapipe (a 625-entry table indexed in a loop), which
    the sweep reported as a hang; ops_special.glsl says how that was fixed."""
    # float64: on the host under every profile, as the other special functions (README)
    assert check_opinfo(name, max_samples=10**6, host_dtypes=FP64_HOST) >= 27
    a = torch.rand(6, 5) * 25
    x = torch.rand(5) * 25
    got = a.to(D)
    getattr(got, name + "_")(x.to(D))
    assert_close(got.cpu(), getattr(a.clone(), name + "_")(x))


@pytest.mark.parametrize("fn,ref", [(torch.special.gammainc, torch.igamma),
                                    (torch.special.gammaincc, torch.igammac)],
                         ids=["gammainc", "gammaincc"])
def test_gammainc_aliases(fn, ref):
    a = torch.rand(7, 5) * 30
    x = torch.rand(5) * 30
    torch.russet.reset_host_op_counts()
    got = fn(a.to(D), x.to(D)).cpu()
    assert not torch.russet.host_op_counts()
    assert_close(got, ref(a, x))
    out = torch.empty(7, 5, device=D)
    fn(a.to(D), x.to(D), out=out)
    assert_close(out.cpu(), ref(a, x))


_IGAM_V = torch.cat([torch.tensor([0.0, -0.0, -1.0, float("inf"), float("-inf"), float("nan"), 1.0, 0.5, 2.0,
                                   20.0, 200.0, 3e38]),
                     torch.logspace(-8, 8, 49), torch.linspace(0, 30, 61), torch.linspace(150, 250, 21)])


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.bfloat16, torch.float64], ids=str)
@pytest.mark.parametrize("fn", [torch.igamma, torch.igammac], ids=["igamma", "igammac"])
def test_igamma_extreme_values(fn, dtype):
    """a x x over 0, -0, negative, inf, nan, huge values, every branch of the
    series (small/large a, x around a): finite runs, CPU's values. Float32
    subnormal inputs are left out: the device flushes them to zero (as Apple
    GPUs do), CPU does not."""
    v = _IGAM_V.to(dtype)
    v = v[(v == 0) | (v.float().abs() >= 1.1754944e-38) | v.isnan()]
    a = v[:, None].expand(-1, v.numel())
    x = v[None, :].expand(v.numel(), -1)
    torch.russet.reset_host_op_counts()
    got = fn(a.to(D), x.to(D)).cpu()
    if dtype != torch.float64:
        assert not torch.russet.host_op_counts()
    want = fn(a, x)
    try:
        assert_close(got, want, equal_nan=True)
    except AssertionError:
        if dtype not in (torch.float16, torch.bfloat16):
            raise
        # CPU's reduced-precision kernels: see opinfo_check.py
        assert_close(got, fn(a.float(), x.float()).to(dtype), equal_nan=True)


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16], ids=str)
def test_logit_reduced_precision_matches_cpu_bits(dtype):
    # CPU's float16/bfloat16 logit rounds 1 - x and the quotient to the dtype
    x = torch.cat([torch.linspace(0, 1, 2001), torch.tensor([-0.5, 1.5, float("nan")])]).to(dtype)
    for eps in (None, 0.0, 1e-3, 0.2):
        torch.russet.reset_host_op_counts()
        got = torch.logit(x.to(D), eps=eps).cpu()
        assert not torch.russet.host_op_counts()
        assert_close(got, torch.logit(x, eps=eps), equal_nan=True, atol=0, rtol=0)


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16], ids=str)
def test_ndtr_reduced_precision_matches_cpu(dtype):
    # a composite of mul by a Python number, erf, add: the number in float
    x = torch.linspace(-6, 6, 4001).to(dtype)
    torch.russet.reset_host_op_counts()
    got = torch.special.ndtr(x.to(D)).cpu()
    assert not torch.russet.host_op_counts()
    assert_close(got, torch.special.ndtr(x))


def test_log_ndtr_accuracy_and_gradient():
    # log(erfcx(-t) / 2) - t^2 below -1, as CPU. The gradient
    # exp(-(r + x^2 / 2)) / sqrt(2 pi) cancels r against x^2 / 2, so one ulp
    # of r shows as ~1e-5 there: russet's r and gradient must be as close
    # to the float64 values as CPU's (they differ from CPU's by rounding)
    x = torch.cat([torch.linspace(-40, 8, 3001), torch.tensor([-8.478373527526855])])
    xr = x.to(D).requires_grad_(True)
    torch.russet.reset_host_op_counts()
    y = torch.special.log_ndtr(xr)
    y.sum().backward()
    assert not torch.russet.host_op_counts()
    xc = x.clone().requires_grad_(True)
    yc = torch.special.log_ndtr(xc)
    yc.sum().backward()
    xd = x.double().requires_grad_(True)
    yd = torch.special.log_ndtr(xd)
    yd.sum().backward()
    assert_close(y.detach().cpu(), yc.detach())
    ulp = (torch.nextafter(yc.detach().abs(), torch.tensor(float("inf"))) - yc.detach().abs()).double()
    low = x < -1
    err_r = ((y.detach().cpu().double() - yd.detach()) / ulp)[low].abs().max()
    err_c = ((yc.detach().double() - yd.detach()) / ulp)[low].abs().max()
    assert err_r <= max(3.0, err_c), (err_r, err_c)
    gerr_r = ((xr.grad.cpu().double() - xd.grad) / xd.grad).abs().max()
    gerr_c = ((xc.grad.double() - xd.grad) / xd.grad).abs().max()
    assert gerr_r <= 1.25 * gerr_c, (gerr_r, gerr_c)


def test_zeta_large_q():
    # Hurwitz zeta where q^-x underflows float32 (CPU sums in double): 0 or
    # the 1/q tail, not NaN (the OpInfo's reference inputs reach q = 1e20)
    x = torch.tensor([50.0, 100.0, 2.0, 2.0, 3.0, 1.5, 1e20, 4.0])
    q = torch.tensor([1e10, 3.0, 1e20, 1e15, 1e12, 1e25, 1.0, 2.5])
    want = torch.special.zeta(x, q)
    got = torch.special.zeta(x.to("russet"), q.to("russet")).cpu()
    assert torch.isfinite(got).all()
    assert_close(got, want, rtol=2e-6, atol=0)
    # q = inf: CPU's tail is 0 inf = NaN, and polygamma (n >= 2) inherits it
    inf = torch.tensor([float("inf")])
    assert torch.isnan(torch.special.zeta(torch.tensor([3.0]).to("russet"), inf.to("russet"))).all()
    for n in (1, 2, 3):
        assert_close(torch.polygamma(n, inf.to("russet")).cpu(), torch.polygamma(n, inf), equal_nan=True)
