"""A person plays against agents in the terminal (``meduris play``, whose flags and their checks
are :mod:`meduris_rl.cli.commands.play`); the game record is saved at the end (also when the
player quits), ready for ``meduris replay``.

Meduris or Druids (``game``, a name of :data:`meduris_rl.agents.games.GAMES`). In Meduris the moves
are printed as they are made and the opponents' materials are behind their screens until the end
(``open_screens`` lifts them). In Druids the person sees only what their seat knows (D14,
:mod:`meduris_rl.agents.druids.human`): the events in words as their seat knows them, their own hand
and face-down cards, the backs of everyone else's; the game's end shows the final position as the
seat knows it (the saved record, like every record, holds every card).
"""

from __future__ import annotations

from pathlib import Path
from typing import TextIO

from meduris_env.engine.text import render_text
from meduris_env.records.record import GameRecord
from meduris_rl.agents.arena.match import GameResult, play_game
from meduris_rl.agents.base import Agent
from meduris_rl.agents.games import game_spec
from meduris_rl.agents.meduris.human import HumanAgent, HumanSeat


def play_human(players: int, bots: list[Agent], seat: int, seed: int, record_path: Path,
               inp: TextIO, out: TextIO, exchange: str = "auto",
               open_screens: bool = False, game: str = "meduris") -> int:
    """Play one game of ``game``, the person at ``seat`` and ``bots`` (in seat order) at the
    others; save its record to ``record_path`` (also when the player quits) and return the exit
    status (0: the game was played or the player quit, 1: the input ended mid-game). Meduris:
    the opponents' materials are behind their screens (totals only) unless ``open_screens``.
    Druids: nothing but what ``seat`` knows is shown (D14). The saved record holds everything.
    The caller has checked the seat, the path and the options for the game (the command line
    words those checks with its flags, :mod:`meduris_rl.cli.commands.play`)."""
    names = [bot.name for bot in bots]
    labels = names[:seat] + ["human"] + names[seat:]
    spec = game_spec(game)
    you: HumanSeat = spec.part("human")(inp, out, seat, labels, exchange=exchange,
                                        open_screens=open_screens)
    meta = {"command": "play", "human_seat": seat, "players": players, "opponents": names,
            **you.meta}
    out.write(f"{game.capitalize()}, {players} players, seed {seed}: {you.words}; "
              + ", ".join(f"seat {s}: {lab}" for s, lab in enumerate(labels)) + "\n")
    result = play_game(spec.make(players, exchange), bots[:seat] + [you.agent] + bots[seat:],
                       seed, labels, keep_record=True, observer=you.observer, meta=meta)
    record = GameRecord.from_dict(result.record)
    record.save(record_path)
    out.write("\n" + you.final(record.replay()) + "\n")
    write_outcome(result, labels, spec.score_unit, out)
    out.write(f"record saved to {record_path}; watch it with: meduris replay {record_path}\n")
    out.flush()
    return 1 if you.agent.input_ended else 0


def meduris_human(inp: TextIO, out: TextIO, seat: int, labels: list[str], *,
                  exchange: str = "auto", open_screens: bool = False) -> HumanSeat:
    """The person's seat at a Meduris game (the games table's ``human`` part): every move
    printed as it is made, the screens lifted at the end."""
    return HumanSeat(HumanAgent(inp, out, open_screens=open_screens),
                     meduris_observer(out, seat, labels), f"you are seat {seat}",
                     {"exchange": exchange, "open_screens": open_screens},
                     lambda end: "The screens are lifted:\n" + render_text(end))


def meduris_observer(out: TextIO, seat: int, labels: list[str]):
    """Meduris's observer: each move and its events as they are made (Meduris hides nothing
    in a move: the materials behind the screens are shown as totals by the board)."""
    def observer(state, who: int, action: int) -> None:
        name = "chance" if who < 0 else ("you" if who == seat else f"seat {who} ({labels[who]})")
        out.write(f"{name}: {state.action_to_string(action)}\n")
        for e in state.last_events():
            out.write(f"    {e.describe()}\n")
    return observer


def write_outcome(result: GameResult, labels: list[str], unit: str, out: TextIO) -> None:
    """The game's end in one or two lines: abandoned with the standings, or over (a forfeit
    named) with the scores and the winners."""
    scores = ", ".join(f"seat {s} {v} {unit}" for s, v in enumerate(result.vp))
    if result.end_reason == "abandoned":
        out.write(f"game abandoned at turn {result.turns}; standings: {scores}\n")
        return
    won = " and ".join(f"seat {s} ({labels[s]})" for s in result.winners)
    if result.forfeit:
        out.write(f"seat {result.forfeit_seat} ({labels[result.forfeit_seat]}) forfeits: "
                  f"{result.forfeit}\n")
    out.write(f"game over ({result.end_reason}) after turn {result.turns}: {scores}; "
              f"won by {won}\n")
