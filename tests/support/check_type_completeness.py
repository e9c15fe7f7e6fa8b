"""The public API's type completeness, as ``pyright --verifytypes`` scores it (issue 29).

Every symbol a user can reach (a public name, a parameter, a return type, an attribute) must
have a type that every type checker infers the same way. Run by ``nox -s typecheck`` in its
environment (pyright finds ``anyio``, ``attrs``, ... there); exits 1 below the minimum and
lists what lowers the score.

    python tests/support/check_type_completeness.py [--min 0.99]
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--min", type=float, default=0.99, help="the lowest passing score")
    args = parser.parse_args(argv)
    pyright = shutil.which("pyright")
    if pyright is None:
        print("pyright is not installed (the `typecheck` dependency group has it)")
        return 2
    done = subprocess.run(
        [pyright, "--verifytypes", "claude_sdk", "--ignoreexternal", "--outputjson"],
        capture_output=True,
        text=True,
        check=False,
    )
    try:
        report = json.loads(done.stdout)["typeCompleteness"]
    except (ValueError, KeyError):
        print(done.stdout, done.stderr, sep="\n")
        return 2
    counts = report["exportedSymbolCounts"]
    score = float(report["completenessScore"])
    print(
        f"type completeness of claude_sdk: {score:.2%} ({counts['withKnownType']} known, "
        f"{counts['withAmbiguousType']} ambiguous, {counts['withUnknownType']} unknown)"
    )
    for symbol in report["symbols"]:
        known = symbol["isTypeKnown"] and not symbol.get("isTypeAmbiguous")
        if symbol["isExported"] and not known:
            for diagnostic in symbol["diagnostics"]:
                message = diagnostic["message"].replace("\n", " ")
                print(f"  {symbol['name']}: {message}")
    if score < args.min:
        print(f"below the minimum of {args.min:.0%}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
