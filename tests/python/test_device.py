import os

import pytest
import torch

import russet

EXPECTED_NAMES = {
    "is_available", "device_count", "current_device", "set_device", "device", "synchronize", "host_sync_count",
    "get_device_name", "get_device_properties",
    "manual_seed", "manual_seed_all", "seed", "initial_seed", "get_rng_state", "set_rng_state",
    "memory_allocated", "max_memory_allocated", "memory_reserved", "max_memory_reserved",
    "reset_peak_memory_stats", "memory_stats", "memory_snapshot", "empty_cache",
    "set_per_process_memory_fraction", "get_per_process_memory_fraction",
    "Stream", "Event", "current_stream", "set_stream", "stream", "is_initialized",
    "host_op_counts", "reset_host_op_counts",
    "get_amp_supported_dtype", "is_bf16_supported",
}

FEATURES = [
    "has_fp64", "has_int64", "has_fp16", "has_int8", "has_int16", "has_bf16", "has_storage8",
    "has_storage16", "has_atomic_int64", "has_atomic_float32_add", "has_atomic_float64_add",
    "has_cooperative_matrix", "has_buffer_device_address", "has_timeline_semaphore",
    "has_timestamps", "unified_memory", "subgroup_size", "max_shared_memory",
    "max_workgroup_invocations", "max_workgroup_count_x", "max_push_constants",
    "max_allocation_size",
]


def test_module_has_exactly_the_public_names():
    public = {n for n in vars(torch.russet) if not n.startswith("_")}
    assert public == EXPECTED_NAMES
    assert torch.get_device_module("russet") is torch.russet


def test_backend_renamed_and_methods_generated():
    assert torch._C._get_privateuse1_backend_name() == "russet"
    t = torch.zeros(3).russet()
    assert t.is_russet and t.device.type == "russet"
    m = torch.nn.Linear(2, 2).russet()
    assert m.weight.is_russet
    assert t.untyped_storage().is_russet
    assert not torch.zeros(1).is_russet


def test_is_available_and_count():
    assert torch.russet.is_available()
    n = torch.russet.device_count()
    assert isinstance(n, int) and n >= 1
    assert 0 <= torch.russet.current_device() < n


def test_properties():
    p = torch.russet.get_device_properties(0)
    assert isinstance(p.name, str) and p.name
    assert isinstance(p.driver, str) and p.driver
    assert isinstance(p.vendor, str)
    assert p.total_memory > 0
    assert p.profile in ("apple", "native")
    for f in FEATURES:
        assert hasattr(p.features, f), f
        assert getattr(p, f) == getattr(p.features, f)
    assert p.subgroup_size >= 1
    assert p.max_shared_memory >= 16384
    assert torch.russet.get_device_name() == p.name
    assert torch.russet.get_device_name("russet:0") == p.name
    assert torch.russet.get_device_name(torch.device("russet", 0)) == p.name


def test_apple_profile_masks_features():
    if os.environ.get("RUSSET_PROFILE") != "apple":
        pytest.skip("the tests run under RUSSET_PROFILE=apple by default")
    p = torch.russet.get_device_properties()
    assert p.profile == "apple"
    assert not p.has_fp64
    assert not p.has_atomic_int64
    assert not p.has_atomic_float64_add
    assert not p.has_bf16
    assert not p.has_cooperative_matrix
    assert p.has_int64
    assert p.max_shared_memory <= 32768
    assert p.max_push_constants >= 128


def test_native_profile_in_subprocess():
    from conftest import run_python

    r = run_python(
        "import torch, russet; p = torch.russet.get_device_properties(); "
        "print(p.profile, int(bool(p.has_fp64)))",
        env={"RUSSET_PROFILE": "native"},
    )
    assert r.returncode == 0, r.stderr
    profile, fp64 = r.stdout.split()[-2:]
    assert profile == "native"
    # lavapipe has shaderFloat64; the native profile reports what the device has.
    if "llvmpipe" in torch.russet.get_device_name().lower():
        assert fp64 == "1"


@pytest.mark.parametrize("bad", [99, -1, "russet:99", torch.device("russet", 42)])
def test_bad_device_index_raises(bad):
    with pytest.raises(RuntimeError, match="Invalid device"):
        torch.russet.set_device(bad)
    with pytest.raises(RuntimeError, match="Invalid device"):
        torch.russet.get_device_properties(bad)


def test_wrong_device_type_raises():
    with pytest.raises(ValueError):
        torch.russet.get_device_properties("cpu")
    with pytest.raises(ValueError):
        torch.russet.synchronize(torch.device("cpu"))


