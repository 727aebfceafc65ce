"""Quick mode of the OpInfo conformance sweep, checked against the one list of
known failures (known_failures.json).

It fails on a new failure (a `wrong` or `error` case not in the list) and on a
listed failure that now passes (so the list only shrinks). The full sweep is
`python -m russet coverage --full`; it writes docs/coverage.{md,json}.
"""

import json
import os
import time

import pytest
import torch

import conformance as cov

PROFILE = os.environ.get("RUSSET_PROFILE", "apple")


@pytest.fixture(scope="module")
def quick_report():
    t0 = time.time()
    rep = cov.sweep("quick", profile=PROFILE, jobs=1, verbose=False)
    rep["wall"] = time.time() - t0
    print(f"\nquick conformance sweep: {len(rep['records'])} (op, dtype) tasks in "
          f"{rep['wall']:.0f} s")
    return rep


@pytest.fixture(scope="module")
def known():
    return cov.load_known_failures()


def _fmt(items):
    return "\n".join(f"  {' '.join(k)}: {rest}" for k, *rest in items)


def test_no_new_failures(quick_report, known):
    new, _ = cov.check_against_known(quick_report["records"], known)
    assert not new, (
        f"{len(new)} new conformance failure(s) (add a native kernel fix, or, if the gap is "
        "real and understood, an entry with its reason to tests/conformance/known_failures.json):\n"
        + _fmt([(k, c, d) for k, c, d in new]))


def test_known_failures_still_fail(quick_report, known):
    _, fixed = cov.check_against_known(quick_report["records"], known)
    assert not fixed, (
        "known failures that no longer fail: remove them from "
        "tests/conformance/known_failures.json:\n" + _fmt([(k, c) for k, c in fixed]))


def test_quick_ran_and_counted(quick_report):
    s = quick_report["summary"]
    assert s["op_dtype_pairs"] > 200
    # most pairs must actually be exercised, not skipped
    assert s["tested_pairs"] > 0.9 * s["op_dtype_pairs"], s
    assert s["pass-native"] + s["pass-host"] > 0.8 * s["tested_pairs"], s
    assert quick_report["profile"] == PROFILE == quick_report["device"]["profile"]
    assert quick_report["wall"] < 600, "quick mode must stay under 10 minutes"


def test_quick_subset_covers_every_family_and_dtype_class():
    ops = cov.load_ops()
    tasks = cov.quick_tasks(ops)
    assert tasks == cov.quick_tasks(ops), "the quick subset must be deterministic"
    fam_of_key = {k: cov.family(o.name) for k, o in ops}
    fams_with_dtypes = {cov.family(o.name) for k, o in ops if cov.cpu_dtypes(o)}
    covered = {fam_of_key[k] for k, _ in tasks}
    assert fams_with_dtypes <= covered, fams_with_dtypes - covered
    all_dtypes = {d for k, o in ops for d in cov.cpu_dtypes(o)}
    assert {d for _, d in tasks} == all_dtypes
    classes = {cov.dtype_class(d) for d in all_dtypes}
    for fam in covered:
        fam_classes = {cov.dtype_class(d) for k, d in tasks if fam_of_key[k] == fam}
        possible = {cov.dtype_class(d) for k, o in ops if cov.family(o.name) == fam
                    for d in cov.cpu_dtypes(o)}
        assert fam_classes == possible, (fam, possible - fam_classes)
    assert classes >= {"bool", "int", "low-precision float", "float32", "float64", "complex"}


def test_family_table_maps_every_opinfo_exactly_once():
    ops = cov.load_ops()
    unmapped = sorted({o.name for _, o in ops if cov.family(o.name) is None})
    assert not unmapped, f"OpInfos with no family in conformance._FAMILY_TABLE: {unmapped}"
    assert set(cov.FAMILY_OF.values()) == set(cov.FAMILIES)
    # the table is a partition (conformance._family_of raises on a duplicate)
    names = [n for v in cov._FAMILY_TABLE.values() for n in v.split()]
    assert len(names) == len(set(names))


