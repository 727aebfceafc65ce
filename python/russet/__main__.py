"""The russet command line: python -m russet {info,demo,bench,coverage}."""

import argparse
import json
import os
import sys
import time

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _mib(n):
    return f"{n / (1 << 20):.1f} MiB"


def _fmt_bytes(n):
    n = int(n)
    for unit, size in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= size:
            return f"{n / size:.1f} {unit}"
    return f"{n} B"


def _load():
    import torch

    import russet  # noqa: F401  (registers torch.russet)

    return torch


def _env_summary():
    keys = ["RUSSET_PROFILE", "RUSSET_DEVICE", "RUSSET_CACHE_DIR", "RUSSET_HOST_OPS",
            "TORCH_DEVICE_BACKEND_AUTOLOAD", "VK_DRIVER_FILES", "VK_ICD_FILENAMES",
            "MVK_CONFIG_FAST_MATH_ENABLED"]
    return {k: os.environ[k] for k in keys if k in os.environ}


# The torch releases russet is built and tested against (README.md,
# "Supported torch"): CI's on every stop, the GPU machine's image by hand
TESTED_TORCH = {"2.13": "CI, every stop", "2.11": "the lent GPU's image, each GPU run",
                "2.15": "by hand: the Python suite and the conformance sweep (docs/torch-versions.md)"}


def torch_version_note(version):
    """A warning line when `version` (torch.__version__) is outside the
    tested range, else None"""
    try:
        major_minor = tuple(int(x) for x in version.split("+")[0].split(".")[:2])
    except ValueError:
        return f"warning: torch {version}: not a release russet knows; tested: {', '.join(sorted(TESTED_TORCH))}"
    tested = sorted(tuple(int(x) for x in v.split(".")) for v in TESTED_TORCH)
    if tested[0] <= major_minor <= tested[-1]:
        return None
    lo, hi = (".".join(map(str, v)) for v in (tested[0], tested[-1]))
    return (f"warning: torch {version} is outside the range russet is tested with ({lo} to {hi}); "
            "ops may be missing or fail (README.md, Supported torch)")


def print_device_report(torch, device=0, out=sys.stdout):
    from russet import _module

    p = out.write
    n = torch.russet.device_count()
    import russet

    p(f"russet {russet.__version__}, torch {torch.__version__}, python {sys.version.split()[0]}\n")
    note = torch_version_note(torch.__version__)
    if note:
        p(note + "\n")
    env = _env_summary()
    if env:
        p("environment: " + ", ".join(f"{k}={v}" for k, v in env.items()) + "\n")
    p(f"devices: {n}\n")
    if n == 0:
        from russet import _lib

        p(f"no Vulkan device found: {_lib.last_error()}\n"
          "  install mesa-vulkan-drivers (Linux) or molten-vk + vulkan-loader (macOS),\n"
          "  check VK_DRIVER_FILES and run `vulkaninfo --summary` (README.md, Troubleshooting)\n")
        return False
    for i in range(n):
        info = _module._info(i)
        mark = " (current)" if i == torch.russet.current_device() else ""
        p(f"\n[russet:{i}]{mark} {info.get('name')}\n")
        rows = [
            ("driver", info.get("driver")),
            ("vendor", f"{info.get('vendor')} (vendor_id 0x{int(info.get('vendor_id', 0)):04x}, "
                       f"device_id 0x{int(info.get('device_id', 0)):04x})"),
            ("Vulkan API", info.get("api_version")),
            ("device type", "CPU (software rasterizer)" if info.get("is_cpu") else "GPU"),
            ("profile", info.get("profile")),
            ("total memory", _fmt_bytes(info.get("total_memory", 0))),
        ]
        for k, v in rows:
            p(f"  {k:<28}{v}\n")
        p("  features (after the profile mask):\n")
        for k, v in info.get("features", {}).items():
            if isinstance(v, bool) or k.startswith("has_") or k == "unified_memory":
                v = "yes" if v else "no"
            elif k in ("max_allocation_size", "max_shared_memory") and isinstance(v, int):
                v = f"{v} ({_fmt_bytes(v)})"
            p(f"    {k:<26}{v}\n")
        stats = _module._raw_memory_stats(i)
        p("  memory: allocated {} (peak {}), reserved {} (peak {}), {} segments, {} OOMs\n".format(
            _fmt_bytes(stats["allocated_bytes"]), _fmt_bytes(stats["peak_allocated_bytes"]),
            _fmt_bytes(stats["reserved_bytes"]), _fmt_bytes(stats["peak_reserved_bytes"]),
            stats["segments"], stats["num_ooms"]))
        cache = info.get("cache", {})
        if cache:
            p(f"  kernel cache: {cache.get('dir')}\n")
            p("    SPIR-V: {} compiled, {} from disk, {} rejected; pipelines: {} created, "
              "{} memory hits; pipeline cache blob {}\n".format(
                  cache.get("spirv_compiles"), cache.get("spirv_disk_hits"),
                  cache.get("spirv_disk_rejects"), cache.get("pipelines_created"),
                  cache.get("pipeline_memory_hits"),
                  "loaded" if cache.get("pipeline_cache_loaded") else "not loaded"))
    return True


