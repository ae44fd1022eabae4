"""The shape of the code: layers that import downwards only (import-linter, and planted
violations it must catch), no engine underscore names outside the engine and no underscore name
used outside its own file (an AST check, and a planted reach it must report), no function over
80 lines outside tests and numba kernels, the public API of version 0.1 still importable, one
implementation of each shared piece, ruff clean, every rule number cited defined in
docs/RULES.md, and a README that stays a front door."""

import ast
import importlib
import importlib.util
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
PYPROJECT = tomllib.loads((REPO / "pyproject.toml").read_text())
#: the game packages: those the games' entry points name (one line per game in pyproject.toml)
GAMES = tuple(sorted({row.split(".")[0] for row in
                      PYPROJECT["project"]["entry-points"]["meduris_rl.games"].values()}))
PACKAGES = ("meduris_rl", "agents", "train", "meduris_cli", *GAMES)
ENGINE = REPO / "meduris_env" / "engine"


def sources(*roots: str, suffixes=(".py",)) -> list[Path]:
    return sorted(p for r in roots for p in (REPO / r).rglob("*") if p.suffix in suffixes
                  and ".venv" not in p.parts and "__pycache__" not in p.parts)


#: the import root's folders: installed name -> the repository's folder (pyproject.toml)
MAPPED = PYPROJECT["tool"]["setuptools"]["package-dir"]


def installed_path(folder_path: str) -> str:
    """Where a repository file sits in the installed layout (``agents/base.py`` is
    ``meduris_rl/agents/base.py``; the game packages and ``meduris_rl/`` are where they are)."""
    for name, folder in MAPPED.items():
        if folder_path.startswith(folder + "/"):
            return name.replace(".", "/") + folder_path[len(folder):]
    return folder_path


def installed_layout(dest: Path) -> Path:
    """The packages copied into ``dest`` as a wheel installs them: import-linter finds a
    package's modules by walking its folder, and ``meduris_rl/`` in the repository holds the
    root and the kit only (its other subpackages are folders of their own, mapped by
    pyproject.toml), so the contracts are checked on this copy."""
    ignore = shutil.ignore_patterns("__pycache__", "models", "data", "static", "configs")
    for folder in ("meduris_rl", *GAMES, *MAPPED.values()):
        shutil.copytree(REPO / folder, dest / installed_path(folder + "/").rstrip("/"),
                        ignore=ignore)
    shutil.copy(REPO / "pyproject.toml", dest)
    return dest


def lint_imports(cwd: Path) -> subprocess.CompletedProcess:
    """import-linter on the packages in ``cwd`` (which come first on the path)."""
    exe = Path(sys.executable).parent / "lint-imports"
    return subprocess.run([str(exe), "--no-cache"], cwd=cwd, capture_output=True, text=True,
                          env={"PYTHONPATH": str(cwd), "PATH": "/usr/bin:/bin"}, timeout=300)


# --- layers ------------------------------------------------------------------------------------
def test_the_layer_contract_holds_on_the_tree(tmp_path):
    run = lint_imports(installed_layout(tmp_path))
    assert run.returncode == 0, run.stdout + run.stderr
    contracts = PYPROJECT["tool"]["importlinter"]["contracts"]
    assert len(contracts) >= 4 and f"{len(contracts)} kept, 0 broken" in run.stdout
    # every module was seen (the contracts hold of all of them, not of an empty graph)
    analyzed = int(re.search(r"Analyzed (\d+) files", run.stdout).group(1))
    assert analyzed == len(sources("meduris_rl", *GAMES, *MAPPED.values()))


LAYERS, ACYCLIC = "layers: kit <- games", "no import cycles"
MEDURIS, DRUIDS = "inside Meduris:", "inside Druids:"
KIT, APART = "the kit imports no game", "the games import each other never"
NO_CLI = "agents and train import nothing from the CLI"
SHARED = "the shared tools import no game package"
CONTRACTS = (LAYERS, MEDURIS, DRUIDS, KIT, APART, NO_CLI, ACYCLIC, SHARED)


