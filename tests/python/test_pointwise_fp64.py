"""float64 and complex128 pointwise ops on a device with fp64 (the native
profile; lavapipe has shaderFloat64): they run natively there
(kernels/common/ops_math64.glsl), against CPU with the OpInfo samples, and
the double transcendentals are accurate to a few ulp. Under the apple
profile the same ops go to host execution (test_pointwise_*.py check that).

The profile is fixed when the library starts, so each test runs its checks
in a subprocess with RUSSET_PROFILE=native."""

import json
import os
import subprocess
import sys

import pytest
from conftest import CPU_WARMUP

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))


def _run(code):
    env = dict(os.environ, RUSSET_PROFILE="native", RUSSET_HOST_OPS="allow",
               PYTHONPATH=os.pathsep.join([os.path.join(REPO, "python"), HERE, os.environ.get("PYTHONPATH", "")]))
    r = subprocess.run([sys.executable, "-c", CPU_WARMUP + code], env=env, capture_output=True, text=True, timeout=1500)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-6000:]
    # the result is the last line of JSON (a warning may follow it)
    for line in reversed(r.stdout.strip().splitlines()):
        try:
            return json.loads(line)
        except ValueError:
            continue
    raise AssertionError("no JSON result: " + r.stdout[-3000:] + r.stderr[-6000:])


# (OpInfo name, variant): float64 and complex128 (where CPU has them) native
OPS = [
    ("exp", ""), ("exp2", ""), ("expm1", ""), ("log", ""), ("log2", ""), ("log10", ""), ("log1p", ""),
    ("sin", ""), ("cos", ""), ("tan", ""), ("asin", ""), ("acos", ""), ("atan", ""), ("sinh", ""),
    ("cosh", ""), ("tanh", ""), ("asinh", ""), ("acosh", ""), ("atanh", ""), ("sigmoid", ""), ("erf", ""),
    ("erfc", ""), ("sinc", ""), ("sqrt", ""), ("rsqrt", ""), ("logit", ""), ("angle", ""), ("abs", ""),
    ("neg", ""), ("sgn", ""), ("polar", ""), ("atan2", ""), ("pow", ""), ("float_power", ""), ("logaddexp", ""),
    ("logaddexp2", ""), ("xlogy", ""), ("hypot", ""), ("fmod", ""), ("remainder", ""), ("div", "floor_rounding"),
    ("maximum", ""), ("minimum", ""), ("fmax", ""), ("fmin", ""), ("copysign", ""), ("nextafter", ""),
    ("nan_to_num", ""), ("clamp", ""), ("nn.functional.gelu", ""), ("nn.functional.silu", ""),
    ("nn.functional.mish", ""), ("nn.functional.softplus", ""), ("nn.functional.elu", ""),
    ("nn.functional.logsigmoid", ""), ("nn.functional.hardswish", ""),
    ("special.entr", ""), ("special.xlog1py", ""), ("i0", ""), ("special.i0e", ""), ("special.i1", ""),
    ("special.i1e", ""), ("erfinv", ""), ("special.ndtri", ""), ("digamma", ""), ("special.zeta", ""),
    ("polygamma", "polygamma_n_0"), ("polygamma", "polygamma_n_1"), ("polygamma", "polygamma_n_2"),
    ("polygamma", "polygamma_n_3"), ("polygamma", "polygamma_n_4"),
    # softmax in double (kernels/softmax.comp with SM_T double), forward and backward
    ("softmax", ""), ("log_softmax", ""), ("nn.functional.softmin", ""), ("_softmax_backward_data", ""),
    ("nn.functional.nll_loss", ""), ("nn.functional.cross_entropy", ""),
    # torch.special's Bessel and Airy functions (common/ops_special_bessel.glsl in double)
    ("special.bessel_j0", ""), ("special.bessel_j1", ""), ("special.bessel_y0", ""), ("special.bessel_y1", ""),
    ("special.modified_bessel_i0", ""), ("special.modified_bessel_i1", ""), ("special.modified_bessel_k0", ""),
    ("special.modified_bessel_k1", ""), ("special.scaled_modified_bessel_k0", ""),
    ("special.scaled_modified_bessel_k1", ""), ("special.spherical_bessel_j0", ""), ("special.airy_ai", ""),
    # torch.special's orthogonal polynomials (common/ops_special_poly.glsl in double)
    ("special.chebyshev_polynomial_t", ""), ("special.chebyshev_polynomial_u", ""),
    ("special.chebyshev_polynomial_v", ""), ("special.chebyshev_polynomial_w", ""),
    ("special.shifted_chebyshev_polynomial_t", ""), ("special.shifted_chebyshev_polynomial_u", ""),
    ("special.shifted_chebyshev_polynomial_v", ""), ("special.shifted_chebyshev_polynomial_w", ""),
    ("special.hermite_polynomial_h", ""), ("special.hermite_polynomial_he", ""),
    ("special.laguerre_polynomial_l", ""), ("special.legendre_polynomial_p", ""),
    # complex128 scalar operands (alpha, value, fill: 16 bytes through the arena)
    ("add", ""), ("sub", ""), ("rsub", ""), ("masked_fill", ""), ("lerp", ""), ("addcmul", ""), ("addcdiv", ""),
]


