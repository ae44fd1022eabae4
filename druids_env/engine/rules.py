"""The rules of a Druids turn (D4-D13), as functions of a :class:`DruidsState`.

The state holds the position in plain Python lists (see :mod:`druids_env.engine.state`); these
functions read and change it. They are called by ``DruidsState.apply_action`` only, with actions
already checked legal, and end with :func:`advance`, which moves the game on to the next chance
node, decision or the end. A decision with exactly one legal action is taken automatically (its
events are logged, it is not part of ``history()``): e.g. "collect nothing" when no place can be
collected, "discard nothing" with no gem in hand, the only source left to draw from.
"""

from __future__ import annotations

from meduris_rl.kit.protocol import CHANCE, TERMINAL

from . import actions as A
from .cards import (
    HAND_LIMIT,
    LAST_COLLECTION,
    ROW_SIZE,
    SCORING_CARDS,
    START_GEMS,
    START_SERVANTS,
    gem_colour,
    gem_value,
    is_gem,
    place_colour,
    servant,
    servant_owner,
    servant_value,
)

__all__ = ["CHANCE", "TERMINAL"]  # Meduris's constants (-1, -4), the same for both games

# phases: chance nodes (setup places, setup gems, setup servants, replacement place, drawn gem,
# drawn servant) and decisions (collect, play, discard, draw source); the end
(P_SETUP_PLACE, P_DEAL_GEM, P_DEAL_SERVANT, P_REPLACE, P_DRAW_GEM, P_DRAW_SERVANT, P_COLLECT,
 P_PLAY, P_DISCARD, P_DRAW, P_END) = range(11)
PHASE_NAMES = ("setup: place", "setup: gem dealt", "setup: servant drawn", "replacement place",
               "gem drawn", "servant drawn", "collect (D4)", "play (D8)", "discard (D9)",
               "draw (D10)", "game over")
CHANCE_PHASES = frozenset((P_SETUP_PLACE, P_DEAL_GEM, P_DEAL_SERVANT, P_REPLACE, P_DRAW_GEM,
                           P_DRAW_SERVANT))

END_NONE, END_LAST_PLACE, END_COLUMN, END_STALL, END_TRUNCATED = range(5)
END_NAMES = ("not over", "the last place (D11)", "the moving column (D12)",
             "a round without play (D11b)", "turn limit")


def setup_schedule(n: int) -> tuple:
    """The setup's chance nodes in order (D3): 6 places, 4 gems per seat, 3 servants per
    seat, as (phase, seat) pairs."""
    return ((P_SETUP_PLACE, -1),) * ROW_SIZE + tuple(
        (P_DEAL_GEM, s) for s in range(n) for _ in range(START_GEMS)) + tuple(
        (P_DEAL_SERVANT, s) for s in range(n) for _ in range(START_SERVANTS))


# --- legal actions -----------------------------------------------------------------------------
def collectable(st, slot: int) -> bool:
    """D4: a place with at least 3 cards, at least one of them a servant."""
    return st.row[slot] >= 0 and len(st.under[slot]) >= 1 and \
        len(st.under[slot]) + len(st.above[slot]) >= 3


def legal(st) -> list[int]:
    """The legal player actions at the current decision (sorted ids)."""
    phase = st.phase
    if phase == P_COLLECT:
        return [A.A_NO_COLLECT] + [A.A_COLLECT + s for s in range(ROW_SIZE) if collectable(st, s)]
    if phase == P_PLAY:
        return play_actions(st)
    if phase == P_DISCARD:
        hand = st.hands[st.seat]
        return [A.A_NO_DISCARD] + sorted(A.A_DISCARD + c for c in hand if is_gem(c))
    if phase == P_DRAW:
        out = []
        if st.gem_deck:
            out.append(A.A_DRAW_GEM)
        if st.servant_sets[st.seat]:
            out.append(A.A_DRAW_SERVANT)
        return out
    return []


def play_actions(st) -> list[int]:
    """D8: a gem above any place, a servant under any place; never two servants in a turn."""
    slots = [s for s in range(ROW_SIZE) if st.row[s] >= 0]
    out = []
    for c in st.hands[st.seat]:
        if is_gem(c):
            out += [A.A_PLAY_GEM + c * ROW_SIZE + s for s in slots]
        elif not st.servant_played:
            out += [A.A_PLAY_SERVANT + (servant_value(c) - 1) * ROW_SIZE + s for s in slots]
    out.sort()
    return out


