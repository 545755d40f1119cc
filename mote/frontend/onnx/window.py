"""ONNX window geometry (Conv and pooling): auto_pad, pads, strides, dilations and ceil_mode resolved
into explicit pads, and recognised as TFLite-style SAME or VALID padding where that is exact."""

from __future__ import annotations

from dataclasses import dataclass

from mote.errors import ModelFileError, UnsupportedError
from mote.ints import ceil_div
from mote.ops.common import out_size_and_pad


@dataclass(frozen=True)
class Window:
    """2-D window geometry in ONNX terms, resolved: explicit pads (top, left, bottom, right)."""

    kernel: tuple[int, int]
    stride: tuple[int, int]
    dilation: tuple[int, int]
    pads: tuple[int, int, int, int]
    out: tuple[int, int]


def window(attrs: dict, in_hw: tuple[int, int], kernel: tuple[int, int], what: str) -> Window:
    """ONNX Conv / pooling geometry: auto_pad, pads, strides, dilations, ceil_mode."""
    stride = tuple(attrs.get("strides", (1, 1)))
    dilation = tuple(attrs.get("dilations", (1, 1)))
    if len(stride) != 2 or len(dilation) != 2 or len(kernel) != 2:
        raise UnsupportedError(f"{what}: only 2-D windows are supported (kernel {list(kernel)}, strides "
                               f"{list(stride)}, dilations {list(dilation)})")
    if min(*stride, *dilation, *kernel) < 1:
        raise ModelFileError(f"{what}: kernel {list(kernel)}, strides {list(stride)} and dilations {list(dilation)} "
                             "must be at least 1")
    if "pads" in attrs and len(attrs["pads"]) != 4:
        raise ModelFileError(f"{what}: pads {list(attrs['pads'])} must have 4 values for a 2-D window")
    auto = attrs.get("auto_pad", "NOTSET")
    auto = auto.decode() if isinstance(auto, bytes) else auto
    pads, out = [0, 0, 0, 0], [0, 0]
    for i in range(2):
        eff = (kernel[i] - 1) * dilation[i] + 1
        if auto in ("SAME_UPPER", "SAME_LOWER"):
            out[i] = ceil_div(in_hw[i], stride[i])
            total = max((out[i] - 1) * stride[i] + eff - in_hw[i], 0)
            begin = total // 2 if auto == "SAME_UPPER" else total - total // 2
            pads[i], pads[i + 2] = begin, total - begin
        elif auto == "VALID":
            out[i] = (in_hw[i] - eff) // stride[i] + 1
        elif auto == "NOTSET":
            given = list(attrs.get("pads", (0, 0, 0, 0)))
            pads[i], pads[i + 2] = int(given[i]), int(given[i + 2])
            span = in_hw[i] + pads[i] + pads[i + 2] - eff
            out[i] = (ceil_div(span, stride[i]) if attrs.get("ceil_mode", 0) else span // stride[i]) + 1
            if attrs.get("ceil_mode", 0) and (out[i] - 1) * stride[i] >= in_hw[i] + pads[i]:
                out[i] -= 1  # the last window would start in the end padding: ONNX drops it
            extra = (out[i] - 1) * stride[i] + eff - (in_hw[i] + pads[i] + pads[i + 2])
            pads[i + 2] += max(extra, 0)  # ceil_mode: windows run past the end padding
        else:
            raise UnsupportedError(f"{what}: auto_pad {auto!r} is not supported")
    if min(pads) < 0 or min(out) < 1:
        raise UnsupportedError(f"{what}: pads {pads} give an empty or negative window")
    return Window(kernel, stride, dilation, tuple(pads), tuple(out))


def conv_group(attrs: dict, weights_shape: tuple[int, ...], channels: int, what: str) -> int:
    """The Conv's `group`, checked against OIHW weights (I per group) and the input's channel count."""
    oc, ic_g = weights_shape[:2]
    group = int(attrs.get("group", 1))
    if ic_g * group != channels or oc % group:
        raise UnsupportedError(f"{what}: weights {list(weights_shape)} and group {group} do not fit {channels} "
                               "input channels")
    return group


def attrs_2d(attrs: dict) -> dict:
    """1-D window attributes as 2-D ones with height 1."""
    out = {k: ([1, *v] if k in ("strides", "dilations", "kernel_shape") else v) for k, v in attrs.items()}
    if "pads" in attrs:
        out["pads"] = [0, attrs["pads"][0], 0, attrs["pads"][1]]
    return out


def tflite_padding(win: Window, in_hw: tuple[int, int]) -> str | None:
    """'VALID' or 'SAME' if mote's TFLite-style padding gives exactly these windows, else None."""
    if win.pads == (0, 0, 0, 0):
        valid = [out_size_and_pad(in_hw[i], win.kernel[i], win.stride[i], win.dilation[i], "VALID")[0]
                 for i in range(2)]
        if tuple(valid) == win.out:
            return "VALID"
    same = [out_size_and_pad(in_hw[i], win.kernel[i], win.stride[i], win.dilation[i], "SAME") for i in range(2)]
    if tuple(o for o, _ in same) == win.out and (win.pads[0], win.pads[1]) == tuple(p for _, p in same):
        return "SAME"
    return None
