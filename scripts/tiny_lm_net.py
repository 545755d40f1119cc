"""The bundled tiny language model: a Llama-style decoder over UTF-8 bytes, its text and its shape.

Shared by scripts/train_tiny_lm.py (PyTorch, training) and scripts/export_tiny_lm.py (numpy, the
ONNX step graph). The architecture is the Llama one scaled down: token embedding, a stack of blocks
(RMSNorm, multi-head causal self-attention with rotary positions, RMSNorm, gated SiLU MLP), a
final RMSNorm and an untied output projection to the 256 byte logits. No biases anywhere.

The text is the English documentation shipped with CPython's standard library
(`pydoc_data.topics`, the help topics of `help()`; PSF license), so every machine with Python has
it offline. Topics are joined in sorted key order; the last 10% of the bytes are held out, the first
half of that as the validation split, the second half as the test split.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

SEED = 17


@dataclass(frozen=True)
class Config:
    vocab: int = 256        # bytes
    dim: int = 128
    layers: int = 4
    heads: int = 4
    hidden: int = 512       # the gated MLP's width
    context: int = 128      # training window; also the default maximum context of the C API
    rope_base: float = 10000.0
    norm_eps: float = 1e-5

    @property
    def head_dim(self) -> int:
        return self.dim // self.heads


CONFIG = Config()


def corpus() -> bytes:
    """The training text: every pydoc topic, sorted by key, separated by blank lines, as UTF-8."""
    from pydoc_data.topics import topics

    return "\n\n".join(topics[k].strip() for k in sorted(topics)).encode("utf-8")


def splits(data: bytes) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(train, validation, test) byte arrays: 90% / 5% / 5%, contiguous, in that order."""
    a = np.frombuffer(data, dtype=np.uint8)
    n_train = int(len(a) * 0.9)
    n_val = (len(a) - n_train) // 2
    return a[:n_train], a[n_train:n_train + n_val], a[n_train + n_val:]


def rope_tables(cfg: Config, positions: int) -> tuple[np.ndarray, np.ndarray]:
    """cos and sin, [positions, head_dim / 2], float32: the angle of pair i at position p is p * base^(-2i/d).

    Rotation pairs element i with element i + head_dim / 2 (the "rotate half" layout).
    """
    half = cfg.head_dim // 2
    inv = 1.0 / (cfg.rope_base ** (np.arange(half, dtype=np.float64) * 2.0 / cfg.head_dim))
    angles = np.arange(positions, dtype=np.float64)[:, None] * inv[None, :]
    return np.cos(angles).astype(np.float32), np.sin(angles).astype(np.float32)


def weight_names(cfg: Config) -> list[str]:
    """Every parameter, in a fixed order (the .npz the trainer writes holds exactly these)."""
    names = ["embed"]
    for i in range(cfg.layers):
        p = f"layers.{i}."
        names += [p + n for n in ("attn_norm", "wq", "wk", "wv", "wo", "mlp_norm", "w_gate", "w_up", "w_down")]
    return names + ["norm", "head"]
