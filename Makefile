# wifitcp: `make run` builds everything and runs the flagship reproduction;
# `make test` installs what the tests need and runs every test.
#
# Python packages go into ./.venv only (never system-wide). Rust is installed
# with rustup only when cargo is missing.

SHELL := /bin/bash
.DEFAULT_GOAL := help

PYTHON ?= python3
VENV := .venv
VPY := $(VENV)/bin/python
PIP := $(VPY) -m pip --disable-pip-version-check --no-input -q
PY_DEPS := maturin duckdb numpy matplotlib pytest tqdm
export PATH := $(HOME)/.cargo/bin:$(PATH)
export CARGO_TARGET_DIR ?= $(CURDIR)/target
export PIP_PROGRESS_BAR := off

FLAGSHIP := scenarios/dcf-saturation.toml
FLAGSHIP_DB := results/dcf-saturation.duckdb
JOBS ?=
JOBS_ARG := $(if $(JOBS),--jobs $(JOBS),)
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: help run test bench build rust venv clean

help:
	@echo "make run    build everything, run $(FLAGSHIP), print sim vs Bianchi"
	@echo "make test   install test dependencies, cargo test + pytest"
	@echo "make bench  engine event rate (bench/), then per-configuration timing via Python"
	@echo "make build  build the Rust core and install the Python package into $(VENV)"

# -- toolchains --------------------------------------------------------------
rust:
	@if ! command -v cargo >/dev/null 2>&1; then \
	  echo "cargo not found: installing Rust with rustup"; \
	  command -v curl >/dev/null 2>&1 || { $(SUDO) apt-get update -qq && \
	    $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq curl ca-certificates; }; \
	  curl --proto '=https' --tlsv1.2 -sSf https://sh.rustup.rs | sh -s -- -y --profile minimal; \
	fi
	@command -v cc >/dev/null 2>&1 || { echo "no C linker: installing build-essential"; \
	  $(SUDO) apt-get update -qq && \
	  $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq build-essential; }

# A venv with pip; Debian ships venv's ensurepip separately (python3-venv).
$(VENV)/.deps: pyproject.toml
	@if ! $(VPY) -m pip --version >/dev/null 2>&1; then \
	  rm -rf $(VENV); \
	  if ! $(PYTHON) -m venv $(VENV) >/dev/null 2>&1; then \
	    rm -rf $(VENV); \
	    echo "'$(PYTHON) -m venv' failed: installing python3-venv"; \
	    $(SUDO) apt-get update -qq && \
	    $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-venv && \
	    $(PYTHON) -m venv $(VENV); \
	  fi; \
	fi
	$(PIP) install --upgrade pip
	$(PIP) install $(PY_DEPS)
	@touch $@

venv: $(VENV)/.deps

# -- build -------------------------------------------------------------------
build: rust venv
	VIRTUAL_ENV=$(CURDIR)/$(VENV) $(VENV)/bin/maturin develop --release --quiet

# -- the flagship reproduction -----------------------------------------------
# For now: DCF saturation (802.11a/g/b, n = 1..50) against Bianchi's model,
# once with the standard MAC and once with the model's own assumptions.
BIANCHI_MAC := --set scenario.name=dcf-saturation-bianchi-mac \
	--set mac.backoff_rule=busy-slot-counts --set mac.collision_restart=eifs
run: build
	$(VENV)/bin/wifitcp run $(FLAGSHIP) --out $(FLAGSHIP_DB) --replace $(JOBS_ARG) > /dev/null
	$(VENV)/bin/wifitcp run $(FLAGSHIP) $(BIANCHI_MAC) --out $(FLAGSHIP_DB) --replace \
	  $(JOBS_ARG) > /dev/null
	@echo
	$(VENV)/bin/wifitcp compare $(FLAGSHIP_DB)

# -- tests -------------------------------------------------------------------
test: build
	cargo test --workspace
	$(VPY) -m pytest python/tests -q

# Engine event rate vs the bare event-queue loop, per-scenario wall time and
# peak memory (bench/, the Rust engine alone), then the same through Python.
bench: build
	cargo run --release -q -p wifitcp-bench --bin engine
	cargo run --release -q -p wifitcp-bench --bin scenario -- r2
	$(VENV)/bin/wifitcp bench scenarios/quick-check.toml
	$(VENV)/bin/wifitcp bench scenarios/dcf-saturation.toml --set scenario.duration_s=5

clean:
	rm -rf $(VENV) results python/wifitcp/_core*.so
