"""Every command of the docs still runs.

The fenced ```bash / ```sh / ```console and ```python blocks of README.md and docs/*.md are read
(blocks without a language are output or trees, not commands). Each Python block runs as a
program in a temporary directory, as written or with the few substitutions of ``PYTHON`` that
make it cheap (fewer steps, fewer games), unless ``PYTHON`` says why it cannot run (then it must
at least compile). Each shell command (one line, ``\\`` continuations joined, ``# comments`` and
``$`` prompts dropped) must be in ``SHELL``, checked one of three ways:

* ``run``: a command runs from the repo root and must exit 0: the doc's command itself, or a
  cheap variant of it (fewer games, a smaller search, output into a temporary directory);
* ``flags``: ``<program> --help`` runs (the command, module or script exists) and names every
  ``--flag`` the doc's command uses, for commands that train for minutes or serve forever;
* ``skip``: not run, with the reason.

A command of the docs in none of them fails the test, so a new docs command cannot go unchecked;
an entry of ``SHELL`` or ``PYTHON`` that no longer matches the docs fails too. All checks start
at once in a few threads (the whole file takes well under a minute on two cores).

The ``meduris ...`` commands written inline in the prose and tables (in backticks, about 120 of
them) are not run, but each must parse with the CLI's own parser: no renamed or removed
subcommand, flag or choice, no value of the wrong kind.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
import tempfile
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import NamedTuple

import pytest

REPO = Path(__file__).resolve().parent.parent
DOCS = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]
FENCE = re.compile(r"^```(\w*)[^\n]*\n(.*?)^```[ \t]*$", re.M | re.S)
SHELL_LANGS = {"bash", "sh", "console"}
TIMEOUT = 180  # seconds per check: generous for a loaded machine, none takes near it idle

RUN, FLAGS, SKIP = "run", "flags", "skip"
RAY = "needs the Ray environment (.venv-ray, `make ray`); tests/test_ray.py and test_rllib.py " \
      "run Ray there"

# Every shell command of the docs (as written, comments dropped) -> how it is checked.
SHELL: dict[str, tuple[str, str]] = {
    # README.md
    "make demo": (RUN, "make -n demo"),  # the target and its recipe; -n: nothing installed or
    # played (the recipe's tournament is the one of docs/agents.md, run below, cheaper)
    "make test": (SKIP, "the whole suite, this file included (and `make -n test` would run it: "
                        "its recipe calls $(MAKE))"),
    # docs/agents.md
    "meduris tournament --agents random,greedy,mcts:200 --players 2 --games 400 --seed 0 "
    "--workers 2 --out results/":
        (RUN, "meduris tournament --agents random,greedy,mcts:20 --players 2 --games 6 --seed 0 "
              "--workers 2 --out {tmp}/results"),
    # docs/interop.md: Ray
    'pip install -e ".[ray]"': (SKIP, "installs packages (`make ray` does, into .venv-ray)"),
    "meduris tournament --agents greedy,mcts:200 --games 400 --backend ray":
        (FLAGS, "meduris tournament"),
    "ray start --head --port 6379": (SKIP, "starts a Ray cluster node: " + RAY),
    "ray start --address HEAD_IP:6379": (SKIP, "joins a Ray cluster: " + RAY),
    "meduris tournament --agents greedy,mcts:200 --games 4000 --backend ray --address "
    "HEAD_IP:6379 --workers 64": (FLAGS, "meduris tournament"),
    # docs/interop.md: RLlib, whose --help needs no Ray
    ".venv-ray/bin/python -m meduris_rl.train.meduris.rllib_ppo --players 2 --iterations 50 "
    "--out runs/rllib_2p":
        (FLAGS, "python -m meduris_rl.train.meduris.rllib_ppo"),
    ".venv-ray/bin/python -m meduris_rl.train.meduris.rllib_ppo --players 4 --iterations 50 "
    "--out runs/rllib_4p "
    "--per-seat": (FLAGS, "python -m meduris_rl.train.meduris.rllib_ppo"),
    ".venv-ray/bin/python -m meduris_rl.train.meduris.rllib_ppo --players 2 --iterations 100 "
    "--out runs/rllib_2p "
    "--resume runs/rllib_2p/checkpoint": (FLAGS, "python -m meduris_rl.train.meduris.rllib_ppo"),
    ".venv-ray/bin/python -m meduris_rl.train.meduris.rllib_ppo --players 2 --iterations 500 "
    "--out runs/rllib_2p "
    "--address HEAD_IP:6379 --env-runners 32": (FLAGS, "python -m "
                                                       "meduris_rl.train.meduris.rllib_ppo"),
    ".venv-ray/bin/meduris tournament --agents rllib:runs/rllib_2p/checkpoint,greedy,random":
        (SKIP, "plays an RLlib checkpoint that a training run writes: " + RAY),
    ".venv-ray/bin/meduris rllib-train --players 2 --out runs/rllib_2p":
        (FLAGS, "meduris rllib-train"),
    # docs/testing.md: what the commands select (pytest exits 5 when it selects nothing)
    ".venv/bin/pytest tests/test_rules_turn.py":
        (RUN, ".venv/bin/pytest tests/test_rules_turn.py --collect-only -q"),
    ".venv/bin/pytest tests -k druid": (RUN, ".venv/bin/pytest tests -k druid --collect-only -q"),
    ".venv/bin/pytest tests/test_env_*.py":
        (RUN, ".venv/bin/pytest tests/test_env_*.py --collect-only -q"),
    ".venv/bin/pytest notebooks/": (RUN, ".venv/bin/pytest notebooks/ --collect-only -q"),
    # docs/training.md: runs of minutes to hours, on runs/ that training writes
    "meduris train --config train/configs/ppo_2p.yaml --out runs/ppo_2p": (FLAGS, "meduris train"),
    "meduris train --players 3 --steps 2000000 --out runs/p3": (FLAGS, "meduris train"),
    "meduris train --config train/configs/ppo_2p.yaml --shaping 0 --out runs/plain":
        (FLAGS, "meduris train"),
    "meduris train --resume runs/ppo_2p/checkpoint.zip --steps 20000000": (FLAGS, "meduris train"),
    "meduris train --game druids --option circles=4 --out runs/druids_c4":
        (FLAGS, "meduris train"),
    "meduris train --game stone_age --option mammoth_herd=on --out runs/herd":
        (FLAGS, "meduris train"),
    "meduris train --option exchange=manual --option max_turns=600 --out runs/m":
        (FLAGS, "meduris train"),
    # docs/training.md: the az-train runs and their measurements (minutes each)
    "meduris az-train --players 3 --warm-start runs/ppo_3p/best.pt --moves 600000 "
    "--learning-rate 0.0002 --eval-every 100000 --eval-games 150 --eval-ppo runs/ppo_3p/best.pt "
    "--seed 1 --out runs/az_3p":
        (FLAGS, "meduris az-train"),
    "meduris tournament --agents ppo:runs/az_3p/policy.pt,ppo:runs/ppo_3p/best.pt,"
    "ppo:runs/ppo_3p/best.pt --players 3 --games 300 --workers 1 --seed 7":
        (FLAGS, "meduris tournament"),
    "meduris az-train --players 4 --warm-start runs/ppo_4p/best.pt --value-positions 800000 "
    "--moves 1200000 --learning-rate 0.0002 --eval-every 200000 --eval-games 200 "
    "--eval-ppo runs/ppo_4p/best.pt --seed 1 --out runs/az_4p": (FLAGS, "meduris az-train"),
    "make model-3p": (RUN, "make -n model-3p"),  # the recipe; -n: nothing trained
    "make model-4p": (RUN, "make -n model-4p"),
    "make model-search-2p": (RUN, "make -n model-search-2p"),
    "meduris tournament --agents az-fast:430:agents/models/search_2p.pt,az:200 --games 400 "
    "--workers 2 --seed 15": (FLAGS, "meduris tournament"),
    "meduris tournament --agents ppo:runs/az_4p/best.pt,ppo:runs/ppo_4p/best.pt,"
    "ppo:runs/ppo_4p/best.pt,ppo:runs/ppo_4p/best.pt --players 4 --games 720 --workers 2 "
    "--seed 11": (FLAGS, "meduris tournament"),
    "meduris az-train --players 2 --moves 1000000 --learning-rate 0.0002 --greedy-share 0.25 "
    "--eval-every 250000 --eval-games 200 --seed 1 --out runs/az_2p_span":
        (FLAGS, "meduris az-train"),
    "meduris duel ppo:runs/az_2p_span/best.pt ppo --elo0 0 --elo1 100 --max-games 400 --seed 1":
        (FLAGS, "meduris duel"),
    "meduris distill agents/models/ppo_2p.pt --teacher az-fast:200 --targets value --games 800 "
    "--epochs 3 --lr 0.0003 --seed 1 --data runs/az_2p_r1.npz --out runs/az_2p_r1.pt":
        (FLAGS, "meduris distill"),
    "meduris duel az-fast:600:runs/az_2p_r1.pt az:200 --elo0 0 --elo1 100 --max-games 400 "
    "--seed 2": (FLAGS, "meduris duel"),
    # docs/druids.md: the shipped Druids model's run and its measurement
    "meduris train --config train/configs/druids_ppo_2p.yaml --out runs/druids_ppo_2p":
        (FLAGS, "meduris train"),
    "meduris tournament --game druids --agents ppo:runs/druids_ppo_2p/best.pt,greedy --games 400 "
    "--seed 1": (FLAGS, "meduris tournament"),
    "tensorboard --logdir runs/ppo_2p/tb": (SKIP, "TensorBoard's own viewer, serving a run's logs"),
    "python benchmarks/training.py --curve runs/ppo_2p --other-games 96 --with-evaluations "
    "--plot docs/learning_curve_2p.png": (FLAGS, "python benchmarks/training.py"),
    "python benchmarks/training.py --curve runs/p3 --against mcts:100 --plot curve.png":
        (FLAGS, "python benchmarks/training.py"),
    # docs/training.md: the 3- and 4-player runs' curves in ladder Elo (a finished run's folders)
    "python benchmarks/training.py --az-curve runs/az_3p --ppo-run runs/ppo_3p --ladder "
    "runs/ladder.sqlite --plot docs/learning_curve_az_3p.png":
        (FLAGS, "python benchmarks/training.py"),
    "python benchmarks/training.py --az-curve runs/az_4p --ppo-run runs/ppo_4p --ladder "
    "runs/ladder.sqlite --plot docs/learning_curve_az_4p.png":
        (FLAGS, "python benchmarks/training.py"),
    "meduris value runs/p3/best.pt --out runs/p3/best_v.pt": (FLAGS, "meduris value"),
    "meduris distill runs/ppo_2p/best.pt --out runs/ppo_2p/distilled.pt":
        (FLAGS, "meduris distill"),
    # docs/web.md: a server runs until stopped (tests/test_flags.py and test_web*.py serve)
    "meduris serve": (FLAGS, "meduris serve"),
    "meduris serve --port 8080 --db ~/meduris.sqlite": (FLAGS, "meduris serve"),
    # docs/bring_your_own_agent.md: the plug-ins of examples/ (tests/test_plugins.py plays them)
    "meduris tournament --agents examples/plugins/mybots.py:Cautious:5,greedy,mcts:50 --games 60 "
    "--out results/": (RUN, "meduris tournament --agents examples/plugins/mybots.py:Cautious:5,"
                            "greedy,mcts:5 --games 6 --no-progress --out {tmp}/results"),
    "meduris play --opponents examples/plugins/mybots.py:Cautious": (FLAGS, "meduris play"),
    "PYTHONPATH=examples/plugins meduris tournament --agents mybots:Cautious,greedy --games 20 "
    "--out results/": (RUN, "PYTHONPATH=examples/plugins meduris tournament --agents "
                            "mybots:Cautious,greedy --games 2 --no-progress --out {tmp}/results"),
    "pip install -e examples/meduris-bot-example":
        (SKIP, "installs a package (make install does, into .venv and .venv-ray)"),
    "meduris agents": (RUN, "meduris agents"),
    "meduris tournament --agents cautious:7,first-legal,greedy --games 30 --out results/":
        (RUN, "meduris tournament --agents cautious:7,first-legal,greedy --games 6 --no-progress "
              "--out {tmp}/results"),
    "meduris tournament --agents 'cmd:python3 examples/plugins/mybot.py,greedy,mcts:50' --games 30 "
    "--out results/": (RUN, "meduris tournament --agents 'cmd:python3 examples/plugins/mybot.py,"
                            "greedy,mcts:5' --games 6 --no-progress --out {tmp}/results"),
    # docs/agents.md and bring_your_own_agent.md: the ladder (2 games: one pair against greedy)
    "meduris ladder add mcts:300 --games 40": (RUN, "meduris ladder add random --games 2 "
                                               "--workers 1 --no-progress --db {tmp}/l1.sqlite"),
    "meduris ladder show --png ladder.png": (RUN, "meduris ladder show --db "
                                             "agents/data/ladder_anchors.sqlite --png "
                                             "{tmp}/ladder.png"),
    "meduris ladder add examples/plugins/mybots.py:Cautious:5 --games 40":
        (RUN, "meduris ladder add examples/plugins/mybots.py:Cautious:5 --games 2 --workers 1 "
              "--no-progress --db {tmp}/l2.sqlite"),
    "meduris ladder add 'cmd:python3 examples/plugins/mybot.py' --games 40 --move-time 2":
        (RUN, "meduris ladder add 'cmd:python3 examples/plugins/mybot.py' --games 2 --workers 1 "
              "--move-time 2 --no-progress --db {tmp}/l3.sqlite"),
    # docs/bring_your_own_agent.md: duels (a few games; greedy against itself is 100 fast ones)
    "meduris duel examples/plugins/mybots.py:Cautious:7 examples/plugins/mybots.py:Cautious:5":
        (RUN, "meduris duel examples/plugins/mybots.py:Cautious:7 "
              "examples/plugins/mybots.py:Cautious:5 --max-games 4 --workers 1 --no-progress"),
    "meduris duel 'cmd:python3 examples/plugins/mybot.py' mcts:200 --elo0 0 --elo1 20 --alpha "
    "0.05 --beta 0.05 --max-games 10000 --workers 2 --seed 0 --json":
        (RUN, "meduris duel 'cmd:python3 examples/plugins/mybot.py' mcts:5 --elo0 0 --elo1 20 "
              "--alpha 0.05 --beta 0.05 --max-games 4 --workers 1 --seed 0 --json "
              "--no-progress"),
    "meduris duel mcts:200 greedy": (RUN, "meduris duel mcts:5 greedy --max-games 4 --workers 1 "
                                          "--no-progress"),
    "meduris duel greedy greedy": (RUN, "meduris duel greedy greedy --workers 1 --no-progress"),
}

# Python blocks that do not run as written: (doc, a text only that block of the doc has) ->
# ("cheaper", {old: new, ...}) or ("skip", reason).
CHEAPER = "cheaper"
PYTHON: dict[tuple[str, str], tuple[str, dict[str, str] | str]] = {
    ("docs/agents.md", "GameRecord.from_state(state"):
        (SKIP, "a menu of one-liners on the reader's own objects (state, env, bots), not a "
               "program"),
    ("docs/environments.md", "learn(10_000)"):
        (CHEAPER, {'MaskablePPO("MlpPolicy", env)': 'MaskablePPO("MlpPolicy", env, n_steps=64)',
                   "learn(10_000)": "learn(64)"}),
    ("docs/environments.md", "range(10_000)"): (CHEAPER, {"range(10_000)": "range(100)"}),
    ("docs/environments.md", "learn(1_000_000)"):
        (CHEAPER, {"num_envs=256": "num_envs=8", "learn(1_000_000)": "learn(512)"}),
    ("docs/interop.md", "pyspiel.random_sim_test"): (CHEAPER, {"num_sims=5": "num_sims=1"}),
    # a bot that reads the protocol from stdin: given one game's lines instead
    ("docs/bring_your_own_agent.md", "# examples/plugins/mybot.py"):
        (CHEAPER, {"for line in sys.stdin:": 'for line in [\'{"type": "hello"}\', '
                   '\'{"type": "new_game", "seed": 1}\', \'{"type": "decide", "legal": '
                   '[[7, "x"]]}\', \'{"type": "quit"}\']:'}),
}


class Snippet(NamedTuple):
    doc: str  # path from the repo root
    line: int  # of the opening fence
    lang: str
    text: str


def snippets() -> list[Snippet]:
    found = []
    for path in DOCS:
        text = path.read_text()
        for m in FENCE.finditer(text):
            if m.group(1) in SHELL_LANGS | {"python"}:
                found.append(Snippet(str(path.relative_to(REPO)), text.count("\n", 0, m.start())
                                     + 1, m.group(1), m.group(2)))
    return found


def normal(command: str) -> str:
    """A command as the shell reads it, comments dropped, in one spelling."""
    return shlex.join(shlex.split(command, comments=True))


def shell_commands(snippet: Snippet) -> list[str]:
    lines = snippet.text.replace("\\\n", " ").splitlines()
    if snippet.lang == "console":  # commands after a prompt; the other lines are their output
        lines = [line.lstrip()[2:] for line in lines if line.lstrip().startswith("$ ")]
    return [c for c in map(normal, lines) if c]


def doc_commands() -> list[tuple[Snippet, str]]:
    return [(s, c) for s in snippets() if s.lang != "python" for c in shell_commands(s)]


def python_blocks() -> list[tuple[Snippet, tuple | None, str]]:
    """Each Python block with its PYTHON entry (or None) and that entry's key text."""
    found = []
    for s in snippets():
        if s.lang == "python":
            keys = [k for k in PYTHON if k[0] == s.doc and k[1] in s.text]
            assert len(keys) <= 1, f"{s.doc}:{s.line} matches several PYTHON entries {keys}"
            found.append((s, PYTHON[keys[0]] if keys else None, keys[0][1] if keys else ""))
    return found


