#!/usr/bin/env python3
"""check_facts.py can fail: in a copy of the source tree, each drift a user would meet
(a sample's TF Serving tag, the help's training image, TensorBoard's default, a Terraform
argument the pinned module does not have) makes it fail and name the file, and the
untouched copy passes.

    check_facts_drift.py SOURCE_DIR
"""
import os
import shutil
import subprocess
import sys
import tempfile

DRIFTS = [  # (file, what the tree says, what a stale edit would say)
    ("samples/resnet-serving/resnet.yaml", "tensorflow/serving:2.20.0-gpu", "tensorflow/serving:2.16.1-gpu"),
    ("plugin/commands/submit.cpp", "tensorflow/tensorflow:2.20.0-gpu", "tensorflow/tensorflow:2.15.0-gpu"),
    ("include/tfjob/serving/tensorboard.hpp", '"tensorflow/tensorflow:2.20.0"', '"tensorflow/tensorflow:2.18.0"'),
    # an argument the pinned anthos-samples module does not declare
    ("samples/terraform/abm-gpu-gce/main.tf", "  nfs_server         = var.nfs_server", "  nfs_servers        = var.nfs_server"),
]


def main():
    src = os.path.abspath(sys.argv[1])
    here = os.path.dirname(os.path.abspath(__file__))
    ignore = shutil.ignore_patterns(".git", "build*", "node_modules", ".terraform", "dist")
    failures = []
    with tempfile.TemporaryDirectory() as tmp:
        copy = os.path.join(tmp, "src")
        shutil.copytree(src, copy, ignore=ignore, symlinks=True)
        def run():
            return subprocess.run([sys.executable, os.path.join(here, "check_facts.py"), copy],
                                  capture_output=True, text=True)
        r = run()
        if r.returncode != 0:
            print(r.stdout[-3000:])
            return "the untouched copy fails"
        for rel, now, stale in DRIFTS:
            path = os.path.join(copy, rel)
            text = open(path, encoding="utf-8").read()
            if now not in text:
                failures.append(f"{rel} no longer says {now}: update this test")
                continue
            open(path, "w", encoding="utf-8").write(text.replace(now, stale, 1))
            r = run()
            named = [l for l in r.stdout.splitlines() if l.startswith("FAIL ") and rel in l]
            if r.returncode == 0 or not named:
                failures.append(f"{rel} saying {stale}: check_facts.py exit {r.returncode}, FAIL lines naming it: {named}")
            else:
                print(f"ok   {rel} saying {stale}: {named[0]}")
            open(path, "w", encoding="utf-8").write(text)
    for f in failures:
        print("FAIL " + f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
