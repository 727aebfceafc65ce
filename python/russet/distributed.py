"""torch.distributed on russet (issue 20; docs/distributed.md).

russet registers a c10d backend named "russet" for the russet and cpu
devices, so that on a machine where russet is the accelerator

    dist.init_process_group()                    # picks "russet" for russet
    dist.init_process_group("russet")            # the same, named
    dist.init_process_group("cpu:gloo,russet:russet")

give a process group whose collectives take russet tensors (and CPU ones).
It runs every collective over Gloo, PyTorch's own CPU engine, with the
russet tensors staged through host memory. Where russet's memory is
mapped on the host (unified memory: Apple Silicon, lavapipe), Gloo works
on the russet tensor's own memory through a CPU view of it, with no copy,
once the current stream's work on it has finished: all_reduce and
broadcast in place, the inputs that the other collectives only read.
Elsewhere (a discrete GPU), and where Gloo would write into memory the
collective must leave alone (reduce and reduce_scatter, whose inputs it
uses as scratch, and the point-to-point calls, posted and not waited for),
a host copy of each input (which waits for the work that produces it on
russet's stream), Gloo's collective on the copies, then the results copied
back into the russet tensors on the current stream. An all_reduce on memory Gloo works on in
place (CPU tensors, mapped russet memory) returns while Gloo still runs it,
so that DDP's backward overlaps with the exchange of each bucket; every
other collective's Work is finished when it returns (its future holds the
outputs, as DDP's hooks expect), so its `wait()` never blocks.

What Gloo lacks is built from what it has: ReduceOp.AVG (a sum, then a
division on the host), the tensor forms of all_gather and reduce_scatter
(through all_gather on chunks and an all_reduce of the whole input), and
all_to_all with lists (all_to_all_single on the concatenation).

A Python process group (c10d's PyProcessGroup: a Backend cannot be made
from Python), so DDP's reducer and `_broadcast_coalesced` reach it through
its allreduce, broadcast and allgather. Not yet: overlap where russet's
memory is not mapped (a discrete GPU: staged through copies, each bucket's
all_reduce finishes before the call returns).
"""
import ctypes
import os

import torch
import torch.distributed as dist
from torch._C._distributed_c10d import (
    AllreduceOptions,
    ProcessGroupGloo,
    ReduceOp,
    ReduceScatterOptions,
    _create_work_from_future,
)

BACKEND = "russet"
# RUSSET_DISTRIBUTED_COPY=1: stage through host copies even where russet's
# memory is mapped (to compare; bench/bench_distributed.py)
_COPY = os.environ.get("RUSSET_DISTRIBUTED_COPY") == "1"


def _work(result):
    """a finished Work whose future holds `result`"""
    fut = torch.futures.Future()
    fut.set_result(result)
    return _create_work_from_future(fut)


def _host(t):
    """t as Gloo takes it: itself on the CPU, else a host copy (waits for
    the work that writes t)"""
    return t if t.device.type == "cpu" else t.detach().to("cpu").contiguous()


def _host_view(t):
    """A CPU tensor over t's own memory where russet maps it on the host,
    after the current stream's work has finished; None where it does not
    (a discrete GPU), and for what Gloo cannot take in place (not
    contiguous, empty, a lazy conjugate or negation). Nothing keeps t alive:
    the caller holds it for as long as the view is used. The view remembers
    t, so _back does not copy it onto itself."""
    if not t.is_contiguous() or t.numel() == 0 or t.is_conj() or t.is_neg() or _COPY:
        return None
    from . import _lib

    st = t.untyped_storage()
    address = _lib.lib().russet_host_address(t.device.index, st.data_ptr())
    if not address:
        return None
    torch.russet.current_stream(t.device).synchronize()
    buf = (ctypes.c_ubyte * st.nbytes()).from_address(address)
    view = torch.frombuffer(buf, dtype=torch.uint8).view(t.dtype).as_strided(t.shape, t.stride(),
                                                                               t.storage_offset())
    view._russet_view_of = t
    return view


def _staged(t):
    """t as Gloo takes it for a collective that may write into t itself
    (all_reduce, broadcast) or only reads it: itself on the CPU, a view of
    its memory where russet's is mapped (unified memory), else a host copy"""
    if t.device.type == "cpu":
        return t
    view = _host_view(t)
    return view if view is not None else _host(t)


