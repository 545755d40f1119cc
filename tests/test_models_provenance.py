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


def test_the_bundled_language_model_is_the_one_its_readme_describes() -> None:
    """mote/models/tiny_lm.onnx: its hash in mote/models/README.md, with how it was made and its text's license."""
    readme = (REPO / "mote" / "models" / "README.md").read_text()
    recorded = dict(re.findall(r"^\| (\S+\.onnx) \|.*\| ([0-9a-f]{64}) \|$", readme, re.MULTILINE))
    model = REPO / "mote" / "models" / "tiny_lm.onnx"
    assert recorded == {"tiny_lm.onnx": hashlib.sha256(model.read_bytes()).hexdigest()}
    assert model.stat().st_size < 5 << 20
    for fact in ("scripts/train_tiny_lm.py", "scripts/export_tiny_lm.py", "pydoc_data", "Python Software Foundation"):
        assert fact in readme, fact
