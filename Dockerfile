# The reference server and load generator image of `docker compose up`.
# Versions: deploy/versions.env (tests/deploy/test_pins.py holds these ARG defaults to it).
#
# torch is the CPU build from PyTorch's CPU wheel index by default: the stack's workers run on
# the CPU, and the default index's Linux torch wheel is the CUDA build (the wheel plus the
# nvidia-* runtime wheels, several GB). For the CUDA build (the compose profile `gpu` does this):
#   docker compose build --build-arg TORCH_INDEX_URL= ...   (empty: the default index)
# or point TORCH_INDEX_URL at one of PyTorch's CUDA wheel indexes.
ARG PYTHON_IMAGE=python:3.11.11-slim-bookworm
FROM ${PYTHON_IMAGE}

ARG TORCH_VERSION=2.13.0
ARG TORCH_INDEX_URL=https://download.pytorch.org/whl/cpu
# A mirror for everything else (optional).
ARG PIP_INDEX_URL
ARG PIP_EXTRA_INDEX_URL
ENV PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PYTHONUNBUFFERED=1

WORKDIR /app
# torch first, from the chosen index: the reference extra's range then installs nothing larger.
RUN if [ -n "$TORCH_INDEX_URL" ]; then \
        pip install --index-url "$TORCH_INDEX_URL" "torch==${TORCH_VERSION}"; \
    else \
        pip install "torch==${TORCH_VERSION}"; \
    fi \
 && python -c "import torch; print('torch', torch.__version__, 'CUDA', torch.version.cuda)"

COPY pyproject.toml setup.py README.md ./
COPY servescope ./servescope
COPY instrumentation ./instrumentation
COPY redaction ./redaction
COPY collector ./collector
COPY reference ./reference
COPY harness ./harness
COPY promql ./promql
COPY dashboards ./dashboards
COPY alerts ./alerts
COPY report ./report
COPY gateway ./gateway
# The redaction detectors compile with mypyc (setup.py): a C compiler for the build only.
RUN apt-get update -qq \
 && apt-get install -y -qq --no-install-recommends gcc libc6-dev \
 && pip install '.[reference]' \
 && apt-get purge -y -qq gcc libc6-dev && apt-get autoremove -y -qq \
 && rm -rf /var/lib/apt/lists/* \
 && python -c "import servescope.redaction as r; assert r.is_native(), 'detectors not compiled'"

RUN useradd --create-home --uid 10001 servescope
USER servescope
WORKDIR /home/servescope
EXPOSE 8000
CMD ["servescope", "serve", "--host", "0.0.0.0", "--port", "8000"]
