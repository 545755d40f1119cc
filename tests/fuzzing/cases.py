"""One fuzz case: make the mutant, run mote on it (load, compile to C, reference interpreter), and for an
accepted mutant compare with TFLite Micro (in a forked child: a damaged model can crash it) and, for a
sample, with the generated C built on the host."""

from __future__ import annotations

import faulthandler
import os
import pickle
import resource
import select
import signal
import tempfile
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from tflite_micro.python.tflite_micro import runtime

import mote
from mote.codegen.compile import compile_graph
from mote.errors import BuildError, MoteError
from mote.frontend.tflite import load_tflite
from mote.inputs import random_inputs
from mote.ir import Graph
from mote.reference import interpret
from mote.targets.host import build_host
from mote.tflm_match import ulp_bound, ulp_distance
from tests.fuzzing.cli_check import check_cli
from tests.fuzzing.mutate import mutate
from tests.fuzzing.seeds import seed_models

MOTE_PACKAGE = str(Path(mote.__file__).resolve().parent) + os.sep
TFLM_TIMEOUT_S = 10.0
TFLM_ARENA_BYTES = 4 << 20


@dataclass(frozen=True)
class Case:
    campaign_seed: int
    number: int
    build_c: bool = False
    check_cli: bool = False

    def rng(self) -> np.random.Generator:
        return np.random.default_rng([self.campaign_seed, self.number])

    def mutant(self) -> tuple[str, bytes, str]:
        """(seed model name, mutant bytes, description of the edits); the same for the same case."""
        rng = self.rng()
        seeds = seed_models()
        name = list(seeds)[int(rng.integers(len(seeds)))]
        data, what = mutate(seeds[name], rng)
        return name, data, what


@dataclass
class Outcome:
    """kind: rejected | accepted | traceback | bad_message | hang | crash.
    tflm (accepted only): match | mismatch | refused | crashed.  c (sampled accepted only): see compare_c.
    site: where a traceback started (innermost mote frame) or the rejection's error class."""

    case: Case
    kind: str
    site: str = ""
    detail: str = ""
    seed: str = ""
    edits: str = ""
    tflm: str = ""
    c: str = ""  # match | mismatch | build_failed | run_failed
    cli: str = ""  # ok, or what went wrong (see cli_check)
    seconds: float = 0.0


def traceback_site(error: BaseException) -> str:
    """`mote/path.py:line ExceptionType`, the innermost frame inside the mote package (else the innermost)."""
    frames = traceback.extract_tb(error.__traceback__)
    inside = [f for f in frames if f.filename.startswith(MOTE_PACKAGE)]
    frame = (inside or frames or [None])[-1]
    where = "?" if frame is None else f"{_short(frame.filename)}:{frame.lineno}"
    return f"{where} {type(error).__name__}"


def _short(filename: str) -> str:
    root = str(Path(MOTE_PACKAGE).parent) + os.sep
    return filename[len(root):] if filename.startswith(root) else filename


def run_in_child(work: Callable[[], Any], timeout: float) -> tuple[str, Any]:
    """Run `work` in a forked child: ('ok', result), ('error', message), ('crashed', signal or exit) or
    ('hang', None)."""
    read_fd, write_fd = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: never returns into the caller's code
        try:
            os.close(read_fd)
            os.dup2(os.open(os.devnull, os.O_WRONLY), 2)  # TFLite Micro explains a refusal on stderr: noise here
            faulthandler.disable()  # a crash is the verdict; its Python stack dump is noise
            try:
                payload = pickle.dumps(("ok", work()))
            except BaseException as e:  # noqa: BLE001 - every failure is reported to the parent
                payload = pickle.dumps(("error", f"{type(e).__name__}: {e}"[:300]))
            with os.fdopen(write_fd, "wb") as out:
                out.write(payload)
        finally:
            os._exit(0)
    os.close(write_fd)
    chunks, deadline = [], time.monotonic() + timeout
    with os.fdopen(read_fd, "rb") as pipe:
        while True:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([pipe], [], [], left)[0]:
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
                return "hang", None
            chunk = os.read(pipe.fileno(), 1 << 16)
            if not chunk:
                break
            chunks.append(chunk)
    _, status = os.waitpid(pid, 0)
    if not chunks:
        return "crashed", os.WTERMSIG(status) if os.WIFSIGNALED(status) else os.WEXITSTATUS(status)
    return pickle.loads(b"".join(chunks))


def tflm_outputs(data: bytes, graph: Graph, inputs: dict[str, np.ndarray]) -> list[np.ndarray]:
    interp = runtime.Interpreter.from_bytes(data, arena_size=TFLM_ARENA_BYTES)
    for i, t in enumerate(graph.inputs):
        interp.set_input(inputs[t.name], i)
    interp.invoke()
    return [np.array(interp.get_output(i)) for i in range(len(graph.outputs))]


