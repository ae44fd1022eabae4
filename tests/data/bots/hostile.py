"""Plug-ins that fail in the ways of issue 46 (tests/test_arena_faults.py), in the workers of a
run only where it says so: the parent's checks build them without trouble."""

import multiprocessing
import os

from meduris_rl.agents.base import Agent


def in_worker() -> bool:
    return multiprocessing.parent_process() is not None


class Exits(Agent):
    def act(self, observation, state):
        raise SystemExit(3)


class Unreadable(Agent):
    class Unreadable(Exception):
        def __str__(self):
            raise RuntimeError("no message for you")

    def act(self, observation, state):
        raise self.Unreadable()


class ResetRaises(Agent):
    def reset(self, seed=None):
        raise ValueError("no")

    def act(self, observation, state):
        return state.legal_actions()[0]


class BuiltInWorkersOnly(Agent):
    """Its constructor raises only inside a worker process."""

    def __init__(self, name="x"):
        super().__init__(name)
        if in_worker():
            raise RuntimeError("I only fail in a worker")

    def act(self, observation, state):
        return state.legal_actions()[0]


class ExitsProcess(Agent):
    def act(self, observation, state):
        os._exit(9)
