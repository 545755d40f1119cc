"""Train the bundled tiny language model (scripts/tiny_lm_net.py) with PyTorch on one CPU thread.

Usage: python scripts/train_tiny_lm.py [--steps N] [--out DIR]

Needs the `train` extra (torch). Seeded and deterministic: one thread, deterministic algorithms,
batches drawn from a seeded numpy generator. Writes DIR/weights.npz (float32, the names of
tiny_lm_net.weight_names; linear weights as [in, out]) and DIR/metrics.json (the validation and
test losses in nats per byte, the step count and the wall time). Then run
scripts/export_tiny_lm.py to write the ONNX step graph and the quantized bundled model.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "scripts"))
import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402
from tiny_lm_net import CONFIG, SEED, Config, corpus, rope_tables, splits, weight_names  # noqa: E402


def rms_norm(x: torch.Tensor, w: torch.Tensor, eps: float) -> torch.Tensor:
    return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps) * w


def rotate(x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor) -> torch.Tensor:
    """x: [batch, heads, time, head_dim]; pairs (i, i + head_dim / 2) turned by the position's angle."""
    half = x.shape[-1] // 2
    a, b = x[..., :half], x[..., half:]
    return torch.cat([a * cos - b * sin, a * sin + b * cos], dim=-1)


class TinyLM(torch.nn.Module):
    def __init__(self, cfg: Config) -> None:
        super().__init__()
        self.cfg = cfg
        gen = torch.Generator().manual_seed(SEED)

        def linear(n_in: int, n_out: int, scale: float = 1.0) -> torch.nn.Parameter:
            return torch.nn.Parameter(torch.randn(n_in, n_out, generator=gen) * (scale / math.sqrt(n_in)))

        d, h = cfg.dim, cfg.hidden
        out_scale = 1.0 / math.sqrt(2 * cfg.layers)
        p: dict[str, torch.nn.Parameter] = {"embed": torch.nn.Parameter(torch.randn(cfg.vocab, d, generator=gen))}
        for i in range(cfg.layers):
            q = f"layers.{i}."
            p[q + "attn_norm"] = torch.nn.Parameter(torch.ones(d))
            p[q + "wq"], p[q + "wk"], p[q + "wv"] = linear(d, d), linear(d, d), linear(d, d)
            p[q + "wo"] = linear(d, d, out_scale)
            p[q + "mlp_norm"] = torch.nn.Parameter(torch.ones(d))
            p[q + "w_gate"], p[q + "w_up"] = linear(d, h), linear(d, h)
            p[q + "w_down"] = linear(h, d, out_scale)
        p["norm"] = torch.nn.Parameter(torch.ones(d))
        p["head"] = linear(d, cfg.vocab)
        assert list(p) == weight_names(cfg)
        self.p = torch.nn.ParameterDict({k.replace(".", "_"): v for k, v in p.items()})
        cos, sin = rope_tables(cfg, cfg.context)
        self.register_buffer("cos", torch.from_numpy(cos))
        self.register_buffer("sin", torch.from_numpy(sin))

    def w(self, name: str) -> torch.Tensor:
        return self.p[name.replace(".", "_")]

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        cfg = self.cfg
        b, t = tokens.shape
        x = self.w("embed")[tokens]
        cos, sin = self.cos[:t], self.sin[:t]
        for i in range(cfg.layers):
            q = f"layers.{i}."
            hn = rms_norm(x, self.w(q + "attn_norm"), cfg.norm_eps)

            def heads(m: torch.Tensor) -> torch.Tensor:
                return m.view(b, t, cfg.heads, cfg.head_dim).transpose(1, 2)

            qh = rotate(heads(hn @ self.w(q + "wq")), cos, sin)
            kh = rotate(heads(hn @ self.w(q + "wk")), cos, sin)
            vh = heads(hn @ self.w(q + "wv"))
            att = F.scaled_dot_product_attention(qh, kh, vh, is_causal=True)
            x = x + att.transpose(1, 2).reshape(b, t, cfg.dim) @ self.w(q + "wo")
            hn = rms_norm(x, self.w(q + "mlp_norm"), cfg.norm_eps)
            x = x + (F.silu(hn @ self.w(q + "w_gate")) * (hn @ self.w(q + "w_up"))) @ self.w(q + "w_down")
        return rms_norm(x, self.w("norm"), cfg.norm_eps) @ self.w("head")


