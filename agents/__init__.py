"""Agents that play Meduris, built by name: the built-in kinds (``random``, ``greedy``,
``mcts``, ``ppo``, ``az``, ...) and plug-ins (a class in a file or module, an installed
package's entry point, a program speaking the JSON-lines protocol: ``cmd:``); ``meduris
agents`` lists them and docs/bring_your_own_agent.md explains the plug-ins.

>>> from agents import make_agent
>>> bot = make_agent("mcts:200")
>>> bot.reset(seed=1)
>>> action = bot.act(None, state)      # state: a meduris_env State at a decision node
"""

from .base import Agent, Forfeit, GameAbandoned, UnknownAgentError
from .registry import KNOWN, AgentSpec, make_agent

__all__ = ["KNOWN", "Agent", "AgentSpec", "Forfeit", "GameAbandoned", "UnknownAgentError",
           "make_agent"]
