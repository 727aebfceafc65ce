"""Bad input gets a Python exception that reads like PyTorch's, never a crash."""

import pytest
import torch

from conftest import run_python

D = "russet"


def test_bad_device_index_tensor_creation():
    n = torch.russet.device_count()
    with pytest.raises(RuntimeError):
        torch.empty(3, device=f"russet:{n + 5}")
    with pytest.raises(RuntimeError):
        torch.zeros(3).to(f"russet:{n}")


def test_bad_device_index_module_api():
    with pytest.raises(RuntimeError, match="Invalid device"):
        torch.russet.set_device(1000)
    with pytest.raises(RuntimeError, match="Invalid device"):
        torch.russet.memory_allocated(1000)
    with pytest.raises(RuntimeError, match="Invalid device"):
        torch.russet.synchronize("russet:77")
    with pytest.raises(RuntimeError, match="Invalid device"):
        torch.russet.Stream(device=50)
    with pytest.raises(RuntimeError, match="Invalid device"):
        torch.russet.get_rng_state(99)


def test_cross_device_op_raises():
    a = torch.ones(3, device=D)
    b = torch.ones(3)
    with pytest.raises(RuntimeError, match="device"):
        torch.mm(a.view(3, 1), b.view(1, 3))
    with pytest.raises(RuntimeError, match="device"):
        a + torch.ones(3, 3)
    with pytest.raises(RuntimeError, match="device"):
        torch.add(a, b)
    # still usable afterwards
    assert (a.cpu() == 1).all()


def test_out_on_another_device_raises():
    # an out= tensor on the CPU for an op on russet: PyTorch's out= wrappers
    # refuse it; russet's composed out= kernels did a hidden copy
    x = torch.randn(8, device=D)
    for fn, dt in ((lambda o: torch.fft.fftn(x, out=o), torch.complex64),
                   (lambda o: torch.fft.rfftn(x, out=o), torch.complex64),
                   (lambda o: torch.fft.hfft(x, out=o), torch.float32)):
        with pytest.raises(RuntimeError, match="device"):
            fn(torch.empty(0, dtype=dt))
    with pytest.raises(RuntimeError, match="device"):
        torch.where(x > 0, x, x, out=torch.empty(8))
    with pytest.raises(RuntimeError, match="device"):
        torch.searchsorted(torch.arange(5.0, device=D), x, out=torch.empty(8, dtype=torch.int64))
    # a wrong-device out= is not a wrong-dtype out=: the right one works
    o = torch.empty(0, dtype=torch.complex64, device=D)
    torch.fft.fftn(x, out=o)
    torch.testing.assert_close(o.cpu(), torch.fft.fftn(x.cpu()))


def test_shape_and_dtype_mismatch():
    a = torch.ones(3, 4, device=D)
    with pytest.raises(RuntimeError):
        torch.mm(a, a)
    with pytest.raises(RuntimeError):
        a.view(5, 3)
    with pytest.raises(RuntimeError):
        a.copy_(torch.ones(5))
    with pytest.raises(RuntimeError):
        torch.ones(3, device=D).add_(torch.ones(3, device=D, dtype=torch.complex64))


def test_bad_device_strings():
    with pytest.raises(RuntimeError):
        torch.device("russet:-3")
    with pytest.raises(RuntimeError):
        torch.empty(2, device="russet:abc")


def test_item_on_multi_element_raises():
    with pytest.raises(RuntimeError):
        torch.ones(3, device=D).item()


def test_index_out_of_range_raises():
    t = torch.arange(5, device=D)
    with pytest.raises(IndexError):
        t[10]
    with pytest.raises((IndexError, RuntimeError)):
        t[torch.tensor([7], device=D)].cpu()
    assert t.cpu().tolist() == [0, 1, 2, 3, 4]
    # the device assertion names the index the user wrote (it said -1)
    x = torch.zeros(10, 3, device=D)
    for bad in (100, -11):
        with pytest.raises(RuntimeError, match=f"index {bad} is out of bounds"):
            x[torch.tensor([bad])].cpu()
    # with two index tensors the merged index is reported as -1, still an error
    with pytest.raises(RuntimeError, match="out of bounds"):
        x[torch.tensor([0]), torch.tensor([3])].cpu()
    assert x[torch.tensor([-1])].cpu().shape == (1, 3)


