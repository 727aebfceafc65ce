"""torch.distributed on russet (python/russet/distributed.py, issue 20):
the "russet" c10d backend in 2 and 3 processes against Gloo on CPU tensors,
DDP against one process on the whole batch, errors and a dead peer. Each
rank is a process of tests/python/dist_worker.py."""
import os
import subprocess
import sys

import pytest
import torch
import torch.distributed as dist

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import dist_worker  # noqa: E402

WORKER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "dist_worker.py")


def launch(job, world, dev, tmp_path, timeout=300):
    """runs `world` ranks of dist_worker.py; returns each rank's saved result"""
    store = tmp_path / f"store-{job}-{dev}"
    env = dict(os.environ, OMP_NUM_THREADS="1")
    procs = [subprocess.Popen([sys.executable, WORKER, job, str(r), str(world), str(store), str(tmp_path), dev],
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)
             for r in range(world)]
    logs = []
    for p in procs:
        try:
            logs.append(p.communicate(timeout=timeout)[0])
        except subprocess.TimeoutExpired:
            for q in procs:
                q.kill()
            raise AssertionError(f"{job} on {dev}: a rank hung\n" + "\n".join(logs))
    failed = [r for r, p in enumerate(procs) if p.returncode != 0]
    assert not failed, "\n".join(f"{job} on {dev}, rank {r}: exit {procs[r].returncode}\n{logs[r]}" for r in failed)
    return [torch.load(tmp_path / f"{job}-{dev}-{r}.pt", weights_only=False) for r in range(world)]


def test_the_backend_is_registered_for_russet():
    assert "russet" in dist.Backend.backend_list
    assert dist.Backend.default_device_backend_map["russet"] == "russet"
    # Gloo keeps the CPU: russet claims only its own device by default
    assert dist.Backend.default_device_backend_map["cpu"] == "gloo"


@pytest.mark.parametrize("world", [2, 3])
def test_collectives_match_gloo_on_cpu(world, tmp_path):
    """every collective, every dtype Gloo takes, each rank's results equal to
    the same calls on CPU tensors over Gloo"""
    got = launch("collectives", world, "russet", tmp_path)
    want = launch("collectives", world, "cpu", tmp_path)
    for r in range(world):
        assert got[r].keys() == want[r].keys()
        for k in want[r]:
            a, b = got[r][k], want[r][k]
            if isinstance(b, torch.Tensor):
                assert a.dtype == b.dtype, k
                torch.testing.assert_close(a, b, rtol=0, atol=0, msg=lambda m: f"rank {r}, {k}: {m}")
            elif isinstance(b, list) and b and isinstance(b[0], torch.Tensor):
                for x, y in zip(a, b):
                    torch.testing.assert_close(x, y, rtol=0, atol=0, msg=lambda m: f"rank {r}, {k}: {m}")
            else:
                assert a == b, (r, k, a, b)


def one_process_reference(world):
    """ddp()'s and fsdp()'s training in one process on the whole batches (on
    CPU): the losses and the final state"""
    torch.manual_seed(0)
    model = dist_worker.Net()
    opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    losses = []
    for x, y in dist_worker.batches():
        opt.zero_grad()
        # the mean of the ranks' mean losses (equal halves): the whole batch's mean
        loss = sum(torch.nn.functional.cross_entropy(model(xs), ys) for xs, ys in zip(x.chunk(world), y.chunk(world)))
        (loss / world).backward()
        opt.step()
        losses.append(float(loss.detach()) / world)
    return losses, model.state_dict()


@pytest.mark.parametrize("job", ["ddp", "ddp-view", "ddp-no_sync"])
def test_ddp_trains_as_one_process_on_the_whole_batch(job, tmp_path):
    """DDP in 2 processes (several gradient buckets), each with half of every
    batch: losses and parameters as one process training on the whole
    batches (on CPU); with gradient_as_bucket_view, and accumulating over
    two halves with the first under no_sync"""
    world = 2
    got = launch(job, world, "russet", tmp_path)
    losses, state = one_process_reference(world)
    for r in range(world):
        torch.testing.assert_close(torch.tensor(got[r]["losses"]), torch.tensor(losses), rtol=1e-5, atol=1e-6)
        for k, v in state.items():
            torch.testing.assert_close(got[r]["params"][k], v, rtol=1e-5, atol=1e-6, msg=lambda m: f"rank {r}, {k}: {m}")


