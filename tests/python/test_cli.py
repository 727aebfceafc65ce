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


def test_info_warns_outside_the_tested_torch_range():
    """`python -m russet info` names torch's version and warns outside the
    range russet is tested with (issue 22)"""
    from russet.__main__ import TESTED_TORCH, torch_version_note

    assert "2.13" in TESTED_TORCH and "2.15" in TESTED_TORCH
    assert torch_version_note("2.13.0") is None and torch_version_note("2.11.0+cu130") is None
    assert torch_version_note("2.15.0+cu132") is None
    for v in ("2.9.1", "2.16.0.dev20261201", "3.0.0"):
        note = torch_version_note(v)
        assert note and "outside the range" in note and "2.11 to 2.15" in note, note
    assert "not a release" in torch_version_note("main")
    assert "torch 2." in run_cli("info").stdout


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


def test_coverage_other_devices_section():
    """A sweep on another device (compact_report) is shown beside the main
    one: its counts, and the pairs that fail there but pass here."""
    import json

    import conformance as coverage

    path = os.path.join(REPO, "docs", "coverage.json")
    if not os.path.exists(path):
        return
    with open(path) as f:
        rep = json.load(f)
    other = json.loads(json.dumps(rep))
    other["device"] = {"name": "NVIDIA H200", "driver": "test"}
    passing = next(r for r in other["records"] if r["class"] == "pass-native")
    v = next(iter(passing["variants"]))
    passing["variants"][v].update({"class": "wrong", "detail": "Tensor-likes are not close!\nmore"})
    compact = coverage.compact_report(other, "h200-apple")
    assert any(f["op"] == passing["op"] and f["dtype"] == passing["dtype"] and f["variant"] == v
               and f["detail"] == "Tensor-likes are not close!" for f in compact["failing"])
    md = coverage.render_markdown(rep, devices=[compact])
    section = md[md.index("## Other devices"):]
    assert "| h200-apple | NVIDIA H200 |" in section
    assert "### h200-apple: failing there, not here (1)" in section
    assert f"| `{passing['op']}` | {v} | {passing['dtype']} | wrong | pass-native |" in section
    assert "## Other devices" not in coverage.render_markdown(rep, devices=[])


def test_coverage_time_limit_writes_a_partial_report(tmp_path):
    """A sweep stopped by --time-limit still reports the tasks it did, and
    says it is partial (a device call that ends first loses nothing)."""
    out = tmp_path / "rep.json"
    r = run_cli("coverage", "--ops", "abs,neg,sin,cos,exp,log", "--time-limit", "0", "--json", str(out))
    assert r.returncode in (0, 1), r.stderr
    import json

    rep = json.loads(out.read_text())
    assert rep["partial"]["done"] < rep["partial"]["of"]
    assert len(rep["records"]) == rep["partial"]["done"]
    assert "PARTIAL" in r.stdout
