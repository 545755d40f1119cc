"""A library's name (`mote compile --name`): the namespace of every symbol and macro it defines, so that several
models link into one firmware.

With the name `kws`, the model's API is `kws_run`, `kws_input0_buffer`, `kws_reset`, its macros `KWS_ARENA_BYTES`,
`KWS_INPUT0_SIZE`, ..., its headers `kws.h` and `kws_weights.h` (guards `KWS_H`, `KWS_WEIGHTS_H`), its constant
arrays `kws_w0_...`. The kernel library it carries is renamed as well: every `mote_...` identifier of the
library's sources becomes `kws_mote_...` (types, functions, the accelerator driver's error pointer), so two
libraries never define one symbol twice, whatever their mote version and however a build system links them
(docs/library.md says why the kernels are not shared). The default name, `model`, keeps the kernel library's own
names: the project mote has always written.

Macros of the kernel library's headers (`MOTE_OK`, its include guards) keep their names: those headers are
private to the library's own translation units (they sit in src/mote/, which no build file exports) and the
public header includes none of them. The hooks a target defines around each layer (`MOTE_LAYER_BEGIN`,
`MOTE_LAYER_END`) are shared on purpose: one profiler serves every model of a firmware.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from mote.errors import MoteError

DEFAULT = "model"

_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
# C99's keywords and those C11 added: a name is a prefix, but `int_run` is fine while `int` alone reads badly in
# macros and messages; refused so a name is always a word of its own.
_KEYWORDS = frozenset("""auto break case char const continue default do double else enum extern float for goto if
inline int long register restrict return short signed sizeof static struct switch typedef union unsigned void
volatile while _Bool _Complex _Imaginary _Alignas _Alignof _Atomic _Generic _Noreturn _Static_assert
_Thread_local""".split())
_LIBRARY_NAME = re.compile(r"\bmote_(?=\w)")
# The model's own API as codegen writes it for the default name (mote.codegen.compile, mote.codegen.decoder).
_MODEL_SYMBOL = re.compile(r"\bmodel_(?=(?:run|reset|step|prefill|position|set_arena|"
                           r"input\d+_buffer|output\d+_buffer)\b)")
_MODEL_MACRO = re.compile(r"\bMODEL_(?=[A-Z0-9_]+\b)")
_INCLUDE_LINE = re.compile(r'^\s*#\s*include\s*"[^"]*"', re.M)


class LibraryNameError(MoteError):
    """`--name` is not a valid C identifier."""


def check_name(name: str) -> str:
    """`name` if it can prefix C identifiers: letters, digits and underscores, not starting with a digit, not a C
    keyword, not reserved (a leading underscore), at most 32 characters. Raises MoteError."""
    if not _IDENTIFIER.fullmatch(name or "") or name in _KEYWORDS or name.startswith("_") or len(name) > 32:
        raise LibraryNameError(f"--name {name!r} is not usable as a C prefix; give a C identifier of at most 32 "
                         "characters that does not start with an underscore, such as kws or vww_v2")
    return name


@dataclass(frozen=True)
class Names:
    """The names a library with the name `prefix` defines."""

    prefix: str = DEFAULT

    def __post_init__(self) -> None:
        check_name(self.prefix)

    @property
    def macro(self) -> str:
        """The macros' prefix: KWS."""
        return self.prefix.upper()

    def symbol(self, what: str) -> str:
        """A function or variable of the model: kws_run."""
        return f"{self.prefix}_{what}"

    @property
    def header(self) -> str:
        return f"{self.prefix}.h"

    @property
    def source(self) -> str:
        return f"{self.prefix}.c"

    @property
    def weights_header(self) -> str:
        return f"{self.prefix}_weights.h"

    @property
    def weights_source(self) -> str:
        return f"{self.prefix}_weights.c"

    @property
    def renames_kernels(self) -> bool:
        """Whether the kernel library's identifiers take the prefix (every name but the default)."""
        return self.prefix != DEFAULT

    def kernel(self, name: str) -> str:
        """A kernel library identifier as this library spells it: mote_conv_s8 -> kws_mote_conv_s8."""
        return f"{self.prefix}_{name}" if self.renames_kernels and name.startswith("mote_") else name

    def model_text(self, text: str) -> str:
        """The model's C as codegen writes it (model_run, MODEL_ARENA_BYTES, the MODEL_H guard) with this name."""
        if self.prefix == DEFAULT:
            return text
        return _MODEL_MACRO.sub(f"{self.macro}_", _MODEL_SYMBOL.sub(f"{self.prefix}_", text))

    def kernel_text(self, text: str) -> str:
        """C or assembly text of the kernel library with its identifiers renamed (not its #include lines: the
        files keep their names)."""
        if not self.renames_kernels:
            return text
        out, last = [], 0
        for include in _INCLUDE_LINE.finditer(text):
            out.append(_LIBRARY_NAME.sub(f"{self.prefix}_mote_", text[last:include.start()]))
            out.append(include.group(0))
            last = include.end()
        out.append(_LIBRARY_NAME.sub(f"{self.prefix}_mote_", text[last:]))
        return "".join(out)
