"""TFLite custom operators: an operator whose code is CUSTOM is named by its custom code and carries its options
as a flexbuffer (custom_options), which is read here into the attributes of the mote op it maps to.

The bytes are untrusted: the flexbuffer is read key by key with the `flatbuffers` package's reader (a lookup
is a binary search over the map's sorted keys, as TFLite Micro's reader does), and a buffer that is no map, a
missing key or a value of the wrong kind is a one-line ModelFileError. The ranges of the values are the op's
own check (mote/ops/<op>.py)."""

from __future__ import annotations

from typing import Any

import flatbuffers.flexbuffers as flexbuffers
import numpy as np

from mote.errors import ModelFileError

MAX_OPTION_BYTES = 1 << 16  # far above any real map of scalars; a larger blob is refused unread

_INT, _FLOAT, _BOOL = "int", "float", "bool"
# Per custom code: (key, kind, default or None when required); the attribute is the key.
_DETECTION_KEYS = (("max_detections", _INT, None), ("max_classes_per_detection", _INT, None),
                   ("detections_per_class", _INT, 100), ("use_regular_nms", _BOOL, False),
                   ("nms_score_threshold", _FLOAT, None), ("nms_iou_threshold", _FLOAT, None),
                   ("num_classes", _INT, None), ("y_scale", _FLOAT, None), ("x_scale", _FLOAT, None),
                   ("h_scale", _FLOAT, None), ("w_scale", _FLOAT, None))
CUSTOM_KEYS: dict[str, tuple[tuple[str, str, Any], ...]] = {"TFLite_Detection_PostProcess": _DETECTION_KEYS}


def custom_attrs(custom_code: str, options: Any, where: str) -> dict[str, Any]:
    """The attributes of custom operator `custom_code` from its raw custom options (bytes, a uint8 array or
    None); floats are rounded to float32, as TFLite Micro keeps them."""
    data = b"" if options is None else np.asarray(options, np.uint8).tobytes()
    if not data:
        raise ModelFileError(f"{where}: the custom operator has no options (a flexbuffer map); the file is damaged")
    if len(data) > MAX_OPTION_BYTES:
        raise ModelFileError(f"{where}: the custom options take {len(data)} bytes (at most {MAX_OPTION_BYTES}); "
                             "the file is damaged")
    try:
        root = flexbuffers.GetRoot(bytearray(data))
        if not root.IsMap:
            raise ValueError("not a map")
        table = root.AsMap
    except Exception:  # the reader raises many kinds on damaged bytes
        raise ModelFileError(f"{where}: the custom options are not a flexbuffer map; the file is damaged") from None
    attrs: dict[str, Any] = {}
    for key, kind, default in CUSTOM_KEYS[custom_code]:
        value = _read(table, key, kind, where)
        if value is None:
            if default is None:
                raise ModelFileError(f"{where}: the custom options lack {key!r}; re-export the model with it")
            value = default
        attrs[key] = value
    return attrs


def _read(table: Any, key: str, kind: str, where: str) -> Any:
    """The value of `key` as `kind` (an int is taken where a float is expected), None when absent or null."""
    try:
        try:
            ref = table[key]
        except KeyError:
            return None
        if ref.IsNull:
            return None
        if kind == _BOOL and ref.IsBool:
            return bool(ref.AsBool)
        if ref.IsInt:
            value = int(ref.AsInt)
            return value != 0 if kind == _BOOL else (_float32(value) if kind == _FLOAT else value)
        if ref.IsFloat and kind == _FLOAT:
            return _float32(ref.AsFloat)
    except ModelFileError:
        raise
    except Exception:
        raise ModelFileError(f"{where}: the custom option {key!r} cannot be read; the file is damaged") from None
    raise ModelFileError(f"{where}: the custom option {key!r} is not {'an' if kind == _INT else 'a'} {kind}; "
                         "the file is damaged")


def _float32(value: float) -> float:
    with np.errstate(over="ignore"):  # a value beyond float32 becomes an infinity, which the op's check refuses
        return float(np.float32(value))
