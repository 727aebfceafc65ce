import gc

import pytest
import torch

D = "russet"
MiB = 1 << 20


def settle():
    gc.collect()
    torch.russet.synchronize()


def test_allocate_free_returns_to_baseline():
    settle()
    base = torch.russet.memory_allocated()
    t = torch.empty(4 * MiB, dtype=torch.uint8, device=D)
    assert torch.russet.memory_allocated() >= base + 4 * MiB
    assert torch.russet.memory_reserved() >= torch.russet.memory_allocated()
    u = torch.empty(1000, dtype=torch.float32, device=D)
    assert torch.russet.memory_allocated() >= base + 4 * MiB + 4000
    del t, u
    settle()
    assert torch.russet.memory_allocated() == base


def test_peak_and_reset():
    settle()
    torch.russet.reset_peak_memory_stats()
    base = torch.russet.memory_allocated()
    assert torch.russet.max_memory_allocated() == base
    t = torch.empty(8 * MiB, dtype=torch.uint8, device=D)
    del t
    settle()
    assert torch.russet.max_memory_allocated() >= base + 8 * MiB
    assert torch.russet.max_memory_reserved() >= torch.russet.max_memory_allocated()
    torch.russet.reset_peak_memory_stats()
    assert torch.russet.max_memory_allocated() == torch.russet.memory_allocated()


def test_empty_cache_lowers_reserved():
    settle()
    t = torch.empty(16 * MiB, dtype=torch.uint8, device=D)
    t.fill_(1)
    before = torch.russet.memory_reserved()
    del t
    settle()
    assert torch.russet.memory_reserved() == before, "freed blocks stay cached until empty_cache"
    torch.russet.empty_cache()
    assert torch.russet.memory_reserved() < before


def test_cached_block_is_reused():
    settle()
    t = torch.empty(2 * MiB, dtype=torch.uint8, device=D)
    ptr = t.data_ptr()
    del t
    settle()
    segs = torch.russet.memory_stats()["segment.all.allocated"]
    t2 = torch.empty(2 * MiB, dtype=torch.uint8, device=D)
    assert torch.russet.memory_stats()["segment.all.allocated"] == segs
    assert t2.data_ptr() == ptr


def test_memory_stats_keys():
    s = torch.russet.memory_stats()
    for k in ["allocated_bytes.all.current", "allocated_bytes.all.peak",
              "reserved_bytes.all.current", "reserved_bytes.all.peak",
              "active.all.current", "segment.all.current", "num_alloc_retries", "num_ooms",
              "allocation.all.allocated", "allocation.all.freed"]:
        assert k in s, k
        assert isinstance(s[k], int) and s[k] >= 0
    assert s["allocated_bytes.all.current"] == torch.russet.memory_allocated()
    assert s["reserved_bytes.all.current"] == torch.russet.memory_reserved()


def test_memory_snapshot():
    t = torch.empty(3 * MiB, dtype=torch.uint8, device=D)
    snap = torch.russet.memory_snapshot()
    assert isinstance(snap, list) and snap
    blocks = [b for seg in snap for b in seg["blocks"]]
    live = [b for b in blocks if b["state"] == "active_allocated"]
    assert any(b["address"] <= t.data_ptr() < b["address"] + b["size"] for b in live)
    for seg in snap:
        assert sum(b["size"] for b in seg["blocks"]) <= seg["total_size"]
    del t


def test_oom_raises_and_recovers():
    settle()
    before = torch.russet.memory_stats()["num_ooms"]
    with pytest.raises(torch.OutOfMemoryError) as info:
        torch.empty(2**45, dtype=torch.uint8, device=D)
    msg = str(info.value)
    assert "russet" in msg.lower() or "memory" in msg.lower()
    assert torch.russet.memory_stats()["num_ooms"] == before + 1
    # the process keeps working
    t = torch.ones(1000, device=D)
    assert t.cpu().sum().item() == 1000.0
    # OutOfMemoryError is a RuntimeError, as on CUDA
    with pytest.raises(RuntimeError):
        torch.empty(2**45, dtype=torch.uint8, device=D)


def test_zero_size_allocation():
    settle()
    base = torch.russet.memory_allocated()
    z = torch.empty(0, device=D)
    assert z.numel() == 0
    del z
    settle()
    assert torch.russet.memory_allocated() == base


def test_many_small_allocations_return_to_baseline():
    settle()
    base = torch.russet.memory_allocated()
    ts = [torch.empty(n, device=D) for n in range(1, 200, 7)]
    del ts
    settle()
    assert torch.russet.memory_allocated() == base


def test_memory_fraction_caps_allocations():
    """set_per_process_memory_fraction, as torch.cuda's: tensors fill the
    cap, the one past it raises OutOfMemoryError (after the cache is freed
    and the allocation retried), nothing is lost, and freeing makes room."""
    settle()
    torch.russet.empty_cache()  # the cap counts reserved memory: none cached
    total = torch.russet.get_device_properties(0).total_memory
    assert torch.russet.get_per_process_memory_fraction() == 1.0
    cap = torch.russet.memory_reserved() + (96 << 20)
    try:
        torch.russet.set_per_process_memory_fraction(cap / total)
        assert abs(torch.russet.get_per_process_memory_fraction() - cap / total) < 1e-9
        before = torch.russet.memory_stats()
        kept = []
        with pytest.raises(torch.OutOfMemoryError, match="memory limit"):
            for i in range(1000):
                kept.append(torch.full((4 << 20,), float(i), device=D))  # 16 MiB each
        after = torch.russet.memory_stats()
        assert 2 <= len(kept) <= 6
        assert after["num_ooms"] == before["num_ooms"] + 1
        assert after["num_alloc_retries"] >= before["num_alloc_retries"] + 1
        assert torch.russet.memory_reserved() <= cap
        # what was made before the error is intact
        assert [t[-1].item() for t in kept] == [float(i) for i in range(len(kept))]
        kept.clear()
        t = torch.ones(4 << 20, device=D)  # room again
        assert t.sum().item() == float(4 << 20)
        del t
    finally:
        torch.russet.set_per_process_memory_fraction(1.0)
    assert torch.russet.get_per_process_memory_fraction() == 1.0
    with pytest.raises(ValueError, match="Allowed range"):
        torch.russet.set_per_process_memory_fraction(1.5)
    with pytest.raises(TypeError):
        torch.russet.set_per_process_memory_fraction("half")
