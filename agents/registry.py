"""Agents by name, and the one table of agent kinds they are parsed against.

A built-in agent's name is ``<kind>``, ``<kind>:<budget>``, ``<kind>:<file>`` or
``<kind>:<budget>:<file>`` (``random``, ``mcts:200`` iterations per move, ``mcts:0.5s`` seconds
per move, ``ppo`` the shipped model, ``ppo:runs/a/policy.pt``, ``az:400:best.pt``); which of
these a kind takes is in its row (:func:`kinds`). Plug-in agents
(:mod:`meduris_rl.agents.plugins.load`, docs/bring_your_own_agent.md) have rows too:

* ``path/to/bots.py:Cautious[:<parameter>]``: a class, factory or function in a file (the
  text before the first colon contains ``/`` or ends in ``.py``), row ``file``;
* ``my_pkg.bots:Cautious[:<parameter>]``: the same from an importable module, row ``module``;
* ``cmd:<command line>``: a program in any language
(:class:`meduris_rl.agents.plugins.external.SubprocessAgent`,
  the whole text after ``cmd:`` is its command), row ``cmd``;
* ``<name>[:<parameter>]``: an agent an installed package registers in the entry-point group
  ``meduris_rl.agents``, one row per entry point, found when first asked for (a name taken by
  a built-in kind of any game, a plug-in form or an earlier entry point is ignored:
  :func:`ignored_entry_points` says why).

The ``<parameter>`` is one string handed to the class or factory (``:Cautious:3`` calls
``Cautious("3")``). Everything that reads agent names asks this table: :func:`make_agent`,
:func:`meduris_rl.agents.meduris.batch.make_batch_opponent`, the tournament, the web server's list
of opponents (its ``web`` column: never a file, module or command; entry points are offered, being
registered when the server starts) and ``meduris agents`` (which prints it), so a new kind is
one row (here, or in its game's agents subpackage).

**Rows per game.** The shared rows serve every game: ``random``, and the plug-ins (the file,
module and ``cmd:`` forms, and every entry point: its row is made without importing it). A
game's own kinds (Meduris's ``greedy``, ``mcts``, ``ppo``, ``az`` ...; Druids' ``greedy``,
``ppo``, ``ismcts``) are rows of its agents subpackage, named by its row in the table of games
(the part ``agent_kinds``, :mod:`meduris_rl.kit.games`): :func:`kinds` lists a game's rows, its
own first, and a name is parsed for a game (``AgentSpec.parse(name, game="druids")``, default:
the default game), so a kind another game has but this one has not is refused in one line. A
Python plug-in (file, module or entry point) may say which games it plays with an attribute
``games`` on the object named (``games = ("druids",)`` on the class or function; a string or a
list of names of games; none: every game): the name is refused for another game in one line
when it is parsed (:meth:`AgentSpec.games`).

Contract:

* :meth:`AgentSpec.parse` accepts exactly the names the agents accept, and refuses any other
  with one line (:class:`~meduris_rl.agents.base.UnknownAgentError`) naming the fix, with a "did you
  mean" hint for a misspelt kind. For a built-in it reads no file: a missing model is the agent's
  own error when it is built (:meth:`AgentSpec.build`, :func:`make_agent`). For a file,
  module or entry-point plug-in it imports the plug-in (once per process) and finds the object
  named, so a missing file, a failed import, a missing attribute or something not callable is
  one line (:class:`~meduris_rl.agents.plugins.load.PluginError`) wherever names are checked, before
  any game; a factory that raises is refused when the agent is first built (the tournament and
  ``meduris play`` build every agent once before the first game).
* ``str(spec)`` is the canonical name, the given text without surrounding blanks; it is the
  agent's ``name`` (tournament labels, game records) and parses back to an equal spec.
* A plug-in is built from its name in every process that plays it (worker processes, Ray
  actors): nothing of it is pickled.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable
from dataclasses import dataclass

from meduris_rl.agents.base import Agent, UnknownAgentError
from meduris_rl.agents.budgets import MAX_COUNT, MAX_SECONDS
from meduris_rl.agents.plugins import load as plugins
from meduris_rl.kit.games import GameSpec, game_names, game_spec, games
from meduris_rl.kit.values import ValueCheckError, excerpt, parse_float, parse_int, printable


@dataclass(frozen=True)
class Budget:
    """A kind's search budget per move: ``<kind>:<count>`` named ``name`` (iterations,
    simulations) with ``default``; with ``seconds`` also ``<kind>:<seconds>s``. Counts are
    whole numbers 1..``maximum``, seconds finite numbers in (0, ``max_seconds``], written in
    digits (no exponent, ``nan`` or ``inf``): a budget that never ends is refused."""

    name: str
    default: int
    seconds: bool = False
    maximum: int = MAX_COUNT
    max_seconds: float = MAX_SECONDS

    def parse(self, text: str, kind: str, raw: str) -> tuple[int | float, str]:
        """(amount, unit) of the budget part ``raw`` of the name ``text``; "" is the default."""
        if not raw:
            return self.default, self.name
        try:
            if self.seconds and raw.endswith("s"):
                amount = parse_float("seconds", raw[:-1], 0.0, self.max_seconds)
                if amount > 0:
                    return amount, "seconds"
            elif parse_int(self.name, raw, 1, self.maximum):
                return int(raw), self.name
        except ValueCheckError:
            pass
        if self.seconds:
            how = (f"write {kind}:<{self.name}> (e.g. {kind}:{self.default}) or "
                   f"{kind}:<seconds>s (e.g. {kind}:0.5s), a positive number in digits: at most "
                   f"{self.maximum} {self.name} or {self.max_seconds:g} seconds per move")
        else:
            how = (f"write {kind}:<count>, a positive whole number (e.g. {kind}:{self.default}), "
                   f"at most {self.maximum}")
        raise UnknownAgentError(f"agent {excerpt(text, 100)}: {how}")

    def usage(self) -> str:
        return f"<{self.name}>" + ("|<seconds>s" if self.seconds else "")

    def describe(self) -> str:
        """The budget's default and maxima, e.g. ``iterations=200 (max 10000000; 3600s)``."""
        limit = f"max {self.maximum}" + (f"; {self.max_seconds:g}s" if self.seconds else "")
        return f"{self.name}={self.default} ({limit})"