def test_known_failures_file_is_well_formed(known):
    keys = dict(cov.load_ops())
    with open(cov.KNOWN_FAILURES) as f:
        raw = json.load(f)
    assert raw["failures"] == sorted(raw["failures"], key=lambda e: (e["op"], e["variant"],
                                                                      e["dtype"])), \
        "keep known_failures.json sorted by (op, variant, dtype)"
    for (op, variant, dtype), e in known.items():
        assert op in keys, f"known failure for an unknown OpInfo {op}"
        assert variant in cov.VARIANTS, e
        assert dtype in cov.cpu_dtypes(keys[op]), e
        assert len(e["reason"].strip()) >= 15, f"give a real reason: {e}"
        assert e["class"] in ("wrong", "error"), e
        assert e.get("detail"), f"record how it fails (conformance.failure_signature): {e}"
        assert e.get("flaky", False) in (False, True), e
        assert not e.get("flaky") or "intermittent" in e["reason"], f"say why it is flaky: {e}"


def test_a_known_failure_that_fails_another_way_is_new():
    """a listed failure matches on its class and the stable part of its
    detail; the counts and sizes in the detail may change"""
    k = ("op", "op", "float32")
    known = {k: {"class": "wrong", "detail": "output[1]: Tensor-likes are not close!", "reason": "r"}}

    def rec(cls, detail):
        return [{"op": "op", "dtype": "float32", "variants": {"op": {"class": cls, "detail": detail}}}]

    same = "output[1]: Tensor-likes are not close!; Mismatched elements: 3 / 25 (12.0%)"
    assert cov.check_against_known(rec("wrong", same), known) == ([], [])
    for cls, detail in (("wrong", "output[0]: Tensor-likes are not close!; Mismatched elements: 3 / 25"),
                        ("wrong", "output[1]: Tensor-likes are not equal!; Mismatched elements: 3 / 25"),
                        ("error", "RuntimeError: russet: boom"),
                        ("unsupported", "NotImplementedError: nope")):
        new, fixed = cov.check_against_known(rec(cls, detail), known)
        assert [n[0] for n in new] == [k] and not fixed, (cls, detail)
    assert cov.check_against_known(rec("pass-native", ""), known) == ([], [(k, "pass-native")])
    # a flaky entry (CPU's own result varies) may pass, and still may not fail another way
    flaky = {k: dict(known[k], flaky=True)}
    assert cov.check_against_known(rec("pass-native", ""), flaky) == ([], [])
    assert cov.check_against_known(rec("wrong", same), flaky) == ([], [])
    assert [n[0] for n in cov.check_against_known(rec("error", "RuntimeError: x"), flaky)[0]] == [k]
    assert cov.failure_signature("RuntimeError: size 12 vs 13\nmore") == "RuntimeError: size # vs #"


# ---- the harness itself must be able to fail


class _FakeOp:
    """A minimal OpInfo stand-in: calls fn, no in-place variant."""

    def __init__(self, fn, name="fake"):
        self.fn, self.name, self.inplace_variant = fn, name, None

    def __call__(self, *a, **k):
        return self.fn(*a, **k)


def _run(fn, variant="op", dtype=torch.float32):
    from torch.testing._internal.opinfo.core import SampleInput

    torch.manual_seed(0)
    s = SampleInput(torch.randn(4, 5, dtype=dtype), args=(torch.randn(5, dtype=dtype),))
    return cov.run_variant(torch, _FakeOp(fn), "fake", variant, str(dtype)[6:], s, None)


def _is_russet(t):
    return t.device.type == "russet"


def test_harness_passes_a_correct_op():
    cls, detail, host = _run(torch.add)
    assert cls in ("pass-native", "pass-host"), detail
    cls, _, host = _run(lambda x, y: x.view(-1)[:3])
    assert cls == "pass-native" and host == []  # views never run on the host


def test_harness_sees_host_execution():
    torch.russet.reset_host_op_counts()
    cls, _, host = _run(lambda x, y: torch.mm(x.t(), x))
    ran = torch.russet.host_op_counts()
    assert (cls == "pass-host") == bool(ran) and (cls == "pass-host") == bool(host)


def test_harness_catches_a_wrong_value():
    cls, detail, _ = _run(lambda x, y: x + y + (1e-3 if _is_russet(x) else 0))
    assert cls == "wrong" and "not close" in detail


