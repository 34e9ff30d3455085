"""The start-up heap of the reference server, its engine process and the gateway."""

from __future__ import annotations

import gc
import weakref

from servescope.reference.heap import freeze_start_up_heap


def test_the_start_up_heap_leaves_the_collectors_reach_and_garbage_is_still_collected() -> None:
    start_up = [[i] for i in range(2000)]  # lists: objects the cyclic collector tracks
    frozen_before = gc.get_freeze_count()
    try:
        freeze_start_up_heap()
        assert gc.get_freeze_count() >= frozen_before + len(start_up)
        walked = {id(o) for o in gc.get_objects()}  # what a full collection walks
        assert not any(id(o) in walked for o in start_up)
        # what the server makes afterwards is collected as before: a cycle made now is freed
        cycle = _Node()
        cycle.next = cycle
        gone = weakref.ref(cycle)
        del cycle
        gc.collect()
        assert gone() is None
    finally:
        gc.unfreeze()


class _Node:
    next: object = None
