"""Plug-in agents (:mod:`meduris_rl.agents.plugins.load`): a class, object or policy function from a
file outside the project, from a module on the path, and from the entry point of a package really
installed in this environment (examples/meduris-bot-example: ``cautious``, ``first-legal``) play in
``meduris tournament`` (a pool of two worker processes) and ``meduris play``, are listed by
``meduris agents``, are adapted and seeded like the built-ins, and every bad one is one line
before any game. Every plug-in form plays Druids too, given what a built-in Druids agent is
given (D14: the seat's observation); one declaring ``games`` is refused for another game."""

import dataclasses
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from druids_env import DruidsGame, observation_tensor
from meduris_env import MedurisGame
from meduris_rl.agents import Agent, UnknownAgentError, make_agent
from meduris_rl.agents.arena.match import play_game
from meduris_rl.agents.arena.tournament import TournamentConfig, run_tournament
from meduris_rl.agents.arena.tournament.backends import init_worker, play_task
from meduris_rl.agents.plugins.load import ActAgent, PluginError, PolicyAgent, worker_context
from meduris_rl.agents.registry import (
    FOUND,
    AgentSpec,
    entry_point_kinds,
    ignored_entry_points,
    kind_named,
    kinds,
)
from meduris_rl.cli import main
from meduris_rl.kit.games import game_names

REPO = Path(__file__).resolve().parent.parent

BOTS = '''
import numpy as np
from meduris_rl.agents.base import Agent


class Careful(Agent):
    """An Agent subclass taking the name's parameter: plays the lowest id with probability
    level/10, else a seeded random legal action."""

    def __init__(self, level="5"):
        super().__init__()
        self.level = int(level)

    def act(self, observation, state):
        legal = state.legal_actions()
        return min(legal) if self.rng.random() < self.level / 10 else self.rng.choice(legal)


class Named(Agent):
    """Written like the built-ins: the constructor requires the name."""

    def __init__(self, name):
        super().__init__(name)

    def act(self, observation, state):
        return state.legal_actions()[0]


class Steady:
    """Not an Agent: any object with act(observation, state) and a reset(seed)."""

    uses_observation = False

    def __init__(self):
        self.seeds = []
        self.rng = np.random.default_rng(0)

    def reset(self, seed):
        self.seeds.append(seed)
        self.rng = np.random.default_rng(seed)

    def act(self, observation, state):
        legal = state.legal_actions()
        return legal[int(self.rng.integers(len(legal)))]


def highest(observation):
    """A policy function of the observation dict (PettingZoo style)."""
    return int(np.flatnonzero(observation["action_mask"])[-1])


def make_policy(offset):
    """A factory given the parameter, returning a policy function."""
    k = int(offset)
    def policy(observation):
        legal = np.flatnonzero(observation["action_mask"])
        return int(legal[min(k, len(legal) - 1)])
    return policy


NOT_CALLABLE = 3


class Broken:
    def __init__(self):
        raise RuntimeError("no weights found\\n(second line)")


def make_number():
    return 5


class Abstract(Agent):
    pass


class Watcher(Agent):
    """Keeps what it is given (the observation dict, a copy of the state) and plays the lowest
    legal id of its mask."""

    uses_observation = True

    def __init__(self):
        super().__init__()
        self.seen = []

    def act(self, observation, state):
        self.seen.append((observation, state.clone()))
        return int(np.flatnonzero(observation["action_mask"])[0])
'''

STRATEGIES = '''
from meduris_rl.agents.base import Agent


class Steady(Agent):
    """A module plug-in: always the lowest legal id."""

    def act(self, observation, state):
        return min(state.legal_actions())


class DruidsOnly(Steady):
    """Says it plays Druids only."""

    games = ("druids",)


def nowhere(observation):
    return 0


nowhere.games = ["druids", "chess"]
'''


