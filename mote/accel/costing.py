"""The cost of a lowered job, per category, as `mote explore` adds it up without running it (the virtual
platform's timed mode charges each start as it runs, by the accelerator's `cost`)."""

from __future__ import annotations

from mote.accel.interface import Accelerator, Job
from mote.errors import AcceleratorError


def job_cost(accelerator: Accelerator, job: Job) -> dict[str, int]:
    """Cycles of `job` (over all its repeats) per category of the accelerator's `cost_categories`,
    every category present; an AcceleratorError if the accelerator answers with other keys or
    negative cycles."""
    breakdown = accelerator.job_breakdown(job)
    unknown = sorted(set(breakdown) - set(accelerator.cost_categories))
    if unknown:
        raise AcceleratorError(f"accelerator {accelerator.name}: cost categories {', '.join(unknown)} are not "
                               f"declared; declare them in cost_categories ({', '.join(accelerator.cost_categories)})")
    result = {category: int(breakdown.get(category, 0)) for category in accelerator.cost_categories}
    negative = [c for c, v in result.items() if v < 0]
    if negative:
        raise AcceleratorError(f"accelerator {accelerator.name}: negative cycles for {', '.join(negative)}; "
                               "costs must be 0 or more")
    return result