def test_harness_compares_deterministic_samples_of_random_ops_exactly():
    """a random op's sample that does not depend on the draw (dropout
    outside training or at p 0 or 1, rrelu outside training, a low-rank
    SVD's S and product) is compared as exactly as any op; only the others
    get the statistical check"""
    from torch.testing._internal.opinfo.core import SampleInput

    def run(name, fn, **kwargs):
        torch.manual_seed(0)
        s = SampleInput(torch.rand(64, 32) + 0.5, kwargs=kwargs)
        return cov.run_variant(torch, _FakeOp(fn, name), name, "op", "float32", s, None)

    off = lambda x, **k: torch.nn.functional.dropout(x, **k) * (1.001 if _is_russet(x) else 1)  # noqa: E731
    for kw in ({"p": 0.5, "training": False}, {"p": 0.0}):
        assert run("nn.functional.dropout", off, **kw)[0] == "wrong", kw
    # the training sample with p 0.5 is random: the loose statistics accept it
    assert run("nn.functional.dropout", off, p=0.5)[0] in ("pass-native", "pass-host")
    rr = lambda x, **k: torch.nn.functional.rrelu(-x, **k) * (1.001 if _is_russet(x) else 1)  # noqa: E731
    assert run("nn.functional.rrelu", rr)[0] == "wrong"
    assert run("nn.functional.rrelu", rr, training=True)[0] in ("pass-native", "pass-host")

    def lowrank(x, bias):
        u, s_, v = torch.svd_lowrank(x[:, :4] @ x[:4, :], q=4)
        return u, s_ + (bias if _is_russet(x) else 0), v
    assert run("svd_lowrank", lambda x: lowrank(x, 0.0))[0] in ("pass-native", "pass-host")
    assert run("svd_lowrank", lambda x: lowrank(x, 1e-3))[0] == "wrong"


def test_harness_out_layouts_and_strides_can_fail():
    """out= into a non-contiguous or wrongly sized tensor must behave as on
    CPU, and results keep CPU's strides (channels_last in, channels_last out)"""
    from torch.testing._internal.opinfo.core import SampleInput

    class OutOp(_FakeOp):
        def __call__(self, x, out=None):
            if out is None:
                return torch.neg(x)
            if self.fn == "ignore-layout" and x.device.type == "russet":
                out.set_(torch.neg(x).contiguous())  # a fresh contiguous result, whatever out was
                return out
            return torch.neg(x, out=out)

    torch.manual_seed(0)
    s = SampleInput(torch.randn(4, 5))
    assert cov.run_out_layouts(torch, OutOp("right"), torch.float32, s, None)[0] in ("pass-native", "pass-host")
    cls, detail, _ = cov.run_out_layouts(torch, OutOp("ignore-layout"), torch.float32, s, None)
    assert cls == "wrong" and "out strided" in detail, detail

    x = torch.randn(2, 3, 4, 5).contiguous(memory_format=torch.channels_last)
    s = SampleInput(x)
    ok = cov.run_variant(torch, _FakeOp(torch.relu), "fake", "channels-last", "float32", s, None)
    assert ok[0] in ("pass-native", "pass-host"), ok
    dense = lambda t: torch.relu(t).contiguous() if _is_russet(t) else torch.relu(t)  # noqa: E731
    cls, detail, _ = cov.run_variant(torch, _FakeOp(dense), "fake", "channels-last", "float32", s, None)
    assert cls == "wrong" and "strides" in detail, detail


def test_harness_channels_last_where_cpu_assumes_a_layout():
    """CPU's kernel may be wrong on channels-last strides (the flash
    attention for CPU assumes a dense last dimension): then CPU on the dense
    sample is the reference, and russet must match it; a russet that matches
    neither, or differs where CPU agrees with itself, is wrong"""
    from torch.testing._internal.opinfo.core import SampleInput

    def cpu_assumes_layout(x, russet_bias=0.0):
        if x.device.type == "cpu" and not x.is_contiguous():
            return torch.relu(x) + 7  # CPU's garbage on these strides
        return torch.relu(x) + (russet_bias if _is_russet(x) else 0)

    s = SampleInput(torch.randn(2, 3, 4, 5))
    ok = cov.run_variant(torch, _FakeOp(cpu_assumes_layout), "fake", "channels-last", "float32", s, None)
    assert ok[0] in ("pass-native", "pass-host"), ok
    off = lambda x: cpu_assumes_layout(x, 1e-3)  # noqa: E731
    cls, detail, _ = cov.run_variant(torch, _FakeOp(off), "fake", "channels-last", "float32", s, None)
    assert cls == "wrong" and "not close" in detail, detail
    plain_off = lambda x: torch.relu(x) + (1e-3 if _is_russet(x) else 0)  # noqa: E731
    cls, detail, _ = cov.run_variant(torch, _FakeOp(plain_off), "fake", "channels-last", "float32", s, None)
    assert cls == "wrong" and "not close" in detail, detail


