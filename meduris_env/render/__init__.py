"""Pictures and render modes: the board as an image (:mod:`.image`, Pillow), the environments'
render modes (:mod:`.modes`) and the HTML replay page's template (``templates/``). The board as
text is the engine's own (:func:`~meduris_env.engine.text.render_text`, ``str(state)``)."""

from importlib import resources

from .modes import RENDER_MODES, check_render_mode, render_state


def template(name: str) -> str:
    """The text of a template shipped in ``render/templates/`` (package data)."""
    return resources.files(__package__).joinpath("templates", name).read_text("utf-8")


__all__ = ["RENDER_MODES", "check_render_mode", "render_state", "template"]
