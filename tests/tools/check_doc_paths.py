#!/usr/bin/env python3
"""Every sample command the README and the sample READMEs show, rendered by the real plugin,
agrees with what the MNIST trainer writes.

    check_doc_paths.py PLUGIN SOURCE_DIR [--docs FILE...]

- `kubectl tfjob submit mnist|hello ...` (every one shown): rendered with
  `--dry-run=client -o json`; it must render (no stale flag or sample name).
- `kubectl tfjob serve NAME ... --pvc CLAIM[:PATH]`: rendered with `--dry-run=client -o
  json`; the Deployment must mount the trainer's claim, and the directory TF Serving loads
  (the mount's subPath + --model_base_path below /models) must be where the trainer exports
  (its --export-dir below the claim's mountPath in the rendered `submit mnist`).
- `kubectl create configmap NAME --from-file=PATH`: NAME is the ConfigMap the sample's
  tfjob.yaml mounts, and the command finds PATH's file name under the mount.
A command found nowhere (no serve --pvc at all) is a failure: the check must check something.
"""
import glob
import json
import os
import posixpath
import re
import shlex
import subprocess
import sys

import yaml

failures = []
passes = []


def check(cond, msg):
    (passes if cond else failures).append(msg)
    print(("ok   " if cond else "FAIL ") + msg)


def doc_files(src):
    files = [os.path.join(src, "README.md")]
    files += sorted(glob.glob(os.path.join(src, "samples", "**", "README.md"), recursive=True))
    files += sorted(glob.glob(os.path.join(src, "samples", "mnist", "*.yaml")))
    files += sorted(glob.glob(os.path.join(src, "samples", "mnist", "Dockerfile")))
    return [f for f in files if ".terraform" not in f]


def commands(path):
    """(line number, words) of each `kubectl ...` command in a file: code lines (with `\\`
    continuations joined), inline `code spans`, and comment lines of YAML/Dockerfiles."""
    out = []
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    i = 0
    while i < len(lines):
        line, start = lines[i], i + 1
        while line.rstrip().endswith("\\") and i + 1 < len(lines):
            i += 1
            line = line.rstrip()[:-1] + " " + lines[i].lstrip("# ").strip()
        i += 1
        texts = re.findall(r"`([^`]*kubectl [^`]*)`", line) or [line]
        for t in texts:
            t = t.strip().lstrip("#").strip()
            m = re.search(r"\bkubectl (tfjob|create configmap) .*", t)
            if not m:
                continue
            cmd = re.split(r"\s+#\s|\s*&&\s*|\s*\|\s*", m.group(0))[0]
            try:
                words = shlex.split(cmd)
            except ValueError:
                continue
            out.append((start, words))
    return out


# what waits for a created job, refused with a dry run (nothing is created): left out of the
# rendering, with the value of those that take one
WAITING = {"--wait": 0, "--follow": 0, "--save": 1, "--timeout": 1}


def render(words):
    """The command's words with --dry-run=client -o json, before a `--` (whose words are the
    container's), and without the flags that wait for the job."""
    words = list(words)
    at = words.index("--") if "--" in words else len(words)
    kept, i = [], 0
    while i < at:
        name = words[i].split("=", 1)[0]
        if name in WAITING:
            i += 1 + (WAITING[name] if "=" not in words[i] else 0)
            continue
        kept.append(words[i])
        i += 1
    return kept + ["--dry-run=client", "-o", "json"] + words[at:]


def run(plugin, args, cwd):
    p = subprocess.run([plugin] + args, cwd=cwd, capture_output=True, text=True, timeout=60,
                       env={**os.environ, "KUBECONFIG": os.devnull})
    return p.returncode, p.stdout, p.stderr


def tensorflow(job, rtype="Chief"):
    pod = job["spec"]["tfReplicaSpecs"][rtype]["template"]["spec"]
    c = [c for c in pod["containers"] if c["name"] == "tensorflow"][0]
    return pod, c


