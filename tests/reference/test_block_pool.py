"""The KV block pool: refcounts, content-hashed prefix sharing, free only at zero."""

from __future__ import annotations

import random

import pytest

from servescope.reference.core.block_pool import BlockPool, PoolExhausted, block_hashes


def test_allocate_and_free_return_blocks_to_the_initial_state() -> None:
    pool = BlockPool(8, 4)
    a = pool.allocate(3)
    b = pool.allocate(5)
    assert len(set(a + b)) == 8 and pool.num_free == 0
    with pytest.raises(PoolExhausted):
        pool.allocate(1)
    pool.free(a)
    pool.free(b)
    assert pool.num_free == 8 and pool.num_used == 0
    pool.check()


def test_allocation_is_all_or_nothing() -> None:
    pool = BlockPool(4, 4)
    pool.allocate(3)
    with pytest.raises(PoolExhausted):
        pool.allocate(2)
    assert pool.num_free == 1


def test_double_free_is_refused() -> None:
    pool = BlockPool(2, 4)
    [b] = pool.allocate(1)
    pool.free([b])
    with pytest.raises(ValueError, match="double free"):
        pool.free([b])


def test_shared_prefix_blocks_are_refcounted_and_freed_at_zero() -> None:
    pool = BlockPool(8, 4)
    prompt = list(range(10))  # two full blocks and a partial one
    hashes = block_hashes(prompt, 4)
    assert len(hashes) == 2
    first = pool.allocate(3)
    for block, h in zip(first, hashes, strict=False):
        pool.register(block, h)
    second = pool.match_prefix(block_hashes([*prompt[:9], 99], 4))
    assert second.blocks == first[:2] and second.hits == 2 and second.queried == 2
    assert [pool.refcount(b) for b in first] == [2, 2, 1]
    pool.free(first)  # the first request ends: shared blocks stay held by the second
    assert [pool.refcount(b) for b in first] == [1, 1, 0]
    assert pool.num_free == 8 - 2
    pool.free(second.blocks)
    assert pool.num_free == 8
    pool.check()


def test_a_different_prefix_misses_from_the_first_differing_block() -> None:
    pool = BlockPool(8, 4)
    blocks = pool.allocate(2)
    for block, h in zip(blocks, block_hashes(list(range(8)), 4), strict=True):
        pool.register(block, h)
    other = [0, 1, 2, 3, 7, 7, 7, 7]
    match = pool.match_prefix(block_hashes(other, 4))
    assert match.hits == 1 and match.queried == 2
    # same second block content after a different first block: a different chained hash
    assert pool.match_prefix(block_hashes([9, 9, 9, 9, 4, 5, 6, 7], 4)).hits == 0


def test_freed_blocks_keep_their_prefix_until_reused() -> None:
    pool = BlockPool(3, 2)
    [b] = pool.allocate(1)
    h = block_hashes([1, 2], 2)
    pool.register(b, h[0])
    pool.free([b])
    assert pool.num_free == 3 and pool.count_cached(h) == (1, 1)
    match = pool.match_prefix(h)  # revived from the free list
    assert match.blocks == [b] and pool.num_free == 2
    pool.free([b])
    pool.allocate(3)  # reusing every block overwrites its content: the hash is forgotten
    assert pool.count_cached(h) == (0, 0)
    pool.check()


def test_random_workload_keeps_the_pool_consistent() -> None:
    rng = random.Random(7)
    pool = BlockPool(32, 4)
    live: list[list[int]] = []
    for _ in range(2000):
        if live and (rng.random() < 0.45 or pool.num_free < 4):
            pool.free(live.pop(rng.randrange(len(live))))
            continue
        prompt = [rng.randrange(3) for _ in range(rng.randrange(1, 13))]
        hashes = block_hashes(prompt, 4)
        match = pool.match_prefix(hashes)
        fresh = pool.allocate(-(-len(prompt) // 4) - match.hits)
        blocks = match.blocks + fresh
        for i in range(match.hits, len(hashes)):
            pool.register(blocks[i], hashes[i])
        live.append(blocks)
        pool.check()
    for blocks in live:
        pool.free(blocks)
    assert pool.num_free == 32
    pool.check()


def test_eviction_takes_a_freed_prefix_from_its_tail_not_its_head() -> None:
    pool = BlockPool(4, 2)
    tokens = [1, 2, 3, 4, 5, 6]
    hashes = block_hashes(tokens, 2)
    blocks = pool.allocate(3)
    for block, h in zip(blocks, hashes, strict=True):
        pool.register(block, h)
    pool.free(blocks)
    pool.allocate(2)  # the never-used block, then the oldest freed one: the prefix's tail
    assert pool.count_cached(hashes) == (2, 2)  # the first two blocks still match
    pool.check()
