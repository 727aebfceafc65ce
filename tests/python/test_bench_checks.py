"""The benchmarks' own check (bench/timing.py check_cases): every timed
case is compared with its reference before it is timed, and a wrong or NaN
result stops the benchmark (issue 23)."""

import os
import sys

import pytest
import torch

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "bench"))
from timing import _median_runs, check_cases, half_tol  # noqa: E402

D = "russet"


def test_a_right_result_passes_and_a_wrong_one_stops_the_benchmark():
    x = torch.randn(64, 33)
    ref = {"relu fp32": (lambda: torch.relu(x), 1)}
    check_cases({"relu fp32": (lambda: torch.relu(x.to(D)), 1)}, ref, half_tol)
    for bad in (lambda: torch.relu(x.to(D)) * 1.01, lambda: torch.relu(x.to(D)) + float("nan"),
                lambda: torch.relu(x.to(D))[:-1]):
        with pytest.raises(SystemExit, match="relu fp32"):
            check_cases({"relu fp32": (bad, 1)}, ref, half_tol)


def test_a_picked_part_and_gradients_are_compared():
    x = torch.randn(2, 4, 8)
    xd = x.to(D).requires_grad_()

    def grads():
        xd.grad = None
        (xd.exp() * 2).sum().backward()
        return (xd.grad,)

    ref = {"g bf16": (lambda: (x[:, :2].exp() * 2,), 1)}
    check_cases({"g bf16": (grads, 1)}, ref, half_tol, pick=lambda name, t: t[:, :2])
    with pytest.raises(SystemExit):
        check_cases({"g bf16": (grads, 1)}, {"g bf16": (lambda: (x[:, 2:].exp() * 2,), 1)}, half_tol,
                    pick=lambda name, t: t[:, :2])


def test_runs_are_reported_as_their_median_and_spread():
    runs = [{"a": {"ms": m, "gbs": 100 / m}} for m in (2.0, 1.0, 4.0)]
    r = _median_runs(runs, "gbs")["a"]
    assert r["ms"] == 2.0 and r["gbs"] == pytest.approx(50.0) and r["spread"] == pytest.approx(1.5)