@pytest.fixture(scope="module")
def place(tmp_path_factory):
    """A folder outside the project: bots/bots.py (a file), mods/p1bots/strategies.py (a
    module once mods/ is on the path), bots/bad.py (a file that cannot be imported)."""
    root = tmp_path_factory.mktemp("outside")
    assert REPO not in root.parents
    (root / "bots").mkdir()
    (root / "bots" / "bots.py").write_text(BOTS)
    (root / "bots" / "bad.py").write_text("def broken(:\n")
    (root / "bots" / "exits.py").write_text("import sys\nsys.exit(3)\n")
    (root / "bots" / "p1helper.py").write_text("LEVEL = '7'\n")
    (root / "bots" / "p1unused.py").write_text("def make():\n    return None\n")
    (root / "bots" / "neighbour.py").write_text(
        "import p1helper\nfrom bots import Careful\n\n\ndef make():\n"
        "    return Careful(p1helper.LEVEL)\n")
    (root / "mods" / "p1bots").mkdir(parents=True)
    (root / "mods" / "p1bots" / "__init__.py").write_text("")
    (root / "mods" / "p1bots" / "strategies.py").write_text(STRATEGIES)
    return root


@pytest.fixture
def on_path(place, monkeypatch):
    monkeypatch.syspath_prepend(str(place / "mods"))
    return place


def meduris(*args, cwd, pythonpath=None, stdin=None):
    env = dict(os.environ)
    if pythonpath:
        env["PYTHONPATH"] = str(pythonpath)
    return subprocess.run([sys.executable, "-m", "meduris_rl.cli", *args], cwd=cwd, env=env,
                          input=stdin, capture_output=True, text=True, timeout=300)


# --- names -------------------------------------------------------------------------------------
def test_plugin_names_parse_to_their_row_target_and_parameter(on_path):
    bots = f"{on_path}/bots/bots.py"
    for text, kind, target, parameter in [
        (f"{bots}:Careful", "file", f"{bots}:Careful", None),
        (f" {bots}:Careful:7 ", "file", f"{bots}:Careful", "7"),
        (f"{bots}:make_policy:2:x", "file", f"{bots}:make_policy", "2:x"),
        ("p1bots.strategies:Steady", "module", "p1bots.strategies:Steady", None),
        ("cautious", "cautious", None, None),
        ("cautious:9", "cautious", None, "9"),
        ("cmd:./mybot --fast", "cmd", "./mybot --fast", None),
    ]:
        spec = AgentSpec.parse(text)
        assert (spec.kind, spec.target, spec.parameter) == (kind, target, parameter)
        assert str(spec) == text.strip() and AgentSpec.parse(str(spec)) == spec
        assert spec.describe().startswith(f"{kind}: {kind_named(kind).summary}")
    assert kind_named("cautious").source == "entry point"
    assert kind_named("cautious").package == "meduris-bot-example"


def test_the_entry_points_of_the_installed_example_package_are_rows():
    rows = {k.name: k for k in kinds() if k.source == "entry point"}
    assert rows["cautious"].target == "meduris_bot_example:Cautious"
    assert rows["first-legal"].target == "meduris_bot_example:first_legal"
    assert all(k.web and not k.needs for k in rows.values())  # registered when serve starts
    assert "cautious" not in ignored_entry_points()


def test_an_entry_point_whose_name_is_taken_or_malformed_is_ignored_with_a_reason():
    rows, ignored = entry_point_kinds(
        [("greedy", "x:Y", "pkg-a"), ("two words", "x:Y", "pkg-a"), ("fine", "x:Y", "pkg-a"),
         ("fine", "z:W", "pkg-b"), ("a:b", "x:Y", "pkg-a")], {"greedy", "cmd"})
    assert [(r.name, r.target, r.package) for r in rows] == [("fine", "x:Y", "pkg-a")]
    assert ignored["greedy"] == ("entry point 'greedy' of package pkg-a is ignored: the name "
                                 "is taken by another agent")
    assert "an agent name is letters, digits, _ and -" in ignored["two words"]
    assert "pkg-b" in ignored["fine"] and "a:b" in ignored


