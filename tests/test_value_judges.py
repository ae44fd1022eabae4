"""Judges for a search (meduris_rl.train.meduris.judges,
meduris_rl.agents.policies.network.ValueMean): the value network fitted to another policy's games or
to the search's own, labelled with its values, and a mean of several value networks in one policy
file (docs/training.md, "two value networks at the search bar")."""

import numpy as np
import pytest
import torch

from meduris_rl.agents import make_agent
from meduris_rl.agents.meduris.ppo import shipped_model
from meduris_rl.agents.policies.network import (
    NumpyValue,
    PolicyFileError,
    ValueMean,
    build_value,
    load_policy_file,
    load_value_network,
    save_policy,
    value_module,
)
from meduris_rl.cli.main import main as meduris

SHIPPED = shipped_model(2)
INPUTS = load_policy_file(SHIPPED)[1]["inputs"]


def _file_with_value(tmp_path, name: str, seed: int, hidden=(8,)) -> tuple:
    """A copy of the shipped 2-player policy carrying a fresh value network of its own."""
    torch.manual_seed(seed)
    policy, arch = load_policy_file(SHIPPED)
    net = value_module(INPUTS, list(hidden))
    path = tmp_path / name
    save_policy(policy, arch, path, value_network=net)
    return path, net


def _inputs(rows: int = 12, seed: int = 0) -> np.ndarray:
    x = np.random.default_rng(seed).random((rows, INPUTS), dtype=np.float32) * 2 - 1
    x[:, 5:400] = 0  # (columns off in every row: the sparse input layer skips them)
    return x


def test_a_mean_of_value_networks_judges_by_their_mean_in_torch_numpy_and_a_file(tmp_path):
    a = value_module(INPUTS, [8])
    b = value_module(INPUTS, [6, 4])
    mean = ValueMean([a, ValueMean([a, b])])  # a mean given as a member is flattened
    assert [m.architecture for m in mean.members] == [a.architecture, a.architecture,
                                                      b.architecture]
    x = _inputs()
    with torch.no_grad():
        want = ((2 * a(torch.as_tensor(x)) + b(torch.as_tensor(x))) / 3)[:, 0].numpy()
        got = mean(torch.as_tensor(x))[:, 0].numpy()
    np.testing.assert_allclose(got, want, atol=1e-6)
    np.testing.assert_allclose(NumpyValue(mean)(x), want, atol=1e-5)
    np.testing.assert_allclose(NumpyValue(mean).with_sparse_inputs()(x), want, atol=1e-5)

    policy, arch = load_policy_file(SHIPPED)
    save_policy(policy, arch, tmp_path / "mean.pt", value_network=mean)
    again = load_value_network(tmp_path / "mean.pt")
    assert isinstance(again, ValueMean) and again.architecture == mean.architecture
    np.testing.assert_allclose(NumpyValue(again)(x), want, atol=1e-5)


@pytest.mark.parametrize("members,needle", [
    ([], "2..16 networks"),
    ([value_module(INPUTS, [4])], "2..16 networks"),
    ([value_module(INPUTS, [4])] * 17, "2..16 networks"),
    ([value_module(INPUTS, [4]), value_module(7, [4])], "of the same inputs"),
])
def test_a_mean_of_value_networks_needs_two_to_sixteen_of_the_same_inputs(members, needle):
    with pytest.raises(ValueError, match=needle):
        ValueMean(members)


def test_a_tampered_mean_in_a_policy_file_is_one_line(tmp_path):
    policy, arch = load_policy_file(SHIPPED)
    mean = ValueMean([value_module(INPUTS, [4]), value_module(INPUTS, [5])])
    save_policy(policy, arch, tmp_path / "m.pt", value_network=mean)
    for change, needle in [(lambda a: a.update(members="two"), "members: a list"),
                           (lambda a: a.update(inputs=INPUTS + 1), "its members'"),
                           (lambda a: a["members"][1].update(hidden=[6]), "loading state_dict")]:
        doc = torch.load(tmp_path / "m.pt", weights_only=True)
        change(doc["value_network"]["architecture"])
        torch.save(doc, tmp_path / "bad.pt")
        with pytest.raises(PolicyFileError, match="value network does not fit") as err:
            load_value_network(tmp_path / "bad.pt")
        assert needle in str(err.value) and "\n" not in str(err.value)
    assert isinstance(build_value(mean.architecture), ValueMean)