@pytest.mark.parametrize("module,planted,broken,named", [
    # a game importing agents: below the layers (its engine, its envs, a top-level module)
    # (the agent table imports no game: nothing else breaks through it)
    ("meduris_env/engine/kernel.py", "import meduris_rl.agents.registry", {LAYERS},
     "meduris_env.engine.kernel -> meduris_rl.agents.registry"),
    ("meduris_env/envs/single_agent.py", "from meduris_rl.agents import make_agent",
     {LAYERS}, "meduris_env.envs.single_agent -> meduris_rl.agents"),
    ("meduris_env/openspiel.py", "import meduris_rl.agents.registry", {LAYERS},
     "meduris_env.openspiel -> meduris_rl.agents.registry"),
    ("druids_env/records.py", "import meduris_rl.train.config", {LAYERS},
     "druids_env.records -> meduris_rl.train.config"),
    # agents importing training, training or agents the CLI
    ("agents/policies/ppo.py", "from meduris_rl.train.config import TrainConfig", {LAYERS},
     "meduris_rl.agents.policies.ppo -> meduris_rl.train.config"),
    ("train/run.py", "import meduris_rl.cli", {LAYERS, NO_CLI},
     "meduris_rl.train.run -> meduris_rl.cli"),
    ("agents/arena/play.py", "from meduris_rl.cli.main import main", {LAYERS, NO_CLI},
     "meduris_rl.agents.arena.play -> meduris_rl.cli.main"),
    # the kit importing a game (and so each game the other, through the kit), or agents
    ("meduris_rl/kit/loop.py", "import meduris_env.engine.state", {LAYERS, KIT, APART},
     "meduris_rl.kit.loop -> meduris_env.engine.state"),
    ("meduris_rl/kit/envs/spaces.py", "import meduris_rl.agents.base", {LAYERS, KIT},
     "meduris_rl.kit.envs.spaces -> meduris_rl.agents.base"),
    # one game importing the other, either way (the layers hold the games apart too)
    ("druids_env/engine/rules.py", "from meduris_env.engine.state import State", {LAYERS, APART},
     "druids_env.engine.rules -> meduris_env.engine.state"),
    ("meduris_env/openspiel.py", "import druids_env.engine.cards", {LAYERS, APART},
     "meduris_env.openspiel -> druids_env.engine.cards"),
    # inside a game: its engine importing its environments
    ("meduris_env/engine/text.py", "import meduris_env.envs.observation", {MEDURIS, ACYCLIC},
     "meduris_env.engine.text -> meduris_env.envs.observation"),
    ("druids_env/engine/cards.py", "import druids_env.envs.common", {DRUIDS, ACYCLIC},
     "druids_env.engine.cards -> druids_env.envs.common"),
    # shared tools importing a game by name (the arena, a trainer's core, a command)
    ("agents/arena/match.py", "import meduris_env.engine.state", {SHARED},
     "meduris_rl.agents.arena.match -> meduris_env.engine.state"),
    ("train/run.py", "import druids_env.engine.cards", {SHARED},
     "meduris_rl.train.run -> druids_env.engine.cards"),
    ("meduris_cli/commands/replay.py", "import meduris_env.records.replay", {SHARED},
     "meduris_rl.cli.commands.replay -> meduris_env.records.replay"),
    # a cycle inside one layer (the old ppo <-> registry one, now between subpackages)
    ("agents/policies/ppo.py", "from meduris_rl.agents.registry import make_agent", {ACYCLIC},
     ".registry -> .policies"),
    # a cycle between engine modules
    ("meduris_env/engine/constants.py", "from meduris_env.engine import kernel", {ACYCLIC},
     ".constants -> .kernel"),
])
def test_the_layer_contract_catches_a_planted_violation(tmp_path, module, planted, broken,
                                                        named):
    installed_layout(tmp_path)
    target = tmp_path / installed_path(module)
    target.write_text(target.read_text() + f"\n{planted}  # planted by the test\n")
    run = lint_imports(tmp_path)
    assert run.returncode != 0, run.stdout + run.stderr
    report = " ".join(run.stdout.split())  # (long contract names wrap)
    assert f"{len(broken)} broken" in report, report
    summary = report[report.index("Analyzed"):report.index("Contracts:")]
    for contract in CONTRACTS:  # each contract's verdict, in the summary
        verdict = re.search(re.escape(contract) + r".*?(KEPT|BROKEN)", summary).group(1)
        assert verdict == ("BROKEN" if contract in broken else "KEPT"), (contract, summary)
    assert named in report  # the report names the offending import


