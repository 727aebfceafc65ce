"""pytest setup for the conformance harness (tests/conformance).

The sweep itself runs in worker subprocesses (tools/conformance.py); this
process imports russet only for the harness's self-tests. The profile is
`apple` unless RUSSET_PROFILE says otherwise, and host execution is allowed
(it is what the sweep measures).
"""

import os
import sys

os.environ.setdefault("RUSSET_PROFILE", "apple")
os.environ["RUSSET_HOST_OPS"] = "allow"

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PYTHON_DIR = os.path.join(REPO, "python")
if PYTHON_DIR not in sys.path:
    sys.path.insert(0, PYTHON_DIR)
# the conformance harness (tools/conformance.py), outside the package
TOOLS_DIR = os.path.join(REPO, "tools")
if TOOLS_DIR not in sys.path:
    sys.path.insert(0, TOOLS_DIR)
