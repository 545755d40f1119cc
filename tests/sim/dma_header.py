"""mote_dma.h as hand-written test firmware includes it: pasted in (the firmware build compiles the files it is
given, and the library's headers are not on its include path), with the mote_libc.h it includes."""

from __future__ import annotations

from importlib import resources


def paste_dma_header(main: str) -> str:
    runtime = resources.files("mote.runtime")
    header = runtime.joinpath("mote_dma.h").read_text()
    header = header.replace('#include "mote_libc.h"', runtime.joinpath("mote_libc.h").read_text())
    return main.replace('#include "mote_dma.h"', header)
