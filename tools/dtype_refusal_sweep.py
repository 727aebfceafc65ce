"""The dtype-refusal sweep (issue 24): (op, dtype) pairs that CPU refuses
with NotImplementedError ("... not implemented for 'Bool'") and russet
computes instead. For each OpInfo, its first float32 sample with every
floating tensor cast to another dtype that CPU's OpInfo does not list for
the op; where CPU raises NotImplementedError, russet must raise too.

    RUSSET_PROFILE=apple .venv/bin/python tools/dtype_refusal_sweep.py [--ops a,b] [--dtypes bool,int64]

Prints one line per pair that russet computes ("accepts"), with CPU's
message, and a count per family at the end. The exit status is 1 when any
pair is found. docs/reliability.md records the count and which pairs are
kept on purpose (float16/bfloat16 special functions: russet computes them
in float32 and rounds once, as CUDA does).
"""
import argparse
import sys

import torch
import russet  # noqa: F401  (registers the device)
from torch.testing._internal.common_methods_invocations import op_db

from reference_sweep import _to_device  # (tools/ is the script's directory: on sys.path)

DTYPES = {"int64": torch.int64, "int32": torch.int32, "uint8": torch.uint8, "bool": torch.bool,
          "float16": torch.float16, "bfloat16": torch.bfloat16, "complex64": torch.complex64}
# results that are random or take no tensor input worth casting
SKIP = {"empty_like", "empty", "new_empty", "empty_strided", "new_empty_strided"}


def _cast(sample, dtype):
    def f(t):
        return t.to(dtype) if isinstance(t, torch.Tensor) and t.is_floating_point() else t
    return sample.transform(f)


def sweep(ops, dtypes):
    found = []
    for op in op_db:
        if op.name in SKIP or (ops and op.name not in ops):
            continue
        listed = op.supported_dtypes("cpu")
        try:
            sample = next(iter(op.sample_inputs("cpu", torch.float32, requires_grad=False)))
        except Exception:
            continue
        for name, dt in dtypes.items():
            if dt in listed:
                continue
            s = _cast(sample, dt)
            try:
                op(s.input, *s.args, **s.kwargs)
                continue  # CPU computes it after all
            except NotImplementedError as e:
                cpu_msg = str(e).splitlines()[0][:120]
            except Exception:
                continue  # another error: not a dtype refusal
            d = _to_device(s)
            try:
                op(d.input, *d.args, **d.kwargs)
                torch.russet.synchronize()
            except Exception:
                continue  # refused too (the error class is the conformance sweep's business)
            found.append((op.name, op.variant_test_name, name, cpu_msg))
            print(f"accepts {op.name}{'.' + op.variant_test_name if op.variant_test_name else ''} {name}: "
                  f"CPU: {cpu_msg}", flush=True)
    return found


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ops", default="", help="comma-separated OpInfo names (default: all)")
    ap.add_argument("--dtypes", default=",".join(DTYPES), help="comma-separated dtypes")
    a = ap.parse_args()
    ops = set(filter(None, a.ops.split(",")))
    dtypes = {n: DTYPES[n] for n in a.dtypes.split(",")}
    found = sweep(ops, dtypes)
    print(f"{len(found)} (op, dtype) pairs that CPU refuses and russet computes")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
