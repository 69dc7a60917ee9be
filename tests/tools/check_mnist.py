#!/usr/bin/env python3
"""Keeps samples/mnist in step with the built-in `mnist` sample's contract
(/work/brief/CONTRACTS.md: image, container, command, args, PVC, replicas, GPUs) and tests
the parts of mnist.py that need no TensorFlow: its flags, the chief rule, TF_CONFIG parsing
and the export version numbering.

    check_mnist.py SAMPLES_DIR
"""
import importlib.util
import json
import os
import sys
import tempfile

import yaml

sys.dont_write_bytecode = True  # importing samples/mnist/mnist.py must not write into the source tree

IMAGE = "tensorflow/tensorflow:2.20.0-gpu"  # TensorFlow's own; the trainer comes from a ConfigMap
TRAINER_CM = "mnist-trainer"
COMMAND = ["python", "/opt/mnist/mnist.py"]
ARGS = ["--data-dir=/train/data", "--model-dir=/train/checkpoints", "--log-dir=/train/logs",
        "--export-dir=/train/export/mnist", "--epochs=5"]
PVC = "tfjob-mnist"

failures = []
passes = []


def check(cond, msg):
    if cond:
        passes.append(msg)
        print(f"ok   {msg}")
    else:
        print(f"FAIL {msg}")
        failures.append(msg)


def main():
    d = os.path.join(sys.argv[1], "mnist")
    with open(os.path.join(d, "tfjob.yaml"), encoding="utf-8") as f:
        job = yaml.safe_load(f)
    specs = job["spec"]["tfReplicaSpecs"]
    check(sorted(specs) == ["Chief", "Worker"], f"replica types Chief + Worker (got {sorted(specs)})")
    check(specs.get("Chief", {}).get("replicas") == 1, "one Chief")
    check(specs.get("Worker", {}).get("replicas") == 2, "two Workers")
    for rtype, spec in specs.items():
        pod = spec["template"]["spec"]
        c = [c for c in pod["containers"] if c["name"] == "tensorflow"]
        check(len(c) == 1, f"{rtype}: a container named tensorflow")
        if not c:
            continue
        c = c[0]
        check(c.get("image") == IMAGE, f"{rtype}: image {IMAGE} (got {c.get('image')})")
        check(c.get("command") == COMMAND, f"{rtype}: command {COMMAND}")
        check(c.get("args") == ARGS, f"{rtype}: args as the built-in sample (got {c.get('args')})")
        gpus = (c.get("resources") or {}).get("limits", {}).get("nvidia.com/gpu")
        check(str(gpus) == "1", f"{rtype}: one nvidia.com/gpu (got {gpus})")
        vols = {v["name"]: v for v in pod.get("volumes", [])}
        mounts = [m for m in c.get("volumeMounts", []) if m.get("mountPath") == "/train"]
        check(len(mounts) == 1 and vols.get(mounts[0]["name"], {}).get(
            "persistentVolumeClaim", {}).get("claimName") == PVC,
            f"{rtype}: claim {PVC} mounted at /train")
        tmounts = [m for m in c.get("volumeMounts", []) if m.get("mountPath") == "/opt/mnist"]
        check(len(tmounts) == 1 and vols.get(tmounts[0]["name"], {}).get(
            "configMap", {}).get("name") == TRAINER_CM,
            f"{rtype}: ConfigMap {TRAINER_CM} mounted at /opt/mnist, where the command expects mnist.py")
    with open(os.path.join(d, "pvc.yaml"), encoding="utf-8") as f:
        pvc = [x for x in yaml.safe_load_all(f) if x]
    check(len(pvc) == 1 and pvc[0]["metadata"]["name"] == PVC, f"pvc.yaml creates {PVC}")
    check("ReadWriteMany" in pvc[0]["spec"]["accessModes"], "the claim is ReadWriteMany")

    with open(os.path.join(d, "digit-1.json"), encoding="utf-8") as f:
        body = json.load(f)
    inst = body.get("instances") if isinstance(body, dict) else None
    check(isinstance(inst, list) and len(inst) == 1 and len(inst[0]) == 28
          and all(len(row) == 28 and all(isinstance(v, (int, float)) and 0 <= v <= 255 for v in row)
                  for row in inst[0]),
          "digit-1.json is one 28x28 image of pixel values 0..255 for the `images` input")

    spec = importlib.util.spec_from_file_location("mnist", os.path.join(d, "mnist.py"))
    mnist = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mnist)  # imports no TensorFlow at module level
    a = mnist.parse_args(ARGS)
    check((a.data_dir, a.model_dir, a.log_dir, a.export_dir, a.epochs) ==
          ("/train/data", "/train/checkpoints", "/train/logs", "/train/export/mnist", 5),
          "mnist.py accepts the contract's args with their meaning")
    try:
        mnist.parse_args(ARGS + ["--epochs=0"])
        check(False, "--epochs=0 is refused")
    except SystemExit as e:
        check(e.code == 2, "--epochs=0 is refused with a usage error")

    def task(cfg):
        if cfg is None:
            os.environ.pop("TF_CONFIG", None)
        else:
            os.environ["TF_CONFIG"] = json.dumps(cfg)
        t, i, has_chief, n = mnist.task_from_tf_config()
        return mnist.is_chief(t, i, has_chief), n

    cluster = {"chief": ["mnist-chief-0.default.svc:2222"],
               "worker": ["mnist-worker-0.default.svc:2222", "mnist-worker-1.default.svc:2222"]}
    check(task({"cluster": cluster, "task": {"type": "chief", "index": 0}}) == (True, 3),
          "the chief saves; three tasks take part")
    check(task({"cluster": cluster, "task": {"type": "worker", "index": 0}})[0] is False,
          "worker 0 is not the chief when a Chief exists")
    workers_only = {"worker": cluster["worker"]}
    check(task({"cluster": workers_only, "task": {"type": "worker", "index": 0}})[0] is True,
          "worker 0 saves when there is no Chief")
    check(task(None) == (True, 1), "without TF_CONFIG the process trains alone and saves")

    with tempfile.TemporaryDirectory() as tmp:
        base = os.path.join(tmp, "export")
        check(mnist.next_version(base) == 1, "first export is version 1")
        for n in ("1", "7", ".tmp-8-123", "notes"):
            os.makedirs(os.path.join(base, n))
        check(mnist.next_version(base) == 8, "next export is one more than the highest numeric version")

    print(f"{len(passes)} passed, {len(failures)} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
