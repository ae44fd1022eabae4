"""The one strict checker of user-given scalars: bools, ints and floats.

Contract: every option, budget or seed a user can pass as a number or a flag goes through
:func:`check_bool`, :func:`check_int` or :func:`check_float` (an option naming one of a few
choices, such as ``exchange`` or ``reward``, through :func:`check_choice`), which return the
value as a plain Python ``bool``/``int``/``float`` (or the choice) or raise
:class:`ValueCheckError` with one line naming the parameter, what it must be and (a short
excerpt of) what it got. Nothing is coerced silently:

* a bool is ``True`` or ``False`` (``numpy.bool_`` too); ``'no'``, ``0``, ``1`` or ``None`` are
  refused (a string that reads as false would otherwise be taken as true);
* an int is a Python or numpy integer, never a bool, a float (``2048.7`` or ``2048.0``) or a
  string, within ``[low, high]`` whatever its size (``10**30`` is refused cleanly, never an
  ``OverflowError``);
* a float is any real number (ints and numpy numbers included, bools not) that is finite
  (``nan``, ``inf`` refused) and within ``[low, high]``.

:func:`parse_int` and :func:`parse_float` read the same values from text (agent names, the
command line): ASCII digits only, so ``'1e308'``, ``'nan'``, ``'inf'``, ``'²'`` or ``'1_000'``
are refused or bounded the same way.

:class:`ValueCheckError` is a :class:`~meduris_env.engine.errors.InputError` and also a
``ValueError`` and a ``TypeError``, so callers that caught either before keep working. It lives
in the engine layer (it imports only numpy) so every layer above uses the same checks.
"""

from __future__ import annotations

import math
import re

import numpy as np

from meduris_rl.kit.errors import InputError

__all__ = ["ValueCheckError", "check_bool", "check_int", "check_float", "check_choice",
           "parse_int", "parse_float", "excerpt", "unwrap_action", "SEED_MAX"]

#: the largest seed any interface takes: every environment, command, config and the web API accept
#: a seed 0..SEED_MAX (one range everywhere; the batch engine keeps seeds in int64)
SEED_MAX = 2**63 - 1

_EXCERPT = 40  # characters of a bad value shown in a message
_INT_TEXT = re.compile(r"[0-9]{1,30}\Z")
_FLOAT_TEXT = re.compile(r"(?:[0-9]{1,30}(?:\.[0-9]{0,30})?|\.[0-9]{1,30})\Z")


class ValueCheckError(InputError, ValueError, TypeError):
    """A number or flag of the wrong type or out of its bounds (one line: name, rule, value)."""


def excerpt(value: object, limit: int = _EXCERPT) -> str:
    """``repr(value)`` cut to ``limit`` characters (a message never echoes a huge value)."""
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 64:
        return f"an integer of {len(str(abs(value)))} digits" if value.bit_length() < 4000 \
            else "an integer of thousands of digits"
    text = repr(value)
    return text if len(text) <= limit else text[:limit - 3] + "..."


def printable(text: str, limit: int | None = None) -> str:
    """``text`` safe to print in one line of a terminal or a table: every character that is not
    printable (control characters and terminal escape codes, line breaks, lone surrogates of
    undecodable bytes) written as its Python escape (``\\x1b``), then cut to ``limit``
    characters, the cut marked with ``...``."""
    if not text.isprintable():
        text = "".join(c if c.isprintable() else c.encode("unicode_escape").decode("ascii")
                       for c in text)
    if limit is not None and len(text) > limit:
        return text[:max(0, limit - 3)] + "..."
    return text


def _bound(x) -> str:
    """``x`` as written in a message: big powers of two as ``2**63 - 1``."""
    if isinstance(x, float):
        return f"{x:g}"
    for k in (31, 32, 63, 64):
        for value, text in ((2**k - 1, f"2**{k} - 1"), (-(2**k), f"-2**{k}")):
            if x == value:
                return text
    return str(x)


def _span(low, high) -> str:
    if low is not None and high is not None:
        return f"{_bound(low)}..{_bound(high)}"
    if low is not None:
        return f">= {_bound(low)}"
    return f"<= {_bound(high)}" if high is not None else ""


