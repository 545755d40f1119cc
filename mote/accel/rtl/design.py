"""A user's design files bound to an accelerator's Python description (`mote accel bench`).

The Python side (registers, patterns, lower, execute, cost) says what runs on the accelerator and with
which register values; the design files say how it behaves on the virtual platform. `with_design`
gives an accelerator instance the design to simulate, whatever its class declares. `package_spec` finds
the Python side of a design in the layout `mote accel new NAME --rtl` writes (NAME/rtl/NAME.sv beside
NAME/__init__.py), so the skeleton's design needs nothing else.
"""

from __future__ import annotations

import dataclasses
import importlib
import importlib.util
import re
import sys
from pathlib import Path

from mote.accel.interface import Accelerator
from mote.accel.rtl.accelerator import RtlAccelerator
from mote.accel.rtl.tools import RtlError
from mote.errors import MoteError

SUFFIXES = (".sv", ".v", ".svh", ".vh")
_COMMENTS = re.compile(r"//[^\n]*|/\*.*?\*/", re.S)


def check_design_files(paths: list[Path]) -> None:
    """Each design file exists, is a regular file and is Verilog or SystemVerilog by its name."""
    for path in paths:
        if not path.exists():
            raise RtlError(f"design file {path} does not exist; give the accelerator's Verilog or SystemVerilog "
                           "files (e.g. my_npu/rtl/my_npu.sv from `mote accel new my_npu --rtl`)")
        if not path.is_file():
            raise RtlError(f"design file {path} is not a regular file; give .sv or .v files")
        if path.suffix.lower() not in SUFFIXES:
            raise RtlError(f"design file {path} is not Verilog or SystemVerilog (its name should end in "
                           f"{', '.join(SUFFIXES)})")


def file_spec(spec: str) -> str:
    """`--accel path/to/npu.py:Class[:settings]` as `npu:Class[:settings]`, the file's directory put on
    sys.path; any other spec as it is."""
    head, sep, rest = spec.partition(":")
    if not head.endswith(".py"):
        return spec
    path = Path(head)
    if not path.is_file():
        raise MoteError(f"--accel {spec!r}: {head} is not a file; give the Python file that declares the "
                        "accelerator's class, as FILE.py:Class")
    if not path.stem.isidentifier():
        raise MoteError(f"--accel {spec!r}: {path.name} is not named as a Python module; rename it")
    folder = str(path.resolve().parent)
    if folder not in sys.path:
        sys.path.insert(0, folder)
    found = importlib.util.find_spec(path.stem)
    if found is None or found.origin is None or Path(found.origin).resolve() != path.resolve():
        raise MoteError(f"--accel {spec!r}: Python imports another module named {path.stem!r}; rename {path.name}")
    return path.stem + sep + rest


def package_of(design: Path) -> Path | None:
    """The accelerator package that holds `design` as package/rtl/FILE (the layout of `mote accel new NAME
    --rtl`), its parent directory put on sys.path so that `--accel package:Class` imports it; None if none."""
    package = design.resolve().parent.parent
    if design.resolve().parent.name != "rtl" or not (package / "__init__.py").is_file():
        return None
    if package.name.isidentifier() and str(package.parent) not in sys.path:
        sys.path.insert(0, str(package.parent))
    return package


def package_spec(design: Path) -> str:
    """`package:Class` of the accelerator package that holds `design` (package_of); a MoteError when the design
    is not in such a package or the package does not name one accelerator."""
    package = package_of(design)
    if package is None:
        raise MoteError(f"which accelerator does {design} implement? It is not in a package written by "
                        "`mote accel new NAME --rtl` (NAME/rtl/FILE.sv beside NAME/__init__.py): give its Python "
                        "description with --accel module:Class (or a built-in, e.g. qvanilla-rtl)")
    if not package.name.isidentifier():
        raise MoteError(f"the accelerator package {package} is not named as a Python module; rename it or give "
                        "--accel module:Class")
    try:
        module = importlib.import_module(package.name)
    except Exception as e:  # the user's package failed to import: their error, in one line
        raise MoteError(f"accelerator package {package}: importing it raised {type(e).__name__}: "
                        f"{' '.join(str(e).split())}") from None
    if getattr(module, "__file__", None) is None or Path(module.__file__).resolve().parent != package:
        raise MoteError(f"the module {package.name!r} that Python imports is not {package}; rename the package "
                        "or give --accel module:Class")
    found = sorted({cls.__name__ for cls in vars(module).values()
                    if isinstance(cls, type) and issubclass(cls, Accelerator) and cls is not Accelerator
                    and cls.__module__.split(".")[0] == package.name})
    if len(found) != 1:
        what = "no Accelerator subclass" if not found else f"several accelerators ({', '.join(found)})"
        raise MoteError(f"accelerator package {package} exports {what}; give --accel {package.name}:Class")
    return f"{package.name}:{found[0]}"


def top_module(sources: list[Path], preferred: str = "") -> str:
    """The top module to simulate: `preferred` (the class's `rtl_top`) when the files declare it, else the
    module named like the first file, else the only module they declare."""
    declared: list[str] = []
    for path in sources:
        text = _COMMENTS.sub("", path.read_text(errors="replace"))  # no comments
        declared += re.findall(r"^\s*module\s+(?:automatic\s+|static\s+)?([A-Za-z_][A-Za-z0-9_$]*)", text, re.M)
    for name in (preferred, Path(sources[0]).stem):
        if name and name in declared:
            return name
    if len(set(declared)) == 1:
        return declared[0]
    found = ", ".join(dict.fromkeys(declared)) or "none"
    raise RtlError(f"which module of {sources[0].name} is the accelerator's top? Give --top MODULE (modules "
                   f"found: {found})")


def with_design(accel: Accelerator, sources: list[Path], top: str | None = None) -> Accelerator:
    """`accel` simulated as `sources` (top module `top`, else found by top_module), timed so that its cycles
    count in the run's total."""
    if dataclasses.is_dataclass(accel.config) and any(f.name == "timed" for f in dataclasses.fields(accel.config)):
        accel.config = dataclasses.replace(accel.config, timed=True)
    accel.rtl_sources = tuple(Path(p).resolve() for p in sources)  # type: ignore[attr-defined]
    accel.rtl_top = top or top_module(sources, getattr(accel, "rtl_top", ""))  # type: ignore[attr-defined]
    if not hasattr(accel, "rtl_cycle_limit"):
        accel.rtl_cycle_limit = RtlAccelerator.rtl_cycle_limit  # type: ignore[attr-defined]
    return accel
