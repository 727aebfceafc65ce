"""One rank of test_distributed.py's process groups:

    python tests/python/dist_worker.py JOB RANK WORLD STORE_FILE OUT_DIR DEVICE

JOB: `collectives` (every collective on DEVICE, the results saved to
OUT_DIR/JOB-DEVICE-RANK.pt), `ddp` (DistributedDataParallel training, the
losses and parameters saved; `ddp-view` with gradient_as_bucket_view,
`ddp-no_sync` accumulating half of each batch under no_sync), `fsdp` (the same with FSDP2, then a
distributed checkpoint round trip), `die` (rank 1 exits before an all_reduce that
rank 0 then waits in), `errors` (bad calls, their messages saved). DEVICE
russet takes the "russet" backend (the default on a russet machine);
cpu takes Gloo, the reference.
"""
import datetime
import os
import sys

import torch
import torch.distributed as dist

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))

DTYPES = [torch.float32, torch.float64, torch.float16, torch.bfloat16, torch.int64, torch.int32, torch.uint8]


def values(dtype, rank, n=6, salt=0):
    """rank's input of a dtype: small integers, exact in every dtype"""
    g = torch.Generator().manual_seed(100 * rank + salt)
    return torch.randint(0, 7, (n,), generator=g).to(dtype)


def collectives(dev, rank, world):
    r = {}
    gloo_all_to_all = tuple(int(v) for v in torch.__version__.split(".")[:2]) >= (2, 13)
    on = lambda t: t.to(dev)  # noqa: E731
    for dt in DTYPES:
        name = str(dt).split(".")[1]
        ops = [("sum", dist.ReduceOp.SUM), ("max", dist.ReduceOp.MAX), ("min", dist.ReduceOp.MIN),
               ("product", dist.ReduceOp.PRODUCT)]
        if dt.is_floating_point:
            ops.append(("avg", dist.ReduceOp.AVG))
        for op_name, op in ops:
            t = on(values(dt, rank))
            if op_name == "avg" and dev == "cpu":  # Gloo has no AVG: its reference is the sum over world
                dist.all_reduce(t, op=dist.ReduceOp.SUM)
                t = t / world
            else:
                dist.all_reduce(t, op=op)
            r[f"all_reduce {op_name} {name}"] = t.cpu()
        t = on(values(dt, rank))
        dist.broadcast(t, src=world - 1)
        r[f"broadcast {name}"] = t.cpu()
        t = on(values(dt, rank))
        dist.reduce(t, dst=0, op=dist.ReduceOp.SUM)
        r[f"reduce {name}"] = t.cpu() if rank == 0 else None  # (Gloo leaves the others' undefined)
        # (the inputs the collectives only read are kept too: where russet's
        # memory is mapped, Gloo reads them in place)
        outs = [on(torch.zeros(6, dtype=dt)) for _ in range(world)]
        inp = on(values(dt, rank))
        dist.all_gather(outs, inp)
        r[f"all_gather {name}"] = torch.stack([o.cpu() for o in outs])
        r[f"all_gather input {name}"] = inp.cpu()
        out = on(torch.zeros(6 * world, dtype=dt))
        dist.all_gather_into_tensor(out, inp)
        r[f"all_gather_into_tensor {name}"] = out.cpu()
        # in place, as FSDP2 gathers: the input is this rank's chunk of the output
        out = on(torch.zeros(6 * world, dtype=dt))
        out[6 * rank:6 * (rank + 1)].copy_(inp)
        dist.all_gather_into_tensor(out, out[6 * rank:6 * (rank + 1)])
        r[f"all_gather_into_tensor in place {name}"] = out.cpu()
        out = on(torch.zeros(6, dtype=dt))
        ins = [on(values(dt, rank, salt=i + 1)) for i in range(world)]
        dist.reduce_scatter(out, ins)
        r[f"reduce_scatter {name}"] = out.cpu()
        out = on(torch.zeros(3, dtype=dt))
        dist.reduce_scatter_tensor(out, on(values(dt, rank, n=3 * world)))
        r[f"reduce_scatter_tensor {name}"] = out.cpu()
        out = on(torch.zeros(2 * world, dtype=dt))
        inp = on(values(dt, rank, n=2 * world))
        dist.all_to_all_single(out, inp)
        r[f"all_to_all_single {name}"] = out.cpu()
        r[f"all_to_all_single input {name}"] = inp.cpu()
        outs = [on(torch.zeros(2, dtype=dt)) for i in range(world)]  # (Gloo's: equal sizes)
        if dev == "cpu" and not gloo_all_to_all:
            # Gloo before torch 2.13 has no alltoall: the reference is what
            # it means, rank i's piece for this rank
            outs = [values(dt, i, n=2, salt=rank) for i in range(world)]
        else:
            dist.all_to_all(outs, [on(values(dt, rank, n=2, salt=i)) for i in range(world)])
        r[f"all_to_all {name}"] = [o.cpu() for o in outs]
        g = [on(torch.zeros(4, dtype=dt)) for _ in range(world)] if rank == 0 else None
        inp = on(values(dt, rank, n=4))
        dist.gather(inp, g, dst=0)
        r[f"gather {name}"] = [x.cpu() for x in g] if g else None
        r[f"gather input {name}"] = inp.cpu()
        s = on(torch.zeros(4, dtype=dt))
        ins = [on(values(dt, i, n=4, salt=9)) for i in range(world)] if rank == 0 else None
        dist.scatter(s, ins, src=0)
        r[f"scatter {name}"] = s.cpu()
        r[f"scatter inputs {name}"] = [x.cpu() for x in ins] if ins else None
        # point to point: a ring
        t = on(values(dt, rank, n=5))
        got = on(torch.zeros(5, dtype=dt))
        reqs = [dist.isend(t, (rank + 1) % world), dist.irecv(got, (rank - 1) % world)]
        for q in reqs:
            q.wait()
        r[f"send/recv {name}"] = got.cpu()
    # a non-contiguous tensor, reduced in place
    t = on(torch.arange(12.).view(3, 4) + rank).t()
    dist.all_reduce(t)
    r["all_reduce transposed"] = t.cpu()
    # async: wait() then the result; the work's future holds the tensors
    t = on(values(torch.float32, rank))
    w = dist.all_reduce(t, async_op=True)
    w.wait()
    r["all_reduce async"] = t.cpu()
    r["future value"] = [x.cpu() for x in w.get_future().value()]
    objs = [None] * world
    dist.all_gather_object(objs, {"rank": rank})
    r["all_gather_object"] = objs
    dist.barrier()
    return r


