"""Meduris with ``hidden_materials=True`` (R2: the chips behind a screen), the paired-state test
of issue 28: pairs of positions that differ only in what player ``p`` cannot know — how two
opponents' chips are split, with each opponent's count and the public supply unchanged — give
``p`` the same observation (the environments' vector and the OpenSpiel observer's string), and
a difference that ``p`` may know (their own split; or any split without hidden materials) does
change it.

Why two opponents: the 18 chips of each material are split between the supply (public) and the
hands, so with two players the opponent's split is the total less the supply and one's own
hand; a pair differing there would differ in the supply too. With 3 or 4 players a chip of one
material moved from opponent ``a`` to ``b`` and one of another moved back keeps every count
and the supply: only the split behind the screens changes.

The information state is another matter, and the paired-state test does not apply to it: the
OpenSpiel game's perfect-recall information state (``information_state_string``; there is no
tensor) is the public action history, the same for every player, and every take, payment and
exchange is public, so the history fixes every player's split (R2's screens hide the chips from
a player who sees only the table, not from one who remembers every move). Two positions that
differ only in how two opponents' chips are split therefore never share an information state:
the twin is in another information set of ``p``. The last test asserts exactly that."""

import random

import numpy as np
import pyspiel
import pytest

import meduris_env.openspiel  # noqa: F401  (registers python_meduris)
from meduris_env import MedurisGame
from meduris_env.engine.constants import C_DIE
from meduris_env.engine.invariants import first_problem
from meduris_env.envs.observation import observation_vector
from meduris_rl.agents.registry import make_agent

PAIRS_PER_COUNT = 300


def positions(players: int, seed: int):
    """Decision positions of a greedy-vs-random game (chance drawn from ``seed``), one by one."""
    rng = random.Random(seed)
    agents = [make_agent("greedy" if s % 2 == 0 else "random") for s in range(players)]
    for seat, agent in enumerate(agents):
        agent.reset(seed * 10 + seat)
    st = MedurisGame(players).new_initial_state()
    while not st.is_terminal():
        if st.is_chance_node():
            outcomes, probs = zip(*st.chance_outcomes(), strict=True)
            st.apply_action(rng.choices(outcomes, probs)[0])
            continue
        yield st
        st.apply_action(agents[st.current_player()].act(None, st))


def swapped(st, a: int, b: int, rng: random.Random):
    """A copy of ``st`` where ``a`` gives ``b`` one chip of a material and ``b`` gives ``a`` one
    of another (counts and supply unchanged), or None when their hands allow no such swap."""
    ma, mb = st.materials[a], st.materials[b]
    choices = [(x, y) for x in range(4) for y in range(4) if x != y and ma[x] > 0 and mb[y] > 0]
    if not choices:
        return None
    x, y = rng.choice(choices)
    other = st.clone()
    other.materials[a, x] -= 1
    other.materials[b, x] += 1
    other.materials[b, y] -= 1
    other.materials[a, y] += 1
    return other


def pairs(players: int, count: int):
    """``count`` (state, its twin, observer, the two opponents) over many games and depths."""
    rng = random.Random(players)
    found, seed = 0, 0
    while found < count:
        seed += 1
        for st in positions(players, seed):
            if rng.random() > 0.1:  # a tenth of the positions: many games, every depth
                continue
            p = rng.randrange(players)
            a, b = rng.sample([s for s in range(players) if s != p], 2)
            twin = swapped(st, a, b, rng)
            if twin is None:
                continue
            yield st.clone(), twin, p, (a, b)
            found += 1
            if found == count:
                return


def observer_string(state, player: int, players: int, hidden: bool) -> str:
    game = pyspiel.load_game("python_meduris", {"players": players, "hidden_materials": hidden})
    os_state = game.new_initial_state()
    os_state.state = state  # (the OpenSpiel state wraps an engine state)
    observer = game.make_py_observer(pyspiel.IIGObservationType(perfect_recall=False))
    return observer.string_from(os_state, player)


@pytest.mark.parametrize("players", [3, 4])
def test_paired_states_differing_in_opponents_splits_look_the_same_to_the_observer(players):
    for st, twin, p, (a, b) in pairs(players, PAIRS_PER_COUNT):
        assert first_problem(twin) is None, "the twin is a legal position"
        assert (twin.supply == st.supply).all()
        assert (twin.materials.sum(axis=1) == st.materials.sum(axis=1)).all()
        assert not (twin.materials == st.materials).all()  # the pair really differs
        same = observation_vector(st, p, hidden_materials=True)
        assert np.array_equal(same, observation_vector(twin, p, hidden_materials=True))
        # the chips' owners know their split: their own observation tells the pair apart
        for owner in (a, b):
            assert not np.array_equal(observation_vector(st, owner, hidden_materials=True),
                                      observation_vector(twin, owner, hidden_materials=True))
        # and without hidden materials everyone sees every split
        assert not np.array_equal(observation_vector(st, p), observation_vector(twin, p))


@pytest.mark.parametrize("players", [3, 4])
def test_the_openspiel_observer_hides_the_same_and_shows_the_difference(players):
    for st, twin, p, (a, _) in pairs(players, 40):
        assert observer_string(st, p, players, True) == observer_string(twin, p, players, True)
        assert observer_string(st, a, players, True) != observer_string(twin, a, players, True)
        assert observer_string(st, p, players, False) != observer_string(twin, p, players, False)


def test_with_two_players_a_split_cannot_differ_alone():
    """The module docstring's reason for 3-4 players: in 2 players the opponent's split follows
    from the public supply and one's own hand (R2: 18 chips of each material)."""
    for st in list(positions(2, 5))[::7]:
        for p in range(2):
            q = 1 - p
            assert (st.materials[q] == 18 - st.supply - st.materials[p]).all()


def openspiel_state(game, engine_state):
    """The OpenSpiel state reached by playing ``engine_state``'s history through ``game``
    (OpenSpiel numbers chance outcomes from 0: outcome ``k`` is the engine's ``C_DIE + k``)."""
    state = game.new_initial_state()
    for a in engine_state.history():
        state.apply_action(a - C_DIE if state.is_chance_node() else a)
    return state


@pytest.mark.parametrize("players", [3, 4])
def test_the_information_state_reveals_every_split_so_twins_are_in_other_information_sets(
        players):
    """See the module docstring: with ``hidden_materials`` the information state of every
    player is the public history, and replaying it gives back every player's chips exactly,
    those of the state and not those of its twin (which differs only in how two opponents'
    chips are split): the split is a function of ``p``'s information state."""
    game = pyspiel.load_game("python_meduris", {"players": players, "hidden_materials": True})
    assert game.get_type().provides_information_state_string
    assert not game.get_type().provides_information_state_tensor
    checked = 0
    for st, twin, p, _ in pairs(players, 40):
        os_state = openspiel_state(game, st)
        assert (os_state.state.materials == st.materials).all()
        info = os_state.information_state_string(p)
        assert info == os_state.history_str()
        assert all(os_state.information_state_string(q) == info for q in range(players))
        replay = game.new_initial_state()
        for a in (int(x) for x in info.split(", ")):
            replay.apply_action(a)
        assert (replay.state.materials == st.materials).all()
        assert not (replay.state.materials == twin.materials).all()
        checked += 1
    assert checked == 40
