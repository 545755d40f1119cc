"""Finding an accelerator: a built-in by name, or a user's class as `module:Class`, each optionally
followed by `:key=value,...` settings for its Config."""

from __future__ import annotations

import importlib

from mote.accel.interface import Accelerator
from mote.config import parse_settings
from mote.errors import MoteError

BUILTINS = {"qvanilla": "mote.accel.qvanilla:QVanilla", "dla": "mote.accel.dla.accelerator:Dla"}


def _load_class(path: str) -> type[Accelerator]:
    module_name, _, class_name = path.partition(":")
    try:
        module = importlib.import_module(module_name)
    except ImportError as e:
        raise MoteError(f"accelerator {path!r}: cannot import module {module_name!r} ({e})") from None
    cls = getattr(module, class_name, None)
    if not (isinstance(cls, type) and issubclass(cls, Accelerator)):
        raise MoteError(f"accelerator {path!r}: {module_name} has no Accelerator subclass named {class_name!r}")
    return cls


def find_accelerator(spec: str) -> Accelerator:
    """`qvanilla`, `qvanilla:timed=1`, `mypkg.npu:MyNpu` or `mypkg.npu:MyNpu:key=value`."""
    parts = spec.split(":")
    if parts[0] in BUILTINS:
        cls, settings = _load_class(BUILTINS[parts[0]]), ":".join(parts[1:])
    elif len(parts) >= 2 and "=" not in parts[1]:
        cls, settings = _load_class(f"{parts[0]}:{parts[1]}"), ":".join(parts[2:])
    else:
        raise MoteError(f"unknown accelerator {parts[0]!r}; built-in accelerators: {', '.join(sorted(BUILTINS))}, "
                        "or give your own as module:Class")
    config = parse_settings(cls.Config, settings, f"accelerator {cls.name}")
    return cls(config)
