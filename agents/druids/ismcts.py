"""Information-set Monte-Carlo tree search for Druids (single-observer IS-MCTS, Cowling, Powley
& Whitehouse 2012).

The searching player ``me`` is the seat to move at the root. Each iteration:

1. **Determinise**: :func:`druids_env.resample_hidden` deals every card ``me`` cannot know (other
   hands, others' face-down gems and servant values, the decks) again at random, consistently
   with all that ``me`` knows (D14). It starts from :func:`canonical`, a copy of the live state
   with those cards put in one fixed way, so the search is a function of ``me``'s information
   and the seed alone: two states that differ only in what ``me`` cannot know give the same
   search and the same move.
2. **Select and expand** in one tree of the searcher's information: a node is the sequence of
   decisions from the root *as ``me`` sees them*. ``me``'s own actions are keys as they are;
   another seat's action is keyed by its public part (D14, :func:`public_key`): "a gem above
   place 3" (not which gem), "a servant under place 5", "a discard"; collecting and the draw
   source are public. The concrete action behind such a key is the best by the heuristic
   among those legal in this determinisation. Chance is sampled (open loop: outcomes are not
   in the keys). At each node only the keys legal in this determinisation compete: UCB1 with
   **availability counts** (a child's exploration term uses how often it was available, not
   the parent's visits), from the point of view of the seat to move. Children are added best
   first by the heuristic while those available number fewer than ``1 + widening *
   sqrt(visits)`` (progressive widening).
3. **Roll out** with a cheap default policy, :func:`best_action` (a light heuristic of one
   decision, :func:`action_score`), a uniformly random decision with probability ``epsilon``,
   for ``turns`` turns (0: to the end of the game), then
4. **Back up** the value per seat: at the end of the game ``DruidsState.returns()`` (D13:
   winners share +1, the others -1) blended with weight ``margin`` with the squashed score
   margin (:func:`outcome`); in a rollout cut short, the squashed margin of the scores plus half
   of what each seat would take from the places as they lie (:func:`estimate`). Cut rollouts
   (``turns=2``, the default) are much less noisy than rollouts to the end, whose single +-1
   result 30-40 turns on hardly tells two plays apart: with them the search lost to the greedy
   heuristic it rolls out with (30 % in 2-player games), with cut ones it beats it
   (docs/druids.md, "IS-MCTS").

The move played is the root's most visited action. A forced move is played without search.

Budget: ``iterations`` or ``seconds`` per move, bounded as every search budget is
(:mod:`meduris_rl.agents.budgets`). A time budget is a ceiling on the whole decision (the canonical
deal included): no iteration is started unless twice the mean iteration so far is left
(:meth:`DruidsISMCTSAgent.search_until`). Seeded by ``reset(seed)``: the same seed gives the
same moves (with an iteration budget; a time budget depends on the machine's speed).

Hot path: rollouts apply actions by ``DruidsState.apply_legal`` (the engine's rule functions),
skipping ``apply_action``'s legality check, since every action there is drawn from the legal
ones; the determinisations leave the event log unrewritten
(``resample_hidden(..., rewrite_log=False)``: the search reads positions, never logs, and the
same random numbers give the same position).
"""

from __future__ import annotations

import bisect
import math
import time

from druids_env.engine import rules
from druids_env.engine.actions import (
    A_COLLECT,
    A_DISCARD,
    A_DRAW_GEM,
    A_DRAW_SERVANT,
    A_NO_COLLECT,
    A_NO_DISCARD,
    A_PLAY_GEM,
    A_PLAY_SERVANT,
)
from druids_env.engine.cards import (
    ROW_SIZE,
    gem_colour,
    gem_value,
    is_gem,
    place_colour,
    servant_owner,
    servant_value,
)
from druids_env.engine.information import resample_hidden
from meduris_rl.agents.base import Agent
from meduris_rl.agents.budgets import check_search_budget
from meduris_rl.agents.search.tuning import checked_tuning
from meduris_rl.kit.protocol import CHANCE, TERMINAL

