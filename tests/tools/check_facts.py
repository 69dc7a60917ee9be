#!/usr/bin/env python3
"""The facts the guide states in several places agree with their one source.

    check_facts.py SOURCE_DIR

- The training operator's install ref: samples/training-operator/kustomization.yaml is the
  source; the plugin's hint (include/tfjob/workflow/preflight.hpp), the READMEs, docs,
  scripts and tests name the same repository and ref, and every "training operator v1.9.N"
  says the same N.
- The claim's access mode: samples/mnist/pvc.yaml is the source; the SDK's default for a
  created claim (include/tfjob/workflow/cluster/submit.hpp) and what the README and docs say a
  created claim gets agree.
- The cost: computed from the Terraform README's own prices and the defaults in
  variables.tf (VMs: admin workstation + control plane + workers); the figure both READMEs
  state is that sum.
- abm_version: variables.tf gives no default, terraform.tfvars.sample pre-fills one, and
  the Terraform README and the guide name that same version.
- The edge sample (samples/terraform/abm-edge-gce): the same for its abm_version (its README
  and docs/edge.md), and its cost from its README's prices (two VMs and their disks), as its
  README and docs/edge.md state it.
- The Terraform module: the anthos-samples commit main.tf pins is the one whose variables
  tests/data/terraform/anthos-bm-gcp-terraform.<commit>.variables records; every argument
  main.tf passes is one of them, and every required one is passed.
- The TensorFlow line: include/tfjob/serving/manifests.hpp's default_serving_version is the
  source; TensorBoard's default image, the MNIST sample's training image, and every
  tensorflow/tensorflow or tensorflow/serving tag, --serving-version and KServe
  runtimeVersion that help (plugin/), the SDK (include/), the README, docs/, krew/, scripts/
  and samples/ quote name that release (tests/ and bench/ use their own on purpose).
"""
import glob
import os
import re
import sys

failures = []
passes = []


def check(cond, msg):
    (passes if cond else failures).append(msg)
    print(("ok   " if cond else "FAIL ") + msg)


def read(src, rel):
    with open(os.path.join(src, rel), encoding="utf-8") as f:
        return f.read()


def text_files(src):
    skip = ("build", ".git", "node_modules", ".terraform")
    for dirpath, dirnames, filenames in os.walk(src):
        dirnames[:] = [d for d in dirnames if d not in skip and not d.startswith("build")]
        for n in filenames:
            if n.endswith((".md", ".yaml", ".yml", ".sh", ".hpp", ".cpp", ".py", ".tf")):
                yield os.path.join(dirpath, n)


def tf_default(variables, name):
    m = re.search(r'variable "' + name + r'" \{(.*?)\n\}', variables, re.S)
    if not m:
        return None
    d = re.search(r"^\s*default\s*=\s*\"?([^\"\n]+)\"?", m.group(1), re.M)
    return d.group(1).strip() if d else None