def _engine_private_names() -> set[str]:
    """Underscore names the engine defines: module-level names and class attributes."""
    names = set()
    for path in ENGINE.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
                candidates = [node.name]
            elif isinstance(node, ast.Assign):
                candidates = [t.id for t in node.targets if isinstance(t, ast.Name)]
                candidates += [t.attr for t in node.targets if isinstance(t, ast.Attribute)]
            else:
                continue
            names |= {n for n in candidates if n.startswith("_") and not n.startswith("__")}
    return names


def _absolute(node: ast.ImportFrom, package: str) -> str:
    """The module an ``from ... import`` reads, relative imports resolved (``from ..engine``
    in meduris_env/envs is meduris_env.engine)."""
    if not node.level:
        return node.module or ""
    base = package.split(".")[:len(package.split(".")) - node.level + 1]
    return ".".join(base + ([node.module] if node.module else []))


def test_no_module_outside_the_engine_uses_an_underscore_name_of_the_engine():
    assert _absolute(ast.parse("from ..engine.kernel import _x").body[0],
                     "meduris_env.envs") == "meduris_env.engine.kernel"
    private = _engine_private_names()
    assert {"_a", "_fa_full", "_settle", "_held"} <= private  # the scan sees them
    found = []
    for path in sources(*PACKAGES, "tests", "benchmarks"):
        if ENGINE in path.parents:
            continue
        package = ".".join(path.relative_to(REPO).parent.parts)
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and _absolute(node, package).startswith(
                    "meduris_env.engine"):
                found += [f"{path.name}: import {a.name}" for a in node.names
                          if a.name.startswith("_")]
            elif isinstance(node, ast.Attribute) and node.attr in private and not (
                    isinstance(node.value, ast.Name) and node.value.id in ("self", "cls")):
                found.append(f"{path.relative_to(REPO)}:{node.lineno}: .{node.attr}")
    assert not found, found


# --- seams: underscore names stay in their own file ------------------------------------------
SEAM_ROOTS = ("meduris_rl", "agents", "train", "meduris_cli", "benchmarks", *GAMES)

# Underscored attributes that are public API of the standard library: typing.NamedTuple's
# methods carry an underscore only so they cannot clash with a field name.
PUBLIC_UNDERSCORE = {"_replace", "_asdict", "_fields", "_field_defaults", "_make"}

# Underscore names imported from another module, each with its reason:
PRIVATE_IMPORTS = {
    ("meduris_env/engine/batch.py", "_splitmix64"):
        "a numba kernel helper: the batch's njit random streams mix with the seeding "
        "module's splitmix64 step (one definition of the mixer; not API for users)",
}


def _names_defined(nodes) -> set[str]:
    """Names that the given nodes define: functions, classes, assigned names and assigned
    attributes (``self._x = ...``, ``cls._cache = ...``)."""
    names = set()
    for node in (n for top in nodes for n in ast.walk(top)):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            for target in getattr(node, "targets", None) or [node.target]:
                names |= {n.id for n in ast.walk(target) if isinstance(n, ast.Name)}
                names |= {n.attr for n in ast.walk(target) if isinstance(n, ast.Attribute)}
    return names


def _is_private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def _is_self(node: ast.expr) -> bool:
    return (isinstance(node, ast.Name) and node.id in ("self", "cls")) or (
        isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "super")


