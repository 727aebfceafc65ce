"""russet: a PyTorch backend (the `russet` device) over Vulkan compute.

`import russet` registers the device: PrivateUse1 is renamed to "russet",
the native library (_russet.so: the C core plus the C++ adapter) is loaded
and registers the allocator, device guard, hooks, generator and ops, and
`torch.russet` (python/russet/_module.py) becomes the device module.

Once russet is installed, a plain `import torch` does the same through the
`torch.backends` entry point (`russet:_autoload`), unless
TORCH_DEVICE_BACKEND_AUTOLOAD=0.
"""

import sys as _sys
import warnings as _warnings

__version__ = "0.1.0"

_registered = False
_load_error = None
# True while this package's own __init__ runs. `import russet` before torch
# makes torch's autoload call _autoload() on this half-imported module; it
# must then do nothing, since the rest of this file registers russet.
_importing = True


def _autoload():
    """Entry point of the `torch.backends` group, run by `import torch`.

    It never breaks `import torch`: if the native library cannot be loaded
    (not built, no Vulkan loader) it warns and returns. With no Vulkan device
    the device is registered anyway and torch.russet.is_available() is False.
    """
    global _load_error
    if _importing or _registered or _load_error is not None:
        return
    try:
        _register()
    except Exception as e:  # noqa: BLE001 - must not break `import torch`
        _load_error = e
        # A later explicit `import russet` then tries again and raises.
        for m in ("russet", "russet._module", "russet._lib"):
            _sys.modules.pop(m, None)
        _warnings.warn(
            f"russet was not loaded: {e} (TORCH_DEVICE_BACKEND_AUTOLOAD=0 skips it)",
            RuntimeWarning,
            stacklevel=2,
        )


import torch as _torch  # noqa: E402  (after _autoload: see _importing)


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
    _registered = True


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
