"""The op fuzzer (issue 24): random OpInfo ops on hostile arguments, russet
against CPU, in a worker process that may crash.

    python tools/fuzz.py --seconds 60 --seed 1 [--json out.json]
    python tools/fuzz.py --seed 1 --case 1234        # one case again, in this process
    python tools/fuzz.py --ops 'linalg|cholesky' ...  # only the ops whose key matches
    python tools/fuzz.py --seed 1 --case 1234 --replay OP,DTYPE,SAMPLE,MUTATION
        # a finding made on another torch (whose op_db draws other ops for
        # the case), by the description its repro line prints

Case k of seed s is drawn from random.Random(f"{s}:{k}") alone, so a finding
is reproduced by its (seed, case): an OpInfo of op_db, one of the dtypes CPU
supports for it, one of its first sample inputs, and one mutation:

- none: the sample as it is;
- noncontig: every tensor argument as a strided view (every other element);
- special: a NaN, +inf or -inf in each floating tensor argument;
- empty: the input cut to 0 rows along its first dimension;
- index: a huge (10^6) or very negative value in each int64 argument;
- dtype: the second tensor argument (or the input) in another dtype.

The sample runs on CPU first. Where CPU returns, russet must give the same
result (tools/conformance.py's run_variant: values within PyTorch's
tolerances, dtypes, shapes, inputs afterwards). Where CPU raises, russet must
raise too (any exception: a device-side assertion surfaces at the
synchronize). The outcomes:

- same: both returned the same result, or both raised;
- wrong: russet returned something else (values, dtype, shape);
- accepts: CPU raised and russet returned (a bad argument accepted);
- error: CPU returned and russet raised;
- crash / hang: the worker died, or made no progress for --timeout seconds
  (cpu-crash: it died in CPU's own call, which reads out of bounds on some
  arguments: PyTorch's bug, not a finding).

crash, hang, wrong and accepts are findings, printed one line each with
their repro. The exit status is 1 where a crash or hang was found (and, with
--strict, any finding). docs/reliability.md records the runs.

--threads N runs the worker's cases from N Python threads at once (each on
the default stream, as a user's threads would), to find crashes, hangs and
deadlocks under concurrent dispatch. That mode runs russet's call alone
(outcomes "ran" and "raised"): CPU's kernels read out of bounds on some
hostile arguments, and in one process a CPU crash could not be told from
russet's; a device-side assertion raised by one thread's op may also
surface at another thread's synchronize (the device error flag is the
device's, as CUDA's sticky errors are). Only crash and hang count there;
a crash or hang names the last case started. --own-streams puts each
thread on its own stream (torch.russet.Stream); without it they share the
default stream (where, until the thirty-second session, an op's parameters
in the stream's arena could be rewritten by another thread's:
docs/reliability.md).
"""

import argparse
import json
import threading
import os
import random
import re
import signal
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "python"))

MUTATIONS = ["none", "noncontig", "special", "empty", "index", "dtype"]
FINDINGS = ("crash", "hang", "wrong", "accepts")
MAX_SAMPLE = 4  # a case picks one of an op's first samples
# ops whose results hold uninitialized elements once the fuzzer changes a
# shape (a resize that grows the tensor)
UNDEFINED_AFTER_MUTATION = {"resize_", "resize_as_"}


OPS_FILTER = None  # --ops: a regular expression the op keys must match


def _ops():
    import conformance as cov

    ops = sorted(cov.load_ops(), key=lambda kv: kv[0])
    return [kv for kv in ops if re.search(OPS_FILTER, kv[0])] if OPS_FILTER else ops