@pytest.mark.parametrize("chunk", range(4))
def test_fp64_ops_native_and_match_cpu(chunk):
    ops = OPS[chunk::4]
    res = _run(f"""
import json, torch, russet
from opinfo_check import check_opinfo, opinfo
assert torch.russet.get_device_properties(0).profile == "native"
out = {{}}
for name, variant in {ops!r}:
    dts = [d for d in opinfo(name, variant).supported_dtypes("cpu") if d in (torch.float64, torch.complex128)]
    out[name + "." + variant] = check_opinfo(name, variant, dtypes=dts)
print(json.dumps(out))
""")
    assert len(res) == len(ops) and all(n > 0 for n in res.values()), res


def test_fp64_transcendentals_accurate():
    """A few ulp against CPU (glibc) on 6,000 values, special values exact."""
    res = _run("""
import json, torch, russet
torch.manual_seed(0)
x = torch.cat([torch.randn(2000, dtype=torch.float64) * 3, torch.randn(2000, dtype=torch.float64) * 300,
               torch.rand(2000, dtype=torch.float64) * 2 - 1,
               torch.tensor([0.0, -0.0, 1.0, -1.0, float("inf"), float("-inf"), float("nan"), 1e-310, 1e300,
                             -1e300, 709.7, -745.0, 2.0, 8.0, 1024.0, 3.0e5, -7.5e5])])
out = {}
for fn in ["exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "sin", "cos", "tan", "asin", "acos", "atan",
           "sinh", "cosh", "tanh", "asinh", "acosh", "atanh", "sigmoid", "erf", "sinc"]:
    f = getattr(torch, fn)
    torch.russet.reset_host_op_counts()
    g = f(x.to("russet")).cpu()
    assert not torch.russet.host_op_counts(), fn
    e = f(x)
    fin = e.isfinite() & (e != 0)
    rel = ((g - e).abs() / e.abs())[fin].max().item()
    special = torch.equal(g[~fin].nan_to_num(7.0), e[~fin].nan_to_num(7.0))
    out[fn] = [rel, special]
print(json.dumps(out))
""")
    for fn, (rel, special) in res.items():
        assert rel < 2e-15, (fn, rel)
        assert special, fn
    # erfc: Cephes' rational fit, exp(-x^2) without the split of x^2
    res = _run("""
import json, torch, russet
x = torch.linspace(-6, 26, 5001, dtype=torch.float64)
g = torch.erfc(x.to("russet")).cpu(); e = torch.erfc(x)
print(json.dumps([((g - e).abs() / e.abs())[e > 0].max().item()]))
""")
    assert res[0] < 1e-13, res


def test_fp64_bessel_and_airy_accurate():
    """The Bessel and Airy functions in double (CPU's Cephes algorithms, the
    same coefficients as float): within 1e-14 of CPU's values in magnitude
    (relative to the value, or to the oscillation's envelope near a zero),
    special values as CPU's. A float-only constant in the double code (the
    Airy series' stopping epsilon was once float's) shows as 1e-8 here."""
    res = _run("""
import json, torch, russet
x = torch.cat([torch.linspace(-30, 30, 20001, dtype=torch.float64),
               torch.tensor([0.0, -0.0, 1e-300, 1e-20, 1e3, 1e10, 700.0, float("inf"), float("-inf"), float("nan")],
                            dtype=torch.float64)])
out = {}
for fn in ["bessel_j0", "bessel_j1", "bessel_y0", "bessel_y1", "modified_bessel_i0", "modified_bessel_i1",
           "modified_bessel_k0", "modified_bessel_k1", "scaled_modified_bessel_k0", "scaled_modified_bessel_k1",
           "spherical_bessel_j0", "airy_ai", "i0", "i0e", "i1", "i1e"]:
    f = getattr(torch.special, fn)
    torch.russet.reset_host_op_counts()
    g = f(x.to("russet")).cpu()
    assert not torch.russet.host_op_counts(), fn
    e = f(x)
    fin = e.isfinite()
    # the local scale: |e| or, for oscillating functions near their zeros,
    # the largest |e| within 2 of x (the grid's 600 neighbours)
    env = torch.nn.functional.max_pool1d(e.abs().nan_to_num(0, 0, 0)[None, None, :20001], 601, 1, 300)[0, 0]
    scale = torch.cat([torch.maximum(env, e.abs()[:20001]), e.abs()[20001:]]).clamp_min(1e-300)
    err = ((g - e).abs() / scale)[fin].max().item()
    special = torch.equal(g[~fin].nan_to_num(7.0), e[~fin].nan_to_num(7.0))
    out[fn] = [err, special]
print(json.dumps(out))
""")
    for fn, (err, special) in res.items():
        # measured on lavapipe: 5.6e-16 to 2e-15, airy_ai 1.4e-14: its phase
        # (2/3)|x|^1.5 + pi/4 reaches 110 at x = -30, where one ulp of the
        # phase, rounded in another order than CPU's, is 1.4e-14 of sin's
        assert err < (4e-14 if fn == "airy_ai" else 1e-14), res
        assert special, fn


