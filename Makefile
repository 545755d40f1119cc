# Two commands for a fresh machine: `make demo` and `make test`. Both build .venv on first use.
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo test bench fuzz lint clean browser

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $@

demo: $(STAMP)
	$(BIN)/mote run

test: $(STAMP)
	$(BIN)/ruff check mote tests benchmarks scripts
	@command -v chromium >/dev/null || echo "note: no chromium: the --html page tests skip (make browser installs it)"
	$(BIN)/python -m pytest -q -n 2 -rs

bench: $(STAMP)
	$(BIN)/python benchmarks/run.py

# A long mutation-fuzz campaign (4 to 10 minutes on 2 cores); its counts go into benchmarks/RESULTS.md.
FUZZ_CASES ?= 20000
fuzz: $(STAMP)
	$(BIN)/python scripts/fuzz.py --cases $(FUZZ_CASES)

# Headless Chromium renders the --html pages in tests/report_html (they skip, saying so, without it).
# Debian's package; apt-get needs root (or sudo).
browser:
	@command -v chromium >/dev/null && echo "chromium: $$(command -v chromium)" || { \
	  SUDO=$$([ "$$(id -u)" = 0 ] || echo sudo); $$SUDO apt-get update -qq && $$SUDO apt-get install -y chromium; }

lint: $(STAMP)
	$(BIN)/ruff check mote tests benchmarks scripts

clean:
	rm -rf $(VENV) build
