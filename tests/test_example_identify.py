"""examples/identify_payload.py: the payload's mass recovered to noise level from the base regressor."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

from rbdgen import consistency

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "identify_payload.py"


@pytest.fixture(scope="module")
def example():
    spec = importlib.util.spec_from_file_location("identify_payload", EXAMPLE)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclass looks its module up
    spec.loader.exec_module(module)
    return module


def test_payload_recovered(example, build_cache):
    noise = 0.05
    result = example.identify(states=120, noise=noise, seed=1, cache=build_cache)
    assert result.rank == 43
    assert abs(result.mass - example.PAYLOAD_MASS) < 0.05
    assert abs(result.com[2] - example.PAYLOAD_COM[2]) < 0.01
    # the residual of 840 torques fitted with 43 parameters is the noise, sqrt(1 - 43/840) of it on average
    assert 0.85 * noise < result.fit_rms < 1.1 * noise
    assert result.prediction_rms < 0.5 * noise  # the model predicts the noise-free torques
    assert consistency.violations(result.projected) == []
    assert abs(result.projected[0] - example.PAYLOAD_MASS) < 0.05


def test_command_line(example, capsys, monkeypatch, build_cache):
    monkeypatch.setenv("RBDGEN_CACHE", str(build_cache))
    example.main(["--states", "60", "--noise", "0.01"])
    out = capsys.readouterr().out
    assert "identifiable parameters: 43 of 70" in out and "payload mass: 2.3" in out
