"""Loading JSON a user gave us (state files, game records, checkpoints' settings): the one
bounded reader.

Contract: :func:`parse_json` turns text into Python values or raises the caller's error class
(a :class:`~meduris_env.engine.errors.InputError` subclass such as ``RecordError`` or
``StateFileError``) with one line starting ``"{what}: "``, never a ``RecursionError``,
``OverflowError`` or a message echoing the file. The bounds, checked before (or while) parsing:

* size: at most ``max_bytes`` (default :data:`MAX_BYTES`) characters;
* nesting: at most ``max_depth`` (default :data:`MAX_DEPTH`) levels of ``[``/``{``, found by a
  scan of the text before the parser recurses;
* integers: within 64 bits (signed), refused while parsing (so ``10**100`` never reaches code
  that converts it to a fixed-width integer); ``NaN``/``Infinity`` are refused too;
* keys: no key twice in one object (``{"version": 1, "version": 2}``: which one counts would be
  the parser's choice), refused naming the key.

:func:`read_bounded` is the one reader of a file a user names (records, state and board files,
training configs, checkpoints' settings): it refuses anything that is not a regular file (a
folder, a device such as ``/dev/zero``, a FIFO, a socket) from ``os.stat`` *before* opening it
(opening a FIFO blocks), opens it without blocking, checks again on the open descriptor, and reads
at most ``max_bytes + 1`` bytes (a file's reported size is only a hint: it may grow, or be 0 for a
device), so a read never hangs and never takes more memory than the bound.
:func:`read_json_file` reads a file so, then parses as above.
:func:`clip` shortens text for a message (at most :data:`EXCERPT` characters; values:
:func:`meduris_rl.kit.values.excerpt`).
"""

from __future__ import annotations

import json
import os
import re
import stat
from pathlib import Path
from typing import Any

from meduris_rl.kit.values import excerpt

MAX_BYTES = 64 * 1024 * 1024  # a long game's record is well under 1 MB
MAX_DEPTH = 64  # the deepest the project writes is 5 (a state's 3-d arrays inside objects)
EXCERPT = 60
INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1

_STRING = re.compile(r'"(?:[^"\\]|\\.)*"', re.DOTALL)
_BRACKET = re.compile(r"[\[\]{}]")


def clip(text: str, limit: int = EXCERPT) -> str:
    """``text`` cut to ``limit`` characters (ending ``...`` when cut), its first line only."""
    text = text.splitlines()[0] if text else ""
    return text if len(text) <= limit else text[:limit - 3] + "..."


def nesting_depth(text: str) -> int:
    """The deepest ``[``/``{`` nesting of JSON ``text`` (strings skipped), without recursion."""
    depth = deepest = 0
    for m in _BRACKET.finditer(_STRING.sub('""', text)):
        if m.group() in "[{":
            depth += 1
            deepest = max(deepest, depth)
        else:
            depth -= 1
    return deepest


