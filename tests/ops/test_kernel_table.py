"""The ops' kernel tables (mote.ops.registry.Kernel): their shape, the choice they make, and the
reasons they give for the kernels they pass over."""

from __future__ import annotations

import ast
from importlib import resources
from pathlib import Path

import numpy as np
import pytest

import mote
from mote.frontend.tflite import load_tflite
from mote.ops import OPS, conv_pointwise, filter_offset_conv
from mote.ops.conv2d_params import ConvParams
from mote.ops.conv_common import fits_int32, fold_bias, max_abs
from mote.ops.dsp_kernels import dsp_stage, stage_rows
from mote.ops.registry import Core, choose_kernel
from mote.targets.rv32 import micro
from tests.ops.kernel_util import chosen
from tests.ops.test_conv2d import Case, conv_model, random_case

TABLES = {name: op.kernels for name, op in OPS.items() if op.kernels}


def test_tables_end_with_a_generic_kernel_for_every_core() -> None:
    assert {"conv2d", "depthwise_conv2d", "fully_connected", "quantize"} <= TABLES.keys()
    for name, table in TABLES.items():
        assert table[-1].cores == frozenset(Core), name
        assert table[-1].accepts(None, None) is None, name  # type: ignore[arg-type]


def test_every_record_names_a_library_function_and_known_twins() -> None:
    library = {f.name for f in resources.files("mote.runtime").iterdir()}
    funcs = [k.func for table in TABLES.values() for k in table]
    assert len(funcs) == len(set(funcs))
    for table in TABLES.values():
        for kernel in table:
            assert f"{kernel.func}.c" in library, kernel.func
            assert set(kernel.twins) <= set(micro.FUNCTIONS), kernel.func
            assert all(f"{twin}.c" in library for twin in kernel.twins)


def test_kernel_names_appear_only_in_their_tables_module() -> None:
    """Choosing a kernel is its record's business: no other module spells its function's name."""
    home = {k.func: k.pack.__module__ for table in TABLES.values() for k in table}
    root = Path(mote.__file__).parent
    strays = []
    for path in root.rglob("*.py"):
        module = ".".join(path.relative_to(root.parent).with_suffix("").parts)
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Constant) and node.value in home and home[node.value] != module:
                strays.append(f"{module}: {node.value}")
    assert strays == []


def former_choice(p: ConvParams, core: Core) -> str:
    """conv2d's kernel as the code before the tables chose it (choose_kernel, then specialize)."""
    vector = "mote_conv_s8"
    complete = fits_int32(max_abs(p.folded) + p.taps * 128 * 128)
    if core is Core.DSP and p.groups == 1 and complete and not p.filter_offset and \
            stage_rows(p.multiplier, p.shift, p.folded, p.weights.reshape(p.out_ch, -1)) is not None:
        return "mote_conv_dsp_s8"
    # Since: the Armv6-M kernel, two products per multiply for weights in [-127, 127].
    pairs_bound = max_abs(p.folded) + p.taps * 128 * 127
    if core is Core.ARMV6M and p.groups == 1 and not p.filter_offset and int(p.weights.min(initial=0)) >= -127 and \
            fits_int32(pairs_bound) and dsp_stage(p.multiplier, p.shift, pairs_bound) is not None:
        return "mote_conv_armv6m_s8"
    if p.groups == 1 and complete:
        if p.pointwise:
            vector = "mote_conv_1x1_s8"
        elif (p.filter_w * p.in_ch if p.dilation_w == 1 else p.in_ch) < 16 and p.padded_taps <= 256:
            vector = "mote_conv_im2col_s8"
        elif fits_int32(max_abs(p.bias) + p.taps * 2 * 128 * 128):
            vector = "mote_conv_rows_s8"
    if core is Core.SCALAR and p.in_ch == 1 and p.out_ch < 32 and complete:
        return "mote_conv_plane_s8"
    if core is Core.SCALAR and vector != "mote_conv_s8" and int(p.weights.min(initial=0)) >= -127:
        # Since: a pointwise layer with few input channels whose channels all have one-multiply output stages.
        if p.pointwise and conv_pointwise.accepts(None, p) is None:  # type: ignore[arg-type]
            return "mote_conv_pointwise_s8"
        ring = (p.filter_w == 3 and p.stride_w in (1, 2) and p.dilation_h == p.dilation_w == 1 and p.in_ch % 2 == 0)
        return "mote_conv_ring_s8" if ring else "mote_conv_blocked_s8"
    if core is Core.SCALAR and int(p.weights.min(initial=0)) < -127 and p.groups == 1:
        c = filter_offset_conv.sum_scales(p)
        if fits_int32(max_abs(np.abs(filter_offset_conv.offset_bias(p, c)) + p.taps * 128 * (128 + np.abs(c)))):
            return "mote_conv_blocked_wide_s8"
    if core is Core.VNNI and p.groups == 1:
        unsigned = fold_bias(p.bias, p.weights, p.input_offset - 128)
        if fits_int32(max_abs(unsigned) + p.taps * 255 * 128):
            return "mote_conv_vnni_s8"
    return vector


@pytest.mark.parametrize("seed", range(30))
def test_conv2d_table_chooses_as_before(seed: int) -> None:
    rng = np.random.default_rng(5000 + seed)
    case = random_case(rng)
    if seed % 3 == 0:  # pointwise and ring-shaped layers too, the random ones rarely are
        case = Case(case.batches, case.in_hw, 2 * case.in_ch, case.out_ch, (1, 1) if seed % 2 else (2, 3),
                    2 * case.in_ch, (1, 1), (1, 1), "SAME", "NONE", True, True)
    weight_min = -128 if seed % 5 == 0 else -127
    node = load_tflite(conv_model(case, rng, weight_min=weight_min), "m").nodes[0]
    p = OPS["conv2d"].prepare(node)
    for core in Core:
        assert chosen(node, core) == former_choice(p, core), (case, core)


def test_declined_kernels_say_why() -> None:
    rng = np.random.default_rng(5100)
    grouped = Case(1, (6, 6), 4, 4, (3, 3), 2, (1, 1), (1, 1), "SAME", "NONE", True, True)
    node = load_tflite(conv_model(grouped, rng), "m").nodes[0]
    op = OPS["conv2d"]
    choice = choose_kernel(op, node, op.prepare(node), Core.VECTOR)
    assert choice.kernel.func == "mote_conv_s8"
    assert choice.declined == (("mote_conv_1x1_s8", "not 1x1 at stride 1"), ("mote_conv_im2col_s8", "groups != 1"),
                               ("mote_conv_rows_s8", "groups != 1"))
    scalar = choose_kernel(op, node, op.prepare(node), Core.SCALAR)
    assert [func for func, _ in scalar.declined[:4]] == ["mote_conv_plane_s8", "mote_conv_ring_s8",
                                                         "mote_conv_pointwise_s8", "mote_conv_blocked_s8"]
    assert "mote_conv_row_pairs_s8" not in dict(scalar.declined)  # a record for one-pixel 1x1 layers only
    assert "mote_conv_vnni_s8" not in dict(scalar.declined)  # it does not serve a scalar core
