"""A hypothesis fuzz test of the CLI's agent names and numeric flags (issue 31).

``meduris_rl.cli.main.main(argv)`` is called in this process for ``tournament --agents <names>``
and for the numeric flags of ``tournament``, ``duel``, ``ladder add`` and ``play``, with
strings built from the real grammar's pieces: the kinds of the agent table, colons, numbers
(``nan``, ``inf``, ``1e308``, ``-0``, 64-bit edges, 100- and 5,000-digit ints, with and without the
``s`` suffix of seconds), paths (a real policy, missing files, folders, ``/dev/null``),
``cmd:`` command lines and plug-in forms (files and a fixed list of harmless modules: a fuzzed
module name would import whatever it names).

Budget: a fixed one, derandomized (the same examples every run): :data:`EXAMPLES` per test,
300 in all, no deadline; the file runs in well under a minute.

No game is played, and that is checked honestly rather than avoided: the function each command
calls to start its long work (``run_tournament``, ``run_duel``, ``play_and_fit`` of ``ladder
add``, ``play_human``) is replaced by one raising :class:`Reached`. Everything before it runs
for real (argparse, the agent names parsed and the agents made, models loaded, the output
folder checked), so an input that gets there was accepted by every check the command makes
before work; an input that does not gets an error. Asserted for every input: the exit status is
0 or 2 (or the work was reached), an error is one line ``meduris: error: ...`` on stderr (at
most 600 characters, though some inputs are 5,000 long: no runaway echo) and nothing else but
``note:`` lines, an accepted input prints no error, and never a traceback (any other exception
fails the test with its input).
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from meduris_rl.agents.registry import all_kinds
from meduris_rl.cli.main import main

EXAMPLES = 75  # per test; 4 tests: 300 examples in all
SETTINGS = settings(max_examples=EXAMPLES, deadline=None, derandomize=True, database=None,
                    suppress_health_check=[HealthCheck.function_scoped_fixture,
                                           HealthCheck.too_slow])
MAX_LINE = 600  # the longest error line allowed (some inputs are 5,000 characters long)


class Reached(Exception):
    """The command got to the point where it starts playing: every check passed."""


def reached(*args, **kwargs):
    raise Reached


NUMBERS = ["0", "1", "2", "3", "4", "5", "-1", "-0", "+1", "0.5", "2.0", "1e308", "-1e308",
           "1e-308", "nan", "NaN", "inf", "-inf", "Infinity", "1_000", "0x10", "00", " 7",
           "9223372036854775807", "9223372036854775808", "-9223372036854775808",
           "18446744073709551616", str(10**30), str(10**100), "", "²", "٣", "1 2", "abc",
           "9" * 5000]  # (beyond Python's 4,300 digits of int())
NUMBER = st.one_of(st.sampled_from(NUMBERS), st.integers(-10**6, 10**6).map(str),
                   st.floats(allow_nan=True, allow_infinity=True).map(repr))
BUDGET = st.one_of(NUMBER, NUMBER.map(lambda n: n + "s"), st.just("s"), st.just("1ss"))
PATHS = ["agents/models/ppo_2p.pt", "agents/models/ppo_3p.pt", "/nonexistent/policy.pt",
         "README.md", "tests", "/dev/null", "", "policy.pt", "../x.pt", "a:b", "C:\\x.pt"]
PATH = st.sampled_from(PATHS)
KIND_NAMES = [kind.name for kind in all_kinds() if kind.source in ("built-in",)]
BUILTIN = st.one_of(
    st.sampled_from(KIND_NAMES),
    st.tuples(st.sampled_from(KIND_NAMES), BUDGET).map(":".join),
    st.tuples(st.sampled_from(KIND_NAMES), PATH).map(":".join),
    st.tuples(st.sampled_from(KIND_NAMES), BUDGET, PATH).map(":".join),
    st.tuples(st.sampled_from(KIND_NAMES), BUDGET, PATH, NUMBER).map(":".join))
CMD = st.sampled_from(["cmd:", "cmd: ", "cmd:no-such-program-xyz", "cmd:'unclosed",
                       "cmd:" + "x" * 5000,
                       "cmd:python3 examples/random_bot.py", "cmd:true", "cmd:\"\"",
                       "cmd:a:b:c"])
PLUGIN = st.tuples(
    st.sampled_from(["examples/plugins/mybots.py", "examples/plugins/policies.py",
                     "examples/plugins/missing.py", "README.md", "tests", "json",
                     "no_such_module_xyz", "examples.plugins.mybots", "os.path", "x.py"]),
    st.sampled_from(["Cautious", "lowest", "Nope", "", "1x", "dumps", "Agent"]),
).map(":".join) | st.tuples(st.just("examples/plugins/mybots.py:Cautious"), NUMBER).map(
    ":".join)
NOISE = st.lists(st.sampled_from(list(":,s.0123456789-+e /x") + ["mcts", "ppo", "az", "cmd"]),
                max_size=12).map("".join)
NAME = st.one_of(BUILTIN, CMD, PLUGIN, NOISE, st.just("x" * 5000))
AGENTS = st.lists(NAME, min_size=0, max_size=4).map(",".join)


def run_cli(argv: list[str], capsys) -> None:
    """``main(argv)`` with the work replaced by :func:`reached`; the assertions of the module
    docstring."""
    capsys.readouterr()
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr("meduris_rl.cli.commands.tournament.run_tournament", reached)
        mp.setattr("meduris_rl.cli.commands.duel.run_duel", reached)
        mp.setattr("meduris_rl.cli.commands.ladder.play_and_fit", reached)
        mp.setattr("meduris_rl.cli.commands.play.play_human", reached)
        try:
            code = main(argv)
        except Reached:
            code = "reached"
        except SystemExit as exit:  # argparse: its usage error, one line (checks.ArgumentParser)
            code = exit.code
    out, err = capsys.readouterr()
    assert code in (0, 2, "reached"), (argv, code, err)
    assert "Traceback" not in err and "Traceback" not in out, argv
    lines = err.splitlines()
    errors = [line for line in lines if not line.startswith("note: ")]
    if code == 2:
        assert len(errors) == 1 and errors[0].startswith("meduris: error: "), (argv, err)
        assert len(errors[0]) <= MAX_LINE, (argv, errors[0][:200])
    else:  # (an accepted input may say what it does first: notes, a ladder file started)
        assert not any("error" in line for line in lines), (argv, err)


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    return tmp_path_factory.mktemp("fuzz")


@SETTINGS
@given(agents=AGENTS, players=st.sampled_from(["2", "3", "4"]))
@example(agents="x" * 5000 + ",random", players="2")  # (always tried: the long echoes)
@example(agents="cmd:" + "x" * 5000 + ",random", players="2")
@example(agents="ppo:" + "x" * 5000 + ",random", players="2")
@example(agents="random,x.py:" + "x" * 5000, players="2")
def test_tournament_agent_names(agents, players, folder, capsys):
    run_cli(["tournament", "--agents", agents, "--players", players, "--games", "2",
             "--out", str(folder / "t"), "--force", "--no-progress"], capsys)


FLAG = st.tuples(st.sampled_from(["--games", "--workers", "--seed", "--players", "--move-time",
                                  "--game-time"]), NUMBER)


@SETTINGS
@given(flags=st.lists(FLAG, min_size=1, max_size=3), agents=st.sampled_from(
    ["random,greedy", "greedy,mcts:5", "random,random,random,random", "mcts:0.01s,random"]))
def test_tournament_numeric_flags(flags, agents, folder, capsys):
    argv = ["tournament", "--agents", agents, "--out", str(folder / "n"), "--force",
            "--no-progress"]
    for flag, value in flags:
        argv += [f"{flag}={value}"]  # (= : a value starting with - is the value, not a flag)
    run_cli(argv, capsys)


@SETTINGS
@given(flags=st.lists(st.tuples(st.sampled_from(
    ["--max-games", "--workers", "--seed", "--players", "--elo0", "--elo1", "--alpha",
     "--beta", "--move-time", "--game-time"]), NUMBER), min_size=1, max_size=3),
    a=st.one_of(st.sampled_from(["greedy", "mcts:5"]), NAME))
def test_duel_numeric_flags_and_names(flags, a, capsys):
    run_cli(["duel", a, "random", "--no-progress"]
            + [f"{flag}={value}" for flag, value in flags], capsys)


@SETTINGS
@given(command=st.sampled_from(["play", "ladder"]), flags=st.lists(st.tuples(st.sampled_from(
    ["--players", "--seed", "--seat", "--level", "--games", "--workers", "--move-time"]),
    NUMBER), min_size=1, max_size=3), agent=st.one_of(st.just("random"), NAME))
def test_play_and_ladder_numeric_flags(command, flags, agent, folder, capsys):
    """``play`` (its opponents: ``agent``, its record in the test's folder) and ``ladder add``
    (a ladder file in the test's folder): each flag the command does not have is argparse's
    one-line error, which is part of what is checked."""
    if command == "play":
        argv = ["play", "--opponents", agent, "--record", str(folder / "p.json"), "--force"]
    else:
        argv = ["ladder", "add", agent, "--db", str(folder / "ladder.db"), "--no-progress"]
    if any(flag == "--level" for flag, _ in flags) and command == "play":
        argv = [a for a in argv if a not in ("--opponents", agent)]
    run_cli(argv + [f"{flag}={value}" for flag, value in flags], capsys)
