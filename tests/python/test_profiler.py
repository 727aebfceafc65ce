"""torch.profiler on russet (src/torch/runtime/profiler.cpp, the C core's
kernel timing in src/vk/profile.c; issue 20): kernels on a device timeline,
each linked to the op that launched it, with device time per op."""
import json

import pytest
import torch
from torch.autograd import DeviceType
from torch.profiler import ProfilerActivity, profile, record_function

D = "russet"

if not torch.russet._profiler_plugin():
    pytest.skip("russet was built against a torch without the PrivateUse1 profiler registry (before 2.13)",
                allow_module_level=True)


def profiled_step():
    torch.manual_seed(0)
    x = torch.randn(32, 48, device=D, requires_grad=True)
    w = torch.randn(48, 16, device=D, requires_grad=True)
    torch.russet.synchronize()
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.PrivateUse1]) as prof:
        with record_function("my_block"):
            y = torch.softmax(x @ w, -1)
            y.sum().backward()
        torch.russet.synchronize()
    return prof


def test_the_device_activity_is_offered():
    assert ProfilerActivity.PrivateUse1 in torch.autograd._supported_activities()


def test_kernels_have_device_time_and_their_ops():
    prof = profiled_step()
    kernels = [e for e in prof.events() if e.device_type == DeviceType.PrivateUse1]
    assert kernels, "no russet kernel events"
    names = {e.name for e in kernels}
    assert any("gemm" in n for n in names) and any("softmax" in n for n in names), names
    assert all(e.time_range.end >= e.time_range.start for e in kernels)
    assert sum(e.time_range.elapsed_us() for e in kernels) > 0
    # device time per op: the products and the softmax, forward and backward
    # (the backward's ops run on the autograd engine's thread for the device:
    # each thread's correlation ids tag its own dispatches)
    avg = {e.key: e for e in prof.key_averages()}
    for op in ("aten::mm", "aten::_softmax", "aten::_softmax_backward_data"):
        assert op in avg, sorted(avg)
        assert avg[op].self_device_time_total > 0, (op, avg[op].self_device_time_total)
    # an op that launches nothing has none of its own
    assert avg["my_block"].self_device_time_total == 0


def test_the_chrome_trace_has_a_kernel_track_linked_to_ops(tmp_path):
    prof = profiled_step()
    path = tmp_path / "trace.json"
    prof.export_chrome_trace(str(path))
    events = json.loads(path.read_text())["traceEvents"]
    kernels = [e for e in events if e.get("cat") == "kernel"]
    ops = {e["args"]["External id"]: e for e in events if e.get("cat") == "cpu_op" and "External id" in e.get("args", {})}
    assert kernels and all(e["dur"] >= 0 for e in kernels)
    linked = [ops[k["args"]["External id"]]["name"] for k in kernels if k["args"].get("External id") in ops]
    assert "aten::mm" in linked and "aten::_softmax" in linked, linked
    # each kernel is linked to the op that launched it, not to a neighbour
    launcher = {"gemm": {"aten::mm"}, "softmax": {"aten::_softmax", "aten::_softmax_backward_data"}}
    for k in kernels:
        op = ops.get(k["args"].get("External id"))
        for part, want in launcher.items():
            if part in k["name"]:
                assert op is not None and op["name"] in want, (k["name"], op and op["name"])
    # the kernel ran after its op was called (the host records, the device runs later)
    for k in kernels:
        op = ops.get(k["args"].get("External id"))
        if op is not None:
            assert k["ts"] + 1e3 >= op["ts"], (k, op)  # 1 ms for the clock calibration
    assert any(e.get("name") == "my_block" for e in events), "record_function's range is missing"


def test_profiles_are_separate_and_off_costs_no_records():
    first = profiled_step()
    n1 = len([e for e in first.events() if e.device_type == DeviceType.PrivateUse1])
    # work between two profiles is not recorded into the second
    a = torch.randn(64, 64, device=D)
    for _ in range(5):
        a = a @ a
    torch.russet.synchronize()
    second = profiled_step()
    n2 = len([e for e in second.events() if e.device_type == DeviceType.PrivateUse1])
    assert n1 == n2, (n1, n2)


def test_cpu_only_profiles_have_no_device_events():
    x = torch.randn(8, 8, device=D)
    with profile(activities=[ProfilerActivity.CPU]) as prof:
        (x @ x).sum().item()
    assert not [e for e in prof.events() if e.device_type == DeviceType.PrivateUse1]
    assert any(e.name == "aten::mm" for e in prof.events())
