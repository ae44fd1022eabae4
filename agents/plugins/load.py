"""Plug-in agents: agents that live outside this project, loaded by name.

The registry (:mod:`meduris_rl.agents.registry`) recognises a plug-in's name and this module loads
and builds it. A plug-in is found by one of

* a file, ``path/to/bots.py:Cautious`` (the text before the first colon contains ``/`` or
  ends in ``.py``; a relative path is taken from the current folder);
* a module, ``my_pkg.bots:Cautious`` (importable: installed, or its folder on ``PYTHONPATH``);
* an entry point of the group ``meduris_rl.agents`` of an installed package
  (:func:`entry_points`), written by its name, e.g. ``cautious``;

each optionally followed by ``:<parameter>``, handed over as one string (``...:Cautious:3``
calls ``Cautious("3")``). The object named (a dotted attribute path is allowed) is turned into
an :class:`~meduris_rl.agents.base.Agent` by :func:`build`:

* a class or a function with a parameter given, or one that needs no argument, is a
  *factory*: it is called (with the parameter, if given, as its one positional argument; an
  Agent subclass whose constructor requires ``name`` also gets ``name=<the agent's name>``)
  and its result is used as below;
* an :class:`~meduris_rl.agents.base.Agent` is used as it is;
* any other object with ``act(observation, state)`` is wrapped in :class:`ActAgent`;
* a function of one argument is a *policy* of the observation dict (PettingZoo style,
  ``f(observation) -> action id``, ``observation = {"observation": vector, "action_mask":
  mask}``), wrapped in :class:`PolicyAgent`.

A plug-in plays every game of the table of games (Meduris, Druids, ...) and receives what a
built-in agent of that game receives (:func:`meduris_rl.agents.arena.match.play_game`):
``act(observation, state)`` the game's observation dict (its row's ``observe``: in Druids
:func:`druids_env.row.observe`, the seat's D14 view, 857 numbers and a mask of the Druids action
ids) and the live state (a ``DruidsState`` in Druids: the whole position, so a plug-in
honouring D14 reads its observation, or searches on ``druids_env.resample_hidden`` copies); a
policy the observation dict. The object named may declare the games it plays with an attribute
``games`` (:func:`declared_games`, e.g. ``games = ("druids",)``); the registry refuses its name
for any other game.

Contract:

* Every agent built here has ``name`` = the name it was asked by (tournament labels, records),
  and ``reset(seed)`` seeds it like the built-ins: an adapter reseeds its ``rng`` and forwards
  ``reset(seed)`` to the wrapped object when it has one.
* Nothing is pickled: a worker process or Ray actor rebuilds the agent from its name. A file
  is imported once per process (under a module name derived from its absolute path, so two
  files called ``bots.py`` do not collide); while it is imported its folder is first on
  ``sys.path`` (as when Python runs a script), so it can import the modules next to it, and
  then taken off again.
* Whatever goes wrong (no such file, an import that fails, no such attribute, something not
  callable, a ``games`` that names no game, a factory that raises or returns something that
  cannot act) is one line,
  :class:`PluginError`, naming the agent and the cause, never a traceback.
* :func:`worker_context` / :func:`apply_worker_context` carry the parent's current folder and
  ``sys.path`` to a worker that does not inherit them (a Ray actor), so names resolve there
  as they did in the parent.
"""

from __future__ import annotations

import difflib
import functools
import hashlib
import importlib
import importlib.util
import inspect
import os
import re
import sys
import traceback
from pathlib import Path

from meduris_rl.agents.base import Agent, UnknownAgentError
from meduris_rl.kit.values import excerpt, printable

GROUP = "meduris_rl.agents"  # the entry-point group installed packages register agents in
IDENTIFIER = re.compile(r"[A-Za-z_]\w*(\.[A-Za-z_]\w*)*\Z")  # a dotted Python name

_FILES: dict[str, object] = {}  # absolute path -> its module, imported once per process


class PluginError(UnknownAgentError):
    """A plug-in agent that cannot be loaded or built (the message names the cause)."""


def is_file_location(location: str) -> bool:
    """Does the text before a name's first colon name a file (``/`` in it, or ``.py``)?"""
    return "/" in location or location.endswith(".py")


def one_line(err: BaseException) -> str:
    """``Type: message`` of an exception, on one line (at most 300 characters, control
    characters escaped); a message that cannot be read (its ``__str__`` raises) is said so."""
    try:
        text = " ".join(str(err).split())
    except BaseException:  # (a plug-in's exception whose __str__ raises, or exits)
        text = "(its message raised an exception too)"
    name = type(err).__name__
    return printable(f"{name}: {text}" if text else name, 300)