def test_harness_catches_wrong_dtype_shape_and_device():
    assert _run(lambda x, y: (x + y).double() if _is_russet(x) else x + y)[0] == "wrong"
    assert _run(lambda x, y: (x + y)[:2] if _is_russet(x) else x + y)[0] == "wrong"
    assert _run(lambda x, y: (x + y).cpu())[0] == "wrong"


def test_harness_catches_a_mutated_input():
    def f(x, y):
        if _is_russet(x):
            y.add_(1)
        return x * 2

    cls, detail, _ = _run(f)
    assert cls == "wrong" and "after the call" in detail


def test_harness_classifies_exceptions():
    def boom(x, y):
        if _is_russet(x):
            raise RuntimeError("kernel failed")
        return x

    assert _run(boom)[0] == "error"

    def unsupported(x, y):
        if _is_russet(x):
            raise NotImplementedError("russet: float64 is not supported by the apple profile")
        return x

    assert _run(unsupported)[0] == "unsupported"

    def cpu_raises(x, y):
        raise ValueError("bad input")

    cls, detail, _ = _run(cpu_raises)
    assert cls == "skipped" and detail.startswith("cpu raises")


def test_harness_low_precision_uses_dtype_tolerance():
    # a 1-ulp-of-float32 difference passes in float16 (default fp16 tolerance) and
    # a difference of 1e-2 does not
    assert _run(lambda x, y: x + y, dtype=torch.float16)[0].startswith("pass")
    cls, _, _ = _run(lambda x, y: x + y + (1e-2 if _is_russet(x) else 0), dtype=torch.float16)
    assert cls == "wrong"


