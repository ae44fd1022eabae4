"""A fresh install's first tournament says that the kernels are being compiled (issue 31's
"the first minute of a tournament shows 0 % with no word"): :mod:`meduris_env.engine.compiled`
finds numba's cache of the engine's kernels, and the progress bars say so when it is empty,
once per process."""

from __future__ import annotations

import pytest

from meduris_env.engine import compiled


@pytest.fixture(autouse=True)
def fresh(monkeypatch):
    monkeypatch.setattr(compiled, "_said", False)
    monkeypatch.delenv("NUMBA_CACHE_DIR", raising=False)


def test_the_cache_is_found_beside_the_engine_or_under_numba_cache_dir(tmp_path, monkeypatch):
    assert not compiled.kernels_cached(tmp_path)
    (tmp_path / "__pycache__").mkdir()
    (tmp_path / "__pycache__" / "rules.apply-10.py311.nbi").write_text("")
    assert not compiled.kernels_cached(tmp_path)  # another module's kernel
    (tmp_path / "__pycache__" / "kernel.legal-120.py311.nbi").write_text("")
    assert compiled.kernels_cached(tmp_path)
    cache = tmp_path / "numba"
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(cache))
    assert not compiled.kernels_cached(tmp_path)  # numba looks there only
    (cache / "engine_0123").mkdir(parents=True)  # another project's engine
    (cache / "engine_0123" / "kernel.legal-120.py311.nbi").write_text("")
    assert not compiled.kernels_cached(tmp_path)
    (folder,) = compiled.cache_folders(tmp_path)  # numba's name: the parent's, a hash
    assert folder.parent == cache and folder.name.startswith(tmp_path.name + "_")
    folder.mkdir()
    (folder / "kernel.legal-120.py311.nbi").write_text("")
    assert compiled.kernels_cached(tmp_path)


def test_an_installed_package_is_found_in_the_users_cache_folder(tmp_path):
    """Where the package's own __pycache__ cannot be written numba uses the user's cache
    folder: looked at too, so a warm cache there is no false notice."""
    beside, user = compiled.cache_folders(tmp_path)
    assert beside == tmp_path / "__pycache__" and user.name.startswith(tmp_path.name + "_")
    assert "numba" in user.parts


def test_a_tournament_says_it_compiles_once_when_the_cache_is_empty(tmp_path, monkeypatch,
                                                                      capsys):
    from meduris_rl.agents.arena.tournament import TournamentConfig, run_tournament

    def play(progress=True):
        capsys.readouterr()
        run_tournament(TournamentConfig(agents=["random", "greedy"], games=2, workers=1, seed=1),
                       progress=progress)
        return capsys.readouterr().err

    assert compiled.NOTICE not in play()  # this machine's cache is warm (make install)
    monkeypatch.setattr(compiled, "ENGINE", tmp_path)  # an engine with nothing cached
    assert play().count(compiled.NOTICE) == 1
    assert compiled.NOTICE not in play()  # said once per process
    monkeypatch.setattr(compiled, "_said", False)
    assert compiled.NOTICE not in play(progress=False)  # no bar, no notice
