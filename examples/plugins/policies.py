import numpy as np


def lowest(observation) -> int:
    """The lowest legal action id: a policy of the observation dict, PettingZoo style."""
    return int(np.flatnonzero(observation["action_mask"])[0])