def _mutate(torch, parts, mutation, rng):
    """parts ([input, args, kwargs], CPU tensors) mutated in place; False
    where the mutation does not apply to this sample."""
    tensors = []  # (container, key) of each tensor argument, the input first

    def collect(container, key):
        v = container[key]
        if isinstance(v, torch.Tensor):
            tensors.append((container, key))
        elif isinstance(v, list):  # (a tuple's items cannot be replaced)
            for i in range(len(v)):
                collect(v, i)

    collect(parts, 0)
    for i in range(len(parts[1])):
        collect(parts[1], i)
    for k in list(parts[2]):
        collect(parts[2], k)
    if mutation == "none":
        return True
    if not tensors:
        return False
    changed = False
    for n, (c, k) in enumerate(tensors):
        t = c[k]
        if mutation == "noncontig" and t.dim() >= 1 and t.numel() > 1:
            wide = t.new_empty(t.shape[:-1] + (2 * t.shape[-1],))[..., ::2]
            c[k] = wide.copy_(t.detach()).requires_grad_(t.requires_grad)
            changed = True
        elif mutation == "special" and t.is_floating_point() and t.numel() > 0:
            flat = t.detach().clone().reshape(-1)
            flat[rng.randrange(flat.numel())] = rng.choice([float("nan"), float("inf"), float("-inf")])
            c[k] = flat.reshape(t.shape).requires_grad_(t.requires_grad)
            changed = True
        elif mutation == "empty" and n == 0 and t.dim() >= 1:
            c[k] = t.detach()[:0].requires_grad_(t.requires_grad)
            changed = True
        elif mutation == "index" and t.dtype == torch.int64 and t.numel() > 0:
            flat = t.clone().reshape(-1)
            flat[rng.randrange(flat.numel())] = rng.choice([10 ** 6, -(10 ** 6)])
            c[k] = flat.reshape(t.shape)
            changed = True
        elif mutation == "dtype" and n == min(1, len(tensors) - 1):
            other = torch.int64 if t.is_floating_point() or t.is_complex() else torch.float32
            c[k] = t.detach().to(other)
            changed = True
    return changed


def _as_accurate_as_cpu(torch, op, parts):
    """For a float16/bfloat16 case whose values differ from CPU's: a note
    where russet is at least as close as CPU to the float32 result (CPU's
    reduced-precision kernels round intermediates), else None."""
    import conformance as cov

    def up(t):
        return t.detach().float() if isinstance(t, torch.Tensor) and t.dtype in (torch.float16, torch.bfloat16) else t

    try:
        ref = cov._call(op, cov._tree_map(up, cov._clone_cpu(parts)))
        cpu = cov._call(op, cov._clone_cpu(parts))
        rus = cov._tree_map(lambda t: t.detach().cpu() if isinstance(t, torch.Tensor) else t,
                            cov._call(op, cov._to_russet(parts)))
        trip = list(zip(cov._leaves(ref), cov._leaves(cpu), cov._leaves(rus)))
        if not trip or not all(isinstance(t, torch.Tensor) for x in trip for t in x):
            return None
        er = ec = 0.0
        for f, c, r in trip:
            if not (f.is_floating_point() and c.shape == r.shape == f.shape):
                return None
            ok = torch.isfinite(f) & torch.isfinite(c.float())
            if not torch.equal(torch.isfinite(r.float()), torch.isfinite(c.float())):
                return None
            er = max(er, (r.float() - f)[ok].abs().max().item() if ok.any() else 0.0)
            ec = max(ec, (c.float() - f)[ok].abs().max().item() if ok.any() else 0.0)
        if er <= ec:
            return f"reduced precision: russet {er:.3g} from the float32 result, CPU {ec:.3g}"
    except Exception:  # noqa: BLE001
        return None
    return None


REPLAY = None  # --replay: (op key, dtype, sample, mutation) instead of the drawn ones


def describe_case(seed, k, ops):
    """(op key, dtype name, sample index, mutation) of case k."""
    import conformance as cov

    rng = random.Random(f"{seed}:{k}")
    if REPLAY:  # a finding from another torch, whose op_db draws other ops
        key, dt, si, mutation = REPLAY
        op = dict(ops).get(key)
        if op is None:
            raise SystemExit(f"--replay: no op {key!r} in this torch's op_db")
        return key, op, dt, si, mutation, rng
    for _ in range(50):
        key, op = ops[rng.randrange(len(ops))]
        dts = cov.cpu_dtypes(op)
        if not dts or key.startswith("_foreach"):
            continue
        return key, op, rng.choice(dts), rng.randrange(MAX_SAMPLE), rng.choice(MUTATIONS), rng
    return None


def _phase(name):
    """Where the case is (cpu, russet): a crash is russet's only in its phase."""
    _log({"phase": name})


