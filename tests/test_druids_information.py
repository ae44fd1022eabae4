"""D14, what each Druids player knows: observations and information states are functions of
that player's knowledge only (the paired-state test), differing private information does
change them, and ``resample_hidden`` gives legal states consistent with that knowledge."""

import random
from collections import Counter

import numpy as np
import pytest

import druids_env as D
from druids_env.engine.cards import NUM_GEMS, servant_owner
from druids_env.engine.information import (
    information_state_rows,
    max_info_rows,
)
from meduris_rl.kit.seeding import derive_seed


def views(st, p):
    return (D.observation_tensor(st, p), D.observation_string(st, p),
            D.information_state_string(st, p), D.information_state_tensor(st, p))


def same(a, b):
    return all(np.array_equal(x, y) if isinstance(x, np.ndarray) else x == y
               for x, y in zip(a, b, strict=True))


def hidden_differs(s, r, p):
    """Whether r differs from s in a card p cannot see."""
    others = [q for q in range(s.game.num_players) if q != p]
    return any(s.hands[q] != r.hands[q] for q in others) or s.above != r.above or \
        s.under != r.under or s.discards != r.discards or s.gem_deck != r.gem_deck


def log_problems(st) -> list[str]:
    """Replay the event log, tracking where each card is: every deal or draw takes a card out
    of its deck or set, every play or discard takes it from its player's hand, every reveal
    finds it under or above the place collected, and the end matches the position. A state
    whose log passes is one the game can reach (the log is its story)."""
    n = st.game.num_players
    where = {}  # card -> ("hand", seat) / ("above", slot) / ("under", slot) / ("out",)
    bad = []
    for ev in st.events():
        d = ev.data
        card = d.get("card")
        if ev.kind in ("gem_dealt", "draw_gem", "servant_dealt", "draw_servant"):
            if card in where and where[card][0] != "set":
                bad.append(f"{ev}: drawn but it is {where[card]}")
            where[card] = ("hand", d["seat"])
        elif ev.kind in ("play_gem", "play_servant", "discard"):
            if where.get(card) != ("hand", d["seat"]):
                bad.append(f"{ev}: played but it is {where.get(card)}")
            where[card] = ("out",) if ev.kind == "discard" else (
                "above" if ev.kind == "play_gem" else "under", d["slot"])
        elif ev.kind in ("gem_revealed", "servant_revealed"):
            pos = "above" if ev.kind == "gem_revealed" else "under"
            if where.get(card) != (pos, d["slot"]):
                bad.append(f"{ev}: revealed but it is {where.get(card)}")
            where[card] = ("out",) if pos == "above" else ("set",)
    for q in range(n):
        mine = sorted(c for c, w in where.items() if w == ("hand", q))
        if mine != sorted(st.hands[q]):
            bad.append(f"seat {q}'s hand by its log {mine} != {sorted(st.hands[q])}")
    for s in range(6):
        if sorted(c for c, w in where.items() if w == ("under", s)) != sorted(st.under[s]):
            bad.append(f"the servants under place {s + 1} differ from the log")
    return bad


def random_states(n, games, seed):
    """States along random games, at every depth (each step with probability 1/8)."""
    game = D.DruidsGame(n)
    out = []
    for g in range(games):
        rng = random.Random(derive_seed(seed, n, g))
        st = game.new_initial_state()
        D.play(st, D.random_decide(rng), rng,
               observer=lambda s, c, a, rng=rng: out.append(s.clone())
               if rng.random() < 0.125 else None)
    return out


