"""torch.russet: the device module of the russet backend.

Registered by `import russet` as `torch.russet`. Its public names are exactly
those of the foundation issue (tests/python/test_device.py checks them);
everything else here is private, imports included.
"""

import collections as _collections
import ctypes as _ctypes
import os as _os
import threading as _threading

import torch as _torch

from . import _lib

_BACKEND = "russet"
# c10::DeviceType::PrivateUse1 (torch.Stream wants the integer).
_DEVICE_TYPE = int(getattr(_torch._C._autograd.DeviceType, "PrivateUse1", 20))


# ------------------------------------------------------------------ helpers


def _is_in_bad_fork():
    """True in a fork() child of a process that had started russet: the
    device cannot be used there (use the 'spawn' start method).
    torch.random._seed_custom_device asks it before seeding russet, so
    DataLoader's forked workers leave the device alone."""
    return bool(_lib.lib().russet_in_bad_fork())


def _lazy_init():
    pass


def _index(device=None, optional=True):
    """Device index from None (current), an int, "russet[:i]" or a torch.device."""
    if device is None:
        if optional:
            return current_device()
        raise RuntimeError("Invalid device: None")
    if isinstance(device, str):
        try:
            device = _torch.device(device)
        except RuntimeError as e:
            raise ValueError(f"Invalid device string {device!r}: {e}") from None
    if isinstance(device, _torch.device):
        if device.type != _BACKEND:
            raise ValueError(f"Expected a russet device, but got: {device}")
        if device.index is None:
            return current_device() if optional else 0
        idx = device.index
    elif isinstance(device, bool) or not isinstance(device, int):
        raise ValueError(f"Expected an int, a str or a torch.device for a russet device, got {device!r}")
    else:
        idx = device
    n = device_count()
    if idx < 0 or idx >= n:
        raise RuntimeError(
            f"Invalid device id {idx}: russet has {n} device{'s' if n != 1 else ''}"
            + ("" if n else " (no Vulkan device found: see README.md, Troubleshooting)")
        )
    return idx


def _require_device():
    if device_count() == 0:
        raise RuntimeError(
            "russet: no Vulkan device found: " + _lib.last_error()
            + " (see README.md, Troubleshooting)"
        )


# ------------------------------------------------------------------ devices


def is_available():
    """True if russet has at least one Vulkan device."""
    return device_count() > 0


def is_initialized():
    """True: russet is ready once imported (devices are made on first use,
    in the C core). As torch.cuda.is_initialized; PyTorch's factories ask it."""
    return True


def device_count():
    """Number of russet devices (0 when there is no Vulkan device)."""
    return int(_lib.lib().russet_device_count())


def current_device():
    """Index of the current russet device of this thread."""
    return _lib.check(_lib.lib().russet_current_device())


def set_device(device):
    """Selects the current russet device (int, "russet:i" or torch.device)."""
    idx = _index(device, optional=False)
    _lib.check(_lib.lib().russet_set_device(idx))


class device:
    """Context manager that changes the current russet device.

    `device` is an index, "russet:i", a torch.device, or None / a negative
    index (then it changes nothing), as torch.cuda.device.
    """

    def __init__(self, device):
        if device is None or (isinstance(device, int) and not isinstance(device, bool) and device < 0):
            self.idx = -1
        else:
            self.idx = _index(device, optional=True)
        self.prev_idx = -1

    def __enter__(self):
        if self.idx < 0:
            return self
        self.prev_idx = current_device()
        if self.prev_idx != self.idx:
            set_device(self.idx)
        return self

    def __exit__(self, exc_type, exc_value, tb):
        if self.idx >= 0 and self.prev_idx != self.idx:
            set_device(self.prev_idx)
        return False


def synchronize(device=None):
    """Waits for all work on all streams of the device (default: current)."""
    _lib.check(_lib.lib().russet_synchronize(_index(device)))


def host_sync_count(device=None):
    """How many times the host has waited for the device's work so far:
    synchronize() calls, event and stream synchronizations, and every read
    of device data on the host (.item(), .cpu(), printing). The difference
    across a piece of code counts its syncs."""
    return int(_lib.lib().russet_host_waits(_index(device)))


def _profiler_plugin():
    """True when torch.profiler records russet's kernels: the adapter was
    built against a torch with the PrivateUse1 profiler registry (2.13 and
    later; docs/profiling.md)."""
    return bool(_lib.lib().russet_profiler_plugin())


