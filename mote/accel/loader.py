"""Finding an accelerator: a built-in by name, or a user's class as `module:Class`, each optionally
followed by `:key=value,...` settings for its Config."""

from __future__ import annotations

import importlib
import re
from typing import Any

from mote.accel.interface import Accelerator
from mote.accel.settings import parse_config
from mote.errors import MoteError

BUILTINS = {"qvanilla": "mote.accel.qvanilla:QVanilla", "dla": "mote.accel.dla.accelerator:Dla",
            "qvanilla-rtl": "mote.accel.rtl.qvanilla:QVanillaRtl"}
_MODULE = re.compile(r"[A-Za-z_]\w*(\.[A-Za-z_]\w*)*")
_CLASS = re.compile(r"[A-Za-z_]\w*")


def _import(module_name: str, path: str) -> Any:
    """The module, or a one-line error naming the module and what went wrong importing it."""
    try:
        return importlib.import_module(module_name)
    except SyntaxError as e:
        where = f"{e.filename or module_name} line {e.lineno}" if e.lineno else (e.filename or module_name)
        raise MoteError(f"accelerator {path!r}: {where}: {e.msg}") from None
    except ImportError as e:
        raise MoteError(f"accelerator {path!r}: cannot import module {module_name!r} ({e})") from None
    except Exception as e:  # the module's own code failed while it was imported
        raise MoteError(f"accelerator {path!r}: importing {module_name!r} raised {type(e).__name__}: "
                        f"{' '.join(str(e).split())}") from None


def _load_class(path: str) -> type[Accelerator]:
    module_name, _, class_name = path.partition(":")
    if not _MODULE.fullmatch(module_name) or not _CLASS.fullmatch(class_name):
        raise MoteError(f"accelerator {path!r}: write module:Class with a Python module and class name "
                        f"(e.g. mypkg.npu:MyNpu), or a built-in: {', '.join(sorted(BUILTINS))}")
    module = _import(module_name, path)
    cls = getattr(module, class_name, None)
    if not (isinstance(cls, type) and issubclass(cls, Accelerator)):
        raise MoteError(f"accelerator {path!r}: {module_name} has no Accelerator subclass named {class_name!r}")
    return cls


def accelerator_class(spec: str) -> tuple[type[Accelerator], str]:
    """The class a spec names and the settings text that follows it."""
    parts = spec.split(":")
    if parts[0] in BUILTINS:
        return _load_class(BUILTINS[parts[0]]), ":".join(parts[1:])
    if len(parts) >= 2 and "=" not in parts[1]:
        return _load_class(f"{parts[0]}:{parts[1]}"), ":".join(parts[2:])
    raise MoteError(f"unknown accelerator {parts[0]!r}; built-in accelerators: {', '.join(sorted(BUILTINS))}, "
                    "or give your own as module:Class")


def find_accelerator(spec: str) -> Accelerator:
    """`qvanilla`, `qvanilla:timed=1`, `mypkg.npu:MyNpu` or `mypkg.npu:MyNpu:key=value`."""
    cls, settings = accelerator_class(spec)
    config = parse_config(cls.Config, settings, f"accelerator {cls.name}")
    try:
        return cls(config)
    except MoteError:
        raise
    except Exception as e:  # a user's class that fails to construct is their error, told in one line
        raise MoteError(f"accelerator {spec!r}: {cls.__name__}({config}) raised {type(e).__name__}: "
                        f"{' '.join(str(e).split())}") from None
