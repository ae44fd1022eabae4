"""Search distillation (one round of expert iteration): the policy learns the choices of the
search it guides.

The ``az`` search, guided by a policy file's network and value network, plays far better than
the network alone (the shipped 2-player model: ``az:200`` wins about 72 % against ``mcts:400``,
the policy alone 37.6 %, docs/training.md). Expert iteration fits the policy to the search:

1. **Teacher games** (:func:`collect`): the teacher (by default ``az:200`` with the policy being
   distilled) plays itself, one process per core, through the same game loop and recorder as the
   warm start (:func:`meduris_rl.train.meduris.warm_start.teacher_game`); every decision keeps the
   network inputs, the legal mask, the search's move, its visit shares at the root and the mover's
   result. Game ``k`` is seeded by ``derive_seed(seed, STREAM_DISTILL, k)``. With ``--data FILE``
   the games are saved as they come (every 50 games, through a temporary file; inputs and shares as
   float16), and a later run with the same file and the same teacher, players and seed
   continues from them (or refits on them without playing).
2. **Fit** (:func:`fit`): starting from the policy's own weights, Adam, ``epochs`` passes of
   cross-entropy over the legal actions to the search's move (``targets="choice"``) or to its
   visit shares (``"visits"``, AlphaZero's target), and the critic to the results. The last
   ``holdout`` of the games is held out and measures it: cross-entropy to the shares and how
   often the policy's first choice is the search's, before and after.
3. The result is a policy file (weights only) carrying the input's value network, so ``az`` can
   use it as before.

With ``targets="value"`` (:func:`fit_value`) the other half is fitted instead: the policy stays
as it is, and the file's value network goes on learning from the teacher games' results (the
value half of AlphaZero's loop: the search's own positions, whose outcomes the network fitted to
the policy's sampled games predicts worse; docs/training.md). The teacher may be ``az-fast``
(the same search, faster).

Why ``choice`` by default: the search's visits are spread (over 300 games of ``az:200``, the
most visited move has a median share of 35 %), so a policy fitted to them is as unsure, and its
most probable move, which is what the ``ppo`` agent plays, becomes a coin toss among near-equals:
16 % against ``mcts:400`` where the policy had 37 % (docs/training.md). AlphaZero can use the
shares because its policy only ever plays under a search.

    meduris distill agents/models/ppo_2p.pt --games 300 --data runs/distill_2p.npz \\
        --out runs/ppo_2p_distilled.pt

(:mod:`meduris_rl.cli.meduris.distill`; ``python -m meduris_rl.train.meduris.distill`` is the same
command.)
"""

from __future__ import annotations

import json
import sys
import time
import zipfile
from pathlib import Path

import numpy as np

from meduris_rl.kit.errors import InputError
from meduris_rl.kit.seeding import STREAM_DISTILL, STREAM_DISTILL_FIT, derive_seed

SAVE_EVERY = 50  # teacher games between two saves of --data
FIELDS = ("inputs", "masks", "actions", "results", "targets")


class DistillError(InputError, ValueError):
    """Bad settings or files (the message says which and why)."""


#: the searches that learn from their own policy: given no policy file, the teacher searches with
#: the policy being distilled (their root visits are the targets, meduris_rl.agents.meduris.az)
GUIDED_TEACHERS = ("az", "az-fast")


def teacher_name(teacher: str, policy_path) -> str:
    """The teacher agent's name: ``az[:<budget>]`` (or ``az-fast[:<budget>]``) without a
    network of its own searches with the policy being distilled (the budget, when not given,
    is its kind's default in the agent table); UnknownAgentError for a name no agent has."""
    from meduris_rl.agents.registry import AgentSpec

    spec = AgentSpec.parse(teacher)
    budget = spec.text.partition(":")[2]  # (as written: "200", "0.5s"; "" when not given)
    if spec.kind not in GUIDED_TEACHERS or ":" in budget:  # (another kind, or a file given)
        return teacher
    return f"{spec.kind}:{budget or spec.row.budget.default}:{policy_path}"


def teacher_label(teacher: str) -> str:
    """The teacher's name without the policy file of a search (``az:200`` for
    ``az:200:/path/policy.pt``), for a report."""
    from meduris_rl.agents.registry import AgentSpec

    spec = AgentSpec.parse(teacher)
    if spec.row.source == "built-in" and spec.row.budget and spec.row.file and spec.parameter:
        return spec.text[:-len(spec.parameter) - 1]  # (<kind>:<budget>:<file> as written)
    return spec.text


