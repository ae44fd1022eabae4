"""The table of games: one :class:`GameSpec` row per game, and the tools ask the row.

Every tool that plays "a game" (the arena: match, tournament, duel, ladder, ``play``,
``replay``; the agent table; the trainers; the web server) takes the game's row and its options
as a mapping, and asks the row for whatever differs between games: how to make the game, what a
player observes, how its end reasons and scores read, its records codec, and where the game's
own code for a shared tool lives (``parts``). No shared module compares a game's name (a test
reads the shared modules' syntax trees for such comparisons).

Rows come from two places, both through :func:`register`:

* each game package registers its row when it is imported (``meduris_env.row``,
  ``druids_env.row``, OpenSpiel's way), and an installed game names its row in the entry-point
  group :data:`ENTRY_POINT_GROUP` (pyproject.toml), so :func:`games` finds every installed game
  without a list of names in the tools (RLCard's and PettingZoo's one-row registration);
* a game that is not installed (a notebook's, the tests' toy game) calls :func:`register` itself.

A row is plain data and module-level functions, so it pickles: the arena hands it to its worker
processes, which register it there (a game registered by hand plays in a tournament too).

**Options.** A game's own options (Meduris's ``exchange``, Druids' ``circles``) and its turn
limit (``max_turns``, every game's, with the game's own default) are :class:`Option` rows. Tools
pass them as a mapping (``{"circles": 4}``) and the command line as ``--option NAME=VALUE``;
:meth:`GameSpec.check_options` refuses an unknown name or a bad value in one line, and
:meth:`GameSpec.make` hands the checked values to the game untouched: what is not given keeps
the game's own default. Options marked ``seat`` are the person's seat's in ``meduris play`` (how
the position is shown), not the game's.
"""

from __future__ import annotations

import difflib
import importlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from meduris_rl.kit.errors import InputError
from meduris_rl.kit.values import ValueCheckError, excerpt, parse_int

#: the entry-point group an installed game names its row in
ENTRY_POINT_GROUP = "meduris_rl.games"


class UnknownGameError(InputError, ValueError):
    """A game name that is not in the table, or an option a game does not have."""


def _bool_from_text(what: str, text: str) -> bool:
    words = {"true": True, "yes": True, "on": True, "1": True,
             "false": False, "no": False, "off": False, "0": False}
    value = words.get(text.strip().lower())
    if value is None:
        raise ValueCheckError(f"{what} is true or false, got {excerpt(text)}")
    return value


@dataclass(frozen=True)
class Option:
    """One option of a game: its name, its default (the game's own), its check (``check(what,
    value)`` returns the value as the game takes it or raises a ``ValueCheckError`` naming
    ``what``), a help text, and whether it is the person's seat's (``seat``: how ``meduris
    play`` shows the game) rather than the game's."""

    name: str
    default: Any
    check: Callable[[str, Any], Any]
    help: str
    seat: bool = False

    def parse(self, text: str) -> Any:
        """The value written ``text`` on a command line, read by the default's type (a bool:
        true/false, yes/no, on/off, 1/0; an int: digits, ``none`` for a default of None too;
        text: as it is), then checked."""
        what = f"option {self.name}"
        if isinstance(self.default, bool):
            value: Any = _bool_from_text(what, text)
        elif isinstance(self.default, int) or self.name == "max_turns":
            value = None if text.strip().lower() == "none" else parse_int(what, text.strip())
        else:
            value = text
        return self.check(what, value)


def nothing_to_say() -> None:
    """A game with nothing compiled to wait for (the default ``compile_notice``)."""


