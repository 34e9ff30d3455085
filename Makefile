# Two commands on a fresh machine: `make demo` runs the main job, `make test` the whole suite.
# Each installs what it needs: Debian packages when missing, a virtualenv, the package and extras.
SHELL := /bin/bash
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
PIP := $(PY) -m pip
EXTRAS := reference,dashboards,report,test,dev
# Where torch comes from. Empty: pip's configured index (PyPI's Linux torch wheel is the CUDA
# build, several GB with its nvidia-* wheels). For the CPU build, as the server image does:
#   make demo TORCH_INDEX_URL=https://download.pytorch.org/whl/cpu
TORCH_INDEX_URL ?=
TORCH_VERSION := 2.13.0
# Strict editable installs link each file: reinstall when a module is added or removed.
SOURCES := $(shell find servescope instrumentation redaction collector reference harness promql dashboards alerts report gateway -name '*.py' -o -name '*.json' -o -name '*.yaml' 2>/dev/null | sort)

.PHONY: demo test lint typecheck check soak system-deps prometheus-deps llamacpp-deps install bench bench-report docs-img clean

# The demo's report needs Prometheus: install it like `make test` does; when that fails the
# demo still runs and says why there is no report.
demo: install
	@$(MAKE) --no-print-directory prometheus-deps || echo "demo: could not install Prometheus; the demo runs without its report"
	$(VENV)/bin/servescope demo

test: install system-deps llamacpp-deps
	PYTHONSAFEPATH=1 $(VENV)/bin/pytest -q

lint: install
	$(VENV)/bin/ruff check .

typecheck: install
	$(VENV)/bin/mypy servescope instrumentation redaction collector reference harness promql dashboards alerts report gateway

check: lint typecheck test

# The suite cannot flake: `make test` SOAK_RUNS times in a row with SOAK_HOGS busy-loop
# processes spinning beside it at the same priority; each run's result and time go to
# build/soak.log (tests/soak.py says how).
SOAK_RUNS ?= 3
SOAK_HOGS ?= 1
soak: install
	PYTHONSAFEPATH=1 $(PY) tests/soak.py --runs $(SOAK_RUNS) --hogs $(SOAK_HOGS) --log build/soak.log

# Each benchmark prints a table and one JSON line; the JSON lines go to benchmarks/results.jsonl
# and benchmarks/report.html draws them.
BENCH_RESULTS := benchmarks/results.jsonl
bench: install
	$(PIP) install -q --config-settings editable_mode=strict -e '.[$(EXTRAS),bench]'
	: > $(BENCH_RESULTS).new
	for b in $$(ls benchmarks/*.py | grep -v '/report.py$$'); do \
	  PYTHONSAFEPATH=1 $(PY) $$b | tee /dev/stderr | grep '^{' >> $(BENCH_RESULTS).new || exit 1; \
	done
	mv $(BENCH_RESULTS).new $(BENCH_RESULTS)
	$(MAKE) --no-print-directory bench-report

bench-report: install
	PYTHONSAFEPATH=1 $(PY) benchmarks/report.py $(BENCH_RESULTS) -o benchmarks/report.html

# The README's pictures: one figure of the benchmark report (from the committed JSON lines) and
# one of a demo run's dashboard report (a short demo against a real Prometheus).
docs-img: install prometheus-deps
	PYTHONSAFEPATH=1 $(PY) benchmarks/report.py $(BENCH_RESULTS) -o benchmarks/report.html \
	  --png docs/img/bench-report.png
	$(VENV)/bin/servescope demo --duration 30 --report build/demo-report.html \
	  --report-png docs/img/demo-report.png

install: $(VENV)/.deps $(VENV)/.editable

# Debian packages the integration tests run for real (apt-get update once, only when missing):
# Prometheus, Alertmanager, nginx, and Chromium (the report's browser test runs it headless).
system-deps:
	@$(call apt_install,$(PROMETHEUS_MISSING) $(ALERTMANAGER_MISSING) $(NGINX_MISSING) $(CHROMIUM_MISSING))

# llama.cpp's llama-server, the live third-party engine the suite scrapes: built once from the
# llama-cpp-python sdist's vendored source and cached outside the repository by version
# (deploy/llamacpp/build.sh; about 11 minutes on a fresh 2-core machine, nothing after).
llamacpp-deps: install
	@$(call apt_install,$(CMAKE_MISSING) $(CXX_MISSING))
	deploy/llamacpp/build.sh $(PY)

prometheus-deps:
	@$(call apt_install,$(PROMETHEUS_MISSING))

PROMETHEUS_MISSING = $$(command -v prometheus >/dev/null && command -v promtool >/dev/null || echo prometheus)
ALERTMANAGER_MISSING = $$(command -v prometheus-alertmanager >/dev/null && command -v amtool >/dev/null || echo prometheus-alertmanager)
NGINX_MISSING = $$(command -v nginx >/dev/null || [ -x /usr/sbin/nginx ] || echo nginx)
CHROMIUM_MISSING = $$(command -v chromium >/dev/null || echo chromium)
CMAKE_MISSING = $$(command -v cmake >/dev/null || echo cmake)
CXX_MISSING = $$(command -v c++ >/dev/null || echo g++)
define apt_install
missing="$(strip $(1))"; missing=$$(echo $$missing); \
if [ -n "$$missing" ]; then \
  echo "installing Debian packages: $$missing"; \
  SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
  $$SUDO apt-get -o DPkg::Lock::Timeout=600 update -qq && DEBIAN_FRONTEND=noninteractive \
    $$SUDO apt-get -o DPkg::Lock::Timeout=600 install -y -qq $$missing; \
fi
endef

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
