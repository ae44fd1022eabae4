"""MaskablePPO self-play training (``meduris train``).

0. **Network** (``policy``): ``"residual"`` (:mod:`train.policy`) starts out playing like the
   greedy agent and learns corrections; ``"mlp"`` is sb3's plain MLP.
1. **Warm start** (optional, ``bc_teacher``): the teacher agent (default ``mcts:50``) plays
   ``bc_games`` games against itself; the network is fitted to its choices (cross-entropy over the
   legal actions) and its value head to the game results, for ``bc_epochs`` epochs.
2. **PPO** (sb3-contrib ``MaskablePPO``) on ``envs`` :class:`train.selfplay.SelfPlayEnv` processes:
   the learner's seat is drawn each episode and the other seats come from the opponent pool
   (random, greedy, and a snapshot of the learner saved every ``snapshot_every`` steps).
3. Every ``eval_every`` steps the policy (deterministic) plays ``eval_games`` games against greedy,
   seats alternating; the win rate goes to TensorBoard (``out/tb``) and ``out/eval.csv``.
4. Every ``checkpoint_every`` steps: ``out/checkpoint.zip`` and ``out/checkpoint.json`` (steps,
   snapshots, evaluation history, config), each written to a temporary file and renamed.
   ``--resume out/checkpoint.zip`` continues from there to ``steps``.
5. At the end ``out/model.zip`` (the whole model), ``out/policy.pt`` (the network alone, what the
   ``ppo`` agent ships and loads) and ``out/learning_curve.png``.
"""

from __future__ import annotations

import json
import multiprocessing as mp
import random
import time
from dataclasses import asdict
from pathlib import Path

import numpy as np

from meduris_env.atomic import atomic_replace

from .config import TrainConfig


class CheckpointError(ValueError):
    """A checkpoint that is missing or cannot be loaded."""


# --- files -----------------------------------------------------------------------------------
def save_model(model, path: Path) -> None:
    atomic_replace(path, lambda tmp: model.save(tmp))


def save_json(data: dict, path: Path) -> None:
    atomic_replace(path, lambda tmp: Path(tmp).write_text(json.dumps(data, indent=2) + "\n"))


def load_checkpoint(path: str | Path, env=None):
    """The model and the run state saved beside it; CheckpointError says what is wrong."""
    path = Path(path)
    meta_path = path.with_suffix(".json")
    if not path.is_file():
        raise CheckpointError(f"no checkpoint at {path}")
    try:
        meta = json.loads(meta_path.read_text())
    except FileNotFoundError:
        raise CheckpointError(f"checkpoint {path} has no {meta_path.name} beside it") from None
    except (OSError, json.JSONDecodeError) as err:
        raise CheckpointError(f"cannot read {meta_path}: {err}") from None
    from sb3_contrib import MaskablePPO
    try:
        model = MaskablePPO.load(str(path), env=env, device="cpu")
    except Exception as err:
        raise CheckpointError(f"cannot load {path} as a MaskablePPO checkpoint "
                              f"({type(err).__name__}: {err})") from None
    return model, meta


# --- behaviour cloning warm start ------------------------------------------------------------
def _teacher_game(task):
    """One teacher-vs-teacher game: (features, masks, actions, seat values) of every decision."""
    teacher_name, players, feature_set, seed = task
    import torch
    torch.set_num_threads(1)
    from agents import make_agent
    from agents.match import derive_seed
    from meduris_env import MedurisGame
    from meduris_env.chance import sample_chance
    from meduris_env.observation import observe_state
    from meduris_env.rewards import terminal_rewards

    from .features import default_high, features

    game = MedurisGame(players)
    high = default_high(game.max_turns)
    bots = [make_agent(teacher_name) for _ in range(players)]
    for s, b in enumerate(bots):
        b.reset(derive_seed(seed, s + 1))
    rng = random.Random(seed)
    state = game.new_initial_state()
    xs, masks, acts, seats = [], [], [], []
    while not state.is_terminal():
        if state.is_chance_node():
            state.apply_action(sample_chance(state, rng))
            continue
        seat = state.current_player()
        obs = observe_state(state, seat)
        action = bots[seat].act(obs, state)
        xs.append(features(obs["observation"], state, feature_set, high))
        masks.append(obs["action_mask"].astype(bool))
        acts.append(action)
        seats.append(seat)
        state.apply_action(action)
    result = terminal_rewards(state, "win") if not state.is_truncated() else np.zeros(players)
    return (np.array(xs, np.float32), np.array(masks), np.array(acts, np.int64),
            result[np.array(seats)].astype(np.float32))


def collect_teacher_data(cfg: TrainConfig, progress: bool = True):
    tasks = [(cfg.bc_teacher, cfg.players, cfg.features, cfg.seed * 100_003 + i)
             for i in range(cfg.bc_games)]
    parts = []
    bar = _bar(len(tasks), "teacher games", progress)
    with mp.get_context("spawn").Pool(cfg.envs) as pool:
        for part in pool.imap(_teacher_game, tasks):
            parts.append(part)
            bar.update(1)
    bar.close()
    return tuple(np.concatenate([p[i] for p in parts]) for i in range(4))


