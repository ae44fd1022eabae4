"""Building concrete positions for rules tests (RULES.md numbers in the test names)."""

from __future__ import annotations

import random

import numpy as np

from meduris_env import MedurisGame
from meduris_env.engine.actions import big_yield_action
from meduris_env.engine.constants import (
    A_EXCHANGE,
    A_HUT,
    A_OFFER,
    A_TEMPLE,
    C_DIE,
    HUT,
    TEMPLE,
)
from meduris_env.engine.invariants import batch_violations, describe
from meduris_rl.kit.loop import resolve_chance


def check_invariants(a: np.ndarray, fa: np.ndarray) -> None:
    """Every invariant of :mod:`meduris_env.engine.invariants` holds for one state array or a
    batch of rows (B, S) of a game whose board has the rune areas ``fa``."""
    rows = np.atleast_2d(a)
    out = np.zeros(len(rows), dtype=np.int64)
    if batch_violations(np.ascontiguousarray(rows), fa, out):
        b = int(np.flatnonzero(out)[0])
        raise AssertionError(f"row {b} breaks: {describe(int(out[b]))}")


# chips far from the fields the tests build on: (field, kind)
CHIPS = [(4, "vp"), (9, "vp"), (14, "free"), (19, "free"), (24, "druid"), (28, "druid")]
W, L, C, S = 0, 1, 2, 3  # wood, wool, copper, stone (also the plains)
FACES = {"wood": 0, "wool": 1, "copper": 2, "stone": 3, "+1": 4, "-1": 5}
OFFER = {"none": 0, "first": 1, "second": 2, "both": 3, "chip": 4}
# the rune areas (2-3 player board) by the names the tests use: st.rune_holder[AREA["wave"]]
AREA = {"S": 0, "diamond": 1, "fountain": 2, "scales": 3, "curl": 4, "wave": 5, "cross": 6,
        "hook": 7, "arrow": 8}


def new_game(num_players=2, exchange="auto", placements=None, chips=CHIPS, **kw):
    """A state after chips and worker placement, at the first die roll (seat 0 to roll).
    ``placements``: plains in placement order (R6); default spreads workers over the plains."""
    game = MedurisGame(num_players, exchange=exchange, **kw)
    st = game.new_initial_state(bonus_chips=chips)
    if placements is None:
        placements = [W, L, C, S, W, L, C, S][: num_players * game.workers]
    for p in placements:
        st.apply_action(p)
    assert st.is_chance_node()
    return st


def roll(st, face):
    st.apply_action(C_DIE + FACES[face])


def set_materials(st, seat, wood=0, wool=0, copper=0, stone=0):
    """Give a seat exact materials; the supply keeps the rest of the 18 of each (R2)."""
    st.materials[seat] = [wood, wool, copper, stone]
    st.supply[:] = 18 - st.materials.sum(axis=0)
    assert (st.supply >= 0).all()


def clear_materials(st):
    for s in range(st.game.num_players):
        set_materials(st, s)


def at_turn_action(st, face="copper"):
    """Roll for the roller and wipe everyone's materials, leaving the turn action pending."""
    roll(st, face)
    clear_materials(st)
    assert decision(st)[0] == "turn action"


def e3_position():
    """E3 (2 players): seat 0's hut on 10 with the druid on it, huts 20 (seat 0), 21, 22 (seat 1);
    seat 0 to take the turn action holding stone 2, copper 1, wood 1 (a temple on 15 sends the
    druid to the settlement 20-22, R17, R18)."""
    st = druid_position({10: 0, 20: 0, 21: 1, 22: 1}, druid=10)
    set_materials(st, 0, stone=2, copper=1, wood=1)
    return st


def druid_position(huts=(), runes=(), druid=-1, temples=()):
    """A 2-player game at seat 0's turn action (copper rolled, everyone's materials wiped):
    ``huts`` and ``temples`` map fields to the seat whose piece stands there, ``runes`` each
    rune area (AREA's names) whose stone a seat holds to that seat; the druid stands on the
    hut field ``druid``, or (-1) on his last stone field, the next construction sends him onto
    the ring (R17)."""
    st = new_game()
    for kind, pieces in (("hut", huts), ("temple", temples)):
        for f, seat in dict(pieces).items():
            place(st, f, kind, seat)
    for area, seat in dict(runes).items():
        st.rune_holder[AREA[area]] = seat
    druid_on_ring(st, druid)
    at_turn_action(st)
    return st


