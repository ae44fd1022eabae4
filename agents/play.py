"""A person plays against agents in the terminal (``meduris play``, whose flags and their checks
are :mod:`meduris_cli.commands.play`); the game record is saved at the end (also when the
player quits), ready for ``meduris replay``."""

from __future__ import annotations

from pathlib import Path
from typing import TextIO

from meduris_env import MedurisGame
from meduris_env.engine.text import render_text
from meduris_env.records.record import GameRecord

from .base import Agent
from .human import HumanAgent
from .match import play_game


def play_human(players: int, bots: list[Agent], seat: int, seed: int, record_path: Path,
               inp: TextIO, out: TextIO, exchange: str = "auto",
               open_screens: bool = False) -> int:
    """Play one game, the person at ``seat`` and ``bots`` (in seat order) at the others; save
    its record to ``record_path`` (also when the player quits) and return the exit status (0:
    the game was played or the player quit, 1: the input ended mid-game). The opponents'
    materials are behind their screens (totals only) unless ``open_screens``; the saved record
    holds everything. The caller has checked the seat and the path (the command line words
    those checks with its flags, :mod:`meduris_cli.commands.play`)."""
    names = [bot.name for bot in bots]
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
        if result.forfeit:
            out.write(f"seat {result.forfeit_seat} ({labels[result.forfeit_seat]}) forfeits: "
                      f"{result.forfeit}\n")
        out.write(f"game over ({result.end_reason}) after turn {result.turns}: "
                  + ", ".join(f"seat {s} {v} VP" for s, v in enumerate(result.vp))
                  + f"; won by {won}\n")
    out.write(f"record saved to {record_path}; watch it with: meduris replay {record_path}\n")
    out.flush()
    return 1 if human.input_ended else 0
