"""The environment variables README.md documents: RUSSET_CACHE_DIR, RUSSET_DEVICE."""

import json
import os

from conftest import run_python

KERNEL_RUN = (
    "import json, torch, russet\n"
    "t = torch.zeros(1000, device='russet', dtype=torch.float16)\n"
    "t.fill_(3.0)\n"
    "u = t.to(torch.bfloat16).to(torch.float32)\n"
    "assert bool((u.cpu() == 3).all())\n"
    "from russet import _module\n"
    "print('JSON' + json.dumps(_module._info(0)['cache']))\n"
)


def cache_stats(r):
    assert r.returncode == 0, r.stdout + r.stderr
    line = [x for x in r.stdout.splitlines() if x.startswith("JSON")][-1]
    return json.loads(line[4:])


def test_cache_dir_is_used_and_reused(tmp_path):
    env = {"RUSSET_CACHE_DIR": str(tmp_path)}
    first = cache_stats(run_python(KERNEL_RUN, env=env))
    assert os.path.realpath(first["dir"]).startswith(os.path.realpath(str(tmp_path)))
    assert first["spirv_compiles"] >= 1
    files = [f for _, _, fs in os.walk(tmp_path) for f in fs]
    assert files, "compiled kernels must be cached on disk"
    second = cache_stats(run_python(KERNEL_RUN, env=env))
    assert second["spirv_compiles"] == 0, second
    assert second["spirv_disk_hits"] >= first["spirv_compiles"], (first, second)


def test_corrupt_cache_files_are_ignored(tmp_path):
    env = {"RUSSET_CACHE_DIR": str(tmp_path)}
    cache_stats(run_python(KERNEL_RUN, env=env))
    n = 0
    for root, _, fs in os.walk(tmp_path):
        for f in fs:
            with open(os.path.join(root, f), "r+b") as fh:
                data = bytearray(fh.read())
                if not data:
                    continue
                for i in range(0, len(data), 7):
                    data[i] ^= 0x5A
                fh.seek(0)
                fh.write(bytes(data))
                n += 1
    assert n >= 1
    after = cache_stats(run_python(KERNEL_RUN, env=env))  # must still compute correctly
    assert after["spirv_compiles"] >= 1 or after["spirv_disk_rejects"] >= 1, after


def test_russet_device_selects_a_device():
    r = run_python("import torch, russet; print(torch.russet.device_count())",
                   env={"RUSSET_DEVICE": "0"})
    assert r.returncode == 0, r.stderr
    assert r.stdout.split()[-1] == "1"
    r = run_python("import torch, russet; print(torch.russet.device_count(), torch.russet.is_available())",
                   env={"RUSSET_DEVICE": "57"})
    assert r.returncode == 0, r.stderr
    assert r.stdout.split()[-2:] == ["0", "False"]