# --- decisions ---------------------------------------------------------------------------------
def decide(st, a: int) -> None:
    """Apply the legal decision ``a`` of the seat to move."""
    seat = st.seat
    if st.phase == P_COLLECT:
        if a == A.A_NO_COLLECT:
            st.emit("collect_nothing", {"seat": seat})
            st.phase = P_PLAY
        else:
            st.acted = True
            collect(st, a - A.A_COLLECT)
    elif st.phase == P_PLAY:
        play(st, a)
    elif st.phase == P_DISCARD:
        if a == A.A_NO_DISCARD:
            st.emit("discard_nothing", {"seat": seat})
        else:
            card = a - A.A_DISCARD
            st.hands[seat].remove(card)
            st.discards.append((card, seat))
            st.emit("discard", {"seat": seat, "card": card}, seat, ("card",))
        st.phase = P_DRAW
    else:  # P_DRAW
        st.phase = P_DRAW_GEM if a == A.A_DRAW_GEM else P_DRAW_SERVANT


def play(st, a: int) -> None:
    """D8: one card from hand to a place, face down (a gem above, a servant under)."""
    seat = st.seat
    gem_card, what, slot = A.decode_play(a)
    card = what if gem_card else servant(seat, what)
    st.hands[seat].remove(card)
    st.acted = True
    if gem_card:
        st.above[slot].append((card, seat))
        st.emit("play_gem", {"seat": seat, "slot": slot, "card": card}, seat, ("card",))
    else:
        st.under[slot].append(card)
        st.servant_played = True
        st.played_at[card] = len(st.log_events)
        st.emit("play_servant", {"seat": seat, "slot": slot, "card": card}, seat, ("card",))
    st.played += 1
    if st.played >= 2:
        st.phase = P_DISCARD


# --- collecting (D4-D7, D11, D12) --------------------------------------------------------------
def collect(st, slot: int) -> None:
    """D5-D7: reveal the gems, count the amulets, share them out, clear the place."""
    place = st.row[slot]
    st.emit("collect", {"seat": st.seat, "slot": slot, "place": place})
    colour = place_colour(place)
    amulets = 0
    for card, _ in st.above[slot]:
        hit = gem_colour(card) == colour
        amulets += gem_value(card) if hit else 0
        st.emit("gem_revealed", {"slot": slot, "card": card, "amulet": int(hit)})
        st.removed.append(card)  # D7 ruling: the gems, amulets included, leave the game
    st.emit("amulets", {"slot": slot, "amulets": amulets})
    for card in st.under[slot]:
        st.emit("servant_revealed", {"slot": slot, "card": card})
        st.reveals.append((len(st.log_events) - 1, card))
    ended = share_out(st, st.under[slot], amulets)
    return_servants(st, st.under[slot])  # D7 ruling: back to the owners' sets
    st.above[slot] = []
    st.under[slot] = []
    st.collected.append(place)
    st.row[slot] = -1
    st.emit("place_removed", {"slot": slot, "place": place})
    st.collections += 1
    if ended:
        return
    if st.collections >= LAST_COLLECTION:  # D11 ruling: at once, after the 11th sharing out
        end_game(st, END_LAST_PLACE)
    elif st.place_deck:  # D7: replaced while the place deck has cards
        st.replace_slot = slot
        st.phase = P_REPLACE
    else:
        st.phase = P_PLAY


def return_servants(st, cards: list[int]) -> None:
    for card in cards:
        own = st.servant_sets[servant_owner(card)]
        own.append(card)
        own.sort()


def share_out(st, cards: list[int], amulets: int) -> bool:
    """D6: lowest value first, equal values in play order; each takes its value while amulets
    remain, the last takes all that remain. Each share is scored amulet by amulet (D12 ruling):
    when the game ends during a share, the share logs the amulets scored, the rest of it and
    the servants after it take nothing. Returns True if the game ended (D12)."""
    order = sorted(range(len(cards)), key=lambda i: (servant_value(cards[i]), i))
    left = amulets
    for k, i in enumerate(order):
        card = cards[i]
        take = left if k == len(order) - 1 else min(servant_value(card), left)
        left -= take
        owner = servant_owner(card)
        got, moves, ended = score_amulets(st, owner, take)
        st.emit("share", {"seat": owner, "card": card, "amulets": got,
                          "score": st.score[owner]})
        top = SCORING_CARDS * st.game.circles
        for bottom in moves:
            st.emit("column_moved", {"bottom": bottom + 1, "top": bottom + top})
        if ended:
            end_game(st, END_COLUMN)
            return True
    return False


def score_amulets(st, seat: int, amulets: int) -> tuple[int, list[int], bool]:
    """D12 ruling: move ``seat``'s marker up one circle per amulet, checking the column after
    each. The amulet that passes the top card moves the bottom card to the top, unless a marker
    stands on the bottom card, on its circles or still beside it (a score up to the bottom
    card's highest circle, ``base + circles``: a lagging marker, even at 0, always blocks, so
    no marker is ever left below the column); then the game ends at once, that amulet the last
    scored. Returns (amulets scored, the new ``base`` of each move, whether the game ended)."""
    c = st.game.circles
    moves = []
    for got in range(1, amulets + 1):
        st.score[seat] += 1
        if st.score[seat] <= st.base + SCORING_CARDS * c:
            continue  # on the column
        if min(st.score) <= st.base + c:  # the bottom card is occupied: the game ends
            return got, moves, True
        st.base += c
        moves.append(st.base)
    return amulets, moves, False


