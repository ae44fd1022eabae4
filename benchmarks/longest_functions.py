"""The longest functions of the project, longest first: the project keeps every function at
``MAX_LINES`` (80) lines or fewer, outside the tests and the numba kernels.

A function's length is its lines from ``def`` to its last line (decorators not counted, its
docstring and any nested functions counted: they are read as part of it). Numba kernels
(decorated with ``njit``, ``jit``, ``vectorize`` or ``guvectorize``, bare, called or as
``numba.``-attributes) are left out: a kernel is split only where numba can inline the pieces,
which is the kernel author's call. ``tests/test_architecture.py`` imports
:func:`function_lengths` and fails on any function over the limit.

Usage from the repo root: ``python benchmarks/longest_functions.py [--top 10] [roots ...]``.
"""

from __future__ import annotations

import argparse
import ast
import sys
from pathlib import Path
from typing import NamedTuple

REPO = Path(__file__).resolve().parent.parent
ROOTS = ("meduris_rl", "meduris_env", "agents", "train", "meduris_cli", "druids_env", "benchmarks")
MAX_LINES = 80
KERNEL_DECORATORS = {"njit", "jit", "vectorize", "guvectorize"}


class Length(NamedTuple):
    lines: int
    where: str  # path:line
    name: str  # Class.method, or outer.inner for a nested function


def _is_kernel(node: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    for decorator in node.decorator_list:
        target = decorator.func if isinstance(decorator, ast.Call) else decorator
        name = target.attr if isinstance(target, ast.Attribute) else getattr(target, "id", "")
        if name in KERNEL_DECORATORS:
            return True
    return False


def _lengths_in(tree: ast.AST, rel: str) -> list[Length]:
    found = []

    def visit(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                if not _is_kernel(child):
                    found.append(Length(child.end_lineno - child.lineno + 1,
                                        f"{rel}:{child.lineno}", prefix + child.name))
                visit(child, f"{prefix}{child.name}.")
            elif isinstance(child, ast.ClassDef):
                visit(child, f"{prefix}{child.name}.")
            else:
                visit(child, prefix)

    visit(tree, "")
    return found


def function_lengths(root: Path = REPO, roots=ROOTS) -> list[Length]:
    """Every function and method under ``root/<roots>`` (``tests`` directories and numba
    kernels left out), longest first."""
    found = []
    for top in roots:
        for path in sorted((root / top).rglob("*.py")):
            rel = path.relative_to(root)
            if "tests" in rel.parts or "__pycache__" in rel.parts or ".venv" in rel.parts:
                continue
            found += _lengths_in(ast.parse(path.read_text(), str(path)), str(rel))
    return sorted(found, key=lambda f: (-f.lines, f.where))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("roots", nargs="*", default=list(ROOTS),
                        help=f"directories to walk, from the repo root (default: "
                             f"{' '.join(ROOTS)})")
    parser.add_argument("--top", type=int, default=10, help="how many to print (default 10)")
    args = parser.parse_args(argv)
    missing = [r for r in args.roots if not (REPO / r).is_dir()]
    if missing:
        parser.error(f"not a directory of the repo: {', '.join(missing)}")
    if args.top < 1:
        parser.error(f"--top {args.top}: write a count of 1 or more")
    lengths = function_lengths(REPO, args.roots)
    for f in lengths[:args.top]:
        flag = "  over the limit" if f.lines > MAX_LINES else ""
        print(f"{f.lines:>5}  {f.name}  {f.where}{flag}")
    over = sum(f.lines > MAX_LINES for f in lengths)
    print(f"{len(lengths)} functions, {over} over {MAX_LINES} lines")
    return 0


if __name__ == "__main__":
    sys.exit(main())