def _log(record):
    """One JSON line to the worker's log (from any thread)."""
    if _PHASE_LOG is not None:
        with _LOG_LOCK:
            _PHASE_LOG.write(json.dumps(record) + "\n")
            _PHASE_LOG.flush()


_PHASE_LOG = None
_LOG_LOCK = threading.Lock()


def _russet_raises(torch, cov, op, parts):
    """russet's call on the sample's arguments moved to the device, with a
    synchronize (a device-side assertion counts): what it raised, or None."""
    try:
        parts_r = cov._to_russet(parts)
        if op.name in cov.CPU_ARGS_OPS:
            parts_r[1] = parts[1]
        cov._call(op, parts_r)
        torch.russet.synchronize()
    except Exception as e:  # noqa: BLE001
        return f"{type(e).__name__}: {cov._first_line(e)}"
    return None


def run_case(torch, seed, k, ops, russet_only=False):
    """One case in this process: {"case", "op", "dtype", "sample", "mutation", "outcome", "detail"}.
    russet_only (the threaded mode): russet's call alone, outcome "ran" or
    "raised" (CPU's kernels read out of bounds on some hostile arguments: in
    a process of several threads such a crash could not be told from
    russet's)."""
    import itertools

    import conformance as cov

    d = describe_case(seed, k, ops)
    if d is None:
        return {"case": k, "outcome": "skipped", "detail": "no op drawn"}
    key, op, dt, si, mutation, rng = d
    rec = {"case": k, "op": key, "dtype": dt, "sample": si, "mutation": mutation}
    if key in cov.UNINITIALIZED_OPS or op.name in cov.RANDOM_OPS or (
            op.name in UNDEFINED_AFTER_MUTATION and mutation != "none"):
        return dict(rec, outcome="skipped", detail="random or uninitialized results")
    dtype = getattr(torch, dt)
    torch.manual_seed(cov._h(f"{key}:{dt}") % (1 << 31))
    try:
        samples = list(itertools.islice(op.sample_inputs("cpu", dtype), MAX_SAMPLE))
    except Exception as e:  # noqa: BLE001
        return dict(rec, outcome="skipped", detail="sample inputs raise: " + cov._first_line(e))
    if not samples:
        return dict(rec, outcome="skipped", detail="no sample inputs")
    s = samples[si % len(samples)]
    parts = cov._sample_parts(s)
    if not cov._numel_ok(parts):
        return dict(rec, outcome="skipped", detail="too large")
    if not _mutate(torch, parts, mutation, rng):  # the sample as it is, then
        rec["mutation"] = "none"
    s.input, s.args, s.kwargs = parts[0], tuple(parts[1]), parts[2]
    if russet_only:
        _phase("russet")
        raised = _russet_raises(torch, cov, op, parts)
        return dict(rec, outcome="raised" if raised else "ran", detail=raised or "")
    _phase("cpu")
    try:
        # on the sample itself, as run_variant does (a clone would lose a
        # view's storage, which as_strided may reach into)
        cov._call(op, parts)
        cpu_raised = None
    except Exception as e:  # noqa: BLE001
        cpu_raised = f"{type(e).__name__}: {cov._first_line(e)}"
    # (run_variant calls CPU once more: a CPU that reads out of bounds on
    # these arguments may crash there instead; its phase hook says so)
    _phase("russet")
    if cpu_raised is None:
        cls, detail, _ = cov.run_variant(torch, op, op.name, "op", dt, s, cov.tolerances(op, dtype))
        outcome = {"pass-native": "same", "pass-host": "same", "skipped": "same",
                   "unsupported": "error"}.get(cls, cls)
        if outcome == "wrong" and dtype in (torch.float16, torch.bfloat16):
            _phase("cpu")  # CPU's calls in float32
            closer = _as_accurate_as_cpu(torch, op, parts)
            if closer:
                outcome, detail = "same", closer
        return dict(rec, outcome=outcome, detail=detail)
    raised = _russet_raises(torch, cov, op, parts)
    if raised:
        return dict(rec, outcome="same", detail="both raise; russet " + raised)
    return dict(rec, outcome="accepts", detail="CPU raises " + cpu_raised)


