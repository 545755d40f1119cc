"""The autoregressive C API of a decoder step model: model_prefill(tokens, n) and model_step(token).

A decoder step model is a graph with cached_attention layers (mote/ops/cached_attention.py): its KV caches
and their positions are state, sized at compile time for MODEL_MAX_CONTEXT tokens (`set_max_context`).
Its first input is the token (one int32 or int64 value), an optional second one the token's position (one
int32 or int64 value: the API fills it from the caches' own count), and its first output the logits.
model_run stays as it is; the API is a thin layer over it:

    const <logits type> *model_step(int32_t token);       the logits after `token`, or NULL
    const <logits type> *model_prefill(const int32_t *tokens, int32_t n);   the logits after the last one
    int32_t model_position(void);                          how many tokens the cache holds

Both return NULL, changing nothing, once the context is full (model_reset() empties it) or on a kernel's
error. model_reset() comes from the state area.
"""

from __future__ import annotations

from mote.errors import MoteError
from mote.ir import DType, Graph, Tensor

_INDEX_TYPES = (DType.INT32, DType.INT64)


class DecoderModelError(MoteError):
    """A model that cannot have the autoregressive API (or cannot fit its context)."""


def attention_nodes(graph: Graph) -> list:
    return [n for n in graph.nodes if n.op == "cached_attention"]


def is_decoder(graph: Graph) -> bool:
    return bool(attention_nodes(graph))


def has_api(graph: Graph) -> bool:
    """The graph gets the autoregressive API: it has KV-cache attention and a decoder step's inputs and outputs
    (other graphs with cached_attention, a single layer's, keep model_run alone)."""
    try:
        check_signature(graph)
    except DecoderModelError:
        return False
    return is_decoder(graph)


def max_context(graph: Graph) -> int:
    """The tokens the KV caches hold (every cached_attention layer's; they are set together)."""
    sizes = {n.inputs[3].shape[1] for n in attention_nodes(graph)}
    if len(sizes) != 1:
        raise DecoderModelError(f"model {graph.name!r}: its attention layers' caches hold {sorted(sizes)} tokens; "
                                "they must hold the same number")
    return sizes.pop()


def set_max_context(graph: Graph, tokens: int) -> None:
    """Size every KV cache for `tokens` tokens (in place: the caches are state, nothing else depends on it)."""
    if tokens < 1:
        raise DecoderModelError(f"maximum context {tokens}: it must be at least 1 token")
    for node in attention_nodes(graph):
        for cache in node.inputs[3:5]:
            assert cache is not None
            cache.shape = (cache.shape[0], tokens, cache.shape[2])


def check_budget(graph: Graph, state_bytes: int, arena_bytes: int, budget: int | None) -> None:
    """A model whose RAM (state, KV caches included, and arena) is over `budget` bytes is refused in one line."""
    if budget is not None and state_bytes + arena_bytes > budget:
        raise DecoderModelError(
            f"model {graph.name!r}: needs {state_bytes + arena_bytes} bytes of RAM (KV cache and state {state_bytes}, "
            f"arena {arena_bytes}) at a maximum context of {max_context(graph)} tokens, over the budget of {budget}; "
            "lower the maximum context")


def check_signature(graph: Graph) -> tuple[Tensor, Tensor | None, Tensor]:
    """(token, position or None, logits); a graph without a decoder step's inputs is refused in one line."""
    def index(t: Tensor) -> bool:
        return t.dtype in _INDEX_TYPES and t.size == 1

    ins = graph.inputs
    if not ins or not index(ins[0]) or len(ins) > 2 or (len(ins) == 2 and not index(ins[1])):
        got = ", ".join(f"{t.name} {t.dtype.value} {list(t.shape)}" for t in ins)
        raise DecoderModelError(f"model {graph.name!r}: a decoder step model takes a token and optionally its "
                                f"position (one int32 or int64 value each); its inputs are {got}")
    if not graph.outputs:
        raise DecoderModelError(f"model {graph.name!r}: a decoder step model's first output is its logits")
    return ins[0], ins[1] if len(ins) == 2 else None, graph.outputs[0]


def position_state(graph: Graph) -> Tensor:
    """The first attention layer's position: every layer counts the same tokens."""
    pos = attention_nodes(graph)[0].inputs[5]
    assert pos is not None
    return pos


def header_lines(graph: Graph) -> list[str]:
    token, _, logits = check_signature(graph)
    t = logits.dtype.c_type
    return ["/* Autoregressive decoding: the KV cache holds up to MODEL_MAX_CONTEXT tokens (state, kept across",
            " * calls). model_step runs one token and returns the next token's logits (output0); model_prefill",
            " * runs n tokens and returns the logits after the last. Both return NULL, changing nothing, once the",
            " * context is full (model_reset() empties it) or when a kernel fails. */",
            f"#define MODEL_MAX_CONTEXT {max_context(graph)}",
            f"#define MODEL_VOCAB {logits.size}",
            f"const {t} *model_step(int32_t token);",
            f"const {t} *model_prefill(const int32_t *tokens, int32_t n);",
            "int32_t model_position(void);", ""]


def source_lines(graph: Graph, state_pointer: str, tensor_pointer: dict[Tensor, str]) -> list[str]:
    """model.c's part; `state_pointer` is the C expression of the position state, `tensor_pointer` the
    buffers of the inputs and the logits."""
    token, pos, logits = check_signature(graph)
    t = logits.dtype.c_type
    args = ", ".join(tensor_pointer[x] for x in [token, *([pos] if pos is not None else []), *graph.outputs])
    fill_pos = [f"  *{tensor_pointer[pos]} = ({pos.dtype.c_type})position;"] if pos is not None else []
    return ["int32_t model_position(void) {", "  if (!state_ready) model_reset();",
            f"  return *(const int32_t *){state_pointer};", "}", "",
            f"const {t} *model_step(int32_t token) {{",
            "  const int32_t position = model_position();",
            "  if (position >= MODEL_MAX_CONTEXT) return NULL;",
            f"  *{tensor_pointer[token]} = ({token.dtype.c_type})token;", *fill_pos,
            f"  if (model_run({args}) != MOTE_OK) return NULL;",
            f"  return {tensor_pointer[logits]};", "}", "",
            f"const {t} *model_prefill(const int32_t *tokens, int32_t n) {{",
            "  if (n < 1 || n > MODEL_MAX_CONTEXT - model_position()) return NULL;",
            f"  const {t} *logits = NULL;",
            "  for (int32_t i = 0; i < n; ++i) {",
            "    logits = model_step(tokens[i]);",
            "    if (logits == NULL) return NULL;",
            "  }",
            "  return logits;", "}", ""]
