"""Agents that play the games, built by name: the built-in kinds (``random``, ``greedy``,
``mcts``, ``ppo``, ``az``, ...) and plug-ins (a class in a file or module, an installed
package's entry point, a program speaking the JSON-lines protocol: ``cmd:``); ``meduris
agents`` lists them and docs/bring_your_own_agent.md explains the plug-ins.

>>> from meduris_rl.agents import make_agent
>>> bot = make_agent("mcts:200")
>>> bot.reset(seed=1)
>>> action = bot.act(None, state)      # state: a meduris_env State at a decision node
"""

from meduris_rl.agents.base import Agent, Forfeit, GameAbandoned, UnknownAgentError
from meduris_rl.agents.registry import AgentSpec, kinds, make_agent

__all__ = ["Agent", "AgentSpec", "Forfeit", "GameAbandoned", "UnknownAgentError", "kinds",
           "make_agent"]