# --- adapters ----------------------------------------------------------------------------------
def play(names, seed=4):
    agents = [make_agent(n) for n in names]
    return agents, play_game(MedurisGame(2), agents, seed, keep_history=True)


def test_the_three_plugin_styles_are_adapted_named_seeded_and_play_legally(place):
    bots = f"{place}/bots/bots.py"
    careful, steady, highest = (f"{bots}:Careful:3", f"{bots}:Steady", f"{bots}:highest")
    agents, result = play([careful, steady])  # (play_game refuses an illegal action)
    assert type(agents[0]).__name__ == "Careful" and agents[0].level == 3
    assert isinstance(agents[1], ActAgent) and agents[1].uses_observation is False
    assert [a.name for a in agents] == [careful, steady] and result.agents == [careful, steady]
    assert agents[1].wrapped.seeds and result.end_reason != "abandoned"
    again = play([careful, steady])[1]
    assert again.history == result.history  # same seed, same game
    assert play([careful, steady], seed=5)[1].history != result.history
    agents, result = play([highest, f"{bots}:make_policy:1"])
    assert all(isinstance(a, PolicyAgent) and a.uses_observation for a in agents)
    assert agents[0].name == highest and result.decisions > 20
    named = make_agent(f"{bots}:Named")  # a constructor requiring name gets it
    assert named.name == f"{bots}:Named" and isinstance(named, Agent)


def test_the_entry_point_and_module_plugins_build_and_play(on_path):
    agents, result = play(["cautious:10", "p1bots.strategies:Steady"])
    assert type(agents[0]).__name__ == "ActAgent" and agents[0].wrapped.level == 10
    assert type(agents[1]).__name__ == "Steady" and result.decisions > 20
    first, _ = play(["first-legal", "greedy"])
    assert isinstance(first[0], PolicyAgent) and first[0].name == "first-legal"


def test_a_file_imports_its_neighbours_without_leaving_its_folder_on_the_path(place):
    bot = make_agent(f"{place}/bots/neighbour.py:make")
    assert type(bot).__name__ == "Careful" and bot.level == 7
    assert str(place / "bots") not in sys.path
    with pytest.raises(PluginError, match="no module named 'p1unused'"):
        make_agent("p1unused:make")  # (a module name does not find the files there)


# --- bad plug-ins ------------------------------------------------------------------------------
BAD = [
    ("{p}/bots/none.py:Careful", "the file {p}/bots/none.py does not exist"),
    ("{p}/bots:Careful", "the file {p}/bots is a folder"),
    ("{p}/bots/bad.py:broken", "importing {p}/bots/bad.py failed: SyntaxError:"),
    ("{p}/bots/exits.py:x", "importing {p}/bots/exits.py failed: SystemExit: 3"),
    ("{p}/bots/bots.py:Carful", "{p}/bots/bots.py has no attribute 'Carful' (did you mean "
                                "'Careful'?)"),
    ("{p}/bots/bots.py:NOT_CALLABLE", "NOT_CALLABLE is a int, not a class or a function"),
    ("{p}/bots/bots.py:Broken", "Broken() raised RuntimeError: no weights found (second line)"),
    ("{p}/bots/bots.py:Careful:x", "Careful('x') raised ValueError: invalid literal"),
    ("{p}/bots/bots.py:make_number", "make_number() gave a int, which is neither an Agent"),
    ("{p}/bots/bots.py:Abstract", "Abstract() raised TypeError: Can't instantiate abstract"),
    ("{p}/bots/bots.py:Careful:", "the parameter after the last ':' is empty"),
    ("{p}/bots/bots.py", "write {p}/bots/bots.py:<Name>[:<parameter>]"),
    ("{p}/bots/bots.py:9x", "write {p}/bots/bots.py:<Name>[:<parameter>]"),
    ("nowhere_pkg.bots:Careful", "no module named 'nowhere_pkg'; install its package or put "
                                 "its folder on PYTHONPATH"),
    ("mctss:Careful", "no module named 'mctss' (did you mean the agent 'mcts'?)"),
    ("p1bots.strategies:Stedy", "p1bots.strategies has no attribute 'Stedy' (did you mean "
                                "'Steady'?)"),
    ("cautious:11", "Cautious('11') raised ValueError: cautious:<level>: a whole number 0..10"),
    ("cmd:", "write cmd:<command line>"),
    ("cmd", "write cmd:<command line>"),
    ("file", "unknown agent 'file'; known agents: random, greedy"),
]