@dataclass(frozen=True)
class GameSpec:
    """One row of the table of games (see the module docstring).

    * ``name``: the game's name in flags (``--game``), records, ladders and summaries;
      ``title`` as messages write it;
    * ``player_counts`` and the rule that gives them (``players_rule``: "R1", "D2");
    * ``new_game(num_players, **options)``: the game object (the kit's Game protocol);
      ``game_class``: its class (:func:`spec_of` finds a game object's row by it);
    * ``options``: its :class:`Option` rows (``max_turns`` among them: the turn limit);
    * ``observe(state, seat)``: what an agent that uses observations is given
      (``{"observation", "action_mask"}``); ``end_name(state)``: the end reason in words;
      ``score_unit``: what a score counts ("VP", "amulets"); ``num_actions``: the size of the
      action space (the policy networks' output);
    * ``records``: the game's record codec (:mod:`meduris_rl.kit.records`); ``text(state)``:
      the position in words (a replay's frames);
    * ``seat_view(state, seat)`` and ``game_fields(game)``: what a ``cmd:`` bot at ``seat`` is
      told of the position (one line of JSON: only what the seat knows) and of the game in its
      ``new_game`` message;
    * ``default_agents`` (the kinds to try first), ``default_opponent`` (``meduris play``'s);
    * ``parts``: ``(part, "module:attribute")`` pairs naming the game's own code for a shared
      tool in a higher layer (its agents subpackage, its trainer), imported when asked
      (:meth:`part`): see docs/adding_a_game.md for the parts a tool asks for;
    * ``compile_notice()``: says, once per process, that the game's compiled kernels are being
      built when they are not cached yet (Meduris's numba kernels: a fresh install's first
      minute), before a progress bar that would otherwise wait at 0 % without a word;
    * ``default``: the game the tools play when none is named (one row has it).
    """

    name: str
    title: str
    summary: str
    player_counts: tuple[int, ...]
    players_rule: str
    new_game: Callable[..., Any]
    game_class: type
    observe: Callable[[Any, int], dict]
    end_name: Callable[[Any], str]
    score_unit: str
    num_actions: int
    records: Any
    seat_view: Callable[[Any, int], str]
    game_fields: Callable[[Any], dict]
    text: Callable[[Any], str] = str
    options: tuple[Option, ...] = ()
    default_agents: tuple[str, ...] = ("random",)
    default_opponent: str = "random"
    parts: tuple[tuple[str, str], ...] = ()
    compile_notice: Callable[[], None] = nothing_to_say
    default: bool = False
    info: Mapping[str, Any] = field(default_factory=dict)  # free-form facts for docs and help

    # --- parts ---------------------------------------------------------------------------------
    def has_part(self, name: str) -> bool:
        return name in dict(self.parts)

    def part(self, name: str) -> Any:
        """The game's own code for the shared tools' ``name`` (its module imported when asked);
        a part the game does not have is an UnknownGameError in one line."""
        where = dict(self.parts).get(name)
        if where is None:
            raise UnknownGameError(f"{self.title} has no {name.replace('_', ' ')} (its row names "
                                   "no such part)")
        return code_at(where)

    # --- players -------------------------------------------------------------------------------
    def check_players(self, players: object, what: str = "players",
                      error: type[Exception] = InputError) -> int:
        """``players`` as an int if this game is played by that many, else ``error`` in one line
        naming ``what`` (``--players 5: Meduris is played by 2, 3 or 4 (R1)``): the one check
        and wording of a player count for commands, configs and the web API."""
        if isinstance(players, bool) or not isinstance(players, (int, np.integer)) \
                or players not in self.player_counts:
            *most, last = map(str, self.player_counts)
            counts = f"{', '.join(most)} or {last}" if most else last
            raise error(f"{what} {excerpt(players)}: {self.title} is played by {counts} "
                        f"({self.players_rule})")
        return int(players)

    # --- options -------------------------------------------------------------------------------
    def option(self, name: str) -> Option:
        found = {o.name: o for o in self.options}.get(name)
        if found is None:
            raise UnknownGameError(self._unknown_option(name))
        return found

    def _unknown_option(self, name: object) -> str:
        names = [o.name for o in self.options]
        close = difflib.get_close_matches(str(name), names, n=1)
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        listed = ", ".join(names) if names else "none"
        return (f"option {excerpt(name, 60)}{hint}: {self.title} has no such option; its "
                f"options: {listed}")

    def check_options(self, options: Mapping[str, Any] | None, seat: bool | None = False,
                      error: type[Exception] = UnknownGameError) -> dict[str, Any]:
        """``options`` checked: every name one of this game's options (of the game's when
        ``seat`` is False, of the person's seat's when True, either when None), every value
        passed by its check; ``error`` in one line otherwise. Returns a new dict of the given
        options only (the game applies its defaults to the rest)."""
        return self._checked(options, seat, error, texts=False, flag="")

    def parse_options(self, pairs: list[str] | None, error: type[Exception] = UnknownGameError,
                      flag: str = "--option") -> dict[str, Any]:
        """``NAME=VALUE`` texts (the command line's ``--option``) as a checked mapping; a bad
        pair, an unknown name, a name given twice or a bad value is ``error`` in one line."""
        return self.read_options(option_pairs(pairs, error, flag, self.option_example), error,
                                 seat=None, flag=flag)

    def read_options(self, options: Mapping[str, Any] | None,
                     error: type[Exception] = UnknownGameError, seat: bool | None = False,
                     flag: str = "") -> dict[str, Any]:
        """:meth:`check_options` of a mapping whose values may be texts (a command line's, a
        configuration file's ``"4"`` or ``"on"``): a text is read as the command line reads it
        (:meth:`Option.parse`, which checks it), a bad one ``error`` naming ``flag`` and the
        option."""
        return self._checked(options, seat, error, texts=True, flag=flag)

    def _checked(self, options: Mapping[str, Any] | None, seat: bool | None,
                 error: type[Exception], texts: bool, flag: str) -> dict[str, Any]:
        """The one loop of :meth:`check_options` and :meth:`read_options` (``texts``: a text
        value is parsed, else checked as it is): each option checked once, in the given order."""
        if options is None:
            return {}
        if not isinstance(options, Mapping):
            raise error(f"options must be a mapping of names to values, got {excerpt(options)}")
        known = {o.name: o for o in self.options}
        checked = {}
        for name, value in options.items():
            option = known.get(name) if isinstance(name, str) else None
            if option is None:
                raise error(self._unknown_option(name))
            if seat is not None and option.seat != seat:
                whose = "the person's seat's (meduris play)" if option.seat else "the game's"
                raise error(f"option {name}: it is {whose}, not allowed here")
            try:
                checked[name] = (option.parse(value) if texts and isinstance(value, str)
                                 else option.check(f"option {name}", value))
            except ValueCheckError as err:
                raise error(f"{flag} {name}: {err}" if flag else str(err)) from None
        return checked

    @property
    def option_example(self) -> str:
        """A ``NAME=VALUE`` pair of this game's options (the default of the first one beside
        the turn limit), for messages."""
        first = next((o for o in self.options if o.name != "max_turns"), None) or (
            self.options[0] if self.options else None)
        return f"{first.name}={first.default}" if first else "max_turns=500"

    def settings(self, options: Mapping[str, Any] | None = None,
                 seat: bool = False) -> dict[str, Any]:
        """Every game option (or seat option) with its value: ``options`` over the defaults
        (what a summary or a record of the settings says)."""
        given = dict(options or {})
        return {o.name: given.get(o.name, o.default) for o in self.options if o.seat == seat}

    def make(self, players: int, options: Mapping[str, Any] | None = None) -> Any:
        """The game for ``players`` with ``options`` (checked; the game's defaults for the rest).
        A bad option is an InputError in one line; so is a value the game itself refuses."""
        checked = self.check_options(options, seat=False)
        try:
            return self.new_game(self.check_players(players), **checked)
        except ValueCheckError as err:
            raise InputError(str(err)) from None

    @property
    def turn_limit(self) -> int | None:
        """The game's own turn limit (its ``max_turns`` option's default)."""
        return self.option("max_turns").default if "max_turns" in self.option_names else None

    @property
    def option_names(self) -> tuple[str, ...]:
        return tuple(o.name for o in self.options)

    def options_help(self) -> str:
        """The options in words, for ``--help`` and ``meduris games``."""
        return "; ".join(f"{o.name} (default {o.default}): {o.help}" for o in self.options)


