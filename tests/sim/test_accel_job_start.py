"""An accelerator job's place in the run's timeline is the cycle of the store that started it: checked against
Unicorn's own count of every instruction executed (a per-instruction hook, too slow for ordinary runs), with a
core model that charges one cycle per instruction, so that cycles are instructions."""

from __future__ import annotations

from pathlib import Path

import unicorn
from small_cnn import small_cnn

from mote.accel import find_accelerator
from mote.pipeline import run
from mote.sim.cycles import CoreModel
from mote.sim.devices import Reg
from mote.sim.run import Run
from mote.targets.rv32 import Rv32, Rv32Config

UNIT = CoreModel(name="one cycle per instruction", load=1, mulh=1, div=1, branch_taken=1, jump=1, fdiv=1)


def test_jobs_start_at_their_start_store(monkeypatch, tmp_path: Path) -> None:
    truth: dict[str, list[int]] = {"count": [0], "begin": [], "starts": []}
    init, write, snapshot = Run.__init__, Run._device_write, Run._accel_snapshot

    def counting_init(self, *args, **kwargs) -> None:
        init(self, *args, **kwargs)
        truth.update(count=[0], begin=[], starts=[])  # the last run's (a build may run the firmware again)

        def count(uc, address, size, data) -> None:
            truth["count"][0] += 1

        self.uc.hook_add(unicorn.UC_HOOK_CODE, count)

    def marking_write(self, uc, offset, size, value, data) -> None:
        if offset == Reg.RUN_BEGIN:
            truth["begin"].append(truth["count"][0])
        write(self, uc, offset, size, value, data)

    def starting_snapshot(self, offset, size, value):
        truth["starts"].append(truth["count"][0])
        return snapshot(self, offset, size, value)

    monkeypatch.setattr(Run, "__init__", counting_init)
    monkeypatch.setattr(Run, "_device_write", marking_write)
    monkeypatch.setattr(Run, "_accel_snapshot", starting_snapshot)
    model = tmp_path / "small.tflite"
    model.write_bytes(small_cnn())
    report = run(model, target=Rv32(Rv32Config(cc="zig", core=UNIT)), accelerator=find_accelerator("qvanilla"))
    assert report.bit_exact
    jobs = [s for s in report.figures.sim.timeline if s.track.startswith("accelerator")]
    (begin,) = truth["begin"]
    assert len(jobs) == len(truth["starts"]) == report.figures.sim.accel_jobs > 1
    assert all(job.args["start"] == "exact" for job in jobs)
    assert [job.start for job in jobs] == [n - begin for n in truth["starts"]]