@pytest.mark.parametrize("text,message", BAD, ids=[b[0] for b in BAD])
def test_a_bad_plugin_is_one_line_naming_the_cause(on_path, text, message):
    text, message = text.format(p=on_path), message.format(p=on_path)
    with pytest.raises(UnknownAgentError) as err:
        make_agent(text)
    assert message in str(err.value) and "\n" not in str(err.value)
    assert str(err.value).startswith((f"agent {text!r}", f"unknown agent {text!r}"))


def test_a_plugin_that_cannot_be_found_fails_when_its_name_is_parsed(place):
    with pytest.raises(PluginError, match="has no attribute 'Carful'"):
        AgentSpec.parse(f"{place}/bots/bots.py:Carful")  # (before anything is built)


@pytest.mark.parametrize("name", ["{p}/bots/bots.py:Broken", "{p}/bots/bots.py:Carful",
                                  "nowhere_pkg.bots:X"])
def test_a_bad_plugin_stops_the_tournament_and_play_before_any_game(place, tmp_path, capsys,
                                                                    monkeypatch, name):
    name = name.format(p=place)
    out = tmp_path / "results"
    assert main(["tournament", "--agents", f"greedy,{name}", "--games", "2", "--workers", "1",
                 "--no-progress", "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"meduris: error: agent {name!r}") and err.count("\n") == 1
    assert not (out / "games.csv").exists()
    record = tmp_path / "me.json"
    monkeypatch.setattr(sys, "stdin", None)  # (no game: nothing is read)
    assert main(["play", "--opponents", name, "--seed", "1", "--record", str(record)]) == 2
    err = capsys.readouterr().err  # (play names its flag, in every game)
    assert err.startswith(f"meduris: error: --opponents: agent {name!r}") and \
        err.count("\n") == 1
    assert not record.exists()


# --- where names are accepted ------------------------------------------------------------------
def test_three_plugins_play_a_tournament_on_two_worker_processes(place, tmp_path):
    # a relative file path from the current folder (outside the project), a module found
    # through PYTHONPATH and the installed entry point, each in the workers
    agents = "bots/bots.py:Careful:3,p1bots.strategies:Steady,cautious:2,greedy"
    common = ["tournament", "--agents", agents, "--games", "12", "--seed", "3",
              "--no-progress"]
    pool = meduris(*common, "--workers", "2", "--out", str(tmp_path / "pool"), cwd=place,
                   pythonpath=place / "mods")
    assert pool.returncode == 0, pool.stderr
    games = (tmp_path / "pool" / "games.csv").read_text()
    for label in agents.split(","):
        assert games.count(label) >= 6 and label in pool.stdout  # (and the leaderboard)
    summary = json.loads((tmp_path / "pool" / "summary.json").read_text())
    assert summary["games"] == 12
    one = meduris(*common, "--workers", "1", "--out", str(tmp_path / "one"), cwd=place,
                  pythonpath=place / "mods")
    assert one.returncode == 0, one.stderr
    assert (tmp_path / "one" / "games.csv").read_text() == games  # seeded like the built-ins


FAULTY_PLUGINS = """\
from meduris_rl.agents.base import Agent


class Raises:
    def act(self, observation, state):
        raise RuntimeError("boom")


class ReturnsNone:
    def act(self, observation, state):
        return None


def policy_text(observation):
    return "1"


class AgentRaises(Agent):
    def act(self, observation, state):
        return 1 // 0
"""


@pytest.mark.parametrize("name,message", [
    ("faulty.py:Raises", "agent 'faulty.py:Raises': act raised RuntimeError: boom (at "
                         "faulty.py:6, turn 0)"),
    ("faulty.py:AgentRaises", "agent 'faulty.py:AgentRaises': act raised ZeroDivisionError: "
                              "integer division or modulo by zero (at faulty.py:20, turn 0)"),
    ("faulty.py:ReturnsNone", "agent faulty.py:ReturnsNone at seat 0: an action is an int id, "
                              "got None"),
    ("faulty.py:policy_text", "agent faulty.py:policy_text at seat 0: an action is an int id, "
                              "got '1'"),
])
def test_a_plugin_failing_in_act_stops_the_tournament_in_one_line(tmp_path, name, message):
    """Every plug-in form (an object with act, an Agent subclass, a policy function): an
    exception in act is one line naming the agent, the exception and the plug-in's line (not
    a traceback from a worker); an answer that is not an int id (None, a str) is refused by
    the engine for every form alike (no int() of the adapter accepting "1")."""
    (tmp_path / "faulty.py").write_text(FAULTY_PLUGINS)
    run = meduris("tournament", "--agents", f"{name},random", "--games", "2", "--workers", "2",
                  "--out", str(tmp_path / "out"), "--no-progress", cwd=tmp_path)
    assert run.returncode == 2, run.stderr
    # (two workers: the game that fails first may be the one with the plug-in at seat 1)
    assert run.stderr in (f"meduris: error: {message}\n",
                          f"meduris: error: {message.replace('seat 0', 'seat 1')}\n")


def test_spawned_workers_inherit_the_parents_sys_path(on_path, monkeypatch):
    # mods/ is on sys.path in this process only (no PYTHONPATH): the pool's workers find it
    monkeypatch.delenv("PYTHONPATH", raising=False)
    cfg = TournamentConfig(["p1bots.strategies:Steady", "random"], games=2, workers=2)
    results, _ = run_tournament(cfg)
    assert sorted(r.agents for r in results) == [["p1bots.strategies:Steady", "random"],
                                                 ["random", "p1bots.strategies:Steady"]]


def test_init_worker_takes_the_parents_folder_and_path_for_a_ray_actor(place, monkeypatch):
    monkeypatch.chdir(place)
    context = worker_context()
    assert context["cwd"] == str(place)
    monkeypatch.chdir(REPO)  # the actor starts elsewhere, its path without mods/
    monkeypatch.setattr(sys, "path", [p for p in sys.path if "mods" not in p])
    context["sys_path"].append(str(place / "mods"))
    cfg = TournamentConfig(["bots/bots.py:Careful", "p1bots.strategies:Steady"], games=2)
    init_worker(cfg, cfg.agents, context)
    assert os.getcwd() == str(place) and str(place / "mods") in sys.path
    index, result = play_task((0, (1, 0), 7, False, (1, 2)))
    assert result.agents == cfg.agents[::-1] and result.decisions > 20


def test_plugins_play_against_a_person_in_meduris_play(place, tmp_path):
    record = tmp_path / "me.json"
    opponents = "bots/bots.py:Careful:4,p1bots.strategies:Steady,first-legal"
    run = meduris("play", "--players", "4", "--opponents", opponents, "--seed", "2",
                  "--record", str(record), cwd=place, pythonpath=place / "mods",
                  stdin="1\n" * 3000)
    assert run.returncode == 0, run.stderr
    assert ("seat 1: bots/bots.py:Careful:4, seat 2: p1bots.strategies:Steady, "
            "seat 3: first-legal") in run.stdout
    assert "game over (" in run.stdout
    saved = json.loads(record.read_text())
    assert saved["agents"] == ["human", *opponents.split(",")]


def test_meduris_agents_lists_the_plugin_forms_and_the_entry_points(capsys):
    assert main(["agents"]) == 0
    out = capsys.readouterr().out
    lines = {line.split("  ")[0]: line for line in out.splitlines()}
    assert "a plug-in from the package meduris-bot-example (meduris_bot_example:Cautious)" in (
        lines["cautious[:<parameter>]"])
    assert " no " in lines["<path/to/file.py>:<Name>[:<parameter>]"]
    assert " no " in lines["cmd:<command line>"] and " yes " in lines["cautious[:<parameter>]"]
    assert main(["agents", "--json"]) == 0
    rows = {r["name"]: r for r in json.loads(capsys.readouterr().out)["agents"]}
    assert rows["cautious"]["source"] == "entry point"
    assert rows["cautious"]["package"] == "meduris-bot-example"
    assert rows["first-legal"]["entry_point"] == "meduris_bot_example:first_legal"
    assert rows["module"]["source"] == "module" and rows["cmd"]["web"] is False


def test_the_web_server_offers_entry_points_but_never_a_plugin_path(place):
    from meduris_rl.cli.meduris.web.store import WebError, available_agents, check_opponent

    assert "cautious" in [a["name"] for a in available_agents()]
    assert check_opponent("cautious", 2) == "cautious"
    for name in (f"{place}/bots/bots.py:Careful", "p1bots.strategies:Steady", "cmd:./bot",
                 "cautious:3"):
        with pytest.raises(WebError):
            check_opponent(name, 2)


def test_a_cmd_name_builds_the_subprocess_agent_lazily():
    from meduris_rl.agents.plugins.external import SubprocessAgent

    command = f"{sys.executable} -c pass"
    bot = make_agent(f"cmd:{command}")
    assert isinstance(bot, SubprocessAgent) and bot.name == f"cmd:{command}"
    assert bot.command == command


def test_the_example_package_imports_nothing_from_the_project():
    source = (REPO / "examples" / "meduris-bot-example" / "meduris_bot_example" /
              "__init__.py").read_text()
    for package in ("meduris_env", "druids_env", "meduris_rl", "agents", "train"):
        assert f"import {package}" not in source and f"from {package}" not in source


# --- the page researchers read -----------------------------------------------------------------
PAGE = REPO / "docs" / "bring_your_own_agent.md"


def test_the_page_shows_the_example_files_as_they_are():
    page = PAGE.read_text()
    for name in ("mybots.py", "policies.py", "mybot.py"):
        text = (REPO / "examples" / "plugins" / name).read_text()
        assert f"```python\n# examples/plugins/{name}\n{text}```" in page, name
    for heading in ("## The protocol of cmd: agents", "## The ladder", "## Duels"):
        assert f"\n{heading}\n" in page
    assert "docs/bring_your_own_agent.md" in (REPO / "README.md").read_text()


def test_the_errors_the_page_shows_are_the_ones_printed(capsys, monkeypatch, tmp_path):
    monkeypatch.chdir(REPO)
    lines = PAGE.read_text().split("```\n$ ", 1)[1].split("```", 1)[0].splitlines()
    shown = dict(zip(lines[0::2], lines[1::2], strict=True))
    assert len(shown) == 3
    for command, error in shown.items():
        args = command.removeprefix("$ ").split()[1:]
        assert main([*args, "--out", str(tmp_path / "r"), "--no-progress"]) == 2
        assert capsys.readouterr().err == error + "\n"


def test_the_example_plugins_play():
    _, result = play(["examples/plugins/mybots.py:Cautious:5",
                      f"{REPO}/examples/plugins/policies.py:lowest"])
    assert result.decisions > 20


# --- Druids ------------------------------------------------------------------------------------
def test_every_plugin_form_plays_druids_given_what_a_builtin_is(on_path):
    bots = f"{on_path}/bots/bots.py"
    names = [f"{bots}:Watcher", f"{bots}:highest", "p1bots.strategies:Steady", "cautious:5"]
    agents = [make_agent(n, "druids") for n in names]
    result = play_game(DruidsGame(4), agents, 3, keep_history=True)
    assert result.agents == names and result.end_reason.endswith(("(D11)", "(D11b)", "(D12)"))
    assert isinstance(agents[1], PolicyAgent) and isinstance(agents[3], ActAgent)
    watched = agents[0].seen
    assert len(watched) == result.decisions_per_seat[0] > 10
    for observation, state in watched:  # D14: the seat's own view, as a built-in gets it
        assert type(state).__name__ == "DruidsState" and state.current_player() == 0
        assert np.array_equal(observation["observation"], observation_tensor(state, 0))
        assert np.array_equal(observation["action_mask"], state.legal_action_mask())
    again = play_game(DruidsGame(4), [make_agent(n, "druids") for n in names], 3,
                      keep_history=True)
    assert again.history == result.history  # seeded like the built-ins


def test_a_druids_tournament_takes_plugins(place, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(place)
    out = tmp_path / "d"
    assert main(["tournament", "--game", "druids", "--agents", "bots/bots.py:Careful,first-legal",
                 "--games", "2", "--workers", "1", "--no-progress", "--out", str(out)]) == 0
    games = (out / "games.csv").read_text()
    assert games.count("bots/bots.py:Careful") == 2 and "forfeit" not in capsys.readouterr().err
    assert json.loads((out / "summary.json").read_text())["config"]["game"] == "druids"


def test_a_plugin_may_declare_the_games_it_plays(on_path, monkeypatch, capsys, tmp_path):
    bots = f"{on_path}/bots/bots.py"
    for name in ("cmd:./bot", f"{bots}:Careful", "p1bots.strategies:Steady", "cautious"):
        assert AgentSpec.parse(name, game="druids").game == "druids"  # undeclared: every game
    only = "p1bots.strategies:DruidsOnly"
    assert AgentSpec.parse(only, game="druids").games() == ("druids",)
    with pytest.raises(UnknownAgentError) as err:
        AgentSpec.parse(only)
    assert str(err.value).startswith(f"agent {only!r} does not play meduris (its games = "
                                     "('druids',)); meduris agents: random, greedy")
    with pytest.raises(PluginError) as err:
        AgentSpec.parse("p1bots.strategies:nowhere", game="druids")
    assert str(err.value) == ("agent 'p1bots.strategies:nowhere': its games = ['druids', "
                              "'chess'] must name the games it plays ('chess' is not one); "
                              f"the games: {', '.join(game_names())}")  # (+ nim, if registered)
    # an entry point says it the same way (its row is made without importing it)
    row = dataclasses.replace(kind_named("cautious"), name="p1-druids", target=only)
    found, ignored = FOUND["entry points"]
    monkeypatch.setitem(FOUND, "entry points", (found + (row,), ignored))
    for game in ("meduris", "druids"):
        monkeypatch.delitem(FOUND, ("kinds", game), raising=False)
    assert kind_named("p1-druids").serves("meduris")
    assert make_agent("p1-druids", "druids").name == "p1-druids"
    with pytest.raises(UnknownAgentError, match=r"'p1-druids' does not play meduris \(its"):
        AgentSpec.parse("p1-druids")
    assert main(["tournament", "--agents", f"{only},random", "--games", "2", "--workers", "1",
                 "--no-progress", "--out", str(tmp_path / "r")]) == 2
    err = capsys.readouterr().err
    assert "does not play meduris (its games = ('druids',))" in err and err.count("\n") == 1