def option_pairs(pairs: list[str] | None, error: type[Exception] = UnknownGameError,
                 flag: str = "--option", example: str = "max_turns=500") -> dict[str, str]:
    """``NAME=VALUE`` texts (the command line's ``--option``) as ``{NAME: VALUE}`` texts, not
    yet read by any game; a pair without ``=`` or a name, or a name given twice, is ``error``
    in one line."""
    out: dict[str, str] = {}
    for pair in pairs or []:
        name, eq, text = pair.partition("=")
        name = name.strip()
        if not eq or not name:
            raise error(f"{flag} {excerpt(pair, 60)}: write {flag} NAME=VALUE (e.g. {example})")
        if name in out:
            raise error(f"{flag} {name} is given twice; give it once")
        out[name] = text
    return out


def code_at(where: str) -> Any:
    """The object ``where`` (``"module:attribute"``) names, its module imported when asked: the
    one reader of a row's parts and of the agent table's lazily imported rows."""
    module, _, attribute = where.partition(":")
    return getattr(importlib.import_module(module), attribute)


# --- the table ---------------------------------------------------------------------------------
_ROWS: dict[str, GameSpec] = {}
_LOADED: list[bool] = []


def register(spec: GameSpec) -> GameSpec:
    """Add ``spec`` to the table and return the row the table holds for its game: a row of a
    game already there (the same game class: the row itself, or a copy of it unpickled in a
    worker process) changes nothing; another game of the same name is an UnknownGameError in
    one line."""
    if not isinstance(spec, GameSpec):
        raise UnknownGameError(f"a game's row is a GameSpec, got {excerpt(spec)}")
    known = _ROWS.get(spec.name)
    if known is not None:
        if known.game_class is not spec.game_class:
            raise UnknownGameError(f"a game named {spec.name!r} is registered already; give "
                                   "the new game another name")
        return known
    _ROWS[spec.name] = spec
    return spec


