"""A person plays against agents in the terminal (``meduris play``, whose flags and their checks
are :mod:`meduris_rl.cli.commands.play`); the game record is saved at the end (also when the
player quits), ready for ``meduris replay``.

Any game of the table of games (:mod:`meduris_rl.kit.games`): its row's ``human`` part is the
person's seat (what they see, how they name actions). In Meduris the moves are printed as they
are made and the opponents' materials are behind their screens until the end (the seat's option
``open_screens`` lifts them). In Druids the person sees only what their seat knows (D14,
:mod:`meduris_rl.agents.druids.human`); the game's end shows the final position as the seat
knows it (the saved record, like every record, holds every card).

The seed (``--seed``; drawn, 63 random bits, when none is given) is the run's, as a
tournament's: the game's chance seed is ``derive_seed(seed, 0)`` (the record's ``seed``; the
run's is its ``meta["run_seed"]``) and the bots are reset with
:func:`~meduris_rl.kit.seeding.agent_seeds` ``(seed, 0, n)``: a ``cmd:`` bot cannot work back from
its seed to the dice or the person's hidden cards (it was told the game's own seed's
derivatives before, issue 46). The same seed and input give the same game.
"""

from __future__ import annotations

from pathlib import Path
from typing import TextIO

from meduris_rl.agents.arena.match import GameResult, play_game
from meduris_rl.agents.base import Agent
from meduris_rl.agents.human import HumanSeat
from meduris_rl.kit.games import GameSpec, game_spec
from meduris_rl.kit.records import GameRecord
from meduris_rl.kit.seeding import agent_seeds, derive_seed


def play_human(players: int, bots: list[Agent], seat: int, seed: int, record_path: Path,
               inp: TextIO, out: TextIO, game: str | GameSpec | None = None,
               options: dict | None = None) -> int:
    """Play one game of ``game`` (None: the default game) with ``options`` (the game's and the
    person's seat's, by name: its row's), the person at ``seat`` and ``bots`` (in seat order)
    at the others; save its record to ``record_path`` (also when the player quits) and return
    the exit status (0: the game was played or the player quit, 1: the input ended mid-game).
    The caller has checked the seat, the path and the options (the command line words those
    checks with its flags, :mod:`meduris_rl.cli.commands.play`)."""
    names = [bot.name for bot in bots]
    labels = names[:seat] + ["human"] + names[seat:]
    spec = game_spec(game)
    options = spec.check_options(options, seat=None)
    seat_names = {o.name for o in spec.options if o.seat}
    game_options = {k: v for k, v in options.items() if k not in seat_names}
    settings = {**spec.settings(game_options), **spec.settings(options, seat=True)}
    you: HumanSeat = spec.part("human")(inp, out, seat, labels, settings)
    # ``seed`` is the run's: the game's chance and the bots' seeds both come from it, one-way
    # (a bot cannot work back from its own to the dice or the person's hidden cards unless it
    # can guess the run's seed: drawn, 63 bits, when none is given)
    meta = {"command": "play", "human_seat": seat, "players": players, "opponents": names,
            "run_seed": seed, **you.meta}
    out.write(f"{spec.title}, {players} players, seed {seed}: {you.words}; "
              + ", ".join(f"seat {s}: {lab}" for s, lab in enumerate(labels)) + "\n")
    result = play_game(spec.make(players, game_options),
                       bots[:seat] + [you.agent] + bots[seat:],
                       derive_seed(seed, 0), labels, keep_record=True, observer=you.observer,
                       meta=meta, seeds=agent_seeds(seed, 0, players))
    record = GameRecord.from_dict(result.record)
    record.save(record_path)
    out.write("\n" + you.final(record.replay()) + "\n")
    write_outcome(result, labels, spec.score_unit, out)
    out.write(f"record saved to {record_path}; watch it with: meduris replay {record_path}\n")
    out.flush()
    return 1 if you.agent.input_ended else 0


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
