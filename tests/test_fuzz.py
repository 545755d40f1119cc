"""The fuzz test of `make test`: seeded mutants of the small models through mote, no traceback, hang or crash,
and every accepted mutant that TFLite Micro runs bit-exact with it. `make fuzz` runs the long campaign."""

from __future__ import annotations

import os
import signal
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from mote.ops import registry
from tests.fuzzing.campaign import Summary, run_campaign
from tests.fuzzing.cases import Case, Outcome, run_case, run_in_child, same, traceback_site
from tests.fuzzing.cli_check import check_cli, run_cli
from tests.fuzzing.mutate import mutate
from tests.fuzzing.op_seeds import MODEL_SEEDS
from tests.fuzzing.results import results_section, write_results
from tests.fuzzing.seeds import SINGLE_OP_BUILDERS, seed_models

CAMPAIGN_SEED = 14
CASES = 500
BUILD_EVERY = 100
CLI_EVERY = 10


def test_seed_models_cover_every_supported_operator() -> None:
    supported = {builtin for op in registry.OPS.values() for builtin in op.tflite}
    assert supported <= set(SINGLE_OP_BUILDERS) | set(MODEL_SEEDS), sorted(
        supported - set(SINGLE_OP_BUILDERS) - set(MODEL_SEEDS))
    assert {"digits_cnn", "ad01", "kws"} <= set(seed_models())


@pytest.mark.parametrize("builtin", sorted([*SINGLE_OP_BUILDERS, *MODEL_SEEDS]))
def test_single_op_seed_runs_bit_exact_as_c(builtin: str, check_model: Callable[..., object]) -> None:
    """Every seed is a valid model: its C builds and matches TFLite Micro (so a mutant's failure is the mutation's)."""
    check_model(seed_models()[builtin.lower()], seeds=1)


def test_mutants_are_reproducible_and_differ_from_their_seed() -> None:
    seeds = seed_models()
    changed = 0
    for number in range(60):
        name, data, edits = Case(CAMPAIGN_SEED, number).mutant()
        assert Case(CAMPAIGN_SEED, number).mutant() == (name, data, edits)
        changed += data != seeds[name]
    assert changed >= 55  # a few edits may write back the value a field had


def test_field_mutations_reach_hostile_names() -> None:
    rng = np.random.default_rng(0)
    seen = " ".join(mutate(seed_models()["conv_2d"], rng)[1] for _ in range(400))
    assert "name" in seen and "scales" in seen and "option" in seen and "subgraph" in seen


def test_traceback_site_names_the_innermost_mote_frame() -> None:
    from mote.ir.tensor import Tensor

    try:
        _ = Tensor("t", (1,), None).scale  # type: ignore[arg-type]  # an unquantized tensor asserts
    except AssertionError as e:
        assert traceback_site(e).startswith("mote/ir/tensor.py:")
        assert traceback_site(e).endswith(" AssertionError")


def test_child_process_reports_results_errors_crashes_and_hangs() -> None:
    assert run_in_child(lambda: 7, 5.0) == ("ok", 7)
    assert run_in_child(lambda: 1 // 0, 5.0)[0] == "error"
    assert run_in_child(lambda: os.kill(os.getpid(), signal.SIGSEGV), 5.0) == ("crashed", signal.SIGSEGV)
    assert run_in_child(lambda: time.sleep(30), 1.0) == ("hang", None)


def test_same_is_bit_for_bit() -> None:
    a = np.array([1, 2, 3], dtype=np.int8)
    assert same(a, a.copy()) and not same(a, a.astype(np.int16)) and not same(a, a[:2])
    assert same(np.array([np.nan], np.float32), np.array([np.nan], np.float32))


def test_results_section_replaces_only_its_own_part(tmp_path: Path) -> None:
    results = tmp_path / "RESULTS.md"
    results.write_text("# Benchmark results\n\n## Host\n\n| a | b |\n")
    summary = Summary([Outcome(Case(1, 0), "rejected"), Outcome(Case(1, 1), "accepted", tflm="match")], 3.0)
    write_results(results, results_section(summary, "make fuzz"))
    write_results(results, results_section(summary, "make fuzz"))
    text = results.read_text()
    assert text.startswith("# Benchmark results\n\n## Host\n\n| a | b |\n")
    assert text.count("fuzz:begin") == 1 and "| matched TFLite Micro | 1 |" in text and "| rejected | 1 |" in text


def test_cli_check_accepts_a_clean_refusal_and_a_good_model() -> None:
    assert check_cli(b"not a model at all") == "ok"
    assert check_cli(seed_models()["digits_cnn"]) == "ok"
    status, out, err = run_cli(["partition", "nonexistent.tflite"])
    assert status == 2 and err.startswith("mote: error: ") and len(err.splitlines()) == 1


def _hang_or_crash(case: Case, before_build: Callable[[], None]) -> Outcome:
    if case.number == 1:
        time.sleep(60)
    if case.number == 2:
        os.kill(os.getpid(), signal.SIGSEGV)
    return run_case(case, before_build)


def test_campaign_survives_a_hang_and_a_crash() -> None:
    summary = run_campaign([Case(CAMPAIGN_SEED, n) for n in range(6)], workers=2, timeout=2.0, run=_hang_or_crash)
    kinds = {o.case.number: o.kind for o in summary.outcomes}
    assert len(kinds) == 6 and kinds[1] == "hang" and kinds[2] == "crash"
    assert {kinds[n] for n in (0, 3, 4, 5)} <= {"rejected", "accepted", "traceback", "bad_message"}


def test_fuzz_campaign() -> None:
    """One test, so that pytest-xdist runs the campaign once: every case ran, some were accepted and matched
    TFLite Micro, and nothing failed (tracebacks, hangs, crashes, messages, mismatches, C, command line)."""
    cases = [Case(CAMPAIGN_SEED, n, build_c=n % BUILD_EVERY == BUILD_EVERY - 1, check_cli=n % CLI_EVERY == 3)
             for n in range(CASES)]
    campaign = run_campaign(cases, workers=2)
    assert len(campaign.outcomes) == CASES
    assert campaign.count("rejected") > 0 and campaign.tflm("match") > 0
    assert sum(o.cli != "" for o in campaign.outcomes) == CASES // CLI_EVERY
    failures = campaign.failures()
    if failures:
        pytest.fail(f"{len(failures)} of {CASES} fuzz cases failed (replay one with scripts/fuzz.py --seed "
                    f"{CAMPAIGN_SEED} --case N):\n" + campaign.report(), pytrace=False)