def check_bool(name: str, value: object) -> bool:
    """``value`` if it is ``True`` or ``False`` (or a numpy bool), else a ValueCheckError."""
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    raise ValueCheckError(f"{name} must be True or False, got {excerpt(value)}")


def _rule(noun: str, low, high) -> str:
    """What a value must be, in words: ``an int 0..100``, ``an int >= 1``; without bounds the
    noun alone (an unbounded int: ``a whole number``)."""
    span = _span(low, high)
    if not span:
        return "a whole number" if noun == "an int" else noun
    return f"{noun} {span}"


def check_int(name: str, value: object, low: int | None = None, high: int | None = None
              ) -> int:
    """``value`` as an int if it is a Python or numpy integer (not a bool) in ``[low, high]``
    (``None``: unbounded on that side), else a ValueCheckError."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise ValueCheckError(f"{name} must be {_rule('an int', low, high)}, got "
                              f"{excerpt(value)} ({type(value).__name__})")
    number = int(value)
    if (low is not None and number < low) or (high is not None and number > high):
        raise ValueCheckError(f"{name} must be {_rule('an int', low, high)}, got "
                              f"{excerpt(number)}")
    return number


def check_float(name: str, value: object, low: float | None = None,
                high: float | None = None) -> float:
    """``value`` as a float if it is a finite real number (ints and numpy numbers included,
    bools not) in ``[low, high]``, else a ValueCheckError."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(
            value, (int, float, np.integer, np.floating)):
        raise ValueCheckError(f"{name} must be {_rule('a finite number', low, high)}, got "
                              f"{excerpt(value)} ({type(value).__name__})")
    try:
        number = float(value)
    except OverflowError:
        number = math.inf
    if not math.isfinite(number) or (low is not None and number < low) or (
            high is not None and number > high):
        raise ValueCheckError(f"{name} must be {_rule('a finite number', low, high)}, got "
                              f"{excerpt(value)}")
    return number


def check_choice(name: str, value: object, choices: tuple[str, ...], note: str = "") -> str:
    """``value`` if it is one of the strings ``choices``, else a ValueCheckError: ``{name} must
    be 'a' or 'b'{note}, got ...`` (three or more: ``must be one of 'a', 'b', 'c'``)."""
    if isinstance(value, str) and value in choices:
        return value
    quoted = [repr(c) for c in choices]
    rule = " or ".join(quoted) if len(quoted) == 2 else "one of " + ", ".join(quoted)
    raise ValueCheckError(f"{name} must be {rule}{note}, got {excerpt(value)}")


def parse_int(name: str, text: str, low: int | None = None, high: int | None = None) -> int:
    """The int written as ASCII digits in ``text``, checked as :func:`check_int` does."""
    if not isinstance(text, str) or not _INT_TEXT.match(text):
        raise ValueCheckError(f"{name} must be {_rule('a whole number', low, high)} "
                              f"written in digits, got {excerpt(text)}")
    return check_int(name, int(text), low, high)


def parse_float(name: str, text: str, low: float | None = None,
                high: float | None = None) -> float:
    """The number written as ASCII digits with an optional decimal point in ``text`` (no
    exponent, ``nan`` or ``inf``), checked as :func:`check_float` does."""
    if not isinstance(text, str) or not _FLOAT_TEXT.match(text):
        raise ValueCheckError(f"{name} must be {_rule('a number', low, high)} written in "
                              f"digits (e.g. 0.5), got {excerpt(text)}")
    return check_float(name, float(text), low, high)


def unwrap_action(action: object) -> object:
    """A 0-d numpy integer array (what Stable-Baselines3's ``model.predict`` returns for one
    observation, and what gymnasium's ``Discrete.contains`` accepts) as its numpy integer;
    anything else unchanged, for the game's own check (floats, bools, 1-d arrays refused)."""
    if isinstance(action, np.ndarray) and action.ndim == 0 \
            and np.issubdtype(action.dtype, np.integer):
        return action[()]
    return action
