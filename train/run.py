"""MaskablePPO self-play training (``meduris train``).

0. **Network** (``policy``): ``"residual"`` (:mod:`meduris_rl.agents.policies.network`) starts out
playing like the
   greedy agent and learns corrections; ``"mlp"`` is sb3's plain MLP.
1. **Warm start** (optional, ``bc_teacher``, e.g. ``mcts:100``): the teacher agent plays
   ``bc_games`` games against itself; the network is fitted to its choices (cross-entropy over the
   legal actions) and its value head to the game results, for ``bc_epochs`` epochs.
2. **PPO** (sb3-contrib ``MaskablePPO``) on :class:`meduris_rl.train.meduris.league.TrainingEnv`:
``envs`` games
   at once on the batch engine, the learner's seat drawn each episode and the other seats from
   the league (random, greedy, and snapshots of the learner saved every ``snapshot_every``
   steps); the win reward shaped by the evaluation's margin (``shaping``, potential-based).
3. Every ``eval_every`` steps the policy (deterministic) plays ``eval_games`` games against greedy,
   seats alternating, and, when ``best_against`` is another agent (e.g. ``mcts:100``),
   ``best_against_games`` tournament games against it; the win rates go to TensorBoard
   (``out/tb``) and ``out/eval.csv``, and the policy of the best evaluation (against
   ``best_against``) is kept as ``out/best.pt``.
4. Every ``checkpoint_every`` steps: ``out/checkpoint.zip`` and ``out/checkpoint.json`` (steps,
   snapshots, evaluation history, config), each written to a temporary file and renamed, the
   zip first; the json names the zip it belongs to (``"checkpoint": {"sha256", "timesteps"}``).
   ``--resume out/checkpoint.zip`` continues from there to ``steps``; a zip that is not the one
   its json names (another run's, another step's, a damaged one) is refused in one line before
   anything is written (:func:`checkpoint_state`). A json of an older version (no
   ``"checkpoint"`` field) is accepted when its step count equals the zip's.
   PPO trains whole rollouts (``n_steps`` x ``envs`` steps): ``steps`` is rounded up to the next
   whole rollout (:func:`planned_steps`), said in one line before training, and the progress bar
   counts to the rounded total.
5. At the end ``out/model.zip`` (the whole model), ``out/policy.pt`` (the network's weights and
   architecture alone, what the ``ppo`` agent ships and loads;
   :mod:`meduris_rl.agents.policies.network`) and ``out/learning_curve.png``.
6. With ``value_positions`` > 0: a value network fitted to that many positions of the best
   policy's own games (:mod:`meduris_rl.train.meduris.value`, as ``python -m
   meduris_rl.train.meduris.value`` with ``--positions value_positions --epochs value_epochs --seed
   seed``), written into ``out/best.pt`` for the ``az`` search.
"""

from __future__ import annotations

import hashlib
import json
import time
import zipfile
from dataclasses import asdict
from pathlib import Path

from meduris_rl.kit.atomic import atomic_replace
from meduris_rl.kit.games import game_spec
from meduris_rl.kit.jsonfile import parse_json, read_json_file
from meduris_rl.kit.values import excerpt
from meduris_rl.train.config import CheckpointError, TrainConfig
from meduris_rl.train.progress import bar


# --- files -----------------------------------------------------------------------------------
def save_model(model, path: Path) -> None:
    atomic_replace(path, lambda tmp: model.save(tmp))


def save_json(data: dict, path: Path) -> None:
    atomic_replace(path, lambda tmp: Path(tmp).write_text(json.dumps(data, indent=2) + "\n"))


