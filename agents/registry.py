"""Agents by name, with parameters in the name: ``random``, ``greedy``, ``mcts:200`` (iterations
per move), ``mcts:0.5s`` (seconds per move), ``ppo`` (the shipped model) or
``ppo:path/policy.pt``."""

from __future__ import annotations

import difflib

from .base import Agent, UnknownAgentError

KNOWN = {
    "random": "uniform over legal actions",
    "greedy": "one-step lookahead on the hand-written evaluation",
    "mcts": "mcts:<iterations> or mcts:<seconds>s per move (default 200 iterations)",
    "ppo": "ppo (the shipped model for the game's player count) or ppo:<path to a policy.pt>",
    "openspiel-mcts": "openspiel-mcts:<simulations> (default 100), OpenSpiel's MCTSBot with "
                      "random rollouts (needs open_spiel)",
    "rllib": "rllib:<checkpoint folder of a train.rllib_ppo run> (needs the ray extra)",
    "az": "az:<iterations> or az:<seconds>s per move (default 200), search guided by the ppo "
          "network; az:<budget>:<policy.pt> for another network",
}


def _known_list() -> str:
    return ", ".join(KNOWN)


def make_agent(spec: str) -> Agent:
    """Build the agent named by ``spec`` (see the module docstring)."""
    if not isinstance(spec, str) or not spec.strip():
        raise UnknownAgentError(f"an agent name is a non-empty string, got {spec!r}; "
                                f"known agents: {_known_list()}")
    spec = spec.strip()
    kind, _, param = spec.partition(":")
    if kind == "random" and not param:
        from .simple import RandomAgent
        return RandomAgent(spec)
    if kind == "greedy" and not param:
        from .simple import GreedyAgent
        return GreedyAgent(spec)
    if kind == "mcts":
        from .mcts import MCTSAgent
        return MCTSAgent(spec, **_mcts_budget(spec, param))
    if kind == "ppo":
        from .ppo import PPOAgent
        return PPOAgent(spec, param or None)
    if kind == "openspiel-mcts":
        from .openspiel import OpenSpielMCTSAgent
        return OpenSpielMCTSAgent(spec, _positive(spec, param, 100))
    if kind == "rllib":
        from .rllib import RLlibAgent
        return RLlibAgent(spec, param)
    if kind == "az":
        from .az import AZAgent
        budget, _, path = param.partition(":")
        return AZAgent(spec, **_mcts_budget(spec, budget), path=path or None)
    if kind in KNOWN:
        raise UnknownAgentError(f"agent {spec!r}: {kind} takes no parameter; use {kind!r}")
    close = difflib.get_close_matches(kind, KNOWN, n=1)
    hint = f" (did you mean {close[0]!r}?)" if close else ""
    raise UnknownAgentError(f"unknown agent {spec!r}{hint}; known agents: {_known_list()}")


def _positive(spec: str, param: str, default: int) -> int:
    if not param:
        return default
    if param.isdigit() and int(param) > 0:
        return int(param)
    kind = spec.partition(":")[0]
    raise UnknownAgentError(f"agent {spec!r}: write {kind}:<count>, a positive whole number "
                            f"(e.g. {kind}:{default})")


def _mcts_budget(spec: str, param: str) -> dict:
    if not param:
        return {"iterations": 200}
    try:
        if param.endswith("s"):
            seconds = float(param[:-1])
            if seconds > 0:
                return {"iterations": None, "seconds": seconds}
        else:
            iterations = int(param)
            if iterations > 0:
                return {"iterations": iterations}
    except ValueError:
        pass
    kind = spec.partition(":")[0]
    raise UnknownAgentError(f"agent {spec!r}: write {kind}:<iterations> (e.g. {kind}:200) or "
                            f"{kind}:<seconds>s (e.g. {kind}:0.5s), a positive number")
