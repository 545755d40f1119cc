"""Control flow and resource variables in an untrusted file: a subgraph index out of range, a subgraph that
calls itself, caller and callee that do not pair up, a loop whose carried shapes change, handles that lead
nowhere: each refused with one line naming the node, never a traceback."""

from __future__ import annotations

from typing import Any

import numpy as np
import tflite_micro.tensorflow.lite.micro.python.schema_py_generated as schema

from mote.errors import ModelFileError, UnsupportedError
from mote.frontend.tflite import load_tflite
from mote.frontend.tflite_writer import ModelBuilder
from tests.frontend.test_tflite_validation import edited, refused
from tests.ops.control_models import if_model, stateful_model, while_model


def op(model: Any, subgraph: int = 0, index: int = 0) -> Any:
    return model.subgraphs[subgraph].operators[index]


def test_the_valid_models_load() -> None:
    assert [n.op for n in load_tflite(if_model("int8")).nodes] == ["if"]
    assert [n.op for n in load_tflite(while_model("int8")).nodes] == ["while"]
    graph = load_tflite(stateful_model("float32"))
    assert [n.op for n in graph.nodes] == ["call_once", "read_variable", "add", "assign_variable"]
    assert len(graph.subgraphs()) == 1


def test_a_subgraph_index_out_of_range() -> None:
    refused(edited(if_model("int8"), lambda m: setattr(op(m).builtinOptions, "elseSubgraphIndex", 9)),
            ModelFileError, "node 0 (IF)", "else subgraph index 9", "3 subgraphs")
    refused(edited(stateful_model("int8"), lambda m: setattr(op(m).builtinOptions, "initSubgraphIndex", -1)),
            ModelFileError, "node 0 (CALL_ONCE)", "init subgraph index -1")


def test_a_subgraph_that_calls_itself() -> None:
    refused(edited(while_model("int8"), lambda m: setattr(op(m).builtinOptions, "bodySubgraphIndex", 0)),
            UnsupportedError, "node 0 (WHILE)", "body subgraph 0 calls itself")


def test_recursion_through_another_subgraph() -> None:
    def call_back(m: Any) -> None:  # the then branch runs an IF whose branches are the then branch itself
        then = m.subgraphs[1]
        cond = schema.TensorT()
        cond.name, cond.shape, cond.type, cond.buffer = "c", [1], schema.TensorType.BOOL, 0
        then.tensors.append(cond)
        nested = schema.OperatorT()
        nested.opcodeIndex = op(m).opcodeIndex
        nested.inputs, nested.outputs = [len(then.tensors) - 1, *then.inputs], list(then.outputs)
        nested.builtinOptionsType = schema.BuiltinOptions.IfOptions
        nested.builtinOptions = schema.IfOptionsT()
        nested.builtinOptions.thenSubgraphIndex = nested.builtinOptions.elseSubgraphIndex = 1
        then.operators = [nested]

    refused(edited(if_model("int8"), call_back), UnsupportedError, "subgraph 1 node 0 (IF)", "calls itself")


def test_caller_and_callee_counts_must_agree() -> None:
    refused(edited(if_model("int8"), lambda m: setattr(op(m), "inputs", op(m).inputs[:2])), UnsupportedError,
            "(if)", "the then branch takes 2 inputs, IF passes 1")
    refused(edited(while_model("int8"), lambda m: setattr(m.subgraphs[2], "outputs", m.subgraphs[2].outputs[:3])),
            UnsupportedError, "(while)", "outputs of the body", "4 tensors against 3")


def test_caller_and_callee_shapes_must_agree() -> None:
    def widen(m: Any) -> None:
        m.subgraphs[0].tensors[1].shape = [2, 6]  # x, which IF passes to its branches

    refused(edited(if_model("float32"), widen), UnsupportedError, "inputs of the then branch", "[2, 6]", "[2, 5]")


