"""The one table of agent kinds (:func:`meduris_rl.agents.registry.kinds`: the shared rows, each
game's own, the plug-in forms and entry points): names parse against a game's rows, every reader
of agent names asks it (make_agent, make_batch_opponent, the tournament, the web server), and
``meduris agents`` prints it."""

import importlib.util
import json

import pytest

from meduris_rl.agents import UnknownAgentError, make_agent
from meduris_rl.agents.meduris.batch import BatchGreedy, BatchPolicy, make_batch_opponent
from meduris_rl.agents.registry import AgentSpec, all_kinds, kind_named, kinds
from meduris_rl.cli import main

OPEN_SPIEL = importlib.util.find_spec("pyspiel") is not None

KINDS = kinds("meduris")
BUILT_IN = [k for k in all_kinds() if k.source == "built-in"]


def test_the_table_is_the_known_list_in_order():
    # the shared kinds, the game's own, then the plug-in forms, then the installed packages'
    # entry points (tests/test_plugins.py checks those)
    built_in = [k for k in KINDS if k.source == "built-in"]
    assert [k.name for k in built_in] == ["random", "greedy", "mcts", "ppo", "openspiel-mcts",
                                          "rllib", "az", "az-fast", "search", "gumbel"]
    assert [k.name for k in kinds("druids") if k.source == "built-in"] == [
        "random", "greedy", "ppo", "ismcts"]
    assert [k.name for k in kinds("stone_age") if k.source == "built-in"] == [
        "random", "greedy", "ppo", "ismcts", "rollout"]
    # (each name once: a kind of several games is one row of the table)
    assert [k.name for k in BUILT_IN] == [k.name for k in built_in] + ["ismcts", "rollout"]
    assert [(k.name, k.source) for k in KINDS[len(built_in):len(built_in) + 3]] == [
        ("file", "file"), ("module", "module"), ("cmd", "cmd")]
    assert {k.source for k in KINDS[len(built_in) + 3:]} <= {"entry point"}
    assert all(k.summary and "\n" not in k.summary for k in all_kinds())
    # the tournament sets torch to one thread for exactly these
    assert {k.name for k in KINDS if "torch" in k.needs} == {"ppo", "az", "az-fast", "rllib",
                                                             "search", "gumbel"}
    # every kind plays every player count but the shipped 2-player search (its file's)
    assert {k.name: k.players for k in KINDS if k.players != (2, 3, 4)} == {"search": (2,)}
    # the web server never plays a file, a module or a command named in a request
    assert [k.name for k in KINDS if not k.web] == ["rllib", "az-fast", "gumbel",
                                                   "file", "module", "cmd"]


@pytest.mark.parametrize("text,kind,budget,unit,parameter", [
    ("random", "random", None, None, None),
    (" greedy ", "greedy", None, None, None),
    ("mcts", "mcts", 200, "iterations", None),
    ("mcts:400", "mcts", 400, "iterations", None),
    ("mcts:0.5s", "mcts", 0.5, "seconds", None),
    ("ppo", "ppo", None, None, None),
    ("ppo:runs/a/policy.pt", "ppo", None, None, "runs/a/policy.pt"),
    ("openspiel-mcts", "openspiel-mcts", 100, "simulations", None),
    ("openspiel-mcts:7", "openspiel-mcts", 7, "simulations", None),
    ("rllib:runs/r/checkpoint", "rllib", None, None, "runs/r/checkpoint"),
    ("az", "az", 200, "iterations", None),
    ("az:50:best.pt", "az", 50, "iterations", "best.pt"),
    ("az::best.pt", "az", 200, "iterations", "best.pt"),
])
def test_names_parse_to_kind_budget_and_parameter_and_back(text, kind, budget, unit, parameter):
    spec = AgentSpec.parse(text)
    assert (spec.kind, spec.budget, spec.unit, spec.parameter) == (kind, budget, unit, parameter)
    assert str(spec) == text.strip() and AgentSpec.parse(str(spec)) == spec
    assert spec.describe().startswith(f"{kind}: {kind_named(kind).summary}")
    if budget is not None:
        assert f"{budget:g} {unit} per move" in spec.describe()


@pytest.mark.parametrize("text,message", [
    ("gredy", "unknown agent 'gredy' (did you mean 'greedy'?); known agents: random, greedy, "
              "mcts, ppo, openspiel-mcts, rllib, az"),
    ("mcst:200", "(did you mean 'mcts'?)"),
    ("greedy:3", "agent 'greedy:3': greedy takes no parameter; use 'greedy'"),
    ("mcts:0", "write mcts:<iterations> (e.g. mcts:200) or mcts:<seconds>s (e.g. mcts:0.5s)"),
    ("az:fast:best.pt", "write az:<iterations> (e.g. az:200)"),
    ("openspiel-mcts:0.5s", "write openspiel-mcts:<count>, a positive whole number "
                            "(e.g. openspiel-mcts:100)"),
    (None, "an agent name is a non-empty string, got None"),
])
def test_bad_names_are_one_line_naming_the_fix(text, message):
    with pytest.raises(UnknownAgentError) as err:
        AgentSpec.parse(text)
    assert message in str(err.value) and "\n" not in str(err.value)