def private_reaches(path: Path, rel: str) -> list[str]:
    """The places where ``path`` uses an underscore name that is not its own.

    The file is the unit of privacy (Python's convention for a leading underscore): ``x._name``
    (not a dunder, not NamedTuple API) is a violation unless ``x`` is ``self``, ``cls`` or
    ``super()``, or ``_name`` is defined in the same file (a function, class, method, class
    attribute, or an assignment such as ``self._name = ...``). ``from m import _name`` is a
    violation unless (file, name) is in PRIVATE_IMPORTS: a private module-level function
    imported elsewhere is a seam left open just as an attribute is. A name counts by its
    spelling: the check cannot tell whose ``_x`` an ``other._x`` is, so where a file defines
    ``_x`` itself it errs towards allowing."""
    tree = ast.parse(path.read_text())
    own = _names_defined([tree])
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            found += [f"{rel}:{node.lineno}: from {'.' * node.level}{node.module or ''} import "
                      f"{a.name}" for a in node.names
                      if _is_private(a.name) and (rel, a.name) not in PRIVATE_IMPORTS]
        elif (isinstance(node, ast.Attribute) and _is_private(node.attr)
              and node.attr not in PUBLIC_UNDERSCORE | own and not _is_self(node.value)):
            found.append(f"{rel}:{node.lineno}: {ast.unparse(node)}")
    return sorted(found, key=lambda v: int(v.split(":")[1]))


def seam_violations(root: Path, roots=SEAM_ROOTS) -> list[str]:
    return [v for r in roots if (root / r).is_dir() for path in sorted((root / r).rglob("*.py"))
            if "__pycache__" not in path.parts
            for v in private_reaches(path, str(path.relative_to(root)))]


def test_no_module_uses_underscore_names_of_another_file():
    violations = seam_violations(REPO)
    assert not violations, "underscore names used outside their own file (add a public " \
        "name instead):\n" + "\n".join(violations)


def test_the_seam_check_catches_planted_reaches(tmp_path):
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "own.py").write_text("""
from typing import NamedTuple


class Conf(NamedTuple):
    size: int


def _helper():
    return 1


class Owner:
    _shared = 0

    def __init__(self):
        self._x = Conf(1)._replace(size=2)  # NamedTuple API: allowed

    def __eq__(self, other):
        return self._x == other._x and super()._hidden()  # its own attribute: allowed


def peek(owner):
    return owner._x  # a module function of the class's own file: allowed


class Neighbour:
    def __init__(self, owner):
        self.value = owner._x  # another class of the same file: allowed
        self.helper = _helper()
""")
    (pkg / "user.py").write_text("""
from pkg.own import Owner, _helper  # reported
from .own import _shared  # reported


def use(owner: Owner):
    return owner._x + Owner._shared  # two reports
""")
    (pkg / "clean.py").write_text("import os\n\n\ndef f(x):\n    return x.__dict__, os.sep\n")
    found = seam_violations(tmp_path, ("pkg", "absent"))
    assert found == ["pkg/user.py:2: from pkg.own import _helper",
                     "pkg/user.py:3: from .own import _shared",
                     "pkg/user.py:7: owner._x", "pkg/user.py:7: Owner._shared"], found


