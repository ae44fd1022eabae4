"""The packages of the distribution, listed from the folders themselves (pyproject.toml holds
everything else, among it the import root's folders, ``[tool.setuptools.package-dir]``).

The repository keeps ``agents/``, ``train/`` and ``meduris_cli/`` at its top, and they install
as ``meduris_rl.agents``, ``meduris_rl.train`` and ``meduris_rl.cli``: pyproject.toml's static
tables can map folders but not find the subpackages inside a mapped one, so this file does (a
new subpackage needs no edit). The game packages keep their own top-level names."""

import tomllib
from pathlib import Path

from setuptools import find_packages, setup

HERE = Path(__file__).resolve().parent
MAPPED = tomllib.loads((HERE / "pyproject.toml").read_text())["tool"]["setuptools"]["package-dir"]
GAMES = ["meduris_env", "druids_env"]

packages = find_packages(str(HERE), include=["meduris_rl", "meduris_rl.*", *GAMES,
                                             *(f"{g}.*" for g in GAMES)])
for name, folder in MAPPED.items():
    packages += [name, *(f"{name}.{sub}" for sub in find_packages(str(HERE / folder)))]

setup(packages=packages)
