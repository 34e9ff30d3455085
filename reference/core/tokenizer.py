"""A byte-level tokenizer: ids 0..255 are the bytes of the UTF-8 text, then a few specials.

Decoding a stream chunk by chunk needs care: one character may span several tokens, so
:class:`StreamDecoder` holds an incomplete UTF-8 sequence until its last byte arrives.
"""

from __future__ import annotations

import codecs

__all__ = ["BOS_ID", "EOS_ID", "PAD_ID", "ByteTokenizer", "StreamDecoder"]

BOS_ID = 256
EOS_ID = 257
PAD_ID = 258
_N_SPECIAL = 4  # BOS, EOS, PAD and one spare id


class StreamDecoder:
    """Incremental decoder: ``feed`` returns the text completed so far, holding partial bytes."""

    def __init__(self) -> None:
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")

    def feed(self, ids: list[int]) -> str:
        return self._decoder.decode(bytes(i for i in ids if 0 <= i < 256))

    def flush(self) -> str:
        """The end of the stream: a dangling partial character becomes U+FFFD."""
        return self._decoder.decode(b"", final=True)


class ByteTokenizer:
    """UTF-8 bytes as tokens. Special ids (>= 256) never decode to text."""

    vocab_size = 256 + _N_SPECIAL

    def encode(self, text: str, *, add_bos: bool = False) -> list[int]:
        ids = list(text.encode("utf-8"))
        return [BOS_ID, *ids] if add_bos else ids

    def decode(self, ids: list[int]) -> str:
        """Whole-sequence decode; an invalid byte sequence becomes U+FFFD."""
        return bytes(i for i in ids if 0 <= i < 256).decode("utf-8", errors="replace")

    def stream_decoder(self) -> StreamDecoder:
        return StreamDecoder()

    def generatable_ids(self) -> list[int]:
        """Ids the demo model may sample: printable ASCII, newline and EOS.

        A model with random weights would otherwise emit arbitrary bytes (invalid UTF-8);
        restricting sampling keeps the reference server's output readable text.
        """
        return [10, *range(32, 127), EOS_ID]
