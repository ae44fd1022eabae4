"""Game records (JSON files that replay exactly), viewing them (terminal, HTML), and writing
files atomically (a temporary file, then a rename)."""

from .atomic import atomic_replace, atomic_write, unwritable_reason
from .record import GameRecord, RecordError

__all__ = ["GameRecord", "RecordError", "atomic_replace", "atomic_write", "unwritable_reason"]