def parse_json(text: str | bytes, error: type[Exception], what: str,
               max_bytes: int = MAX_BYTES, max_depth: int = MAX_DEPTH) -> Any:
    """The value of JSON ``text``, within the module's bounds, else ``error("{what}: ...")``."""
    if isinstance(text, (bytes, bytearray)):
        if len(text) > max_bytes:
            raise error(f"{what}: {len(text):,} bytes, more than the {max_bytes:,} allowed")
        try:
            text = bytes(text).decode("utf-8")
        except UnicodeDecodeError:
            raise error(f"{what}: not JSON (not UTF-8 text)") from None
    if not isinstance(text, str):
        raise error(f"{what}: not JSON (a {type(text).__name__}, not text)")
    if len(text) > max_bytes:
        raise error(f"{what}: {len(text):,} characters, more than the {max_bytes:,} allowed")
    depth = nesting_depth(text)
    if depth > max_depth:
        raise error(f"{what}: nested {depth} levels deep, more than the {max_depth} allowed "
                    "(not a file this project writes)")

    def bounded_int(digits: str) -> int:
        if len(digits.lstrip("-")) > 19 or not INT64_MIN <= int(digits) <= INT64_MAX:
            shown = digits if len(digits) <= 24 else f"{digits[:12]}... ({len(digits)} digits)"
            raise error(f"{what}: the integer {shown} is beyond 64 bits")
        return int(digits)

    def refuse_constant(name: str) -> None:
        raise error(f"{what}: {name} is not a number JSON allows")

    def unique_keys(pairs: list[tuple[str, Any]]) -> dict:
        doc = dict(pairs)
        if len(doc) != len(pairs):  # (the common case costs one comparison)
            seen: set[str] = set()
            for key, _ in pairs:
                if key in seen:
                    raise error(f"{what}: the key {excerpt(key)} is given twice in one object "
                                "(not a file this project writes); keep one")
                seen.add(key)
        return doc

    try:
        return json.loads(text, parse_int=bounded_int, parse_constant=refuse_constant,
                          object_pairs_hook=unique_keys)
    except RecursionError:  # a bound above the scan's, or a parser recursing deeper than it
        raise error(f"{what}: nested too deeply") from None
    except ValueError as exc:  # JSONDecodeError: its message names a line and column only
        if isinstance(exc, error):
            raise
        raise error(f"{what}: not JSON ({clip(str(exc), 120)})") from None


def _kind(mode: int) -> str:
    """What a file of ``st_mode`` ``mode`` is, in words (for a message)."""
    for test, words in ((stat.S_ISDIR, "a folder"), (stat.S_ISFIFO, "a FIFO (named pipe)"),
                        (stat.S_ISCHR, "a device"), (stat.S_ISBLK, "a device"),
                        (stat.S_ISSOCK, "a socket")):
        if test(mode):
            return words
    return "not a regular file"


def read_bounded(path: str | Path, error: type[Exception], noun: str = "file",
                 max_bytes: int = MAX_BYTES, hint: str = "") -> bytes:
    """The bytes of the regular file at ``path``, at most ``max_bytes`` of them, else one line
    of ``error`` naming the file as ``{noun} 'path'``: not a regular file (refused before it is
    opened, so a FIFO never blocks), too big (read no further than ``max_bytes + 1``; ``hint``
    ends that message), or unreadable."""
    shown = clip(str(path), 200)
    try:
        info = os.stat(path)
    except OSError as err:
        raise error(f"cannot read {noun} {shown!r}: {err.strerror or err}") from None
    except (ValueError, TypeError):  # a NUL byte in the name, or no file name at all
        raise error(f"{noun} {shown!r} is not a usable file name") from None
    if not stat.S_ISREG(info.st_mode):
        raise error(f"{noun} {shown!r} is {_kind(info.st_mode)}, not a regular file")
    if info.st_size > max_bytes:
        raise error(f"{noun} {shown!r} is {info.st_size:,} bytes, more than the "
                    f"{max_bytes:,} allowed{hint}")
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))  # swapped: no block
        with os.fdopen(fd, "rb") as fh:
            mode = os.fstat(fh.fileno()).st_mode
            data = fh.read(max_bytes + 1) if stat.S_ISREG(mode) else None
    except OSError as err:
        raise error(f"cannot read {noun} {shown!r}: {err.strerror or err}") from None
    if data is None:  # replaced by something else since the stat
        raise error(f"{noun} {shown!r} is {_kind(mode)}, not a regular file")
    if len(data) > max_bytes:
        raise error(f"{noun} {shown!r} has more than the {max_bytes:,} bytes allowed{hint}")
    return data


def read_json_file(path: str | Path, error: type[Exception], what: str,
                   max_bytes: int = MAX_BYTES, max_depth: int = MAX_DEPTH) -> Any:
    """:func:`parse_json` of the file at ``path``, read by :func:`read_bounded` (its messages
    start ``"{what}: "`` too)."""
    try:
        data = read_bounded(path, error, "file", max_bytes)
    except error as err:
        raise error(f"{what}: {err}") from None
    return parse_json(data, error, what, max_bytes, max_depth)
