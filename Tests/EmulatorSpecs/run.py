#!/usr/bin/env python3
"""Runs firebase-tools' Auth emulator spec cases (see specs.py) against keyring-auth-emulator.

Usage: run.py EMULATOR [SPEC ...]     SPEC: a module name without `spec_` (e.g. createAuthUri); none: every module.
       run.py --list                  the spec modules, one per line.

Prints one line per case, `pass|fail|differs|skip SPEC-FILE :: TITLE[ :: detail]`, and exits 1 when a case failed.
"""

from __future__ import annotations

import importlib
import pathlib
import sys

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import specs  # noqa: E402


def modules() -> list[str]:
    return sorted(path.stem[len("spec_"):] for path in HERE.glob("spec_*.py"))


def main(arguments: list[str]) -> int:
    if arguments == ["--list"]:
        print("\n".join(modules()))
        return 0
    if not arguments:
        print(__doc__, file=sys.stderr)
        return 2
    binary, chosen = arguments[0], arguments[1:] or modules()
    for name in chosen:
        importlib.import_module("spec_" + name)
    failed = 0
    for case in specs.REGISTRY.cases:
        outcome, detail = specs.run_case(binary, case)
        failed += outcome == "fail"
        line = f"{outcome} {case.spec} :: {case.title}" + (f" :: {detail}" if detail else "")
        print(line.replace("\n", " "), flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