def _out(t):
    """where Gloo writes a collective's result for t: t on the CPU, a view of
    t's memory where russet's is mapped, else a new host tensor"""
    if t.device.type == "cpu" and t.is_contiguous():
        return t
    view = _host_view(t) if t.device.type != "cpu" else None
    return view if view is not None else torch.empty(t.shape, dtype=t.dtype)


def _own(t, h):
    """True where Gloo's host tensor h is t itself or a view of t's own memory"""
    return h is t or getattr(h, "_russet_view_of", None) is t


def _back(dst, src):
    """a collective's host result into dst where dst is not that host tensor
    (nor a view of dst's own memory)"""
    if not _own(dst, src):
        with torch.no_grad():
            dst.copy_(src)


class _Then(dist.Work):
    """Gloo's work, then `finish` (the copy back into russet tensors) once,
    at the first wait: for the point-to-point calls, which must not block
    where they are posted (isend and irecv in a ring would deadlock)"""

    def __init__(self, inner, finish, result):
        super().__init__()
        self._inner, self._finish, self._result = inner, finish, result

    def wait(self, timeout=None):
        self._inner.wait() if timeout is None else self._inner.wait(timeout)
        if self._finish is not None:
            finish, self._finish = self._finish, None
            finish()
        return True

    def is_completed(self):
        return self._finish is None

    def get_future(self):
        self.wait()
        fut = torch.futures.Future()
        fut.set_result(self._result)
        return fut


class _Pending(dist.Work):
    """A collective still running (on Gloo's threads): done when `future` is"""

    def __init__(self, future):
        super().__init__()
        self._future = future

    def wait(self, timeout=None):
        self._future.wait()  # raises the collective's error
        return True

    def is_completed(self):
        return self._future.done()

    def get_future(self):
        return self._future


def _allreduce_opts(reduce_op, timeout):
    """Gloo's all_reduce options for an op and a timeout"""
    o = AllreduceOptions()
    o.reduceOp, o.timeout = reduce_op, timeout
    return o


def _is_avg(op):
    return op == ReduceOp.AVG


_BITWISE = {ReduceOp.BAND: "BAND", ReduceOp.BOR: "BOR", ReduceOp.BXOR: "BXOR"}


def _check_op(op, tensors):
    """Gloo's refusal of a bitwise reduction of floating tensors, raised here
    on every rank before anything is exchanged (Gloo raised it on some
    ranks only at the next collective's wait: a barrier then failed)"""
    for name_op, name in _BITWISE.items():
        if op == name_op and any(t.is_floating_point() or t.is_complex() for t in tensors):
            raise RuntimeError(f"Cannot use ReduceOp.{name} with non-integral dtype")


def _divide(t, n):
    """AVG's division of a sum: floats divide, integers truncate (NCCL's average of integers)"""
    if t.is_floating_point() or t.is_complex():
        t.div_(n)
    else:
        t.div_(n, rounding_mode="trunc")