SHELL_TABLE = {normal(k): v for k, v in SHELL.items()}


# --- running ------------------------------------------------------------------------------------
def _env() -> dict[str, str]:
    venv = str(Path(sys.executable).parent)  # `meduris`, `python`, `pytest` of this venv first
    return {**os.environ, "PATH": f"{venv}:{os.environ.get('PATH', '')}", "MPLBACKEND": "Agg",
            "PYTHONDONTWRITEBYTECODE": "1"}


def _run(argv: list[str] | str, cwd: Path) -> subprocess.CompletedProcess:
    try:
        return subprocess.run(argv, cwd=cwd, capture_output=True, text=True, env=_env(),
                              timeout=TIMEOUT, shell=isinstance(argv, str),
                              executable="/bin/bash" if isinstance(argv, str) else None)
    except subprocess.TimeoutExpired:
        return subprocess.CompletedProcess(argv, -1, "", f"timed out after {TIMEOUT} s")


def _python_block(code: str, tmp: Path) -> subprocess.CompletedProcess:
    (tmp / "snippet.py").write_text(code)
    return _run([sys.executable, "snippet.py"], tmp)


class Checks:
    """Every check, started at once in a few threads; a test waits for its own."""

    def __init__(self, tmp: Path):
        self.pool = ThreadPoolExecutor(max_workers=4)
        self.futures: dict[str, Future] = {}
        helps: dict[str, Future] = {}
        for s, entry, _ in python_blocks():
            if entry is None or entry[0] == CHEAPER:
                code = s.text
                for old, new in (entry[1].items() if entry else ()):
                    code = code.replace(old, new)
                work = Path(tempfile.mkdtemp(dir=tmp))
                self.futures[f"{s.doc}:{s.line}"] = self.pool.submit(_python_block, code, work)
        for _, command in doc_commands():
            how, what = SHELL_TABLE.get(command, (SKIP, ""))
            if how == RUN and command not in self.futures:
                work = Path(tempfile.mkdtemp(dir=tmp))
                self.futures[command] = self.pool.submit(_run, what.format(tmp=work), REPO)
            elif how == FLAGS:  # one --help per program
                if what not in helps:
                    helps[what] = self.pool.submit(_run, f"{what} --help", REPO)
                self.futures[command] = helps[what]

    def result(self, key: str) -> subprocess.CompletedProcess:
        return self.futures[key].result()


