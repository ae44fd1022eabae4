"""Policy files of any game: where the shipped networks are (:data:`MODELS`, ``agents/models/``)
and loading a weights-only policy file with its architecture, checked to be of the game asked
for (:mod:`meduris_rl.agents.policies.network`). A game's PPO agent plays them (Meduris's
:mod:`meduris_rl.agents.meduris.ppo`, Druids' :mod:`meduris_rl.agents.druids.ppo`)."""

from __future__ import annotations

from pathlib import Path

from meduris_rl.agents.base import UnknownAgentError

MODELS = Path(__file__).resolve().parent.parent / "models"


def load_policy(path: Path, name: str = "ppo"):
    """The policy network in ``path`` (see :func:`load_policy_and_architecture`)."""
    return load_policy_and_architecture(path, name)[0]


def load_policy_and_architecture(path: Path, name: str = "ppo", game: str | None = None):
    """(policy network, architecture) in ``path``, a weights-only policy file (``out/policy.pt`` of
    ``meduris train``, what ships; :mod:`meduris_rl.agents.policies.network`). Raises
    UnknownAgentError saying what to do when the file is missing, not a policy file, or a policy of
    another game than ``game`` (:func:`meduris_rl.agents.policies.network.check_game`). Full
    training checkpoints (``.zip``) are pickles that can run code when loaded: the agent refuses
    them; only ``--resume`` of one's own run loads them."""
    if path.suffix == ".zip":
        raise UnknownAgentError(f"agent {name!r}: {path} is a full training checkpoint (a pickle, "
                                "which can run code when loaded); agents load policy files: "
                                "use the run's policy.pt")
    if not path.is_file():
        raise UnknownAgentError(f"agent {name!r}: no trained model at {path}; train one with "
                                "`meduris train` or pass ppo:<path to a policy.pt>")
    try:
        from meduris_rl.agents.policies.network import PolicyFileError, check_game, load_policy_file
    except ImportError:
        raise UnknownAgentError(f"agent {name!r} needs sb3-contrib: pip install -e .[train]") \
            from None
    try:
        policy, arch = load_policy_file(path)
        check_game(arch, path, game)
        return policy, arch
    except PolicyFileError as err:
        raise UnknownAgentError(f"agent {name!r}: {err}") from None


