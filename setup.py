"""The packages of the distribution, listed from the folders themselves (pyproject.toml holds
everything else, among it the import root's folders, ``[tool.setuptools.package-dir]``).

The repository keeps ``agents/``, ``train/`` and ``meduris_cli/`` at its top, and they install
as ``meduris_rl.agents``, ``meduris_rl.train`` and ``meduris_rl.cli``: pyproject.toml's static
tables can map folders but not find the subpackages inside a mapped one, so this file does (a
new subpackage needs no edit). The game packages keep their own top-level names; they are
found from the games' entry points (a new game needs no edit here)."""

import tomllib
from pathlib import Path

from setuptools import find_packages, setup

HERE = Path(__file__).resolve().parent
PYPROJECT = tomllib.loads((HERE / "pyproject.toml").read_text())
MAPPED = PYPROJECT["tool"]["setuptools"]["package-dir"]
# the game packages: those the games' entry points name (one line per game in pyproject.toml)
GAMES = sorted({row.split(".")[0] for row in
                PYPROJECT["project"]["entry-points"]["meduris_rl.games"].values()})

packages = find_packages(str(HERE), include=["meduris_rl", "meduris_rl.*", *GAMES,
                                             *(f"{g}.*" for g in GAMES)])
for name, folder in MAPPED.items():
    packages += [name, *(f"{name}.{sub}" for sub in find_packages(str(HERE / folder)))]

setup(packages=packages)