def test_harness_grad_variant():
    from torch.testing._internal.opinfo.core import SampleInput

    torch.manual_seed(0)
    s = SampleInput(torch.randn(3, 4, requires_grad=True))
    good = cov.run_variant(torch, _FakeOp(lambda x: x.sin()), "fake", "grad", "float32", s, None)
    assert good[0] in ("pass-native", "pass-host"), good

    class BadGrad(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g * (3 if g.device.type == "russet" else 2)

    bad = cov.run_variant(torch, _FakeOp(BadGrad.apply), "fake", "grad", "float32", s, None)
    assert bad[0] == "wrong", bad


def test_harness_forward_ad_variant():
    from torch.testing._internal.opinfo.core import SampleInput

    torch.manual_seed(0)
    s = SampleInput(torch.randn(3, 4, requires_grad=True), args=(torch.randn(4, requires_grad=True),))
    good = cov.run_variant(torch, _FakeOp(lambda x, y: x.sin() * y), "fake", "fwad", "float32", s, None)
    assert good[0] in ("pass-native", "pass-host"), good

    class BadJvp(torch.autograd.Function):
        @staticmethod
        def forward(x):
            return x * 2

        @staticmethod
        def setup_context(ctx, inputs, output):
            pass

        @staticmethod
        def jvp(ctx, t):
            return t * (3 if t.device.type == "russet" else 2)

    one = SampleInput(torch.randn(3, 4, requires_grad=True))
    bad = cov.run_variant(torch, _FakeOp(BadJvp.apply), "fake", "fwad", "float32", one, None)
    assert bad[0] == "wrong" and "fwad" in bad[1], bad
    # the same tangents on both devices: a correct op whose tangent depends
    # on the tangent's values passes only if they match
    good = cov.run_variant(torch, _FakeOp(lambda x: x * x.sum()), "fake", "fwad", "float32", one, None)
    assert good[0] in ("pass-native", "pass-host"), good


def test_harness_low_precision_grad_as_accurate_as_cpu():
    # float16 gradients that differ from CPU's pass only when they are at
    # least about as close to the float32 gradient as CPU's are
    from torch.testing._internal.opinfo.core import SampleInput

    def doubling(cpu_off, russet_off):
        class Double(torch.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x * 2

            @staticmethod
            def backward(ctx, g):
                off = russet_off if g.device.type == "russet" else cpu_off
                return g * 2 + off if g.dtype == torch.float16 else g * 2

        return _FakeOp(Double.apply)

    s = SampleInput(torch.randn(3, 4).half().requires_grad_())
    better = cov.run_variant(torch, doubling(0.01, 0.0), "fake", "grad", "float16", s, None)
    assert better[0] in ("pass-native", "pass-host"), better
    worse = cov.run_variant(torch, doubling(0.01, 0.05), "fake", "grad", "float16", s, None)
    assert worse[0] == "wrong" and "as accurate as CPU" in worse[1], worse


def test_harness_gradgrad_variant():
    from torch.testing._internal.opinfo.core import SampleInput

    torch.manual_seed(0)
    s = SampleInput(torch.randn(3, 4, requires_grad=True), args=(torch.randn(4, requires_grad=True),))
    good = cov.run_variant(torch, _FakeOp(lambda x, y: x.sin() * y), "fake", "gradgrad", "float32", s, None)
    assert good[0] in ("pass-native", "pass-host"), good

    class BadSecond(torch.autograd.Function):
        # x ** 2 whose backward is right but not differentiable as itself:
        # on russet its gradient is built from 3 x, not 2 x
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            k = 3 if x.device.type == "russet" else 2
            return g * (k * x) + (2 - k) * (g * x).detach()

    one = SampleInput(torch.randn(3, 4, requires_grad=True))
    first = cov.run_variant(torch, _FakeOp(BadSecond.apply), "fake", "grad", "float32", one, None)
    assert first[0] in ("pass-native", "pass-host"), first
    bad = cov.run_variant(torch, _FakeOp(BadSecond.apply), "fake", "gradgrad", "float32", one, None)
    assert bad[0] == "wrong" and "gradgrad" in bad[1], bad
    # a linear op has no second derivative: skipped, not failed
    lin = cov.run_variant(torch, _FakeOp(lambda x: x * 2), "fake", "gradgrad", "float32", one, None)
    assert lin[0] == "skipped" and "second derivative" in lin[1], lin


def test_harness_vmap_variant():
    from torch.testing._internal.opinfo.core import SampleInput

    torch.manual_seed(0)
    idx = torch.tensor([2, 0, 1])
    s = SampleInput(torch.randn(3, 4), args=(0, idx))
    good = cov.run_variant(torch, _FakeOp(torch.index_select), "fake", "vmap", "float32", s, None)
    assert good[0] in ("pass-native", "pass-host"), good
    # an op that is wrong on russet only under vmap's batched tensors is caught
    bad_op = _FakeOp(lambda x: x[0] if x.device.type == "cpu" else x[-1])
    bad = cov.run_variant(torch, bad_op, "fake", "vmap", "float32", SampleInput(torch.randn(3, 4)), None)
    assert bad[0] == "wrong", bad


@pytest.fixture(scope="module")
def listed_report(known):
    """the full sweep of just the listed (op, dtype) pairs, most of which
    the quick subset does not reach"""
    tasks = sorted({(k[0], k[2]) for k in known})
    t0 = time.time()
    rep = cov.sweep("full", profile=PROFILE, jobs=1, tasks=tasks, verbose=False)
    print(f"\nlisted failures: {len(tasks)} (op, dtype) tasks in {time.time() - t0:.0f} s")
    return rep


def test_listed_failures_fail_as_listed(listed_report, known):
    """each listed failure still fails, and the way it is listed (a known
    wrong result that became an error is a new failure)"""
    new, fixed = cov.check_against_known(listed_report["records"], known)
    ran = {(r["op"], v, r["dtype"]) for r in listed_report["records"] for v in r["variants"]}
    assert not new, "failures other than listed:\n" + _fmt([(k, c, d) for k, c, d in new])
    assert not fixed, ("listed failures that no longer fail: remove them from "
                       "tests/conformance/known_failures.json:\n" + _fmt([(k, c) for k, c in fixed]))
    missing = [k for k in known if k not in ran]
    assert not missing, "listed failures the sweep did not run (renamed or dropped OpInfos?):\n" + \
        "\n".join(f"  {' '.join(k)}" for k in missing)
