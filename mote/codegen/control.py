"""The C of control flow: each subgraph a control-flow node calls becomes a static function of model.c, and the
node a few lines that call it.

A subgraph function looks like model_run: it copies its inputs into its own buffers, runs its layers, copies
its outputs out. Its buffers are planned like the model's arena, at offsets from `frame`, a slice of the
caller's memory that the calling node takes as its scratch (the largest frame of the subgraphs it calls;
a frame holds its own callees' frames in turn, and recursion is refused when the model is loaded). Inputs
are all copied in before any output is copied out, so a caller may pass the same buffers for both: WHILE
hands its outputs to the body as its inputs and as its outputs.

    IF         if (cond[0]) status = subgraph1(frame, inputs..., outputs...); else status = subgraph2(...);
    WHILE      the outputs start as copies of the inputs; then, until the cond subgraph gives false
               (or a layer fails), the body maps the outputs onto themselves
    CALL_ONCE  unless its flag (state) is set: run the init subgraph, then set the flag
"""

from __future__ import annotations

from dataclasses import dataclass

from mote.c_text import c_quoted
from mote.codegen.emitter import Emitter
from mote.ir import Graph, Node, Tensor
from mote.ops.subgraphs import callees


@dataclass
class Subgraph:
    """A subgraph compiled into model.c."""

    func: str  # its C function, e.g. "subgraph1"
    graph: Graph
    frame: int  # bytes its buffers need in the caller's memory
    text: str  # the function's definition


def _parameters(graph: Graph) -> str:
    inputs = [f"const {t.dtype.c_type} *input{k}" for k, t in enumerate(graph.inputs)]
    outputs = [f"{t.dtype.c_type} *output{k}" for k, t in enumerate(graph.outputs)]
    return ", ".join(["int8_t *frame", *inputs, *outputs])


def subgraph_function(func: str, graph: Graph, em: Emitter, frame: int, calls: list[str],
                      unread: set[Tensor]) -> str:
    """The static function that runs `graph` on a frame of `frame` bytes; `calls` are its layers' C. Inputs in
    `unread` (no layer reads them, no output passes them on: a loop's cond often ignores most of what the loop
    carries) are not copied."""
    copy_in = [f"  (void)input{k}; /* not read */" if t in unread else
               f"  memcpy({em.tensor(t)}, input{k}, {t.nbytes});" for k, t in enumerate(graph.inputs)]
    copy_out = [f"  memcpy(output{k}, {em.tensor(t)}, {t.nbytes});" for k, t in enumerate(graph.outputs)]
    return "\n".join([
        f"/* {func}: {c_quoted(graph.name)}, {len(graph.nodes)} layer{'' if len(graph.nodes) == 1 else 's'} on a frame "
        f"of {frame} bytes its caller lends. */",
        f"static int {func}({_parameters(graph)}) {{", "  int status = MOTE_OK;", "  (void)frame;",
        *copy_in, *calls, *copy_out, "  return status;", "}", ""])


def control_call(node: Node, frame: str, em: Emitter, compiled: dict[Graph, Subgraph]) -> list[str]:
    """The C lines of a control-flow node; `frame` points at the memory its callees' frames take."""
    graphs = callees(node)
    funcs = [compiled[g].func for g in graphs]

    def call(func: str, tensors: list[str]) -> str:
        return f"status = {func}({', '.join([frame, *tensors])});"

    def pointers(tensors: list[Tensor | None]) -> list[str]:
        return [em.tensor(t) for t in tensors if t is not None]

    outputs = pointers(list(node.outputs))
    if node.op == "if":
        n = len(graphs[0].inputs)
        cond, args = em.tensor(_present(node.inputs[0])), pointers(node.inputs[1:1 + n])
        return [f"  if (({cond})[0]) {{", f"    {call(funcs[0], [*args, *outputs])}", "  } else {",
                f"    {call(funcs[1], [*args, *outputs])}", "  }"]
    if node.op == "while":
        n = len(node.outputs)
        starts = [f"  memcpy({out}, {em.tensor(_present(x))}, {x.nbytes});"
                  for out, x in zip(outputs, node.inputs[:n]) if x is not None]
        return [*starts, "  for (;;) {", "    bool more = false;", f"    {call(funcs[0], [*outputs, '&more'])}",
                "    if (status != MOTE_OK || !more) break;", f"    {call(funcs[1], [*outputs, *outputs])}",
                "    if (status != MOTE_OK) break;", "  }"]
    if node.op == "call_once":
        flag = em.tensor(_present(node.inputs[0]))
        return [f"  if (!({flag})[0]) {{", f"    {call(funcs[0], [])}",
                f"    if (status == MOTE_OK) ({flag})[0] = true;", "  }"]
    raise AssertionError(f"no C for control-flow op {node.op}")


def _present(t: Tensor | None) -> Tensor:
    assert t is not None
    return t