# keys for the public part of another seat's action (beyond every action and chance id)
KEY_GEM = 1000  # + slot: a gem played face down above a place
KEY_SERVANT = 1100  # + slot: a servant played face down under a place
KEY_DISCARD = 1200  # a gem discarded face down


def public_key(action: int) -> int:
    """The part of a player action that the other seats see (D14): the place a face-down card
    went to and whether it was a gem or a servant; that a gem was discarded. Collecting, not
    collecting, not discarding and the draw source are public as they are."""
    if A_PLAY_GEM <= action < A_PLAY_SERVANT:
        return KEY_GEM + (action - A_PLAY_GEM) % ROW_SIZE
    if A_PLAY_SERVANT <= action < A_NO_DISCARD:
        return KEY_SERVANT + (action - A_PLAY_SERVANT) % ROW_SIZE
    if A_DISCARD <= action < A_DRAW_GEM:
        return KEY_DISCARD
    return action


class Node:
    """A node of the searcher's information tree: its children by key, visits, availability
    (how many iterations it could have been chosen in) and the returns summed per seat."""

    __slots__ = ("children", "visits", "avail", "value")

    def __init__(self, num_players: int):
        self.children: dict[int, Node] = {}
        self.visits = 0
        self.avail = 0
        self.value = [0.0] * num_players


def sample_chance_fast(st, rng) -> None:
    """Apply one outcome of the chance node ``st``, each card left equally likely."""
    ids = rules.chance_ids(st)
    st.apply_legal(ids[int(rng.random() * len(ids))])


def collect_gain(st, slot: int, seat: int) -> int:
    """What ``seat`` would take if the place at ``slot`` were collected now (D5, D6), from the
    cards as they lie in ``st`` (a determinisation: its hidden cards are sampled)."""
    colour = place_colour(st.row[slot])
    left = sum(gem_value(c) for c, _ in st.above[slot] if gem_colour(c) == colour)
    cards = st.under[slot]
    order = sorted(range(len(cards)), key=lambda i: (servant_value(cards[i]), i))
    got = 0
    for k, i in enumerate(order):
        take = left if k == len(order) - 1 else min(servant_value(cards[i]), left)
        left -= take
        if servant_owner(cards[i]) == seat:
            got += take
    return got


def slot_facts(st, seat: int) -> list[tuple | None]:
    """Per row slot (None if empty): the place's colour, the amulets its gems would give now,
    ``seat``'s servants there, all servants there, the highest value of another seat's servant
    there (0: none) and the cards there."""
    out = []
    for s in range(ROW_SIZE):
        place = st.row[s]
        if place < 0:
            out.append(None)
            continue
        colour = place_colour(place)
        amulets = sum(gem_value(c) for c, _ in st.above[s] if gem_colour(c) == colour)
        under = st.under[s]
        mine = sum(1 for c in under if servant_owner(c) == seat)
        other = max((servant_value(c) for c in under if servant_owner(c) != seat), default=0)
        out.append((colour, amulets, mine, len(under), other, len(under) + len(st.above[s])))
    return out


def action_score(st, a: int, facts: list) -> float:
    """A light heuristic value of decision ``a`` for the seat to move (its rollout policy and
    the search's expansion order), read from the determinised position ``st``: collect where
    the mover gains more than anyone else (D5, D6); play a gem of a place's colour where the
    mover's servants will share it; a servant of higher value than the others' under a place
    rich in amulets (the last takes all, D6); keep gems (no discard); draw a servant when the
    hand has none."""
    seat = st.seat
    if a < A_PLAY_GEM:
        if a == A_NO_COLLECT:
            return 0.0
        slot = a - A_COLLECT
        gains = [collect_gain(st, slot, q) for q in range(st.game.num_players)]
        me = gains[seat]
        gains[seat] = 0
        return me - max(gains) - 0.5
    if a < A_NO_DISCARD:
        if a < A_PLAY_SERVANT:
            card, slot = divmod(a - A_PLAY_GEM, ROW_SIZE)
            colour, _, mine, total, _, size = facts[slot]
            if gem_colour(card) != colour:
                return 0.2 if mine and size < 3 else -0.2
            return gem_value(card) * (mine / total if total else 0.3)
        value, slot = divmod(a - A_PLAY_SERVANT, ROW_SIZE)
        _, amulets, _, _, other, _ = facts[slot]
        return amulets * (1.0 if value + 1 > other else 0.3) + 0.05 * (value + 1)
    if a < A_DRAW_GEM:
        return 0.0 if a == A_NO_DISCARD else -1.0
    wants_servant = all(is_gem(c) for c in st.hands[seat])
    return 1.0 if (a == A_DRAW_SERVANT) == wants_servant else 0.0


