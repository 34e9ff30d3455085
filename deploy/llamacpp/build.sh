#!/usr/bin/env bash
# Builds llama.cpp's llama-server from the source the llama-cpp-python sdist vendors (MIT) and
# caches it outside the repository, keyed by the sdist's version, beside the vocab-only GGUF the
# live test builds its tiny model from:
#   $SERVESCOPE_CACHE/llama.cpp/<version>/llama-server
#   $SERVESCOPE_CACHE/llama.cpp/<version>/ggml-vocab-llama-spm.gguf
# A cached binary that runs makes this a no-op, so only a fresh machine pays the build (about
# 11 minutes on 2 cores). LLAMA_CPP_SOURCE_DIR: an unpacked vendor/llama.cpp whose build/ is
# already built with the flags below (reused instead of downloading and building again).
# Usage: build.sh [PYTHON]   (the interpreter whose pip downloads the sdist; default python3)
set -euo pipefail

PYTHON=${1:-python3}
VERSION=${LLAMA_CPP_PYTHON_VERSION:-0.3.36}
CACHE=${SERVESCOPE_CACHE:-$HOME/.cache/servescope}/llama.cpp/$VERSION
VOCAB=ggml-vocab-llama-spm.gguf

if [ -x "$CACHE/llama-server" ] && [ -f "$CACHE/$VOCAB" ] \
   && "$CACHE/llama-server" --version >/dev/null 2>&1; then
  echo "llama-server $VERSION: cached in $CACHE"
  exit 0
fi

for tool in cmake c++; do
  command -v "$tool" >/dev/null || { echo "llama-server: building needs $tool (make system-deps installs it)" >&2; exit 1; }
done

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
src=${LLAMA_CPP_SOURCE_DIR:-}
if [ -z "$src" ]; then
  echo "llama-server $VERSION: downloading the llama-cpp-python sdist"
  "$PYTHON" -m pip download -q --no-deps --no-binary :all: -d "$work" "llama-cpp-python==$VERSION"
  tar -xzf "$work"/llama_cpp_python-"$VERSION".tar.gz -C "$work"
  src="$work/llama_cpp_python-$VERSION/vendor/llama.cpp"
fi

# Static, portable (no -march=native: the cache may be shared by machines of another CPU), no
# network features: the server only has to load a local GGUF and serve it.
echo "llama-server $VERSION: building in $src/build (-j$(nproc))"
start=$(date +%s)
cmake -S "$src" -B "$src/build" -DCMAKE_BUILD_TYPE=Release -DLLAMA_CURL=OFF -DLLAMA_OPENSSL=OFF \
  -DGGML_NATIVE=OFF -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF -DBUILD_SHARED_LIBS=OFF \
  >"$work/cmake.log" || { cat "$work/cmake.log" >&2; exit 1; }
cmake --build "$src/build" --target llama-server -j"$(nproc)" >"$work/build.log" 2>&1 \
  || { tail -50 "$work/build.log" >&2; exit 1; }
echo "llama-server $VERSION: built in $(( $(date +%s) - start )) s"

# Into place atomically: a half-copied binary must never look cached.
mkdir -p "$CACHE"
cp "$src/build/bin/llama-server" "$CACHE/.llama-server.tmp"
cp "$src/models/$VOCAB" "$CACHE/.$VOCAB.tmp"
mv "$CACHE/.$VOCAB.tmp" "$CACHE/$VOCAB"
mv "$CACHE/.llama-server.tmp" "$CACHE/llama-server"
"$CACHE/llama-server" --version
