"""Agents by name, and the one table of agent kinds they are parsed against.

An agent name is ``<kind>``, ``<kind>:<budget>``, ``<kind>:<file>`` or ``<kind>:<budget>:<file>``
(``random``, ``mcts:200`` iterations per move, ``mcts:0.5s`` seconds per move, ``ppo`` the
shipped model, ``ppo:runs/a/policy.pt``, ``az:400:best.pt``); which of these a kind takes is in
its row of :data:`KINDS`. Everything that reads agent names asks this table:
:func:`make_agent`, :func:`agents.batch.make_batch_opponent`, the tournament, the web server's
list of opponents and ``meduris agents`` (which prints it), so a new kind is one row here.

Contract:

* :meth:`AgentSpec.parse` accepts exactly the names the agents accept, and refuses any other
  with one line (:class:`~agents.base.UnknownAgentError`) naming the fix, with a "did you mean"
  hint for a misspelt kind. It reads no file: a missing model is the agent's own error when it
  is built (:meth:`AgentSpec.build`, :func:`make_agent`).
* ``str(spec)`` is the canonical name, the given text without surrounding blanks; it is the
  agent's ``name`` (tournament labels, game records) and parses back to an equal spec.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable
from dataclasses import dataclass

from .base import Agent, UnknownAgentError


@dataclass(frozen=True)
class Budget:
    """A kind's search budget per move: ``<kind>:<count>`` named ``name`` (iterations,
    simulations) with ``default``; with ``seconds`` also ``<kind>:<seconds>s``."""

    name: str
    default: int
    seconds: bool = False

    def parse(self, text: str, kind: str, raw: str) -> tuple[int | float, str]:
        """(amount, unit) of the budget part ``raw`` of the name ``text``; "" is the default."""
        if not raw:
            return self.default, self.name
        if self.seconds:
            try:
                if raw.endswith("s"):
                    if float(raw[:-1]) > 0:
                        return float(raw[:-1]), "seconds"
                elif int(raw) > 0:
                    return int(raw), self.name
            except ValueError:
                pass
            raise UnknownAgentError(
                f"agent {text!r}: write {kind}:<{self.name}> (e.g. {kind}:{self.default}) or "
                f"{kind}:<seconds>s (e.g. {kind}:0.5s), a positive number")
        if raw.isdigit() and int(raw) > 0:
            return int(raw), self.name
        raise UnknownAgentError(f"agent {text!r}: write {kind}:<count>, a positive whole number "
                                f"(e.g. {kind}:{self.default})")

    def usage(self) -> str:
        return f"<{self.name}>" + ("|<seconds>s" if self.seconds else "")


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
    web: bool = True  # may the web server offer it (never with a file, see meduris_cli.web)

    def usage(self) -> str:
        """How to write its names, e.g. ``az[:<iterations>|<seconds>s[:<policy.pt>]]``."""
        file = f":<{self.file}>" if self.file else ""
        if self.budget is None:
            return self.name + (file if self.file_required or not file else f"[{file}]")
        budget = f":{self.budget.usage()}"
        return f"{self.name}[{budget}{f'[{file}]' if file else ''}]"


def _random(spec: AgentSpec) -> Agent:
    from .simple import RandomAgent
    return RandomAgent(str(spec))


def _greedy(spec: AgentSpec) -> Agent:
    from .simple import GreedyAgent
    return GreedyAgent(str(spec))


def _mcts(spec: AgentSpec) -> Agent:
    from .mcts import MCTSAgent
    return MCTSAgent(str(spec), **spec.search_budget())


def _ppo(spec: AgentSpec) -> Agent:
    from .ppo import PPOAgent
    return PPOAgent(str(spec), spec.parameter)


def _openspiel_mcts(spec: AgentSpec) -> Agent:
    from .openspiel import OpenSpielMCTSAgent
    return OpenSpielMCTSAgent(str(spec), spec.budget)


def _rllib(spec: AgentSpec) -> Agent:
    from .rllib import RLlibAgent
    return RLlibAgent(str(spec), spec.parameter or "")  # (it names the fix for a missing one)


def _az(spec: AgentSpec) -> Agent:
    from .az import AZAgent
    return AZAgent(str(spec), **spec.search_budget(), path=spec.parameter)


SEARCH = Budget("iterations", 200, seconds=True)

#: every kind of agent, in the order the help and the error messages list them
KINDS: tuple[AgentKind, ...] = (
    AgentKind("random", "uniform over legal actions", _random, batch="environment"),
    AgentKind("greedy", "one-step lookahead on the hand-written evaluation", _greedy,
              batch="greedy"),
    AgentKind("mcts", "open-loop Monte Carlo tree search with heuristic rollouts", _mcts,
              budget=SEARCH),
    AgentKind("ppo", "the PPO policy network: the shipped model for the game's player count, "
              "or a policy.pt", _ppo, batch="policy", file="policy.pt",
              needs=("torch", "model")),
    AgentKind("openspiel-mcts", "OpenSpiel's MCTSBot with random rollouts", _openspiel_mcts,
              budget=Budget("simulations", 100), needs=("open_spiel",)),
    # the web server never loads files, and an RLlib agent is nothing without its checkpoint
    AgentKind("rllib", "an RLlib policy: the checkpoint folder of a train.rllib_ppo run", _rllib,
              file="checkpoint", file_required=True, needs=("torch", "model", "ray"), web=False),
    AgentKind("az", "search guided by the ppo network (AlphaZero-style PUCT); a policy.pt "
              "after the budget for another network", _az, budget=SEARCH, file="policy.pt",
              needs=("torch", "model")),
)
BY_NAME = {kind.name: kind for kind in KINDS}


def known_list() -> str:
    return ", ".join(BY_NAME)


@dataclass(frozen=True)
class AgentSpec:
    """A parsed agent name: its kind, budget (amount and unit) and file parameter."""

    kind: str
    budget: int | float | None = None  # None: the kind has no budget
    unit: str | None = None  # "iterations", "simulations" or "seconds"
    parameter: str | None = None  # the file (policy.pt, checkpoint folder); None: none given
    text: str = ""  # the canonical name

    @classmethod
    def parse(cls, text: object) -> AgentSpec:
        """The spec of an agent name, or UnknownAgentError saying how to write it."""
        if not isinstance(text, str) or not text.strip():
            raise UnknownAgentError(f"an agent name is a non-empty string, got {text!r}; "
                                    f"known agents: {known_list()}")
        text = text.strip()
        kind, _, param = text.partition(":")
        row = BY_NAME.get(kind)
        if row is None:
            close = difflib.get_close_matches(kind, BY_NAME, n=1)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            raise UnknownAgentError(f"unknown agent {text!r}{hint}; known agents: "
                                    f"{known_list()}")
        if param and row.budget is None and row.file is None:
            raise UnknownAgentError(f"agent {text!r}: {kind} takes no parameter; use {kind!r}")
        raw_budget, file = "", param
        if row.budget is not None:
            raw_budget, _, file = param.partition(":") if row.file else (param, "", "")
        budget = unit = None
        if row.budget is not None:
            budget, unit = row.budget.parse(text, kind, raw_budget)
        return cls(kind, budget, unit, file or None, text)

    @property
    def row(self) -> AgentKind:
        return BY_NAME[self.kind]

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
        if self.parameter:
            parts.append(f"from {self.parameter}")
        return "; ".join(parts)

    def __str__(self) -> str:
        return self.text


#: name -> one-line summary of every kind, in the table's order
KNOWN = {kind.name: kind.summary for kind in KINDS}


def make_agent(spec: str | AgentSpec) -> Agent:
    """Build the agent named by ``spec``; an UnknownAgentError says how to write a name it
    cannot build, or why its model file cannot be loaded."""
    if not isinstance(spec, AgentSpec):
        spec = AgentSpec.parse(spec)
    return spec.build()
