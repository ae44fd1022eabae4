"""Render modes shared by the environments: ``"human"`` (print), ``"ansi"`` (text),
``"rgb_array"`` (the board picture)."""

from __future__ import annotations

from meduris_rl.kit.values import ValueCheckError, excerpt

from ..engine.text import render_text

RENDER_MODES = ["human", "ansi", "rgb_array"]


def check_render_mode(render_mode: str | None) -> str | None:
    """``render_mode`` if it is one of :data:`RENDER_MODES` or None, else a one-line
    ValueCheckError (a InputError, also a ValueError)."""
    if render_mode is not None and (not isinstance(render_mode, str)
                                    or render_mode not in RENDER_MODES):
        raise ValueCheckError(f"render_mode must be one of {RENDER_MODES} or None, got "
                              f"{excerpt(render_mode)}")
    return render_mode


def render_state(state, render_mode: str | None):
    """What an environment's ``render()`` returns: text for ``"ansi"``, an RGB array for
    ``"rgb_array"``; ``"human"`` prints the text and returns None."""
    if render_mode is None:
        import gymnasium
        gymnasium.logger.warn("render() called without a render_mode; create the environment "
                              f"with render_mode= one of {RENDER_MODES}")
        return None
    if state is None:
        raise RuntimeError("call reset() before render()")
    if render_mode == "rgb_array":
        from .image import render_rgb
        return render_rgb(state)
    text = render_text(state)
    if render_mode == "ansi":
        return text
    print(text + "\n")
    return None