class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.a = torch.nn.Linear(6, 16)
        self.b = torch.nn.Linear(16, 3)

    def forward(self, x):
        return self.b(torch.relu(self.a(x)))


def batches():
    """four batches of 8, the same on every rank and in the reference"""
    g = torch.Generator().manual_seed(7)
    return [(torch.randn(8, 6, generator=g), torch.randint(0, 3, (8,), generator=g)) for _ in range(4)]


def train(model, dev, rank, world, accumulate=False):
    """SGD with momentum over batches(), each rank with its slice of every
    batch: the losses, averaged over the ranks. accumulate: the slice in two
    halves, the first's gradients kept local (DDP's no_sync), each half's
    loss halved, so that the step is the same"""
    opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    losses = []
    for x, y in batches():
        xs, ys = x.chunk(world)[rank].to(dev), y.chunk(world)[rank].to(dev)
        opt.zero_grad()
        if accumulate:
            (x1, x2), (y1, y2) = xs.chunk(2), ys.chunk(2)
            with model.no_sync():
                l1 = torch.nn.functional.cross_entropy(model(x1), y1) / 2
                l1.backward()
            l2 = torch.nn.functional.cross_entropy(model(x2), y2) / 2
            l2.backward()
            loss = l1 + l2
        else:
            loss = torch.nn.functional.cross_entropy(model(xs), ys)
            loss.backward()
        opt.step()
        lt = loss.detach().clone()
        dist.all_reduce(lt, op=dist.ReduceOp.AVG)
        losses.append(float(lt))
    return losses


