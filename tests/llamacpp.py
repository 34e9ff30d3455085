"""A live llama.cpp engine for tests: its llama-server binary, a tiny GGUF model, the process.

``make llamacpp-deps`` (run by ``make test``) builds llama-server from the llama-cpp-python
sdist's vendored llama.cpp and caches it, with the sdist's vocab-only llama-spm GGUF, under
``$SERVESCOPE_CACHE/llama.cpp/<version>/`` (deploy/llamacpp/build.sh). A test that needs the
engine fails, never skips, when the binary is missing: the message says how to build it.

The model is written here with the ``gguf`` package: a llama architecture of random weights
(64-dim, 2 layers, 4 heads, the llama-spm vocab of 32,000 tokens; about 17 MB in f32). Its
text is noise; its tokens, timings and metrics are a real engine's.
"""

from __future__ import annotations

import os
import subprocess
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from servescope.report.launcher import stop_process

__all__ = ["LLAMA_CPP_PYTHON_VERSION", "LlamaServer", "engine_files", "start_llama_server",
           "write_tiny_model"]

LLAMA_CPP_PYTHON_VERSION = "0.3.36"  # keep in step with deploy/llamacpp/build.sh
VOCAB = "ggml-vocab-llama-spm.gguf"


def engine_files() -> tuple[Path, Path]:
    """(llama-server, the vocab GGUF) from the cache; AssertionError saying how to build."""
    cache = Path(os.environ.get("SERVESCOPE_CACHE", Path.home() / ".cache" / "servescope"))
    folder = cache / "llama.cpp" / LLAMA_CPP_PYTHON_VERSION
    binary = Path(os.environ.get("LLAMA_SERVER_BIN", folder / "llama-server"))
    vocab = folder / VOCAB
    missing = [str(p) for p in (binary, vocab) if not p.is_file()]
    assert not missing, (f"llama.cpp engine not built: missing {', '.join(missing)}. Run "
                         "`make llamacpp-deps` (make test does; about 11 minutes on 2 cores).")
    return binary, vocab


def write_tiny_model(path: Path, vocab: Path, *, dim: int = 64, layers: int = 2,
                     heads: int = 4, ffn: int = 128, context: int = 512, seed: int = 0) -> Path:
    """A random-weight llama GGUF with the vocab (tokenizer) of ``vocab``."""
    import gguf  # the test extra; imported here so that importing this module stays cheap

    reader = gguf.GGUFReader(vocab)
    tokens = [bytes(reader.fields["tokenizer.ggml.tokens"].parts[i]).decode("utf-8")
              for i in reader.fields["tokenizer.ggml.tokens"].data]
    scores = [float(reader.fields["tokenizer.ggml.scores"].parts[i][0])
              for i in reader.fields["tokenizer.ggml.scores"].data]
    types = [int(reader.fields["tokenizer.ggml.token_type"].parts[i][0])
             for i in reader.fields["tokenizer.ggml.token_type"].data]

    def scalar(key: str, default: int) -> int:
        field = reader.fields.get(key)
        return int(field.parts[field.data[0]][0]) if field is not None else default

    writer = gguf.GGUFWriter(str(path), "llama")
    writer.add_name("servescope-tiny-llama")
    writer.add_context_length(context)
    writer.add_embedding_length(dim)
    writer.add_block_count(layers)
    writer.add_feed_forward_length(ffn)
    writer.add_head_count(heads)
    writer.add_head_count_kv(heads)
    writer.add_rope_dimension_count(dim // heads)
    writer.add_layer_norm_rms_eps(1e-5)
    writer.add_file_type(gguf.LlamaFileType.ALL_F32)
    writer.add_tokenizer_model("llama")
    writer.add_token_list(tokens)
    writer.add_token_scores(scores)
    writer.add_token_types(types)
    writer.add_bos_token_id(scalar("tokenizer.ggml.bos_token_id", 1))
    writer.add_eos_token_id(scalar("tokenizer.ggml.eos_token_id", 2))
    writer.add_unk_token_id(scalar("tokenizer.ggml.unknown_token_id", 0))

    rng = np.random.default_rng(seed)

    def weight(*shape: int) -> np.ndarray:
        return (rng.standard_normal(shape) * 0.02).astype(np.float32)

    ones = np.ones(dim, dtype=np.float32)
    writer.add_tensor("token_embd.weight", weight(len(tokens), dim))
    writer.add_tensor("output_norm.weight", ones)
    writer.add_tensor("output.weight", weight(len(tokens), dim))
    for i in range(layers):
        block = f"blk.{i}"
        writer.add_tensor(f"{block}.attn_norm.weight", ones)
        for name in ("attn_q", "attn_k", "attn_v", "attn_output"):
            writer.add_tensor(f"{block}.{name}.weight", weight(dim, dim))
        writer.add_tensor(f"{block}.ffn_norm.weight", ones)
        writer.add_tensor(f"{block}.ffn_gate.weight", weight(ffn, dim))
        writer.add_tensor(f"{block}.ffn_up.weight", weight(ffn, dim))
        writer.add_tensor(f"{block}.ffn_down.weight", weight(dim, ffn))
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    return path


@dataclass
class LlamaServer:
    process: subprocess.Popen[bytes]
    port: int
    log: Path

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def target(self) -> str:
        return f"127.0.0.1:{self.port}"

    def stop(self) -> None:
        stop_process(self.process)


def start_llama_server(binary: Path, model: Path, port: int, log: Path, *,
                       slots: int = 2, context: int = 512) -> LlamaServer:
    """llama-server on 127.0.0.1:``port`` with /metrics, ``slots`` parallel slots of
    ``context`` tokens each, 1 thread (the machine is shared; the model is tiny)."""
    args = [str(binary), "-m", str(model), "--host", "127.0.0.1", "--port", str(port),
            "--metrics", "--parallel", str(slots), "--ctx-size", str(context * slots),
            "--threads", "1", "--threads-batch", "1", "--no-webui", "--alias", "tiny"]
    with log.open("wb") as out:
        process = subprocess.Popen(args, stdout=out, stderr=subprocess.STDOUT)
    return LlamaServer(process, port, log)