@pytest.fixture(scope="module")
def checks(tmp_path_factory):
    checks = Checks(tmp_path_factory.mktemp("docs"))
    yield checks
    checks.pool.shutdown(cancel_futures=True)


def _report(run: subprocess.CompletedProcess) -> str:
    return f"exit {run.returncode}: {(run.stdout[-1500:] + run.stderr[-2500:]).strip()}"


# --- the tests ----------------------------------------------------------------------------------
def test_the_docs_have_the_blocks_this_file_checks():
    blocks = snippets()
    assert len([s for s in blocks if s.lang == "python"]) >= 8
    assert sum(len(shell_commands(s)) for s in blocks if s.lang != "python") >= 25
    assert shell_commands(Snippet("x.md", 1, "console", "$ meduris agents  # list\nrandom ...\n"
                                  "$ meduris tournament --games 2 \\\n    --seed 0\n")) == [
        "meduris agents", "meduris tournament --games 2 --seed 0"]


@pytest.mark.parametrize("where,command", [(f"{s.doc}:{s.line}", c) for s, c in doc_commands()])
def test_every_shell_command_of_the_docs_runs(checks, where, command):
    assert command in SHELL_TABLE, (
        f"{where}: `{command}` is checked nowhere: add it to SHELL in tests/test_docs.py (run, "
        "a cheap variant, its flags against --help, or skip with the reason)")
    how, what = SHELL_TABLE[command]
    if how == SKIP:
        pytest.skip(f"{command}: {what}")
    run = checks.result(command)
    assert run.returncode == 0, f"{where}: `{what}` {_report(run)}"
    if how == FLAGS:
        assert what.split()[-1] in command.split(), f"{where}: `{what}` is not `{command}`"
        flags = {f.split("=")[0] for f in re.findall(r"(?<!\S)--[\w-]+", command)}
        missing = sorted(f for f in flags if not re.search(re.escape(f) + r"\b", run.stdout))
        assert not missing, f"{where}: `{what} --help` does not know {missing}"