class RussetProcessGroup(dist.ProcessGroup):
    """The process group of the "russet" backend: Gloo underneath, russet
    tensors staged through host memory (module docstring)."""

    def __init__(self, store, rank, size, timeout):
        super().__init__(rank, size)
        self._gloo = ProcessGroupGloo(store, rank, size, timeout=timeout)

    # ---- names and plumbing
    def getBackendName(self):
        return BACKEND

    # a ProcessGroup keeps its name on its backends, and this one has none
    # (c10d asks for it: DeviceMesh, the functional collectives' registry)
    def setGroupName(self, name):
        self._group_name = name

    def getGroupName(self):
        return getattr(self, "_group_name", "")

    def setGroupDesc(self, desc):
        self._group_desc = desc

    def getGroupDesc(self):
        return getattr(self, "_group_desc", "")

    @property
    def gloo(self):
        """the Gloo process group underneath"""
        return self._gloo

    def _sum_opts(self, opts):
        """Gloo's all_reduce options for opts: AVG runs as SUM"""
        return _allreduce_opts(ReduceOp.SUM, opts.timeout) if _is_avg(opts.reduceOp) else opts

    def _allreduce_hosts(self, hosts, opts):
        _check_op(opts.reduceOp, hosts)
        self._gloo.allreduce(hosts, self._sum_opts(opts)).wait()
        if _is_avg(opts.reduceOp):
            for h in hosts:
                _divide(h, self.size())

    # ---- reductions
    def allreduce(self, tensors, opts=None):
        opts = opts if opts is not None else AllreduceOptions()
        hosts = [_staged(t) for t in tensors]
        if all(_own(t, h) for t, h in zip(tensors, hosts)):
            return self._allreduce_in_place(tensors, hosts, opts)
        self._allreduce_hosts(hosts, opts)
        for t, h in zip(tensors, hosts):
            _back(t, h)
        return _work(tensors)

    def _allreduce_in_place(self, tensors, hosts, opts):
        """all_reduce where Gloo works on the tensors' own memory (CPU
        tensors, views of mapped russet memory): returned before it is done,
        so that DDP's backward goes on while Gloo exchanges a bucket (as
        NCCL's stream lets it); the Work's future completes on Gloo's thread,
        after AVG's division there (a host op on the views). The callback
        holds the tensors until then, so Gloo never writes freed memory."""
        _check_op(opts.reduceOp, hosts)
        n, avg = self.size(), _is_avg(opts.reduceOp)

        def done(fut):
            fut.value()  # Gloo's error, raised to whoever waits
            if avg:
                for h in hosts:
                    _divide(h, n)
            return tensors

        return _Pending(self._gloo.allreduce(hosts, self._sum_opts(opts)).get_future().then(done))

    def allreduce_coalesced(self, tensors, opts=None):
        hosts = [_staged(t) for t in tensors]
        o = _allreduce_opts(opts.reduceOp, opts.timeout) if opts is not None else AllreduceOptions()
        for h in hosts:  # one at a time: Gloo's coalesced form wants one dtype and device
            self._allreduce_hosts([h], o)
        for t, h in zip(tensors, hosts):
            _back(t, h)
        return _work(tensors)

    def reduce(self, tensors, opts):
        _check_op(opts.reduceOp, tensors)
        hosts = [_host(t) for t in tensors]
        if _is_avg(opts.reduceOp):
            # AVG: the sum everywhere, then the root's division
            self._allreduce_hosts(hosts, _allreduce_opts(ReduceOp.SUM, opts.timeout))
            if self.rank() == opts.rootRank:
                for h in hosts:
                    _divide(h, self.size())
        else:
            self._gloo.reduce(hosts, opts).wait()
        if self.rank() == opts.rootRank:
            for t, h in zip(tensors, hosts):
                _back(t, h)
        return _work(tensors)

    def reduce_scatter_single(self, output, input, opts=None):
        opts = opts if opts is not None else ReduceScatterOptions()
        # all_reduce of the whole input, then this rank's chunk
        h = _host(input).clone() if input.device.type == "cpu" else _host(input)
        self._allreduce_hosts([h], _allreduce_opts(opts.reduceOp, opts.timeout))
        _back(output, h.view(self.size(), -1)[self.rank()].view(output.shape))
        return _work([output])

    def reduce_scatter(self, outputs, input_lists, opts):
        for out, ins in zip(outputs, input_lists):
            h = torch.stack([_host(t) for t in ins])
            self._allreduce_hosts([h], _allreduce_opts(opts.reduceOp, opts.timeout))
            _back(out, h[self.rank()])
        return _work(outputs)

    def reduce_scatter_single_coalesced(self, outputs, inputs, opts=None):
        for out, inp in zip(outputs, inputs):
            self.reduce_scatter_single(out, inp, opts)
        return _work(outputs)

    # ---- copies
    def broadcast(self, tensors, opts):
        hosts = [_staged(t) for t in tensors]
        self._gloo.broadcast(hosts, opts).wait()
        if self.rank() != opts.rootRank:
            for t, h in zip(tensors, hosts):
                _back(t, h)
        return _work(tensors)

    def allgather(self, output_lists, inputs, opts=None):
        hosts_in = [_staged(t) for t in inputs]
        hosts_out = [[_out(o) for o in outs] for outs in output_lists]
        self._gloo.allgather(hosts_out, hosts_in).wait()
        for outs, hs in zip(output_lists, hosts_out):
            for o, h in zip(outs, hs):
                _back(o, h)
        return _work(output_lists)

    def all_gather_single(self, output, input, opts=None):
        h_out = _out(output)
        self._gloo.allgather([list(h_out.view(self.size(), -1).unbind(0))], [_staged(input).reshape(-1)]).wait()
        _back(output, h_out)
        return _work([output])

    def all_gather_single_coalesced(self, outputs, inputs, opts=None):
        for out, inp in zip(outputs, inputs):
            self.all_gather_single(out, inp, opts)
        return _work(outputs)

    def allgather_coalesced(self, output_lists, inputs, opts=None):
        for outs, inp in zip(output_lists, inputs):
            self.allgather([outs], [inp], opts)
        return _work(output_lists)

    def gather(self, output_lists, inputs, opts):
        hosts_in = [_staged(t) for t in inputs]
        root = self.rank() == opts.rootRank
        hosts_out = [[torch.empty(o.shape, dtype=o.dtype) for o in outs] for outs in output_lists] if root else []
        self._gloo.gather(hosts_out, hosts_in, opts).wait()
        for outs, hs in zip(output_lists if root else [], hosts_out):
            for o, h in zip(outs, hs):
                _back(o, h)
        return _work(output_lists)

    def scatter(self, outputs, input_lists, opts):
        hosts_out = [torch.empty(o.shape, dtype=o.dtype) for o in outputs]
        hosts_in = [[_staged(t) for t in ins] for ins in input_lists] if self.rank() == opts.rootRank else []
        self._gloo.scatter(hosts_out, hosts_in, opts).wait()
        for o, h in zip(outputs, hosts_out):
            _back(o, h)
        return _work(outputs)

    def all_to_all_single(self, output, input, output_split_sizes, input_split_sizes, opts=None):
        h_out = _out(output)
        self._gloo.alltoall_base(h_out, _staged(input), output_split_sizes, input_split_sizes).wait()
        _back(output, h_out)
        return _work([output])

    def alltoall(self, outputs, inputs, opts=None):
        # all_to_all_single on the concatenations, split by element counts
        if len({t.dtype for t in list(outputs) + list(inputs)}) > 1:
            raise ValueError("russet: all_to_all takes tensors of one dtype")
        h_in = torch.cat([_host(t).reshape(-1) for t in inputs])
        h_out = torch.empty(sum(o.numel() for o in outputs), dtype=outputs[0].dtype)
        self._gloo.alltoall_base(h_out, h_in, [o.numel() for o in outputs], [t.numel() for t in inputs]).wait()
        for o, h in zip(outputs, h_out.split([o.numel() for o in outputs])):
            _back(o, h.view(o.shape))
        return _work(outputs)

    # the names torch before 2.13 calls these by (dist.all_gather_into_tensor,
    # reduce_scatter_tensor, all_to_all_single and their coalesced forms)
    _allgather_base = all_gather_single
    _reduce_scatter_base = reduce_scatter_single
    alltoall_base = all_to_all_single
    allgather_into_tensor_coalesced = all_gather_single_coalesced
    reduce_scatter_tensor_coalesced = reduce_scatter_single_coalesced

    # ---- point to point
    # (posted, not waited for: Gloo's work holds the host copies)
    def send(self, tensors, dst, tag):
        return self._gloo.send([_host(t) for t in tensors], dst, tag)

    def _recv_into(self, tensors, post):
        hosts = [torch.empty(t.shape, dtype=t.dtype) if t.device.type != "cpu" else t for t in tensors]
        w = post(hosts)

        def finish():
            for t, h in zip(tensors, hosts):
                _back(t, h)
        return _Then(w, finish, tensors)

    def recv(self, tensors, src, tag):
        return self._recv_into(tensors, lambda hosts: self._gloo.recv(hosts, src, tag))

    def recv_anysource(self, tensors, tag):
        return self._recv_into(tensors, lambda hosts: self._gloo.recv_anysource(hosts, tag))

    # ---- synchronization
    def barrier(self, opts=None):
        if opts is None:
            self._gloo.barrier().wait()
        else:
            self._gloo.barrier(opts).wait()
        return _work([])

    def monitored_barrier(self, timeout=None, wait_all_ranks=False):
        return self._gloo.monitored_barrier(timeout, wait_all_ranks) if timeout is not None else \
            self._gloo.monitored_barrier(wait_all_ranks=wait_all_ranks)


def _create(store, rank, size, timeout):
    return RussetProcessGroup(store, rank, size, timeout)


def register():
    """Registers the "russet" c10d backend (import russet does it). Idempotent."""
    if not dist.is_available() or BACKEND.upper() in dist.Backend._plugins:
        return
    dist.Backend.register_backend(BACKEND, _create, devices=["russet", "cpu"])
