#!/usr/bin/env python3
"""Lints a GitHub Actions workflow that cannot run here (.github/workflows/release.yml),
by GitHub's workflow syntax rules and against this repository:

    check_workflow.py WORKFLOW SOURCE_DIR [--expect-invalid]

- syntax: `on` has triggers, `jobs` is a map of ids (letters, digits, -, _), each job has
  `runs-on` and `steps`; each step has exactly one of `uses`/`run`; `needs` names jobs
  that exist and make no cycle; `${{ }}` expressions use known contexts only, and
  `matrix.X` is a key of that job's matrix; `uses:` is pinned (`@v4` or a commit sha);
  `secrets.*` only in `with`/`env`, never inlined into `run`.
- the repository: every `bash scripts/X.sh` / `python3 tests/tools/X.py` it runs exists,
  every `--flag` passed to scripts/release.sh is one release.sh parses, every Dockerfile
  and build context exists.
- shell: every `run:` block passes `shellcheck -s bash` (expressions replaced by
  placeholders). Without shellcheck nothing is checked: the skip rule decides first
  (tests/support/skip.sh: skipped, or a failure in a strict run).
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

import yaml

CONTEXTS = {"github", "env", "vars", "job", "jobs", "steps", "runner", "secrets", "strategy", "matrix", "needs", "inputs"}
failures = []


def fail(msg):
    failures.append(msg)
    print("FAIL " + msg)


def ok(msg):
    print("ok   " + msg)


def expressions(value):
    if isinstance(value, str):
        yield from re.findall(r"\$\{\{\s*(.*?)\s*\}\}", value)
    elif isinstance(value, dict):
        for v in value.values():
            yield from expressions(v)
    elif isinstance(value, list):
        for v in value:
            yield from expressions(v)


def main():
    path, src = sys.argv[1], sys.argv[2]
    with open(path, encoding="utf-8") as f:
        wf = yaml.safe_load(f)
    if not isinstance(wf, dict):
        fail("the workflow is not a mapping")
        return
    on = wf.get("on", wf.get(True))  # YAML 1.1 reads a bare `on` as true
    (ok if on else fail)("the workflow has triggers (on:)")
    if isinstance(on, dict) and "push" in on:
        tags = (on["push"] or {}).get("tags")
        (ok if tags else fail)("push triggers on tags")
    jobs = wf.get("jobs")
    if not isinstance(jobs, dict) or not jobs:
        fail("jobs: is a non-empty mapping")
        return
    release_flags = set(re.findall(r"^\s+(--[a-z-]+)\)", open(os.path.join(src, "scripts/release.sh")).read(), re.M))
    shellcheck = shutil.which("shellcheck")
    for jid, job in jobs.items():
        where = f"jobs.{jid}"
        if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_-]*", str(jid)):
            fail(f"{where}: invalid job id")
        if not isinstance(job, dict):
            fail(f"{where}: not a mapping")
            continue
        (ok if "runs-on" in job else fail)(f"{where}: runs-on")
        needs = job.get("needs", [])
        needs = [needs] if isinstance(needs, str) else needs
        for n in needs:
            (ok if n in jobs and n != jid else fail)(f"{where}: needs {n} (a job of this workflow)")
        matrix = ((job.get("strategy") or {}).get("matrix") or {})
        mkeys = {k for k in matrix if k not in ("include", "exclude")}
        for inc in matrix.get("include", []) or []:
            mkeys |= set(inc)
        for e in expressions(job):
            ctx = re.match(r"[A-Za-z_]+", e)
            if not ctx or ctx.group(0) not in CONTEXTS:
                fail(f"{where}: unknown context in ${{{{ {e} }}}}")
            for key in re.findall(r"\bmatrix\.([A-Za-z0-9_-]+)", e):
                if key not in mkeys:
                    fail(f"{where}: matrix.{key} is not a key of the job's matrix")
        steps = job.get("steps")
        if not isinstance(steps, list) or not steps:
            fail(f"{where}: steps is a non-empty list")
            continue
        for i, st in enumerate(steps):
            sw = f"{where}.steps[{i}]" + (f" ({st.get('name')})" if isinstance(st, dict) and st.get("name") else "")
            if not isinstance(st, dict) or (("uses" in st) == ("run" in st)):
                fail(f"{sw}: exactly one of uses/run")
                continue
            if "uses" in st:
                u = st["uses"]
                if not re.fullmatch(r"[\w.-]+/[\w./-]+@(v\d+(\.\d+)*|[0-9a-f]{40})", u):
                    fail(f"{sw}: uses {u} is not pinned to a version tag or a commit")
                with_ = st.get("with") or {}
                for k in ("file", "context"):
                    v = with_.get(k)
                    if isinstance(v, str) and "${{" not in v and not os.path.exists(os.path.join(src, v)):
                        fail(f"{sw}: {k} {v} does not exist")
                continue
            run = st["run"]
            if "secrets." in run:
                fail(f"{sw}: a secret inlined into run (pass it through env)")
            for script in re.findall(r"\b(?:bash|python3|sh)\s+((?:scripts|tests/tools)/[\w./-]+)", run):
                (ok if os.path.exists(os.path.join(src, script)) else fail)(f"{sw}: {script} exists")
            for call in re.findall(r"scripts/release\.sh((?:[^\n]|\\\n)*)", run):
                for flag in re.findall(r"(?<![\w-])(--[a-z][a-z-]*)", call):
                    (ok if flag in release_flags else fail)(f"{sw}: release.sh takes {flag}")
            if shellcheck:
                script = re.sub(r"\$\{\{.*?\}\}", "PLACEHOLDER", run)
                with tempfile.NamedTemporaryFile("w", suffix=".sh", delete=False) as t:
                    t.write("#!/usr/bin/env bash\nset -e\n" + script)
                p = subprocess.run([shellcheck, "-s", "bash", "-S", "warning", t.name], capture_output=True, text=True)
                os.unlink(t.name)
                if p.returncode == 0:
                    ok(f"{sw}: shellcheck")
                else:
                    fail(f"{sw}: shellcheck:\n{p.stdout}")
    # the needs graph has no cycle
    seen, stack = set(), set()

    def visit(j):
        if j in stack:
            fail(f"needs: a cycle through {j}")
            return
        if j in seen:
            return
        stack.add(j)
        n = jobs[j].get("needs", []) if isinstance(jobs[j], dict) else []
        for x in [n] if isinstance(n, str) else n:
            if x in jobs:
                visit(x)
        stack.discard(j)
        seen.add(j)

    for j in jobs:
        visit(j)


if __name__ == "__main__":
    if not shutil.which("shellcheck"):  # the skip rule, before anything is checked
        rule = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support", "skip.sh")
        os.execvp("bash", ["bash", rule, "no-shellcheck", "shellcheck is not installed: the run blocks cannot be checked",
                           "bash scripts/install-deps.sh (Debian's shellcheck)"])
    expect_invalid = "--expect-invalid" in sys.argv
    sys.argv = [a for a in sys.argv if a != "--expect-invalid"]
    main()
    print(f"{len(failures)} problem(s)")
    if expect_invalid:
        sys.exit(0 if failures else 1)
    sys.exit(1 if failures else 0)
