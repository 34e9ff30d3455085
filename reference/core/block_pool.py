"""The paged KV cache's bookkeeping: fixed-size blocks, reference counts, prefix sharing.

A block holds ``block_size`` token positions of every layer's keys and values (the tensors
live in the model's cache; this class only hands out indices). A *full* block whose content
is known is registered under a chained content hash (the hash of everything before it and its
own tokens), so a later prompt with the same prefix takes a reference to the same block
instead of recomputing it. A block goes back to the free list only when its last reference is
dropped; a freed block keeps its hash until it is handed out again, so a prefix can be found
again after the request that computed it is gone ("revived" from the free list).

Only the scheduler thread calls this class: it needs no lock.
"""

from __future__ import annotations

import hashlib
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass

__all__ = ["BlockPool", "PoolExhausted", "PrefixMatch", "block_hashes", "chain_hash"]


class PoolExhausted(RuntimeError):
    """Not enough free blocks (admission control should have prevented this)."""


def chain_hash(parent: bytes, block_tokens: Sequence[int]) -> bytes:
    """The content hash of a block: its tokens and the hash of everything before it."""
    h = hashlib.blake2b(parent, digest_size=16)
    for t in block_tokens:
        h.update(t.to_bytes(4, "little"))
    return h.digest()


def block_hashes(tokens: Sequence[int], block_size: int) -> list[bytes]:
    """Chained content hashes of each *full* block of ``tokens``."""
    out: list[bytes] = []
    parent = b""
    for start in range(0, len(tokens) - block_size + 1, block_size):
        parent = chain_hash(parent, tokens[start:start + block_size])
        out.append(parent)
    return out


@dataclass(frozen=True)
class PrefixMatch:
    """The cached blocks a prompt starts with (references already taken)."""

    blocks: list[int]
    queried: int  # full blocks looked up
    hits: int  # of which found


class BlockPool:
    """Block indices ``0..num_blocks-1`` with refcounts and a content-hash index."""

    def __init__(self, num_blocks: int, block_size: int) -> None:
        if num_blocks < 1 or block_size < 1:
            raise ValueError("num_blocks and block_size must be >= 1")
        self.num_blocks = num_blocks
        self.block_size = block_size
        self._refs = [0] * num_blocks
        # LRU order: blocks freed longest ago are handed out first, so a recently freed
        # prefix stays findable as long as possible.
        self._free: OrderedDict[int, None] = OrderedDict((i, None) for i in range(num_blocks))
        self._by_hash: dict[bytes, int] = {}
        self._hash_of: dict[int, bytes] = {}

    # --- levels ---------------------------------------------------------------------------
    @property
    def num_free(self) -> int:
        return len(self._free)

    @property
    def num_used(self) -> int:
        return self.num_blocks - len(self._free)

    def refcount(self, block: int) -> int:
        return self._refs[block]

    # --- allocation -----------------------------------------------------------------------
    def allocate(self, n: int = 1) -> list[int]:
        """``n`` private blocks (refcount 1); all or nothing."""
        if n > len(self._free):
            raise PoolExhausted(f"need {n} blocks, {len(self._free)} free")
        out = []
        for _ in range(n):
            block, _ = self._free.popitem(last=False)
            self._forget(block)  # its old content is about to be overwritten
            self._refs[block] = 1
            out.append(block)
        return out

    def match_prefix(self, hashes: Sequence[bytes]) -> PrefixMatch:
        """Take a reference to each leading block whose hash is cached; stop at the first miss."""
        found: list[int] = []
        for h in hashes:
            block = self._by_hash.get(h)
            if block is None:
                break
            if self._refs[block] == 0:
                del self._free[block]  # revive a freed block that still holds this prefix
            self._refs[block] += 1
            found.append(block)
        return PrefixMatch(found, len(hashes), len(found))

    def count_cached(self, hashes: Sequence[bytes]) -> tuple[int, int]:
        """(leading hits, of which currently free) without taking references."""
        hits = free = 0
        for h in hashes:
            block = self._by_hash.get(h)
            if block is None:
                break
            hits += 1
            free += self._refs[block] == 0
        return hits, free

    def register(self, block: int, content_hash: bytes) -> None:
        """Mark ``block`` as a full block with this content (first registration wins)."""
        if self._refs[block] <= 0:
            raise ValueError(f"block {block} is not referenced")
        if content_hash in self._by_hash or block in self._hash_of:
            return
        self._by_hash[content_hash] = block
        self._hash_of[block] = content_hash

    def free(self, blocks: Sequence[int]) -> None:
        """Drop one reference to each block; a block returns to the free list at zero.

        Blocks are released tail first: the free list is evicted oldest first, so a request's
        last block goes before its first and a cached prefix loses its tail, never its head
        (a chained prefix whose first block is gone can never be matched again).
        """
        for block in reversed(blocks):
            refs = self._refs[block]
            if refs <= 0:
                raise ValueError(f"double free of block {block}")
            self._refs[block] = refs - 1
            if refs == 1:
                self._free[block] = None

    def _forget(self, block: int) -> None:
        h = self._hash_of.pop(block, None)
        if h is not None:
            del self._by_hash[h]

    def check(self) -> None:
        """Internal consistency (tests): free list == zero refcounts; hash maps agree."""
        zero = {i for i, r in enumerate(self._refs) if r == 0}
        assert zero == set(self._free), "free list and refcounts disagree"
        assert all(r >= 0 for r in self._refs)
        assert all(self._by_hash[h] == b for b, h in self._hash_of.items())
        assert len(self._by_hash) == len(self._hash_of)