@pytest.mark.parametrize("n", [2, 3, 4])
def test_D14_paired_states_look_the_same_to_the_player(n):
    rng = random.Random(derive_seed(14, n))
    states = random_states(n, 40, 1)
    differ = 0
    depths = Counter()
    for s in states:
        p = rng.randrange(n)
        r = D.resample_hidden(s, p, rng)
        assert same(views(s, p), views(r, p)), (p, s.history())
        assert not D.check(r) and not log_problems(r), (D.check(r), log_problems(r)[:3])
        assert r.current_player() == s.current_player()
        if s.current_player() == p:  # the player's own choices are the same
            assert r.legal_actions() == s.legal_actions()
        differ += hidden_differs(s, r, p)
        depths[len(s.history()) // 50] += 1
        if rng.random() < 0.1:  # play goes on from both
            for st in (s.clone(), r):
                D.play(st, D.random_decide(rng), rng)
                assert st.is_terminal() and not D.check(st)
    print(f"{n} players: {len(states)} pairs, {differ} differ in hidden cards, depths "
          f"(x50 steps) {sorted(depths.items())}")
    assert len(states) > 200 and len(depths) >= 4
    assert differ >= 0.9 * len(states)


PRIVATE_GEM_EVENTS = ("gem_dealt", "draw_gem", "play_gem", "discard")


def swap_with_deck(st, q, rng):
    """A twin of ``st`` built without ``resample_hidden``: one gem of seat ``q`` that nobody
    else has seen (in q's hand, or played by q face down above a place) is exchanged with a
    gem of the deck, directly in the position, and q's private events naming it (its deal or
    draw, its play: D14, a gem has one story) are made to name the new one. None when q holds
    no such gem or the deck is empty."""
    spots = [("hand", i) for i, c in enumerate(st.hands[q]) if c < NUM_GEMS]
    spots += [(slot, i) for slot, pile in enumerate(st.above)
              for i, (_, who) in enumerate(pile) if who == q]
    if not spots or not st.gem_deck:
        return None
    twin = st.clone()
    where, i = rng.choice(spots)
    new = rng.choice(twin.gem_deck)
    if where == "hand":
        old, twin.hands[q][i] = twin.hands[q][i], new
    else:
        old, _ = twin.above[where][i]
        twin.above[where][i] = (new, q)
    twin.gem_deck = sorted([c for c in twin.gem_deck if c != new] + [old])
    twin.log_events = [ev._replace(data={**ev.data, "card": new})
                       if ev.kind in PRIVATE_GEM_EVENTS and ev.data.get("card") == old else ev
                       for ev in twin.log_events]
    return twin


@pytest.mark.parametrize("n", [2, 3, 4])
def test_D14_paired_states_built_by_hand_look_the_same_to_the_others(n):
    """The paired-state test with pairs built independently of the module under test: a gem
    of seat q exchanged with a deck gem (:func:`swap_with_deck`). The twin is a legal position
    with a consistent story; every other seat's observation and information state are
    identical for both (D14: q's hand, q's face-down gems and the deck are hidden from them),
    and q's own all differ."""
    assert_pairs_look_the_same_to_the_others(n, swap_with_deck, 140, 3, every_view_differs=True)


def assert_pairs_look_the_same_to_the_others(n: int, build, seed: int, games_seed: int,
                                             every_view_differs: bool = False) -> None:
    """Twins of random states by ``build(state, q, rng)`` (None: no twin there), more than
    100: each a legal position with a consistent story, every seat but q seeing both the same
    (observation and information state, strings and tensors), q's own views differing (each
    of the four with ``every_view_differs``)."""
    rng = random.Random(derive_seed(seed, n))
    built = 0
    for s in random_states(n, 12, games_seed):
        q = rng.randrange(n)
        twin = build(s, q, rng)
        if twin is None:
            continue
        built += 1
        assert not D.check(twin) and not log_problems(twin), (D.check(twin), log_problems(twin))
        for p in range(n):
            if p != q:
                assert same(views(s, p), views(twin, p)), (p, q, s.history())
        mine, theirs = views(s, q), views(twin, q)
        assert not same(mine, theirs), q
        if every_view_differs:
            assert all(not np.array_equal(a, b) if isinstance(a, np.ndarray) else a != b
                       for a, b in zip(mine, theirs, strict=True)), q
    assert built > 100, built


def swap_servants(st, q, rng):
    """A twin of ``st`` built by hand: a servant of seat ``q`` in hand trades places with one
    of ``q``'s servants under a place (each keeps the other's draw; the one now on the table
    its play), or with one in ``q``'s set (the hand's draw then brought the other), so the
    twin's story is as consistent as ``st``'s; the private events of those draws and that
    play name the new cards (D14: the other seats know only that a servant of ``q``'s colour
    was drawn or played). A servant
    revealed since the draw it would take is not chosen (it was on the table then; revealed,
    it went back to the set). None when there is no such pair."""
    hand = [i for i, c in enumerate(st.hands[q]) if c >= NUM_GEMS]
    if not hand:
        return None
    h = rng.choice(hand)
    a = st.hands[q][h]

    def free_at(card, at):  # not revealed since `at`: a revealed servant returns to the set
        return all(i < at for i, c in st.reveals if c == card)
    table = [(slot, i) for slot, pile in enumerate(st.under) for i, c in enumerate(pile)
             if servant_owner(c) == q and free_at(c, st.drawn_at[a])
             and free_at(a, st.drawn_at[c])]
    unseen = [c for c in st.servant_sets[q] if free_at(c, st.drawn_at[a])]
    if not (table or unseen):
        return None
    twin = st.clone()
    if table and (not unseen or rng.random() < 0.5):
        slot, i = rng.choice(table)
        b = twin.under[slot][i]
        twin.hands[q][h], twin.under[slot][i] = b, a
        names = {twin.drawn_at[a]: b, twin.drawn_at[b]: a, twin.played_at[b]: a}
        twin.drawn_at[a], twin.drawn_at[b] = twin.drawn_at[b], twin.drawn_at[a]
        twin.played_at[a], twin.played_at[b] = twin.played_at[b], -1
    else:
        b = rng.choice(unseen)
        twin.hands[q][h] = b
        names = {twin.drawn_at[a]: b}
        twin.drawn_at[b], twin.drawn_at[a] = twin.drawn_at[a], -1
        twin.servant_sets[q] = sorted([c for c in twin.servant_sets[q] if c != b] + [a])
    twin.log_events = [ev._replace(data={**ev.data, "card": names[k]}) if k in names else ev
                       for k, ev in enumerate(twin.log_events)]
    return twin


@pytest.mark.parametrize("n", [2, 3, 4])
def test_D14_paired_servant_states_built_by_hand_look_the_same_to_the_others(n):
    """The paired-state test for servants (built without resample_hidden): seat q's servant in
    hand traded with one of its servants under a place or in its set (:func:`swap_servants`).
    Every other seat's observation and information state (strings and tensors) are identical
    for both; q's own differ (it knows the values of its own servants)."""
    assert_pairs_look_the_same_to_the_others(n, swap_servants, 141, 4)


@pytest.mark.parametrize("n", [2, 3, 4])
def test_D14_information_states_have_perfect_recall(n):
    """Perfect recall: along random games, each seat's information state at any moment is a
    prefix of its information state at every later moment (the string line by line after its
    header, the rows of the tensor; the padded tensor equal up to the earlier rows), and it
    grows when something happens (each seat sees every turn begin)."""
    game = D.DruidsGame(n)
    compared = 0
    for g in range(6):
        rng = random.Random(derive_seed(141, n, g))
        st = game.new_initial_state()
        earlier = [None] * n
        while not st.is_terminal():
            st.apply_action(st.sample_chance(rng) if st.is_chance_node()
                            else rng.choice(st.legal_actions()))
            if rng.random() > 0.2:
                continue
            for p in range(n):
                text = D.information_state_string(st, p).split("\n")
                rows = information_state_rows(st, p)
                tensor = D.information_state_tensor(st, p)
                if earlier[p] is not None:
                    old_text, old_rows, old_tensor = earlier[p]
                    assert text[:len(old_text)] == old_text
                    assert np.array_equal(rows[:len(old_rows)], old_rows)
                    k = old_rows.size
                    assert np.array_equal(tensor[:k], old_tensor[:k])
                    assert not old_tensor[k:].any()  # the earlier padding, now filled in
                    compared += 1
                earlier[p] = (text, rows, tensor)
        assert all(len(e[0]) > 100 for e in earlier)
    assert compared > 50 * n, compared


def test_D14_resampling_keeps_what_the_player_knows_and_changes_the_rest():
    s = random_states(3, 1, 2)[-5]
    rng = random.Random(3)
    r = D.resample_hidden(s, 0, rng)
    assert r.hands[0] == s.hands[0] and r.score == s.score and r.row == s.row
    for slot in range(6):
        assert [w for _, w in r.above[slot]] == [w for _, w in s.above[slot]]
        assert [c for c, w in r.above[slot] if w == 0] == [c for c, w in s.above[slot] if w == 0]
        assert [servant_owner(c) for c in r.under[slot]] == [servant_owner(c)
                                                           for c in s.under[slot]]
        assert [c for c in r.under[slot] if servant_owner(c) == 0] == [
            c for c in s.under[slot] if servant_owner(c) == 0]
    assert [len(h) for h in r.hands] == [len(h) for h in s.hands]
    assert [sum(c < NUM_GEMS for c in h) for h in r.hands] == [
        sum(c < NUM_GEMS for c in h) for h in s.hands]
    assert s.to_json() != r.to_json()  # and the original is untouched:
    assert not log_problems(s)


def test_D14_a_resampled_servant_is_never_one_revealed_since_it_was_drawn():
    checked = 0
    rng = random.Random(5)
    for s in random_states(2, 30, 4):
        r = D.resample_hidden(s, 0, rng)
        for c in [c for h in r.hands for c in h if c >= NUM_GEMS and servant_owner(c) == 1]:
            later = {card for i, card in r.reveals if i > r.drawn_at[c]}
            assert c not in later
            checked += 1
    assert checked > 100


@pytest.mark.parametrize("n", [2, 3, 4])
def test_D14_different_private_information_changes_the_players_view(n):
    """Pairs that differ in what p knows (p's own hand, p's servants on the table) give p
    different observations and information states; the pairs are built, not assumed (more
    than 50 differ in p's hand, and some in the values of p's servants on the table)."""
    rng = random.Random(9)
    states = random_states(n, 20, 6)
    hand_pairs = table_pairs = 0
    for s in states:
        p = rng.randrange(n)
        q = (p + 1) % n
        r = D.resample_hidden(s, q, rng)  # redeals what q cannot see: p's cards among them
        mine = [c for pile in s.under for c in pile if servant_owner(c) == p]
        theirs = [c for pile in r.under for c in pile if servant_owner(c) == p]
        hand = sorted(s.hands[p]) != sorted(r.hands[p])
        table = mine != theirs
        if hand or table:
            assert not np.array_equal(D.observation_tensor(s, p), D.observation_tensor(r, p))
            assert D.observation_string(s, p) != D.observation_string(r, p)
            assert D.information_state_string(s, p) != D.information_state_string(r, p)
            assert not np.array_equal(D.information_state_tensor(s, p),
                                      D.information_state_tensor(r, p))
        hand_pairs += hand
        table_pairs += table
        assert same(views(s, q), views(r, q))
    assert hand_pairs > 50 and table_pairs > 0, (hand_pairs, table_pairs)


def test_D14_the_own_servant_value_on_the_table_is_in_the_observation():
    """Swap seat 0's servant under a place with one from its set: seat 0 sees the change,
    seat 1 does not (it knows only the servant's colour)."""
    s = next(st for st in random_states(2, 10, 8) if st.servant_sets[0] and any(
        servant_owner(c) == 0 for pile in st.under for c in pile))
    r = s.clone()
    slot, i = next((k, i) for k, pile in enumerate(r.under) for i, c in enumerate(pile)
                   if servant_owner(c) == 0)
    old, new = r.under[slot][i], r.servant_sets[0][0]
    r.under[slot][i] = new
    r.servant_sets[0] = sorted([c for c in r.servant_sets[0] if c != new] + [old])
    assert not D.check(r)
    assert not np.array_equal(D.observation_tensor(s, 0), D.observation_tensor(r, 0))
    assert D.observation_string(s, 0) != D.observation_string(r, 0)
    assert np.array_equal(D.observation_tensor(s, 1), D.observation_tensor(r, 1))
    assert D.observation_string(s, 1) == D.observation_string(r, 1)


def test_D14_the_observation_hides_other_hands_in_words():
    s = random_states(2, 1, 10)[3]
    text = D.observation_string(s, 0)
    from druids_env.engine.cards import card_name
    assert all(card_name(c) not in text.split("blue hand:")[1].splitlines()[0]
               for c in s.hands[1])
    assert "gems" in text.split("blue hand:")[1]


def test_D14_ruling_card_backs_are_public_hand_counts_and_draw_sources():
    """Ruling (engine): the backs of the cards are public, so every seat knows how many gems
    and how many servants each hand holds (observation string and tensor) and which source
    each card was drawn from (information state: "blue draws a gem"), never which card."""
    from druids_env.engine.cards import MAX_PLAYERS, PLAYER_COLOURS
    from druids_env.engine.information import OBS_FIELDS

    start = sum(size for name, size in OBS_FIELDS[:OBS_FIELDS.index(("hand_sizes", 16))])
    sources = set()
    for st in random_states(3, 2, 12)[::5]:
        for p in range(3):
            text = D.observation_string(st, p)
            tensor = D.observation_tensor(st, p)[start:start + 4 * MAX_PLAYERS]
            for q in range(3):
                gems = sum(1 for c in st.hands[q] if c < NUM_GEMS)
                assert tensor[MAX_PLAYERS + q] * 7 == pytest.approx(gems)
                assert tensor[2 * MAX_PLAYERS + q] * 7 == pytest.approx(len(st.hands[q]) - gems)
                if q != p:
                    assert f"{PLAYER_COLOURS[q]} hand: {gems} gems, " \
                           f"{len(st.hands[q]) - gems} servants" in text
            q = (p + 1) % 3
            for ev in st.events():
                if ev.kind in ("draw_gem", "draw_servant") and ev.data["seat"] == q:
                    line = ev.describe(p)
                    kind = "a gem" if ev.kind == "draw_gem" else "a servant"
                    assert line == f"{PLAYER_COLOURS[q]} draws {kind}", line
                    sources.add(ev.kind)
    assert sources == {"draw_gem", "draw_servant"}


def test_information_state_tensor_has_a_fixed_length_and_bounds_the_log():
    game = D.DruidsGame(4)
    limit = max_info_rows(game)
    for s in random_states(4, 5, 11):
        rows = information_state_rows(s, 1)
        assert len(rows) <= limit
        t = D.information_state_tensor(s, 1)
        assert t.shape == (limit * 5,) and t.dtype == np.float32
        assert D.observation_tensor(s, 1).shape == (D.OBS_SIZE,)


def test_D14_relabel_servants_takes_the_assignment_the_picker_names():
    """``relabel_servants`` (shared by ``resample_hidden`` and the IS-MCTS agent's canonical
    deal) counts the servant assignments consistent with the reveals (D6, D14) and takes the
    one of index ``picker(n)`` in lexicographic order: the same list, in the same order, as
    filtering ``itertools.permutations`` (how it was computed before), for every index."""
    import itertools

    from druids_env.engine.cards import is_gem, servant_value
    from druids_env.engine.information import relabel_servants

    compared = constrained = 0
    for s in random_states(2, 12, 9)[::4]:
        cards = [c for c in s.hands[1] if not is_gem(c)]
        cards += [c for pile in s.under for c in pile if servant_owner(c) == 1]
        shown = [(i, servant_value(c)) for i, c in s.reveals if servant_owner(c) == 1]
        banned = [{v for i, v in shown if i > s.drawn_at[c]} for c in cards]
        expected = [p for p in itertools.permutations(range(1, 7), len(cards))
                    if not any(v in no for v, no in zip(p, banned, strict=True))]
        constrained += any(banned)
        for k, values in enumerate(expected):
            r = s.clone()
            counts = []
            relabel_servants(r, 1, lambda n, k=k, counts=counts: counts.append(n) or k)
            got = [servant_value(c) for c in r.hands[1] if not is_gem(c)]
            got += [servant_value(c) for pile in r.under for c in pile if servant_owner(c) == 1]
            assert (counts[-1:], tuple(got)) == ([len(expected)] if cards else [], values)
            assert not D.check(r) and r.hands[0] == s.hands[0]
            compared += 1
    assert compared > 100 and constrained >= 3, (compared, constrained)


def test_D14_resampling_without_the_log_rewrite_deals_the_same_position():
    """``rewrite_log=False`` (what the IS-MCTS agent asks: it never reads logs) draws the
    same random numbers and deals the same hidden cards (D14); only the log is left as it
    was."""
    fields = ("hands", "above", "under", "discards", "gem_deck", "servant_sets", "drawn_at",
              "played_at")
    rewritten = 0
    for k, s in enumerate(random_states(3, 4, 6)[::3]):
        full = D.resample_hidden(s, k % 3, random.Random(k))
        fast = D.resample_hidden(s, k % 3, random.Random(k), rewrite_log=False)
        assert [getattr(fast, f) for f in fields] == [getattr(full, f) for f in fields]
        assert fast.log_events == s.log_events
        rewritten += full.log_events != s.log_events
    assert rewritten >= 5
