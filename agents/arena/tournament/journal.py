"""A tournament's journal: every finished game written down as it ends, so that nothing played is
lost when the run is interrupted (Ctrl-C, SIGTERM, even SIGKILL) and the run can be completed
with nothing played twice (``meduris tournament --resume``).

The journal is one file of JSON lines in the run's folder, :data:`JOURNAL`: a first line with the
run's settings (``{"journal": 1, "config": {...}}``, the :class:`~.schedule.TournamentConfig` as a
dict, its seed included), then one line per finished game (``{"game": i, "result": {...}}``, a
:class:`~meduris_rl.agents.arena.match.GameResult` as a dict), appended and flushed as each game
ends. A last line cut short by a killed process is left out when the journal is read; anything
else that is not such a line is refused in one line (:class:`JournalError`). The run removes its
journal once its results are written.
"""

from __future__ import annotations

import json
from dataclasses import asdict, fields
from pathlib import Path

from meduris_rl.agents.arena.match import GameResult
from meduris_rl.agents.arena.tournament.schedule import TournamentConfig, TournamentError
from meduris_rl.kit.jsonfile import parse_json

JOURNAL = "progress.jsonl"
VERSION = 1
RESULT_FIELDS = {f.name for f in fields(GameResult)}


class JournalError(TournamentError):
    """A journal that cannot be read back (the message names the file and the line)."""


class Journal:
    """The journal of a run in ``folder`` (see the module docstring)."""

    def __init__(self, folder: Path):
        self.path = Path(folder) / JOURNAL
        self.file = None

    def start(self, cfg: TournamentConfig) -> Journal:
        """A new journal (an old one in the folder is replaced) holding ``cfg``."""
        self.file = open(self.path, "w", encoding="utf-8")  # noqa: SIM115 (closed by close)
        self.write({"journal": VERSION, "config": asdict(cfg)})
        return self

    def reopen(self) -> Journal:
        """Append to the journal read by :meth:`read` (a resumed run)."""
        self.file = open(self.path, "a", encoding="utf-8")  # noqa: SIM115
        return self

    def write(self, entry: dict) -> None:
        self.file.write(json.dumps(entry, separators=(",", ":")) + "\n")
        self.file.flush()  # (in the kernel's hands: a killed process loses nothing)

    def add(self, index: int, result: GameResult) -> None:
        self.write({"game": index, "result": asdict(result)})

    def close(self) -> None:
        if self.file is not None:
            self.file.close()
            self.file = None

    def remove(self) -> None:
        self.close()
        self.path.unlink(missing_ok=True)

    def exists(self) -> bool:
        return self.path.is_file()

    def read(self) -> tuple[TournamentConfig, dict[int, GameResult]]:
        """The run's settings and its finished games by number."""
        try:
            lines = self.path.read_text(encoding="utf-8").split("\n")
        except (OSError, UnicodeDecodeError) as err:
            raise JournalError(f"cannot read {self.path} ({err})") from None
        complete = lines[:-1]  # (the text after the last newline: a line cut short, or "")
        if not complete:
            raise JournalError(f"{self.path} is empty: the run it was made by wrote nothing; "
                               "start it again (with --force)")
        cfg = self.config(complete[0])
        done: dict[int, GameResult] = {}
        for number, line in enumerate(complete[1:], start=2):
            index, result = self.game(line, number, cfg.games)
            done[index] = result
        return cfg, done

    def entry(self, line: str, number: int) -> dict:
        entry = parse_json(line, JournalError, f"{self.path} line {number}")
        if not isinstance(entry, dict):
            raise JournalError(f"{self.path} line {number} is not a JSON object")
        return entry

    def config(self, line: str) -> TournamentConfig:
        entry = self.entry(line, 1)
        settings = entry.get("config")
        if entry.get("journal") != VERSION or not isinstance(settings, dict):
            raise JournalError(f"{self.path} is not a tournament journal of this version")
        names = {f.name for f in fields(TournamentConfig) if f.init}
        try:
            cfg = TournamentConfig(**{k: v for k, v in settings.items() if k in names})
        except TypeError as err:
            raise JournalError(f"{self.path}: its settings are incomplete ({err})") from None
        return cfg

    def game(self, line: str, number: int, games: int) -> tuple[int, GameResult]:
        entry = self.entry(line, number)
        index, result = entry.get("game"), entry.get("result")
        if type(index) is not int or not 0 <= index < games or not isinstance(result, dict) \
                or set(result) != RESULT_FIELDS:
            raise JournalError(f"{self.path} line {number} is not a finished game of this run")
        return index, GameResult(**result)