class _Features:
    """The device's effective features (the device's, masked by the profile)."""

    def __init__(self, d):
        self._names = list(d)
        for k, v in d.items():
            if k.startswith("has_") or k == "unified_memory":
                v = bool(v)
            setattr(self, k, v)

    def _asdict(self):
        return {k: getattr(self, k) for k in self._names}

    def __repr__(self):
        return "_Features(" + ", ".join(f"{k}={getattr(self, k)!r}" for k in self._names) + ")"


class _DeviceProperties:
    """What get_device_properties returns. The features are under
    `.features` and, for convenience, also attributes of the object itself
    (props.has_fp64 == props.features.has_fp64)."""

    def __init__(self, info):
        self._info = info
        self.name = info.get("name", "")
        self.driver = info.get("driver", "")
        self.vendor = info.get("vendor", "")
        self.vendor_id = info.get("vendor_id", 0)
        self.device_id = info.get("device_id", 0)
        self.api_version = info.get("api_version", "")
        self.is_cpu = bool(info.get("is_cpu", False))
        self.total_memory = int(info.get("total_memory", 0))
        self.profile = info.get("profile", "")
        # "device": kernels convert float16 with the device's own
        # instructions (a check when the device was made found them equal to
        # c10's); "software": with c10's code (RUSSET_HW_F16 overrides)
        self.float16_conversions = info.get("float16_conversions", "")
        # "device": float32 division is the device's, rounded once (a check
        # when the device was made); "corrected": the device's is not (Vulkan
        # allows 2.5 ulp) and russet's kernels correct it; "approximate":
        # it is not and RUSSET_EXACT_MATH=0 leaves it so
        self.division = info.get("division", "")
        self.features = _Features(info.get("features", {}))
        # torch.cuda's name, which Inductor reads to size split reductions.
        # Vulkan does not report compute units: the CPU's cores for a CPU
        # device (lavapipe), else 64, an estimate of current GPUs' units
        self.multi_processor_count = (_os.cpu_count() or 1) if self.is_cpu else 64

    def __getattr__(self, name):
        # Only called when normal lookup fails: fall back to the features.
        if name.startswith("_"):
            raise AttributeError(name)
        feats = self.__dict__.get("features")
        if feats is not None and name in feats._names:
            return getattr(feats, name)
        raise AttributeError(f"'_DeviceProperties' object has no attribute '{name}'")

    def __repr__(self):
        return (
            f"_DeviceProperties(name={self.name!r}, driver={self.driver!r}, vendor={self.vendor!r}, "
            f"profile={self.profile!r}, total_memory={self.total_memory // (1024 * 1024)}MB, "
            f"has_fp64={getattr(self.features, 'has_fp64', None)}, "
            f"subgroup_size={getattr(self.features, 'subgroup_size', None)}, "
            f"float16_conversions={self.float16_conversions!r}, division={self.division!r})"
        )


def _info(device=None):
    """The full device report (a dict, as russet_info_json gives it)."""
    idx = _index(device)
    return _lib.call_json(_lib.lib().russet_info_json, idx)


def get_device_name(device=None):
    """Name of the Vulkan device."""
    return _info(device)["name"]


def get_device_properties(device=None):
    """Name, driver, vendor, total_memory, profile and features of the device."""
    return _DeviceProperties(_info(device))


# ------------------------------------------------------------------ autocast


def get_amp_supported_dtype():
    """The dtypes torch.autocast("russet", dtype=...) accepts: float16 and
    bfloat16 (both stored natively everywhere; bfloat16 computes in float32
    under the apple profile)."""
    return [_torch.float16, _torch.bfloat16]


def is_bf16_supported(including_emulation=True):
    """bfloat16 tensors work on every russet device (as torch.cuda's)."""
    return True


# ------------------------------------------------------------------ random

_U64 = (1 << 64) - 1


def manual_seed(seed):
    """Seeds the current russet device's generator."""
    seed = int(seed) & _U64
    if device_count() == 0:
        return
    _lib.check(_lib.lib().russet_manual_seed(current_device(), seed))


def manual_seed_all(seed):
    """Seeds every russet device's generator (torch.manual_seed calls this)."""
    seed = int(seed) & _U64
    for i in range(device_count()):
        _lib.check(_lib.lib().russet_manual_seed(i, seed))