def zip_digest(path: Path) -> str:
    """The SHA-256 of a checkpoint file (what its checkpoint.json records)."""
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def zip_data(path: Path) -> dict:
    """The ``data`` member sb3 saved in a checkpoint.zip (JSON, read without unpickling
    anything); CheckpointError when it is not a whole sb3 zip."""
    try:
        with zipfile.ZipFile(path) as archive:
            info = archive.getinfo("data")
            if info.file_size > 16 * 1024 * 1024:
                raise CheckpointError(f"cannot load {path} as a MaskablePPO checkpoint "
                                      "(its data is too large)")
            data = parse_json(archive.read(info), CheckpointError,
                              f"cannot load {path} as a MaskablePPO checkpoint")
    except (OSError, zipfile.BadZipFile, KeyError, EOFError, ValueError) as err:
        if isinstance(err, CheckpointError):
            raise
        raise CheckpointError(f"cannot load {path} as a MaskablePPO checkpoint (not a whole "
                              f"sb3 zip: {str(err)[:80]})") from None
    if not isinstance(data, dict):
        raise CheckpointError(f"cannot load {path} as a MaskablePPO checkpoint (no data)")
    return data


def zip_timesteps(path: Path, data: dict | None = None) -> int:
    """The step count sb3 saved in a checkpoint.zip (:func:`zip_data`, or ``data`` if read)."""
    steps = (zip_data(path) if data is None else data).get("num_timesteps")
    if type(steps) is not int:
        raise CheckpointError(f"cannot load {path} as a MaskablePPO checkpoint (no step count)")
    return steps


def save_checkpoint(model, state: dict, out: Path) -> None:
    """``out/checkpoint.zip``, then ``out/checkpoint.json`` naming it (its digest and steps)."""
    config = state.get("config", {})  # (the zip records what it was trained for: checked)
    model.meduris_run = {"game": game_spec(config.get("game")).name,
                         "players": config.get("players"), "options": config.get("options", {})}
    save_model(model, out / "checkpoint.zip")
    state["checkpoint"] = {"sha256": zip_digest(out / "checkpoint.zip"),
                           "timesteps": int(model.num_timesteps)}
    save_json(state, out / "checkpoint.json")


def check_pair(path: Path, meta_path: Path, meta: dict) -> None:
    """A checkpoint.zip and its checkpoint.json belong together (module docstring, 4), else a
    one-line CheckpointError naming the fix."""
    fix = ("resume from a checkpoint.zip together with the checkpoint.json written with it "
           "(a run killed while checkpointing leaves no whole pair: start it again)")
    named = meta.get("checkpoint")
    if named is None:  # an older version's run: the step counts must agree
        steps, saved = zip_timesteps(path), meta.get("timesteps")
        if steps != saved:
            raise CheckpointError(f"{path} holds {steps} steps but {meta_path.name} says "
                                  f"{excerpt(saved)}: they are not one checkpoint; {fix}")
        return
    if not isinstance(named, dict) or not isinstance(named.get("sha256"), str):
        raise CheckpointError(f"{meta_path}: its \"checkpoint\" field is not a digest and a "
                              "step count")
    if zip_digest(path) != named["sha256"]:
        if not zipfile.is_zipfile(path):
            raise CheckpointError(f"cannot load {path} as a MaskablePPO checkpoint (not a "
                                  f"whole zip file: damaged or cut short); {fix}")
        raise CheckpointError(f"{path} is not the checkpoint {meta_path.name} was written with "
                              f"(that one: {excerpt(named.get('timesteps'))} steps; this one: "
                              f"{zip_timesteps(path)}); {fix}")


