"""Ops issued from several threads at once: each thread has its own current
stream; the kernel cache, the allocator and the streams are shared."""

import threading

import torch
from torch.testing import assert_close

D = "russet"


def test_threads_issue_ops_concurrently():
    errors = []
    results = {}

    def work(i):
        try:
            s = torch.russet.Stream()
            with torch.russet.stream(s):
                torch.manual_seed(0)  # seeding from threads must not break anything
                dtypes = [torch.float32, torch.float16, torch.int32, torch.bfloat16, torch.uint8]
                for r in range(20):
                    dt = dtypes[(i + r) % len(dtypes)]
                    x = torch.full((64, 33), float(i + 1), device=D, dtype=dt)
                    y = x.t().contiguous().to(torch.float32)  # strided copy + cast kernels
                    z = torch.arange(64 * 33, device=D, dtype=torch.float32).view(33, 64)
                    results[(i, r)] = (y.cpu(), z.cpu(), dt)
                s.synchronize()
        except Exception as e:  # noqa: BLE001 - reported below
            errors.append(repr(e))

    threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    assert len(results) == 80
    for (i, r), (y, z, dt) in results.items():
        assert_close(y, torch.full((33, 64), float(i + 1), dtype=dt).to(torch.float32))
        assert_close(z, torch.arange(64 * 33, dtype=torch.float32).view(33, 64))


def test_current_stream_is_per_thread():
    s = torch.russet.Stream()
    seen = {}

    def other():
        seen["other"] = torch.russet.current_stream().stream_id

    with torch.russet.stream(s):
        t = threading.Thread(target=other)
        t.start()
        t.join()
        assert torch.russet.current_stream().stream_id == s.stream_id
    assert seen["other"] == 0  # a new thread starts on the default stream