def seed():
    """Seeds the current device from a non-deterministic source; returns the seed."""
    _require_device()
    return int(_lib.lib().russet_seed(current_device()))


def initial_seed():
    """The current device's seed."""
    _require_device()
    return int(_lib.lib().russet_initial_seed(current_device()))


def get_rng_state(device="russet"):
    """The generator state (seed, offset: 16 little-endian bytes) as a CPU ByteTensor."""
    idx = _index(device)
    buf = (_ctypes.c_uint8 * 64)()
    n = _lib.check(_lib.lib().russet_get_rng_state(idx, buf, len(buf)))
    return _torch.tensor(list(buf[:n]), dtype=_torch.uint8)


def set_rng_state(new_state, device="russet"):
    """Restores a state from get_rng_state."""
    idx = _index(device)
    if not isinstance(new_state, _torch.Tensor) or new_state.dtype != _torch.uint8:
        raise TypeError("set_rng_state expects a torch.ByteTensor (from get_rng_state)")
    data = bytes(new_state.detach().cpu().contiguous().tolist())
    buf = (_ctypes.c_uint8 * max(len(data), 1)).from_buffer_copy(data or b"\0")
    _lib.check(_lib.lib().russet_set_rng_state(idx, buf, len(data)))


# ------------------------------------------------------------------ memory


def _raw_memory_stats(device=None):
    return _lib.call_json(_lib.lib().russet_memory_stats_json, _index(device))


def memory_stats(device=None):
    """Allocator statistics, with torch.cuda.memory_stats' key names where they apply."""
    s = _raw_memory_stats(device)
    out = {
        "allocated_bytes.all.current": s["allocated_bytes"],
        "allocated_bytes.all.peak": s["peak_allocated_bytes"],
        "reserved_bytes.all.current": s["reserved_bytes"],
        "reserved_bytes.all.peak": s["peak_reserved_bytes"],
        "requested_bytes.all.current": s["requested_bytes"],
        "active.all.current": s["active_blocks"],
        "allocation.all.current": s["active_blocks"],
        "allocation.all.allocated": s["alloc_count"],
        "allocation.all.freed": s["free_count"],
        "segment.all.current": s["segments"],
        "segment.all.allocated": s["segment_alloc_count"],
        "segment.all.freed": s["segment_free_count"],
        "num_alloc_retries": s["num_alloc_retries"],
        "num_ooms": s["num_ooms"],
    }
    return _collections.OrderedDict(sorted(out.items()))


def memory_allocated(device=None):
    """Bytes held by live tensors on the device."""
    return int(_raw_memory_stats(device)["allocated_bytes"])


def max_memory_allocated(device=None):
    """Peak of memory_allocated since start or reset_peak_memory_stats."""
    return int(_raw_memory_stats(device)["peak_allocated_bytes"])


def memory_reserved(device=None):
    """Bytes of device memory the caching allocator holds."""
    return int(_raw_memory_stats(device)["reserved_bytes"])


def max_memory_reserved(device=None):
    """Peak of memory_reserved since start or reset_peak_memory_stats."""
    return int(_raw_memory_stats(device)["peak_reserved_bytes"])


def reset_peak_memory_stats(device=None):
    _lib.check(_lib.lib().russet_reset_peak_memory_stats(_index(device)))


def set_per_process_memory_fraction(fraction, device=None):
    """Caps the memory russet reserves on the device at `fraction` of its
    heap (get_device_properties().total_memory), as
    torch.cuda.set_per_process_memory_fraction: an allocation past the cap
    frees the cache and retries, then raises torch.OutOfMemoryError. 1.0
    (the default) leaves only the heap's own limit. Memory already reserved
    stays reserved."""
    if not isinstance(fraction, (float, int)) or isinstance(fraction, bool):
        raise TypeError("Invalid type for fraction argument, must be `float`")
    if fraction < 0 or fraction > 1:
        raise ValueError(f"Invalid fraction value: {fraction}. Allowed range: 0~1")
    idx = _index(device)
    total = get_device_properties(idx).total_memory
    _lib.check(_lib.lib().russet_set_memory_limit(idx, int(total * float(fraction))))


def get_per_process_memory_fraction(device=None):
    """The cap set by set_per_process_memory_fraction, as a fraction of the
    device's heap (1.0 when none is set)."""
    idx = _index(device)
    limit = _ctypes.c_uint64(0)
    _lib.check(_lib.lib().russet_memory_limit(idx, _ctypes.byref(limit)))
    total = get_device_properties(idx).total_memory
    return limit.value / total if total else 1.0


