#!/usr/bin/env python3
"""Independent judge: validates TFJobs (or the objects of any other CRD given, e.g. KServe's
InferenceService: the kind is the CRD's spec.names.kind, the version its storage version)
against the official CRD's openAPIV3Schema.

    validate_crd.py --crd kubeflow.org_tfjobs.v1.9.4.yaml [--strict] [--other-kinds]
                    [--min-jobs N | --expect-invalid] PATH...

PATH is a YAML/JSON file (several documents and `kind: List` allowed), a directory
(searched recursively for *.yaml, *.yml and *.json, skipping node_modules, .terraform and
.git), or - for stdin. Every document must be a kubeflow.org/v1 TFJob that the schema
accepts (python3-jsonschema, Draft 7 semantics for the OpenAPI v3 subset the CRD uses) and
whose metadata.name is a DNS-1123 subdomain, as the API server requires of every object.

  --strict          also reject fields the schema does not list (as `kubectl apply
                    --validate=strict`); the API server would otherwise prune them silently,
                    which hides typos such as `replicaSpec`
  --other-kinds     leave documents of other kinds alone (e.g. a sample directory's PVCs
                    and Deployments, which tests/tools/validate_k8s.mjs judges)
  --min-jobs N      fail when fewer TFJobs were found, so an empty input cannot pass (default 1)
  --expect-invalid  succeed only when every file given holds a TFJob that is rejected (to
                    prove the judge can fail)

Exit status: 0 all valid (or, with --expect-invalid, every file rejected), 1 otherwise,
2 usage or I/O error.
"""
import argparse
import copy
import json
import os
import re
import sys

try:
    import jsonschema
    import yaml
except ImportError as e:
    print(f"error: {e}: install python3-jsonschema and python3-yaml", file=sys.stderr)
    sys.exit(2)

DNS1123_SUBDOMAIN = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$")
SKIP_DIRS = {"node_modules", ".terraform", ".git"}


def strict_schema(schema):
    s = copy.deepcopy(schema)

    def walk(node):
        if isinstance(node, dict):
            if (node.get("type") == "object" and "properties" in node
                    and "additionalProperties" not in node
                    and not node.get("x-kubernetes-preserve-unknown-fields")):
                node["additionalProperties"] = False
            for v in node.values():
                walk(v)
        elif isinstance(node, list):
            for v in node:
                walk(v)

    walk(s)
    return s


def load_schema(path, strict):
    with open(path, encoding="utf-8") as f:
        crd = yaml.safe_load(f)
    if not isinstance(crd, dict) or crd.get("kind") != "CustomResourceDefinition":
        raise ValueError(f"{path}: not a CustomResourceDefinition")
    kind = crd["spec"]["names"]["kind"]
    for v in crd["spec"]["versions"]:
        if v.get("storage"):
            schema = v["schema"]["openAPIV3Schema"]
            return crd["spec"]["group"], v["name"], kind, (strict_schema(schema) if strict else schema)
    raise ValueError(f"{path}: the CRD has no storage version")


def files_under(path):
    if os.path.isdir(path):
        for name in sorted(os.listdir(path)):
            if name in SKIP_DIRS:
                continue
            child = os.path.join(path, name)
            if os.path.isdir(child) or name.endswith((".yaml", ".yml", ".json")):
                yield from files_under(child)
    else:
        yield path


def sources(paths):
    for p in paths:
        if p == "-":
            yield "stdin", sys.stdin.read()
            continue
        for full in files_under(p):
            with open(full, encoding="utf-8") as f:
                yield full, f.read()


def documents(text):
    stripped = text.lstrip()
    if stripped.startswith("{") or stripped.startswith("["):
        doc = json.loads(text)
        docs = doc if isinstance(doc, list) else [doc]
    else:
        docs = [d for d in yaml.safe_load_all(text) if d is not None]
    out = []
    for d in docs:
        if isinstance(d, dict) and d.get("kind") == "List" and isinstance(d.get("items"), list):
            out.extend(d["items"])
        else:
            out.append(d)
    return out


def job_errors(doc, validator):
    """The schema's complaints about one TFJob, and the API server's about its name."""
    errors = []
    meta = doc.get("metadata") or {}
    name = meta.get("name")
    if not name and not meta.get("generateName"):
        errors.append("metadata.name: required")
    elif name and (len(name) > 253 or not DNS1123_SUBDOMAIN.match(str(name))):
        errors.append(f"metadata.name: {name!r} is not a lower-case DNS-1123 subdomain")
    for e in sorted(validator.iter_errors(doc), key=lambda e: list(e.absolute_path)):
        path = ".".join(str(p) for p in e.absolute_path) or "<root>"
        errors.append(f"{path}: {e.message}")
    return errors


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--crd", required=True)
    ap.add_argument("--strict", action="store_true")
    ap.add_argument("--other-kinds", action="store_true")
    ap.add_argument("--min-jobs", type=int, default=1)
    ap.add_argument("--expect-invalid", action="store_true")
    ap.add_argument("paths", nargs="+")
    a = ap.parse_args()
    try:
        group, version, kind, schema = load_schema(a.crd, a.strict)
    except (OSError, ValueError, KeyError, yaml.YAMLError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    validator = jsonschema.validators.validator_for(schema)(schema)
    want_api = f"{group}/{version}"
    jobs = valid = bad = files = rejected_files = 0
    try:
        for name, text in sources(a.paths):
            files += 1
            rejected = False
            try:
                docs = documents(text)
            except (ValueError, yaml.YAMLError) as e:
                print(f"FAIL {name}: not YAML/JSON: {e}", file=sys.stderr)
                bad += 1
                rejected_files += 1
                continue
            for i, d in enumerate(docs, 1):
                where = f"{name} (document {i})"
                if not isinstance(d, dict) or d.get("kind") != kind:
                    if a.other_kinds:
                        continue
                    print(f"FAIL {where}: not a {want_api} {kind}", file=sys.stderr)
                    bad += 1
                    rejected = True
                    continue
                jobs += 1
                errors = job_errors(d, validator)
                if d.get("apiVersion") != want_api:
                    errors.insert(0, f"apiVersion: must be {want_api}, not {d.get('apiVersion')!r}")
                meta = d.get("metadata") or {}
                if errors:
                    bad += 1
                    rejected = True
                    print(f"FAIL {where}: {kind} {meta.get('name', '<unnamed>')}", file=sys.stderr)
                    for e in errors:
                        print(f"    {e}", file=sys.stderr)
                else:
                    valid += 1
                    print(f"ok: {where}: {kind} {meta.get('name', '<unnamed>')}")
            if rejected:
                rejected_files += 1
            elif a.expect_invalid:
                print(f"UNEXPECTED PASS {name}: expected the CRD schema to reject a {kind} in it", file=sys.stderr)
    except OSError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    if a.expect_invalid:
        print(f"{rejected_files} of {files} files rejected (each must be)")
        return 0 if files > 0 and rejected_files == files else 1
    if jobs < a.min_jobs:
        print(f"error: found {jobs} {kind}(s), expected at least {a.min_jobs}", file=sys.stderr)
        return 1
    print(f"{valid} of {jobs} {kind}(s) valid")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