# --- short functions ---------------------------------------------------------------------------
def _longest_functions():
    spec = importlib.util.spec_from_file_location("longest_functions",
                                                  REPO / "benchmarks" / "longest_functions.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_no_function_is_longer_than_80_lines_outside_tests_and_numba_kernels():
    lf = _longest_functions()
    lengths = lf.function_lengths(REPO)
    print("the ten longest functions:", *(f"{f.lines:>5}  {f.name}  {f.where}"
                                          for f in lengths[:10]), sep="\n")
    assert len(lengths) > 300 and lengths[0].lines >= lengths[-1].lines  # the walk sees them
    over = [f"{f.where} {f.name}: {f.lines} lines" for f in lengths if f.lines > lf.MAX_LINES]
    assert not over, f"functions over {lf.MAX_LINES} lines (split them): {over}"


def test_the_length_check_measures_functions_and_leaves_out_kernels(tmp_path):
    body = "\n".join(f"    x{i} = {i}" for i in range(81))  # with the def: 82 lines
    (tmp_path / "pkg" / "tests").mkdir(parents=True)
    (tmp_path / "pkg" / "long.py").write_text(f"""import numba
from numba import njit


class A:
    def method(self):
{body.replace("    ", "        ")}


def short():
    def inner():
        return 1
    return inner


@njit(cache=True)
def kernel():
{body}


@numba.jit
def kernel2():
{body}
""")
    (tmp_path / "pkg" / "tests" / "test_long.py").write_text(f"def test_long():\n{body}\n")
    lengths = _longest_functions().function_lengths(tmp_path, ("pkg",))
    assert [(f.lines, f.name, f.where) for f in lengths] == [
        (82, "A.method", "pkg/long.py:6"), (4, "short", "pkg/long.py:90"),
        (2, "short.inner", "pkg/long.py:91")]


# --- public API --------------------------------------------------------------------------------
PUBLIC_0_1 = ["Board", "BoardError", "CHANCE", "Event", "GameRecord", "IllegalActionError",
              "MedurisGame", "MedurisSingleAgentEnv", "NUM_ACTIONS", "NUM_CHANCE_OUTCOMES",
              "OBS_FIELDS", "OBS_SIZE", "RecordError", "State", "StateFileError", "TERMINAL",
              "decode_observation", "env", "load_board", "load_state", "observe_state",
              "parallel_env", "raw_env"]


def test_every_public_name_of_version_0_1_still_imports_from_meduris_env():
    import meduris_env
    for name in PUBLIC_0_1:
        assert name in meduris_env.__all__ and getattr(meduris_env, name) is not None, name
    assert meduris_env.MedurisGame is importlib.import_module("meduris_env.engine").MedurisGame


def test_low_level_handles_are_public():
    from meduris_env import MedurisGame
    from meduris_env.engine import kernel as K

    game = MedurisGame(2)
    state = game.new_initial_state()
    assert state.array.dtype.name == "int32" and state.array is state.array  # live, not a copy
    assert game.field_materials.shape == (32, 2) and game.field_areas.shape == (32,)
    assert not game.field_materials.flags.writeable  # shared by every state of the game
    for kernel in ("run_size", "runes_of", "temple_score", "rank_seats", "win_returns"):
        assert callable(getattr(K, kernel))


# --- one implementation of each shared piece ----------------------------------------------------
# Loops that apply actions, allowed where they are not "play a game with agents":
NOT_GAME_LOOPS = {
    "meduris_rl/kit/loop.py": "the one loop",
    "meduris_rl/kit/records.py": "replays recorded actions",
    "meduris_env/engine/game.py": "places the bonus chips a caller gives",
    "stoneage_env/engine/statefile.py": "replays a state file's history",
    "meduris_env/envs/batch.py": "replays a batch game's history",
    "meduris_cli/meduris/web/store.py": "replays a stored game's actions",
    "agents/meduris/mcts.py": "descends the search tree",
    "agents/meduris/az.py": "descends the search tree",
    "benchmarks/throughput.py": "one driver for Meduris and OpenSpiel's backgammon alike",
}


def test_one_loop_plays_games():
    offenders = []
    for path in sources(*PACKAGES, "benchmarks"):
        rel = str(path.relative_to(REPO))
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, (ast.While, ast.For)) and "apply_action(" in ast.unparse(node):
                if rel not in NOT_GAME_LOOPS:
                    offenders.append(f"{rel}:{node.lineno}")
    assert not offenders, f"a loop that plays a game: use meduris_rl.kit.loop.play {offenders}"


def test_one_seed_scheme():
    """Seeds are derived with derive_seed only: no SeedSequence, no seed arithmetic."""
    arithmetic = re.compile(r"\bseed\s*[-+*^]\s*\w|\w\s*[-+*^]\s*seed\b")
    offenders = []
    for path in sources(*PACKAGES, "benchmarks"):
        if path.name == "seeding.py":
            continue
        for i, line in enumerate(path.read_text().splitlines(), 1):
            code = line.split("#")[0]
            if "SeedSequence" in code or arithmetic.search(code):
                offenders.append(f"{path.relative_to(REPO)}:{i}: {line.strip()}")
    assert not offenders, offenders


