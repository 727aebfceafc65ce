import threading

import pytest
import torch

D = "russet"


def test_current_and_default_stream():
    s = torch.russet.current_stream()
    assert isinstance(s, torch.russet.Stream) and isinstance(s, torch.Stream)
    assert s.device.type == D and s.device_index == torch.russet.current_device()
    assert s.stream_id == 0
    assert s == torch.russet.current_stream(0)


def test_new_stream_and_context():
    s = torch.russet.Stream()
    assert s.stream_id != 0
    assert s.device.type == D
    with torch.russet.stream(s):
        assert torch.russet.current_stream() == s
        t = torch.ones(100, device=D)
        t.fill_(3.0)
    assert torch.russet.current_stream().stream_id == 0
    s.synchronize()
    assert s.query()
    assert t.cpu().eq(3).all()
    with s:
        assert torch.russet.current_stream() == s
    assert torch.russet.current_stream().stream_id == 0
    with torch.russet.stream(None):
        assert torch.russet.current_stream().stream_id == 0


def test_stream_from_ids():
    s = torch.russet.Stream()
    s2 = torch.russet.Stream(stream_id=s.stream_id, device_index=s.device_index,
                             device_type=s.device_type)
    assert s2 == s and hash(s2) == hash(s)
    g = torch.Stream(stream_id=s.stream_id, device_index=s.device_index, device_type=s.device_type)
    assert g.device.type == D


def test_current_stream_is_per_thread():
    s = torch.russet.Stream()
    seen = []
    with torch.russet.stream(s):
        th = threading.Thread(target=lambda: seen.append(torch.russet.current_stream().stream_id))
        th.start()
        th.join()
        assert torch.russet.current_stream() == s
    assert seen == [0]


def test_event_ordering_between_streams():
    s1 = torch.russet.Stream()
    s2 = torch.russet.Stream()
    x = torch.zeros(1 << 16, device=D)
    # as on CUDA, using x on another stream needs an explicit dependency
    s1.wait_stream(torch.russet.current_stream())
    with torch.russet.stream(s1):
        x.fill_(1.0)
        ev = torch.russet.Event()
        ev.record()
    with torch.russet.stream(s2):
        ev.wait()
        y = x.clone()
    s2.synchronize()
    assert y.cpu().eq(1).all()
    assert ev.query()


def test_wait_stream():
    s1 = torch.russet.Stream()
    s2 = torch.russet.Stream()
    x = torch.zeros(1 << 16, device=D)
    s1.wait_stream(torch.russet.current_stream())
    with torch.russet.stream(s1):
        x.fill_(2.0)
    s2.wait_stream(s1)
    with torch.russet.stream(s2):
        y = x.clone()
    s2.synchronize()
    assert y.cpu().eq(2).all()


def test_event_query_synchronize_elapsed():
    start = torch.russet.Event(enable_timing=True)
    end = torch.russet.Event(enable_timing=True)
    x = torch.zeros(1 << 18, device=D)
    start.record()
    for i in range(5):
        x.fill_(float(i))
    end.record()
    end.synchronize()
    assert end.query() and start.query()
    ms = start.elapsed_time(end)
    assert isinstance(ms, float) and ms >= 0.0
    assert x.cpu().eq(4).all()


def test_event_without_timing_cannot_time():
    a = torch.russet.Event()
    b = torch.russet.Event()
    a.record()
    b.record()
    b.synchronize()
    # torch.Event checks this itself and raises ValueError
    with pytest.raises(ValueError, match="enable_timing"):
        a.elapsed_time(b)


def test_stream_record_event_and_query():
    s = torch.russet.Stream()
    with torch.russet.stream(s):
        torch.ones(1000, device=D).fill_(5)
    e = s.record_event()
    assert isinstance(e, torch.Event)
    e.synchronize()
    assert e.query()
    assert s.query()


def test_generic_torch_event_and_stream_apis():
    s = torch.russet.current_stream()
    e = torch.Event(device=D, enable_timing=True)
    e.record(s)
    e.synchronize()
    assert e.query()
    s.synchronize()


def test_synchronize_all_streams():
    streams = [torch.russet.Stream() for _ in range(3)]
    outs = []
    for i, s in enumerate(streams):
        with torch.russet.stream(s):
            t = torch.empty(4096, device=D)
            t.fill_(float(i))
            outs.append(t)
    torch.russet.synchronize()
    for s in streams:
        assert s.query()
    for i, t in enumerate(outs):
        assert t.cpu().eq(i).all()


def test_stream_rejects_other_devices():
    with pytest.raises(ValueError):
        with torch.russet.stream(torch.Stream(device="cpu")):
            pass


def test_ops_from_several_threads():
    """Ops may be issued from several threads at once, each on its own stream."""
    errors = []

    def work(i):
        try:
            s = torch.russet.Stream()
            with torch.russet.stream(s):
                for k in range(30):
                    v = float(i * 100 + k)
                    t = torch.full((1000,), v, device=D)
                    c = t.clone().to(torch.float16)
                    assert bool((c.cpu() == v).all()), (i, k)
        except Exception as e:  # noqa: BLE001
            errors.append(repr(e))

    threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []


def test_record_stream():
    """Tensor.record_stream marks a block as used by another stream (native:
    it is an allocator operation, not something host execution can do)."""
    s = torch.russet.Stream()
    x = torch.ones(1 << 20, device=D)
    s.wait_stream(torch.russet.current_stream())
    with torch.russet.stream(s):
        y = x.clone()
    x.record_stream(s)
    del x
    # the freed block may not be handed out again while s can still read it;
    # writing the new tensor must not corrupt y
    z = torch.zeros(1 << 20, device=D)
    z.fill_(-7.0)
    s.synchronize()
    assert y.cpu().eq(1).all()
    assert z.cpu().eq(-7).all()


def test_large_work_across_streams_events_and_pauses():
    # Ops of 48 MiB each pass the 64 MiB early-submission size (inputs and
    # output together), so batches go out while more is recorded and, with
    # two unfinished, stay open until they hold as much (src/vk/stream.c).
    # Chains of them must stay ordered across an event, a stream wait, a
    # host pause without a sync, and event queries.
    import time

    n = 12 << 20  # float32: 48 MiB a tensor
    s1, s2 = torch.russet.Stream(), torch.russet.Stream()
    x = torch.zeros(n, device=D)
    s1.wait_stream(torch.russet.current_stream())
    with torch.russet.stream(s1):
        for _ in range(6):
            x.add_(1.0)  # x = 6 after the chain
        ev = torch.russet.Event()
        ev.record()
        x.mul_(2.0)  # after the event: 12
    with torch.russet.stream(s2):
        ev.wait()
        y = x[:1024].clone()  # 6 or 12: only the order up to ev is promised
    time.sleep(0.05)  # the host pauses with work recorded and no sync
    s2.synchronize()
    assert ev.query()
    assert y.cpu().ge(6).all() and y.cpu().le(12).all()
    s1.synchronize()
    assert x[::4096].cpu().eq(12).all()
    with torch.russet.stream(s1):
        z = x * 0.5  # 6
        for _ in range(3):
            z = z + x  # 42
    # as on CUDA, reading s1's result on the current stream needs a wait
    torch.russet.current_stream().wait_stream(s1)
    assert z[::4096].cpu().eq(42).all()