@dataclass(frozen=True)
class AgentKind:
    """One row of the table: what a kind of agent is and what it takes."""

    name: str
    summary: str
    build: Callable[[AgentSpec], Agent]  # the agent of a parsed name (imports it lazily)
    batch: str | None = None  # its batched version for make_batch_opponent: "environment"
    #                           (the vector env's own), "greedy" or "policy"; None: none
    budget: Budget | None = None
    file: str | None = None  # what ``:<file>`` names, e.g. "policy.pt"; None: no file
    file_required: bool = False
    needs: tuple[str, ...] = ()  # of "torch", "model" (a network file), "ray", "open_spiel"
    web: bool = True  # may the web page offer it (never with a file: meduris_rl.cli.meduris.web)
    source: str = "built-in"  # or "file", "module", "cmd", "entry point" (a plug-in)
    target: str | None = None  # an entry point's module:attribute
    package: str | None = None  # the installed package an entry point comes from
    syntax: str | None = None  # how to write a plug-in form's names (instead of the name)
    games: tuple[str, ...] | None = None  # the games it plays (None: every game)
    players: tuple[int, ...] = (2, 3, 4)  # the player counts it plays (its model's, if fixed)
    model: str = "ppo_{players}p.pt"  # its shipped network in agents/models/ (with "model")

    def shipped_model(self, players: int):
        """The shipped network file this kind plays with at ``players`` (a Path, which may be
        missing from a checkout), or None for a kind without one."""
        if "model" not in self.needs or self.file_required:
            return None
        from meduris_rl.agents.policies.ppo import MODELS
        return MODELS / self.model.format(players=players)

    def serves(self, game: str) -> bool:
        return self.games is None or game in self.games

    def usage(self) -> str:
        """How to write its names, e.g. ``az[:<iterations>|<seconds>s[:<policy.pt>]]``."""
        if self.syntax:
            return self.syntax
        if self.source == "entry point":
            return f"{self.name}[:<parameter>]"
        file = f":<{self.file}>" if self.file else ""
        if self.budget is None:
            return self.name + (file if self.file_required or not file else f"[{file}]")
        budget = f":{self.budget.usage()}"
        return f"{self.name}[{budget}{f'[{file}]' if file else ''}]"