def test_loop_carried_shapes_cannot_change() -> None:
    def widen_in_body(m: Any) -> None:  # the body takes and gives n (passed through) as three values
        body = m.subgraphs[2]
        body.tensors[body.inputs[1]].shape = [3]

    refused(edited(while_model("float32"), widen_in_body), UnsupportedError, "(while)", "inputs of the body",
            "tensor 1 is int32 [1] against int32 [3]")

    def widen_in_cond(m: Any) -> None:
        cond = m.subgraphs[1]
        cond.tensors[cond.inputs[3]].shape = [10]

    refused(edited(while_model("float32"), widen_in_cond), UnsupportedError, "(while)", "inputs of the cond", "[10]")


def test_a_subgraph_error_names_the_subgraph() -> None:
    def widen(m: Any) -> None:
        m.subgraphs[2].tensors[m.subgraphs[2].inputs[0]].shape = [2, 6]

    refused(edited(if_model("float32"), widen), UnsupportedError, "m subgraph 2: node 'r' (mul)", "broadcast")


def test_the_cond_must_give_one_bool() -> None:
    def count(m: Any) -> None:
        m.subgraphs[1].outputs = list(m.subgraphs[1].inputs[:1])

    refused(edited(while_model("int8"), count), UnsupportedError, "(while)", "cond's output", "int32")


def test_a_variable_never_assigned() -> None:
    def drop_assign(m: Any) -> None:
        m.subgraphs[0].operators = m.subgraphs[0].operators[:4]
        m.subgraphs[1].operators = m.subgraphs[1].operators[:1]

    refused(edited(stateful_model("int8"), drop_assign), UnsupportedError, "node 2 (READ_VARIABLE)", "'acc'",
            "never assigned")


def test_a_variable_needs_a_shared_name() -> None:
    refused(edited(stateful_model("int8"), lambda m: setattr(op(m, 0, 1).builtinOptions, "sharedName", None)),
            UnsupportedError, "node 1 (VAR_HANDLE)", "shared name")


def test_a_handle_goes_only_to_the_variable_ops() -> None:
    mb = ModelBuilder()
    x = mb.tensor("x", [2], "float32")
    h = mb.tensor("h", [], "resource")
    y = mb.tensor("y", [2], "float32")
    mb.op("VAR_HANDLE", [], [h], container="", shared_name="v")
    mb.op("ASSIGN_VARIABLE", [h, x], [])
    mb.op("ADD", [x, h], [y])
    refused(mb.build([x], [y]), UnsupportedError, "node 2 (ADD)", "resource handle")


def test_a_variable_keeps_its_shape() -> None:
    def reshape(m: Any) -> None:
        init = m.subgraphs[1]
        start = init.tensors[op(m, 1, 1).inputs[1]]
        start.shape = [10]

    refused(edited(stateful_model("float32"), reshape), UnsupportedError, "ASSIGN_VARIABLE", "'acc'", "[10]",
            "[2, 5]")


def test_the_init_takes_no_inputs() -> None:
    def give_input(m: Any) -> None:
        m.subgraphs[1].inputs = [op(m, 1, 1).inputs[1]]
        m.buffers[m.subgraphs[1].tensors[op(m, 1, 1).inputs[1]].buffer].data = np.zeros(0, np.uint8)

    refused(edited(stateful_model("float32"), give_input), UnsupportedError, "(call_once)", "takes 1 inputs")


def test_missing_options_name_no_subgraph() -> None:
    refused(edited(if_model("int8"), lambda m: setattr(op(m), "builtinOptions", None)), ModelFileError,
            "node 0 (IF)", "options", "missing")


def test_the_text_form_lists_subgraphs_before_their_callers() -> None:
    text = load_tflite(while_model("int8"), "loop").dump()
    assert text.index('graph "loop subgraph 1"') < text.index('graph "loop subgraph 2"') < text.index('graph "loop"')
    assert 'body_graph=subgraph "loop subgraph 2"' in text and "%more: bool[1]" in text


def test_a_loop_carries_as_many_inputs_as_outputs() -> None:
    refused(edited(while_model("int8"), lambda m: setattr(op(m), "inputs", op(m).inputs[:3])), UnsupportedError,
            "(while)", "3 inputs for 4 outputs")
