"""Where a library's memory goes (docs/library.md, "Memory placement"): the C that places the arena and the weights.

The arena is a static array by default. Built with MODEL_ARENA_EXTERNAL defined, the library has none: the caller
lends one with model_set_arena(memory, bytes), which refuses memory that is too small or not aligned to
MODEL_ARENA_ALIGN bytes (8 unless the build says otherwise). MODEL_ARENA_SECTION and MODEL_WEIGHTS_SECTION are
attributes put on the static arena and on every constant array (say `__attribute__((section(".sram2")))`);
MODEL_ARENA_ALIGN and MODEL_WEIGHTS_ALIGN align them further. Each falls back to its MOTE_ twin (MOTE_ARENA_SECTION,
...), which a firmware defines once for every library it links; both are empty by default, so the default library
is the one mote has always written. The MODEL_ names are written for the default name and renamed with the rest
(mote.codegen.naming): KWS_ARENA_SECTION for `--name kws`.
"""

from __future__ import annotations


def _fallback(macro: str, shared: str) -> list[str]:
    """MODEL_<macro> from MOTE_<shared> when only that one is defined."""
    return [f"#if !defined(MODEL_{macro}) && defined(MOTE_{shared})", f"#define MODEL_{macro} MOTE_{shared}", "#endif"]


def _aligned(what: str) -> list[str]:
    """MODEL_<what>_ALIGNED: the alignment attribute when MODEL_<what>_ALIGN is set (GCC and Clang syntax)."""
    return [f"#ifdef MODEL_{what}_ALIGN",
            f"#define MODEL_{what}_ALIGNED __attribute__((aligned(MODEL_{what}_ALIGN)))",
            "#else", f"#define MODEL_{what}_ALIGNED", "#endif"]


def arena_lines(size: int) -> list[str]:
    """The arena's definition in model.c and the ARENA(offset) macro; model_set_arena under MODEL_ARENA_EXTERNAL."""
    return [
        "/* Memory placement (docs/library.md): MODEL_ARENA_SECTION, an attribute for the static arena (default none);",
        " * MODEL_ARENA_ALIGN, its alignment in bytes; MODEL_ARENA_EXTERNAL: no static arena, the caller lends one",
        " * with model_set_arena(). Each falls back to the MOTE_ macro of the same meaning. */",
        *_fallback("ARENA_SECTION", "ARENA_SECTION"), "#ifndef MODEL_ARENA_SECTION", "#define MODEL_ARENA_SECTION",
        "#endif", *_fallback("ARENA_ALIGN", "ARENA_ALIGN"), *_aligned("ARENA"),
        "#ifndef MODEL_ARENA_ALIGN", "#define MODEL_ARENA_ALIGN 8", "#endif",
        "#ifdef MODEL_ARENA_EXTERNAL",
        "static int8_t *arena_base; /* the caller's, from model_set_arena */",
        "#define ARENA(offset) (arena_base + (offset))",
        "int model_set_arena(void *memory, size_t bytes) {",
        "  if (memory == NULL || bytes < MODEL_ARENA_BYTES || (uintptr_t)memory % MODEL_ARENA_ALIGN != 0) "
        "return MOTE_ERROR;",
        "  arena_base = (int8_t *)memory;", "  return MOTE_OK;", "}",
        "#else",
        "static union {", f"  int8_t bytes[{max(size, 1)}];", "  int64_t align;",
        "} arena MODEL_ARENA_SECTION MODEL_ARENA_ALIGNED;",
        "#define ARENA(offset) (arena.bytes + (offset))",
        "#endif"]


def run_guard() -> list[str]:
    """model_run's first lines: without an arena lent, it fails instead of writing through NULL."""
    return ["#ifdef MODEL_ARENA_EXTERNAL", "  if (arena_base == NULL) return MOTE_ERROR;", "#endif"]


def weights_lines() -> list[str]:
    """weights.c's MODEL_WEIGHTS_PLACE: the section and alignment attributes of every constant array."""
    return ["/* Memory placement (docs/library.md): MODEL_WEIGHTS_SECTION, an attribute for every array (default:",
            " * none); MODEL_WEIGHTS_ALIGN, their alignment in bytes. Each falls back to its MOTE_ twin. */",
            *_fallback("WEIGHTS_SECTION", "WEIGHTS_SECTION"), "#ifndef MODEL_WEIGHTS_SECTION",
            "#define MODEL_WEIGHTS_SECTION", "#endif", *_fallback("WEIGHTS_ALIGN", "WEIGHTS_ALIGN"),
            *_aligned("WEIGHTS"), ""]


def header_lines() -> list[str]:
    """The public header's declaration of model_set_arena."""
    return ["/* Built with MODEL_ARENA_EXTERNAL defined, the library has no static arena: lend it MODEL_ARENA_BYTES",
            " * bytes aligned to MODEL_ARENA_ALIGN (8 by default) before anything else. Returns 0, or nonzero (and",
            " * keeps the last arena) when memory is NULL, too small or misaligned. Not defined otherwise. */",
            "int model_set_arena(void *memory, size_t bytes);", ""]
