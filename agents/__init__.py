"""Agents that play Meduris: ``random``, ``greedy``, ``mcts`` and ``ppo``, built by name.

>>> from agents import make_agent
>>> bot = make_agent("mcts:200")
>>> bot.reset(seed=1)
>>> action = bot.act(None, state)      # state: a meduris_env State at a decision node
"""

from .base import Agent, GameAbandoned, UnknownAgentError
from .registry import KNOWN, make_agent

__all__ = ["KNOWN", "Agent", "GameAbandoned", "UnknownAgentError", "make_agent"]