def best_action(st, legal: list[int]) -> int:
    """The legal decision of highest :func:`action_score` (the first of equals)."""
    if len(legal) == 1:
        return legal[0]
    facts = slot_facts(st, st.seat) if st.phase == rules.P_PLAY else []
    best, best_score = legal[0], -math.inf
    for a in legal:
        score = action_score(st, a, facts)
        if score > best_score:
            best, best_score = a, score
    return best


def rollout(st, rng, epsilon: float = 0.2, turns: int = 0) -> None:
    """Play ``st`` in place with the default policy (:func:`best_action`, or with probability
    ``epsilon`` a uniformly random decision) to the end, or when ``turns`` > 0 until that many
    more turns have begun."""
    stop = st.turn + turns if turns else 1 << 30
    while True:
        cur = st.to_move
        if cur == TERMINAL or st.turn >= stop:
            return
        if cur == CHANCE:
            sample_chance_fast(st, rng)
        elif rng.random() < epsilon:
            if st.phase == rules.P_PLAY:
                st.apply_legal(random_play(st, rng))
            else:
                legal = rules.legal(st)
                st.apply_legal(legal[int(rng.random() * len(legal))])
        else:
            st.apply_legal(best_action(st, rules.legal(st)))


def outcome(st, margin: float) -> list[float]:
    """The value of the finished game ``st`` per seat: ``DruidsState.returns()`` (D13),
    blended with weight ``margin`` with the score margin (the seat's score minus the best other
    score, squashed by ``tanh(x / 8)``), which tells a close game from a rout."""
    if not st.is_terminal():
        return estimate(st)
    returns = st.returns()
    if not margin:
        return returns
    scores = st.score
    out = []
    for s, r in enumerate(returns):
        best_other = max(v for q, v in enumerate(scores) if q != s)
        out.append((1.0 - margin) * r + margin * math.tanh((scores[s] - best_other) / 8.0))
    return out


def estimate(st) -> list[float]:
    """The value per seat of an unfinished position (a rollout cut short): each seat's score
    plus half of what it would take if every place were collected now, minus the best other
    seat's, squashed by ``tanh(x / 8)``."""
    n = st.game.num_players
    worth = [float(v) for v in st.score]
    for slot in range(ROW_SIZE):
        if st.row[slot] >= 0 and st.under[slot]:
            for q in range(n):
                worth[q] += 0.5 * collect_gain(st, slot, q)
    return [math.tanh((worth[s] - max(w for q, w in enumerate(worth) if q != s)) / 8.0)
            for s in range(n)]


def random_play(st, rng) -> int:
    """A play (D8) uniform among the legal ones, without listing them: every card that may be
    played goes to any of the same places, so a uniform card and a uniform place will do."""
    hand = st.hands[st.seat]
    cards = hand if not st.servant_played else [c for c in hand if is_gem(c)]
    slots = [s for s in range(ROW_SIZE) if st.row[s] >= 0]
    card = cards[int(rng.random() * len(cards))]
    slot = slots[int(rng.random() * len(slots))]
    if is_gem(card):
        return A_PLAY_GEM + card * ROW_SIZE + slot
    return A_PLAY_SERVANT + (servant_value(card) - 1) * ROW_SIZE + slot


def canonical(st, me: int):
    """A copy of ``st`` whose cards hidden from ``me`` are put in one fixed way that depends
    only on what ``me`` knows (D14), so that the search, which determinises from it, is a
    function of ``me``'s information (and its seed) alone: the gems ``me`` has not seen go to
    the places holding unknown gems in increasing order, the rest form the deck; each other
    seat's servants in hand and under the places get the first values (in lexicographic
    order) that agree with every reveal of that seat's servants since each was drawn, the
    draw times and the order of its hand first put publicly (:func:`public_draw_times`).
    The deal is the engine's :func:`~druids_env.engine.information.resample_hidden` with
    :class:`FirstDeal` for its random stream. Event logs are left as they are: the search never
    reads them."""
    new = st.clone()
    for q in range(st.game.num_players):
        if q != me:
            public_draw_times(new, q)
    return resample_hidden(new, me, FirstDeal, rewrite_log=False)


