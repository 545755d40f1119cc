"""`mote generate`: greedy text generation with a decoder step model's autoregressive C API (mote.generate),
its tokens checked against the reference interpreter, the cost per token and how it grows with the context."""

from __future__ import annotations

import argparse
import json
import tempfile
from importlib import resources
from pathlib import Path

from mote.accel import find_accelerator
from mote.cli_args import bounded_int
from mote.errors import MoteError
from mote.generate import Generation, generate, load_decoder
from mote.terminal import plain


def bundled_language_model() -> Path:
    """The bundled tiny language model (see mote/models/README.md)."""
    return Path(str(resources.files("mote.models").joinpath("tiny_lm.onnx")))


def add_generate_command(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("generate", help="greedy text generation with a decoder model's KV-cache C API")
    p.add_argument("model", type=Path, nargs="?", help="a decoder step model (default: the bundled tiny_lm.onnx)")
    p.add_argument("--prompt", required=True, help="the text to continue (its UTF-8 bytes are the tokens)")
    p.add_argument("--tokens", type=bounded_int(1, 100000), default=32, help="how many tokens to generate")
    p.add_argument("--target", default="host", choices=["host", "rv32"], help="where the generated C runs")
    p.add_argument("--max-context", type=bounded_int(1, 1 << 20), help="tokens the KV cache holds (a compile-time "
                   "size; default: the model's)")
    p.add_argument("--ram-budget", type=bounded_int(1, 1 << 32), metavar="BYTES",
                   help="refuse a KV cache, state and arena over this many bytes (default: rv32's RAM less its "
                        "stack; none on the host)")
    p.add_argument("--accel", metavar="NAME[:KEY=VALUE,...]",
                   help="rv32: offload the layers an accelerator accepts (e.g. dla:timed=1, its linear layers)")
    p.add_argument("--json", action="store_true", help="one JSON object")
    p.set_defaults(func=_generate)


def _text(tokens: list[int]) -> str:
    return bytes(t & 0xFF for t in tokens).decode("utf-8", errors="replace")


def _generate(args: argparse.Namespace) -> int:
    path = args.model or bundled_language_model()
    prompt = list(args.prompt.encode("utf-8"))
    if not prompt:
        raise MoteError("--prompt is empty; give at least one character")
    accelerator = find_accelerator(args.accel) if args.accel else None
    graph = load_decoder(path, args.max_context)
    with tempfile.TemporaryDirectory(prefix="mote-generate-") as tmp:
        result = generate(graph, prompt, args.tokens, Path(tmp) / "project", args.target, args.max_context,
                          args.ram_budget, accelerator)
    result.text = _text(result.tokens)
    if args.json:
        print(json.dumps(result.to_json()))
    else:
        _print(result, args.prompt)
    return 0 if result.matches_reference else 1


def _figure(key: str, value: float) -> str:
    """A per-step figure as the table shows it: energy (uJ) to the nJ, counts to a tenth."""
    return f"{value:,.3f}" if key == "uj" else f"{value:,.1f}"


def _print(result: Generation, prompt: str) -> None:
    print("\n".join(plain(line) for line in (prompt + result.text).split("\n")))  # other controls escaped
    print()
    keys = list(result.step_figures[0]) if result.step_figures else []
    print(f"{'position':>8}  {'token':>5}  {'MACs':>10}" + "".join(f"  {k:>14}" for k in keys))
    for p, t, m, f in zip(result.positions, result.tokens, result.macs_per_step, result.step_figures):
        print(f"{p:>8}  {t:>5}  {m:>10}" + "".join(f"  {_figure(k, f[k]):>14}" for k in keys))
    summary = result.to_json()
    means = ", ".join(f"{_figure(k, summary[k + '_per_token'])} {k}" for k in keys)
    print(f"{len(result.tokens)} tokens; per token {summary['macs_per_token']:,.0f} MACs, {means}")
    if len(result.step_figures) > 1:
        first, last = result.step_figures[0][keys[0]], result.step_figures[-1][keys[0]]
        print(f"cost with the context: from position {result.positions[0]} to {result.positions[-1]} the {keys[0]} "
              f"per step went {first:,.1f} -> {last:,.1f} ({(last - first) / max(1, result.positions[-1] - result.positions[0]):,.1f} "  # noqa: E501
              f"per token of context), the MACs {result.macs_per_step[0]:,} -> {result.macs_per_step[-1]:,}")
    for note in result.notes:
        print(note)
    print("same tokens as the reference interpreter" if result.matches_reference
          else f"DIFFERENT from the reference interpreter: {result.reference_tokens}")
