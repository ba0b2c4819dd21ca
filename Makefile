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
PY_DEPS := maturin duckdb scipy jinja2 matplotlib pytest tqdm pandas polars pyarrow 'dask[distributed]' dask-jobqueue nbclient nbformat ipykernel 'flent>=2.3'
export PATH := $(HOME)/.cargo/bin:$(PATH)
export CARGO_TARGET_DIR ?= $(CURDIR)/target
export PIP_PROGRESS_BAR := off

FLAGSHIP := scenarios/keceli-fairness.toml
FLAGSHIP_DB := results/keceli-fairness.duckdb
DCF := scenarios/dcf-saturation.toml
DCF_DB := results/dcf-saturation.duckdb
# `make run FRESH=` resumes the flagship campaign instead of starting over
FRESH ?= --replace
JOBS ?=
JOBS_ARG := $(if $(JOBS),--jobs $(JOBS),)
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: help run validate-dcf report test test-tools docs-check docs-check-slow fuzz soak bench bench-campaign build wheel sdist rust venv clean

help:
	@echo "make run           build everything, run $(FLAGSHIP) (Keceli Figs. 3-4),"
	@echo "                   write its figures and the HTML report (results/report/)"
	@echo "make validate-dcf  DCF saturation (802.11a/g/b, n = 1..50) vs Bianchi's model"
	@echo "make report        rebuild results/report/index.html from the stores in results/"
	@echo "make test          install test dependencies, cargo test + pytest + docs-check"
	@echo "make docs-check    rerun the numbers the documents quote; fail if one drifted"
	@echo "make docs-check-slow  the same and the sections whose runs take minutes (not in make test)"
	@echo "make fuzz          fuzz the wire codec: FUZZ_RUNS (10 million) executions per target"
	@echo "make soak          random scenarios over every feature: SOAK_CASES (3000) runs"
	@echo "make bench         engine event rate (bench/), then per-configuration timing"
	@echo "make bench-campaign  the 450-run Keceli Fig. 3 campaign on 2 cores, wall time"
	@echo "make build         build the Rust core and install the Python package into $(VENV)"
	@echo "make wheel         the abi3 wheel (package, compiled core, scenarios, report) in dist/"
	@echo "make sdist         the source distribution (builds with Rust) in dist/"

# -- toolchains --------------------------------------------------------------
rust:
	@if ! command -v cargo >/dev/null 2>&1; then \
	  echo "cargo not found: installing Rust with rustup"; \
	  command -v curl >/dev/null 2>&1 || { $(SUDO) apt-get update -qq && \
	    $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq curl ca-certificates; }; \
	  curl --proto '=https' --tlsv1.2 -sSf https://sh.rustup.rs | sh -s -- -y --profile minimal; \
	fi
	@{ cargo fmt --version && cargo clippy --version; } >/dev/null 2>&1 || \
	  rustup component add rustfmt clippy
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
# Profile-guided when llvm-profdata is available (scripts/build-core explains;
# WIFITCP_PGO=0 builds without).
build: rust venv
	scripts/build-core

# The abi3 wheel (one for every CPython >= 3.9 on this platform), built like
# the venv's core (profile-guided, same target directory: an up-to-date
# `make build` is reused and only packed), and the sdist (`pip install` of it
# compiles the core: Rust needed). Both into dist/.
DIST := dist
wheel: rust venv
	scripts/build-core --wheel $(DIST)

sdist: venv
	$(VENV)/bin/maturin sdist --out $(DIST)

# -- the flagship reproduction -----------------------------------------------
# Keceli et al. Figs. 3-4: Jain index and total uplink goodput vs n = 1..15
# uplink TCP flows for default 802.11, grouped ACK congestion control and
# Pilosof (135 runs of 100 s), then its figures and the HTML report.
run: build
	$(VENV)/bin/wifitcp run $(FLAGSHIP) --out $(FLAGSHIP_DB) $(FRESH) $(JOBS_ARG)
	$(VENV)/bin/wifitcp plot $(FLAGSHIP_DB) --x wlan.stations --y jain_index --by ap.qdisc.kind
	$(VENV)/bin/wifitcp plot $(FLAGSHIP_DB) --x wlan.stations --y aggregate_mbps \
	  --by ap.qdisc.kind > /dev/null
	$(VENV)/bin/wifitcp report
	@echo "open results/report/index.html"

report: build
	$(VENV)/bin/wifitcp report

# DCF saturation (802.11a/g/b, n = 1..50) against Bianchi's model, once with
# the standard MAC and once with the model's own assumptions.
BIANCHI_MAC := --set scenario.name=dcf-saturation-bianchi-mac \
	--set mac.backoff_rule=busy-slot-counts --set mac.collision_restart=eifs
validate-dcf: build
	$(VENV)/bin/wifitcp run $(DCF) --out $(DCF_DB) --replace $(JOBS_ARG) --quiet
	$(VENV)/bin/wifitcp run $(DCF) $(BIANCHI_MAC) --out $(DCF_DB) --replace \
	  $(JOBS_ARG) --quiet
	@echo
	$(VENV)/bin/wifitcp compare $(DCF_DB)