def test_mean_of_writes_the_policy_with_the_mean_of_the_files_value_networks(tmp_path, capsys):
    """``meduris value POLICY --mean-of A,B``: no games, the policy unchanged, the value the
    mean of A's and B's; a file of another player count, one without a value network or a
    flag of a fit beside --mean-of are refused in one line, nothing written."""
    a, net_a = _file_with_value(tmp_path, "a.pt", 1)
    b, net_b = _file_with_value(tmp_path, "b.pt", 2, hidden=(5, 3))
    out = tmp_path / "out.pt"
    assert meduris(["value", str(SHIPPED), "--mean-of", f"{a},{b}", "--out", str(out)]) == 0
    assert "the mean of 2 networks of 2 files" in capsys.readouterr().out
    x = _inputs()
    want = (NumpyValue(net_a)(x) + NumpyValue(net_b)(x)) / 2
    np.testing.assert_allclose(NumpyValue(load_value_network(out))(x), want, atol=1e-5)
    policy, _ = load_policy_file(out)
    shipped, _ = load_policy_file(SHIPPED)
    assert all(torch.equal(p, q) for p, q in zip(policy.state_dict().values(),
                                                 shipped.state_dict().values(), strict=True))
    # the agents search with the mean: az-fast's value network is it
    agent = make_agent(f"az-fast:8:{out}")
    np.testing.assert_allclose(agent.value_network(2)(x), want, atol=1e-5)
    from meduris_env import MedurisGame
    from meduris_rl.agents.arena.match import play_game
    assert play_game(MedurisGame(2), [agent, make_agent("greedy")], 0).turns > 0

    bad = tmp_path / "bad.pt"
    no_value = tmp_path / "no_value.pt"
    save_policy(policy, load_policy_file(SHIPPED)[1], no_value)
    for files, needle in [(f"{a},{shipped_model(3)}", "is a 3-player policy"),
                          (f"{a},{no_value}", "carries no value network"),
                          (f"{a}", "two or more policy files")]:
        assert meduris(["value", str(SHIPPED), "--mean-of", files, "--out", str(bad)]) == 2
        err = capsys.readouterr().err
        assert needle in err and err.count("\n") == 1, err
    for flag, value in [("--epochs", "2"), ("--players", "3")]:
        assert meduris(["value", str(SHIPPED), "--mean-of", f"{a},{b}", flag, value,
                        "--out", str(bad)]) == 2
        assert f"fits none: drop {flag}" in capsys.readouterr().err
    assert not bad.exists()


def test_az_train_refuses_to_start_from_a_mean_of_value_networks(tmp_path):
    from meduris_rl.train.config import ConfigError
    from meduris_rl.train.meduris.az import AZConfig

    policy, arch = load_policy_file(SHIPPED)
    mean = ValueMean([value_module(INPUTS, [4]), value_module(INPUTS, [5])])
    save_policy(policy, arch, tmp_path / "m.pt", value_network=mean)
    with pytest.raises(ConfigError, match="carries a mean of 2 value networks; az-train trains"):
        AZConfig(warm_start=str(tmp_path / "m.pt"), out=str(tmp_path / "run")).validate()


def test_search_positions_are_labelled_with_results_and_the_searchs_values():
    """``--games-of search``: the search's self-play with the file's networks; share 0 labels
    each position with its game's result, share 1 with the search's value of the move played
    (other numbers), share 0.5 their mean; one seed, the same positions."""
    from meduris_rl.train.meduris.judges import search_positions

    args = dict(policy_file=SHIPPED, players=2, positions=300, simulations=4, games=8, seed=5)
    x0, results, games = search_positions(search_share=0.0, **args)
    x1, values, again = search_positions(search_share=1.0, **args)
    x5, mixed, _ = search_positions(search_share=0.5, **args)
    assert np.array_equal(x0, x1) and np.array_equal(x0, x5) and games == again >= 1
    assert x0.shape == (300, INPUTS) and x0.dtype == np.float16
    assert set(np.unique(results)) <= {-1.0, 0.0, 1.0} and (results != 0).any()
    assert np.all(np.abs(values) <= 1) and len(np.unique(values)) > 10
    assert not np.isin(values, [-1.0, 0.0, 1.0]).all()
    np.testing.assert_allclose(mixed, (results + values) / 2, atol=1e-6)


