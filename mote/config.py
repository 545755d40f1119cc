"""Typed `key=value,...` settings for dataclasses (core models, accelerator configurations).

A field's type annotation (int, float, bool, str) is the type its text parses to. A field may declare
more with `setting(...)`: a doc line, that it is a byte size (only then are 64K, 512KiB, 1M accepted),
the allowed values, a minimum, and the values `mote explore` tries when it sweeps the setting.
Unknown keys and invalid values are one-line errors, raised before any work starts.
"""

from __future__ import annotations

import dataclasses
import math
import re
import typing
from dataclasses import dataclass
from typing import Any, TypeVar

from mote.errors import MoteError

T = TypeVar("T")

MAX_SETTING = (1 << 32) - 1  # integer settings are sizes, counts and cycle costs of a 32-bit machine
_UNITS = {"": 1, "B": 1, "K": 1 << 10, "KB": 1 << 10, "KiB": 1 << 10, "M": 1 << 20, "MB": 1 << 20, "MiB": 1 << 20,
          "G": 1 << 30, "GB": 1 << 30, "GiB": 1 << 30}
_METADATA_KEY = "mote.setting"


def parse_size(text: str) -> int:
    """Bytes from '65536', '512KiB', '2MiB' (binary units whatever the spelling)."""
    match = re.fullmatch(r"\s*(\d+)\s*([A-Za-z]*)\s*", text)
    if not match or match.group(2) not in _UNITS:
        raise ValueError(f"{text!r} is not a size; write e.g. 512KiB, 2MiB or 65536")
    return int(match.group(1)) * _UNITS[match.group(2)]


@dataclass(frozen=True)
class _Declared:
    doc: str
    size: bool
    choices: tuple
    sweep: tuple
    minimum: int | float | None


def setting(default: Any, *, doc: str, size: bool = False, choices: tuple = (), sweep: tuple = (),
            minimum: int | float | None = None) -> Any:
    """A Config field with what the parser and `mote explore` need to know about it."""
    return dataclasses.field(default=default, metadata={_METADATA_KEY: _Declared(doc, size, tuple(choices),
                                                                                 tuple(sweep), minimum)})


@dataclass(frozen=True)
class SettingSpec:
    """One setting of a Config class: its name, type, default and what its declaration says."""

    name: str
    type: type
    default: Any
    doc: str = ""
    size: bool = False
    choices: tuple = ()
    sweep: tuple = ()
    minimum: int | float | None = None

    def describe(self) -> str:
        """What values it takes, for error messages and `--help` texts."""
        if self.choices:
            return "one of " + ", ".join(str(c) for c in self.choices)
        kind = {bool: "a boolean (1/0, true/false)", int: "an integer", float: "a number", str: "a text"}
        text = "a size in bytes (e.g. 64K, 512KiB, 1M)" if self.size else kind.get(self.type, "a text")
        return text if self.minimum is None else f"{text} of at least {self.minimum}"


def settings_of(config_cls: type) -> tuple[SettingSpec, ...]:
    """The settings a Config dataclass declares, in field order."""
    hints = typing.get_type_hints(config_cls)
    specs = []
    for f in dataclasses.fields(config_cls):
        kind = hints.get(f.name, str)
        kind = kind if kind in (bool, int, float, str) else str
        default = f.default if f.default is not dataclasses.MISSING else None
        declared = f.metadata.get(_METADATA_KEY)
        if declared is None:
            specs.append(SettingSpec(f.name, kind, default))
        else:
            specs.append(SettingSpec(f.name, kind, default, declared.doc, declared.size, declared.choices,
                                     declared.sweep, declared.minimum))
    return tuple(specs)


def _convert(spec: SettingSpec, text: str) -> Any:
    """The typed value of `text`; ValueError saying what is wrong."""
    if spec.type is bool:
        if text.lower() in ("1", "true", "yes", "on"):
            return True
        if text.lower() in ("0", "false", "no", "off"):
            return False
        raise ValueError(f"{text!r} is not a boolean (use 1/0, true/false)")
    if spec.type is int:
        if spec.size:
            value = parse_size(text)
        elif re.fullmatch(r"\s*[+-]?\d+\s*", text):
            value = int(text)
        else:
            raise ValueError(f"{text!r} is not an integer" + ("" if text.strip().isdigit() else
                                                              "; units such as K or KiB are only for sizes"))
        if abs(value) > MAX_SETTING:
            raise ValueError(f"{text!r} is too large (at most {MAX_SETTING:,})")
        return value
    if spec.type is float:
        try:
            value = float(text)
        except ValueError:
            raise ValueError(f"{text!r} is not a number") from None
        if not math.isfinite(value):
            raise ValueError(f"{text!r} is not a finite number")
        return value
    return text


def check_value(spec: SettingSpec, value: Any, where: str) -> None:
    """A one-line error if `value` is not one of the choices or is below the minimum."""
    if spec.choices and value not in spec.choices:
        raise MoteError(f"{where}: {spec.name}={value} is not allowed; use {spec.describe()}")
    if spec.minimum is not None and value < spec.minimum:
        raise MoteError(f"{where}: {spec.name}={value} is too small; use {spec.describe()}")


def parse_value(spec: SettingSpec, text: str, where: str) -> Any:
    """The typed value of one setting's text, or a one-line MoteError naming `where` and what is allowed."""
    try:
        value = _convert(spec, text.strip())
    except ValueError as e:
        raise MoteError(f"{where}: {spec.name}: {e}; use {spec.describe()}") from None
    check_value(spec, value, where)
    return value


def check_config(config: Any, where: str) -> None:
    """Every declared choice and minimum holds (for Configs built in code, from their __post_init__)."""
    for spec in settings_of(type(config)):
        check_value(spec, getattr(config, spec.name), where)


def parse_config(config_cls: type[T], text: str, where: str) -> T:
    """`config_cls` (a dataclass with defaults) with the fields named in 'key=value,key=value' replaced."""
    specs = {s.name: s for s in settings_of(config_cls)}
    values: dict[str, Any] = {}
    for item in filter(None, (part.strip() for part in text.split(","))):
        key, sep, value = item.partition("=")
        key = key.strip()
        if not sep or key not in specs:
            raise MoteError(f"{where}: unknown setting {item!r}; settings are {', '.join(specs) or 'none'} "
                            "(key=value,...)")
        values[key] = parse_value(specs[key], value, where)
    try:
        return config_cls(**values)
    except MoteError:
        raise
    except (ValueError, TypeError, ArithmeticError) as e:  # a config's own checks (__post_init__)
        raise MoteError(f"{where}: {' '.join(str(e).split())}") from None


parse_settings = parse_config  # the name the CLI's --core and older callers use
