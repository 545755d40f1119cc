"""The library files a project carries: what its code reaches by name and include, nothing else."""

from __future__ import annotations

from conftest import MLPERF_TINY

from mote.codegen.compile import compile_graph
from mote.codegen.library import reached, runtime_sources
from mote.frontend.tflite import load_tflite
from mote.ops.registry import Core

FILES = {
    "mote_a.c": '#include "mote_a.h"\n/* mote_c is only named in a comment */\nint mote_a(void) { return mote_b(); }\n',
    "mote_a.h": '#include "mote_b.h"\nint mote_a(void);\n',
    "mote_b.c": '#include "mote_b.h"\nint mote_b(void) { return 1; }\n',
    "mote_b.h": "int mote_b(void); // mote_d\n",
    "mote_c.c": "int mote_c(void) { return 2; }\n",
    "mote_d.c": "int mote_d(void) { return 3; }\n",
}


def test_reached_follows_names_and_includes_not_comments() -> None:
    assert list(reached(FILES, ["int main(void) { return mote_a(); }"])) == [
        "mote_a.c", "mote_a.h", "mote_b.c", "mote_b.h"]
    assert reached(FILES, ["/* mote_a */ int main(void) { return 0; }"]) == {}


def test_umbrella_header_names_the_kernels_carried() -> None:
    sources = runtime_sources(["mote_status s = mote_relu_s8(0, 0, 0, MOTE_NO_SCRATCH);"])
    assert "mote/mote_relu_s8.c" in sources and "mote/mote_types.h" in sources
    assert "mote/mote_relu6_s8.c" not in sources
    assert '#include "mote_relu_s8.h"' in sources["mote/mote_kernels.h"]


def test_resnet_carries_its_kernels_only() -> None:
    data = (MLPERF_TINY / "pretrainedResnet_quant.tflite").read_bytes()
    compiled = compile_graph(load_tflite(data, "resnet"))
    for core, kernel in ((Core.VECTOR, "mote_conv_rows_s8"), (Core.SCALAR, "mote_conv_ring_s8")):
        model = compiled.for_core(core)
        carried = {name[len("mote/"):-2] for name in model.sources if name.startswith("mote/") and name.endswith(".c")}
        called = {layer.kernel for layer in model.layers if layer.kernel != "in place"}
        assert kernel in called and called <= carried
        assert not {"mote_conv_vnni_s8", "mote_depthwise_conv_s8", "mote_last_error"} & carried