def test_one_ranking_and_one_temple_scoring():
    """R26 and R24 are computed by the engine's kernels; others call them."""
    ranking = re.compile(r"buildings_built\(\)\[|materials\[\w+\]\.sum\(\)\)")
    temple = re.compile(r"run_size\(st, (left|right)")
    offenders = []
    for path in sources(*PACKAGES, "benchmarks"):
        text = path.read_text()
        if path != ENGINE / "kernel.py" and temple.search(text):
            offenders.append(f"{path.relative_to(REPO)}: temple scoring")
        if ENGINE not in path.parents and ranking.search(text):
            offenders.append(f"{path.relative_to(REPO)}: an R26 ranking key")
    assert not offenders, offenders


# --- the tooling never branches on a game's name; one import root ---------------------------------
def game_subpackage(path: Path, names: set[str]) -> bool:
    """Whether ``path`` is in a game's own subpackage of agents or train (``agents/meduris/``,
    ``train/druids/``): the only shared folders where a game's name may be code."""
    rel = path.relative_to(REPO).parts
    return len(rel) > 2 and rel[0] in ("agents", "train") and rel[1] in names


def docstrings(tree: ast.AST) -> set[int]:
    """The ids of the docstring nodes of a module, its classes and functions."""
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) \
                and node.body and isinstance(node.body[0], ast.Expr) \
                and isinstance(node.body[0].value, ast.Constant):
            out.add(id(node.body[0].value))
    return out


def game_names_in_code(source: str, names: set[str]) -> list[int]:
    """The lines where a game's name is a value of the code (``game == "druids"``,
    ``GAMES["meduris"]``, ``game: str = "meduris"``, ``make_agent(name, "druids")``): a
    string constant equal to a game's name, outside docstrings (prose may name games) and the
    parser's ``prog="meduris"`` (the command's own name, which is not the game's)."""
    tree = ast.parse(source)
    skip = docstrings(tree) | {id(node.value) for node in ast.walk(tree)
                               if isinstance(node, ast.keyword) and node.arg == "prog"}
    return sorted({node.lineno for node in ast.walk(tree)
                   if isinstance(node, ast.Constant) and node.value in names
                   and id(node) not in skip})


def shared_modules(names: set[str]) -> list[Path]:
    """The kit, the agents and trainers outside the games' subpackages, and the command."""
    return [p for p in sources("meduris_rl", "agents", "train", "meduris_cli")
            if not game_subpackage(p, names)]


def test_no_shared_module_names_a_game_in_its_code():
    from meduris_rl.kit.games import game_names
    names = set(game_names())
    assert {"meduris", "druids"} <= names
    modules = shared_modules(names)
    assert REPO / "agents" / "registry.py" in modules and REPO / "meduris_rl" / "kit" / \
        "games.py" in modules and not any("agents/meduris" in str(p) for p in modules)
    found = [f"{p.relative_to(REPO)}:{line}" for p in modules
             for line in game_names_in_code(p.read_text(), names)]
    assert not found, f"shared code names a game instead of asking its row: {found}"


@pytest.mark.parametrize("planted", [
    'if game == "druids":\n    pass',
    'if "meduris" != spec.name:\n    pass',
    'x = spec.name in ("meduris", "druids")',
    'row = GAMES["meduris"]',
    'def f(game: str = "meduris"):\n    return game',
    'make_agent(name, "druids")',
])
def test_the_game_name_check_catches_a_planted_branch(planted):
    names = {"meduris", "druids"}
    source = f'"""A shared module naming "meduris" in its docstring is fine."""\n{planted}\n'
    assert game_names_in_code(source, names) == [2]
    assert game_names_in_code('"""Prose: meduris, druids."""\nx = "meduris-record"\n'
                              'p = ArgumentParser(prog="meduris")\n', names) == []
    assert game_subpackage(REPO / "agents" / "druids" / "greedy.py", names)
    assert not game_subpackage(REPO / "agents" / "arena" / "match.py", names)


BARE_ROOTS = ("agents", "train", "meduris_cli", "kit")