def behaviour_cloning(model, data, epochs: int, seed: int, batch_size: int = 256,
                      progress: bool = True) -> list[float]:
    """Fit the policy to the teacher's actions and the value head to the results."""
    import torch
    import torch.nn.functional as F

    x, masks, acts, values = data
    policy = model.policy
    opt = policy.optimizer
    rng = np.random.default_rng(seed)
    losses = []
    bar = _bar(epochs, "behaviour cloning", progress)
    for _ in range(epochs):
        order = rng.permutation(len(acts))
        total = 0.0
        for start in range(0, len(order), batch_size):
            idx = order[start:start + batch_size]
            obs = torch.as_tensor(x[idx])
            v, log_prob, _ = policy.evaluate_actions(obs, torch.as_tensor(acts[idx]),
                                                     action_masks=masks[idx])
            loss = -log_prob.mean() + 0.5 * F.mse_loss(v.flatten(), torch.as_tensor(values[idx]))
            opt.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(policy.parameters(), 0.5)
            opt.step()
            total += float(loss.detach()) * len(idx)
        losses.append(total / len(order))
        bar.update(1)
    bar.close()
    return losses


# --- evaluation ------------------------------------------------------------------------------
def evaluate_vs_greedy(model, players: int, games: int, seed: int) -> float:
    """Win rate (shared wins split) of the deterministic policy against greedy opponents."""
    from agents import make_agent
    from agents.match import derive_seed, play_game
    from agents.ppo import PPOAgent
    from meduris_env import MedurisGame

    game = MedurisGame(players)
    me = PPOAgent("ppo", model=model)
    wins = 0.0
    for i in range(games):
        seat = i % players
        seats = [make_agent("greedy") for _ in range(players)]
        seats[seat] = me
        r = play_game(game, seats, derive_seed(seed, i))
        if seat in r.winners:
            wins += 1.0 / len(r.winners)
    return wins / games


# --- the run ---------------------------------------------------------------------------------
def _bar(total: int, desc: str, enabled: bool):
    from tqdm import tqdm
    return tqdm(total=total, desc=desc, disable=not enabled, dynamic_ncols=True)


def _make_env(cfg: TrainConfig, rank: int):
    def build():
        import torch
        torch.set_num_threads(1)
        from sb3_contrib.common.wrappers import ActionMasker  # noqa: F401  (import check)

        from .selfplay import SelfPlayEnv
        env = SelfPlayEnv(num_players=cfg.players, feature_set=cfg.features,
                          weights=cfg.opponents, reward=cfg.reward,
                          max_snapshots=cfg.max_snapshots, seed=cfg.seed * 1000 + rank)
        env.reset(seed=cfg.seed * 1000 + rank)
        return env
    return build