def test_usage_and_budgets_come_from_the_rows():
    usage = {k.name: k.usage() for k in KINDS}
    assert usage["random"] == "random"
    assert usage["mcts"] == "mcts[:<iterations>|<seconds>s]"
    assert usage["ppo"] == "ppo[:<policy.pt>]"
    assert usage["rllib"] == "rllib:<checkpoint>"
    assert usage["az"] == "az[:<iterations>|<seconds>s[:<policy.pt>]]"
    assert usage["openspiel-mcts"] == "openspiel-mcts[:<simulations>]"
    assert usage["file"] == "<path/to/file.py>:<Name>[:<parameter>]"
    assert usage["module"] == "<module>:<Name>[:<parameter>]"
    assert usage["cmd"] == "cmd:<command line>"


@pytest.mark.parametrize("kind", [k for k in BUILT_IN if k.name != "rllib"],
                         ids=lambda k: k.name)
def test_every_kind_builds_from_its_row(kind):
    if "open_spiel" in kind.needs and not OPEN_SPIEL:
        pytest.skip("OpenSpiel is not installed")
    name = kind.name if kind.budget is None else f"{kind.name}:3"
    game = kind.games[0] if kind.games else None  # (ismcts plays Druids only; random: every)
    bot = make_agent(name, game)
    assert bot.name == name and make_agent(AgentSpec.parse(name, game)).name == name
    if kind.budget is not None and kind.name != "openspiel-mcts":
        assert bot.iterations == 3


def test_batch_opponents_follow_the_batch_column():
    assert make_batch_opponent("random") == "random"
    assert isinstance(make_batch_opponent("greedy"), BatchGreedy)
    assert isinstance(make_batch_opponent("ppo", 3), BatchPolicy)
    for kind in (k for k in BUILT_IN if k.batch is None and k.serves("meduris")):
        with pytest.raises(UnknownAgentError, match="batch opponents are random, greedy, ppo "
                                                    "and ppo:<policy.pt>"):
            make_batch_opponent(kind.name if kind.budget else f"{kind.name}:x")
    with pytest.raises(UnknownAgentError, match="did you mean 'greedy'"):
        make_batch_opponent("gredy")


def test_the_web_server_offers_the_web_column_only():
    from meduris_rl.cli.meduris.web.store import WebError, available_agents, check_opponent

    offered = [a["name"] for a in available_agents()]
    expected = [k.name for k in KINDS if k.web and (OPEN_SPIEL or "open_spiel" not in k.needs)]
    assert offered == expected and "rllib" not in offered
    budgets = {a["name"]: a["budget"] for a in available_agents()}
    assert budgets == {k.name: k.budget is not None for k in KINDS if k.name in offered}
    with pytest.raises(WebError, match="unknown agent 'rllib:x'"):
        check_opponent("rllib:x", 2)
    assert check_opponent(" mcts:50 ", 2) == "mcts:50"


def test_meduris_agents_lists_the_table(capsys):
    assert main(["agents"]) == 0
    out = capsys.readouterr().out
    table, _, levels = out.partition("\n\n")  # the kinds, then the levels for people
    lines = table.splitlines()
    assert levels.startswith("levels for people") and "level 5 (expert): search, rated" in levels
    assert "at 3 and 4 players mcts:800 (3 players " in levels
    assert lines[0].split() == ["agent", "budget", "needs", "web", "summary"]
    assert [line.split("  ")[0] for line in lines[1:]] == [
        k.usage() for k in KINDS if k.serves("meduris")]
    mcts = next(line for line in lines if line.startswith("mcts"))
    assert "iterations=200" in mcts and " yes " in mcts
    rllib = next(line for line in lines if line.startswith("rllib"))
    assert "torch,model,ray" in rllib and " no " in rllib
    assert main(["agents", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    rows = doc["agents"]
    assert doc["game"] == "meduris" and [r["name"] for r in rows] == [k.name for k in KINDS]
    assert [lv["level"] for lv in doc["levels"]] == [1, 2, 3, 4, 5]
    by_name = {r["name"]: r for r in rows}
    assert by_name["openspiel-mcts"]["budget"] == {"parameter": "simulations", "default": 100,
                                                   "seconds": False}
    assert by_name["ppo"]["needs"] == ["torch", "model"] and by_name["ppo"]["batch"] is True
    assert by_name["random"]["budget"] is None and by_name["rllib"]["web"] is False
