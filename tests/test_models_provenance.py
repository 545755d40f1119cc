"""The bundled MLPerf Tiny models are the published files: their hashes match models/README.md."""

from __future__ import annotations

import hashlib
import re

from conftest import MLPERF_TINY, REPO


def test_bundled_models_match_their_recorded_hashes() -> None:
    readme = (REPO / "models" / "README.md").read_text()
    recorded = dict(re.findall(r"^\| (\S+\.tflite) \|.*\| ([0-9a-f]{64}) \|$", readme, re.MULTILINE))
    assert sorted(recorded) == sorted(p.name for p in MLPERF_TINY.glob("*.tflite"))
    for name, digest in recorded.items():
        assert hashlib.sha256((MLPERF_TINY / name).read_bytes()).hexdigest() == digest, name
    assert "Apache License" in (MLPERF_TINY / "LICENSE").read_text()