def not_a_checkpoint(path: Path) -> str | None:
    """Why ``path`` is not a checkpoint.zip to resume from, naming the file that is (and the
    policy file to play) when there is one, or None when it may be one."""
    folder = path if path.is_dir() else path.parent
    checkpoint = folder / "checkpoint.zip"
    resume = (f"resume from {checkpoint}" if checkpoint.is_file() else
              f"{folder} holds no checkpoint.zip to resume from (meduris train writes one in "
              "its --out folder)")

    def play(policy: Path) -> str:
        return f"; to play it: ppo:{policy}" if policy.is_file() else ""
    if path.is_dir():
        if not checkpoint.is_file():
            return (f"{path} is a folder that holds no checkpoint.zip: give a run's "
                    "checkpoint.zip (meduris train writes one in its --out folder)")
        return f"{path} is a run folder: {resume}{play(path / 'policy.pt')}"
    if path.name == "checkpoint.json":
        return f"{path} is the run state beside a checkpoint: {resume} (it reads this file)"
    if path.name == "model.zip":
        more = ", with a larger --steps" if checkpoint.is_file() else ""
        return (f"{path} is a run's final model (no run state to go on with): {resume}{more}"
                f"{play(folder / 'policy.pt')}")
    if path.suffix == ".pt":
        return f"{path} is a policy file, not a checkpoint: {resume}{play(path)}"
    if path.suffix != ".zip":
        return f"{path} is not a checkpoint: resume from a run's checkpoint.zip (e.g. " \
               f"{checkpoint})"
    return None


def checkpoint_state(path: str | Path) -> dict:
    """The run state saved beside a checkpoint (``checkpoint.json``), checked to belong to the
    zip (:func:`check_pair`) and to be what the zip was trained for (:func:`check_run`);
    CheckpointError says what is wrong (:func:`not_a_checkpoint`: the file to give)."""
    path = Path(path)
    meta_path = path.with_suffix(".json")
    problem = not_a_checkpoint(path)
    if problem:
        raise CheckpointError(problem)
    if not path.is_file():
        raise CheckpointError(f"no checkpoint at {path}")
    if not meta_path.is_file():
        raise CheckpointError(f"checkpoint {path} has no {meta_path.name} beside it")
    meta = read_json_file(meta_path, CheckpointError, f"cannot read {meta_path}")
    if not isinstance(meta, dict):
        raise CheckpointError(f"{meta_path} is not a run state (a JSON object)")
    check_pair(path, meta_path, meta)
    check_run(path, meta_path, meta)
    return meta


def check_run(path: Path, meta_path: Path, meta: dict) -> None:
    """The run state agrees with its zip: ``timesteps`` an int (not a bool) equal to the
    zip's step count; the configuration's ``players``, ``game`` and ``options`` those the zip
    recorded (zips written before it did: its input and action sizes those of the
    configuration's features and game). CheckpointError naming the edited field otherwise."""
    data = zip_data(path)
    steps, saved = zip_timesteps(path, data), meta.get("timesteps")
    if type(saved) is not int or saved != steps:
        raise CheckpointError(f"{meta_path}: \"timesteps\" is {excerpt(saved)}, but {path.name} "
                              f"holds {steps} steps: was it edited? resume from the pair as "
                              "it was written")
    config = meta.get("config")
    if not isinstance(config, dict):
        return  # (resume_config refuses it in one line)
    recorded = data.get("meduris_run") if isinstance(data.get("meduris_run"), dict) else {}
    said = {"players": config.get("players"), "game": config.get("game"),
            "options": config.get("options") or {}}
    if said["game"] is None:
        said["game"] = game_spec(None).name  # (a run's config without a game: the default)
    for key in ("players", "game", "options"):
        if key in recorded and said[key] != recorded[key]:
            raise CheckpointError(
                f"{meta_path}: its config says {key} {excerpt(config.get(key))}, but "
                f"{path.name} was trained with {key} {excerpt(recorded[key])}: was it edited? "
                "a resumed run keeps its own; start a new run to change it")
    check_sizes(path, meta_path, config, data)


def load_checkpoint(path: str | Path, env=None):
    """The model and the run state saved beside it; CheckpointError says what is wrong."""
    meta = checkpoint_state(path)
    from sb3_contrib import MaskablePPO
    try:
        model = MaskablePPO.load(str(path), env=env, device="cpu")
    except Exception as err:
        raise CheckpointError(f"cannot load {path} as a MaskablePPO checkpoint "
                              f"({type(err).__name__}: {err})") from None
    return model, meta