def worker(seed, first, last, out_path, timeout, threads=1, own_streams=False):
    import warnings

    warnings.filterwarnings("ignore")
    import torch

    import russet  # noqa: F401
    import conformance as cov

    torch.set_num_threads(1)
    ops = _ops()
    cov.PHASE_HOOK = _phase
    signal.signal(signal.SIGALRM, cov._alarm)
    global _PHASE_LOG
    with open(out_path, "a", buffering=1) as out:
        _PHASE_LOG = out
        if threads > 1:
            _threaded(torch, cov, seed, first, last, ops, threads, own_streams)
            return
        for k in range(first, last):
            out.write(json.dumps({"start": k}) + "\n")
            out.flush()
            signal.alarm(timeout)
            try:
                rec = run_case(torch, seed, k, ops)
            except cov._Timeout:
                rec = {"case": k, "outcome": "hang", "detail": f"more than {timeout} s (alarm)"}
            except Exception as e:  # noqa: BLE001  (a fuzzer bug must not stop the run)
                rec = {"case": k, "outcome": "skipped", "detail": "harness: " + cov._first_line(e)}
            finally:
                signal.alarm(0)
            try:  # the process must still work after each case
                torch.russet.synchronize()
            except Exception:  # noqa: BLE001
                pass
            out.write(json.dumps(rec) + "\n")
            out.flush()