def test_device_context_manager():
    cur = torch.russet.current_device()
    with torch.russet.device(0):
        assert torch.russet.current_device() == 0
    with torch.russet.device(None):
        assert torch.russet.current_device() == cur
    assert torch.russet.current_device() == cur
    torch.russet.set_device("russet:0")
    assert torch.russet.current_device() == 0


def test_synchronize():
    t = torch.zeros(16, device="russet")
    t.fill_(2.0)
    torch.russet.synchronize()
    torch.russet.synchronize(0)
    torch.russet.synchronize("russet:0")
    assert t.cpu().eq(2).all()


def test_package_reexports_api():
    for n in EXPECTED_NAMES:
        assert getattr(russet, n) is getattr(torch.russet, n)


def test_import_is_idempotent():
    import importlib

    import russet as r2

    assert r2 is russet
    russet._register()
    russet._autoload()
    assert torch.russet.device_count() >= 1
    importlib.import_module("russet")


def test_autoload_through_import_torch():
    """With the entry point installed, a plain `import torch` registers russet;
    TORCH_DEVICE_BACKEND_AUTOLOAD=0 turns that off."""
    from conftest import run_python

    import importlib.metadata as md

    eps = [e for e in md.entry_points(group="torch.backends") if e.name == "russet"]
    if not eps:
        pytest.skip("russet is not installed in this environment (scripts/setup.sh installs it)")
    r = run_python("import torch; print(hasattr(torch, 'russet'), torch.russet.device_count())")
    assert r.returncode == 0, r.stderr
    assert r.stdout.split()[0] == "True"
    r = run_python("import torch; print(hasattr(torch, 'russet'))",
                   env={"TORCH_DEVICE_BACKEND_AUTOLOAD": "0"})
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "False"


def test_no_device_does_not_break_import_torch():
    """No Vulkan driver at all: import works, the device is just unavailable."""
    from conftest import run_python

    r = run_python(
        "import torch, russet; print(torch.russet.is_available(), torch.russet.device_count())",
        env={"VK_DRIVER_FILES": "/nonexistent.json", "VK_ICD_FILENAMES": "/nonexistent.json"},
    )
    assert r.returncode == 0, r.stderr
    assert r.stdout.split()[-2:] == ["False", "0"]


def test_torch_accelerator_sees_russet():
    assert torch.accelerator.current_accelerator() == torch.device("russet")
    assert torch.accelerator.device_count() == torch.russet.device_count()
    s = torch.accelerator.current_stream()
    assert s.device.type == "russet" and s.stream_id == torch.russet.current_stream().stream_id


def test_exact_math_is_reported():
    """The float controls the kernels ask for and how float32 division is
    rounded (docs/architecture.md, "Exact math"): lavapipe keeps infinities
    and NaNs in every width and divides correctly itself; under apple no
    denormal control is assumed (Metal has none)."""
    p = torch.russet.get_device_properties()
    assert p.division in ("device", "corrected", "approximate")
    assert 0 <= p.features.preserve_infnan <= 7 and 0 <= p.features.preserve_denorm <= 7
    if p.profile == "apple":
        assert p.features.preserve_denorm == 0 and not p.features.preserve_infnan & 4
    if p.is_cpu and not os.environ.get("RUSSET_DIVISION"):  # lavapipe divides correctly itself
        assert p.division == "device"
        assert p.features.preserve_infnan & 2
    # float32 division matches CPU's, one rounding, over many binades
    g = torch.Generator().manual_seed(0)
    # (quotients from about 2^-140 to 2^140: every normal binade, a few
    # overflows and denormals)
    a = torch.randn(100000, generator=g) * torch.exp2(torch.randint(-64, 64, (100000,), generator=g).float())
    b = torch.randn(100000, generator=g) * torch.exp2(torch.randint(-64, 64, (100000,), generator=g).float())
    q = (a.to("russet") / b.to("russet")).cpu()
    want = a / b
    tiny = want.abs() < torch.finfo(torch.float32).tiny
    assert tiny.any() and want.isinf().any()  # the test reaches both ends
    # a denormal quotient is the device's own division (the correction stops
    # at the normal range, spirv.c): flushed to zero where denormals are not kept, else
    # within one denormal step
    near = (q - want).abs() <= 2.0 ** -149 if p.features.preserve_denorm & 2 else q == 0
    want = torch.where(tiny & near, q, want)
    if p.division != "approximate":
        assert torch.equal(q.view(torch.int32), want.view(torch.int32))