def _load_data(path: Path, settings: dict):
    """(data, games) saved in ``path`` by an earlier run with the same ``settings``."""
    try:
        with np.load(path, allow_pickle=False) as f:
            saved = json.loads(str(f["settings"]))
            data = tuple(f[name] for name in FIELDS)
            games = int(f["games"])
    except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile, RecursionError) as err:
        raise DistillError(f"--data {path} is not a distillation data file "
                           f"({str(err)[:120]})") from None
    if saved != settings:
        raise DistillError(f"--data {path} holds games of other settings ({str(saved)[:120]}); "
                           "use another file name")
    return data, games


def _save_data(path: Path, data, games: int, settings: dict) -> None:
    from meduris_rl.kit.atomic import atomic_replace

    def write(tmp):
        with open(tmp, "wb") as f:
            np.savez(f, settings=json.dumps(settings), games=games,
                     **dict(zip(FIELDS, data, strict=True)))
    atomic_replace(path, write)


def collect(teacher: str, players: int, feature_set: str, games: int, seed: int = 0,
            workers: int = 2, data_path: Path | None = None, progress: bool = True):
    """The teacher games' decisions, (inputs, masks, actions, results, visit shares), and the
    number of games they come from (more than ``games`` when ``data_path`` held more)."""
    from meduris_rl.train.meduris.warm_start import teacher_games

    settings = {"teacher": teacher, "players": players, "features": feature_set, "seed": seed}
    parts, done = [], 0  # inputs in [-1, 1] and shares kept as float16: a quarter of the memory
    if data_path is not None and data_path.exists():
        data, done = _load_data(data_path, settings)
        parts.append(data)

    def joined():
        return tuple(np.concatenate([p[i] for p in parts]) for i in range(len(FIELDS)))

    seeds = [derive_seed(seed, STREAM_DISTILL, k) for k in range(done, games)]
    for part in teacher_games(teacher, players, feature_set, seeds, workers, progress,
                              done=min(done, games)):
        parts.append((part[0].astype(np.float16), *part[1:4], part[4].astype(np.float16)))
        done += 1
        if data_path is not None and (done % SAVE_EVERY == 0 or done == games):
            _save_data(data_path, joined(), done, settings)
    return joined(), done


def _measure(policy, data) -> dict:
    """Cross-entropy to the visit shares and agreement with the search's move."""
    import torch

    from meduris_rl.train.meduris.warm_start import masked_log_probs

    x, masks, actions, _, targets = data
    ce, agree = 0.0, 0
    with torch.no_grad():
        for start in range(0, len(x), 4096):
            sl = slice(start, start + 4096)
            log_p = masked_log_probs(policy, torch.as_tensor(x[sl], dtype=torch.float32),
                                     masks[sl])
            ce += float(-(torch.as_tensor(targets[sl], dtype=torch.float32) * log_p).sum())
            agree += int((log_p.argmax(1).numpy() == actions[sl]).sum())
    return {"cross_entropy": ce / len(x), "agreement": agree / len(x)}


POLICY_TARGETS = ("choice", "visits")  # what :func:`fit` fits the policy to
TARGETS = POLICY_TARGETS + ("value",)  # "value": :func:`fit_value`, the value network


def _check_targets(targets: str, allowed: tuple[str, ...]) -> None:
    if targets not in allowed:
        raise DistillError(f"targets {targets!r}: one of {allowed}")


def _first_held_out(n: int, holdout: float) -> int:
    """The first of the last ``holdout`` of ``n`` decisions (the last games), which measure a
    fit (at least one of them when ``holdout`` > 0)."""
    return n - max(1, int(n * holdout)) if holdout > 0 else n


