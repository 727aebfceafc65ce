"""Where PyTorch defines a result's layout: the OpInfo samples (float32, the
first four of each op, as given and with 4-d/5-d tensors in channels_last)
run on CPU and on CUDA, and every result whose strides differ between the
two is printed and written to a JSON file. The conformance sweep compares
russet's strides with CPU's (tools/conformance.py, _check_strides)
except for the ops listed here, whose layout is the backend's own choice.

    python3 tests/gpu/strides_probe.py OUT.json      (a machine with CUDA)
"""
import importlib.util
import json
import os
import sys

import torch

# the sweep's helpers without loading russet (a CUDA process): the module
# from its file, not the package
_spec = importlib.util.spec_from_file_location(
    "conformance", os.path.join(os.path.dirname(__file__), "..", "..", "tools", "conformance.py"))
cov = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(cov)


def main(path):
    diff, same = [], 0
    for key, op in cov.load_ops():
        if op.name in cov.UNINITIALIZED_OPS or "float32" not in cov.cpu_dtypes(op):
            continue
        try:
            samples = list(op.sample_inputs("cpu", torch.float32))[:4]
        except Exception:  # noqa: BLE001
            continue
        for mode in ("op", "channels-last"):
            for i, s in enumerate(samples):
                if cov._random_sample(op.name, s) or (mode == "channels-last" and not cov._has_channels(s)):
                    continue
                parts = cov._sample_parts(s)
                if mode == "channels-last":
                    parts = cov._channels_last(parts)
                try:
                    c = cov._call(op, cov._clone_cpu(parts))
                    g = cov._call(op, cov._tree_map(
                        lambda t: t.cuda() if isinstance(t, torch.Tensor) else
                        ("cuda" if t == "cpu" else torch.device("cuda") if isinstance(t, torch.device) else t), parts))
                except Exception:  # noqa: BLE001
                    continue
                for j, (a, b) in enumerate(zip(cov._leaves(g), cov._leaves(c))):
                    if not (isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor)) or b.numel() <= 1:
                        continue
                    if a.layout != torch.strided or b.layout != torch.strided or a.shape != b.shape:
                        continue
                    if cov._sized_strides(a) == cov._sized_strides(b):
                        same += 1
                    else:
                        diff.append({"op": key, "mode": mode, "sample": i, "output": j, "shape": list(b.shape),
                                     "cpu": list(b.stride()), "cuda": list(a.stride())})
                        print(diff[-1], flush=True)
    print(f"strides: {same} results alike on CPU and CUDA, {len(diff)} differ "
          f"({len({d['op'] for d in diff})} ops)")
    with open(path, "w") as f:
        json.dump({"torch": torch.__version__, "alike": same, "differ": diff}, f, indent=1)


if __name__ == "__main__":
    main(sys.argv[1])