class FirstDeal:
    """The random stream of the canonical deal (:func:`canonical`), as
    :func:`~druids_env.engine.information.resample_hidden` draws from it: its shuffle puts the
    gems in increasing order, its pick among ``n`` consistent servant assignments takes the
    first (:func:`~druids_env.engine.information.relabel_servants`)."""

    @staticmethod
    def shuffle(cards: list) -> None:
        cards.sort()

    @staticmethod
    def randrange(n: int) -> int:
        return 0


def public_draw_times(st, q: int) -> None:
    """Seat ``q``'s hand put in a public order and the draw times of its present servants
    chosen from public facts alone (D14), in place. Which of ``q``'s servant draws is the card
    still in hand and which the one played under a place is hidden, and so is the order of a
    hand after plays (it tells which card left): the hand becomes its gems then its servants,
    the servants in hand take ``q``'s latest servant draws (in hand order) and each servant
    under a place, latest play first, the latest draw left before its play. A real history
    always has such a draw, and these times are never earlier than that history's as a set,
    so the reveals since each draw ban no more than they did: the values
    :func:`canonical` gives stay possible."""
    hand = st.hands[q]
    servants = [c for c in hand if not is_gem(c)]
    st.hands[q] = [c for c in hand if is_gem(c)] + servants
    free = [i for i, ev in enumerate(st.log_events)
            if ev.kind in SERVANT_DRAWS and ev.data["seat"] == q]
    times = dict(zip(servants, free[len(free) - len(servants):], strict=True))
    del free[len(free) - len(servants):]
    table = sorted((st.played_at[c], c) for pile in st.under for c in pile
                   if servant_owner(c) == q)
    for played, c in reversed(table):
        k = bisect.bisect_left(free, played) - 1
        if k >= 0:  # (always, but in a position edited by hand)
            times[c] = free.pop(k)
    for c, at in times.items():
        st.drawn_at[c] = at


#: the events of a servant's draw: its index in the log is the card's ``drawn_at``
SERVANT_DRAWS = ("servant_dealt", "draw_servant")


