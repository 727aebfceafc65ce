"""python -m russet: info, demo (short), coverage."""

import os
import subprocess
import sys

from conftest import PYTHON_DIR, REPO


def run_cli(*args, timeout=300):
    env = dict(os.environ)
    env["PYTHONPATH"] = PYTHON_DIR + os.pathsep + env.get("PYTHONPATH", "")
    return subprocess.run([sys.executable, "-m", "russet", *args], env=env, cwd=REPO,
                          capture_output=True, text=True, timeout=timeout)


def test_info():
    r = run_cli("info")
    assert r.returncode == 0, r.stderr
    out = r.stdout
    for word in ("driver", "vendor", "profile", "has_fp64", "subgroup_size", "max_shared_memory",
                 "total memory", "kernel cache"):
        assert word in out, word


def test_info_json():
    import json

    r = run_cli("info", "--json")
    assert r.returncode == 0, r.stderr
    data = json.loads(r.stdout)
    assert data and "features" in data[0] and "cache" in data[0]


def test_demo_short_run_matches_cpu():
    r = run_cli("demo", "--steps", "20")
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    assert "OK: final loss on russet" in r.stdout
    assert "host execution" in r.stdout and "native" in r.stdout


def test_coverage_command():
    r = run_cli("coverage")
    assert r.returncode == 0, r.stderr
    if not os.path.exists(os.path.join(REPO, "docs", "coverage.json")):
        assert "no coverage report yet" in r.stdout
