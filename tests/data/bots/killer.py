"""A plug-in that kills its own worker process once (as ``kill -9`` or the out-of-memory killer
would), for tests/test_arena_faults.py: at the start of its second game in a process, if the file
``$MEDURIS_KILL_MARKER`` does not exist yet (it is made first, so only one worker in a run dies).
Otherwise it plays uniformly at random from its seed, like ``random``."""

import os
import signal

from meduris_rl.agents.base import Agent


class Killer(Agent):
    def __init__(self, name="killer"):
        super().__init__(name)
        self.games = 0

    def reset(self, seed=None):
        super().reset(seed)
        self.games += 1
        marker = os.environ.get("MEDURIS_KILL_MARKER")
        if marker and self.games == 2:
            try:
                os.close(os.open(marker, os.O_CREAT | os.O_EXCL | os.O_WRONLY))
            except FileExistsError:
                return
            os.kill(os.getpid(), signal.SIGKILL)

    def act(self, observation, state):
        legal = state.legal_actions()
        return legal[self.rng.randrange(len(legal))]
