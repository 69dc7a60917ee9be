#!/usr/bin/env python3
"""Compiles every Python file under the given paths (python3 -m py_compile, without
writing __pycache__ into the source tree).

    check_python.py [--expect-invalid] PATH...

Exit status: 0 when all compile (with --expect-invalid: when every file fails to),
1 otherwise, 2 when no Python file was found.
"""
import argparse
import os
import sys

SKIP_DIRS = {"node_modules", ".terraform", ".git", "__pycache__"}


def collect(path, out):
    if os.path.isdir(path):
        for name in sorted(os.listdir(path)):
            if name not in SKIP_DIRS:
                child = os.path.join(path, name)
                if os.path.isdir(child) or name.endswith(".py"):
                    collect(child, out)
    else:
        out.append(path)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--expect-invalid", action="store_true")
    ap.add_argument("paths", nargs="+")
    args = ap.parse_args()
    files = []
    for p in args.paths:
        collect(p, files)
    if not files:
        print("error: no Python files found", file=sys.stderr)
        return 2
    ok = bad = 0
    for f in files:
        try:
            with open(f, "rb") as fh:
                compile(fh.read(), f, "exec", dont_inherit=True)
            ok += 1
            print(f"ok   {f}")
        except (SyntaxError, ValueError) as e:
            bad += 1
            print(f"FAIL {f}: {e}")
    if args.expect_invalid:
        print(f"{bad} passed, {ok} failed (each broken file must fail to compile)")
        return 0 if ok == 0 else 1
    print(f"{ok} passed, {bad} failed")
    return 0 if bad == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
