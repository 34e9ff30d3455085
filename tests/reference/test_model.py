"""The model: seeded determinism, paged attention against a dense reference, batching,
chunked prefill, prefix sharing and speculation all produce the same greedy tokens."""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F
from prometheus_client import CollectorRegistry

from servescope.instrumentation import FinishReason, Telemetry
from servescope.reference.client.engine import Engine, RequestHandle
from servescope.reference.config import EngineConfig, ModelConfig
from servescope.reference.core.model import BatchInput, KVCache, Transformer
from servescope.reference.core.request import GenerationRequest

TINY = ModelConfig(dim=32, n_layers=2, n_heads=4, n_kv_heads=2, hidden_dim=64, max_context=128)
PROMPTS = ["The quick brown fox", "hello hello hello hello", "a", "0123456789" * 4,
           "The quick brown dog jumps"]


def generate(prompts: list[str], max_tokens: int = 16, **overrides: object
             ) -> tuple[list[list[int]], list[RequestHandle], Engine]:
    cfg = EngineConfig(**{"model": TINY, "block_size": 8, "num_blocks": 64,
                          "max_batch": 8, **overrides})  # type: ignore[arg-type]
    engine = Engine(cfg, Telemetry(registry=CollectorRegistry()))
    with engine:
        handles = [engine.submit(GenerationRequest(f"r{i}", list(p.encode()), max_tokens))
                   for i, p in enumerate(prompts)]
        outs = []
        for h in handles:
            out: list[int] = []
            while (chunk := h.get_chunk(10)) is not None:
                assert chunk
                out += chunk
                h.delivered(len(chunk))
            outs.append(out)
        assert engine.wait_idle(5)
    return outs, handles, engine


