"""An agent's one name on a ladder: entrants and anchors are stored and looked up by their
canonical name, so the same agent spelt two ways is one entrant, not two.

Contract (:func:`canonical_name`, of a game's agent names; it never reads a file, imports a
plug-in or raises):

* surrounding blanks go (``" greedy "`` is ``greedy``), and for ``cmd:`` the blanks between
  ``cmd:`` and the command (``cmd: ./bot`` is ``cmd:./bot``: the same command line runs);
* a built-in kind's budget, when one is written, is spelt the one way that parses back to it:
  a count without leading zeros (``mcts:05`` is ``mcts:5``, ``az:010:best.pt`` is
  ``az:10:best.pt``), seconds as the shortest decimal without an exponent or trailing zeros
  (``mcts:0.50s`` is ``mcts:0.5s``, ``mcts:5.s`` is ``mcts:5s``);
* everything else is kept as written: a kind without its budget stays without it (``mcts``
  and ``mcts:200`` stay two names: the shipped anchors name ``search`` and ``mcts:200`` so), a
  model file or a plug-in's parameter is not rewritten (``ppo:a.pt`` and ``ppo:./a.pt`` are
  two names), and a name that does not parse (an agent no longer installed, in an old ladder)
  is only stripped.

The canonical name parses to the same agent as the name (:meth:`AgentSpec.parse` gives equal
kind, budget, unit and file), and canonicalising it again changes nothing.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from meduris_rl.agents.base import UnknownAgentError
from meduris_rl.agents.registry import AgentSpec, kind_named


def canonical_name(name: str, game: str | None = None) -> str:
    """The canonical spelling of the agent name ``name`` of ``game`` (None: the default game):
    see the module docstring."""
    text = name.strip()
    kind, colon, param = text.partition(":")
    if kind == "cmd" and colon and param.strip():
        return f"cmd:{param.strip()}"
    try:
        row = kind_named(kind, game)
        if row is None or row.source != "built-in" or row.budget is None or not colon:
            return text
        raw, sep, file = param.partition(":") if row.file else (param, "", "")
        if not raw:
            return text
        spec = AgentSpec.parse_name(text, game)  # (a built-in: reads no file)
    except (UnknownAgentError, ValueError):
        return text
    if spec.unit == "seconds":
        budget = f"{np.format_float_positional(float(spec.budget), trim='-')}s"
    else:
        budget = str(int(spec.budget))
    return f"{kind}:{budget}" + (f":{file}" if sep and file else "")


def spellings(name: str, stored: Iterable[str], game: str | None = None) -> list[str]:
    """The names of ``stored`` that are the agent ``name`` (the same canonical name), in the
    order given: a ladder written before names were canonical may hold ``mcts:05``."""
    want = canonical_name(name, game)
    return [s for s in stored if canonical_name(s, game) == want]
