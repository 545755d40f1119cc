"""mote on a probe model: does it load it, and does its reference interpreter give TFLite Micro's outputs?"""

from __future__ import annotations

import numpy as np

from mote.frontend.tflite import load_tflite
from mote.reference import interpret
from mote.tflm_match import ulp_bound, ulp_distance


def mote_matches(model: bytes, inputs: dict[str, np.ndarray], expected: list[np.ndarray]) -> str | None:
    """None when mote compiles the model and matches TFLite Micro (within the ULP bound), else why not."""
    try:
        graph = load_tflite(model, "probe")
        named = {t.name: value for t, value in zip(graph.inputs, inputs.values())}
        outputs = interpret(graph, named)
    except Exception as e:  # noqa: BLE001 - any refusal is the answer
        return f"{type(e).__name__}: {str(e)[:160]}"
    bound = ulp_bound(graph)
    for t, want in zip(graph.outputs, expected):
        got = np.asarray(outputs[t.name]).reshape(-1)
        want = np.asarray(want).reshape(-1)
        if got.dtype != want.dtype:
            return f"output {t.name!r} is {got.dtype}, TFLite Micro's {want.dtype}"
        if got.dtype == np.float32:
            distance = np.where(np.isnan(got) & np.isnan(want), 0, ulp_distance(got, want))
            if distance.max(initial=0) > bound:
                return f"output {t.name!r}: {int(np.count_nonzero(distance > bound))} values beyond {bound} ULP"
        elif np.count_nonzero(got != want):
            return f"output {t.name!r}: {int(np.count_nonzero(got != want))} values differ"
    return None