def test_fp64_erfinv_ndtri_and_scaled_bessel_i_accurate():
    """erfinv and ndtri (CPU's calc_erfinv and calc_ndtri in double), i0,
    i0e, i1, i1e (Math.h's Chebyshev series) against CPU on 20,000 values
    and the edges, with no host op; erf odd to the bit. erfinv is Newton's
    method on erf, so its error is erf's (an ulp) times erfinv's slope,
    sqrt(pi)/2 exp(x^2), which is 8e14 at the largest double below 1."""
    res = _run("""
import json, math, torch, russet
y = torch.cat([torch.linspace(-1, 1, 20001, dtype=torch.float64),
               torch.tensor([1 - 2 ** -53, -1 + 2 ** -53, 1e-300, -0.0, 0.0, 0.7, 0.70000001, float("nan"), 1.5,
                             1.0, -1.0], dtype=torch.float64)])
p = torch.cat([torch.linspace(0, 1, 20001, dtype=torch.float64),
               torch.tensor([1e-300, 1e-20, 1e-14, 1.2664165549e-14, 1 - 2 ** -53, 0.1353352832366127, 0.5,
                             float("nan"), -0.1, 1.1], dtype=torch.float64)])
eps = torch.finfo(torch.float64).eps
out = {}
torch.russet.reset_host_op_counts()
x = torch.linspace(0, 7, 70001, dtype=torch.float64)
out["erf odd"] = (torch.erf(x.to("russet")) + torch.erf((-x).to("russet"))).abs().max().item()
for name, f, v in (("erfinv", torch.erfinv, y), ("ndtri", torch.special.ndtri, p), ("i0", torch.i0, 30 * y),
                   ("i0e", torch.special.i0e, 30 * y), ("i1", torch.special.i1, 30 * y),
                   ("i1e", torch.special.i1e, 30 * y)):
    g = f(v.to("russet")).cpu()
    e = f(v)
    fin = e.isfinite()
    tol = 8 * eps * e.abs()
    if name == "erfinv":
        tol = tol + 4 * eps * math.sqrt(math.pi) / 2 * torch.exp(e * e)
    out[name] = [((g - e).abs() / tol.clamp_min(1e-300))[fin].max().item(), torch.equal(g[~fin].nan_to_num(7.0), e[~fin].nan_to_num(7.0))]
out["host"] = sum(torch.russet.host_op_counts().values())
print(json.dumps(out))
""")
    assert res.pop("host") == 0 and res.pop("erf odd") == 0, res
    for name, (err, special) in res.items():
        assert err <= 1 and special, (name, res)


def test_fp64_digamma_polygamma_zeta_accurate():
    """digamma, polygamma and zeta in double (Math.h's algorithms) against
    CPU on a grid through the poles, no host op. Near digamma's zeros for
    x < 0 the reflection cancels terms of about 3, so the error is held to
    16 ulp of |value| + 4; zeta and polygamma n >= 2 sum powers a^-x (the
    double pow is within 1e-13, docs/pointwise.md)."""
    res = _run("""
import json, torch, russet
torch.russet.reset_host_op_counts()
x = torch.cat([torch.linspace(-20, 40, 60001, dtype=torch.float64),
               torch.tensor([0.0, -0.0, 1e-300, -1e-300, 1e17, 1e300, -3.0, float("inf"), float("-inf"),
                             float("nan"), 10.0, 0.5], dtype=torch.float64)])
q = torch.linspace(-5, 30, 3501, dtype=torch.float64)
eps = torch.finfo(torch.float64).eps
out = {}
def score(name, g, e, rel):
    fin = e.isfinite()
    tol = 16 * eps * (e.abs() + 4) + rel * e.abs()
    out[name] = [((g - e).abs() / tol)[fin].max().item(), torch.equal(g[~fin].nan_to_num(7.0), e[~fin].nan_to_num(7.0))]
score("digamma", torch.digamma(x.to("russet")).cpu(), torch.digamma(x), 0)
for n in (1, 2, 3, 5):
    score(f"polygamma {n}", torch.polygamma(n, x.to("russet")).cpu(), torch.polygamma(n, x), 0 if n == 1 else 2e-13)
for s in (1.5, 2.0, 3.0, 7.5, 30.0):
    sv = torch.full_like(q, s)
    score(f"zeta {s}", torch.special.zeta(sv.to("russet"), q.to("russet")).cpu(), torch.special.zeta(sv, q), 2e-13)
out["host"] = sum(torch.russet.host_op_counts().values())
print(json.dumps(out))
""")
    assert res.pop("host") == 0, res
    for name, (err, special) in res.items():
        assert err <= 1 and special, (name, res)


