"""meduris-rl's one import root: everything that is not a game package lives under it.

* :mod:`meduris_rl.kit`: the game-neutral kit every game is built on (errors, strict values, the
  bounded JSON reader, atomic files, seeding, the play loop);
* :mod:`meduris_rl.agents`: players of every game and the arena they meet in (``agents/`` in the
  repository);
* :mod:`meduris_rl.train`: the trainers (``train/``);
* :mod:`meduris_rl.cli`: the ``meduris`` command (``meduris_cli/``).

The games are packages of their own beside it (``meduris_env``, ``druids_env``), each with a
distinct top-level name. The root is named after the distribution (``pip install meduris-rl``),
so an installed wheel adds no generic top-level name such as ``agents`` or ``train`` that another
package (``openai-agents`` installs ``agents``) could overwrite (docs/adding_a_game.md, one
import root).
"""

__version__ = "0.1.0"