def load_file(path: str, text: str):
    """The module of the Python file ``path`` (imported once per process)."""
    file = Path(path).expanduser()
    if not file.is_file():
        why = "is a folder" if file.is_dir() else "does not exist"
        raise PluginError(f"agent {text!r}: the file {path} {why} (relative paths are taken "
                          f"from the current folder, {os.getcwd()})")
    key = str(file.resolve())
    if key in _FILES:
        return _FILES[key]
    digest = hashlib.sha1(key.encode()).hexdigest()[:10]
    module_name = "meduris_plugin_" + re.sub(r"\W", "_", file.stem) + "_" + digest
    spec = importlib.util.spec_from_file_location(module_name, key)
    if spec is None or spec.loader is None:
        raise PluginError(f"agent {text!r}: {path} cannot be imported as Python (name it .py)")
    module = importlib.util.module_from_spec(spec)
    folder = str(Path(key).parent)
    sys.path.insert(0, folder)  # while it is imported, as `python bots.py` would have it
    sys.modules[module_name] = module  # (dataclasses and pickle look the module up)
    try:
        spec.loader.exec_module(module)
    except (Exception, SystemExit) as err:
        del sys.modules[module_name]
        raise PluginError(f"agent {text!r}: importing {path} failed: {one_line(err)}") from None
    finally:
        sys.path.remove(folder)  # (the first entry equal to it: the one inserted)
    _FILES[key] = module
    return module


def load_module(name: str, text: str, hint: str = ""):
    """The module ``name`` (``my_pkg.bots``), imported."""
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as err:
        if err.name and (name == err.name or name.startswith(err.name + ".")):
            raise PluginError(f"agent {text!r}: no module named {err.name!r}{hint}; install "
                              "its package or put its folder on PYTHONPATH") from None
        raise PluginError(f"agent {text!r}: importing {name} failed: {one_line(err)}") from None
    except (Exception, SystemExit) as err:
        raise PluginError(f"agent {text!r}: importing {name} failed: {one_line(err)}") from None


def attribute(module, where: str, dotted: str, text: str):
    """``module.<dotted>``, the object a plug-in name points at; it must be callable."""
    obj = module
    for part in dotted.split("."):
        if not hasattr(obj, part):
            names = [n for n in vars(obj) if not n.startswith("_")] if hasattr(
                obj, "__dict__") else []
            close = difflib.get_close_matches(part, names, n=1)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            raise PluginError(f"agent {text!r}: {where} has no attribute {dotted!r}{hint}")
        obj = getattr(obj, part)
    if not callable(obj):
        raise PluginError(f"agent {text!r}: {where}:{dotted} is a {type(obj).__name__}, not a "
                          "class or a function")
    return obj


def resolve(location: str, dotted: str, text: str, hint: str = ""):
    """The object named by ``<location>:<dotted>``: a file's or a module's attribute
    (``hint``: added to a missing module's message)."""
    if is_file_location(location):
        return attribute(load_file(location, text), location, dotted, text)
    return attribute(load_module(location, text, hint), location, dotted, text)


def entry_points() -> list[tuple[str, str, str]]:
    """(name, ``module:attribute``, package) of every entry point in the group
    ``meduris_rl.agents`` of the installed packages, sorted by name."""
    from importlib.metadata import entry_points as installed

    found = []
    for ep in installed(group=GROUP):
        package = ep.dist.name if getattr(ep, "dist", None) is not None else "?"
        found.append((ep.name, ep.value, package))
    return sorted(found)


def resolve_entry_point(value: str, package: str, text: str):
    """The object an entry point's ``module:attribute`` value names."""
    module, _, dotted = value.partition(":")
    if not dotted:
        raise PluginError(f"agent {text!r}: the entry point of package {package} is "
                          f"{value!r}; it must name an attribute, module:attribute")
    return attribute(load_module(module.strip(), text), module.strip(), dotted.strip(), text)


def declared_games(obj, text: str, known: tuple[str, ...]) -> tuple[str, ...] | None:
    """The games the plug-in object ``obj`` says it plays (its attribute ``games``: a game's
    name or a list of them, each one of ``known``), or None when it says nothing (every
    game)."""
    games = getattr(obj, "games", None)
    if games is None:
        return None
    names = (games,) if isinstance(games, str) else games
    try:
        names = tuple(names)
    except TypeError:
        names = ()
    bad = [g for g in names if g not in known]
    if not names or bad:
        shown = excerpt(bad[0] if bad else games, 40)
        raise PluginError(f"agent {text!r}: its games = {excerpt(games, 60)} must name "
                          f"the games it plays ({shown} is not one); the games: "
                          f"{', '.join(known)}")
    return names


def takes_no_argument(func) -> bool:
    """Can ``func`` be called without arguments (every parameter has a default)?"""
    try:
        signature = inspect.signature(func)
    except (TypeError, ValueError):
        return False
    return all(p.default is not p.empty or p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD)
               for p in signature.parameters.values())


def wants_name(obj) -> bool:
    """Is ``obj`` an Agent subclass whose constructor requires ``name`` (like the built-ins:
    ``__init__(self, name, ...)``)? It is then given the agent's name."""
    if not (inspect.isclass(obj) and issubclass(obj, Agent)):
        return False
    try:
        param = inspect.signature(obj).parameters.get("name")
    except (TypeError, ValueError):
        return False
    return param is not None and param.default is param.empty and param.kind in (
        param.POSITIONAL_OR_KEYWORD, param.KEYWORD_ONLY)


