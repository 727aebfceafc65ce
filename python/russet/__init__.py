"""russet: a PyTorch backend (the `russet` device) over Vulkan compute.

`import russet` registers the device: PrivateUse1 is renamed to "russet",
the native library (_russet.so: the C core plus the C++ adapter) is loaded
and registers the allocator, device guard, hooks, generator and ops, and
`torch.russet` (python/russet/_module.py) becomes the device module.

Once russet is installed, a plain `import torch` does the same through the
`torch.backends` entry point (`russet:_autoload`), unless
TORCH_DEVICE_BACKEND_AUTOLOAD=0, or CUDA is usable in the process (see
_cuda_usable: PyTorch's autograd cannot serve CUDA once another backend is
torch.accelerator; then only an explicit `import russet` loads russet, with
a warning, and RUSSET_AUTOLOAD=1 restores the autoload).
"""

import os as _os
import sys as _sys
import warnings as _warnings

__version__ = "0.1.0"

_registered = False
_load_error = None
# True while this package's own __init__ runs. `import russet` before torch
# makes torch's autoload call _autoload() on this half-imported module; it
# must then do nothing, since the rest of this file registers russet.
_importing = True


def _unimport():
    """Forgets this half-imported package, so that a later `import russet`
    runs it again and registers."""
    for m in ("russet", "russet._module", "russet._lib"):
        _sys.modules.pop(m, None)


def _autoload():
    """Entry point of the `torch.backends` group, run by `import torch`.

    It never breaks `import torch`: if the native library cannot be loaded
    (not built, no Vulkan loader) it warns and returns. With no Vulkan device
    the device is registered anyway and torch.russet.is_available() is False.
    """
    global _load_error
    if _importing or _registered or _load_error is not None:
        return
    if _cuda_usable() and _os.environ.get("RUSSET_AUTOLOAD", "") != "1":
        # Installing russet must never break CUDA: stay out of the process
        # unless the program asks for russet by name (import russet).
        _unimport()
        return
    try:
        _register()
    except Exception as e:  # noqa: BLE001 - must not break `import torch`
        _load_error = e
        # A later explicit `import russet` then tries again and raises.
        _unimport()
        _warnings.warn(
            f"russet was not loaded: {e} (TORCH_DEVICE_BACKEND_AUTOLOAD=0 skips it)",
            RuntimeWarning,
            stacklevel=2,
        )


import torch as _torch  # noqa: E402  (after _autoload: see _importing)

CUDA_CONFLICT = (
    "russet and CUDA in one process: once russet is loaded, PyTorch takes it as torch.accelerator, "
    "and PyTorch's autograd engine then fails on every CUDA backward ('opt_ready_stream && "
    "opt_parent_stream INTERNAL ASSERT FAILED'; pytorch/pytorch#161129). russet itself works. "
    "Run CUDA training in a process that does not import russet (a plain `import torch` does not "
    "load russet where CUDA is usable); RUSSET_AUTOLOAD=1 makes it load anyway."
)


def _cuda_usable():
    """True if this torch has CUDA and sees a GPU (without creating a CUDA
    context: torch.cuda.is_available() only counts devices)."""
    try:
        return _torch.version.cuda is not None and _torch.cuda.is_available()
    except Exception:  # noqa: BLE001 - a broken CUDA setup is no CUDA
        return False


def _register():
    """Loads the native library and registers the device. Idempotent."""
    global _registered
    if _registered:
        return
    from . import _lib, _module

    name = _torch._C._get_privateuse1_backend_name()
    if name not in ("privateuseone", "russet"):
        raise ImportError(
            f"russet: PrivateUse1 is already claimed by the backend {name!r}; "
            "only one PrivateUse1 backend can be loaded per process"
        )
    _lib.ensure_present()  # before renaming, so a missing build leaves torch untouched
    _torch.utils.rename_privateuse1_backend("russet")
    _lib.load()
    existing = getattr(_torch, "russet", None)
    if existing is None:
        _torch._register_device_module("russet", _module)
    elif existing is not _module:
        raise ImportError(f"russet: torch.russet is already registered as {existing!r}")
    if not hasattr(_torch.Tensor, "is_russet"):
        _torch.utils.generate_methods_for_privateuse1_backend(
            for_tensor=True, for_module=True, for_packed_sequence=True, for_storage=True
        )
    # The package itself offers the same API as torch.russet.
    globals().update({n: getattr(_module, n) for n in _module.__all__})
    globals()["__all__"] = list(_module.__all__)
    from . import _multiprocessing, distributed as _distributed

    _multiprocessing.register()  # russet tensors refused by torch.multiprocessing, clearly

    _distributed.register()  # the "russet" c10d backend (torch.distributed)
    _registered = True
    if _cuda_usable():
        _warnings.warn(CUDA_CONFLICT, UserWarning, stacklevel=3)


def _called_from_torch_autoload():
    """True while torch/__init__.py's _import_device_backends() imports us."""
    f = _sys._getframe(1)
    while f is not None:
        if f.f_code.co_name == "_import_device_backends":
            return True
        f = f.f_back
    return False


# Under torch's autoload, torch calls _autoload() right after this import;
# any other import registers now and raises if it cannot.
_importing = False
if not _called_from_torch_autoload():
    _register()
