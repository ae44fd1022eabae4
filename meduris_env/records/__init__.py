"""Meduris in game records: its codec (:mod:`.codec`), and viewing a record (:mod:`.replay`:
the terminal, and the HTML page that draws Meduris's board). The records themselves are every
game's (:mod:`meduris_rl.kit.records`); their classes and the atomic file writers are
re-exported here, where Meduris's users found them first."""

from meduris_rl.kit.atomic import atomic_replace, atomic_write, unwritable_reason
from meduris_rl.kit.records import GameRecord, RecordError

__all__ = ["GameRecord", "RecordError", "atomic_replace", "atomic_write", "unwritable_reason"]
