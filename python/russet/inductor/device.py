"""The russet device as Dynamo and Inductor's wrapper see it: Dynamo's
DeviceInterface (devices, streams, events, synchronize, properties) and the
lines the wrapper writes for device guards and synchronization."""

import functools

import torch
from torch._dynamo.device_interface import DeviceInterface
from torch._inductor.codegen.common import DeviceOpOverrides


@functools.lru_cache(maxsize=None)
def _props(index):
    return torch.russet.get_device_properties(index)


def device_props():
    """The current device's properties, read once per device (they are
    fixed once the device is made: the profile is chosen at start-up);
    code generation asks for them per load and store."""
    return _props(torch.russet.current_device())


class RussetDeviceOpOverrides(DeviceOpOverrides):
    def import_get_raw_stream_as(self, name):
        return f"def {name}(index): return 0"

    def set_device(self, device_idx):
        return f"torch.russet.set_device({device_idx})"

    def synchronize(self):
        return "torch.russet.synchronize()"

    def device_guard(self, device_idx):
        return f"torch.russet.device({device_idx})"


class RussetInterface(DeviceInterface):
    """Dynamo's view of the device: torch.russet's own functions."""

    device = torch.russet.device
    Event = torch.russet.Event
    Stream = torch.russet.Stream

    class Worker:
        set_device = staticmethod(torch.russet.set_device)
        current_device = staticmethod(torch.russet.current_device)
        get_device_properties = staticmethod(torch.russet.get_device_properties)

    current_device = staticmethod(torch.russet.current_device)
    set_device = staticmethod(torch.russet.set_device)
    device_count = staticmethod(torch.russet.device_count)
    is_available = staticmethod(torch.russet.is_available)
    stream = staticmethod(torch.russet.stream)
    current_stream = staticmethod(torch.russet.current_stream)
    set_stream = staticmethod(torch.russet.set_stream)
    synchronize = staticmethod(torch.russet.synchronize)
    memory_allocated = staticmethod(torch.russet.memory_allocated)

    @classmethod
    def get_device_properties(cls, device=None):
        return torch.russet.get_device_properties(device)

    @staticmethod
    def get_compute_capability(device=None):
        return ""

    @staticmethod
    def is_bf16_supported(including_emulation=False):
        return True

    @classmethod
    def is_dtype_supported(cls, dtype, including_emulation=False):
        if dtype in (torch.float64, torch.complex128):
            return device_props().has_fp64
        return True

    @staticmethod
    def is_triton_capable(device=None):
        return False
