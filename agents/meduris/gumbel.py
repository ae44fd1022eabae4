"""Gumbel AlphaZero search at play time (issue 29): ``gumbel`` (32 simulations per move, the
shipped ppo model for the game's player count), ``gumbel:<simulations>``,
``gumbel:<simulations>:<policy.pt>``.

At each decision the agent loads the position into its :class:`PositionPool` (one per agent,
cleared every move, room for the root and one row per simulation) and runs
:func:`meduris_rl.agents.search.gumbel_batch.batched_gumbel_search` on that one root (``B = 1``)
with ``gumbel_scale = 0`` (no Gumbel noise: a deterministic search, as mctx advises for evaluation
in perfect-information games) and ``max_num_considered = min(16, legal actions)``: Sequential
Halving over the prior's best actions at the root, mctx's deterministic selection below, the
played move :func:`meduris_rl.agents.search.gumbel.final_action`'s (the most visited considered
action, ties to the best prior logit plus completed Q-value).

**The evaluator** maps the pool's positions to (logits, value):

* the network inputs are the ``ppo`` agent's (:mod:`meduris_rl.agents.meduris.features`, the feature
set found from
  the policy's input size): the pool's observation of the seat to move, and for ``obs+greedy``
  the greedy evaluation of every action, computed from the pool's state rows
  (``PositionPool.states``, a public array). The search hands ``observe``'s first array to the
  evaluator untouched, so the pool is wrapped
  (:class:`meduris_rl.agents.search.gumbel_batch.InputsPool`) to return the inputs;
* the logits are the policy network's (numpy forward,
:class:`meduris_rl.agents.policies.network.NumpyForward`);
* the value, for the seat to move, is the policy file's value network when it carries one (as
  ``az``), else the policy's PPO critic head, clipped to [-1, 1].

**Chance** (the die) is drawn when a node is expanded from the pool's keyed streams: each move's
tree gets a stream number from the agent's ``rng``, so ``reset(seed)`` with the same seed gives
the same moves. A forced move (one legal action) is played without search. A policy file of
another player count is refused in one line (:meth:`GumbelAgent.check_players`, and at the first
decision), one of another game when the agent is built
(:func:`meduris_rl.agents.policies.network.check_game`). After each search ``last_result`` holds the
:class:`~meduris_rl.agents.search.gumbel_batch.GumbelResult`. During a move the pool's numba kernels
run on the calling thread (one row per call: a parallel launch costs far more than the work, ~5 ms a
call on a busy 2-core machine against ~0.01 ms).
"""

from __future__ import annotations

import numba
import numpy as np

from meduris_env.envs.positions import PositionPool
from meduris_rl.agents.base import Agent
from meduris_rl.agents.meduris.ppo import NetworkGuided
from meduris_rl.agents.search.gumbel_batch import GumbelResult, InputsPool, batched_gumbel_search
from meduris_rl.kit.values import check_int

#: simulations per move by default, and at most (the registry's Budget says the same)
DEFAULT_SIMULATIONS = 32
MAX_SIMULATIONS = 10_000
#: root actions Sequential Halving considers, at most
MAX_CONSIDERED = 16
STREAM_BITS = 40  # a move's stream number (times simulations + 1 stays far below 2**63)


class GumbelAgent(NetworkGuided, Agent):
    """Gumbel search guided by a policy file's networks (see the module docstring)."""

    def __init__(self, name: str, simulations: int = DEFAULT_SIMULATIONS,
                 path: str | None = None, max_num_considered: int = MAX_CONSIDERED):
        super().__init__(name)
        self.simulations = check_int("simulations", simulations, 1, MAX_SIMULATIONS)
        self.max_num_considered = check_int("max_num_considered", max_num_considered, 1, 241)
        self._pool: PositionPool | None = None
        self.last_result: GumbelResult | None = None
        self.load_networks(name, path)

    @property
    def iterations(self) -> int:
        """The budget, under the name the other search agents use."""
        return self.simulations

    def evaluator(self, game):
        """``evaluate(inputs, mask) -> (logits, values)`` for the search in ``game``: the
        policy's logits and the value of the seat to move in [-1, 1]."""
        policy = self.network.policy_for(game.num_players)
        forward, value_network = self.forward_passes(policy, game.num_players)

        def evaluate(x, mask):
            if value_network is not None:
                logits, values = forward.logits(x), value_network(x)
            else:
                logits, values = forward(x)
            return logits, np.clip(values, -1.0, 1.0)

        return evaluate

    def inputs(self, game):
        """``(pool, ids, observations) -> network inputs`` of pool rows ``ids`` in ``game``
        (the ppo agent's; the greedy features read the rows' ``pool.states``)."""
        return lambda pool, ids, obs: self.network.batch_inputs(obs, pool.states[ids], game)[1]

    def pool_for(self, game) -> PositionPool:
        """The agent's pool for ``game``, cleared (a new one for another game)."""
        if self._pool is None or self._pool.game != game:
            self._pool = PositionPool(game, capacity=self.simulations + 2)
        self._pool.clear()
        return self._pool

    def act(self, observation, state) -> int:
        self.check_players(state.game.num_players)
        legal = state.legal_actions()
        if len(legal) == 1:
            return int(legal[0])
        stream = self.rng.getrandbits(STREAM_BITS)
        noise = np.random.default_rng(self.rng.getrandbits(63))  # (times gumbel_scale 0)
        # one row per pool call: numba's parallel launch would cost ~100x the work (and more on
        # a busy machine), so the pool's kernels run on this thread (numba's setting is
        # per-thread)
        threads = numba.get_num_threads()
        numba.set_num_threads(1)
        try:
            self.last_result = self._search(state, len(legal), stream, noise)
        finally:
            numba.set_num_threads(threads)
        return int(self.last_result.actions[0])

    def _search(self, state, num_legal: int, stream: int, noise) -> GumbelResult:
        game = state.game
        pool = self.pool_for(game)
        root = pool.load(np.asarray(state.array, dtype=np.int32)[None])
        return batched_gumbel_search(
            InputsPool(pool, self.inputs(game)), root, self.evaluator(game), self.simulations,
            min(self.max_num_considered, num_legal), noise, gumbel_scale=0.0, streams=[stream])