def bare_imports(source: str) -> list[str]:
    """The imports of ``agents``, ``train``, ``meduris_cli`` or ``kit`` as top-level packages
    in Python source (they install under ``meduris_rl`` only)."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found += [a.name for a in node.names if a.name.split(".")[0] in BARE_ROOTS]
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module \
                and node.module.split(".")[0] in BARE_ROOTS:
            found.append(node.module)
    return found


def python_of(path: Path) -> list[str]:
    """The Python in a file: a module, a notebook's code cells, or a Markdown page's Python
    code blocks (lines starting with >>> or ... unwrapped)."""
    text = path.read_text()
    if path.suffix == ".py":
        return [text]
    if path.suffix == ".ipynb":
        import json
        return ["".join(c["source"]) for c in json.loads(text)["cells"]
                if c["cell_type"] == "code"]
    blocks = re.findall(r"```(?:python|py)\n(.*?)```", text, flags=re.S)
    return ["\n".join(line[4:] if line.startswith((">>> ", "... ")) else line
                      for line in block.splitlines()) for block in blocks]


def test_nothing_imports_a_bare_agents_or_train_package():
    """One import root: code, tests, notebooks, docs and the plug-in examples import
    ``meduris_rl.agents``, ``meduris_rl.train``, ``meduris_rl.cli``, never a bare top-level
    name another distribution may own (openai-agents installs ``agents``)."""
    files = sources(*PACKAGES, "tests", "benchmarks", "notebooks", "examples", "docs",
                    suffixes=(".py", ".ipynb", ".md")) + [REPO / "README.md"]
    assert any(p.suffix == ".md" for p in files) and any(p.suffix == ".ipynb" for p in files)
    found = []
    for path in files:
        for block in python_of(path):
            try:
                found += [f"{path.relative_to(REPO)}: {m}" for m in bare_imports(block)]
            except SyntaxError:  # (a docs fragment that is not a whole program: by its lines)
                found += [f"{path.relative_to(REPO)}: {line.strip()}"
                          for line in block.splitlines() if re.match(
                              r"\s*(from|import)\s+(agents|train|meduris_cli|kit)\b", line)]
    assert not found, found
    assert bare_imports("import agents.registry\nfrom train.run import x\n"
                        "from meduris_rl.agents import y\n") == ["agents.registry", "train.run"]


# --- lint, rules, README -----------------------------------------------------------------------
def test_ruff_finds_nothing():
    exe = Path(sys.executable).parent / "ruff"
    run = subprocess.run([str(exe), "check", "--no-cache", "."], cwd=REPO, capture_output=True,
                         text=True, timeout=120)
    assert run.returncode == 0, run.stdout + run.stderr


def test_every_rule_number_cited_in_the_sources_is_defined_in_docs_rules():
    rules = (REPO / "docs" / "RULES.md").read_text()
    defined = set(re.findall(r"^### ([RE]\d+)\. ", rules, flags=re.M))
    assert {f"R{i}" for i in range(1, 27)} | {f"E{i}" for i in range(1, 8)} <= defined
    cited: dict[str, str] = {}
    for path in sources(*PACKAGES, "tests", "benchmarks", "notebooks",
                        suffixes=(".py", ".ipynb", ".html")):
        for ref in re.findall(r"(?<![\w-])([RE]\d{1,2})(?!\w)", path.read_text()):
            cited.setdefault(ref, str(path.relative_to(REPO)))
    assert "R17" in cited and "E3" in cited  # the scan sees citations
    missing = {ref: where for ref, where in cited.items() if ref not in defined}
    assert not missing, f"cited but not defined in docs/RULES.md: {missing}"


def test_readme_is_a_front_door():
    readme = (REPO / "README.md").read_text()
    assert len(readme.splitlines()) <= 220
    for doc in ("RULES", "engine", "environments", "agents", "training", "benchmarks",
                "testing"):
        assert f"docs/{doc}.md" in readme, doc
        assert (REPO / "docs" / f"{doc}.md").is_file(), doc
    assert "make demo" in readme and "make test" in readme
