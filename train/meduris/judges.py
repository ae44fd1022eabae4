"""Judges for a search: value networks fitted to other games than a policy's own, and means.

:mod:`meduris_rl.train.meduris.value` fits a value network to the policy's own self-play games. A
search needs a judge of *its* positions (docs/training.md, "two value networks at the search bar"),
so :func:`add_value_network` takes its positions from one of three sources (``games_of``):

- **the policy's own games** (None): :func:`meduris_rl.train.meduris.value.collect_positions`,
actions sampled;
- **another policy's games** (a policy file with the same inputs): the same self-play with that
  policy. The shipped 2-player policy's own games mostly end early with nothing built (R22),
  unlike a search's; the az-train policy's games build to the end;
- **the search's games** (``"search"``, :func:`search_positions`):
:mod:`meduris_rl.train.meduris.az`'s Gumbel
  self-play with the policy file's networks, fixed, ``simulations`` a move; every position is
  kept, labelled ``(1 - search_share) * result + search_share * Q`` where Q is the search's
  value of the move it played (four thousand games are too few results to learn from alone).

and fits (:func:`meduris_rl.train.meduris.value.fit_value_network`; ``fine_tune`` goes on from the
file's own value network rather than a fresh one). :func:`mean_of_files` joins the value networks of
several files into one mean (:class:`meduris_rl.agents.policies.network.ValueMean`): networks fitted
to different games err differently. Everything is drawn from ``derive_seed(seed, STREAM_VALUE, k)``.

    meduris value agents/models/ppo_2p.pt --games-of search --fine-tune --out runs/b.pt

(:mod:`meduris_rl.cli.meduris.value`; ``make model-search-2p`` is the shipped 2-player search's
recipe.)
"""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np

from meduris_env.engine.compiled import compile_notice
from meduris_rl.kit.errors import InputError
from meduris_rl.kit.seeding import STREAM_VALUE, derive_seed
from meduris_rl.train.meduris.value import HIDDEN, collect_positions, fit_value_network
from meduris_rl.train.progress import bar

SEARCH_SIMULATIONS = 32  # per move of the search's games (as az-train's self-play)
SEARCH_SHARE = 0.5  # of a position's target that is the search's value, the rest the result


class PolicyInputsError(InputError, ValueError):
    """Files whose networks do not take the same inputs (the message names them)."""


def search_positions(policy_file, players: int, positions: int, search_share: float,
                     simulations: int = SEARCH_SIMULATIONS, games: int = 128, seed: int = 0,
                     progress: bool = False):
    """``positions`` (inputs float16 (k, n), targets float32 (k,)) of the Gumbel-search
    self-play of ``policy_file``'s networks, ``games`` at once (the module docstring's "the
    search's games"); returns them and the number of games played. ConfigError when the file
    cannot search."""
    from meduris_rl.train.meduris.az import AZConfig, SelfPlay, load_warm_start

    cfg = AZConfig(players=players, games=games, simulations=simulations,
                   warm_start=str(policy_file), buffer=positions + 512 * games, eval_games=0,
                   seed=derive_seed(seed, STREAM_VALUE, 4)).validate(warm_start=False)
    selfplay = SelfPlay.of_network(cfg, load_warm_start(cfg))
    played: list[list[float]] = [[] for _ in range(cfg.games)]  # Q of each game's moves
    search_values: list[float] = []  # of the positions in the buffer, in its order
    b = bar(positions, "value positions (search)", progress, notice=compile_notice)
    shown = 0
    while selfplay.buffer.size < positions:
        r = selfplay.step()
        rows = np.arange(len(r.actions))
        searched = r.visits[rows, r.actions] > 0
        q = np.where(searched, r.q[rows, r.actions], r.values)
        for g in range(cfg.games):
            played[g].append(float(q[g]))
        for g, _, _ in selfplay.just_finished:
            search_values += played[g]
            played[g] = []
        b.update(min(positions, selfplay.buffer.size) - shown)
        shown = min(positions, selfplay.buffer.size)
    b.close()
    buffer = selfplay.buffer
    assert buffer.added == buffer.size == len(search_values)  # (no row overwritten)
    q = np.asarray(search_values[:positions], dtype=np.float32)
    ys = (1 - search_share) * buffer.z[:positions] + search_share * q
    return buffer.x[:positions].copy(), ys.astype(np.float32), selfplay.games_finished