def test_fsdp2_trains_as_one_process_and_checkpoints(tmp_path):
    """FSDP2 (fully_shard over a russet DeviceMesh) in 2 processes: each rank
    holds half of each parameter, training matches one process on the whole
    batches, and torch.distributed.checkpoint saves the shards and loads
    them into a fresh sharded model"""
    world = 2
    got = launch("fsdp", world, "russet", tmp_path)
    losses, state = one_process_reference(world)
    for r in range(world):
        assert got[r]["shard_shapes"]["a.weight"] == (8, 6), got[r]["shard_shapes"]
        torch.testing.assert_close(torch.tensor(got[r]["losses"]), torch.tensor(losses), rtol=1e-5, atol=1e-6)
        for k, v in state.items():
            torch.testing.assert_close(got[r]["params"][k], v, rtol=1e-5, atol=1e-6, msg=lambda m: f"rank {r}, {k}: {m}")
            assert torch.equal(got[r]["loaded"][k], got[r]["params"][k]), (r, k)


def test_mapped_memory_is_staged_without_copies(tmp_path):
    """where russet's memory is mapped on the host (unified memory: Apple,
    lavapipe), all_reduce, broadcast and all_gather_into_tensor hand Gloo
    views of the russet tensors' own memory (after the stream's queued work
    on them): no host copies, the results right"""
    got = launch("staging", 2, "russet", tmp_path)
    mapped = torch.russet.get_device_properties().unified_memory
    for r in range(2):
        assert got[r]["mapped"] == mapped
        assert torch.equal(got[r]["all_reduce"], torch.full((1 << 16,), 6.0))
        assert torch.equal(got[r]["broadcast"], torch.full((1 << 16,), 6.0))
        assert torch.equal(got[r]["all_gather_into_tensor"], torch.tensor([0.0] * 4 + [1.0] * 4))
        if mapped:
            assert got[r]["copied"] == [], got[r]["copied"]


@pytest.mark.parametrize("dev", ["russet", "cpu"])
def test_all_reduce_on_mapped_memory_runs_while_the_caller_goes_on(dev, tmp_path):
    """DDP's overlap: where Gloo reduces the tensors' own memory, all_reduce
    returns before the collective is done (rank 0's returns before rank 1
    has called; a blocking one would hang here), and wait() gives the
    average. The CPU run checks the job itself against Gloo's own async."""
    got = launch("overlap", 2, dev, tmp_path, timeout=120)
    if not got[0]["mapped"]:
        pytest.skip("russet's memory is not mapped on the host here: all_reduce stages through copies")
    assert got[0]["pending after the call"]
    for r in range(2):
        assert got[r]["done after wait"]
        assert torch.equal(got[r]["avg"], torch.full((1 << 12,), 1.5))
        assert torch.equal(got[r]["future value"][0], got[r]["avg"])


def test_bad_calls_are_clear_errors_on_every_rank(tmp_path):
    got = launch("errors", 2, "russet", tmp_path)
    for rank, r in enumerate(got):
        assert torch.equal(r["_allgather_base"], torch.tensor([0.0, 0.0, 1.0, 1.0]))
        assert torch.equal(r["_reduce_scatter_base"], 2 * torch.arange(2.0 * rank, 2.0 * rank + 2))
        assert "different dtypes" in r["all_to_all dtypes"], r  # (PyTorch's own check)
        assert "BAND" in r["band on floats"] or "ReduceOp" in r["band on floats"], r
        assert torch.equal(r["after"], torch.full((2,), 2.0))


def test_a_dead_peer_is_an_error_not_a_hang(tmp_path):
    """rank 1 exits before an all_reduce: rank 0's raises (within the
    group's 20 s timeout at most) instead of waiting forever"""
    got = launch("die", 2, "russet", tmp_path, timeout=120)
    assert got[0] != "no error" and "Error" in got[0], got[0]


TORCHRUN_SCRIPT = r"""
import os, sys, torch, torch.distributed as dist
sys.path.insert(0, sys.argv[1])
import russet
dist.init_process_group()  # env:// from torchrun; russet's backend as the accelerator's default
rank = dist.get_rank()
assert type(dist.group.WORLD).__name__ == "RussetProcessGroup"
t = torch.full((3,), float(rank + 1), device="russet")
dist.all_reduce(t)
print(f"rank {rank} of {dist.get_world_size()}: {t.cpu().tolist()}")
dist.destroy_process_group()
"""


def test_torchrun_with_the_default_backend(tmp_path):
    """the README's launch: torchrun, 2 processes on one host (TCP store on
    the loopback address), init_process_group() with no backend"""
    import socket
    script = tmp_path / "train.py"
    script.write_text(TORCHRUN_SCRIPT)
    with socket.socket() as s:  # a free port for the store
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    pydir = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python")
    r = subprocess.run([sys.executable, "-m", "torch.distributed.run", "--nproc-per-node", "2", "--master-addr",
                        "127.0.0.1", "--master-port", str(port), str(script), pydir],
                       capture_output=True, text=True, timeout=300, env=dict(os.environ, OMP_NUM_THREADS="1"))
    assert r.returncode == 0, r.stdout + r.stderr
    for rank in range(2):
        assert f"rank {rank} of 2: [3.0, 3.0, 3.0]" in r.stdout, r.stdout + r.stderr