# --- chance ------------------------------------------------------------------------------------
def chance_ids(st) -> list[int]:
    """The possible outcome ids of the chance node (uniform: each card left is as likely)."""
    phase = st.phase
    if phase in (P_SETUP_PLACE, P_REPLACE):
        return [A.C_PLACE + p for p in st.place_deck]
    if phase in (P_DEAL_GEM, P_DRAW_GEM):
        return [A.C_GEM + g for g in st.gem_deck]
    if phase in (P_DEAL_SERVANT, P_DRAW_SERVANT):
        return [A.C_SERVANT + servant_value(c) - 1 for c in st.servant_sets[chance_seat(st)]]
    return []


def chance_seat(st) -> int:
    """The seat a chance card goes to (-1 for places)."""
    if st.phase in (P_DEAL_GEM, P_DEAL_SERVANT):
        return st.schedule[st.setup_i][1]
    return st.seat if st.phase in (P_DRAW_GEM, P_DRAW_SERVANT) else -1


def apply_chance(st, a: int) -> None:
    phase = st.phase
    if phase in (P_SETUP_PLACE, P_REPLACE):
        place = a - A.C_PLACE
        st.place_deck.remove(place)
        slot = st.setup_i if phase == P_SETUP_PLACE else st.replace_slot
        st.row[slot] = place
        st.emit("place_revealed", {"slot": slot, "place": place})
        st.phase = P_PLAY
    else:
        seat = chance_seat(st)
        if a < A.C_SERVANT:
            card = a - A.C_GEM
            st.gem_deck.remove(card)
            kind = "gem_dealt" if phase == P_DEAL_GEM else "draw_gem"
        else:
            card = servant(seat, a - A.C_SERVANT + 1)
            st.servant_sets[seat].remove(card)
            st.drawn_at[card] = len(st.log_events)
            st.played_at[card] = -1
            kind = "servant_dealt" if phase == P_DEAL_SERVANT else "draw_servant"
        st.hands[seat].append(card)
        st.emit(kind, {"seat": seat, "card": card}, seat, ("card",))
        if phase in (P_DRAW_GEM, P_DRAW_SERVANT):
            st.acted = True
            st.phase = P_DRAW
    if phase in (P_SETUP_PLACE, P_DEAL_GEM, P_DEAL_SERVANT):
        st.setup_i += 1
        st.phase = st.schedule[st.setup_i][0] if st.setup_i < len(st.schedule) else P_END
        if st.phase == P_END:  # D3 ruling: seat 0 starts
            start_turn(st, 0)


# --- turns and the end -------------------------------------------------------------------------
def start_turn(st, seat: int) -> None:
    limit = st.game.max_turns
    if limit and st.turn >= limit:
        end_game(st, END_TRUNCATED)
        return
    st.turn += 1
    st.seat = seat
    st.played = 0
    st.servant_played = False
    st.acted = False
    st.phase = P_COLLECT
    st.emit("turn", {"seat": seat, "turn": st.turn})


def end_turn(st) -> None:
    """D11b ruling: a whole round of turns without a collection, a play or a draw ends it."""
    st.idle = 0 if st.acted else st.idle + 1
    if st.idle >= st.game.num_players:
        end_game(st, END_STALL)
    else:
        start_turn(st, (st.seat + 1) % st.game.num_players)


def end_game(st, reason: int) -> None:
    st.end_reason = reason
    st.phase = P_END
    st.emit("game_end", {"reason": END_NAMES[reason]})


def advance(st) -> int:
    """Move on to the next chance node or real decision (applying forced decisions and
    ending turns); returns the player to move (CHANCE, TERMINAL or a seat)."""
    while True:
        phase = st.phase
        if phase == P_END:
            return TERMINAL
        if phase in CHANCE_PHASES:
            return CHANCE
        if phase == P_PLAY and st.played >= 2:
            st.phase = P_DISCARD
            continue
        if phase == P_DRAW and len(st.hands[st.seat]) >= HAND_LIMIT:
            end_turn(st)
            continue
        options = legal(st)
        if len(options) > 1:
            return st.seat
        if not options:  # nothing to play (D8 ruling) or to draw (D10 ruling)
            if phase == P_PLAY:
                st.phase = P_DISCARD
            else:
                end_turn(st)
            continue
        decide(st, options[0])