def full_circuit_position():
    """Seat 1's lone hut on 10 with the druid on it, seat 1 holding the fountain's rune stone;
    seat 0 has built a temple on 20: the druid walks the whole ring, across the river (interim
    scoring, R21), back to the only hut (R17)."""
    st = druid_position({10: 1}, {"fountain": 1}, druid=10)
    set_materials(st, 0, stone=1, wood=1)
    st.apply_action(temple(20))
    return st


def finale_position():
    """Seat 0 has built all 12 huts and one temple, seat 1 3 huts and a temple, and seat 0 (copper
    rolled) builds its last piece, a temple on 14 (R22): the druid walks 23 -> 0 across the
    river (interim scoring, R21); the ritual's offerings are pending."""
    chips = [(2, "druid"), (6, "vp"), (10, "druid"), (17, "vp"), (25, "free"), (29, "free")]
    st = new_game(chips=chips)
    for f in [0, 1, 2, 3, 4, 5, 8, 9, 10, 11, 12, 13]:
        place(st, f, "hut", 0)
    place(st, 15, "temple", 0)
    for f in (20, 21, 23):
        place(st, f, "hut", 1)
    place(st, 22, "temple", 1)
    for area in ("S", "diamond", "fountain", "scales"):
        st.rune_holder[AREA[area]] = 0
    st.rune_holder[AREA["wave"]] = 1
    st.rune_holder[AREA["cross"]] = 1
    druid_on_ring(st, 23)
    roll(st, "copper")
    clear_materials(st)
    set_materials(st, 0, wood=1, copper=1)
    st.apply_action(temple(14))
    return st


def place(st, field, kind, seat):
    """Put a hut or temple on the board directly (no cost, no druid, no rune stone)."""
    assert st.board_occupant[field] == 0
    st.board_occupant[field] = HUT if kind == "hut" else TEMPLE
    st.board_owner[field] = seat
    if kind == "hut":
        st.huts_left[seat] -= 1
    else:
        st.temples_left[seat] -= 1


def druid_on_ring(st, field):
    st.druid_stone = 3
    st.druid_field = field


def hut(f):
    return A_HUT + f


def temple(f):
    return A_TEMPLE + f


def offer(choice):
    return A_OFFER + OFFER[choice]


def move(src, level, dst):
    return big_yield_action(src, level, dst)


def decision(st):
    d = st.pending_decision()
    return d["kind"], d["seat"], d["field"]


def play_random(st, rng: random.Random, exchange_p=0.1, max_steps=100_000):
    """Random play to the end: uniform over legal actions, but an exchange (manual mode) is
    chosen only with probability ``exchange_p`` so games are not spent exchanging."""
    steps = 0
    while not st.is_terminal() and steps < max_steps:
        st.apply_action(random_action(st, rng, exchange_p))
        steps += 1
    return steps


def random_position(num_players=2, seed=0, moves=6):
    """A Meduris state after ``moves`` decisions, each uniform over the legal actions, drawn
    with ``random.Random(seed)`` (which also resolves every chance node on the way, before the
    first decision and after each); fewer where the game ends first."""
    state = MedurisGame(num_players).new_initial_state()
    rng = random.Random(seed)
    resolve_chance(state, rng)
    for _ in range(moves):
        if state.is_terminal():
            break
        state.apply_action(rng.choice(state.legal_actions()))
        resolve_chance(state, rng)
    return state


def random_action(st, rng, exchange_p=0.1):
    if st.is_chance_node():
        outs = st.chance_outcomes()
        return rng.choices([a for a, _ in outs], [p for _, p in outs])[0]
    legal = st.legal_actions()
    plain = [a for a in legal if a < A_EXCHANGE]
    if plain and (len(plain) == len(legal) or rng.random() >= exchange_p):
        return rng.choice(plain)
    return rng.choice(legal)



