"""russet beside CUDA (issue 15). PyTorch takes a registered PrivateUse1
backend as torch.accelerator, and its autograd engine then fails on CUDA
backward passes (pytorch/pytorch#161129). So where CUDA is usable, a plain
`import torch` does not load russet (installing russet never breaks CUDA),
`import russet` does, with a warning that says how to choose, and
RUSSET_AUTOLOAD=1 restores the autoload. Here CUDA is simulated; the H200
run (bench/gpu.sh test) checks it with real CUDA training."""

from conftest import run_python

SIMULATE = """
import warnings
import torch
torch.version.cuda = "13.0"          # a CUDA build ...
torch.cuda.is_available = lambda: True  # ... that sees a GPU

def _import_device_backends():       # what torch's autoload runs
    import russet
    russet._autoload()

with warnings.catch_warnings(record=True) as w:
    warnings.simplefilter("always")
    _import_device_backends()
print("autoload", hasattr(torch, "russet"), torch._C._get_privateuse1_backend_name(), len(w))
with warnings.catch_warnings(record=True) as w:
    warnings.simplefilter("always")
    import russet
    print("explicit", hasattr(torch, "russet"), any("CUDA" in str(x.message) for x in w))
print(torch.ones(2, device="russet").sum().item())
"""


def test_autoload_stays_out_where_cuda_is_usable():
    r = run_python(SIMULATE, env={"TORCH_DEVICE_BACKEND_AUTOLOAD": "0"})
    assert r.returncode == 0, r.stderr
    lines = r.stdout.split("\n")
    assert lines[0] == "autoload False privateuseone 0", r.stdout  # nothing loaded, nothing printed
    assert lines[1] == "explicit True True", r.stdout  # import russet loads it and warns
    assert lines[2] == "2.0"


def test_autoload_can_be_forced():
    r = run_python(SIMULATE, env={"TORCH_DEVICE_BACKEND_AUTOLOAD": "0", "RUSSET_AUTOLOAD": "1"})
    assert r.returncode == 0, r.stderr
    assert r.stdout.split("\n")[0].startswith("autoload True russet"), r.stdout


def test_no_warning_without_cuda():
    r = run_python("import warnings\nwarnings.simplefilter('error')\nimport torch, russet\n"
                   "print(torch.accelerator.current_accelerator())",
                   env={"TORCH_DEVICE_BACKEND_AUTOLOAD": "0"})
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "russet"
