"""A small Llama-style decoder over a paged KV cache (PyTorch; CUDA when present, else CPU).

RMSNorm, rotary position embeddings, grouped-query attention and a SwiGLU feed-forward, with
random weights from a fixed seed (or a local checkpoint saved by :meth:`Transformer.save`).

The KV cache is a pool of fixed-size blocks per layer. One forward call takes a padded batch
of rows; each row is a request's next few tokens (a prefill chunk, one decode token, or a
decode token plus speculative drafts). Every new token's key/value is written to the slot its
row's block table names; attention then gathers each row's context from the pool through its
block table, so rows of different lengths and shared prefix blocks need no copying.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

import torch
import torch.nn.functional as F
from torch import nn

from ..config import ModelConfig

__all__ = ["BatchInput", "KVCache", "Transformer", "pick_device"]


def pick_device(name: str) -> torch.device:
    """``auto``: the first CUDA device when one is usable, else the CPU."""
    if name == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    return torch.device(name)


class KVCache:
    """Keys and values for ``num_blocks`` blocks of ``block_size`` positions, every layer.

    One extra block (index ``num_blocks``) is scratch: padding positions write there and
    padded block-table entries point there, so the batch needs no branches.
    """

    def __init__(self, cfg: ModelConfig, num_blocks: int, block_size: int,
                 device: torch.device, dtype: torch.dtype = torch.float32) -> None:
        shape = (cfg.n_layers, num_blocks + 1, block_size, cfg.n_kv_heads, cfg.head_dim)
        self.k = torch.zeros(shape, device=device, dtype=dtype)
        self.v = torch.zeros(shape, device=device, dtype=dtype)
        self.block_size = block_size
        self.scratch_block = num_blocks


@dataclass
class BatchInput:
    """A padded batch of B rows of up to T new tokens (all tensors on the model's device)."""

    tokens: torch.Tensor  # [B, T] token ids
    positions: torch.Tensor  # [B, T] absolute positions (pads: 0)
    write_block: torch.Tensor  # [B, T] block index for each new token's KV (pads: scratch)
    write_offset: torch.Tensor  # [B, T] offset inside that block
    block_tables: torch.Tensor  # [B, M] each row's blocks in order (pads: scratch)

    @classmethod
    def build(cls, rows: list[tuple[list[int], int, list[int]]], cache: KVCache,
              device: torch.device) -> BatchInput:
        """``rows``: (new tokens, position of the first, block table) per request."""
        bs = cache.block_size
        width = max(len(tokens) for tokens, _, _ in rows)
        depth = max(len(table) for _, _, table in rows)
        tok, pos, wb, wo, tables = [], [], [], [], []
        for tokens, start, table in rows:
            pad = width - len(tokens)
            p = list(range(start, start + len(tokens)))
            tok.append(tokens + [0] * pad)
            pos.append(p + [0] * pad)
            wb.append([table[i // bs] for i in p] + [cache.scratch_block] * pad)
            wo.append([i % bs for i in p] + [0] * pad)
            tables.append(table + [cache.scratch_block] * (depth - len(table)))

        def t(x: list[list[int]]) -> torch.Tensor:
            return torch.tensor(x, dtype=torch.long, device=device)

        return cls(t(tok), t(pos), t(wb), t(wo), t(tables))


class RMSNorm(nn.Module):
    def __init__(self, dim: int, eps: float) -> None:
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(dim))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) * self.weight


def _rope_tables(cfg: ModelConfig) -> tuple[torch.Tensor, torch.Tensor]:
    half = cfg.head_dim // 2
    inv = 1.0 / (cfg.rope_theta ** (torch.arange(half, dtype=torch.float64) / half))
    angles = torch.outer(torch.arange(cfg.max_context, dtype=torch.float64), inv)
    return angles.cos().float(), angles.sin().float()


def _rotate(x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor) -> torch.Tensor:
    """Rotary embedding (half-split form). x: [B, T, heads, hd]; cos/sin: [B, T, hd/2]."""
    a, b = x.chunk(2, dim=-1)
    c, s = cos.unsqueeze(2), sin.unsqueeze(2)
    return torch.cat((a * c - b * s, a * s + b * c), dim=-1)


class Block(nn.Module):
    """One decoder layer: pre-norm GQA attention over the paged cache, then SwiGLU."""

    def __init__(self, cfg: ModelConfig, layer: int) -> None:
        super().__init__()
        hd = cfg.head_dim
        self.layer = layer
        self.n_heads, self.n_kv, self.hd = cfg.n_heads, cfg.n_kv_heads, hd
        self.attn_norm = RMSNorm(cfg.dim, cfg.norm_eps)
        self.wq = nn.Linear(cfg.dim, cfg.n_heads * hd, bias=False)
        self.wk = nn.Linear(cfg.dim, cfg.n_kv_heads * hd, bias=False)
        self.wv = nn.Linear(cfg.dim, cfg.n_kv_heads * hd, bias=False)
        self.wo = nn.Linear(cfg.n_heads * hd, cfg.dim, bias=False)
        self.ffn_norm = RMSNorm(cfg.dim, cfg.norm_eps)
        self.w1 = nn.Linear(cfg.dim, cfg.hidden_dim, bias=False)
        self.w3 = nn.Linear(cfg.dim, cfg.hidden_dim, bias=False)
        self.w2 = nn.Linear(cfg.hidden_dim, cfg.dim, bias=False)

    def forward(self, x: torch.Tensor, batch: BatchInput, cache: KVCache, cos: torch.Tensor,
                sin: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        b, t, _ = x.shape
        h = self.attn_norm(x)
        q = _rotate(self.wq(h).view(b, t, self.n_heads, self.hd), cos, sin)
        k = _rotate(self.wk(h).view(b, t, self.n_kv, self.hd), cos, sin)
        v = self.wv(h).view(b, t, self.n_kv, self.hd)
        # Write the new keys/values into their slots, then read every row's whole context
        # back through its block table (a gather from the pool).
        cache.k[self.layer, batch.write_block, batch.write_offset] = k
        cache.v[self.layer, batch.write_block, batch.write_offset] = v
        ctx_k = cache.k[self.layer][batch.block_tables].flatten(1, 2)  # [B, S, kv, hd]
        ctx_v = cache.v[self.layer][batch.block_tables].flatten(1, 2)
        groups = self.n_heads // self.n_kv
        ctx_k = ctx_k.repeat_interleave(groups, dim=2)
        ctx_v = ctx_v.repeat_interleave(groups, dim=2)
        out = F.scaled_dot_product_attention(
            q.transpose(1, 2), ctx_k.transpose(1, 2), ctx_v.transpose(1, 2),
            attn_mask=mask.unsqueeze(1))
        x = x + self.wo(out.transpose(1, 2).reshape(b, t, -1))
        h = self.ffn_norm(x)
        y: torch.Tensor = x + self.w2(F.silu(self.w1(h)) * self.w3(h))
        return y


class Transformer(nn.Module):
    """The decoder. ``forward`` returns logits for every new token of every row."""

    def __init__(self, cfg: ModelConfig) -> None:
        super().__init__()
        self.cfg = cfg
        self.tok_emb = nn.Embedding(cfg.vocab_size, cfg.dim)
        self.layers = nn.ModuleList(Block(cfg, i) for i in range(cfg.n_layers))
        self.norm = RMSNorm(cfg.dim, cfg.norm_eps)
        self.output = nn.Linear(cfg.dim, cfg.vocab_size, bias=False)
        cos, sin = _rope_tables(cfg)
        self.rope_cos: torch.Tensor
        self.rope_sin: torch.Tensor
        self.register_buffer("rope_cos", cos, persistent=False)
        self.register_buffer("rope_sin", sin, persistent=False)
        self._init_weights(cfg.seed)

    def _init_weights(self, seed: int) -> None:
        """Seeded, independent of the global RNG: same seed, same weights, same tokens."""
        gen = torch.Generator().manual_seed(seed)
        with torch.no_grad():
            for name, p in self.named_parameters():
                if name.endswith("norm.weight"):
                    continue
                fan_in = p.shape[-1]
                std = 1.0 if name == "tok_emb.weight" else 1.0 / math.sqrt(fan_in)
                p.copy_(torch.randn(p.shape, generator=gen) * std)

    @torch.inference_mode()
    def forward(self, batch: BatchInput, cache: KVCache) -> torch.Tensor:  # [B, T, V]
        cos = self.rope_cos[batch.positions]
        sin = self.rope_sin[batch.positions]
        s = batch.block_tables.shape[1] * cache.block_size
        key_pos = torch.arange(s, device=batch.positions.device)
        mask = key_pos.view(1, 1, s) <= batch.positions.unsqueeze(-1)  # [B, T, S], causal
        x = self.tok_emb(batch.tokens)
        for layer in self.layers:
            x = layer(x, batch, cache, cos, sin, mask)
        return self.output(self.norm(x))  # type: ignore[no-any-return]

    def save(self, path: str | Path) -> None:
        torch.save(self.state_dict(), path)

    @classmethod
    def load(cls, cfg: ModelConfig, path: str | Path) -> Transformer:
        model = cls(cfg)
        model.load_state_dict(torch.load(path, map_location="cpu", weights_only=True))
        return model

    @classmethod
    def from_config(cls, cfg: ModelConfig, device: torch.device) -> Transformer:
        model = cls.load(cfg, cfg.checkpoint) if cfg.checkpoint else cls(cfg)
        return model.to(device).eval()