def watched_page(opener, http_errors: bool = False):
    """A new browser page (from a browser or a context) and the list its console errors and
    warnings, uncaught exceptions, failed requests and, with ``http_errors``, 4xx/5xx
    responses go to."""
    page = opener.new_page()
    problems: list[str] = []
    page.on("console", lambda m: problems.append(f"console.{m.type}: {m.text}")
            if m.type in ("error", "warning") else None)
    page.on("pageerror", lambda e: problems.append(f"uncaught: {e}"))
    page.on("requestfailed", lambda r: problems.append(f"request failed: {r.url}"))
    if http_errors:
        page.on("response", lambda r: problems.append(f"HTTP {r.status}: {r.url}")
                if r.status >= 400 else None)
    return page, problems


def load_benchmark(name: str):
    """The script ``benchmarks/<name>.py`` as a module (benchmarks are scripts, not a package)."""
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parent.parent / "benchmarks" / f"{name}.py"
    spec = importlib.util.spec_from_file_location(f"benchmark_{name}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def decisions_per_agent(env) -> dict:
    """Step a reset PettingZoo AEC env to its end, each decision a sample of the agent's
    action space (None once it is done): how many decisions each possible agent was asked."""
    counts = dict.fromkeys(env.unwrapped.possible_agents, 0)
    for agent in env.agent_iter():
        _, _, term, trunc, _ = env.last()
        if not (term or trunc):
            counts[agent] += 1
        env.step(None if term or trunc else env.action_space(agent).sample())
    return counts


def run_cli(capsys, *argv) -> tuple[int, str, str]:
    """``meduris *argv`` in this process: (exit status, stdout, stderr)."""
    from meduris_rl.cli.main import main

    try:
        code = main(list(argv))
    except SystemExit as stop:  # argparse's usage errors
        code = stop.code
    out, err = capsys.readouterr()
    return code, out, err


def play_cut_rllib_game(core, seed: int):
    """Play the RLlib env ``core`` (reset with ``seed``) by random legal actions of a seeded
    generator until the game ends or is cut: (env, rewards, terminated, truncated, infos) of
    its last step (tests/test_max_turns_scoring.py and, on Ray, tests/test_rllib.py)."""
    import numpy as np

    obs, _ = core.reset(seed=seed)
    rng = np.random.default_rng(seed)
    while True:
        (me, o), = obs.items()
        action = int(rng.choice(np.flatnonzero(o["action_mask"])))
        obs, rewards, terminated, truncated, infos = core.step({me: action})
        if terminated["__all__"] or truncated["__all__"]:
            return core, rewards, terminated, truncated, infos


class GumbelToy:
    """A two-player game with the engine's protocol, 6 action ids (4 and 5 never legal):
    at the root seat 0 chooses 0 (chance: outcome 10 or 11, then seat 1 moves, every move a
    draw), 1 (seat 1 moves: action 0 wins for seat 1, the others draw), 2 (seat 0 wins now) or
    3 (a draw now)."""

    def __init__(self, history=()):
        self.history = tuple(history)

    def clone(self):
        return GumbelToy(self.history)

    def apply_action(self, action):
        assert action in self.legal_actions(), (self.history, action)
        self.history += (action,)

    def is_chance_node(self):
        return self.history == (0,)

    def chance_outcomes(self):
        return [(10, 0.5), (11, 0.5)] if self.is_chance_node() else []

    def is_terminal(self):
        h = self.history
        return h[:1] in ((2,), (3,)) or len(h) == 3 or h[:1] == (1,) and len(h) == 2

    def current_player(self):
        if self.is_terminal():
            return -4
        return -1 if self.is_chance_node() else (0 if not self.history else 1)

    def legal_actions(self):
        if self.is_chance_node():
            return [10, 11]
        return [] if self.is_terminal() else [0, 1, 2, 3]

    def returns(self):
        h = self.history
        if h == (2,):
            return np.array([1.0, -1.0])
        if h == (1, 0):
            return np.array([-1.0, 1.0])
        return np.zeros(2)


#: the base URL of the web app's in-process test clients: a Host the server answers to (it
#: refuses others, issue 47: DNS rebinding)
LOCAL = "http://127.0.0.1"