def test_fp64_pow_special_exponents_and_backward_kernels_native():
    """pow by 3 and -2 (rsqrt's, dist's and vector_norm's gradients use
    them) and tanh/sigmoid's backward kernels in float64 and complex128:
    native, and as CPU's."""
    res = _run("""
import json, torch, russet
g = torch.Generator().manual_seed(1)
out = {}
for dt in (torch.float64, torch.complex128):
    x = torch.rand(64, dtype=dt, generator=g) + 0.5  # (rsqrt: positive real parts)
    for name, f in [("cube", lambda t: t.pow(3)), ("inv_sq", lambda t: t.pow(-2)),
                    ("rsqrt_grad", lambda t: torch.autograd.grad(t.rsqrt().abs().sum(), t)[0]),
                    ("tanh_grad", lambda t: torch.autograd.grad(t.tanh().abs().sum(), t)[0]),
                    ("sigmoid_grad", lambda t: torch.autograd.grad(t.sigmoid().abs().sum(), t)[0])]:
        xc = x.clone().requires_grad_(True)
        xd = x.to("russet").requires_grad_(True)
        torch.russet.reset_host_op_counts()
        got = f(xd).cpu()
        host = torch.russet.host_op_counts()
        want = f(xc)
        out[f"{name} {dt}"] = [((got - want).abs() / want.abs()).max().item(), host]
print(json.dumps(out))
""")
    for k, (rel, host) in res.items():
        assert not host, (k, host)
        assert rel < 1e-13, (k, rel)


def test_fp64_trig_large_arguments():
    """sin, cos and tan of every exponent from 2^-10 to the largest double,
    and of doubles famously close to multiples of pi/2 (r down to 2^-61):
    within a few ulp of CPU (before the thirty-first session the reduction
    by a three-part pi/2 gave inf past 2^60 and garbage past 2^31)."""
    res = _run("""
import json, torch, russet
g = torch.Generator().manual_seed(0)
e = torch.arange(-10, 1024, dtype=torch.float64).repeat_interleave(4)
m = 1 + torch.rand(e.numel(), generator=g, dtype=torch.float64)
x = torch.ldexp(m, e.to(torch.int64)).clamp(max=1.7976931348623157e308)
hard = torch.tensor([6381956970095103 * 2.0 ** 797, 2.0 ** 19, 2.0 ** 19 - 2.0 ** -33,
                     1.5707963267948966e10, 3.141592653589793e15, 1e22, 1.7976931348623157e308],
                    dtype=torch.float64)
x = torch.cat([x, -x, hard, -hard])
out = {}
for fn in ["sin", "cos", "tan"]:
    f = getattr(torch, fn)
    torch.russet.reset_host_op_counts()
    got = f(x.to("russet")).cpu()
    assert not torch.russet.host_op_counts(), fn
    exp = f(x)
    out[fn] = [((got - exp).abs() / exp.abs()).max().item(), bool(got.isfinite().all())]
print(json.dumps(out))
""")
    for fn, (rel, finite) in res.items():
        assert finite, fn
        assert rel < 4 * 2.0 ** -52, (fn, rel / 2.0 ** -52)


def test_complex128_pow_logaddexp_special_values():
    res = _run("""
import json, torch, russet
inf, nan = float("inf"), float("nan")
v = torch.tensor([0.0, -1.0, 2.5, inf, -inf, nan, 30.0], dtype=torch.float64)
z = torch.complex(v[:, None].expand(-1, 7), v.flip(0)[None, :].expand(7, -1)).reshape(-1)
a, b = z[:, None].expand(-1, 49), z[None, :].expand(49, -1)
out = []
for f in [torch.pow, torch.logaddexp]:
    torch.russet.reset_host_op_counts()
    g = f(a.to("russet"), b.to("russet")).cpu()
    assert not torch.russet.host_op_counts()
    e = f(a, b)
    fin = e.real.isfinite() & e.imag.isfinite()
    ok = torch.allclose(g[fin], e[fin], rtol=1e-7, atol=1e-7)
    nf = torch.equal(g.real.isfinite() & g.imag.isfinite(), fin)
    out.append([ok, nf])
print(json.dumps(out))
""")
    assert res == [[True, True], [True, True]], res
