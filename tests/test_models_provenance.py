"""The bundled models are the files models/README.md describes: their hashes match its tables."""

from __future__ import annotations

import hashlib
import re

from conftest import MLPERF_TINY, REPO


def test_bundled_models_match_their_recorded_hashes() -> None:
    readme = (REPO / "models" / "README.md").read_text()
    recorded = dict(re.findall(r"^\| (\S+\.tflite) \|.*\| ([0-9a-f]{64}) \|$", readme, re.MULTILINE))
    files = {p.name: p for p in (REPO / "models").rglob("*.tflite")}  # every bundled model has its row
    assert sorted(recorded) == sorted(files)
    assert {p.name for p in MLPERF_TINY.glob("*.tflite")} <= recorded.keys()
    for name, digest in recorded.items():
        assert hashlib.sha256(files[name].read_bytes()).hexdigest() == digest, name
    assert "Apache License" in (MLPERF_TINY / "LICENSE").read_text()