def test_bad_scalar_arguments_raise_like_cpu():
    # a fractional step truncates to 0 for int64: the ValueError of CPU in
    # torch 2.13 (this was a division by zero that killed the process with
    # SIGFPE, as torch 2.11's own CPU kernel still does: not called here)
    with pytest.raises(ValueError, match="step must be nonzero"):
        torch.arange(0, 64, 0.5, out=torch.empty(0, dtype=torch.int64, device=D))
    # int32 keeps CPU's answer: the double size, a truncated step of 0
    got = torch.arange(0, 4, 0.5, out=torch.empty(0, dtype=torch.int32, device=D))
    assert got.cpu().tolist() == torch.arange(0, 4, 0.5, out=torch.empty(0, dtype=torch.int32)).tolist()
    x = torch.randn(3, device=D, requires_grad=True)
    for f in (lambda: torch.nn.functional.gelu(x, approximate="foo"),
              lambda: torch.ops.aten.gelu_backward(torch.ones(3, device=D), x, approximate="foo")):
        with pytest.raises(RuntimeError, match="approximate argument must be either none or tanh"):
            f()


def test_errors_do_not_crash_the_process():
    code = (
        "import torch, russet\n"
        "a = torch.ones(4, device='russet')\n"
        "for f in [lambda: a + torch.ones(4), lambda: a.view(3), lambda: torch.empty(2, device='russet:9'),\n"
        "          lambda: torch.empty(2**45, dtype=torch.uint8, device='russet')]:\n"
        "    try:\n"
        "        f()\n"
        "    except Exception as e:\n"
        "        print(type(e).__name__)\n"
        "print('ALIVE', a.cpu().sum().item())\n"
    )
    r = run_python(code)
    assert r.returncode == 0, r.stderr
    assert "ALIVE 4.0" in r.stdout
    assert r.stdout.count("Error") >= 4, r.stdout


def test_dtype_the_profile_lacks_is_a_clear_error_when_host_ops_are_off():
    """Under apple, float64 compute needs host execution; with it switched off
    the op raises an error that names the problem instead of computing wrongly."""
    code = (
        "import torch, russet\n"
        "a = torch.ones(4, dtype=torch.float64, device='russet')\n"
        "try:\n"
        "    (a * 2).cpu()\n"
        "except RuntimeError as e:\n"
        "    m = str(e).lower()\n"
        "    print('RAISED', 'host' in m, 'shaderfloat64' in m)\n"
        "else:\n"
        "    print('NO_ERROR')\n"
    )
    r = run_python(code, env={"RUSSET_HOST_OPS": "error", "RUSSET_PROFILE": "apple"})
    assert r.returncode == 0, r.stderr
    # the message says why it could not run natively: the device's missing fp64
    assert "RAISED True True" in r.stdout, r.stdout + r.stderr