def _random(spec: AgentSpec) -> Agent:
    from meduris_rl.agents.simple import RandomAgent
    return RandomAgent(str(spec))


def _plugin(spec: AgentSpec) -> Agent:
    return plugins.build(spec.plugin_object(), str(spec), spec.parameter, str(spec))


def _cmd(spec: AgentSpec) -> Agent:
    try:
        from meduris_rl.agents.plugins.external import SubprocessAgent
    except ImportError as err:
        raise plugins.PluginError(f"agent {str(spec)!r}: cmd: agents need "
                                  f"meduris_rl.agents.plugins.external "
                                  f"({plugins.one_line(err)})") from None
    return SubprocessAgent(str(spec), spec.target)


#: the search budget of most search kinds: iterations per move, or seconds per move
SEARCH = Budget("iterations", 200, seconds=True)

#: the kinds every game has, in the order the help and the error messages list them (a game's
#: own rows come after them: :func:`kinds`)
SHARED: tuple[AgentKind, ...] = (
    AgentKind("random", "uniform over legal actions", _random, batch="environment"),
)

#: the plug-in forms: agents from outside the project (never offered by the web server)
PLUGIN_FORMS: tuple[AgentKind, ...] = (
    AgentKind("file", "a plug-in: an Agent class, an object with act(), or a policy function "
              "of the observation, from a Python file", _plugin, web=False, source="file",
              syntax="<path/to/file.py>:<Name>[:<parameter>]"),
    AgentKind("module", "a plug-in as above from an importable module (installed or on "
              "PYTHONPATH)", _plugin, web=False, source="module",
              syntax="<module>:<Name>[:<parameter>]"),
    AgentKind("cmd", "a program in any language speaking the JSON-lines protocol on "
              "stdin/stdout (the whole text after cmd: is its command line)", _cmd, web=False,
              source="cmd", syntax="cmd:<command line>"),
)


def entry_point_kinds(found: list[tuple[str, str, str]], taken: set[str]
                      ) -> tuple[tuple[AgentKind, ...], dict[str, str]]:
    """The rows of the entry points ``found`` ((name, module:attribute, package), see
    :func:`meduris_rl.agents.plugins.load.entry_points`), and why each one left out was ({name:
    reason})."""
    rows: list[AgentKind] = []
    ignored: dict[str, str] = {}
    for name, value, package in found:
        if name in taken:
            ignored[name] = (f"entry point {name!r} of package {package} is ignored: the name "
                             "is taken by another agent")
        elif not plugins.IDENTIFIER.match(name.replace("-", "_")) or "." in name:
            ignored[name] = (f"entry point {name!r} of package {package} is ignored: an agent "
                             "name is letters, digits, _ and -")
        else:
            taken.add(name)
            rows.append(AgentKind(name, f"a plug-in from the package {package} ({value})",
                                  _plugin, source="entry point", target=value,
                                  package=package))
    return tuple(rows), ignored


def game_kinds(game: GameSpec) -> tuple[AgentKind, ...]:
    """The game's own rows (its row's ``agent_kinds`` part; none without it)."""
    return tuple(game.part("agent_kinds")) if game.has_part("agent_kinds") else ()