@pytest.mark.parametrize("block", [f"{s.doc}:{s.line}" for s, _, _ in python_blocks()])
def test_every_python_block_of_the_docs_runs(checks, block):
    s, entry, key = next(b for b in python_blocks() if f"{b[0].doc}:{b[0].line}" == block)
    compile(s.text, block, "exec")  # even a block that cannot run must be Python
    if entry and entry[0] == SKIP:
        pytest.skip(f"{block}: {entry[1]}")
    for old in (entry[1] if entry else {}):
        assert old in s.text, f"{block}: PYTHON[{key!r}] replaces {old!r}, no longer in the block"
    run = checks.result(block)
    assert run.returncode == 0, f"{block}: {_report(run)}"


def test_every_entry_of_the_tables_is_still_in_the_docs():
    commands = {c for _, c in doc_commands()}
    stale = [k for k in SHELL_TABLE if k not in commands]
    blocks = python_blocks()
    stale += [k for k in PYTHON if not any(s.doc == k[0] and k[1] in s.text for s, _, _ in blocks)]
    assert not stale, f"SHELL/PYTHON entries no docs command matches any more: {stale}"


INLINE = re.compile(r"`(meduris [^`\n]+)`")
# a mention rather than a command: placeholders, alternatives, ranges
MENTION = re.compile(r"[<>\[\]{}|]|\.\.|…")
PARTIAL = ("the following arguments are required", "expected one argument")