F = torch.nn.functional
_x4 = lambda dt: (torch.rand(2, 3, 4, 5) * 5).to(dt)  # noqa: E731
_x5 = lambda dt: (torch.rand(2, 3, 4, 5, 6) * 5).to(dt)  # noqa: E731
_x3 = lambda dt: (torch.rand(2, 3, 8) * 5).to(dt)  # noqa: E731
# (what, make the input, the call, dtypes CPU refuses with NotImplementedError)
REFUSALS = [
    ("ceil", _x4, torch.ceil, [torch.bool]), ("floor", _x4, torch.floor, [torch.bool]),
    ("trunc", _x4, torch.trunc, [torch.bool]), ("round", _x4, torch.round, [torch.bool]),
    ("round decimals", _x4, lambda t: torch.round(t, decimals=1), [torch.bool, torch.uint8, torch.int32, torch.int64]),
    ("abs", _x4, torch.abs, [torch.bool]), ("softsign", _x4, F.softsign, [torch.bool]),
    ("clamp tensor", _x4, lambda t: torch.clamp(t, t, t), [torch.bool]),
    ("addcmul", _x4, lambda t: torch.addcmul(t, t, t), [torch.bool]),
    ("geometric_", _x4, lambda t: t.geometric_(0.5), [torch.bool, torch.complex64]),
    ("kthvalue", _x4, lambda t: torch.kthvalue(t, 1), [torch.bool]),
    ("median dim", _x4, lambda t: torch.median(t, 0), [torch.bool]), ("median", _x4, torch.median, [torch.bool]),
    ("nanmedian", _x4, lambda t: torch.nanmedian(t, 0), [torch.bool]),
    ("adaptive_avg_pool2d", _x4, lambda t: F.adaptive_avg_pool2d(t, 2), [torch.bool, torch.int64, torch.complex64]),
    ("adaptive_avg_pool3d", _x5, lambda t: F.adaptive_avg_pool3d(t, 2), [torch.uint8, torch.int32]),
    ("adaptive_max_pool2d", _x4, lambda t: F.adaptive_max_pool2d(t, 2), [torch.int64, torch.uint8]),
    ("adaptive_max_pool3d", _x5, lambda t: F.adaptive_max_pool3d(t, 2), [torch.int32]),
    ("max_unpool2d", _x4, lambda t: F.max_unpool2d(t, torch.zeros(t.shape, dtype=torch.long, device=t.device), 2),
     [torch.bool, torch.int64, torch.complex64]),
    ("unfold", _x4, lambda t: F.unfold(t, 2), [torch.uint8, torch.int32, torch.int64]),
    ("nearest", _x4, lambda t: F.interpolate(t, scale_factor=2, mode="nearest"),
     [torch.bool, torch.int32, torch.int64, torch.complex64]),
    ("nearest-exact 3d", _x5, lambda t: F.interpolate(t, scale_factor=2, mode="nearest-exact"), [torch.int64]),
    ("area", _x4, lambda t: F.interpolate(t, size=(2, 2), mode="area"), [torch.int64]),
    ("reflection pad", _x3, lambda t: F.pad(t, (1, 1), mode="reflect"), [torch.bool]),
    ("replication pad 2d", _x4, lambda t: F.pad(t, (1, 1, 1, 1), mode="replicate"), [torch.bool]),
    ("index_reduce 1-d", lambda dt: torch.ones(4).to(dt),
     lambda t: t.index_reduce(0, torch.tensor([0, 2], device=t.device), t[:2].clone(), "prod"),
     [torch.bool, torch.complex64]),
    ("index_reduce exclude self", _x4,
     lambda t: t.index_reduce(0, torch.tensor([0, 1], device=t.device), t, "amax", include_self=False), [torch.bool]),
    ("unique_consecutive", _x4, torch.unique_consecutive, [torch.complex64]),
    ("bucketize", _x4, lambda t: torch.bucketize(t, t.flatten()[:4]), [torch.bool]),
    ("mse_loss", _x4, lambda t: F.mse_loss(t, t), [torch.int64, torch.complex64]),
    ("huber_loss", _x4, lambda t: F.huber_loss(t, t), [torch.int32, torch.uint8]),
    ("cumsum into bool", _x4, lambda t: torch.cumsum(t, 0, dtype=torch.bool), [torch.bool, torch.int64]),
    ("cumprod into bool", _x4, lambda t: torch.cumprod(t, 0, dtype=torch.bool), [torch.float32]),
    ("logsigmoid", _x4, F.logsigmoid, [torch.int64, torch.complex64]),
]


@pytest.mark.parametrize("fn", [F.elu, F.silu, F.mish, F.softplus, F.hardsigmoid, F.selu],
                         ids=lambda f: f.__name__)
