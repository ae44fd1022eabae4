"""``import meduris_env.openspiel`` registers Meduris with OpenSpiel as ``python_meduris`` (the
implementation is :mod:`meduris_env.envs.openspiel`; it needs ``open_spiel``)."""

from .envs.openspiel import (  # noqa: F401  (importing registers the game)
    SHORT_NAME,
    MedurisObserver,
    MedurisOpenSpielGame,
    MedurisOpenSpielState,
)