def _load_installed() -> None:
    """Import every installed game's row named in :data:`ENTRY_POINT_GROUP` (once)."""
    if _LOADED:
        return
    _LOADED.append(True)
    from importlib.metadata import entry_points
    for ep in sorted(entry_points(group=ENTRY_POINT_GROUP), key=lambda e: e.name):
        try:
            row = ep.load()
        except Exception as err:  # a broken game must not stop the others: said when asked for
            _BROKEN[ep.name] = f"{type(err).__name__}: {err}"
            continue
        register(row)


_BROKEN: dict[str, str] = {}


def games() -> dict[str, GameSpec]:
    """Every game: the default first, then by name (the installed ones and those registered)."""
    _load_installed()
    rows = sorted(_ROWS.values(), key=lambda r: (not r.default, r.name))
    return {r.name: r for r in rows}


def game_names() -> tuple[str, ...]:
    return tuple(games())


def default_game() -> GameSpec:
    """The game the tools play when none is named: the row marked ``default`` (else the
    first by name)."""
    rows = games()
    if not rows:
        raise UnknownGameError("no game is installed or registered")
    return next(iter(rows.values()))


def game_spec(game: str | GameSpec | None = None,
              error: type[Exception] = UnknownGameError) -> GameSpec:
    """The row of ``game`` (a name, a row, or None for the default game), or ``error`` in one
    line listing the games."""
    if isinstance(game, GameSpec):
        return game
    if game is None:
        return default_game()
    rows = games()
    if isinstance(game, str) and game in rows:
        return rows[game]
    if isinstance(game, str) and game in _BROKEN:
        raise error(f"the game {game!r} is installed but its row does not load "
                    f"({_BROKEN[game]})")
    close = difflib.get_close_matches(str(game), list(rows), n=1) if isinstance(game, str) \
        else []
    hint = f" (did you mean {close[0]!r}?)" if close else ""
    raise error(f"unknown game {excerpt(game, 60)}{hint}; the games: {', '.join(rows)}")


def check_game(game: object, error: type[Exception] = UnknownGameError) -> str:
    """The name of ``game`` if it names a game (or is a row), else ``error`` in one line."""
    return game_spec(game, error).name  # type: ignore[arg-type]


def spec_of(game: Any) -> GameSpec:
    """The row of a game object (the row whose ``game_class`` it is an instance of)."""
    for row in games().values():
        if isinstance(game, row.game_class):
            return row
    raise UnknownGameError(f"{type(game).__name__} is not the game of any row; register its "
                           "row (meduris_rl.kit.games.register)")
