"""The KV manager: which KV blocks each running request holds, apart from the scheduler.

Blocks come from the paged :class:`BlockPool` on demand. Admission needs the blocks of the
tokens known so far, minus the full blocks the prefix index already holds for the same
content (shared, found by chained hash), with a reserve left free for the running requests to
grow into; a step that crosses a block boundary takes one more; a preempted request gives all
of its blocks back and recomputes. Which request to preempt is the scheduler's policy; the
block arithmetic, the prefix index and its counters are here.
"""

from __future__ import annotations

from ..config import EngineConfig
from .block_pool import BlockPool, block_hashes, chain_hash
from .sequence import SeqRecord

__all__ = ["KVManager"]


class KVManager:
    """The block pool, each request's block table (``seq.life.blocks``), the prefix index."""

    def __init__(self, config: EngineConfig) -> None:
        self.config = config
        self.block_size = config.block_size
        self.pool = BlockPool(config.num_blocks, config.block_size)
        self.prefix_queries = 0
        self.prefix_hits = 0
        self._prefix_delta = [0, 0]

    # --- admission ------------------------------------------------------------------------
    def reserve(self, running: int) -> int:
        """Blocks kept free at admission so ``running`` requests can grow (config share)."""
        if not running:
            return 0
        return max(1, int(self.pool.num_blocks * self.config.kv_admission_reserve))

    def admission(self, seq: SeqRecord, reserve: int) -> tuple[list[bytes], int] | None:
        """The block hashes of what ``seq`` would prefill and the blocks it needs beyond the
        cached ones, when those fit with ``reserve`` blocks left free; None when they do not.
        The last prompt token is always computed (its logits give the first token)."""
        target = seq.prefill_target
        hashes = block_hashes(seq.tokens[:min(target, seq.n_prompt - 1)
                                         if seq.committed == 0 else target], self.block_size)
        hits, free_hits = self.pool.count_cached(hashes)
        need = self._blocks_for(len(seq.tokens)) - hits
        if self.pool.num_free - need - free_hits < reserve:
            return None
        return hashes, need

    def admit(self, seq: SeqRecord, hashes: list[bytes], need: int) -> None:
        """Share the cached prefix blocks, allocate the rest; count the prefix lookup."""
        match = self.pool.match_prefix(hashes)
        seq.life.blocks = match.blocks + self.pool.allocate(need)
        seq.n_registered = match.hits
        seq.n_computed = match.hits * self.block_size
        seq.parent_hash = hashes[match.hits - 1] if match.hits else b""
        self.prefix_queries += match.queried
        self.prefix_hits += match.hits
        self._prefix_delta[0] += match.queried
        self._prefix_delta[1] += match.hits

    # --- growth and preemption ------------------------------------------------------------
    def missing(self, seq: SeqRecord, positions: int) -> int:
        """Blocks ``seq`` still needs to hold ``positions`` token positions."""
        return self._blocks_for(positions) - len(seq.life.blocks)

    def allocate(self, seq: SeqRecord, n: int) -> None:
        if n > 0:
            seq.life.blocks += self.pool.allocate(n)

    def free(self, seq: SeqRecord) -> None:
        """Every block of a preempted request back to the pool; its KV is recomputed."""
        blocks, seq.life.blocks = seq.life.blocks, []
        self.pool.free(blocks)
        seq.n_computed = seq.n_registered = 0
        seq.parent_hash = b""

    # --- the prefix index -----------------------------------------------------------------
    def register(self, seq: SeqRecord) -> None:
        """Index each newly completed full block by content so later prompts can share it."""
        bs = self.block_size
        full = seq.n_computed // bs
        while seq.n_registered < full:
            i = seq.n_registered
            seq.parent_hash = chain_hash(seq.parent_hash, seq.tokens[i * bs:(i + 1) * bs])
            self.pool.register(seq.life.blocks[i], seq.parent_hash)
            seq.n_registered += 1

    def take_prefix_delta(self) -> tuple[int, int]:
        """Prefix lookups and hits since the last call (then reset)."""
        queries, hits = self._prefix_delta
        self._prefix_delta = [0, 0]
        return queries, hits

    def _blocks_for(self, positions: int) -> int:
        return -(-positions // self.block_size)