class DruidsISMCTSAgent(Agent):
    """Single-observer IS-MCTS for Druids (see the module docstring)."""

    def __init__(self, name: str = "ismcts", iterations: int | None = 200,
                 seconds: float | None = None, exploration: float = 0.7,
                 widening: float = 1.0, epsilon: float = 0.1, margin: float = 0.5,
                 turns: int = 2):
        super().__init__(name)
        # every number bounded and finite: a budget that never ends is refused here too
        self.iterations, self.seconds = check_search_budget("IS-MCTS", iterations, seconds)
        self.exploration, self.widening, self.epsilon, self.margin, self.turns = checked_tuning(
            exploration=exploration, widening=widening, epsilon=epsilon, margin=margin,
            turns=turns)

    #: after each searched decision: the iterations run and the root's visits per action
    last_iterations = 0
    last_visits: dict[int, int] | None = None
    #: seconds a time-budgeted search stops before its budget (see :meth:`search_until`):
    #: learnt from this agent's decisions, kept across games (it measures the machine)
    reserve = 0.0

    def act(self, observation, state) -> int:
        start = time.perf_counter()  # a time budget counts the whole decision
        legal = state.legal_actions()
        self.last_visits, self.last_iterations = None, 0
        if len(legal) == 1:
            return legal[0]
        me = state.current_player()
        state = canonical(state, me)  # from here on, only what `me` knows counts
        root = Node(state.game.num_players)
        if self.seconds is None:
            for _ in range(self.iterations):
                self.iterate(root, state, me)
            done = self.iterations
        else:
            done = self.search_until(root, state, me, start + self.seconds - self.reserve)
            over = time.perf_counter() - start - self.seconds
            self.reserve = min(0.9 * self.reserve + 0.1 * max(over + self.reserve, 0.0),
                               0.25 * self.seconds)
        self.last_iterations = done
        self.last_visits = {a: c.visits for a, c in root.children.items()}
        return max(root.children.items(), key=lambda kv: (kv[1].visits, -kv[0]))[0]

    def search_until(self, root: Node, state, me: int, deadline: float) -> int:
        """Iterate until ``deadline`` (a ``perf_counter`` time); the iterations run. The budget
        is a ceiling, not a floor: an iteration is started only while the time left is at least
        twice the mean iteration so far, so a decision overruns only when its last iteration
        takes more than twice the mean (checking the clock only between iterations, as before,
        made every decision overrun: 203 ms a move at ``ismcts:0.2s``). Not the longest
        iteration: one pause of the process (the collector, another job on the core) makes it
        20 times the mean and wasted a fifth of a 0.05 s budget. One iteration always runs, so
        a move is chosen by search however short the budget.

        The caller's deadline is the budget less :attr:`reserve`: on a machine shared with
        other work the process is paused now and then, and a pause across the deadline overruns
        it by milliseconds whatever the estimate (``ismcts:0.2s`` still took 200.6 ms a move in
        a tournament with 75 % of a core). The reserve is a running mean of how far the
        decisions so far would have overrun without it (their overruns' positive part), so the
        mean time of a decision stays within the budget; it is at most a quarter of the
        budget, and zero while no decision overruns."""
        done = 0
        first = now = time.perf_counter()
        while True:
            self.iterate(root, state, me)
            done += 1
            now = time.perf_counter()
            if now + 2.0 * (now - first) / done > deadline:
                return done

    def iterate(self, root: Node, state, me: int) -> None:
        """One iteration: determinise, select and expand, roll out, back up."""
        rng = self.rng
        st = resample_hidden(state, me, rng, rewrite_log=False)  # logs never read here
        node, path = root, [root]
        while True:
            while st.to_move == CHANCE:
                sample_chance_fast(st, rng)
            if st.to_move == TERMINAL:
                break
            node, expanded = self.descend(node, st, me)
            path.append(node)
            if expanded:
                break
        rollout(st, rng, self.epsilon, self.turns)
        returns = outcome(st, self.margin)
        for nd in path:
            nd.visits += 1
            value = nd.value
            for s, r in enumerate(returns):
                value[s] += r

    def descend(self, node: Node, st, me: int) -> tuple[Node, bool]:
        """Choose and apply one decision at ``node`` for the seat to move in ``st``; the child
        reached and whether it was new. A new child is added, best first by
        :func:`action_score`, while the children available now number fewer than
        ``1 + widening * sqrt(visits)`` (progressive widening); else UCB chooses among them.
        Behind another seat's public key the concrete action is its best by the heuristic."""
        player = st.to_move
        legal = rules.legal(st)
        if player == me:
            groups = {a: [a] for a in legal}
        else:
            groups = {}
            for a in legal:
                groups.setdefault(public_key(a), []).append(a)
        children = node.children
        tried = [k for k in groups if k in children]
        new = len(tried) < len(groups) and (
            not tried or len(tried) < 1 + self.widening * math.sqrt(node.visits))
        if new:
            untried = [a for k, group in groups.items() if k not in children for a in group]
            action = best_action(st, untried)
            key = action if player == me else public_key(action)
            child = children[key] = Node(len(node.value))
        else:
            key, child = self.ucb(node, tried, player)
            action = best_action(st, groups[key])
        for k in tried:
            children[k].avail += 1
        child.avail += new
        st.apply_legal(action)
        return child, new

    def ucb(self, node: Node, keys: list[int], player: int) -> tuple[int, Node]:
        """UCB1 with availability counts among the children available now."""
        c = self.exploration
        best, best_score = None, -math.inf
        for k in keys:
            ch = node.children[k]
            score = ch.value[player] / ch.visits + c * math.sqrt(math.log(ch.avail) / ch.visits)
            if score > best_score:
                best, best_score = k, score
        return best, node.children[best]