def add_value_network(policy_file: str | Path, out: str | Path, players: int,
                      positions: int = 800_000, hidden: list[int] | None = None,
                      epochs: int = 4, keep: float = 0.08, envs: int | None = None,
                      seed: int = 0, progress: bool = False, games_of: str | None = None,
                      simulations: int = SEARCH_SIMULATIONS,
                      search_share: float = SEARCH_SHARE,
                      fine_tune: bool = False, learning_rate: float = 1e-3) -> dict:
    """Self-play (``games_of``: None for the policy's own games, another policy file's, or
    ``"search"``; the module docstring; ``envs`` games at once, by default 512 of a policy's,
    128 of the search's), fit (from the file's value network with ``fine_tune``), and write
    ``out``: a copy of ``policy_file`` carrying the value network.
    Returns the fit's report with ``games`` and the phases' ``seconds``."""
    from meduris_rl.agents.policies.network import check_players, load_policy_file, save_policy

    policy, arch = load_policy_file(policy_file)
    check_players(arch, policy_file, players)
    start = _value_to_tune(policy_file) if fine_tune else None
    t0 = time.perf_counter()
    if games_of == "search":
        xs, ys, games = search_positions(policy_file, players, positions, search_share,
                                         simulations, envs or 128, seed, progress)
    else:
        player = policy
        if games_of is not None:
            player, other = load_policy_file(games_of)
            check_players(other, games_of, players)
            if other["inputs"] != arch["inputs"]:
                raise PolicyInputsError(f"{games_of}: {other['inputs']} inputs, the policy "
                                        f"{policy_file} {arch['inputs']}")
        xs, ys, games = collect_positions(player, players, positions, keep, envs or 512, seed,
                                          progress)
    t1 = time.perf_counter()
    net, report = fit_value_network(xs, ys, hidden or list(HIDDEN), epochs, seed,
                                    learning_rate, progress, start=start)
    # (the player count recorded, so that a game of another refuses the file in one line)
    save_policy(policy, {**arch, "players": players}, out, value_network=net)
    report.update(games=games, self_play_seconds=t1 - t0,
                  fit_seconds=time.perf_counter() - t1)
    return report


def _value_to_tune(policy_file):
    """The value network of ``policy_file``, to go on training (PolicyFileError if none)."""
    from meduris_rl.agents.policies.network import PolicyFileError, ValueMean, load_value_network

    net = load_value_network(policy_file)
    if net is None or isinstance(net, ValueMean):
        raise PolicyFileError(f"{policy_file} carries {'no' if net is None else 'a mean of'} "
                              "value network(s): fine-tuning needs one")
    net.train()
    return net


def mean_of_files(policy_file: str | Path, files: list[str], out: str | Path) -> dict:
    """Write ``out``: a copy of ``policy_file`` whose value network is the mean of the value
    networks ``files`` carry (:class:`meduris_rl.agents.policies.network.ValueMean`). Returns
    ``members``."""
    from meduris_rl.agents.policies.network import (
        PolicyFileError,
        ValueMean,
        check_players,
        load_policy_file,
        load_value_network,
        players_of,
        save_policy,
    )

    policy, arch = load_policy_file(policy_file)
    players = players_of(arch, policy_file)
    nets = []
    for f in files:
        if players is not None:
            check_players(load_policy_file(f)[1], f, players)
        net = load_value_network(f)
        if net is None:
            raise PolicyFileError(f"{f} carries no value network")
        if net.architecture["inputs"] != arch["inputs"]:
            raise PolicyInputsError(f"{f}: a value network of {net.architecture['inputs']} "
                                    f"inputs, the policy {policy_file} {arch['inputs']}")
        nets.append(net)
    try:
        mean = ValueMean(nets)
    except ValueError as err:
        raise PolicyInputsError(str(err)) from None
    save_policy(policy, arch if players is None else {**arch, "players": players}, out,
                value_network=mean)
    return {"members": len(mean.members)}
