"""The russet device as Dynamo and Inductor's wrapper see it: Dynamo's
DeviceInterface (devices, streams, events, synchronize, properties) and the
lines the wrapper writes for device guards and synchronization."""

import torch
from torch._dynamo.device_interface import DeviceInterface
from torch._inductor.codegen.common import DeviceOpOverrides


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
    device = torch.russet.device
    Event = torch.russet.Event
    Stream = torch.russet.Stream

    class Worker:
        @staticmethod
        def set_device(device):
            torch.russet.set_device(device)

        @staticmethod
        def current_device():
            return torch.russet.current_device()

        @staticmethod
        def get_device_properties(device=None):
            return torch.russet.get_device_properties(device)

    @staticmethod
    def current_device():
        return torch.russet.current_device()

    @staticmethod
    def set_device(device):
        torch.russet.set_device(device)

    @staticmethod
    def device_count():
        return torch.russet.device_count()

    @staticmethod
    def is_available():
        return torch.russet.is_available()

    @staticmethod
    def stream(stream):
        return torch.russet.stream(stream)

    @staticmethod
    def current_stream():
        return torch.russet.current_stream()

    @staticmethod
    def set_stream(stream):
        torch.russet.set_stream(stream)

    @staticmethod
    def synchronize(device=None):
        torch.russet.synchronize(device)

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
            return bool(torch.russet.get_device_properties().has_fp64)
        return True

    @staticmethod
    def memory_allocated(device=None):
        return torch.russet.memory_allocated(device)

    @staticmethod
    def is_triton_capable(device=None):
        return False
