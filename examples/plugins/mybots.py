from meduris_rl.agents.base import Agent


class Cautious(Agent):
    """Plays the lowest legal action id with probability level/10, else a random legal one."""

    def __init__(self, level: str = "3"):
        super().__init__()  # the name is set by meduris: the name it was asked by
        self.level = int(level)

    def act(self, observation, state) -> int:
        legal = state.legal_actions()
        if self.rng.random() < self.level / 10:  # self.rng: reseeded by reset(seed) each game
            return min(legal)
        return self.rng.choice(legal)
