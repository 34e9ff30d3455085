"""Configuration of the reference worker: the model's shape and the engine's limits.

Both are frozen dataclasses validated on construction; a bad value raises ``ValueError`` whose
message starts with the field's name. :meth:`EngineConfig.from_dict` builds one from plain data
(a CLI, a YAML file) and refuses unknown keys, so a typo is an error rather than a default.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Self

__all__ = ["EngineConfig", "HttpLimits", "ModelConfig"]

#: Priority classes a request may name when none are configured (the ``priority`` label's
#: declared values; the same list as the hooks' default).
DEFAULT_PRIORITY_CLASSES = ("default", "interactive", "batch", "high", "low",
                            "0", "1", "2", "3")
UNKNOWN_PRIORITY_POLICIES = ("fold", "reject")

#: 256 byte values plus BOS, EOS, PAD and one spare id (see ``tokenizer.py``).
DEFAULT_VOCAB = 260


def _positive(name: str, value: object) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f"{name}: must be an integer >= 1, got {value!r}")


def _non_negative_int(name: str, value: object) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ValueError(f"{name}: must be an integer >= 0, got {value!r}")


def _seconds(name: str, value: object, *, allow_zero: bool, allow_none: bool = False) -> None:
    if value is None and allow_none:
        return
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ValueError(f"{name}: must be a number of seconds, got {value!r}")
    if value < 0 or (value == 0 and not allow_zero) or value != value:
        bound = ">= 0" if allow_zero else "> 0"
        raise ValueError(f"{name}: must be {bound} seconds, got {value!r}")


class _FromDict:
    """``from_dict`` and ``replace`` shared by both configs."""

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Self:
        if not isinstance(data, Mapping):
            raise ValueError(f"{cls.__name__}: expected a mapping, got {type(data).__name__}")
        names = {f.name for f in dataclasses.fields(cls)}  # type: ignore[arg-type]
        unknown = sorted(set(data) - names)
        if unknown:
            raise ValueError(f"{unknown[0]}: unknown field of {cls.__name__}")
        return cls(**cls._convert(dict(data)))

    @classmethod
    def _convert(cls, data: dict[str, Any]) -> dict[str, Any]:
        return data

    def replace(self, **changes: Any) -> Self:
        """A copy with ``changes`` applied (validated like a new config)."""
        return self.from_dict({**{f.name: getattr(self, f.name)
                                  for f in dataclasses.fields(self)},  # type: ignore[arg-type]
                               **changes})


@dataclass(frozen=True)
class ModelConfig(_FromDict):
    """A small Llama-style decoder: RMSNorm, rotary embeddings, grouped-query attention, SwiGLU."""

    vocab_size: int = DEFAULT_VOCAB
    dim: int = 128
    n_layers: int = 2
    n_heads: int = 4
    n_kv_heads: int = 2
    hidden_dim: int = 256
    max_context: int = 512
    seed: int = 0
    rope_theta: float = 10000.0
    norm_eps: float = 1e-5
    checkpoint: str | None = None  # a local state_dict saved by ``Transformer.save``

    def __post_init__(self) -> None:
        for name in ("vocab_size", "dim", "n_layers", "n_heads", "n_kv_heads", "hidden_dim",
                     "max_context"):
            _positive(name, getattr(self, name))
        _non_negative_int("seed", self.seed)
        if self.vocab_size < DEFAULT_VOCAB:
            raise ValueError(f"vocab_size: the byte tokenizer needs >= {DEFAULT_VOCAB}, "
                             f"got {self.vocab_size}")
        if self.dim % self.n_heads:
            raise ValueError(f"n_heads: must divide dim={self.dim}, got {self.n_heads}")
        if (self.dim // self.n_heads) % 2:
            raise ValueError(f"n_heads: head size dim/n_heads must be even for rotary "
                             f"embeddings, got {self.dim // self.n_heads}")
        if self.n_heads % self.n_kv_heads:
            raise ValueError(f"n_kv_heads: must divide n_heads={self.n_heads}, "
                             f"got {self.n_kv_heads}")
        _seconds("rope_theta", self.rope_theta, allow_zero=False)
        _seconds("norm_eps", self.norm_eps, allow_zero=False)
        if self.checkpoint is not None and not isinstance(self.checkpoint, str):
            raise ValueError(f"checkpoint: must be a path string, got {self.checkpoint!r}")

    @property
    def head_dim(self) -> int:
        return self.dim // self.n_heads


@dataclass(frozen=True)
class HttpLimits(_FromDict):
    """What one client connection may cost the server; every field has a safe default.

    Applied where the ASGI server is configured
    (``reference.transport.limits.apply_limits``), so any HTTP front end of the worker honours
    the same fields.
    """

    #: Largest request body accepted; a larger ``Content-Length`` is answered 413 before a byte
    #: of the body is read, and a chunked body is cut off (413) as soon as it passes the limit.
    max_body_bytes: int = 1 << 20
    #: Largest request head (request line and headers); larger gets 431.
    max_header_bytes: int = 16 << 10
    #: A request head must arrive whole within this many seconds of its first byte (or of the
    #: connection opening); else 408 and the connection closes (slowloris).
    header_timeout_s: float = 10.0
    #: A request body must arrive whole within this many seconds of its head; else 408.
    body_timeout_s: float = 30.0
    #: An idle keep-alive connection is closed after this many seconds.
    keep_alive_timeout_s: float = 5.0
    #: Connections served normally. Past it, the oldest connection still waiting for a request
    #: head is closed to make room; when none is, the new connection may only ask for
    #: ``/healthz`` (anything else gets 503)...
    max_connections: int = 1000
    #: ...and past ``max_connections + health_reserve_connections`` it is answered 503 and
    #: closed at once.
    health_reserve_connections: int = 32
    #: Repeated connection-level errors are logged once per kind per this many seconds, with
    #: a count of those suppressed.
    error_log_interval_s: float = 10.0
    #: How often a response's watcher looks at its writer: long enough to cost nothing per
    #: stream, short enough that a stalled writer is given up soon after ``abandon_after_s``.
    stall_poll_s: float = 0.5
    #: How long a writer may stay stalled (the client reads nothing) after the engine ended its
    #: request before the connection is given up; a client that still reads gets its tail.
    abandon_after_s: float = 10.0
    #: How long the writer waits for the peer to acknowledge the last bytes (without any
    #: progress) before it stops counting them as delivered.
    ack_wait_s: float = 5.0
    #: Connections the kernel queues before the server accepts them: room for a burst of
    #: clients connecting at once (the kernel caps it at ``net.core.somaxconn``).
    listen_backlog: int = 1024

    def __post_init__(self) -> None:
        for name in ("max_body_bytes", "max_header_bytes", "max_connections", "listen_backlog"):
            _positive(name, getattr(self, name))
        _non_negative_int("health_reserve_connections", self.health_reserve_connections)
        for name in ("header_timeout_s", "body_timeout_s", "keep_alive_timeout_s",
                     "error_log_interval_s", "stall_poll_s", "abandon_after_s", "ack_wait_s"):
            _seconds(name, getattr(self, name), allow_zero=False)


@dataclass(frozen=True)
class EngineConfig(_FromDict):
    """Limits and policies of the engine (one model, one scheduler thread)."""

    model: ModelConfig = field(default_factory=ModelConfig)
    block_size: int = 16
    num_blocks: int = 512
    max_batch: int = 32
    max_waiting: int = 256
    prefill_chunk: int = 128  # prompt tokens per request per step (chunked prefill)
    stream_capacity: int = 16  # the high watermark: tokens committed but not yet popped
    stream_low_watermark: int = 4
    slow_consumer_timeout_s: float = 5.0
    default_deadline_s: float | None = None
    speculation_ngram: int = 0  # prompt-lookup n-gram size; 0 = off
    speculation_k: int = 4  # drafted tokens per step when a lookup hits
    device: str = "auto"
    step_delay_s: float = 0.0
    unbounded_streams: bool = False
    fault_every_n_steps: int = 0  # 0 = off; else every n-th step raises for its whole batch
    fault_request_ids: frozenset[str] = frozenset()  # steps including these requests raise
    drain_timeout_s: float = 10.0  # a finished request's tail is dropped after a stall this long
    idle_report_s: float = 1.0  # capacity gauges are refreshed at least this often
    # Share of the KV pool kept free at admission (at least one block while requests run), so
    # running requests can grow into it without preempting one another at every block boundary.
    kv_admission_reserve: float = 0.01
    http: HttpLimits = field(default_factory=HttpLimits)  # what a client connection may cost
    # Label values are declared, not discovered: the priority classes a request may name and
    # adapter names the served model also answers to (for the ``model`` label). A request
    # naming another class is counted under ``other`` ("fold") or refused with 400 ("reject").
    priority_classes: tuple[str, ...] = DEFAULT_PRIORITY_CLASSES
    adapters: tuple[str, ...] = ()
    unknown_priority: str = "fold"
    # /metrics on a port of its own (None: only on the serving port; 0: any free port), and
    # how long one render answers every scrape (on both ports), so a scrape storm costs one
    # render per interval.
    metrics_port: int | None = None
    metrics_cache_s: float = 0.5

    def __post_init__(self) -> None:
        if not isinstance(self.model, ModelConfig):
            raise ValueError(f"model: must be a ModelConfig, got {type(self.model).__name__}")
        if not isinstance(self.http, HttpLimits):
            raise ValueError(f"http: must be an HttpLimits, got {type(self.http).__name__}")
        for name in ("block_size", "num_blocks", "max_batch", "prefill_chunk",
                     "stream_capacity", "speculation_k"):
            _positive(name, getattr(self, name))
        for name in ("max_waiting", "stream_low_watermark", "speculation_ngram",
                     "fault_every_n_steps"):
            _non_negative_int(name, getattr(self, name))
        if self.stream_low_watermark >= self.stream_capacity:
            raise ValueError(f"stream_low_watermark: must be below stream_capacity="
                             f"{self.stream_capacity}, got {self.stream_low_watermark}")
        _seconds("slow_consumer_timeout_s", self.slow_consumer_timeout_s, allow_zero=False)
        _seconds("default_deadline_s", self.default_deadline_s, allow_zero=False,
                 allow_none=True)
        _seconds("step_delay_s", self.step_delay_s, allow_zero=True)
        _seconds("drain_timeout_s", self.drain_timeout_s, allow_zero=False)
        _seconds("idle_report_s", self.idle_report_s, allow_zero=False)
        reserve = self.kv_admission_reserve
        if isinstance(reserve, bool) or not isinstance(reserve, int | float) or not (
                0.0 <= reserve < 1.0):
            raise ValueError(f"kv_admission_reserve: must be a share in [0, 1), got {reserve!r}")
        if not isinstance(self.unbounded_streams, bool):
            raise ValueError(f"unbounded_streams: must be a boolean, got "
                             f"{self.unbounded_streams!r}")
        if self.device != "auto" and not (self.device == "cpu"
                                           or self.device.startswith("cuda")):
            raise ValueError(f"device: must be 'auto', 'cpu' or 'cuda[:N]', got {self.device!r}")
        if not isinstance(self.fault_request_ids, frozenset) or not all(
                isinstance(r, str) for r in self.fault_request_ids):
            raise ValueError("fault_request_ids: must be a frozenset of request id strings")
        for name in ("priority_classes", "adapters"):
            values = getattr(self, name)
            if isinstance(values, str) or not isinstance(values, tuple) or not all(
                    isinstance(v, str) and v for v in values):
                raise ValueError(f"{name}: must be a list of non-empty names, got {values!r}")
        if not self.priority_classes:
            raise ValueError("priority_classes: must name at least one class")
        port = self.metrics_port
        if port is not None and (isinstance(port, bool) or not isinstance(port, int)
                                 or not 0 <= port <= 65535):
            raise ValueError(f"metrics_port: must be a port number (0-65535) or null, "
                             f"got {port!r}")
        _seconds("metrics_cache_s", self.metrics_cache_s, allow_zero=True)
        if self.unknown_priority not in UNKNOWN_PRIORITY_POLICIES:
            raise ValueError(f"unknown_priority: must be one of {UNKNOWN_PRIORITY_POLICIES}, "
                             f"got {self.unknown_priority!r}")
        if self.block_size * self.num_blocks < self.model.max_context:
            raise ValueError(f"num_blocks: {self.num_blocks} blocks of {self.block_size} "
                             f"tokens cannot hold one request of max_context="
                             f"{self.model.max_context}")

    @classmethod
    def _convert(cls, data: dict[str, Any]) -> dict[str, Any]:
        model = data.get("model")
        if isinstance(model, Mapping):
            data["model"] = ModelConfig.from_dict(model)
        http = data.get("http")
        if isinstance(http, Mapping):
            data["http"] = HttpLimits.from_dict(http)
        for name in ("priority_classes", "adapters"):
            if isinstance(data.get(name), list):
                data[name] = tuple(data[name])
        ids = data.get("fault_request_ids")
        if isinstance(ids, list | tuple | set):
            data["fault_request_ids"] = frozenset(ids)
        return data

    def to_dict(self) -> dict[str, Any]:
        out = dataclasses.asdict(self)
        out["fault_request_ids"] = sorted(self.fault_request_ids)
        out["priority_classes"] = list(self.priority_classes)
        out["adapters"] = list(self.adapters)
        return out
