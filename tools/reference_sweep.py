"""The extreme-value sweep (issue 25, 2b): every OpInfo that has its own
reference inputs, with all of them (the coverage sweep takes 4), forward
only, on russet against CPU. Run it in each session that changes pointwise
math:

    RUSSET_PROFILE=apple .venv/bin/python tools/reference_sweep.py [--dtypes float32,float16] [--ops a,b]

Each mismatching (op, dtype) is printed with its class: "nonfinite" (inf
or NaN on one side only: a wrong answer), "values" (finite values beyond
assert_close's default tolerance for the dtype: read them against the
op's accuracy before calling them wrong) or "error" (russet raised where
CPU did not). The exit status is 1 when any "nonfinite" or "error" is
found.
"""
import argparse
import signal
import sys

import torch
import russet  # noqa: F401  (registers the device)
from torch.testing._internal.common_methods_invocations import op_db

D = "russet"
# results that are random or uninitialized: nothing to compare
UNCOMPARABLE = {"nn.functional.rrelu", "empty_like", "empty", "new_empty", "empty_strided", "new_empty_strided"}


class _Timeout(Exception):
    pass


def _alarm(signum, frame):
    raise _Timeout()


def _to_device(s):
    return s.transform(lambda t: t.to(D) if isinstance(t, torch.Tensor) else t)


def _tensors(out):
    return [t for t in (out if isinstance(out, (tuple, list)) else [out]) if isinstance(t, torch.Tensor)]


def check(op, dtype):
    """(class, detail) of the worst mismatch over all reference inputs, or None"""
    found = None
    for s in op.reference_inputs("cpu", dtype, requires_grad=False):
        try:
            want = _tensors(op(s.input, *s.args, **s.kwargs))
        except Exception:
            continue  # CPU refuses it: nothing to compare
        d = _to_device(s)
        try:
            got = [t.cpu() for t in _tensors(op(d.input, *d.args, **d.kwargs))]
        except Exception as e:
            return "error", repr(e)[:160]
        for w, g in zip(want, got):
            if w.shape != g.shape or w.dtype != g.dtype:
                return "values", f"shape/dtype {tuple(g.shape)} {g.dtype} against {tuple(w.shape)} {w.dtype}"
            if not (w.is_floating_point() or w.is_complex()):
                if not torch.equal(w, g):
                    found = found or ("values", "integer results differ")
                continue
            wf, gf = torch.view_as_real(w) if w.is_complex() else w, torch.view_as_real(g) if g.is_complex() else g
            one_side = torch.isfinite(wf) != torch.isfinite(gf)
            nan_diff = torch.isnan(wf) != torch.isnan(gf)
            if bool((one_side | nan_diff).any()):
                k = int((one_side | nan_diff).flatten().nonzero()[0, 0])
                return "nonfinite", (f"{int((one_side | nan_diff).sum())} of {wf.numel()} elements; e.g. CPU "
                                     f"{wf.flatten()[k].item()} russet {gf.flatten()[k].item()}")
            try:
                torch.testing.assert_close(g, w, equal_nan=True)
            except AssertionError as e:
                found = found or ("values", str(e).replace("\n", " ")[:200])
    return found


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dtypes", default="float32,float16,bfloat16")
    ap.add_argument("--ops", help="comma-separated OpInfo names (default: every one with reference inputs)")
    ap.add_argument("--timeout", type=int, default=120, help="seconds per (op, dtype)")
    args = ap.parse_args()
    dtypes = [getattr(torch, d) for d in args.dtypes.split(",")]
    names = set(args.ops.split(",")) if args.ops else None
    signal.signal(signal.SIGALRM, _alarm)
    bad = checked = 0
    for op in op_db:
        if (getattr(op, "reference_inputs_func", None) is None or (names and op.name not in names)
                or op.name in UNCOMPARABLE):
            continue
        for dt in dtypes:
            if dt not in op.supported_dtypes("cpu"):
                continue
            checked += 1
            signal.alarm(args.timeout)
            try:
                r = check(op, dt)
            except _Timeout:
                r = ("timeout", f"over {args.timeout} s")
            except Exception as e:  # the sample generator itself
                r = ("skipped", repr(e)[:120])
            finally:
                signal.alarm(0)
            if r:
                print(f"{op.name}{'.' + op.variant_test_name if op.variant_test_name else ''} {str(dt)[6:]}: "
                      f"{r[0]}: {r[1]}", flush=True)
                bad += r[0] in ("nonfinite", "error")
    print(f"{checked} (op, dtype) pairs with reference inputs; {bad} nonfinite or error")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