def ddp(dev, rank, world, variant=""):
    """DDP over WORLD ranks: the losses and the parameters at the end.
    variant: `view` (gradient_as_bucket_view), `no_sync` (accumulation)"""
    torch.manual_seed(0)
    model = Net().to(dev)
    ddp_model = torch.nn.parallel.DistributedDataParallel(model, bucket_cap_mb=0.0005,  # several buckets
                                                          gradient_as_bucket_view=variant == "view")
    losses = train(ddp_model, dev, rank, world, accumulate=variant == "no_sync")
    return {"losses": losses, "params": {k: v.detach().cpu() for k, v in model.state_dict().items()}}


def fsdp(dev, rank, world, out):
    """FSDP2 (fully_shard on a russet device mesh), trained as ddp() is; then
    a torch.distributed.checkpoint round trip of its sharded state into a
    fresh sharded model"""
    import torch.distributed.checkpoint as dcp
    from torch.distributed.device_mesh import init_device_mesh
    from torch.distributed.fsdp import fully_shard

    mesh = init_device_mesh(dev, (world,))

    def sharded():
        torch.manual_seed(0)
        m = Net().to(dev)
        fully_shard(m.a, mesh=mesh)
        fully_shard(m.b, mesh=mesh)
        return fully_shard(m, mesh=mesh)

    model = sharded()
    losses = train(model, dev, rank, world)
    shard_shapes = {k: tuple(v.to_local().shape) for k, v in model.state_dict().items()}
    params = {k: v.full_tensor().cpu() for k, v in model.state_dict().items()}
    ckpt = os.path.join(out, "dcp")
    dcp.save(model.state_dict(), checkpoint_id=ckpt)
    fresh = sharded()
    sd = fresh.state_dict()
    dcp.load(sd, checkpoint_id=ckpt)
    fresh.load_state_dict(sd)
    loaded = {k: v.full_tensor().cpu() for k, v in fresh.state_dict().items()}
    return {"losses": losses, "params": params, "loaded": loaded, "shard_shapes": shard_shapes}


def errors(dev, rank, world):
    """bad calls: each gives a Python error on every rank, none hangs"""
    r = {}
    try:
        dist.all_to_all([torch.zeros(1, device=dev) for _ in range(world)],
                        [torch.zeros(1, dtype=torch.int64, device=dev) for _ in range(world)])
    except Exception as e:  # noqa: BLE001
        r["all_to_all dtypes"] = f"{type(e).__name__}: {e}"
    try:
        dist.all_reduce(torch.ones(2, device=dev), op=dist.ReduceOp.BAND)
    except Exception as e:  # noqa: BLE001
        r["band on floats"] = f"{type(e).__name__}: {e}"
    dist.barrier()
    # the method names torch before 2.13 calls (dist.all_gather_into_tensor's
    # _allgather_base, reduce_scatter_tensor's _reduce_scatter_base)
    g = dist.group.WORLD
    out = torch.zeros(2 * world, device=dev)
    g._allgather_base(out, torch.full((2,), float(rank), device=dev)).wait()
    r["_allgather_base"] = out.cpu()
    out = torch.zeros(2, device=dev)
    g._reduce_scatter_base(out, torch.arange(2.0 * world, device=dev)).wait()
    r["_reduce_scatter_base"] = out.cpu()
    # the group still works after them
    t = torch.ones(2, device=dev)
    dist.all_reduce(t)
    r["after"] = t.cpu()
    return r


