# Two commands on a fresh machine (see README): `make demo` and `make test`.
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
# RLlib pins gymnasium==1.2.2, so Ray and RLlib live in their own environment; its test run also
# covers the environments on that gymnasium (the main one has the newest)
RAY_VENV ?= .venv-ray
RAY_PY := $(RAY_VENV)/bin/python
RAY_TESTS := tests/test_rllib.py tests/test_ray.py tests/test_env_single_agent.py \
             tests/test_env_aec.py tests/test_env_pettingzoo.py tests/test_plugins_ray.py \
             tests/test_ray_address_ray.py
RAY_VECTOR_TESTS := tests/test_batch.py -k "vector_env or sb3 or make_vec or self_play"

.PHONY: install ray browser test demo bench clean model-3p model-4p model-search-2p

# (the example plug-in package is installed too: the tests play its entry-point agents)
BOT_EXAMPLE := examples/meduris-bot-example

$(VENV)/.installed: pyproject.toml $(BOT_EXAMPLE)/pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q torch==2.13.0  # the CPU build, before anything pulls a CUDA one
	$(PY) -m pip install -q -e ".[test,bench,train,web]"
	$(PY) -m pip install -q -e $(BOT_EXAMPLE)
	@echo "compiling the game kernels (once: numba caches them) ..."
	@out=$$(mktemp -d) && $(VENV)/bin/meduris tournament $(WARM_FLAGS) --out $$out > /dev/null \
	  && rm -rf $$out
	touch $@

$(RAY_VENV)/.installed: pyproject.toml $(BOT_EXAMPLE)/pyproject.toml
	$(PYTHON) -m venv $(RAY_VENV)
	$(RAY_PY) -m pip install -q --upgrade pip
	$(RAY_PY) -m pip install -q torch==2.13.0
	$(RAY_PY) -m pip install -q --no-compile -e ".[test,train,ray]"  # (Ray is vast: bytecode
	$(RAY_PY) -m pip install -q -e $(BOT_EXAMPLE)                     # when imported only)
	touch $@

install: $(VENV)/.installed

ray: $(RAY_VENV)/.installed

# The browser tests drive headless Chromium: Debian's, installed here when missing (as root,
# or with sudo), and run axe-core (the accessibility checker, from the npm registry, pinned)
# in the page: installed into .axe/ with Debian's npm. Where that is impossible they are
# skipped, unless MEDURIS_REQUIRE_BROWSER=1 (CI) makes them fail.
AXE_VERSION := 4.14.1
browser:
	@command -v chromium >/dev/null 2>&1 && command -v npm >/dev/null 2>&1 || { \
	  SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq \
	    chromium npm >/dev/null; } || echo "warning: could not install chromium and npm"
	@grep -qs '"version": "$(AXE_VERSION)"' .axe/node_modules/axe-core/package.json || \
	  npm install --prefix .axe --no-audit --no-fund --no-save --silent \
	    axe-core@$(AXE_VERSION) >/dev/null || echo "warning: could not install axe-core"

# The Ray environment is built while the main suite runs (pip mostly waits on the disk and the
# network; its output goes to .venv-ray.log, shown if it fails), then its suites run. (Building
# both environments at once from the start was measured slower: the two pips contend.)
test: install browser
	@$(MAKE) --no-print-directory ray > $(RAY_VENV).log 2>&1 & ray=$$!; \
	$(PY) -m pytest -q; main=$$?; \
	wait $$ray || { cat $(RAY_VENV).log; echo "make test: building $(RAY_VENV) failed"; exit 1; }; \
	$(RAY_PY) -m pytest -q -p no:nbmake -o addopts="" -m "not slow" $(RAY_TESTS) || exit 1; \
	$(RAY_PY) -m pytest -q -p no:nbmake -o addopts="" -m "not slow" $(RAY_VECTOR_TESTS) || exit 1; \
	exit $$main

bench: install
	$(PY) benchmarks/throughput.py
	$(PY) benchmarks/training.py
	$(PY) benchmarks/tournaments.py
	$(PY) benchmarks/records.py
	$(PY) benchmarks/web.py

# The demo's results go to their own folder, replaced on every run (so it works every time and
# never touches the results of your own tournaments in results/); DEMO_GAMES and DEMO_OUT let the
# test suite run `make demo` itself, twice, small (tests/test_models_and_papercuts.py)
DEMO_GAMES ?= 180
DEMO_OUT ?= results/demo
DEMO_FLAGS := --agents random,greedy,mcts:100,ppo --players 2 --games $(DEMO_GAMES) --workers 2 --out $(DEMO_OUT) --force
# the install plays a few games of the demo's agents: numba compiles (and caches) the kernels
# then, not in the first minute of the first tournament
WARM_FLAGS := --agents random,greedy,mcts:5,ppo --players 2 --games 12 --workers 2 --no-progress

demo: install
	$(VENV)/bin/meduris tournament $(DEMO_FLAGS)

# The shipped 3- and 4-player models, one command each (docs/training.md, the shipped models):
# the PPO run, then az-train's self-play from the PPO run's best.pt, and the file it ships.
# --force: a second run replaces the first one's runs/ folders (its results are the same).
MEDURIS := $(VENV)/bin/meduris
AZ_FLAGS := --learning-rate 0.0002 --seed 1 --force --no-progress
model-3p: install
	$(MEDURIS) train --config train/configs/ppo_3p.yaml --out runs/ppo_3p --force
	$(MEDURIS) az-train --players 3 --warm-start runs/ppo_3p/best.pt --moves 600000 \
	    --eval-every 100000 --eval-games 150 --eval-ppo runs/ppo_3p/best.pt $(AZ_FLAGS) \
	    --out runs/az_3p
	cp runs/az_3p/policy.pt agents/models/ppo_3p.pt

model-4p: install
	$(MEDURIS) train --config train/configs/ppo_4p.yaml --out runs/ppo_4p --force
	$(MEDURIS) az-train --players 4 --warm-start runs/ppo_4p/best.pt --value-positions 800000 \
	    --moves 1200000 --eval-every 200000 --eval-games 200 --eval-ppo runs/ppo_4p/best.pt \
	    $(AZ_FLAGS) --out runs/az_4p
	cp runs/az_4p/best.pt agents/models/ppo_4p.pt

# The shipped 2-player search's networks (docs/training.md, the 2-player search): the shipped
# policy with a value network fitted to the search's own games (Gumbel self-play with the
# shipped networks), labelled half with their results, half with the search's values.
model-search-2p: install
	$(MEDURIS) value agents/models/ppo_2p.pt --games-of search --positions 800000 --fine-tune \
	    --epochs 2 --learning-rate 0.0003 --seed 1 --force --no-progress \
	    --out agents/models/search_2p.pt

clean:
	rm -rf $(VENV) $(RAY_VENV) build *.egg-info
