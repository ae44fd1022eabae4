"""``meduris play``: a person plays against agents in the terminal; the game record is saved at
the end (also when the player quits), ready for ``meduris replay``."""

from __future__ import annotations

import random
from pathlib import Path
from typing import TextIO

from meduris_env import MedurisGame
from meduris_env.engine.text import render_text
from meduris_env.records.atomic import unwritable_reason
from meduris_env.records.record import GameRecord

from .human import HumanAgent
from .match import play_game
from .registry import UnknownAgentError, make_agent


class PlayError(ValueError):
    """A game that cannot be set up as asked (the message names the fix)."""


def opponent_specs(opponents: str, players: int) -> list[str]:
    """One agent name per opponent seat; a single name fills every opponent seat."""
    if isinstance(players, bool) or players not in (2, 3, 4):
        raise PlayError(f"--players {players}: Meduris is played by 2, 3 or 4 (R1)")
    names = [n.strip() for n in opponents.split(",")]
    if any(not n for n in names):
        raise PlayError("--opponents needs agent names separated by commas, e.g. mcts:200")
    if len(names) == 1:
        names *= players - 1
    if len(names) != players - 1:
        raise PlayError(f"{players} players means {players - 1} opponents, but --opponents "
                        f"names {len(names)}: give one name for all or one per opponent")
    return names


def _check_record_path(path: Path, force: bool) -> None:
    if path.is_dir():
        raise PlayError(f"--record {str(path)!r} is a folder; give a file name")
    if path.exists() and not force:
        raise PlayError(f"--record {str(path)!r} exists; add --force to replace it, or choose "
                        "another file")
    reason = unwritable_reason(path.parent)
    if reason:
        raise PlayError(f"cannot write the game record to {str(path)!r} ({reason}); choose "
                        "another path with --record")


def play(players: int, opponents: str, seat: int, seed: int | None, record_path: str | Path,
         inp: TextIO, out: TextIO, exchange: str = "auto", open_screens: bool = False,
         force: bool = False) -> int:
    """Play one game with the person at ``seat``; return the exit status (0: the game was played
    or the player quit, 1: the input ended mid-game). The opponents' materials are behind their
    screens (totals only) unless ``open_screens``; the saved record holds everything."""
    names = opponent_specs(opponents, players)
    if not 0 <= seat < players:
        raise PlayError(f"--seat {seat}: seats are 0..{players - 1} (seat 0 starts, R6)")
    try:
        bots = [make_agent(n) for n in names]
    except UnknownAgentError as err:
        raise PlayError(str(err)) from None
    record_path = Path(record_path)
    _check_record_path(record_path, force)  # before the game, not after an hour of play
    if seed is None:
        seed = random.SystemRandom().randrange(2**31)
    human = HumanAgent(inp, out, open_screens=open_screens)
    agents = bots[:seat] + [human] + bots[seat:]
    labels = names[:seat] + ["human"] + names[seat:]
    game = MedurisGame(players, exchange=exchange)
    out.write(f"Meduris, {players} players, seed {seed}: you are seat {seat}; "
              + ", ".join(f"seat {s}: {lab}" for s, lab in enumerate(labels)) + "\n")

    def observer(state, who: int, action: int) -> None:
        name = "chance" if who < 0 else ("you" if who == seat else f"seat {who} ({labels[who]})")
        out.write(f"{name}: {state.action_to_string(action)}\n")
        for e in state.last_events():
            out.write(f"    {e.describe()}\n")

    result = play_game(game, agents, seed, labels, keep_record=True, observer=observer,
                       meta={"command": "play", "human_seat": seat, "players": players,
                             "opponents": names, "exchange": exchange,
                             "open_screens": open_screens})
    record = GameRecord.from_dict(result.record)
    record.save(record_path)
    out.write("\nThe screens are lifted:\n" + render_text(record.replay()) + "\n")
    if result.end_reason == "abandoned":
        out.write(f"game abandoned at turn {result.turns}; standings: "
                  + ", ".join(f"seat {s} {v} VP" for s, v in enumerate(result.vp)) + "\n")
    else:
        won = " and ".join(f"seat {s} ({labels[s]})" for s in result.winners)
        out.write(f"game over ({result.end_reason}) after turn {result.turns}: "
                  + ", ".join(f"seat {s} {v} VP" for s, v in enumerate(result.vp))
                  + f"; won by {won}\n")
    out.write(f"record saved to {record_path}; watch it with: meduris replay {record_path}\n")
    out.flush()
    return 1 if human.input_ended else 0