def test_empty_tensors_of_a_dtype_cpu_refuses_are_refused(fn):
    """ATen's kernels check the dtype before the size: an activation of an
    empty int64 tensor raises as on CPU (the fuzzer's "empty" mutation found
    russet returning the empty result), while an empty float32 one stays
    native and empty"""
    x = torch.zeros(1, 0, 3, dtype=torch.int64)
    with pytest.raises(NotImplementedError) as cpu:
        fn(x)
    with pytest.raises(NotImplementedError, match=str(cpu.value)[:40].replace("'", ".")):
        fn(x.to(D))
    torch.russet.reset_host_op_counts()
    got = fn(x.float().to(D))
    assert got.shape == (1, 0, 3) and got.device.type == "russet"
    assert sum(torch.russet.host_op_counts().values()) == 0


def test_empty_adaptive_pooling_follows_cpus_dtype_order():
    """CPU's 2-d adaptive average returns an empty result before its dtype
    dispatch (the GPU fuzz's "dtype" mutation of an empty batch found
    russet refusing it); 3-d average and max pooling refuse first"""
    x = torch.zeros(0, 3, 8, 8, dtype=torch.int64)
    assert F.adaptive_avg_pool2d(x.to(D), 4).shape == F.adaptive_avg_pool2d(x, 4).shape == (0, 3, 4, 4)
    assert F.adaptive_avg_pool1d(x[:, 0].to(D), 5).shape == (0, 8, 5)
    for fn, t in ((F.adaptive_max_pool2d, x), (F.adaptive_avg_pool3d, x.unsqueeze(2))):
        with pytest.raises(NotImplementedError) as cpu:
            fn(t, 2)
        with pytest.raises(NotImplementedError, match=str(cpu.value)[:30].replace("'", ".")):
            fn(t.to(D), 2)


@pytest.mark.parametrize("case", REFUSALS, ids=[c[0] for c in REFUSALS])
def test_dtypes_cpu_refuses_are_refused(case):
    """An op CPU has no kernel for at a dtype raises NotImplementedError with
    CPU's message on russet too (tools/dtype_refusal_sweep.py finds them)."""
    _, make, call, dtypes = case
    for dt in dtypes:
        x = make(dt)
        with pytest.raises(NotImplementedError) as cpu:
            call(x.clone())
        with pytest.raises(NotImplementedError, match=str(cpu.value).splitlines()[0].replace("'", ".")[:60]):
            call(x.to(D))
            torch.russet.synchronize()


def test_opinfo_error_inputs_raise_like_cpu():
    """Every OpInfo error_inputs case that CPU raises as listed raises on
    russet with the listed error type and message (PyTorch's test_errors;
    the conformance sweep's `errors` variant runs the same function)."""
    from torch.testing._internal.common_methods_invocations import op_db

    import conformance as coverage

    ran, bad = 0, []
    for op in op_db:
        cases = coverage.run_error_inputs(torch, op)
        for i, (cls, detail, _) in enumerate(cases or []):
            if cls in ("pass-native", "pass-host"):
                ran += 1
            elif cls != "skipped":
                bad.append(f"{op.name} case {i}: {cls}: {detail}")
    assert not bad, "\n".join(bad)
    assert ran >= 600, ran


def test_forked_child_gets_a_clear_error_not_a_hang():
    # CUDA's rule: a fork() child cannot use a device its parent started
    # (russet's child hung on the parent's driver state); the parent goes
    # on, and DataLoader's forked workers, which never touch the device,
    # still work (torch asks _is_in_bad_fork before seeding russet there)
    code = (
        "import os, torch, russet\n"
        "from torch.utils.data import DataLoader, TensorDataset\n"
        "x = torch.ones(3, device='russet'); x.sum().item()\n"
        "pid = os.fork()\n"
        "if pid == 0:\n"
        "    try:\n"
        "        torch.ones(3, device='russet').sum().item()\n"
        "        os._exit(3)\n"
        "    except RuntimeError as e:\n"
        "        os._exit(0 if 'spawn' in str(e) and torch.russet._is_in_bad_fork() else 4)\n"
        "_, st = os.waitpid(pid, 0)\n"
        "m = torch.nn.Linear(4, 2).to('russet')\n"
        "dl = DataLoader(TensorDataset(torch.randn(32, 4)), batch_size=8, num_workers=2)\n"
        "n = sum(m(b.to('russet')).shape[0] for (b,) in dl)\n"
        "print('CHILD', os.waitstatus_to_exitcode(st), 'BAD', torch.russet._is_in_bad_fork(),\n"
        "      'PARENT', (x * 2).sum().item(), 'LOADED', n)\n"
    )
    r = run_python(code, timeout=120)
    assert "CHILD 0 BAD False PARENT 6.0 LOADED 32" in r.stdout, r.stdout + r.stderr


