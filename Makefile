# Two commands on a fresh machine (see README): `make demo` and `make test`.
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python

.PHONY: install test demo bench clean

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q torch==2.13.0  # the CPU build, before anything pulls a CUDA one
	$(PY) -m pip install -q -e ".[test,bench,train]"
	touch $@

install: $(VENV)/.installed

test: install
	$(PY) -m pytest -q

bench: install
	$(PY) benchmarks/throughput.py
	$(PY) benchmarks/tournaments.py

demo: install
	$(VENV)/bin/meduris tournament --agents random,greedy,mcts:100,ppo --players 2 --games 180 --workers 2 --out results

clean:
	rm -rf $(VENV) build *.egg-info
