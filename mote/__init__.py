"""mote: compile quantized neural networks to bare-metal C, simulate them, explore accelerators."""

__version__ = "0.1.0"