#: the rows found so far, filled when first asked: "entry points" (their rows and the ones left
#: out) and ("kinds", game) (a game's list, :func:`kinds`)
FOUND: dict = {}


def _entry_points() -> tuple[tuple[AgentKind, ...], dict[str, str]]:
    """The entry points' rows and the ones left out (found once)."""
    if "entry points" not in FOUND:
        taken = {k.name for k in SHARED + PLUGIN_FORMS}
        taken |= {k.name for g in games().values() for k in game_kinds(g)}
        FOUND["entry points"] = entry_point_kinds(plugins.entry_points(), taken)
    return FOUND["entry points"]


def ignored_entry_points() -> dict[str, str]:
    """{name: why} of the installed entry points left out (a taken or malformed name)."""
    return _entry_points()[1]


def kinds(game: str | GameSpec | None = None) -> tuple[AgentKind, ...]:
    """Every kind of agent ``game`` has (None: the default game), in the order help and errors
    list them: the shared ones, the game's own, the plug-in forms, the entry points."""
    row = game_spec(game, UnknownAgentError)
    key = ("kinds", row.name)
    if key not in FOUND:
        own = game_kinds(row)
        shared = tuple(k for k in SHARED if k.name not in {o.name for o in own})
        FOUND[key] = shared + own + PLUGIN_FORMS + _entry_points()[0]
    return FOUND[key]


def kind_named(name: str, game: str | GameSpec | None = None) -> AgentKind | None:
    """The row of the kind ``name`` in ``game``, or None."""
    return next((k for k in kinds(game) if k.name == name), None)


def all_kinds() -> tuple[AgentKind, ...]:
    """Every kind of every game, each name once (the first game's row where two games share a
    name), in the default game's order, then the other games'."""
    out: dict[str, AgentKind] = {}
    for name in game_names():
        for k in kinds(name):
            out.setdefault(k.name, k)
    return tuple(out.values())


NAMED = ("built-in", "entry point")  # sources whose rows are written by their name
PYTHON_PLUGINS = ("file", "module", "entry point")  # sources that may declare their games


def located(kind: str, colon: str, param: str) -> bool:
    """Is ``<kind>:<param>`` a file or module plug-in's name (``path/bots.py:Name``,
    ``my_pkg.bots:Name``)?"""
    return plugins.is_file_location(kind) or bool(
        colon and plugins.IDENTIFIER.match(kind) and plugins.IDENTIFIER.match(
            param.partition(":")[0]))


def known_list(game: str | GameSpec | None = None) -> str:
    return ", ".join(kind.name for kind in kinds(game) if kind.source in NAMED)


