"""pytest setup for russet: the apple profile by default, host execution allowed.

Both variables are read when the native library starts, so they are set here,
before russet is imported.
"""

import os
import subprocess
import sys
import zlib

os.environ.setdefault("RUSSET_PROFILE", "apple")
os.environ["RUSSET_HOST_OPS"] = "allow"  # the error mode is tested in subprocesses

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PYTHON_DIR = os.path.join(REPO, "python")
if PYTHON_DIR not in sys.path:
    sys.path.insert(0, PYTHON_DIR)
# the conformance harness (tools/conformance.py), outside the package
TOOLS_DIR = os.path.join(REPO, "tools")
if TOOLS_DIR not in sys.path:
    sys.path.insert(0, TOOLS_DIR)

import pytest  # noqa: E402
import torch  # noqa: E402

import russet  # noqa: E402,F401

DEVICE = "russet"

# PyTorch 2.13's CPU kernels: the first parallel float64 op of a process
# (torch.exp, torch.sin, ... on 6,000 values) is sometimes off by ~1e-9
# relative in the half that the second thread computes (7 of 40 fresh
# processes here, AVX512; later calls are exact). CPU is the reference
# every test compares with, so each interpreter runs one parallel op first.
CPU_WARMUP = "import torch as _t; _t.sin(_t.ones(1 << 16, dtype=_t.float64)); del _t\n"
torch.sin(torch.ones(1 << 16, dtype=torch.float64))


def pytest_report_header(config):
    try:
        p = torch.russet.get_device_properties(0)
        return f"russet: {p.name} | {p.driver} | profile={p.profile}"
    except Exception as e:  # noqa: BLE001
        return f"russet: no device ({e})"


def run_python(code, env=None, timeout=300):
    """Runs `code` in a fresh interpreter (for settings read at start-up)."""
    full_env = dict(os.environ)
    full_env["PYTHONPATH"] = PYTHON_DIR + os.pathsep + full_env.get("PYTHONPATH", "")
    if env:
        full_env.update(env)
    return subprocess.run(
        [sys.executable, "-c", CPU_WARMUP + code], env=full_env, capture_output=True, text=True, timeout=timeout
    )


@pytest.fixture(autouse=True)
def _seeded(request):
    """Each test starts from its own fixed seed (its file and name): OpInfo's
    samples and every unseeded torch.randn are the same on every run and
    machine, so a failure on the H200 can be reproduced on lavapipe."""
    torch.manual_seed(zlib.crc32(f"{request.node.module.__name__}::{request.node.name}".encode()))


@pytest.fixture(autouse=True, scope="session")
def _require_device():
    if not torch.russet.is_available():
        pytest.fail("russet has no Vulkan device: install mesa-vulkan-drivers (README.md)")