def staging(dev, rank, world):
    """which collectives copied through host memory (russet.distributed's
    _host) rather than working on a view of russet's own memory, and their
    results"""
    import russet.distributed as rd
    copied, host = [], rd._host

    def counting(t):
        copied.append(tuple(t.shape))
        return host(t)
    rd._host = counting
    r = {"mapped": rd._host_view(torch.ones(2, device=dev)) is not None}
    t = torch.full((1 << 16,), float(rank + 1), device=dev)
    t.mul_(2)  # (queued work on the tensor, which the view must wait for)
    dist.all_reduce(t)
    r["all_reduce"] = t.cpu()
    dist.broadcast(t, src=world - 1)
    r["broadcast"] = t.cpu()
    out = torch.zeros(4 * world, device=dev)
    dist.all_gather_into_tensor(out, torch.full((4,), float(rank), device=dev))
    r["all_gather_into_tensor"] = out.cpu()
    r["copied"] = copied
    rd._host = host
    return r


def overlap(dev, rank, world):
    """an async all_reduce on memory Gloo reduces in place (CPU tensors,
    mapped russet memory) returns before its peer has even joined: rank 0
    starts it, checks that it is not done, and only then lets rank 1 call
    (with an all_reduce that finished inside the call, rank 0 would wait
    for rank 1 forever). AVG's division runs when Gloo is done."""
    import russet.distributed as rd
    store = dist.distributed_c10d._get_default_store()
    mapped = dev == "cpu" or rd._host_view(torch.ones(2, device=dev)) is not None
    r = {"mapped": mapped}
    if not mapped:
        return r
    t = torch.full((1 << 12,), float(rank + 1), device=dev)
    if rank == 0:
        w = dist.all_reduce(t, op=dist.ReduceOp.AVG, async_op=True)
        r["pending after the call"] = not w.is_completed()
        store.set("go", "1")
    else:
        store.wait(["go"])
        w = dist.all_reduce(t, op=dist.ReduceOp.AVG, async_op=True)
    w.wait()
    r["done after wait"] = w.is_completed()
    r["avg"] = t.cpu()
    r["future value"] = [x.cpu() for x in w.get_future().value()]
    return r


def main():
    job, rank, world, store, out, dev = sys.argv[1:7]
    rank, world = int(rank), int(world)
    if dev == "russet":
        import russet  # noqa: F401
    backend = None if dev == "russet" else "gloo"  # russet's: the default where russet is the accelerator
    dist.init_process_group(backend, init_method=f"file://{store}", rank=rank, world_size=world,
                            timeout=datetime.timedelta(seconds=20))
    if dev == "russet":
        assert type(dist.group.WORLD).__name__ == "RussetProcessGroup", type(dist.group.WORLD)
    if job == "die":
        # both ranks past the group's setup first: a rank that exits while its
        # peer is still connecting Gloo's mesh fails the peer's
        # init_process_group instead of the collective this job is about
        dist.barrier()
        if rank == 1:
            torch.save("exited", os.path.join(out, f"{job}-{dev}-{rank}.pt"))
            os._exit(0)
        try:
            dist.all_reduce(torch.ones(2, device=dev))
            res = "no error"
        except Exception as e:  # noqa: BLE001
            res = f"{type(e).__name__}: {e}"
        torch.save(res, os.path.join(out, f"{job}-{dev}-{rank}.pt"))
        os._exit(0)
    if job == "fsdp":
        res = fsdp(dev, rank, world, out)
    else:
        jobs = {"collectives": collectives, "ddp": ddp, "errors": errors, "staging": staging,
                "overlap": overlap,
                "ddp-view": lambda d, r, w: ddp(d, r, w, "view"), "ddp-no_sync": lambda d, r, w: ddp(d, r, w, "no_sync")}
        res = jobs[job](dev, rank, world)
    torch.save(res, os.path.join(out, f"{job}-{dev}-{rank}.pt"))
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