def train(cfg: TrainConfig, resume: str | None = None, progress: bool = True) -> dict:
    """Run the training described in the module docstring; return the run state."""
    import torch
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.callbacks import BaseCallback
    from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv

    out = Path(cfg.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "snapshots").mkdir(exist_ok=True)
    torch.manual_seed(cfg.seed)
    run_start = time.perf_counter()
    makers = [_make_env(cfg, r) for r in range(cfg.envs)]
    venv = SubprocVecEnv(makers, start_method="spawn") if cfg.envs > 1 else DummyVecEnv(makers)
    venv.seed(cfg.seed)
    state = {"config": cfg.to_dict(), "timesteps": 0, "snapshots": [], "evals": [],
             "bc_losses": [], "wall_seconds": 0.0}
    if resume:
        model, state = load_checkpoint(resume, env=venv)
        for path in state["snapshots"]:
            venv.env_method("add_snapshot", path)
    else:
        from .policy import init_as_greedy, residual_policy_kwargs
        if cfg.policy == "residual":
            policy_kwargs = residual_policy_kwargs(int(cfg.net_arch[0]))
        else:
            policy_kwargs = {"net_arch": list(cfg.net_arch)}
        model = MaskablePPO(
            "MlpPolicy", venv, learning_rate=cfg.learning_rate, n_steps=cfg.n_steps,
            batch_size=cfg.batch_size, n_epochs=cfg.n_epochs, gamma=cfg.gamma,
            gae_lambda=cfg.gae_lambda, clip_range=cfg.clip_range, ent_coef=cfg.ent_coef,
            policy_kwargs=policy_kwargs, tensorboard_log=str(out / "tb"),
            seed=cfg.seed, device="cpu", verbose=0)
        if cfg.policy == "residual":
            init_as_greedy(model)
        win = evaluate_vs_greedy(model, cfg.players, cfg.eval_games, cfg.seed + 7)
        state["evals"].append({"timesteps": 0, "phase": "untrained", "win_rate_vs_greedy": win})
        if cfg.bc_teacher:
            t0 = time.perf_counter()
            data = collect_teacher_data(cfg, progress)
            state["bc_losses"] = behaviour_cloning(model, data, cfg.bc_epochs, cfg.seed,
                                                   cfg.batch_size, progress)
            state["bc_samples"] = int(len(data[2]))
            state["bc_seconds"] = time.perf_counter() - t0
            win = evaluate_vs_greedy(model, cfg.players, cfg.eval_games, cfg.seed + 7)
            state["evals"].append({"timesteps": 0, "phase": "warm start",
                                   "win_rate_vs_greedy": win})
    start_wall = run_start - state["wall_seconds"]

    class Periodic(BaseCallback):
        def __init__(self):
            super().__init__()
            self.bar = _bar(cfg.steps, "PPO steps", progress)
            self.bar.update(model.num_timesteps)
            self.last = {"eval": model.num_timesteps, "ckpt": model.num_timesteps,
                         "snap": model.num_timesteps}
            self.t_rollouts = time.perf_counter()

        def _on_step(self) -> bool:
            t = self.model.num_timesteps
            self.bar.update(t - self.bar.n)
            if t - self.last["snap"] >= cfg.snapshot_every:
                self.last["snap"] = t
                path = out / "snapshots" / f"step_{t}.zip"
                save_model(self.model, path)
                state["snapshots"] = (state["snapshots"] + [str(path)])[-cfg.max_snapshots:]
                self.training_env.env_method("add_snapshot", str(path))
            if t - self.last["eval"] >= cfg.eval_every:
                self.last["eval"] = t
                win = evaluate_vs_greedy(self.model, cfg.players, cfg.eval_games, cfg.seed + 7)
                state["evals"].append({"timesteps": t, "phase": "ppo", "win_rate_vs_greedy": win,
                                       "wall_seconds": time.perf_counter() - start_wall})
                self.logger.record("eval/win_rate_vs_greedy", win)
                _write_eval_csv(out, state["evals"])
            if t - self.last["ckpt"] >= cfg.checkpoint_every:
                self.last["ckpt"] = t
                self._checkpoint()
            return True

        def _checkpoint(self):
            state["timesteps"] = self.model.num_timesteps
            state["wall_seconds"] = time.perf_counter() - start_wall
            save_model(self.model, out / "checkpoint.zip")
            save_json(state, out / "checkpoint.json")

        def _on_training_end(self) -> None:
            self._checkpoint()
            self.bar.close()

    remaining = cfg.steps - model.num_timesteps
    t0 = time.perf_counter()
    steps0 = model.num_timesteps
    if remaining > 0:
        model.learn(total_timesteps=remaining, callback=Periodic(),
                    reset_num_timesteps=not resume, tb_log_name="ppo")
    steps_done = model.num_timesteps - steps0
    state["ppo_steps_per_second"] = steps_done / max(1e-9, time.perf_counter() - t0)
    state["timesteps"] = model.num_timesteps
    state["wall_seconds"] = time.perf_counter() - start_wall
    if model.num_timesteps - state["evals"][-1]["timesteps"] >= cfg.n_steps * cfg.envs:
        final_win = evaluate_vs_greedy(model, cfg.players, cfg.eval_games, cfg.seed + 7)
        state["evals"].append({"timesteps": model.num_timesteps, "phase": "ppo",
                               "win_rate_vs_greedy": final_win,
                               "wall_seconds": state["wall_seconds"]})
    _write_eval_csv(out, state["evals"])
    save_model(model, out / "model.zip")
    atomic_replace(out / "policy.pt", lambda tmp: model.policy.save(tmp))
    save_json(state, out / "checkpoint.json")
    save_model(model, out / "checkpoint.zip")
    plot_learning_curve(state["evals"], out / "learning_curve.png")
    venv.close()
    return state


def _write_eval_csv(out: Path, evals: list[dict]) -> None:
    lines = ["timesteps,phase,win_rate_vs_greedy"] + [
        f"{e['timesteps']},{e['phase']},{e['win_rate_vs_greedy']:.4f}" for e in evals]
    atomic_replace(out / "eval.csv", lambda tmp: Path(tmp).write_text("\n".join(lines) + "\n"))


def plot_learning_curve(evals: list[dict], path: Path) -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4), dpi=100)
    for phase, style in (("untrained", dict(marker="s", color="grey")),
                         ("warm start", dict(marker="D", color="tab:orange")),
                         ("ppo", dict(marker="o", color="tab:blue"))):
        pts = [(e["timesteps"], e["win_rate_vs_greedy"]) for e in evals if e["phase"] == phase]
        if pts:
            ax.plot(*zip(*pts), linestyle="-" if phase == "ppo" else "none",
                    label={"untrained": "untrained (plays like greedy)",
                           "warm start": "after behaviour cloning", "ppo": "PPO"}[phase],
                    **style)
    ax.axhline(0.5, color="grey", linestyle=":", label="even with greedy")
    ax.axhline(0.55, color="tab:red", linestyle="--", label="bar: 55%")
    ax.set_xlabel("PPO environment steps")
    ax.set_ylabel("win rate vs greedy")
    ax.set_ylim(0, 1)
    ax.legend(loc="lower right")
    ax.set_title("MaskablePPO self-play, 2 players")
    fig.tight_layout()
    atomic_replace(path, lambda tmp: fig.savefig(tmp, format="png"))
    plt.close(fig)


__all__ = ["CheckpointError", "TrainConfig", "asdict", "load_checkpoint", "train"]
