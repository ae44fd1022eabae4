"""One error family: every exception class the project defines derives from the kit's
:class:`meduris_rl.kit.errors.InputError` (found by importing every module of every package, so a
new class without the base fails here), keeps its older base (``except ValueError`` still
works), and bad input of every kind raises an :class:`InputError` with a one-line message.
Meduris's name for the base, ``meduris_env.MedurisError``, is the same class."""

import importlib
import inspect
import json
import pkgutil

import pytest

from meduris_rl.kit.errors import InputError

# (the import root's mapped folders are walked each: meduris_rl's own folder holds the kit)
PACKAGES = ("meduris_env", "druids_env", "meduris_rl", "meduris_rl.agents", "meduris_rl.train",
            "meduris_rl.cli")

# exceptions that are not errors of input, and why (the CLI must not print them as errors)
OUTSIDE = {
    "GameAbandoned": "control flow: a player quit (or input ended); the game ends unfinished "
                     "and its record is still saved",
    "Forfeit": "control flow: a bot broke the protocol (crashed, hung, answered wrongly); it "
               "loses that game, which is scored (a GameAbandoned)",
    "TournamentInterrupted": "control flow: Ctrl-C or SIGTERM (a KeyboardInterrupt) carrying "
                             "the finished games, which the command writes",
    "WorkerFailed": "an exception of a worker process that could not be sent back as itself: "
                    "a fault of the program, not of the input",
    "Stop": "control flow inside a bot's keeper (agents/plugins/reaper.py, a script): SIGTERM",
}

# the classes named in issue 26 (by name: modules move), with the older base each keeps
EXPECTED = {
    "RecordError": ValueError,
    "StateFileError": ValueError,
    "BoardError": ValueError,
    "IllegalActionError": ValueError,
    "UnknownAgentError": ValueError,
    "TournamentError": ValueError,
    "RayError": ValueError,
    "PlayError": ValueError,
    "PolicyFileError": ValueError,
    "ConfigError": ValueError,
    "RLlibError": Exception,
    "CheckpointError": ValueError,
    "DistillError": ValueError,
    "ServeError": ValueError,
    "WebError": Exception,
    "UsageError": ValueError,
    "PlayerCountError": ValueError,
    "DruidsError": ValueError,
    "OpponentError": ValueError,
    "ValueCheckError": ValueError,
}


def project_modules() -> list[str]:
    names = []
    for package in PACKAGES:
        pkg = importlib.import_module(package)
        names.append(package)
        for info in pkgutil.walk_packages(pkg.__path__, prefix=package + "."):
            if not info.name.endswith("__main__"):  # importing it would run the command
                names.append(info.name)
    return names


def project_exceptions() -> dict[str, type]:
    """Every exception class defined (not merely imported) in a module of the project."""
    found = {}
    for name in project_modules():
        module = importlib.import_module(name)
        for _, obj in inspect.getmembers(module, inspect.isclass):
            if issubclass(obj, BaseException) and obj.__module__ == name:
                found[f"{name}.{obj.__qualname__}"] = obj
    return found


def test_every_project_exception_is_an_input_error():
    found = project_exceptions()
    by_name = {path.rsplit(".", 1)[-1]: cls for path, cls in found.items()}
    assert set(EXPECTED) | set(OUTSIDE) <= set(by_name), sorted(set(EXPECTED) - set(by_name))
    outside = sorted(path for path, cls in found.items() if not issubclass(cls, InputError)
                     and path.rsplit(".", 1)[-1] not in OUTSIDE)
    assert not outside, f"derive these from InputError (or list them in OUTSIDE): {outside}"
    for name in OUTSIDE:
        assert not issubclass(by_name[name], InputError), name
    for name, base in EXPECTED.items():
        assert issubclass(by_name[name], base), f"{name} lost its base {base.__name__}"


def test_only_the_cli_entry_prints_meduris_error():
    """``meduris: error:`` is printed in one place (meduris_rl.cli.main, and argparse's usage
    errors in meduris_rl.cli.checks): the commands raise, they do not print."""
    import ast
    from pathlib import Path

    repo = Path(__file__).resolve().parent.parent
    allowed = {"meduris_cli/main.py", "meduris_cli/checks.py"}
    found = []
    for package in ("meduris_env", "druids_env", "meduris_rl", "agents", "train", "meduris_cli"):
        for path in sorted((repo / package).rglob("*.py")):
            rel = path.relative_to(repo).as_posix()
            tree = ast.parse(path.read_text())
            docstrings = {id(node.body[0].value) for node in ast.walk(tree)
                          if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef,
                                               ast.AsyncFunctionDef))
                          and node.body and isinstance(node.body[0], ast.Expr)}
            found += [f"{rel}:{node.lineno}" for node in ast.walk(tree)
                      if isinstance(node, ast.Constant) and isinstance(node.value, str)
                      and "meduris: error:" in node.value and id(node) not in docstrings
                      and rel not in allowed]
    assert not found, f"raise an InputError (main prints it) instead of printing: {found}"


def test_the_base_lives_in_the_kit_and_meduris_keeps_its_name_for_it():
    import meduris_env
    from meduris_env.engine.errors import MedurisError

    assert MedurisError is InputError is meduris_env.MedurisError
    assert "MedurisError" in meduris_env.__all__
    assert not issubclass(InputError, ValueError)  # the family is its own; members add bases


def _bad_inputs(tmp_path):
    """(what, a call that must raise an InputError) for one bad input of each kind."""
    from meduris_env import GameRecord, MedurisGame, load_board, load_state
    from meduris_rl.agents import make_agent
    from meduris_rl.agents.policies.network import load_policy_file
    from meduris_rl.train.config import TrainConfig

    board = json.loads(json.dumps(load_board("2-3").source))
    board["fields"][3]["materials"] = ["wood", "gold"]
    junk = tmp_path / "policy.pt"
    junk.write_bytes(b"not a policy")
    state = MedurisGame(2).new_initial_state()
    return [
        ("board", lambda: load_board(board)),
        ("state file", lambda: load_state("{")),
        ("record", lambda: GameRecord.from_json("[]")),
        ("action", lambda: state.apply_action(0)),  # a decision at a chance node
        ("agent", lambda: make_agent("nobody")),
        ("config", lambda: TrainConfig(players=5).validate()),
        ("player count", lambda: MedurisGame(5)),
        ("policy file", lambda: load_policy_file(junk)),
    ]


def test_bad_input_of_each_kind_raises_a_one_line_meduris_error(tmp_path):
    for what, call in _bad_inputs(tmp_path):
        with pytest.raises(InputError) as err:
            call()
            pytest.fail(f"{what}: no error")
        message = str(err.value)
        assert message and "\n" not in message, (what, message)
        assert isinstance(err.value, ValueError), what  # old handlers still catch it