def test_russet_tensors_sent_to_another_process_are_refused_clearly(tmp_path):
    # torch.multiprocessing shares CPU tensors through file descriptors and
    # CUDA's through IPC handles; russet has neither, so pickling a russet
    # tensor, parameter, view or storage for another process raises
    # russet's error (not torch's "_share_fd_: only available on CPU"),
    # and the CPU tensor's way (spawn, then .to('russet') in the child) works
    from multiprocessing.reduction import ForkingPickler
    t = torch.arange(4.0, device="russet")
    for obj in (t, t[1:], torch.nn.Parameter(t.clone()), t.untyped_storage()):
        with pytest.raises(RuntimeError, match="cannot be sent to another process"):
            ForkingPickler.dumps(obj)
    assert len(ForkingPickler.dumps(torch.arange(3.0))) > 0  # CPU tensors as before
    # (the child's function in a module of its own: spawn imports it by name)
    (tmp_path / "mp_child.py").write_text("import torch, russet\n"
                                          "def work(q, t):\n"
                                          "    q.put((t.to('russet') * 2).sum().item())\n")
    code = (
        f"import sys; sys.path.insert(0, {str(tmp_path)!r})\n"
        "import torch, russet, torch.multiprocessing as mp\n"
        "from mp_child import work\n"
        "if __name__ == '__main__':\n"
        "    ctx = mp.get_context('spawn')\n"
        "    q = ctx.Queue()\n"
        "    x = torch.arange(4.0, device='russet')\n"
        "    try:\n"
        "        ctx.Process(target=work, args=(q, x)).start()\n"
        "        print('SENT')\n"
        "    except RuntimeError as e:\n"
        "        print('REFUSED', 'tensor.cpu()' in str(e))\n"
        "    p = ctx.Process(target=work, args=(q, x.cpu()))\n"
        "    p.start()\n"
        "    print('CHILD', q.get(timeout=120))\n"
        "    p.join()\n"
    )
    r = run_python(code, timeout=180)
    assert "REFUSED True" in r.stdout and "CHILD 12.0" in r.stdout, r.stdout + r.stderr


def test_dataloader_pins_for_russet():
    # DataLoader(pin_memory=True) with and without workers: pinned batches
    # that move to russet without blocking, the values intact. In a process
    # of its own: with workers, DataLoader's pin-memory thread calls
    # torch.set_num_threads(1), after which CPU's MKL LAPACK in this process
    # gave wrong batched log-determinants (torch 2.13 and 2.15; CPU's bug:
    # docs/reliability.md), which failed a later test_linalg comparison
    code = (
        "import torch, russet\n"
        "from torch.utils.data import DataLoader, TensorDataset\n"
        "data = torch.arange(40.0).view(20, 2)\n"
        "for workers in (0, 2):\n"
        "    dl = DataLoader(TensorDataset(data), batch_size=8, pin_memory=True, num_workers=workers)\n"
        "    got = []\n"
        "    for (b,) in dl:\n"
        "        assert b.is_pinned()\n"
        "        got.append(b.to('russet', non_blocking=True))\n"
        "    assert torch.equal(torch.cat(got).cpu(), data)\n"
        "print('PINNED OK')\n"
    )
    r = run_python(code, timeout=180)
    assert "PINNED OK" in r.stdout, r.stdout + r.stderr