def empty_cache():
    """Returns the cached, unused memory of the current device to Vulkan."""
    if device_count() == 0:
        return
    _lib.check(_lib.lib().russet_empty_cache(current_device()))


def memory_snapshot(device=None):
    """The allocator's segments and their blocks, shaped like torch.cuda.memory_snapshot()."""
    idx = _index(device)
    blocks = _lib.call_json(_lib.lib().russet_memory_snapshot_json, idx)
    segments = {}
    for b in blocks:
        seg = segments.get(b["segment_address"])
        if seg is None:
            seg = segments[b["segment_address"]] = {
                "device": idx,
                "address": b["segment_address"],
                "total_size": b["segment_size"],
                "allocated_size": 0,
                "active_size": 0,
                "stream": b.get("stream_id", 0),
                "segment_type": "large",
                "blocks": [],
            }
        state = "active_allocated" if b["allocated"] else "inactive"
        if b["allocated"]:
            seg["allocated_size"] += b["size"]
            seg["active_size"] += b["size"]
        seg["blocks"].append({"address": b["address"], "size": b["size"], "state": state})
    out = sorted(segments.values(), key=lambda s: s["address"])
    for s in out:
        s["blocks"].sort(key=lambda b: b["address"])
    return out


# ------------------------------------------------------------------ streams and events


class Stream(_torch.Stream):
    """A russet stream: an ordered queue of work on one device.

    Stream(device=None, priority=0) takes a stream from the device's pool;
    Stream(stream_id=..., device_index=..., device_type=...) wraps an
    existing one. Work issued inside `with stream:` (or `torch.russet.stream`)
    goes to it.
    """

    def __new__(cls, device=None, priority=0, **kwargs):
        if "stream_id" in kwargs:
            idx = kwargs.get("device_index")
            idx = current_device() if idx is None else idx
            return super().__new__(
                cls,
                stream_id=int(kwargs["stream_id"]),
                device_index=int(idx),
                device_type=int(kwargs.get("device_type", _DEVICE_TYPE)),
                priority=priority,
            )
        if kwargs:
            raise TypeError(f"Stream() got unexpected arguments {sorted(kwargs)}")
        idx = _index(device)
        sid = _lib.check(_lib.lib().russet_new_stream_id(idx))
        return super().__new__(
            cls, stream_id=sid, device_index=idx, device_type=_DEVICE_TYPE, priority=priority
        )

    def query(self):
        """True if all work issued to the stream has finished."""
        rc = _lib.lib().russet_stream_query(self.device_index, self.stream_id)
        _lib.check(rc)
        return rc == 1

    def synchronize(self):
        """Waits for all work issued to the stream."""
        _lib.check(_lib.lib().russet_stream_synchronize(self.device_index, self.stream_id))

    def wait_event(self, event):
        """Work issued to this stream later waits for `event`."""
        event.wait(self)

    def wait_stream(self, stream):
        """Work issued to this stream later waits for the work issued to `stream` so far."""
        self.wait_event(stream.record_event())

    def record_event(self, event=None):
        """Records `event` (a new Event if None) on this stream and returns it."""
        if event is None:
            event = Event()
        event.record(self)
        return event

    def __enter__(self):
        self._ctx = stream(self)
        self._ctx.__enter__()
        return self

    def __exit__(self, exc_type, exc_value, tb):
        ctx = self.__dict__.pop("_ctx", None)
        if ctx is not None:
            ctx.__exit__(exc_type, exc_value, tb)
        return False

    def __eq__(self, other):
        return (
            isinstance(other, _torch.Stream)
            and self.stream_id == other.stream_id
            and self.device_index == other.device_index
            and self.device_type == other.device_type
        )

    def __hash__(self):
        return hash((self.stream_id, self.device_index, self.device_type))

    def __repr__(self):
        return f"torch.russet.Stream(device=russet:{self.device_index}, stream_id={self.stream_id})"


class _EventMeta(type):
    # torch.Event.elapsed_time accepts only exact torch.Event objects, so
    # Event() returns one; isinstance(e, torch.russet.Event) still holds for
    # every russet event.
    def __instancecheck__(cls, obj):
        dev = getattr(obj, "device", None)
        return isinstance(obj, _torch.Event) and dev is not None and dev.type == _BACKEND