def fit(policy, data, epochs: int = 2, lr: float = 1e-4, holdout: float = 0.05, seed: int = 0,
        progress: bool = True, targets: str = "choice") -> dict:
    """Fit ``policy`` (in place) to the teacher data, to the search's choice or (``targets=
    "visits"``) to its visit shares; a report of the held-out measures."""
    _check_targets(targets, POLICY_TARGETS)
    import torch

    from meduris_rl.train.meduris.warm_start import fit_to_teacher

    n = len(data[0])
    cut = _first_held_out(n, holdout)
    train = tuple(a[:cut] for a in data)
    held = tuple(a[cut:] for a in data)
    fit_seed = derive_seed(seed, STREAM_DISTILL_FIT, 0)
    torch.manual_seed(fit_seed % 2**63)
    policy.set_training_mode(False)
    report = {"decisions": n, "held_out": n - cut}
    if n - cut:
        report["before"] = _measure(policy, held)
    policy.set_training_mode(True)
    opt = torch.optim.Adam(policy.parameters(), lr=lr)
    t = time.perf_counter()
    report["losses"] = fit_to_teacher(policy, opt, train, epochs, fit_seed, progress=progress,
                                      soft=targets == "visits")
    report["fit_seconds"] = time.perf_counter() - t
    policy.set_training_mode(False)
    if n - cut:
        report["after"] = _measure(policy, held)
    return report


def fit_value(value_network, data, epochs: int = 2, lr: float = 3e-4, holdout: float = 0.05,
              seed: int = 0, progress: bool = True):
    """(the value network fitted to the teacher games' results, a report): the policy file's
    own network goes on learning (a fresh one of :data:`meduris_rl.train.meduris.value.HIDDEN` when
    it has none), the last ``holdout`` of the decisions (the last games) measuring it before and
    after (``before``/``after``: squared error and correlation to the results)."""
    from meduris_rl.train.meduris.value import HIDDEN, fit_value_network

    x, _, _, results, _ = data
    n = len(results)
    cut = _first_held_out(n, holdout)
    t = time.perf_counter()
    net, fitted = fit_value_network(x, results, list(HIDDEN), epochs, seed, lr, progress,
                                    start=value_network, held_out=np.arange(cut, n))
    report = {"decisions": n, "held_out": n - cut, "fit_seconds": time.perf_counter() - t,
              "value": True}
    if n > cut:
        report["after"] = {"mse": fitted["validation_mse"], "correlation": fitted["correlation"]}
        if "before_mse" in fitted:
            report["before"] = {"mse": fitted["before_mse"],
                                "correlation": fitted["before_correlation"]}
    return net, report


def distill(policy_file: str | Path, out: str | Path, teacher: str = "az:200",
            players: int = 2, games: int = 1200, data_path: Path | None = None,
            targets: str = "choice", epochs: int = 2, lr: float = 1e-4, holdout: float = 0.05,
            workers: int = 2, seed: int = 0, progress: bool = True) -> dict:
    """The whole recipe of the module docstring: the teacher games (:func:`collect`), the fit
    (:func:`fit`), and ``out`` written (the policy file ``policy_file`` distilled, with its value
    network). Returns the fit's report with ``teacher`` (its full name), ``games`` and
    ``play_seconds``. An unknown teacher is refused before any game (UnknownAgentError), and so
    is a policy file trained for another player count than ``players`` (PolicyFileError, from
    :func:`meduris_rl.agents.policies.network.check_players`); bad files raise PolicyFileError,
    DistillError or OSError."""
    from meduris_rl.agents import make_agent
    from meduris_rl.agents.meduris.features import feature_set_of_size
    from meduris_rl.agents.policies.network import (
        check_players,
        load_policy_file,
        load_value_network,
        save_policy,
    )

    _check_targets(targets, TARGETS)
    policy, arch = load_policy_file(policy_file)
    check_players(arch, policy_file, players)  # never relabel a 4-player network as 2-player
    value_network = load_value_network(policy_file)
    teacher = teacher_name(teacher, Path(policy_file).resolve())
    make_agent(teacher)  # an unknown teacher is refused here, before any game
    feature_set = feature_set_of_size(arch["inputs"])
    t = time.perf_counter()
    data, played = collect(teacher, players, feature_set, games, seed, workers, data_path,
                           progress)
    seconds = time.perf_counter() - t
    if targets == "value":
        value_network, report = fit_value(value_network, data, epochs, lr, holdout, seed,
                                          progress)
    else:
        report = fit(policy, data, epochs, lr, holdout, seed, progress, targets)
    save_policy(policy, {**arch, "players": players}, out, value_network=value_network)
    return {**report, "teacher": teacher, "games": played, "play_seconds": seconds}


if __name__ == "__main__":  # the same as `meduris distill` (the CLI layer, above this one)
    from meduris_rl.cli.main import main
    sys.exit(main(["distill", *sys.argv[1:]]))
