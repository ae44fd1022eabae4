"""The largest search budgets an agent may be given: the bounds both the names
(:class:`meduris_rl.agents.registry.Budget`) and the search agents' constructors
(:mod:`meduris_rl.agents.meduris.mcts`, :mod:`meduris_rl.agents.meduris.az`) check, so a budget that
never ends (``mcts:1e308s``) is refused wherever it comes from. ``meduris agents`` and
docs/agents.md show them. It imports only the engine's value checkers, so both can import it without
a cycle."""

from __future__ import annotations

from meduris_rl.kit.values import ValueCheckError, check_float, check_int

#: iterations or simulations per move, at most
MAX_COUNT = 10**7
#: seconds per move, at most (a time budget is also more than 0 and finite)
MAX_SECONDS = 3600.0
#: iterations per move, at most, of a search that keeps a node per iteration in memory
#: (``az-fast``: ~1 KB a node, mostly its prior logits)
MAX_TREE_ITERATIONS = 10**6


def check_search_budget(what: str, iterations, seconds) -> tuple[int | None, float | None]:
    """(iterations, seconds) of a search agent's budget: exactly one given, iterations an int
    1..MAX_COUNT, seconds more than 0 and at most MAX_SECONDS (``what`` names the search in
    the error when neither or both are given)."""
    if (iterations is None) == (seconds is None):
        raise ValueError(f"give {what} either iterations or seconds per move")
    iterations = None if iterations is None else check_int("iterations", iterations, 1,
                                                           MAX_COUNT)
    seconds = None if seconds is None else check_float("seconds", seconds, 0.0, MAX_SECONDS)
    if seconds == 0.0:
        raise ValueCheckError(f"seconds must be more than 0 and at most {MAX_SECONDS:g}, got 0")
    return iterations, seconds
