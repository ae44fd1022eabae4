"""The game-neutral cores of the environments: a game's PettingZoo AEC, parallel, gymnasium
single-agent and OpenSpiel environments are these classes with the game's parts (its engine,
observation, rewards and rendering).

* :mod:`~meduris_rl.kit.envs.turn_based`: the AEC core (:class:`TurnBasedAEC`, the engine's
  parts as a :class:`GameEngine`, PettingZoo's wrappers);
* :mod:`~meduris_rl.kit.envs.parallel`: the parallel view of any turn-based AEC class;
* :mod:`~meduris_rl.kit.envs.single_agent`: one learning seat against opponents;
* :mod:`~meduris_rl.kit.envs.openspiel`: a python OpenSpiel game over a game's engine (needs
  ``open_spiel``, imported only by that module);
* :mod:`~meduris_rl.kit.envs.opponents`: what an environment accepts as an opponent;
* :mod:`~meduris_rl.kit.envs.spaces`: action spaces that sample legal actions.
"""