def inline_commands() -> list[tuple[str, str]]:
    """The ``meduris ...`` commands written inline in backticks in the docs' prose and tables
    (outside the fenced blocks, which the tests above run): (where, command)."""
    found = []
    for doc in DOCS:
        prose = FENCE.sub("", doc.read_text())
        for m in INLINE.finditer(prose):
            if not MENTION.search(m.group(1)):
                found.append((doc.relative_to(REPO).as_posix(), m.group(1)))
    return found


def parse_problem(command: str) -> str | None:
    """Why the CLI's own parser refuses ``command`` (its last line), or None; a mention of a
    command without its required arguments (`meduris duel`) is not refused."""
    import contextlib
    import io

    from meduris_rl.cli.main import build_parser

    err = io.StringIO()
    try:
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
            build_parser().parse_args(shlex.split(command)[1:])
    except SystemExit as stop:
        last = (err.getvalue().strip().splitlines() or [""])[-1]
        if stop.code and not any(p in last for p in PARTIAL):
            return last
    return None


def test_every_inline_command_of_the_docs_parses():
    """Each inline command parses with the CLI's own parser: a subcommand, flag or choice that
    was renamed or removed, or a value of the wrong kind, fails here."""
    commands = inline_commands()
    assert len(commands) >= 100
    wrong = [f"{where}: `{c}`: {parse_problem(c)}" for where, c in commands if parse_problem(c)]
    assert not wrong, "\n".join(wrong)
    # what it catches: a removed flag, a value of the wrong kind, an unknown subcommand
    for planted in ("meduris tournament --gamez 2", "meduris duel a b --max-games x",
                    "meduris ladder climb x"):
        assert parse_problem(planted), planted
    assert parse_problem("meduris duel") is None  # a mention


LINK = re.compile(r"\]\(([^)#\s]+)(?:#[^)\s]*)?\)")  # a Markdown link's target, anchor dropped


def broken_links(docs: list[Path]) -> list[str]:
    """The relative link targets of ``docs`` that name no file or folder (web links and mail
    addresses are not followed)."""
    return [f"{doc.name}: {target}" for doc in docs for target in LINK.findall(doc.read_text())
            if not target.startswith(("http://", "https://", "mailto:"))
            and not (doc.parent / target).exists()]


def test_every_relative_link_of_the_docs_names_a_file(tmp_path):
    assert broken_links(DOCS) == []
    planted = tmp_path / "planted.md"  # the check catches a link to a file that moved
    planted.write_text("[ok](planted.md) [web](https://example.org/x) [moved](../agents/sprt.py)")
    assert broken_links([planted]) == ["planted.md: ../agents/sprt.py"]