def _threaded(torch, cov, seed, first, last, ops, threads, own_streams):
    """The cases [first, last) from `threads` threads, case k on thread
    k % threads (no alarm: SIGALRM reaches only the main thread; the
    parent's no-progress timeout catches a hang); each thread on its own
    stream with own_streams, else all on the default stream."""
    def run(ks):
        if own_streams:
            with torch.russet.stream(torch.russet.Stream()):
                return run_on(ks)
        return run_on(ks)

    def run_on(ks):
        for k in ks:
            _log({"start": k})
            try:
                rec = run_case(torch, seed, k, ops, russet_only=True)
            except Exception as e:  # noqa: BLE001
                rec = {"case": k, "outcome": "skipped", "detail": "harness: " + cov._first_line(e)}
            try:
                torch.russet.synchronize()
            except Exception:  # noqa: BLE001  (another thread's device error, possibly)
                pass
            _log(rec)

    ts = [threading.Thread(target=run, args=(range(first + i, last, threads),)) for i in range(threads)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()


def _read_log(path):
    """The worker's complete JSON lines (it may be writing the last one)."""
    out = []
    for x in open(path).read().split("\n")[:-1]:
        try:
            out.append(json.loads(x))
        except ValueError:
            pass
    return out


def _repro(seed, rec):
    what = " ".join(f"{k}={rec[k]}" for k in ("op", "dtype", "sample", "mutation") if k in rec)
    ops = f" --ops '{OPS_FILTER}'" if OPS_FILTER else ""
    return f"python tools/fuzz.py --seed {seed}{ops} --case {rec['case']}  # {what}: {rec.get('detail', '')[:200]}"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seconds", type=float, default=60)
    ap.add_argument("--cases", type=int, default=None, help="stop after this many cases (or --seconds)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--case", type=int, default=None, help="run this one case here and print it")
    ap.add_argument("--first", type=int, default=0, help="the first case")
    ap.add_argument("--timeout", type=int, default=60, help="seconds a case may take")
    ap.add_argument("--json", default=None)
    ap.add_argument("--strict", action="store_true", help="exit 1 on any finding, not only crash/hang")
    ap.add_argument("--threads", type=int, default=1, help="threads issuing the cases at once (crash/hang only)")
    ap.add_argument("--own-streams", action="store_true", help="with --threads: each thread on its own stream")
    ap.add_argument("--ops", default=None,
                    help="only the ops whose key matches this regular expression (a case's draw depends on it)")
    ap.add_argument("--replay", default=None, metavar="OP,DTYPE,SAMPLE,MUTATION",
                    help="with --case: run this op, dtype, sample and mutation (a finding made on another "
                         "torch, whose op_db draws other ops for the case; the mutation's random values "
                         "still come from the seed and case)")
    ap.add_argument("--worker", nargs=3, type=str, default=None, help=argparse.SUPPRESS)
    a = ap.parse_args()
    global OPS_FILTER, REPLAY
    OPS_FILTER = a.ops
    if a.ops is not None and not a.worker and not _ops():  # (a worker's parent checked it)
        ap.error(f"--ops {a.ops!r} matches no op")
    if a.worker:
        first, last, path = a.worker
        worker(a.seed, int(first), int(last), path, a.timeout, a.threads, a.own_streams)
        return 0
    if a.replay:
        key, dt, si, mutation = a.replay.split(",")
        if a.case is None or mutation not in MUTATIONS:
            ap.error(f"--replay needs --case and a mutation of {MUTATIONS}")
        REPLAY = (key, dt, int(si), mutation)
    if a.case is not None:
        import torch

        import russet  # noqa: F401

        print(json.dumps(run_case(torch, a.seed, a.case, _ops())))
        return 0

    t0, k, records = time.time(), a.first, []
    log = tempfile.NamedTemporaryFile("w", suffix=".jsonl", delete=False).name
    end = a.first + a.cases if a.cases is not None else None
    while time.time() - t0 < a.seconds and (end is None or k < end):
        # a worker for the next block of cases; restarted after a crash or hang
        open(log, "w").close()
        block = 200 if end is None else min(200, end - k)
        p = subprocess.Popen([sys.executable, os.path.abspath(__file__), "--seed", str(a.seed), "--timeout",
                              str(a.timeout), "--threads", str(a.threads)] + (["--own-streams"] if a.own_streams else [])
                             + (["--ops", a.ops] if a.ops else [])
                             + ["--worker", str(k), str(k + block), log],
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        last_size, last_change, started = -1, time.time(), None
        while True:
            rc = p.poll()
            size = os.path.getsize(log)
            if size != last_size:
                last_size, last_change = size, time.time()
            lines = _read_log(log)
            done = [x for x in lines if "outcome" in x]
            starts = [x["start"] for x in lines if "start" in x]
            started = starts[-1] if starts else None
            phase = "setup"  # of the last case started
            for x in lines:
                phase = "setup" if "start" in x else x.get("phase", phase)
            out_of_time = time.time() - t0 >= a.seconds
            if rc is not None or out_of_time or time.time() - last_change > a.timeout + 30:
                break
            time.sleep(0.2)
        finished = {x["case"] for x in done}
        records.extend(done)
        if rc is None:
            p.kill()
            p.wait()
            if not out_of_time and started is not None and started not in finished:
                records.append({"case": started, "outcome": "hang", "detail": "no progress: the worker was killed"})
            k = (started + 1) if started is not None else k + block
            if out_of_time:
                break
        elif rc != 0:
            err = p.stderr.read().decode(errors="replace").strip().splitlines()
            if started is not None and started not in finished:
                records.append({"case": started, "outcome": "crash" if phase == "russet" else "cpu-crash",
                                "detail": f"exit {rc} in the {phase} call: " + (err[-1] if err else "")})
            k = (started + 1) if started is not None else k + block
        else:
            k += block
    os.unlink(log)
    ops = _ops()
    for r in records:  # the case's description, for crash and hang records too
        if "op" not in r:
            d = describe_case(a.seed, r["case"], ops)
            if d:
                r.update(op=d[0], dtype=d[2], sample=d[3], mutation=d[4])
    counts = {}
    for r in records:
        counts[r["outcome"]] = counts.get(r["outcome"], 0) + 1
    findings = [r for r in records if r["outcome"] in (FINDINGS if a.threads == 1 else ("crash", "hang"))]
    print(f"fuzz: seed {a.seed}, {len(records)} cases in {time.time() - t0:.0f} s"
          + (f" from {a.threads} threads" if a.threads > 1 else "") + ": "
          + ", ".join(f"{k} {v}" for k, v in sorted(counts.items())))
    for r in sorted(findings, key=lambda r: (FINDINGS.index(r["outcome"]), r["case"])):
        print(f"  {r['outcome']:8s} {_repro(a.seed, r)}")
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"seed": a.seed, "seconds": a.seconds, "threads": a.threads, "counts": counts,
                       "records": records}, f, indent=1)
    fatal = [r for r in findings if r["outcome"] in ("crash", "hang")]
    return 1 if fatal or (a.strict and findings) else 0


if __name__ == "__main__":
    sys.exit(main())