# -- tests -------------------------------------------------------------------
# Programs some tests drive: Debian's chromium (the report page in a real
# headless browser), zsh (the completion script's syntax), tshark (reads
# the pcap the wire codec writes, crates/wire/tests/tshark.rs), iperf3,
# tcpdump and ping (real traffic and its capture through the emulator,
# python/tests/test_emulate.py), Slurm's daemons and client (slurm-wlm, 9
# Debian packages, 3.6 MB to fetch, about 15 s to install: a one-node cluster
# the campaign test starts itself, python/tests/test_slurm.py). Each test
# says why it is skipped when its program is missing.
test-tools:
	@command -v chromium >/dev/null 2>&1 || command -v chromium-headless-shell >/dev/null 2>&1 || \
	  { echo "installing chromium (headless report test)"; $(SUDO) apt-get update -qq && \
	    $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium; } || \
	  echo "chromium could not be installed: the browser test will be skipped"
	@command -v zsh >/dev/null 2>&1 || \
	  { echo "installing zsh (completion test)"; $(SUDO) apt-get update -qq && \
	    $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq zsh; } || \
	  echo "zsh could not be installed: the zsh completion check will be skipped"
	@command -v tshark >/dev/null 2>&1 || \
	  { echo "installing tshark (pcap test)"; $(SUDO) apt-get update -qq && \
	    $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq tshark >/dev/null; } || \
	  echo "tshark could not be installed: the pcap test will say SKIPPED"
	@command -v slurmctld >/dev/null 2>&1 && command -v slurmd >/dev/null 2>&1 || \
	  { echo "installing slurm-wlm (a one-node Slurm for the dask-jobqueue test)"; $(SUDO) apt-get update -qq && \
	    $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
	    slurm-wlm >/dev/null; } || \
	  echo "slurm-wlm could not be installed: the Slurm test will be skipped"
	@command -v iperf3 >/dev/null 2>&1 && command -v iperf >/dev/null 2>&1 && command -v tcpdump >/dev/null 2>&1 && command -v ping >/dev/null 2>&1 || \
	  { echo "installing iperf3, iperf, tcpdump and ping (emulator tests, Flent)"; $(SUDO) apt-get update -qq && \
	    $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq iperf3 iperf tcpdump iputils-ping >/dev/null; } || \
	  echo "iperf3/iperf/tcpdump/ping could not be installed: those emulator tests will be skipped"

test: build test-tools
	cargo fmt --all --check
	cargo clippy --workspace --all-targets -q -- -D warnings
	cargo test --workspace
	$(VPY) -m pytest python/tests -q
	$(VPY) scripts/docs-check

# Rerun the cheap numbers docs/performance.md, docs/results.md and
# docs/validation.md quote (about 23 s of CPU, 57 s of wall time on the 2
# shared cores at a load average of 9); fails when one drifts
# (scripts/docs-check, whose docstring lists what is checked).
docs-check: build
	$(VPY) scripts/docs-check

# docs-check and the validation.md sections whose wifitcp runs take
# minutes (scripts/docs-check --slow; not part of make test).
docs-check-slow: build
	$(VPY) scripts/docs-check --slow

# The wire codec's libFuzzer targets (fuzz/, nightly and cargo-fuzz, both
# installed when missing): FUZZ_RUNS executions per target, the corpus kept
# in fuzz/corpus/<target>/ and minimised; FUZZ_JOBS targets at once;
# FUZZ_TARGETS a subset. Prints executions, time, coverage and findings.
FUZZ_RUNS ?= 10000000
FUZZ_JOBS ?= 1
FUZZ_TARGETS ?=
fuzz: rust
	FUZZ_RUNS=$(FUZZ_RUNS) FUZZ_JOBS=$(FUZZ_JOBS) scripts/fuzz $(FUZZ_TARGETS)

# Random valid scenarios over every feature (crates/sim/tests/scenario_fuzz.rs),
# SOAK_CASES of them (`cargo test` runs 300); prints what was rejected and
# what the finished runs covered.
SOAK_CASES ?= 3000
soak: rust
	WIFITCP_SCENARIO_CASES=$(SOAK_CASES) cargo test -p wifitcp-sim \
	  --test scenario_fuzz -- --nocapture

# Engine event rate vs the bare event-queue loop, per-scenario wall time and
# peak memory (bench/, the Rust engine alone), then the same through Python.
# The bench binaries are profile-guided like the core (scripts/build-core).
bench: build
	B=$$(scripts/build-core --bench | tail -1) && $$B/engine && $$B/scenario r2
	$(VENV)/bin/wifitcp bench scenarios/quick-check.toml
	$(VENV)/bin/wifitcp bench scenarios/dcf-saturation.toml --set scenario.duration_s=5

# The 450-run campaign behind Keceli Fig. 3 (15 n x 3 schemes x 10 seeds x
# 100 s) on 2 worker processes; prints the wall time.
bench-campaign: build
	bench/campaign

clean:
	rm -rf $(VENV) results $(DIST) python/wifitcp/_core*.so