def test_games_of_another_policy_and_search_fit_and_fine_tune(tmp_path, capsys):
    """``--games-of FILE`` plays that file's games and writes the first policy with the
    network; ``--games-of search --fine-tune`` goes on from the file's own value network (its
    architecture kept); files that do not fit are refused in one line."""
    other, _ = _file_with_value(tmp_path, "other.pt", 3)
    out = tmp_path / "a.pt"
    assert meduris(["value", str(SHIPPED), "--games-of", str(other), "--positions", "300",
                    "--epochs", "1", "--envs", "16", "--hidden", "8", "--out", str(out),
                    "--no-progress"]) == 0
    assert "300 positions from" in capsys.readouterr().out
    assert load_value_network(out).architecture == {"inputs": INPUTS, "hidden": [8]}

    tuned = tmp_path / "b.pt"
    assert meduris(["value", str(out), "--games-of", "search", "--simulations", "4",
                    "--envs", "8", "--positions", "200", "--fine-tune", "--epochs", "1",
                    "--learning-rate", "0.0003", "--out", str(tuned), "--no-progress"]) == 0
    assert "200 positions from" in capsys.readouterr().out
    assert load_value_network(tuned).architecture == {"inputs": INPUTS, "hidden": [8]}

    for argv, needle in [(["--games-of", str(shipped_model(3))], "is a 3-player policy"),
                         (["--fine-tune", "--games-of", "search", "--positions", "100"],
                          "fine-tuning needs one"),
                         (["--search-share", "0.5"], "go with --games-of search"),
                         (["--games-of", "search", "--search-share", "2"], "--search-share 2.0"),
                         (["--games-of", "search", "--simulations", "0"], "--simulations 0"),
                         (["--envs", "0"], "--envs 0"),
                         (["--games-of", "search", "--keep", "0.5"], "every position"),
                         (["--fine-tune", "--hidden", "8"], "keeps its own layers"),
                         (["--players", "3"], "is a 2-player policy")]:
        policy = str(tmp_path / "no_value.pt") if "--fine-tune" in argv else str(SHIPPED)
        if "--fine-tune" in argv:
            save_policy(*load_policy_file(SHIPPED), policy)
        assert meduris(["value", policy, *argv, "--out", str(tmp_path / "x.pt"),
                        "--no-progress"]) == 2, argv
        err = capsys.readouterr().err
        assert needle in err and err.count("\n") == 1, err
    assert not (tmp_path / "x.pt").exists()


def test_the_make_target_of_the_shipped_search_is_commands_meduris_accepts():
    """``make model-search-2p`` (the recipe of agents/models/search_2p.pt): every command it
    runs parses, and the value steps pass their flags' checks (a typo fails here, not after an
    hour of training)."""
    import shlex
    import subprocess
    from pathlib import Path

    from meduris_rl.cli.main import build_parser
    from meduris_rl.cli.meduris import value

    repo = Path(__file__).resolve().parent.parent
    recipe = subprocess.run(["make", "-n", "model-search-2p"], cwd=repo, capture_output=True,
                            text=True, timeout=60, check=True).stdout.replace("\\\n", " ")
    commands = [shlex.split(line)[1:] for line in recipe.splitlines()
                if line.startswith(".venv/bin/meduris ")]
    assert [c[0] for c in commands] == ["value"]
    for argv in commands:
        args = build_parser().parse_args(argv)
        if argv[0] == "value":
            assert value.problem(args) is None, argv
    assert commands[-1][commands[-1].index("--out") + 1] == "agents/models/search_2p.pt"


def test_the_search_flags_reach_the_fit(monkeypatch, capsys):
    """``--games-of search --simulations --search-share --fine-tune`` arrive, as given, at
    :func:`meduris_rl.train.meduris.judges.add_value_network` (defaults 32 and 0.5 when not
    given)."""
    import meduris_rl.train.meduris.judges

    calls = []

    def fake(*args, **kwargs):
        calls.append(kwargs)
        return {"positions": 500, "games": 9, "self_play_seconds": 1.0, "fit_seconds": 2.0}
    monkeypatch.setattr(meduris_rl.train.meduris.judges, "add_value_network", fake)
    base = ["value", str(SHIPPED), "--out", "OUT", "--games-of", "search"]
    assert meduris([*base, "--simulations", "5", "--search-share", "0.25", "--fine-tune"]) == 0
    assert meduris(base) == 0
    assert [(c["games_of"], c["simulations"], c["search_share"], c["fine_tune"])
            for c in calls] == [("search", 5, 0.25, True), ("search", 32, 0.5, False)]
    assert "written to OUT" in capsys.readouterr().out