def same(got: np.ndarray, want: np.ndarray, ulp: int = 0) -> bool:
    """Bit for bit: same dtype, same number of values, same values (NaN equal to NaN); float values up to
    `ulp` apart when given (mote.tflm_match.ulp_bound)."""
    got, want = np.asarray(got), np.asarray(want)
    if got.dtype != want.dtype or got.size != want.size:
        return False
    if ulp and got.dtype == np.float32:
        distance = np.where(np.isnan(got) & np.isnan(want), 0, ulp_distance(got, want))
        return bool((distance <= ulp).all())
    return bool(np.array_equal(got.reshape(-1), want.reshape(-1), equal_nan=got.dtype.kind == "f"))


def compare_tflm(data: bytes, graph: Graph, inputs: dict[str, np.ndarray], reference: dict[str, np.ndarray]) -> str:
    status, result = run_in_child(lambda: tflm_outputs(data, graph, inputs), TFLM_TIMEOUT_S)
    if status == "error":
        return "refused"
    if status != "ok":
        return "crashed"
    bound = ulp_bound(graph)
    return "match" if all(same(reference[t.name], r, bound) for t, r in zip(graph.outputs, result)) else "mismatch"


def compare_c(compiled: Any, inputs: dict[str, np.ndarray], reference: dict[str, np.ndarray],
              sanitize: bool = True) -> str:
    """The generated C built on the host (with ASan and UBSan when `sanitize`): build_failed, run_failed (a
    sanitizer report or a crash), match or mismatch."""
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    resource.setrlimit(resource.RLIMIT_AS, (hard, hard))  # ASan reserves far more address space than it uses
    try:
        return _compare_c(compiled, inputs, reference, sanitize)
    finally:
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))


def _compare_c(compiled: Any, inputs: dict[str, np.ndarray], reference: dict[str, np.ndarray], sanitize: bool) -> str:
    with tempfile.TemporaryDirectory(prefix="mote-fuzz-") as tmp:
        try:
            binary = build_host(compiled, Path(tmp) / "project", sanitize=sanitize)
        except BuildError:
            return "build_failed"
        try:
            outputs, _ = binary.run(inputs)
        except BuildError:
            return "run_failed"
    return "match" if all(same(outputs[t.name], reference[t.name]) for t in compiled.graph.outputs) else "mismatch"


def run_case(case: Case, before_build: Callable[[], None] = lambda: None) -> Outcome:
    """The outcome of one case; `before_build` is called before the (slow) C build of a sampled case."""
    start = time.perf_counter()
    seed, data, edits = case.mutant()
    outcome = Outcome(case, "accepted", seed=seed, edits=edits)
    try:
        graph = load_tflite(data, "fuzz")
        compiled = compile_graph(graph)
        inputs = random_inputs(graph, case.number)
        reference = interpret(graph, inputs)
    except MoteError as e:
        message = str(e)
        one_line = message and message == message.strip() and not any(c in message for c in "\r\n\x00")
        outcome.kind = "rejected" if one_line else "bad_message"
        outcome.site, outcome.detail = type(e).__name__, message[:200]
        if not one_line:
            outcome.site = f"{traceback_site(e)} (message not one line)"
    except Exception as e:  # noqa: BLE001 - a traceback is exactly what the fuzzer counts
        outcome.kind, outcome.site, outcome.detail = "traceback", traceback_site(e), str(e)[:200]
    else:
        outcome.tflm = compare_tflm(data, graph, inputs, reference)
        if case.build_c or " name " in edits:  # hostile names must not change what the C means
            before_build()
            outcome.c = compare_c(compiled, inputs, reference, sanitize=case.build_c)
    if case.check_cli:
        outcome.cli = check_cli(data)
    outcome.seconds = time.perf_counter() - start
    return outcome


def replay(case: Case) -> int:
    """Run one case in this process, letting any error through with its full traceback (for a developer)."""
    seed, data, edits = case.mutant()
    print(f"case {case.number} (campaign seed {case.campaign_seed}): seed model {seed}; edits: {edits}", flush=True)
    graph = load_tflite(data, "fuzz")
    compiled = compile_graph(graph)
    inputs = random_inputs(graph, case.number)
    reference = interpret(graph, inputs)
    print("accepted by mote", flush=True)
    status, result = run_in_child(lambda: tflm_outputs(data, graph, inputs), TFLM_TIMEOUT_S)
    if status != "ok":
        print(f"TFLite Micro: {status} {result or ''}")
    for t, want in zip(graph.outputs, result if status == "ok" else []):
        got = reference[t.name]
        differ = "different dtype or size" if got.dtype != want.dtype or got.size != want.size else \
            f"{int(np.count_nonzero(got.reshape(-1) != want.reshape(-1)))}/{got.size} values differ"
        print(f"output {t.name!r}: {'bit-exact' if same(got, want) else differ} against TFLite Micro")
    with tempfile.TemporaryDirectory(prefix="mote-fuzz-") as tmp:
        outputs, _ = build_host(compiled, Path(tmp) / "project", sanitize=True).run(inputs)
    print("generated C under ASan/UBSan:", "match" if all(same(outputs[t.name], reference[t.name])
                                                          for t in graph.outputs) else "mismatch")
    return 0