# ---------------------------------------------------------------- info


def cmd_info(args):
    torch = _load()
    if args.json:
        from russet import _module

        n = torch.russet.device_count()
        print(json.dumps([_module._info(i) for i in range(n)], indent=2))
        return 0 if n else 1
    return 0 if print_device_report(torch) else 1


# ---------------------------------------------------------------- demo


def _make_task(torch, n=512, d_in=16, n_classes=4, seed=0):
    """A seeded, synthetic classification task: labels from a random teacher MLP."""
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(n, d_in, generator=g)
    teacher = torch.randn(d_in, 32, generator=g)
    head = torch.randn(32, n_classes, generator=g)
    y = (torch.tanh(x @ teacher) @ head).argmax(1)
    return x, y


def _make_model(torch, d_in=16, hidden=64, n_classes=4, seed=1):
    torch.manual_seed(seed)
    return torch.nn.Sequential(
        torch.nn.Linear(d_in, hidden), torch.nn.ReLU(), torch.nn.Linear(hidden, n_classes)
    )


def _bar(step, total, loss, width=30):
    done = int(width * step / total)
    return f"\r  [{'#' * done}{'.' * (width - done)}] step {step:4d}/{total} loss {loss:.4f}"


def _train(torch, model, x, y, device, steps, batch, lr, label, show_bar):
    model = model.to(device)
    x, y = x.to(device), y.to(device)
    opt = torch.optim.SGD(model.parameters(), lr=lr, momentum=0.9)
    loss_fn = torch.nn.CrossEntropyLoss()
    n = x.shape[0]
    losses = []
    every = max(1, steps // 30)

    def step_fn(i):
        lo = (i * batch) % n
        xb, yb = x[lo:lo + batch], y[lo:lo + batch]
        opt.zero_grad(set_to_none=True)
        loss = loss_fn(model(xb), yb)
        loss.backward()
        opt.step()
        return loss

    # one warm-up step (pipeline compiles, caches) is not timed; the model
    # state is restored after it so both devices train from the same weights
    state = {k: v.detach().clone() for k, v in model.state_dict().items()}
    step_fn(0).item()
    model.load_state_dict(state)
    opt = torch.optim.SGD(model.parameters(), lr=lr, momentum=0.9)
    if device != "cpu":
        torch.russet.synchronize()

    t0 = time.perf_counter()
    for i in range(steps):
        loss = step_fn(i)
        if show_bar and (i % every == 0 or i == steps - 1):
            v = loss.item()  # a host read: syncs the device
            losses.append(v)
            sys.stdout.write(_bar(i + 1, steps, v) + f"  ({label})")
            sys.stdout.flush()
    final = loss.item()
    if device != "cpu":
        torch.russet.synchronize()
    dt = time.perf_counter() - t0
    if show_bar:
        sys.stdout.write("\n")
    with torch.no_grad():
        full = loss_fn(model(x), y).item()
        acc = (model(x).argmax(1) == y).float().mean().item()
    return {"final_loss": final, "full_loss": full, "acc": acc, "s_per_step": dt / steps,
            "model": model}


def _count_ops_one_step(torch, model, x, y, batch):
    """Classifies the aten ops of one training step on russet: an op is "host"
    if host execution ran during it (itself, or ops nested in it, such as the
    per-tensor adds of _foreach_add_), else "native"."""
    from torch.utils._python_dispatch import TorchDispatchMode

    def host_calls():
        return sum(torch.russet.host_op_counts().values())

    class Counter(TorchDispatchMode):
        def __init__(self):
            super().__init__()
            self.native, self.host = {}, {}

        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            before = host_calls()
            out = func(*args, **(kwargs or {}))
            name = func._schema.name
            if name.startswith("aten::"):
                d = self.host if host_calls() > before else self.native
                d[name] = d.get(name, 0) + 1
            return out

    opt = torch.optim.SGD(model.parameters(), lr=0.0)
    torch.russet.synchronize()
    torch.russet.reset_host_op_counts()
    with Counter() as c:
        opt.zero_grad(set_to_none=True)
        loss = torch.nn.functional.cross_entropy(model(x[:batch]), y[:batch])
        loss.backward()
        opt.step()
        loss.item()
    return c.native, c.host, torch.russet.host_op_counts()


def cmd_demo(args):
    torch = _load()
    print("== russet demo ==\n")
    if not print_device_report(torch):
        return 1
    steps, batch, lr = args.steps, 64, 0.05
    x, y = _make_task(torch)
    print(f"\ntraining a 2-layer MLP (16 -> 64 -> 4, {sum(p.numel() for p in _make_model(torch).parameters())}"
          f" parameters) on a synthetic 4-class task: {steps} steps of SGD+momentum, batch {batch}")

    torch.russet.reset_host_op_counts()
    print("on russet:")
    r = _train(torch, _make_model(torch), x, y, "russet", steps, batch, lr, "russet", True)
    host_total = torch.russet.host_op_counts()
    print("on cpu:")
    c = _train(torch, _make_model(torch), x, y, "cpu", steps, batch, lr, "cpu", True)

    native, host_top, host_step = _count_ops_one_step(
        torch, r["model"], x.to("russet"), y.to("russet"), batch)

    print("\nresults")
    print(f"  {'':<12}{'final loss':>12}{'loss (all data)':>17}{'accuracy':>10}{'time/step':>12}")
    for name, res in (("russet", r), ("cpu", c)):
        print(f"  {name:<12}{res['final_loss']:>12.5f}{res['full_loss']:>17.5f}{res['acc']:>10.3f}"
              f"{res['s_per_step'] * 1e3:>10.2f}ms")
    ratio = r["s_per_step"] / c["s_per_step"] if c["s_per_step"] > 0 else float("inf")
    print(f"  russet/cpu time per step: {ratio:.1f}x")

    def top(d, n=8):
        items = sorted(d.items(), key=lambda kv: -kv[1])
        return ", ".join(f"{k} x{v}" for k, v in items[:n]) + (", ..." if len(items) > n else "")

    n_native, n_host = sum(native.values()), sum(host_top.values())
    print(f"\nops in one training step on russet: {n_native + n_host} aten ops")
    print(f"  native:          {n_native:4d}" + (f"  ({top(native)})" if native else ""))
    print(f"  host execution:  {n_host:4d}" + (f"  ({top(host_top)})" if host_top else ""))
    if host_step:
        print(f"    which made {sum(host_step.values())} host-executed kernel calls: {top(host_step)}")
    print(f"  whole run: {sum(host_total.values())} host-executed op calls over {len(host_total)} ops")
    if host_total:
        print("  (host execution runs PyTorch's CPU kernel on the device memory, counted: see\n"
              "   README.md, Status, for what runs natively)")

    ok = True
    try:
        torch.testing.assert_close(
            torch.tensor(r["final_loss"]), torch.tensor(c["final_loss"]), rtol=2e-3, atol=2e-4)
        torch.testing.assert_close(
            torch.tensor(r["full_loss"]), torch.tensor(c["full_loss"]), rtol=2e-3, atol=2e-4)
    except AssertionError as e:
        ok = False
        print(f"\nFAIL: russet's loss does not match the CPU run:\n{e}")
    for (k, v), (k2, v2) in zip(r["model"].state_dict().items(), c["model"].state_dict().items()):
        try:
            torch.testing.assert_close(v.cpu(), v2, rtol=1e-2, atol=1e-3)
        except AssertionError as e:
            ok = False
            print(f"\nFAIL: parameter {k} differs from the CPU run:\n{e}")
    if ok:
        print(f"\nOK: final loss on russet {r['final_loss']:.5f} matches cpu {c['final_loss']:.5f}"
              f" (|diff| {abs(r['final_loss'] - c['final_loss']):.2e})")
    return 0 if ok else 1


# ---------------------------------------------------------------- bench, coverage


def cmd_bench(args):
    path = os.path.join(REPO, "bench", "run.py")
    if not os.path.exists(path):
        print(f"bench/run.py not found next to the package ({path}): run from a russet checkout",
              file=sys.stderr)
        return 1
    import runpy

    sys.argv = [path] + args.rest
    try:
        runpy.run_path(path, run_name="__main__")
    except SystemExit as e:
        return int(e.code or 0)
    return 0


def cmd_coverage(args):
    """No flag: the summary of the last full run (docs/coverage.json);
    --full / --quick run the sweep. Every option is tools/conformance.py's
    (`python -m russet coverage --help`). The harness is not part of the
    package: it runs where russet is used from its source tree."""
    import importlib.util

    repo = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    path = os.path.join(repo, "tools", "conformance.py")
    if not os.path.exists(path):
        print("python -m russet coverage: the conformance harness (tools/conformance.py) is in russet's "
              "source tree, not in an installed package; run it from a checkout", file=sys.stderr)
        return 2
    sys.path.insert(0, os.path.dirname(path))
    spec = importlib.util.spec_from_file_location("conformance", path)
    conformance = importlib.util.module_from_spec(spec)
    sys.modules["conformance"] = conformance
    spec.loader.exec_module(conformance)
    return conformance.main(args.rest)


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python -m russet", description=__doc__)
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("info", help="print the device report")
    p.add_argument("--json", action="store_true", help="machine-readable report")
    p.set_defaults(fn=cmd_info)
    p = sub.add_parser("demo", help="device report, then train a small MLP on russet and on CPU")
    p.add_argument("--steps", type=int, default=300)
    p.set_defaults(fn=cmd_demo)
    p = sub.add_parser("bench", help="run bench/run.py (dispatch cost, copy bandwidth)")
    p.add_argument("rest", nargs=argparse.REMAINDER)
    p.set_defaults(fn=cmd_bench)
    p = sub.add_parser("coverage", add_help=False,
                       help="op coverage: the last full run's summary, or run the OpInfo sweep "
                       "(--full writes docs/coverage.{md,json}; --quick; --help for the rest)")
    p.add_argument("rest", nargs=argparse.REMAINDER)
    p.set_defaults(fn=cmd_coverage)
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv[:1] == ["coverage"]:  # its options are coverage.py's, passed through as they are
        return cmd_coverage(argparse.Namespace(rest=argv[1:]))
    args = ap.parse_args(argv)
    return args.fn(args)


if __name__ == "__main__":
    sys.exit(main())
