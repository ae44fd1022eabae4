# Two commands on a fresh machine (see README): `make demo` and `make test`.
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python

.PHONY: install browser test demo bench clean

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q torch==2.13.0  # the CPU build, before anything pulls a CUDA one
	$(PY) -m pip install -q -e ".[test,bench,train]"
	touch $@

install: $(VENV)/.installed

# The HTML replay test drives headless Chromium: Debian's, installed here when missing (as root,
# or with sudo). Where that is impossible the test is skipped, unless MEDURIS_REQUIRE_BROWSER=1
# (CI) makes it fail.
browser:
	@command -v chromium >/dev/null 2>&1 || { \
	  SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq \
	    chromium >/dev/null; } || echo "warning: could not install chromium"

test: install browser
	$(PY) -m pytest -q

bench: install
	$(PY) benchmarks/throughput.py
	$(PY) benchmarks/tournaments.py
	$(PY) benchmarks/records.py

demo: install
	$(VENV)/bin/meduris tournament --agents random,greedy,mcts:100,ppo --players 2 --games 180 --workers 2 --out results

clean:
	rm -rf $(VENV) build *.egg-info
