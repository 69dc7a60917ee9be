#!/usr/bin/env python3
"""samples/terraform/abm-edge-gce as Terraform itself reads it (no cloud, no provider).

    check_terraform_edge.py TERRAFORM SOURCE_DIR

- The cluster config: templates/edge-cluster.yaml.tpl rendered by Terraform's own
  templatefile() (`terraform console`) with the names main.tf passes (every name the
  template uses is passed, none more) and the values of terraform.tfvars.sample: a
  standalone cluster with the edge profile on exactly the one node main.tf addresses, at the
  pre-filled version, in bmctl's cluster-<name> namespace; no node pool.
- The node's address: main.tf asks the module for one control plane VM and no worker, and
  10.200.0.3 is what the module's rule gives it (format("10.200.0.%d", idx + 2) over the
  admin workstation, then the control plane VMs).
- The variables' checks, by `terraform plan` on variables.tf alone: the sample's own values
  and the profile's recommended size pass; machines below the edge profile's minimum (2 vCPUs,
  4 GiB), non-N1 machines and disks below 128 GiB are refused with the variable's message.
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

import yaml

failures = []
passes = []


def check(cond, msg):
    (passes if cond else failures).append(msg)
    print(("ok   " if cond else "FAIL ") + msg)


def read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


def tfvar(text, name):
    m = re.search(r'^\s*' + name + r'\s*=\s*"([^"]*)"', text, re.M)
    return m.group(1) if m else None


def main():
    terraform, src = sys.argv[1], os.path.abspath(sys.argv[2])
    d = os.path.join(src, "samples/terraform/abm-edge-gce")
    main_tf = read(os.path.join(d, "main.tf"))
    tpl_path = os.path.join(d, "templates/edge-cluster.yaml.tpl")
    tpl = read(tpl_path)
    sample = read(os.path.join(d, "terraform.tfvars.sample"))
    env = dict(os.environ, TF_CLI_CONFIG_FILE="/dev/null", TF_IN_AUTOMATION="1", CHECKPOINT_DISABLE="1")

    # ---- the names main.tf passes and the template uses ----------------------------------
    call = re.search(r'templatefile\("\$\{path\.module\}/templates/edge-cluster\.yaml\.tpl",\s*\{(.*?)\}\)', main_tf, re.S)
    check(call is not None, "main.tf renders templates/edge-cluster.yaml.tpl with templatefile()")
    passed = set(re.findall(r"^\s*(\w+)\s*=", call.group(1), re.M)) if call else set()
    used = set()
    for expr in re.findall(r"\$\{([^}]*)\}", tpl):
        used |= {w for w in re.findall(r"\b([a-z_][a-z0-9_]*)\b", expr) if w not in ("jsonencode",)}
    check(passed == used, f"main.tf passes exactly the template's names (passed {sorted(passed)}, used {sorted(used)})")

    # ---- the node's address -------------------------------------------------------------
    counts = re.search(r'instance_count\s*=\s*\{\s*"controlplane"\s*:\s*(\d+)\s*"worker"\s*:\s*(\d+)\s*\}', main_tf)
    check(counts is not None and counts.groups() == ("1", "0"), "main.tf asks the module for one control plane VM and no worker")
    ip = re.search(r'node_vxlan_ip\s*=\s*"([\d.]+)"', main_tf)
    # the module: vm_names = [admin] + control planes + workers; vm_vxlan_ip = 10.200.0.(idx + 2)
    check(ip is not None and ip.group(1) == "10.200.0.3", "the node's VXLAN address is the module's for the first control plane VM")

    # ---- the cluster config, rendered by Terraform ----------------------------------------
    version = tfvar(sample, "abm_version")
    values = {"cluster_id": tfvar(sample, "abm_cluster_id"), "project_id": tfvar(sample, "project_id"),
              "region": tfvar(sample, "region"), "abm_version": version, "node_ip": ip.group(1) if ip else "",
              "gcp_accounts": ["me@example.com"]}
    hcl = "{" + ", ".join(f'{k} = {("[" + ", ".join(chr(34) + a + chr(34) for a in v) + "]") if isinstance(v, list) else chr(34) + str(v) + chr(34)}'
                          for k, v in values.items()) + "}"
    tmp = tempfile.mkdtemp(prefix="tf-edge-")
    try:
        r = subprocess.run([terraform, "console"], input=f'templatefile("{tpl_path}", {hcl})\n', capture_output=True, text=True,
                           cwd=tmp, env=env, timeout=120)
        out = r.stdout.strip()
        m = re.match(r"^<<EOT\n(.*)\nEOT$", out, re.S)
        check(r.returncode == 0 and m is not None, f"terraform console renders the template (exit {r.returncode}: {r.stderr.strip()[:300]})")
        docs = [x for x in yaml.safe_load_all(m.group(1))] if m else []
        check(len(docs) == 3, f"three documents: bmctl's key paths, the Namespace, the Cluster (got {len(docs)})")
        cluster = next((x for x in docs if isinstance(x, dict) and x.get("kind") == "Cluster"), {})
        spec = cluster.get("spec", {})
        check(spec.get("type") == "standalone", f"spec.type is standalone ({spec.get('type')})")
        check(spec.get("profile") == "edge", f"spec.profile is edge ({spec.get('profile')})")
        check(str(spec.get("anthosBareMetalVersion")) == version, f"the cluster's version is the pre-filled {version}")
        nodes = spec.get("controlPlane", {}).get("nodePoolSpec", {}).get("nodes", [])
        check(nodes == [{"address": "10.200.0.3"}], f"one node, the control plane VM ({nodes})")
        check(not any(isinstance(x, dict) and x.get("kind") == "NodePool" for x in docs), "no worker node pool")
        ns = next((x for x in docs if isinstance(x, dict) and x.get("kind") == "Namespace"), {}).get("metadata", {}).get("name")
        check(ns == "cluster-" + values["cluster_id"] == cluster.get("metadata", {}).get("namespace"),
              f"the Cluster is in bmctl's namespace cluster-{values['cluster_id']} ({ns})")
        admins = spec.get("clusterSecurity", {}).get("authorization", {}).get("clusterAdmin", {}).get("gcpAccounts")
        check(admins == ["me@example.com"], f"gcp_login_accounts become the cluster admins ({admins})")
        check(spec.get("nodeConfig", {}).get("podDensity", {}).get("maxPodsPerNode") == 110,
              "110 pods per node, what the edge profile's minimum assumes")

        # ---- the variables' checks ---------------------------------------------------------
        shutil.copy(os.path.join(d, "variables.tf"), tmp)
        r = subprocess.run([terraform, "init", "-backend=false", "-input=false", "-no-color"], capture_output=True, text=True,
                           cwd=tmp, env=env, timeout=300)
        check(r.returncode == 0, f"terraform init on variables.tf alone ({r.stderr.strip()[:300]})")

        def plan(**over):
            args = {"project_id": "p", "credentials_file": "c", "abm_version": version, "machine_type": tfvar(sample, "machine_type")}
            args.update(over)
            cmd = [terraform, "plan", "-input=false", "-no-color", "-lock=false", "-refresh=false"]
            for k, v in args.items():
                cmd += ["-var", f"{k}={v}"]
            return subprocess.run(cmd, capture_output=True, text=True, cwd=tmp, env=env, timeout=300)

        for mt in (tfvar(sample, "machine_type"), "custom-4-8192", "n1-standard-4", "n1-highcpu-8"):
            r = plan(machine_type=mt)
            check(r.returncode == 0, f"machine_type {mt} is accepted ({r.stderr.strip()[-300:]})")
        for mt, why in (("n1-standard-1", "1 vCPU"), ("custom-2-2048", "2 GiB"), ("n1-highcpu-4", "3.6 GB"), ("e2-standard-2", "not N1")):
            r = plan(machine_type=mt)
            check(r.returncode != 0 and "The edge profile needs at least 2 vCPUs and 4 GiB" in r.stderr,
                  f"machine_type {mt} ({why}) is refused with the profile's minimum")
        r = plan(boot_disk_size="100")
        check(r.returncode != 0 and "at least 128 GiB" in r.stderr, "a 100 GB disk is refused")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)

    print(f"{len(passes)} passed, {len(failures)} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