def main():
    src = sys.argv[1]

    # ---- the training operator's install ref ------------------------------------------
    kust = read(src, "samples/training-operator/kustomization.yaml")
    m = re.search(r"^- (github\.com/kubeflow/[\w-]+\.git/manifests/overlays/standalone)\?ref=(v1\.9\.\d+)$", kust, re.M)
    check(m is not None, "kustomization.yaml pins the standalone overlay to a v1.9 ref")
    if m:
        repo, ref = m.group(1), m.group(2)
        hint = read(src, "include/tfjob/workflow/preflight.hpp")
        check(f'{repo}?ref={ref}' in hint, f"the plugin's install hint names {repo}?ref={ref}")
        url = re.compile(r"github\.com/kubeflow/(?:trainer|training-operator)\.git/manifests/overlays/[\w-]+\?ref=[\w.]+")
        named = re.compile(r"[Tt]raining operator v(1\.9\.\d+)")
        for path in text_files(src):
            rel = os.path.relpath(path, src)
            if rel.startswith("tests/tools/check_facts.py"):
                continue
            with open(path, encoding="utf-8", errors="replace") as f:
                text = f.read()
            for u in url.findall(text):
                check(u == f"{repo}?ref={ref}", f"{rel}: {u}")
            for v in re.findall(r"standalone\?ref=(v[\w.]+)", text):
                check(v == ref, f"{rel}: standalone?ref={v} (the pinned ref is {ref})")
            for v in named.findall(text):
                check("v" + v == ref, f"{rel}: training operator v{v} (the pinned ref is {ref})")

    # ---- the claim's access mode -------------------------------------------------------
    pvc = read(src, "samples/mnist/pvc.yaml")
    modes = re.findall(r"^\s*accessModes:\s*\n\s*-\s*(\w+)", pvc, re.M)
    check(len(modes) == 1, "samples/mnist/pvc.yaml names one access mode")
    if modes:
        mode = modes[0]
        sdk = re.search(r'default_claim_access_mode = "(\w+)"', read(src, "include/tfjob/workflow/cluster/submit.hpp"))
        check(sdk is not None and sdk.group(1) == mode,
              f"the SDK creates claims {sdk.group(1) if sdk else '?'} (pvc.yaml: {mode})")
        readme = read(src, "README.md")
        said = re.findall(r"creates the claim `tfjob-mnist` \(10Gi, (\w+)", readme)
        check(said == [mode], f"README: submit mnist creates the claim {said} (pvc.yaml: {mode})")
        wf = read(src, "docs/workflow.md")
        said = re.findall(r"\((Read\w+)[:,;]", wf)
        check(bool(said) and all(s == mode for s in said), f"docs/workflow.md: created claims are {said}")
        for rel in ("README.md", "docs/workflow.md", "docs/submit.md", "samples/mnist/README.md"):
            text = read(src, rel)
            for s in re.findall(r"tfjob-mnist[^.\n]{0,40}?(Read(?:Write|Only)\w+)", text):
                check(s == mode, f"{rel}: the claim tfjob-mnist is {s} (pvc.yaml: {mode})")

    # ---- the cost ----------------------------------------------------------------------
    tfdir = "samples/terraform/abm-gpu-gce"
    tfreadme = read(src, f"{tfdir}/README.md")
    variables = read(src, f"{tfdir}/variables.tf")
    def price(pat):
        m = re.search(pat, tfreadme, re.S)
        check(m is not None, f"{tfdir}/README.md states /{pat}/")
        return float(m.group(1)) if m else float("nan")

    vm_h = price(r"each n1-standard-8 about \$([\d.]+)/hour")
    gpu_h = price(r"each V100 about \$([\d.]+)/hour")
    disk_m = price(r"pd-ssd about \$([\d.]+)/month per VM")
    fs_m = price(r"Filestore Basic HDD 1 TiB about \$([\d.]+)/month")
    hours = price(r"([\d]+) hours\s+a month")
    check(tf_default(variables, "machine_type") == "n1-standard-8", "the priced machine type is the default")
    workers = int(tf_default(variables, "worker_count"))
    cps = int(tf_default(variables, "controlplane_count"))
    gpus = int(tf_default(variables, "gpus_per_worker")) * workers
    vms = 1 + cps + workers  # the admin workstation too
    nfs = tf_default(variables, "nfs_server") == "true"
    hourly = vms * vm_h + gpus * gpu_h + vms * disk_m / hours + (fs_m / hours if nfs else 0)
    figure = f"{hourly:.2f}"
    print(f"the defaults: {vms} VMs, {gpus} V100s, Filestore {nfs}: ${figure}/hour")
    stated = re.findall(r"about \*\*\$([\d.]+) an hour", tfreadme)
    check(stated == [figure], f"{tfdir}/README.md states ${stated} an hour (the prices give ${figure})")
    day = re.findall(r"~\$([\d]+) a day", tfreadme)
    check(day == [str(round(hourly * 24))], f"{tfdir}/README.md: ~${day} a day (24 x ${figure} = {hourly * 24:.0f})")
    guide = re.findall(r"costs about\s+\*\*\$([\d.]+) an hour", read(src, "README.md"))
    check(guide == [figure], f"README.md: the guide states ${guide} an hour (the prices give ${figure})")

    # ---- abm_version -------------------------------------------------------------------
    check(tf_default(variables, "abm_version") is None, "variables.tf gives abm_version no default")
    sample = re.search(r'^abm_version\s*=\s*"([^"]+)"', read(src, f"{tfdir}/terraform.tfvars.sample"), re.M)
    check(sample is not None, "terraform.tfvars.sample pre-fills abm_version")
    if sample:
        v = sample.group(1)
        for rel in (f"{tfdir}/README.md", "README.md"):
            text = read(src, rel)
            check(f"`{v}`" in text or f"({v})" in text, f"{rel} names the pre-filled abm_version {v}")
            check("abm_version` has no default:" not in text, f"{rel} does not say the sample has no abm_version")

    # ---- the edge sample (samples/terraform/abm-edge-gce, docs/edge.md) -------------------
    edir = "samples/terraform/abm-edge-gce"
    ereadme = read(src, f"{edir}/README.md")
    evars = read(src, f"{edir}/variables.tf")
    eguide = read(src, "docs/edge.md")
    check(tf_default(evars, "abm_version") is None, "the edge sample's variables.tf gives abm_version no default")
    esample = re.search(r'^abm_version\s*=\s*"([^"]+)"', read(src, f"{edir}/terraform.tfvars.sample"), re.M)
    check(esample is not None, "the edge sample's terraform.tfvars.sample pre-fills abm_version")
    if esample:
        for rel, text in ((f"{edir}/README.md", ereadme), ("docs/edge.md", eguide)):
            check(f"`{esample.group(1)}`" in text or f"**{esample.group(1)}**" in text, f"{rel} names the pre-filled abm_version {esample.group(1)}")
    m = re.search(r"each (n1-standard-2) about \$([\d.]+)/hour", ereadme)
    d = re.search(r"128 GB pd-ssd about \$([\d.]+)/month per VM", ereadme)
    h = re.search(r"([\d]+) hours a month", ereadme)
    check(m is not None and d is not None and h is not None, f"{edir}/README.md states its VM, disk and hours")
    if m and d and h:
        check(tf_default(evars, "machine_type") == m.group(1), "the edge sample's priced machine type is its default")
        hourly = 2 * float(m.group(2)) + 2 * float(d.group(1)) / int(h.group(1))  # the admin workstation and the node
        figure = f"{hourly:.2f}"
        check(re.findall(r"about \*\*\$([\d.]+) an hour", ereadme) == [figure], f"{edir}/README.md states ${figure} an hour")
        check(re.findall(r"~\$([\d]+) a day", ereadme) == [str(round(hourly * 24))], f"{edir}/README.md: ~${round(hourly * 24)} a day")
        check(re.findall(r"costs\s+about\s+\*\*\$([\d.]+) an hour", eguide) == [figure], f"docs/edge.md states ${figure} an hour")
    # ---- the pinned Terraform module's variables ------------------------------------------
    main = read(src, f"{tfdir}/main.tf")
    pin = re.search(r'anthos-samples//anthos-bm-gcp-terraform\?ref=([0-9a-f]{40})"', main)
    check(pin is not None, f"{tfdir}/main.tf pins anthos-bm-gcp-terraform to a commit")
    if pin:
        recorded = glob.glob(os.path.join(src, "tests/data/terraform", f"anthos-bm-gcp-terraform.{pin.group(1)[:8]}.variables"))
        check(len(recorded) == 1, f"the variables of the pinned commit {pin.group(1)[:8]} are recorded in tests/data/terraform")
        if recorded:
            declared = {}
            for line in open(recorded[0], encoding="utf-8"):
                if line.strip() and not line.startswith("#"):
                    name, kind = line.split()
                    declared[name] = kind
            check(pin.group(1) in open(recorded[0], encoding="utf-8").read(), "the record names the full commit main.tf pins")
            block = re.search(r'module "abm" \{(.*?)\n\}', main, re.S)
            passed = set(re.findall(r"^  (\w+)\s*=", block.group(1), re.M)) - {"source"} if block else set()
            check(len(passed) >= 10, f"{tfdir}/main.tf passes {len(passed)} arguments to the module")
            for a in sorted(passed):
                check(a in declared, f"{tfdir}/main.tf passes {a}, a variable of the pinned module")
            for v, kind in sorted(declared.items()):
                if kind == "required":
                    check(v in passed, f"{tfdir}/main.tf passes the module's required {v}")

    # ---- the TensorFlow line ------------------------------------------------------------
    m = re.search(r'default_serving_version = "([0-9.]+)"', read(src, "include/tfjob/serving/manifests.hpp"))
    check(m is not None, "include/tfjob/serving/manifests.hpp sets default_serving_version")
    if m:
        release = m.group(1)
        tb = re.search(r'default_tensorboard_image = "([^"]+)"', read(src, "include/tfjob/serving/tensorboard.hpp"))
        check(tb is not None and tb.group(1) == f"tensorflow/tensorflow:{release}",
              f"TensorBoard's default image {tb.group(1) if tb else '?'} is TensorFlow {release}")
        mn = re.search(r'\.image\("([^"]+)"\)', read(src, "plugin/common/sample_mnist.cpp"))
        check(mn is not None and mn.group(1) == f"tensorflow/tensorflow:{release}-gpu",
              f"submit mnist trains on {mn.group(1) if mn else '?'} (serve's default is TF Serving {release})")
        tag = re.compile(r"tensorflow/(?:tensorflow|serving):(\d+\.\d+\.\d+)")
        # (the version warning's own advice, "or newer (--serving-version X)", names a newer release on purpose)
        flag = re.compile(r"(?:(?<!or newer \()--serving-version[ =]|runtimeVersion: )(\d+\.\d+\.\d+)")
        quoted = 0
        for path in text_files(src):
            rel = os.path.relpath(path, src)
            if rel.startswith(("tests/", "bench/")) or rel == "BENCHMARKS.md":
                continue
            if not (rel in ("README.md",) or rel.startswith(("docs/", "samples/", "krew/", "plugin/", "include/", "scripts/", "gpu/"))):
                continue
            with open(path, encoding="utf-8", errors="replace") as f:
                text = f.read()
            for n, line in enumerate(text.splitlines(), 1):
                for v in tag.findall(line) + flag.findall(line):
                    quoted += 1
                    check(v == release, f"{rel}:{n}: TensorFlow {v} (the guide's line is {release})")
        said = re.findall(r"`--serving-version`\s+\(default (\d+\.\d+\.\d+)", read(src, "docs/serving.md"))
        check(said == [release], f"docs/serving.md: --serving-version's default is {said} (the code's: {release})")
        check(quoted >= 10, f"the TensorFlow line is quoted {quoted} times in help, docs, README and samples")

    print(f"{len(passes)} passed, {len(failures)} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
