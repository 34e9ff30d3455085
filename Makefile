# Two commands on a fresh machine: `make demo` runs the main job, `make test` the whole suite.
# Each installs what it needs: Debian packages when missing, a virtualenv, the package and extras.
SHELL := /bin/bash
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
PIP := $(PY) -m pip
EXTRAS := reference,dashboards,test,dev
# Where torch comes from. Empty: pip's configured index (PyPI's Linux torch wheel is the CUDA
# build, several GB with its nvidia-* wheels). For the CPU build, as the server image does:
#   make demo TORCH_INDEX_URL=https://download.pytorch.org/whl/cpu
TORCH_INDEX_URL ?=
TORCH_VERSION := 2.13.0
# Strict editable installs link each file: reinstall when a module is added or removed.
SOURCES := $(shell find servescope instrumentation redaction reference dashboards alerts -name '*.py' -o -name '*.json' -o -name '*.yaml' 2>/dev/null | sort)

.PHONY: demo test lint typecheck check system-deps install bench clean

demo: install
	$(VENV)/bin/servescope demo

test: install system-deps
	PYTHONSAFEPATH=1 $(VENV)/bin/pytest -q

lint: install
	$(VENV)/bin/ruff check .

typecheck: install
	$(VENV)/bin/mypy servescope instrumentation redaction reference dashboards alerts

check: lint typecheck test

bench: install
	$(PIP) install -q --config-settings editable_mode=strict -e '.[$(EXTRAS),bench]'
	for b in benchmarks/*.py; do PYTHONSAFEPATH=1 $(PY) $$b || exit 1; done

install: $(VENV)/.deps $(VENV)/.editable

# Debian packages the integration tests run for real (apt-get update once, only when missing).
system-deps:
	@missing=""; \
	command -v prometheus >/dev/null && command -v promtool >/dev/null || missing="$$missing prometheus"; \
	command -v prometheus-alertmanager >/dev/null && command -v amtool >/dev/null || missing="$$missing prometheus-alertmanager"; \
	command -v nginx >/dev/null || [ -x /usr/sbin/nginx ] || missing="$$missing nginx"; \
	if [ -n "$$missing" ]; then \
	  echo "installing Debian packages:$$missing"; \
	  SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq $$missing; \
	fi

$(VENV)/.deps: pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PIP) install -q --upgrade pip
	# torch first (see TORCH_INDEX_URL): the extras' range then installs nothing larger.
	$(PIP) install -q $(if $(TORCH_INDEX_URL),--index-url $(TORCH_INDEX_URL)) torch==$(TORCH_VERSION)
	$(PIP) install -q --config-settings editable_mode=strict -e '.[$(EXTRAS)]'
	touch $@

$(VENV)/.editable: $(VENV)/.deps $(SOURCES)
	$(PIP) install -q --no-deps --config-settings editable_mode=strict -e .
	touch $@

clean:
	rm -rf $(VENV) build *.egg-info
