"""Typed `key=value,...` settings for dataclasses (core models, accelerator configurations)."""

from __future__ import annotations

import dataclasses
import math
import re
import typing
from typing import Any, TypeVar

from mote.errors import MoteError

T = TypeVar("T")

MAX_SETTING = (1 << 32) - 1  # integer settings are sizes, counts and cycle costs of a 32-bit machine
_UNITS = {"": 1, "B": 1, "K": 1 << 10, "KB": 1 << 10, "KiB": 1 << 10, "M": 1 << 20, "MB": 1 << 20, "MiB": 1 << 20,
          "G": 1 << 30, "GB": 1 << 30, "GiB": 1 << 30}


def parse_size(text: str) -> int:
    """Bytes from '65536', '512KiB', '2MiB' (binary units whatever the spelling)."""
    match = re.fullmatch(r"\s*(\d+)\s*([A-Za-z]*)\s*", text)
    if not match or match.group(2) not in _UNITS:
        raise ValueError(f"{text!r} is not a size; write e.g. 512KiB, 2MiB or 65536")
    return int(match.group(1)) * _UNITS[match.group(2)]


def _convert(text: str, kind: Any) -> Any:
    if kind is bool:
        if text.lower() in ("1", "true", "yes", "on"):
            return True
        if text.lower() in ("0", "false", "no", "off"):
            return False
        raise ValueError(f"{text!r} is not a boolean (use 1/0, true/false)")
    if kind is int:
        value = parse_size(text)
        if value > MAX_SETTING:
            raise ValueError(f"{text!r} is too large (at most {MAX_SETTING:,})")
        return value
    if kind is float:
        value = float(text)
        if not math.isfinite(value):
            raise ValueError(f"{text!r} is not a finite number")
        return value
    return text


def parse_settings(cls: type[T], text: str, what: str) -> T:
    """`cls` (a dataclass with defaults) with the fields named in 'key=value,key=value' replaced."""
    hints = typing.get_type_hints(cls)
    names = [f.name for f in dataclasses.fields(cls)]  # type: ignore[arg-type]
    values: dict[str, Any] = {}
    for item in filter(None, (part.strip() for part in text.split(","))):
        key, sep, value = item.partition("=")
        key = key.strip()
        if not sep or key not in names:
            raise MoteError(f"{what}: unknown setting {item!r}; settings are {', '.join(names)} (key=value,...)")
        try:
            values[key] = _convert(value.strip(), hints[key])
        except ValueError as e:
            raise MoteError(f"{what}: {key}: {e}") from None
    try:
        return cls(**values)
    except MoteError:
        raise
    except (ValueError, TypeError, ArithmeticError) as e:  # a config's own checks (__post_init__)
        raise MoteError(f"{what}: {' '.join(str(e).split())}") from None
