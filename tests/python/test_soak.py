"""A short soak (tools/soak.py, issue 24): small models trained with shapes
that change every step keep the same memory allocated after every step, and
the check catches a model that keeps its activations."""
import os
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "tools"))
import soak  # noqa: E402


def test_memory_returns_to_the_same_level_every_step():
    for name in ("mlp", "transformer"):
        r = soak.soak(name, steps=24, seed=1, probe_every=12, log=lambda *_: None)
        assert r["problems"] == [], r["problems"]
        assert len(r["allocated_after_step"]) == 1 and r["allocated_after_step"][0] > 0


def test_a_leak_is_reported():
    kept = []

    class Leaky(soak.MLP):
        def loss(self, x, y):
            out = self.net(x)
            kept.append(out)  # the step's activations stay alive
            return torch.nn.functional.cross_entropy(out, y)

    soak.MODELS["leaky"] = Leaky
    try:
        r = soak.soak("leaky", steps=6, seed=1, probe_every=3, log=lambda *_: None)
    finally:
        del soak.MODELS["leaky"]
    assert r["problems"] and "allocated memory changed" in r["problems"][0]