@dataclass(frozen=True)
class AgentSpec:
    """A parsed agent name: its kind, budget (amount and unit), file or plug-in parameter, and
    for a file or module plug-in where it is (``path/to/bots.py:Cautious``), for ``cmd:`` the
    command line."""

    kind: str
    budget: int | float | None = None  # None: the kind has no budget
    unit: str | None = None  # "iterations", "simulations" or "seconds"
    parameter: str | None = None  # the file (policy.pt, checkpoint folder), or a plug-in's
    #                               parameter string; None: none given
    text: str = ""  # the canonical name
    target: str | None = None  # a plug-in's <file or module>:<Name>; cmd's command line
    game: str | None = None  # the game it plays (a name of the table of games; None: the default)

    @classmethod
    def parse(cls, text: object, game: str | GameSpec | None = None) -> AgentSpec:
        """The spec of an agent name for ``game`` (None: the default game), or
        UnknownAgentError saying how to write it (for a plug-in, after importing it: PluginError
        if it cannot be loaded); a kind that does not serve ``game`` is refused in one line."""
        row = game_spec(game, UnknownAgentError)
        spec = cls.parse_name(text, row)
        games = spec.games()
        if games is not None and row.name not in games:
            said = f" (its games = {games!r})" if spec.row.source in PYTHON_PLUGINS else ""
            raise UnknownAgentError(f"agent {spec.text!r} does not play {row.name}{said}; "
                                    f"{row.name} agents: {known_list(row)}")
        return spec

    @classmethod
    def parse_name(cls, text: object, game: str | GameSpec | None = None) -> AgentSpec:
        """The spec of an agent name of ``game`` (the kinds are the game's; :meth:`parse` also
        checks a plug-in's declared games)."""
        row = game_spec(game, UnknownAgentError)
        if not isinstance(text, str) or not text.strip():
            raise UnknownAgentError(f"an agent name is a non-empty string, got {text!r}; "
                                    f"known agents: {known_list(row)}")
        text = text.strip()
        if not text.isprintable():  # (a label of games.csv, tables and records: text only)
            raise UnknownAgentError(f"agent '{printable(text, 100)}': a name is printable "
                                    "UTF-8 text (no control characters, tabs, line breaks or "
                                    "undecodable bytes)")
        kind, colon, param = text.partition(":")
        found = kind_named(kind, row)
        if kind == "cmd":
            command = param.strip()
            if not colon or not command:
                raise UnknownAgentError(f"agent {text!r}: write cmd:<command line>, e.g. "
                                        "'cmd:./mybot --fast'")
            return cls("cmd", text=text, target=command, game=row.name)
        if found is not None and found.source == "built-in":
            return cls.parse_builtin(text, found, param, row.name)
        if found is not None and found.source == "entry point":
            return cls.parse_plugin(text, found, param if colon else None, game=row.name)
        if located(kind, colon, param):
            return cls.parse_located(text, kind, param, row.name)
        if any(k.name == kind and k.source == "built-in" for k in all_kinds()):
            raise UnknownAgentError(f"agent {text!r} does not play {row.name}; {row.name} "
                                    f"agents: {known_list(row)}")
        named = [k.name for k in kinds(row) if k.source in NAMED]
        close = difflib.get_close_matches(kind, named, n=1)
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        raise UnknownAgentError(f"unknown agent {text!r}{hint}; known agents: {known_list(row)}"
                                "; or a plug-in: path/to/bots.py:<Name>, my_pkg.bots:<Name>, "
                                "cmd:<command line> (meduris agents lists them)")

    @classmethod
    def parse_builtin(cls, text: str, row: AgentKind, param: str, game: str) -> AgentSpec:
        """The spec of a built-in kind's name ``text`` (``param``: what follows its kind)."""
        kind = row.name
        if param and row.budget is None and row.file is None:
            raise UnknownAgentError(f"agent {text!r}: {kind} takes no parameter; use {kind!r}")
        raw_budget, file = "", param
        if row.budget is not None:
            raw_budget, _, file = param.partition(":") if row.file else (param, "", "")
        budget = unit = None
        if row.budget is not None:
            budget, unit = row.budget.parse(text, kind, raw_budget)
        return cls(kind, budget, unit, file or None, text, game=game)

    @classmethod
    def parse_located(cls, text: str, location: str, param: str, game: str) -> AgentSpec:
        """The spec of ``<file or module>:<Name>[:<parameter>]`` (``param``: after the first
        colon), with its object found."""
        row = kind_named("file" if plugins.is_file_location(location) else "module", game)
        name, colon, parameter = param.partition(":")
        if not plugins.IDENTIFIER.match(name):
            shown = location if row.source == "file" else "my_pkg.bots"
            raise UnknownAgentError(f"agent {text!r}: write {shown}:<Name>[:<parameter>], "
                                    "<Name> the class, factory or function to use")
        return cls.parse_plugin(text, row, parameter if colon else None, f"{location}:{name}",
                                game)

    @classmethod
    def parse_plugin(cls, text: str, row: AgentKind, parameter: str | None,
                     target: str | None = None, game: str | None = None) -> AgentSpec:
        """The spec of a plug-in name, after finding its object (imported once per process,
        so a bad plug-in is refused wherever its name is checked)."""
        if parameter is not None and not parameter:
            raise UnknownAgentError(f"agent {text!r}: the parameter after the last ':' is "
                                    "empty; leave out the ':' or give one")
        spec = cls(row.name, parameter=parameter, text=text, target=target, game=game)
        spec.plugin_object()
        return spec

    def games(self) -> tuple[str, ...] | None:
        """The games this agent plays (None: every game): its row's, or for a Python plug-in
        the ``games`` its object declares (PluginError in one line for a bad declaration)."""
        if self.row.source not in PYTHON_PLUGINS:
            return self.row.games
        declared = plugins.declared_games(self.plugin_object(), self.text, game_names())
        return self.row.games if declared is None else declared

    def plugin_object(self):
        """The object a file, module or entry-point plug-in names (its module imported)."""
        row = self.row
        if row.source == "entry point":
            return plugins.resolve_entry_point(row.target or "", row.package or "?", self.text)
        location, _, name = (self.target or "").partition(":")
        hint = ""
        if row.source == "module" and "." not in location:
            named = [k.name for k in kinds(self.game) if k.source in NAMED]
            close = difflib.get_close_matches(location, named, n=1)
            hint = f" (did you mean the agent {close[0]!r}?)" if close else ""
        return plugins.resolve(location, name, self.text, hint)

    @property
    def row(self) -> AgentKind:
        found = kind_named(self.kind, self.game)
        if found is None:
            raise UnknownAgentError(f"agent {self.text!r} does not play "
                                    f"{game_spec(self.game).name}")
        return found

    def search_budget(self) -> dict:
        """The budget as a search agent's arguments (iterations, or seconds per move)."""
        if self.unit == "seconds":
            return {"iterations": None, "seconds": self.budget}
        return {"iterations": self.budget}

    def build(self) -> Agent:
        """The agent (loading its model, if it has one: a bad file is an UnknownAgentError)."""
        return self.row.build(self)

    def describe(self) -> str:
        """One line in words, e.g. ``mcts: Monte Carlo tree search ...; 200 iterations per
        move``."""
        parts = [f"{self.kind}: {self.row.summary}"]
        if self.budget is not None:
            parts.append(f"{self.budget:g} {self.unit} per move")
        if self.target:
            parts.append(self.target)
        if self.parameter and self.row.source == "built-in":
            parts.append(f"from {self.parameter}")
        elif self.parameter:
            parts.append(f"parameter {self.parameter!r}")
        return "; ".join(parts)

    def __str__(self) -> str:
        return self.text


def make_agent(spec: str | AgentSpec, game: str | GameSpec | None = None) -> Agent:
    """Build the agent named by ``spec`` for ``game`` (a parsed spec carries its own); an
    UnknownAgentError says how to write a name it cannot build, or why its model file cannot
    be loaded."""
    if not isinstance(spec, AgentSpec):
        spec = AgentSpec.parse(spec, game)
    return spec.build()


def check_agent(name: str, game: str | GameSpec | None = None, players: int | None = None,
                move_time: float | None = None, log_dir: str | None = None) -> None:
    """Before a run: the agent ``name`` can be built for ``game`` (its model loaded), plays
    ``players`` (a policy file trained for another count is refused), and, for a ``cmd:`` bot,
    starts and answers the handshake within ``move_time`` (at least the handshake time) with
    its stderr in ``log_dir`` (:meth:`~.plugins.external.SubprocessAgent.preflight`); an
    UnknownAgentError in one line if not."""
    agent = make_agent(name, game)
    if hasattr(agent, "set_limits"):
        agent.set_limits(move_time, None, log_dir or None)
    if players is not None and hasattr(agent, "check_players"):
        agent.check_players(players)
    if hasattr(agent, "preflight"):
        agent.preflight(game_spec(game, UnknownAgentError).name)
