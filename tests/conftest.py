import importlib.util
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))

# Ray and RLlib live in their own environment (RLlib pins gymnasium 1.2.2): `make test` runs
# these files there (.venv-ray); an environment without Ray does not collect them.
collect_ignore = [] if importlib.util.find_spec("ray") else ["test_rllib.py", "test_ray.py"]