def trainer_export(plugin, src):
    """(claim, export dir relative to the claim's root) from the rendered built-in mnist."""
    rc, out, err = run(plugin, ["submit", "mnist", "--dry-run=client", "-o", "json"], src)
    if rc != 0:
        check(False, f"submit mnist renders (exit {rc}: {err.strip()})")
        return None, None
    pod, c = tensorflow(json.loads(out))
    export = [a.split("=", 1)[1] for a in c.get("args", []) if a.startswith("--export-dir=")][0]
    vols = {v["name"]: v for v in pod["volumes"]}
    for m in c["volumeMounts"]:
        claim = vols[m["name"]].get("persistentVolumeClaim", {}).get("claimName")
        if claim and (export + "/").startswith(m["mountPath"].rstrip("/") + "/"):
            return claim, posixpath.relpath(export, m["mountPath"])
    check(False, f"the trainer's --export-dir {export} is on a claim it mounts")
    return None, None


def main():
    plugin, src = sys.argv[1], sys.argv[2]
    claim, export_rel = trainer_export(plugin, src)
    if not claim:
        return 1
    print(f"the trainer exports to {export_rel}/<version>/ on claim {claim}")
    with open(os.path.join(src, "samples", "mnist", "tfjob.yaml"), encoding="utf-8") as f:
        yjob = yaml.safe_load(f)
    ypod, yc = tensorflow(yjob)
    yvols = {v["name"]: v for v in ypod["volumes"]}
    serves = 0
    for path in doc_files(src):
        rel = os.path.relpath(path, src)
        for line, words in commands(path):
            where = f"{rel}:{line}: {' '.join(words)}"
            if words[:3] == ["kubectl", "create", "configmap"]:
                name = words[3]
                files = [w.split("=", 1)[1] for w in words if w.startswith("--from-file=")]
                mounts = [m for m in yc["volumeMounts"] if yvols.get(m["name"], {}).get("configMap", {}).get("name") == name]
                check(len(mounts) == 1, f"{where}: samples/mnist/tfjob.yaml mounts ConfigMap {name}")
                for fpath in files:
                    check(os.path.exists(os.path.join(src, fpath)), f"{where}: {fpath} exists")
                    if mounts:
                        script = posixpath.join(mounts[0]["mountPath"], posixpath.basename(fpath))
                        check(script in yc["command"] + yc.get("args", []),
                              f"{where}: the command runs {script}")
                continue
            if len(words) < 3 or words[1] != "tfjob":
                continue
            verb = words[2]
            if verb == "submit" and len(words) > 3 and words[3] in ("mnist", "hello"):
                rc, out, err = run(plugin, render(words[2:]), src)
                check(rc == 0, f"{where}: renders (exit {rc}{': ' + err.strip() if rc else ''})")
            elif verb == "serve" and any(w == "--pvc" or w.startswith("--pvc=") for w in words):
                serves += 1
                rc, out, err = run(plugin, render(words[2:]), src)
                if rc != 0:
                    check(False, f"{where}: renders (exit {rc}: {err.strip()})")
                    continue
                objs = json.loads(out)
                items = objs["items"] if objs.get("kind") == "List" else [objs]
                dep = [o for o in items if o["kind"] == "Deployment"][0]
                spec = dep["spec"]["template"]["spec"]
                c = [c for c in spec["containers"] if c["name"] == "tensorflow-serving"][0]
                base = [a.split("=", 1)[1] for a in c["args"] if a.startswith("--model_base_path=")][0]
                m = [m for m in c["volumeMounts"] if base.startswith(m["mountPath"].rstrip("/") + "/")][0]
                vol = [v for v in spec["volumes"] if v["name"] == m["name"]][0]
                served_claim = vol.get("persistentVolumeClaim", {}).get("claimName")
                served = posixpath.normpath(posixpath.join(m.get("subPath", ""),
                                                           posixpath.relpath(base, m["mountPath"])))
                check(served_claim == claim, f"{where}: serves claim {served_claim} (the trainer writes {claim})")
                check(served == export_rel,
                      f"{where}: TF Serving loads {served}/<version>/ on the claim, the trainer exports "
                      f"to {export_rel}/<version>/")
    check(serves > 0, "the READMEs show at least one `serve --pvc` command to check")
    print(f"{len(passes)} passed, {len(failures)} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
