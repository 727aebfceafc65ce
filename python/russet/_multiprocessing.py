"""russet tensors and torch.multiprocessing (docs/reliability.md).

torch.multiprocessing shares a CPU tensor's memory with another process
through a file descriptor and a CUDA tensor's through CUDA's IPC handles.
russet has no inter-process memory sharing yet (Vulkan's external-memory
file descriptors would be the way), so a russet tensor or storage that is
pickled for another process (a Process's arguments under spawn or
forkserver, a Queue, a Pipe) raises a clear error here instead of torch's
"_share_fd_: only available on CPU". A copy would not do: the receiver
would write to memory the sender never sees."""
import torch

MESSAGE = ("russet: a russet tensor cannot be sent to another process (torch.multiprocessing): russet has no "
           "inter-process memory sharing, as CUDA's IPC handles are; send tensor.cpu() (shared memory) and "
           "move it to russet in the receiving process")


def _is_russet(obj):
    try:
        if isinstance(obj, torch.storage.TypedStorage):  # (its .device warns that TypedStorage is deprecated)
            obj = obj._untyped_storage
        return obj.device.type == "russet"
    except Exception:  # a storage or tensor without a device: torch's own reducer decides
        return False


def _refusing(reduce):
    def reducer(obj):
        if _is_russet(obj):
            raise RuntimeError(MESSAGE)
        return reduce(obj)

    reducer._russet_refusal = True
    return reducer


def register():
    """Wraps torch's reducers (torch/multiprocessing/reductions.py,
    registered when torch is imported) for tensors and storages."""
    from multiprocessing.reduction import ForkingPickler

    import torch.multiprocessing.reductions  # noqa: F401  (torch's reducers are registered)

    reducers = ForkingPickler._extra_reducers
    for t in list(reducers):
        if (isinstance(t, type) and (issubclass(t, torch.Tensor) or issubclass(t, torch.UntypedStorage)
                                     or issubclass(t, torch.storage.TypedStorage))
                and not getattr(reducers[t], "_russet_refusal", False)):
            reducers[t] = _refusing(reducers[t])