def build(obj, name: str, parameter: str | None, text: str) -> Agent:
    """The agent called ``name`` made of the plug-in object ``obj`` (see the module docs)."""
    label = getattr(obj, "__qualname__", None) or type(obj).__name__
    if inspect.isclass(obj) or parameter is not None or takes_no_argument(obj):
        args = () if parameter is None else (parameter,)
        named = {"name": name} if wants_name(obj) else {}
        try:
            made = obj(*args, **named)
        except (Exception, SystemExit) as err:
            shown = "" if parameter is None else repr(parameter)
            raise PluginError(f"agent {text!r}: {label}({shown}) raised "
                              f"{one_line(err)}") from None
        what = f"{label}({'' if parameter is None else repr(parameter)})"
    else:
        made, what = obj, label  # a policy: f(observation) -> action id
    if isinstance(made, Agent):
        made.name = name
        made.act = guarded(made.act, name)  # (on the instance: its class is the user's)
        made.reset = guarded_reset(made.reset, name)
        return made
    if callable(getattr(made, "act", None)):
        return ActAgent(name, made)
    if made is obj or (callable(made) and not inspect.isclass(made)):
        return PolicyAgent(name, made)
    raise PluginError(f"agent {text!r}: {what} gave a {type(made).__name__}, which is neither "
                      "an Agent, an object with act(observation, state), nor a function of "
                      "the observation")


def reset_wrapped(wrapped, seed: int | None, name: str) -> None:
    """``wrapped.reset(seed)`` if it has one, its failures one PluginError line."""
    reset = getattr(wrapped, "reset", None)
    if callable(reset):
        guarded_reset(reset, name)(seed)


def guarded_reset(reset, name: str):
    """``reset`` of a plug-in, whose failures (``SystemExit`` too: a plug-in does not end the
    run) become one PluginError line naming the agent."""
    @functools.wraps(reset)
    def reset_seeded(seed=None):
        try:
            return reset(seed)
        except KeyboardInterrupt:
            raise
        except BaseException as err:
            raise PluginError(f"agent {name!r}: reset raised {one_line(err)[:200]} (at "
                              f"{raised_at(err)})") from None
    return reset_seeded


def guarded(act, name: str):
    """``act`` of a plug-in, given a copy of the state (``state.clone()``: a plug-in cannot
    change the game it plays in), whose exceptions (``SystemExit`` too, and one whose message
    cannot be read) become one PluginError line naming the agent, the exception and the
    plug-in's line that raised it (not a traceback from a worker process)."""
    @functools.wraps(act)
    def guarded_act(observation, state):
        try:
            return act(observation, state.clone())
        except KeyboardInterrupt:
            raise
        except BaseException as err:
            raise PluginError(f"agent {name!r}: act raised {one_line(err)[:200]} (at "
                              f"{raised_at(err)}, turn {state.turn})") from None
    return guarded_act


def raised_at(err: BaseException) -> str:
    """``file:line`` of the innermost frame of ``err``'s traceback (where it was raised)."""
    frames = traceback.extract_tb(err.__traceback__)
    return f"{Path(frames[-1].filename).name}:{frames[-1].lineno}" if frames else "?"


class ActAgent(Agent):
    """An object with ``act(observation, state)`` as an Agent: ``reset(seed)`` is forwarded
    if it has one; it gets the observation unless it says ``uses_observation = False``."""

    def __init__(self, name: str, wrapped):
        super().__init__(name)
        self.wrapped = wrapped
        self.uses_observation = bool(getattr(wrapped, "uses_observation", True))
        self.guarded_act = guarded(wrapped.act, name)

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        reset_wrapped(self.wrapped, seed, self.name)

    def act(self, observation, state) -> int:  # (checked by the engine: an int id)
        return self.guarded_act(observation, state)


class PolicyAgent(Agent):
    """A function of the observation dict (``f(observation) -> action id``, PettingZoo
    style) as an Agent; ``reset(seed)`` is forwarded if the function has a ``reset``."""

    uses_observation = True

    def __init__(self, name: str, policy):
        super().__init__(name)
        self.policy = policy
        self.guarded_act = guarded(lambda observation, state: policy(observation), name)

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        reset_wrapped(self.policy, seed, self.name)

    def act(self, observation, state) -> int:  # (checked by the engine: an int id)
        return self.guarded_act(observation, state)


def worker_context() -> dict:
    """What a worker needs to resolve plug-in names as this process does: the current
    folder and ``sys.path``."""
    return {"cwd": os.getcwd(), "sys_path": list(sys.path)}


def apply_worker_context(context: dict | None) -> None:
    """In a worker: take the parent's current folder and add the parent's ``sys.path``
    entries this process lacks (after its own)."""
    if not context:
        return
    if os.path.isdir(context["cwd"]):
        os.chdir(context["cwd"])
    for entry in context["sys_path"]:
        if entry not in sys.path:
            sys.path.append(entry)
