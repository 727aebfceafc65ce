"""russet and CUDA on one machine (issue 15), with real CUDA: checks the
documented choice (tests/python/test_cuda_coexistence.py simulates it).

1. russet installed (its torch.backends entry point), plain `import torch`:
   russet stays out, torch.accelerator is CUDA, CUDA training works.
2. `import russet` in a CUDA process: russet works (forward and backward)
   and warns; CUDA's backward then fails in PyTorch's autograd engine
   (pytorch/pytorch#161129), as the warning says.
Each case runs in a process of its own. Prints one line per check.
"""
import os
import subprocess
import sys

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

CUDA_STEP = """
m = torch.nn.Linear(8, 8).cuda()
loss = m(torch.randn(4, 8, device="cuda")).square().sum()
loss.backward()
torch.cuda.synchronize()
print("cuda backward ok", m.weight.grad.abs().sum().item() > 0)
"""

CASE1 = """
import torch
print("accelerator", torch.accelerator.current_accelerator(), "russet loaded", hasattr(torch, "russet"))
""" + CUDA_STEP

CASE2 = """
import warnings
with warnings.catch_warnings(record=True) as w:
    warnings.simplefilter("always")
    import torch, russet
print("warned", any("CUDA" in str(x.message) for x in w), "accelerator", torch.accelerator.current_accelerator())
x = torch.randn(4, 8, device="russet", requires_grad=True)
x.square().sum().backward()
print("russet backward ok", x.grad.abs().sum().item() > 0)
try:
""" + "\n".join("    " + line for line in CUDA_STEP.strip().split("\n")) + """
except RuntimeError as e:
    print("cuda backward fails as documented:", "opt_ready_stream" in str(e))
"""


def run(code, env=None):
    e = dict(os.environ, **(env or {}))
    e["PYTHONPATH"] = os.path.join(REPO, "python") + os.pathsep + e.get("PYTHONPATH", "")
    r = subprocess.run([sys.executable, "-c", code], env=e, capture_output=True, text=True, timeout=300)
    return r.stdout + (r.stderr[-2000:] if r.returncode else "")


def main():
    # the entry point needs russet installed as a distribution
    installed = subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-build-isolation", "--no-deps",
                                "-e", REPO], capture_output=True, text=True)
    print("== russet installed (entry point):", installed.returncode == 0, installed.stderr[-300:])
    print("== case 1: import torch, CUDA training\n" + run(CASE1))
    print("== case 2: import russet beside CUDA\n" + run(CASE2))


if __name__ == "__main__":
    main()