def check_sizes(path: Path, meta_path: Path, config: dict, data: dict) -> None:
    """The zip's observation and action sizes are those of ``config``'s game and features
    (when they are valid names: else the configuration check refuses them)."""
    from meduris_rl.agents.policies.network import game_actions
    game = config.get("game")
    try:
        want = (game_spec(game).part("features")[config.get("features")], game_actions(game))
        have = (data["observation_space"]["_shape"][0], int(data["action_space"]["n"]))
    except (KeyError, TypeError, ValueError, IndexError):
        return
    if want != have:
        raise CheckpointError(f"{meta_path}: its config (game {excerpt(game)}, features "
                              f"{excerpt(config.get('features'))}: {want[0]} inputs, {want[1]} "
                              f"actions) does not fit {path.name} ({have[0]} inputs, {have[1]} "
                              "actions): was it edited? resume from the pair as it was written")


# --- the run ---------------------------------------------------------------------------------
def planned_steps(cfg: TrainConfig, done: int = 0) -> int:
    """The step count PPO will reach from ``done``: ``cfg.steps`` rounded up to whole
    rollouts of ``n_steps`` x ``envs`` steps (sb3 stops after the rollout that reaches it)."""
    rollout = cfg.n_steps * cfg.envs
    if cfg.steps <= done:
        return done
    return done + -(-(cfg.steps - done) // rollout) * rollout


def rounding_note(cfg: TrainConfig, done: int = 0) -> str | None:
    """The line saying ``steps`` is rounded up (:func:`planned_steps`), or None when not."""
    total = planned_steps(cfg, done)
    if total <= max(cfg.steps, done):
        return None
    return (f"note: {cfg.steps} steps rounded up to {total} (whole rollouts of {cfg.envs} envs "
            f"x {cfg.n_steps} steps)")


def network_of(cfg: TrainConfig) -> dict:
    """The policy network's architecture for this configuration
    (:mod:`meduris_rl.agents.policies.network`), the player count included: every policy file of the
    run records it."""
    from meduris_rl.agents.policies.network import architecture
    return architecture(cfg.policy, game_spec(cfg.game).part("features")[cfg.features],
                        cfg.net_arch, cfg.players, cfg.game)


def training_env(cfg: TrainConfig):
    """The run's vector env with its league: Meduris's on the batch engine
    (:mod:`meduris_rl.train.meduris.league`), Druids's on its single-agent env
    (:mod:`meduris_rl.train.druids.league`): the ``train_env`` part of the game's row."""
    return game_spec(cfg.game).part("train_env")(cfg)


def win_rate_vs_greedy(cfg: TrainConfig, model) -> float:
    """The evaluation against greedy (module docstring, 3) for the run's game."""
    return game_spec(cfg.game).part("win_rate")(cfg, model, None, "greedy", cfg.eval_games)


def train(cfg: TrainConfig, resume: str | None = None, progress: bool = True,
          report=None) -> dict:
    """Run the training described in the module docstring; return the run state."""
    import torch

    out = Path(cfg.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "snapshots").mkdir(exist_ok=True)
    torch.manual_seed(cfg.seed)
    run_start = time.perf_counter()
    torch.set_num_threads(cfg.threads)
    venv = training_env(cfg)
    state = {"config": cfg.to_dict(), "timesteps": 0, "snapshots": [], "evals": [],
             "bc_losses": [], "wall_seconds": 0.0}
    arch = network_of(cfg)
    if resume:
        model, state = load_checkpoint(resume, env=venv)
        state["config"] = cfg.to_dict()  # (what the run goes on with: resume_config's)
        for path in state["snapshots"]:
            venv.add_snapshot(path)
        note = rounding_note(cfg, model.num_timesteps)
    else:
        note = rounding_note(cfg)
    if note and report is not None:
        report(note)
    if not resume:
        model = _new_model(cfg, venv, arch, state, progress, report)
    start_wall = run_start - state["wall_seconds"]
    remaining = cfg.steps - model.num_timesteps
    t0 = time.perf_counter()
    steps0 = model.num_timesteps
    if remaining > 0:
        model.learn(total_timesteps=remaining,
                    callback=_periodic(cfg, state, model, venv, arch, start_wall, progress,
                                       report),
                    reset_num_timesteps=not resume, tb_log_name="ppo")
    steps_done = model.num_timesteps - steps0
    state["ppo_steps_per_second"] = steps_done / max(1e-9, time.perf_counter() - t0)
    _finish(cfg, state, model, venv, arch, start_wall, progress, report)
    return state


def _new_model(cfg: TrainConfig, venv, arch: dict, state: dict, progress: bool, report):
    """A new run's model (module docstring, 0-1): the network (the residual one set to play
    as greedy), evaluated against greedy, then warm-started and evaluated again when there is
    a ``bc_teacher``; the evaluations and the warm start's losses go into ``state``."""
    from sb3_contrib import MaskablePPO

    from meduris_rl.agents.policies.network import init_as_greedy, policy_kwargs

    model = MaskablePPO(
        "MlpPolicy", venv, learning_rate=cfg.learning_rate, n_steps=cfg.n_steps,
        batch_size=cfg.batch_size, n_epochs=cfg.n_epochs, gamma=cfg.gamma,
        gae_lambda=cfg.gae_lambda, clip_range=cfg.clip_range, ent_coef=cfg.ent_coef,
        policy_kwargs=policy_kwargs(arch), tensorboard_log=str(Path(cfg.out) / "tb"),
        seed=cfg.seed, device="cpu", verbose=0)
    if cfg.policy == "residual":
        init_as_greedy(model)
    win = win_rate_vs_greedy(cfg, model)
    state["evals"].append({"timesteps": 0, "phase": "untrained", "win_rate_vs_greedy": win})
    if report is not None:
        report(f"evaluation before training: win rate vs greedy {win:.1%}")
    if cfg.bc_teacher:
        t0 = time.perf_counter()
        state.update(game_spec(cfg.game).part("warm_start")(cfg, model, progress))
        state["bc_seconds"] = time.perf_counter() - t0
        win = win_rate_vs_greedy(cfg, model)
        state["evals"].append({"timesteps": 0, "phase": "warm start",
                               "win_rate_vs_greedy": win})
        if report is not None:
            report(f"evaluation after the warm start ({state['bc_seconds'] / 60:.1f} min): "
                   f"win rate vs greedy {win:.1%}")
    return model


def _periodic(cfg: TrainConfig, state: dict, model, venv, arch: dict, start_wall: float,
              progress: bool, report):
    """PPO's callback (module docstring, 2-4): the progress bar, and every so many steps a
    snapshot of the learner into the league, an evaluation, a checkpoint."""
    from stable_baselines3.common.callbacks import BaseCallback

    from meduris_rl.agents.policies.network import save_policy

    out = Path(cfg.out)

    class Periodic(BaseCallback):
        def __init__(self):
            super().__init__()
            self.bar = bar(planned_steps(cfg, model.num_timesteps), "PPO steps", progress,
                           notice=game_spec(cfg.game).compile_notice)
            self.bar.update(model.num_timesteps)
            self.last = {"eval": model.num_timesteps, "ckpt": model.num_timesteps,
                         "snap": model.num_timesteps}
            self.t_rollouts = time.perf_counter()

        def _on_step(self) -> bool:
            t = self.model.num_timesteps
            self.bar.update(t - self.bar.n)
            if t - self.last["snap"] >= cfg.snapshot_every:
                self.last["snap"] = t
                path = out / "snapshots" / f"step_{t}.pt"
                save_policy(self.model.policy, arch, path)
                state["snapshots"] = (state["snapshots"] + [str(path)])[-cfg.max_snapshots:]
                state.setdefault("snapshot_log", []).append(
                    {"path": str(path), "timesteps": t,
                     "wall_seconds": time.perf_counter() - start_wall})
                venv.add_snapshot(path)
            if t - self.last["eval"] >= cfg.eval_every:
                self.last["eval"] = t
                entry = _evaluate_ppo(cfg, state, self.model, arch, out,
                                      time.perf_counter() - start_wall)
                for key, name in _scores(cfg):
                    self.logger.record(f"eval/{name}", entry[key])
                if report is not None:
                    report(f"evaluation at {t:,} steps ({entry['wall_seconds'] / 60:.1f} min): "
                           + ", ".join(f"win rate vs {against} {entry[key]:.1%}"
                                       for key, against in _scores(cfg, labels=True)))
            if t - self.last["ckpt"] >= cfg.checkpoint_every:
                self.last["ckpt"] = t
                self._checkpoint()
            return True

        def _checkpoint(self):
            state["timesteps"] = self.model.num_timesteps
            state["wall_seconds"] = time.perf_counter() - start_wall
            save_checkpoint(self.model, state, out)

        def _on_training_end(self) -> None:
            self._checkpoint()
            self.bar.close()

    return Periodic()


def _finish(cfg: TrainConfig, state: dict, model, venv, arch: dict, start_wall: float,
            progress: bool, report) -> None:
    """The end of the run (module docstring, 5-6): a last evaluation unless one is recent,
    the files, and the value network when asked for."""
    from meduris_rl.agents.policies.network import save_policy

    out = Path(cfg.out)
    state["timesteps"] = model.num_timesteps
    state["wall_seconds"] = time.perf_counter() - start_wall
    if model.num_timesteps - state["evals"][-1]["timesteps"] >= cfg.n_steps * cfg.envs:
        _evaluate_ppo(cfg, state, model, arch, out, state["wall_seconds"])
    _write_eval_csv(out, state["evals"], cfg)
    save_model(model, out / "model.zip")
    save_policy(model.policy, arch, out / "policy.pt")
    save_checkpoint(model, state, out)
    plot_learning_curve(state["evals"], out / "learning_curve.png", cfg.players,
                        cfg.best_against, cfg.game)
    venv.close()
    if cfg.value_positions:
        _value_network(cfg, state, out, progress, report)


def _value_network(cfg: TrainConfig, state: dict, out: Path, progress: bool, report) -> None:
    """The run's last step: a value network for ``best.pt`` (the policy to ship) from its own
    games (the row's ``value_network`` part: Meduris's :mod:`meduris_rl.train.meduris.value`),
    written into best.pt, for the az search."""
    best = out / ("best.pt" if (out / "best.pt").is_file() else "policy.pt")
    fit = game_spec(cfg.game).part("value_network")
    fitted = fit(best, best, cfg.players, cfg.value_positions, epochs=cfg.value_epochs,
                 seed=cfg.seed, progress=progress)
    state["value_network"] = {"policy": best.name, **fitted}
    save_json(state, out / "checkpoint.json")
    if report is not None:
        report(f"value network for {best.name}: {fitted['positions']:,} positions of "
               f"{fitted['games']:,} self-play games, held-out MSE "
               f"{fitted.get('validation_mse', float('nan')):.3f} (the results' variance "
               f"{fitted.get('validation_variance', float('nan')):.3f})")


def _scores(cfg: TrainConfig, labels: bool = False) -> list[tuple[str, str]]:
    """The evaluation's scores: (key in an evaluation, its name for TensorBoard, or with
    ``labels`` the opponent's name)."""
    scores = [("win_rate_vs_greedy", "greedy" if labels else "win_rate_vs_greedy")]
    if cfg.best_against != "greedy":
        scores.append(("win_rate_vs_best_against",
                       cfg.best_against if labels else "win_rate_vs_best_against"))
    return scores


def _evaluate_ppo(cfg: TrainConfig, state: dict, model, arch: dict, out: Path,
                  wall_seconds: float) -> dict:
    """One evaluation during PPO (module docstring, 3): against greedy on the batch engine,
    and against ``best_against`` in a tournament when it is another agent; recorded in the run
    state and eval.csv, and the policy kept as ``best.pt`` if it is the best so far."""
    t = model.num_timesteps
    entry = {"timesteps": t, "phase": "ppo",
             "win_rate_vs_greedy": win_rate_vs_greedy(cfg, model),
             "wall_seconds": wall_seconds}
    if cfg.best_against != "greedy":
        entry["win_rate_vs_best_against"] = game_spec(cfg.game).part("win_rate")(
            cfg, model, arch, cfg.best_against, cfg.best_against_games)
    state["evals"].append(entry)
    _keep_best(state, model.policy, arch, out, entry, cfg)
    _write_eval_csv(out, state["evals"], cfg)
    return entry


def _keep_best(state: dict, policy, arch: dict, out: Path, entry: dict,
               cfg: TrainConfig) -> None:
    """PPO against a league can drift away from what beats greedy (or ``best_against``): the
    policy of the best evaluation so far is kept as ``out/best.pt`` (like SB3's EvalCallback's
    best model)."""
    from meduris_rl.agents.policies.network import save_policy

    key = _scores(cfg)[-1][0]  # best_against's score, greedy's when that is greedy
    if entry[key] > state.get("best", {}).get(key, -1.0):
        save_policy(policy, arch, out / "best.pt")
        state["best"] = {k: entry[k] for k in ("timesteps", "win_rate_vs_greedy",
                                                "win_rate_vs_best_against") if k in entry}
        if cfg.best_against != "greedy":
            state["best"]["best_against"] = cfg.best_against


def _write_eval_csv(out: Path, evals: list[dict], cfg: TrainConfig) -> None:
    keys = [key for key, _ in _scores(cfg)]
    header = ",".join(["timesteps", "phase", "win_rate_vs_greedy"] + [
        f"win_rate_vs_{cfg.best_against}" for k in keys[1:]])
    lines = [header] + [",".join([str(e["timesteps"]), e["phase"]] + [
        f"{e[k]:.4f}" if k in e else "" for k in keys]) for e in evals]
    atomic_replace(out / "eval.csv", lambda tmp: Path(tmp).write_text("\n".join(lines) + "\n"))


def plot_learning_curve(evals: list[dict], path: Path, players: int,
                        best_against: str = "greedy", game: str | None = None) -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4), dpi=100)
    for phase, style in (("untrained", dict(marker="s", color="grey")),
                         ("warm start", dict(marker="D", color="tab:orange")),
                         ("ppo", dict(marker="o", color="tab:blue"))):
        pts = [(e["timesteps"], e["win_rate_vs_greedy"]) for e in evals if e["phase"] == phase]
        if pts:
            ax.plot(*zip(*pts, strict=False), linestyle="-" if phase == "ppo" else "none",
                    label={"untrained": "untrained (plays like greedy)",
                           "warm start": "after behaviour cloning", "ppo": "PPO"}[phase],
                    **style)
    pts = [(e["timesteps"], e["win_rate_vs_best_against"]) for e in evals
           if "win_rate_vs_best_against" in e]
    if pts:
        ax.plot(*zip(*pts, strict=False), marker="s", linestyle="--", color="tab:red",
                label=f"PPO vs {best_against} (picks best.pt)")
    ax.axhline(1 / players, color="grey", linestyle=":", label=f"fair share 1/{players}")
    ax.set_xlabel("PPO environment steps")
    ax.set_ylabel("win rate vs greedy" if not pts else "win rate")
    ax.set_ylim(0, 1)
    ax.legend(loc="lower right")
    ax.set_title(f"MaskablePPO, {game_spec(game).title}, {players} players")
    fig.tight_layout()
    atomic_replace(path, lambda tmp: fig.savefig(tmp, format="png"))
    plt.close(fig)


__all__ = ["CheckpointError", "TrainConfig", "asdict", "load_checkpoint", "train"]