def dense_logits(model: Transformer, tokens: list[int]) -> torch.Tensor:
    """An independent dense implementation over the same weights (no cache, no paging)."""
    cfg = model.cfg
    hd, n = cfg.head_dim, len(tokens)
    pos = torch.arange(n)
    half = hd // 2
    inv = 1.0 / (cfg.rope_theta ** (torch.arange(half, dtype=torch.float64) / half))
    ang = torch.outer(pos.double(), inv)
    cos, sin = ang.cos().float(), ang.sin().float()

    def rope(x: torch.Tensor) -> torch.Tensor:  # [n, heads, hd]
        a, b = x[..., :half], x[..., half:]
        c, s = cos[:, None, :], sin[:, None, :]
        return torch.cat((a * c - b * s, a * s + b * c), dim=-1)

    def norm(x: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
        return x / torch.sqrt((x * x).mean(-1, keepdim=True) + cfg.norm_eps) * w

    with torch.no_grad():
        x = model.tok_emb.weight[torch.tensor(tokens)]
        for layer in model.layers:
            h = norm(x, layer.attn_norm.weight)
            q = rope((h @ layer.wq.weight.T).view(n, cfg.n_heads, hd))
            k = rope((h @ layer.wk.weight.T).view(n, cfg.n_kv_heads, hd))
            v = (h @ layer.wv.weight.T).view(n, cfg.n_kv_heads, hd)
            rep = cfg.n_heads // cfg.n_kv_heads
            k, v = k.repeat_interleave(rep, 1), v.repeat_interleave(rep, 1)
            scores = torch.einsum("qhd,khd->hqk", q, k) / math.sqrt(hd)
            scores = scores.masked_fill(torch.ones(n, n).triu(1).bool(), float("-inf"))
            att = torch.einsum("hqk,khd->qhd", scores.softmax(-1), v).reshape(n, -1)
            x = x + att @ layer.wo.weight.T
            h = norm(x, layer.ffn_norm.weight)
            x = x + (F.silu(h @ layer.w1.weight.T) * (h @ layer.w3.weight.T)) @ layer.w2.weight.T
        return norm(x, model.norm.weight) @ model.output.weight.T


def test_paged_attention_matches_a_dense_reference() -> None:
    model = Transformer(TINY).eval()
    cache = KVCache(TINY, num_blocks=16, block_size=4, device=torch.device("cpu"))
    tokens = list(b"paged attention reads through the block table")  # 45 tokens
    # scattered, out-of-order blocks; the prompt goes in three chunks of different sizes
    table = [9, 2, 14, 0, 7, 11, 3, 5, 12, 1, 8, 6]
    got = []
    for start, end in ((0, 10), (10, 11), (11, len(tokens))):
        batch = BatchInput.build([(tokens[start:end], start, table)], cache,
                                 torch.device("cpu"))
        got.append(model(batch, cache)[0, :end - start])
    expected = dense_logits(model, tokens)
    torch.testing.assert_close(torch.cat(got), expected, rtol=1e-4, atol=1e-4)


def test_padded_batch_rows_match_their_single_row_forward() -> None:
    model = Transformer(TINY).eval()
    rows = [(list(b"short"), [3]), (list(b"a much longer row of tokens"), [0, 5, 6, 7]),
            (list(b"mid length"), [1, 2])]
    cache = KVCache(TINY, num_blocks=8, block_size=8, device=torch.device("cpu"))
    batch = BatchInput.build([(t, 0, table) for t, table in rows], cache, torch.device("cpu"))
    together = model(batch, cache)
    for i, (tokens, _) in enumerate(rows):
        torch.testing.assert_close(together[i, :len(tokens)], dense_logits(model, tokens),
                                   rtol=1e-4, atol=1e-4)


def test_same_seed_same_tokens_other_seed_other_tokens() -> None:
    a, _, _ = generate(PROMPTS[:2])
    b, _, _ = generate(PROMPTS[:2])
    c, _, _ = generate(PROMPTS[:2], model=TINY.replace(seed=1))
    assert a == b
    assert a != c


def test_batched_decode_equals_unbatched_decode() -> None:
    batched, handles, engine = generate(PROMPTS)
    alone = [generate([p], max_batch=1)[0][0] for p in PROMPTS]
    assert batched == alone
    assert all(h.finish_reason in (FinishReason.LENGTH, FinishReason.STOP) for h in handles)
    assert engine.stats().steps < sum(len(o) for o in batched)  # steps were shared


def test_chunked_prefill_gives_the_same_tokens() -> None:
    whole, _, _ = generate(PROMPTS)
    chunked, _, _ = generate(PROMPTS, prefill_chunk=3)
    assert whole == chunked


def test_speculation_commits_exactly_the_greedy_tokens() -> None:
    plain, _, _ = generate(PROMPTS, max_tokens=40)
    spec, handles, engine = generate(PROMPTS, max_tokens=40, speculation_ngram=2,
                                     speculation_k=4)
    assert spec == plain
    stats = engine.stats()
    assert stats.proposed_tokens > 0
    assert stats.proposed_tokens != stats.committed_tokens
    assert stats.steps < generate(PROMPTS, max_tokens=40)[2].stats().steps
    # each request's recorder counted its own drafts from the step reports: they add up
    assert sum(h.recorder.summary().proposed_tokens for h in handles) == stats.proposed_tokens


def test_shared_prefix_blocks_give_the_same_tokens() -> None:
    prefix = "a shared system prompt of some length; "
    prompts = [prefix + "first", prefix + "second", prefix + "third"]
    cold = [generate([p])[0][0] for p in prompts]
    warm, _, engine = generate(prompts, max_batch=1)  # one at a time: later ones hit the cache
    assert warm == cold
    stats = engine.stats()
    assert stats.prefix_hits >= 2 * (len(prefix) // 8)
    assert stats.free_blocks == stats.total_blocks


def test_checkpoint_round_trip(tmp_path: object) -> None:
    from pathlib import Path

    path = Path(str(tmp_path)) / "model.pt"
    Transformer(TINY.replace(seed=7)).save(path)
    from_file, _, _ = generate(PROMPTS[:1], model=TINY.replace(checkpoint=str(path)))
    seeded, _, _ = generate(PROMPTS[:1], model=TINY.replace(seed=7))
    assert from_file == seeded
