"""The honest list: every (builtin, dtype) the tflite-micro interpreter runs, probed with synthesized single-op
models (tests/ops/probe), must load in mote and match the interpreter, or be a listed gap with its reason.

Nothing here is skipped: a combination the interpreter runs that mote neither matches nor lists fails; so does
a listed gap mote now covers (the list only shrinks), and a builtin the interpreter registers that has neither
a recipe nor a stated reason. The probe asks the installed interpreter each time: a new tflite-micro that runs
more shows up here as a failure."""

from __future__ import annotations

import pytest

from tests.ops.probe.check import mote_matches
from tests.ops.probe.recipes import DTYPES, RECIPES
from tests.ops.probe.run import registered_builtins, tflm_runs

QUANTIZED = "the quantized integer kernel of this op is not implemented yet (its float32 kernel is)"
BYTES_AS_BOOL = ("TFLite Micro reads the tensors' bytes as bool without checking their type; no converter "
                 "writes this, and mote takes bool tensors only")
# (builtin, dtype) the interpreter runs and mote does not: each with its reason. Only ever remove entries.
KNOWN_GAPS: dict[tuple[str, str], str] = {
    ("GREATER", "int16"): "TFLite Micro sets the comparison's rescaling parameters for int8 only: its int16 results "
                          "come from parameters it never sets",
    **{(b, d): BYTES_AS_BOOL for b in ("LOGICAL_AND", "LOGICAL_OR")
       for d in ("int8", "int16", "int32", "int64", "uint8", "float32")},
}
# Builtins the interpreter registers that no recipe probes yet, each with its reason.
NOT_PROBED: dict[str, str] = {
}
CASES = [(builtin, dtype) for builtin in sorted(RECIPES) for dtype in DTYPES]


@pytest.mark.parametrize("builtin,dtype", CASES)
def test_what_tflite_micro_runs_mote_runs(builtin: str, dtype: str) -> None:
    run = tflm_runs(builtin, dtype)
    if run is None:  # the interpreter does not run it: nothing to match (a refusal is no failure of mote's)
        assert (builtin, dtype) not in KNOWN_GAPS, f"{builtin} {dtype}: TFLite Micro no longer runs it; drop the gap"
        return
    why_not = mote_matches(*run)
    if (builtin, dtype) in KNOWN_GAPS:
        assert why_not is not None, f"{builtin} {dtype} now matches TFLite Micro: remove it from KNOWN_GAPS"
    else:
        assert why_not is None, f"TFLite Micro runs {builtin} on {dtype} but mote does not: {why_not}"


def test_every_registered_builtin_is_probed_or_explained() -> None:
    unexplained = registered_builtins() - RECIPES.keys() - NOT_PROBED.keys()
    assert not unexplained, f"TFLite Micro registers {sorted(unexplained)}: add a recipe or a reason"
    assert not (RECIPES.keys() & NOT_PROBED.keys())


def test_the_probe_finds_what_it_should() -> None:
    """The probe itself works: known combinations run, a wrong one does not."""
    assert tflm_runs("CONV_2D", "int8") is not None and tflm_runs("SOFTMAX", "float32") is not None
    assert tflm_runs("LOGICAL_NOT", "float32") is None
    assert len(registered_builtins()) > 80