def evaluate(model: TinyLM, data: np.ndarray, context: int) -> float:
    """Mean next-byte cross entropy (nats) over every full non-overlapping window of `data`."""
    n = (len(data) - 1) // context
    xs = torch.from_numpy(data[: n * context].astype(np.int64).reshape(n, context))
    ys = torch.from_numpy(data[1: n * context + 1].astype(np.int64).reshape(n, context))
    total = 0.0
    with torch.no_grad():
        for i in range(0, n, 64):
            logits = model(xs[i:i + 64])
            total += F.cross_entropy(logits.reshape(-1, 256), ys[i:i + 64].reshape(-1), reduction="sum").item()
    return total / (n * context)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", type=int, default=700)  # about 7 epochs: longer overfits (2000: validation 1.64)
    ap.add_argument("--batch", type=int, default=32)
    ap.add_argument("--lr", type=float, default=3e-3)
    ap.add_argument("--out", type=Path, default=REPO / "build" / "tiny_lm")
    args = ap.parse_args()

    torch.set_num_threads(1)
    torch.manual_seed(SEED)
    torch.use_deterministic_algorithms(True)
    cfg = CONFIG
    train, val, test = splits(corpus())
    rng = np.random.default_rng(SEED)
    model = TinyLM(cfg)
    n_params = sum(p.numel() for p in model.parameters())
    print(f"{n_params:,} parameters; {len(train):,} / {len(val):,} / {len(test):,} bytes train / val / test")
    decay = [p for n, p in model.p.items() if p.ndim == 2]
    rest = [p for n, p in model.p.items() if p.ndim != 2]
    opt = torch.optim.AdamW([{"params": decay, "weight_decay": 0.1}, {"params": rest, "weight_decay": 0.0}],
                            lr=args.lr, betas=(0.9, 0.95))
    warmup = max(1, args.steps // 30)
    start = time.time()
    for step in range(args.steps):
        lr = args.lr * min(1.0, (step + 1) / warmup) * 0.5 * (1 + math.cos(math.pi * step / args.steps))
        for g in opt.param_groups:
            g["lr"] = max(lr, args.lr * 0.02)
        idx = rng.integers(0, len(train) - cfg.context - 1, size=args.batch)
        batch = np.stack([train[i:i + cfg.context + 1] for i in idx]).astype(np.int64)
        x, y = torch.from_numpy(batch[:, :-1]), torch.from_numpy(batch[:, 1:])
        loss = F.cross_entropy(model(x).reshape(-1, cfg.vocab), y.reshape(-1))
        opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        if step % 100 == 0 or step == args.steps - 1:
            print(f"step {step:5d}  loss {loss.item():.4f}  lr {lr:.2e}  {time.time() - start:7.1f} s", flush=True)
    model.eval()
    metrics = {"parameters": n_params, "steps": args.steps, "batch": args.batch, "context": cfg.context,
               "train_seconds": round(time.time() - start, 1),
               "val_loss": round(evaluate(model, val, cfg.context), 4),
               "test_loss": round(evaluate(model, test, cfg.context), 4)}
    print(json.dumps(metrics))
    args.out.mkdir(parents=True, exist_ok=True)
    np.savez(args.out / "weights.npz", **{n: model.w(n).detach().numpy().astype(np.float32)
                                          for n in weight_names(cfg)})
    (args.out / "metrics.json").write_text(json.dumps(metrics, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
