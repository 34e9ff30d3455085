# The reference server and load generator image of `docker compose up` (CPU; no GPU needed).
# The default PyPI torch wheel bundles CUDA libraries; for the small CPU build, point pip at the
# PyTorch CPU wheel index: docker compose build --build-arg PIP_EXTRA_INDEX_URL=<that index>.
FROM python:3.11.11-slim-bookworm

ARG PIP_INDEX_URL
ARG PIP_EXTRA_INDEX_URL
ENV PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PYTHONUNBUFFERED=1

WORKDIR /app
RUN pip install torch==2.13.0

COPY pyproject.toml README.md ./
COPY servescope ./servescope
COPY instrumentation ./instrumentation
COPY redaction ./redaction
COPY reference ./reference
COPY dashboards ./dashboards
COPY alerts ./alerts
RUN pip install '.[reference]'

RUN useradd --create-home --uid 10001 servescope
USER servescope
WORKDIR /home/servescope
EXPOSE 8000
CMD ["servescope", "serve", "--host", "0.0.0.0", "--port", "8000"]
