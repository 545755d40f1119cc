"""The arena is explained: which kernel family, which kernels take scratch, how much and why, and what
the other family needs (a host run with VNNI kernels reports a larger arena than `mote compile`)."""

from __future__ import annotations

import json
from pathlib import Path

from test_cli import mote

from mote import pipeline
from mote.arena_notes import arena_notes, describe
from mote.codegen.compile import compile_graph
from mote.frontend import load
from mote.ops.registry import Core


def test_scalar_and_vector_arenas_are_explained(tmp_path: Path) -> None:
    """The digits CNN: the scalar kernels take scratch (plane and ring convolutions), the vector ones none."""
    vector = json.loads(mote("compile", pipeline.default_model(), "-o", tmp_path / "v", "--json").stdout)
    scalar = json.loads(mote("compile", pipeline.default_model(), "-o", tmp_path / "s", "--json",
                             "--kernels", "scalar").stdout)
    assert vector["kernels"] == "vector" and vector["arena"]["scratch"] == [] and "baseline" not in vector["arena"]
    notes = scalar["arena"]
    assert notes["kernels"] == "scalar" and notes["arena_bytes"] == scalar["arena_bytes"] != vector["arena_bytes"]
    assert {s["kernel"] for s in notes["scratch"]} == {"mote_conv_plane_s8", "mote_conv_ring_s8"}
    assert notes["scratch_bytes"] == sum(s["bytes"] for s in notes["scratch"]) > 0
    assert all(s["why"] for s in notes["scratch"])
    assert notes["baseline"] == {"kernels": "vector", "arena_bytes": vector["arena_bytes"]}

    text = mote("compile", pipeline.default_model(), "-o", tmp_path / "s", "--kernels", "scalar").stdout
    assert f"arena {scalar['arena_bytes']:,} B with the scalar kernels" in text
    assert "scratch for mote_conv_ring_s8" in text and f"{vector['arena_bytes']:,} B with --kernels vector" in text


def test_vnni_scratch_is_described_against_the_vector_kernels() -> None:
    """Compiled for VNNI (no VNNI CPU needed to compile), the convolutions' padded input plane is named."""
    compiled = compile_graph(load(pipeline.default_model()), core=Core.VNNI)
    notes = arena_notes(compiled)
    assert {s["kernel"] for s in notes["scratch"]} == {"mote_conv_vnni_s8"}
    line = describe(notes)
    assert line.startswith(f"arena {compiled.plan.size:,} B with the vnni kernels: ")
    assert "AVX-512 VNNI" in line and line.endswith(f"{notes['baseline']['arena_bytes']:,} B with --kernels vector")
    per_layer = {layer.index: layer.scratch_bytes for layer in compiled.layers if layer.scratch_bytes}
    assert per_layer == {s["layer"]: s["bytes"] for s in notes["scratch"]}


def test_run_json_reports_kernels_and_per_layer_scratch() -> None:
    report = json.loads(mote("run", "--json").stdout)
    assert report["kernels"] in ("vector", "vnni") and report["arena"]["kernels"] == report["kernels"]
    per_layer = {layer["index"]: layer["scratch_bytes"] for layer in report["layers"]}
    assert sum(per_layer.values()) == report["arena"]["scratch_bytes"]
    assert {s["layer"]: s["bytes"] for s in report["arena"]["scratch"]} == {i: b for i, b in per_layer.items() if b}
