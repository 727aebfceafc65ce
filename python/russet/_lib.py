"""ctypes binding of _russet.so's extern "C" API (src/torch/).

_russet.so is not a Python extension module: it is a shared library whose
static initializers register russet with PyTorch's dispatcher. It must be
loaded after `import torch` and after PrivateUse1 was renamed to "russet";
russet/__init__.py does that and then calls `bind()` here.
"""

import atexit
import ctypes
import json
import os
import sys

LIB_PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "_russet.so")

_lib = None

_c_int = ctypes.c_int
_c_size = ctypes.c_size_t
_c_u64 = ctypes.c_uint64
_c_char_p = ctypes.c_char_p
_c_u8_p = ctypes.POINTER(ctypes.c_uint8)

# name: (restype, argtypes)
_SIGNATURES = {
    "russet_device_count": (_c_int, []),
    "russet_in_bad_fork": (_c_int, []),
    "russet_last_error": (_c_char_p, []),
    "russet_info_json": (_c_int, [_c_int, ctypes.c_char_p, _c_size]),
    "russet_current_device": (_c_int, []),
    "russet_set_device": (_c_int, [_c_int]),
    "russet_synchronize": (_c_int, [_c_int]),
    "russet_host_address": (_c_u64, [_c_int, _c_u64]),
    "russet_host_waits": (_c_u64, [_c_int]),
    "russet_profiler_plugin": (_c_int, []),
    "russet_memory_stats_json": (_c_int, [_c_int, ctypes.c_char_p, _c_size]),
    "russet_memory_snapshot_json": (_c_int, [_c_int, ctypes.c_char_p, _c_size]),
    "russet_reset_peak_memory_stats": (_c_int, [_c_int]),
    "russet_empty_cache": (_c_int, [_c_int]),
    "russet_set_memory_limit": (_c_int, [_c_int, _c_u64]),
    "russet_memory_limit": (_c_int, [_c_int, ctypes.POINTER(_c_u64)]),
    "russet_manual_seed": (_c_int, [_c_int, _c_u64]),
    "russet_initial_seed": (_c_u64, [_c_int]),
    "russet_seed": (_c_u64, [_c_int]),
    "russet_get_rng_state": (_c_int, [_c_int, _c_u8_p, _c_size]),
    "russet_set_rng_state": (_c_int, [_c_int, _c_u8_p, _c_size]),
    "russet_host_ops_json": (_c_int, [ctypes.c_char_p, _c_size]),
    "russet_host_ops_reset": (None, []),
    "russet_current_stream_id": (_c_int, [_c_int]),
    "russet_set_stream": (_c_int, [_c_int, _c_int]),
    "russet_new_stream_id": (_c_int, [_c_int]),
    "russet_stream_synchronize": (_c_int, [_c_int, _c_int]),
    "russet_stream_query": (_c_int, [_c_int, _c_int]),
    "russet_shutdown_caches": (None, []),
}


def ensure_present():
    if not os.path.exists(LIB_PATH):
        raise ImportError(
            f"russet: the native library {LIB_PATH} is missing; run `make build` "
            "in the russet repository (README.md)"
        )


def load():
    """Loads _russet.so (RTLD_GLOBAL) and binds the C API. Idempotent."""
    global _lib
    if _lib is not None:
        return _lib
    ensure_present()
    if sys.platform == "darwin":
        # MoltenVK reads this when the Vulkan loader starts: precise math.
        os.environ.setdefault("MVK_CONFIG_FAST_MATH_ENABLED", "0")
    try:
        lib = ctypes.CDLL(LIB_PATH, mode=ctypes.RTLD_GLOBAL)
    except OSError as e:
        raise ImportError(f"russet: could not load {LIB_PATH}: {e}") from e
    missing = []
    for name, (restype, argtypes) in _SIGNATURES.items():
        fn = getattr(lib, name, None)
        if fn is None:
            missing.append(name)
            continue
        fn.restype = restype
        fn.argtypes = argtypes
    if missing:
        raise ImportError(
            f"russet: {LIB_PATH} lacks {', '.join(missing)}; it is out of date: run `make build`"
        )
    _lib = lib
    # the VkPipelineCache blob goes to disk at exit, so the next process
    # starts warm (the C core also saves it every few new pipelines)
    atexit.register(lib.russet_shutdown_caches)
    return lib


def lib():
    if _lib is None:
        raise RuntimeError("russet: the native library is not loaded (import russet first)")
    return _lib


def last_error():
    msg = lib().russet_last_error()
    return msg.decode("utf-8", "replace") if msg else "unknown error"


def check(rc):
    """Raises RuntimeError with russet_last_error() when rc is negative."""
    if rc < 0:
        raise RuntimeError(last_error())
    return rc


def call_json(fn, *args):
    """Calls a `(…, char *buf, size_t cap) -> needed` function and parses the JSON."""
    cap = 4096
    while True:
        buf = ctypes.create_string_buffer(cap)
        n = check(fn(*args, buf, cap))
        if n < cap:
            return json.loads(buf.raw[:n].decode("utf-8"))
        cap = n + 1


def call_json_text(fn, *args):
    cap = 4096
    while True:
        buf = ctypes.create_string_buffer(cap)
        n = check(fn(*args, buf, cap))
        if n < cap:
            return buf.raw[:n].decode("utf-8")
        cap = n + 1
