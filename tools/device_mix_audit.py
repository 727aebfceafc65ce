"""Mixed-device audit: every OpInfo sample with two or more tensors, run with
exactly one of them on the CPU and the rest on russet (float32, the first 3
samples of each op). CUDA's rule is an error ("Expected all tensors to be on
the same device"), except ops that only read sizes or copy across devices.
Printed: results that differ from CPU's (WRONG: memory read as the wrong
kind) and results that land on the CPU although a russet tensor went in
(CPU-RESULT: a CPU kernel ran on russet memory, or the op accepts mixing).

    PYTHONPATH=python python tools/device_mix_audit.py [START STOP]

(op_db indices; run chunks in separate processes: a crash ends one chunk.)
Fourteenth session, after address_of() checks the device: no WRONG rows;
CPU-RESULT for linalg.lu_solve and ctc_loss with their first tensor on the
CPU and for the ops that legitimately take a CPU self (view_as, expand_as,
the *_scatter family...). Fifteenth session: lu_solve now raises ATen's
device error (test_device_mixing.py); ctc_loss's is PyTorch's own
behaviour (its composite moves the targets to log_probs' device "as a
service", so with log_probs on the CPU everything runs there).
"""
import sys, json, torch, russet, warnings
warnings.filterwarnings("ignore")
from torch.testing._internal.common_methods_invocations import op_db
start, stop = (int(sys.argv[1]), int(sys.argv[2])) if len(sys.argv) > 2 else (0, len(op_db))
out = []
def to_dev(v, dev):
    if isinstance(v, torch.Tensor): return v.to(dev)
    if isinstance(v, (list, tuple)) and v and all(isinstance(t, torch.Tensor) for t in v): return type(v)(t.to(dev) for t in v)
    return v
def close(a, b):
    if isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor):
        a = a.cpu()
        if a.shape != b.shape: return False
        if a.is_floating_point() or a.is_complex():
            return torch.allclose(a.to(b.dtype), b, rtol=1e-3, atol=1e-3, equal_nan=True)
        return torch.equal(a.to(b.dtype), b)
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(close(x, y) for x, y in zip(a, b))
    return True
for op in op_db[start:stop]:
    if torch.float32 not in op.supported_dtypes("cpu") or op.name.startswith("jiterator"):
        continue
    try:
        samples = list(op.sample_inputs("cpu", torch.float32))[:3]
    except Exception:
        continue
    for s in samples:
        slots = [("input", None)] if isinstance(s.input, torch.Tensor) and s.input.dim() > 0 else []
        slots += [("arg", i) for i, a in enumerate(s.args) if isinstance(a, torch.Tensor) and a.dim() > 0]
        slots += [("kw", k) for k, v in s.kwargs.items() if isinstance(v, torch.Tensor) and v.dim() > 0]
        if len(slots) < 2:
            continue
        try:
            torch.manual_seed(0)
            want = op(s.input.clone() if isinstance(s.input, torch.Tensor) else s.input, *[a.clone() if isinstance(a, torch.Tensor) else a for a in s.args], **s.kwargs)
        except Exception:
            continue
        for kind, key in slots:
            inp = to_dev(s.input, "cpu" if kind == "input" else "russet")
            args = [to_dev(a, "cpu" if (kind == "arg" and i == key) else "russet") for i, a in enumerate(s.args)]
            kwargs = {k: to_dev(v, "cpu" if (kind == "kw" and k == key) else "russet") for k, v in s.kwargs.items()}
            try:
                torch.manual_seed(0)
                r = op(inp, *args, **kwargs)
                torch.russet.synchronize()
                junk = torch.full((1 << 18,), 12345.0); del junk
                if not close(r, want):
                    out.append((op.name, op.variant_test_name, "WRONG", kind, str(key)))
                rs = r if isinstance(r, torch.Tensor) else (r[0] if isinstance(r, (list, tuple)) and r and isinstance(r[0], torch.Tensor) else None)
                if rs is not None and rs.device.type == "cpu":
                    out.append((op.name, op.variant_test_name, "CPU-RESULT", kind, str(key)))
            except RuntimeError:
                pass
            except Exception as e:
                out.append((op.name, op.variant_test_name, "exc:" + type(e).__name__, kind, str(key)))
        pass
print(json.dumps(out))
