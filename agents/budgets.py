"""The largest search budgets an agent may be given: the bounds both the names
(:class:`agents.registry.Budget`) and the search agents' constructors (:mod:`agents.mcts`,
:mod:`agents.az`) check, so a budget that never ends (``mcts:1e308s``) is refused wherever it
comes from. ``meduris agents`` and docs/agents.md show them. It imports nothing, so both can
import it without a cycle."""

from __future__ import annotations

#: iterations or simulations per move, at most
MAX_COUNT = 10**7
#: seconds per move, at most (a time budget is also more than 0 and finite)
MAX_SECONDS = 3600.0