class Event(metaclass=_EventMeta):
    """A russet event: a marker in a stream, for ordering and timing.

    Event(enable_timing=False, blocking=False, interprocess=False) returns a
    torch.Event on the current russet device: record(stream=None) and
    wait(stream=None) default to the current stream; query(), synchronize(),
    elapsed_time(end) in milliseconds (both events need enable_timing).
    """

    def __new__(cls, enable_timing=False, blocking=False, interprocess=False):
        _require_device()
        return _torch.Event(
            device=_torch.device(_BACKEND, current_device()),
            enable_timing=enable_timing,
            blocking=blocking,
            interprocess=interprocess,
        )


def set_stream(stream):
    """Makes `stream` the current stream of this thread on its device (as
    torch.cuda.set_stream; `with torch.russet.stream(s):` is the scoped form)."""
    if stream is None:
        return
    _lib.check(_lib.lib().russet_set_stream(int(stream.device_index), int(stream.stream_id)))


def current_stream(device=None):
    """The current stream of this thread on the device (default: current)."""
    idx = _index(device)
    sid = _lib.check(_lib.lib().russet_current_stream_id(idx))
    return Stream(stream_id=sid, device_index=idx, device_type=_DEVICE_TYPE)


_stream_tls = _threading.local()


class stream:
    """Context manager that makes `s` the current stream (and its device the
    current device) of this thread; None changes nothing."""

    def __init__(self, s):
        self.stream = s
        self.prev_device = -1
        self.prev_streams = None

    def __enter__(self):
        s = self.stream
        if s is None:
            return s
        if not isinstance(s, _torch.Stream) or s.device_type != _DEVICE_TYPE:
            raise ValueError(f"torch.russet.stream expects a russet stream, got {s!r}")
        lib = _lib.lib()
        self.prev_device = current_device()
        idx = int(s.device_index)
        # Remember the current stream of both devices, as torch.cuda.stream does.
        self.prev_streams = [(self.prev_device, _lib.check(lib.russet_current_stream_id(self.prev_device)))]
        if idx != self.prev_device:
            self.prev_streams.append((idx, _lib.check(lib.russet_current_stream_id(idx))))
            set_device(idx)
        _lib.check(lib.russet_set_stream(idx, int(s.stream_id)))
        return s

    def __exit__(self, exc_type, exc_value, tb):
        if self.stream is None or self.prev_streams is None:
            return False
        lib = _lib.lib()
        for dev, sid in reversed(self.prev_streams):
            _lib.check(lib.russet_set_stream(dev, sid))
        if current_device() != self.prev_device:
            set_device(self.prev_device)
        self.prev_streams = None
        return False


# ------------------------------------------------------------------ host execution


def host_op_counts():
    """How many times each op ran through host execution: {"aten::mm": 3, ...}."""
    return dict(_lib.call_json(_lib.lib().russet_host_ops_json))


def reset_host_op_counts():
    """Sets every host-execution count back to zero."""
    _lib.lib().russet_host_ops_reset()


__all__ = [
    "is_available", "device_count", "current_device", "set_device", "device", "synchronize", "host_sync_count",
    "get_device_name", "get_device_properties",
    "manual_seed", "manual_seed_all", "seed", "initial_seed", "get_rng_state", "set_rng_state",
    "memory_allocated", "max_memory_allocated", "memory_reserved", "max_memory_reserved",
    "reset_peak_memory_stats", "memory_stats", "memory_snapshot", "empty_cache",
    "set_per_process_memory_fraction", "get_per_process_memory_fraction",
    "Stream", "Event", "current_stream", "set_stream", "stream", "is_initialized",
    "host_op_counts", "reset_host_op_counts",
    "get_amp_supported_dtype", "is_bf16_supported",
]


def __getattr__(name):
    # Inductor looks for the device's backend here (torch.utils.
    # backend_registration._get_custom_mod_func) the first time it compiles
    # for russet: registering then keeps `import russet` free of Inductor.
    if name in ("Scheduling", "PythonWrapperCodegen"):
        from .inductor import register

        register()
        from .inductor.kernel import GlslScheduling
        from .inductor.wrapper import RussetWrapperCodegen

        return GlslScheduling if name == "Scheduling" else RussetWrapperCodegen
    raise AttributeError(f"module 'torch.russet' has no attribute {name!r}")
