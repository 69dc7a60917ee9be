#!/usr/bin/env python3
"""Independent judge: validates TFJobs against the official CRD's openAPIV3Schema.

    validate_crd.py --crd kubeflow.org_tfjobs.v1.9.0.yaml [--strict] [--min-jobs N] PATH...

PATH is a YAML/JSON file (several documents allowed), a directory (its *.yaml, *.yml and
*.json files), or - for stdin. Every document must be a kubeflow.org/v1 TFJob that the
schema accepts (python3-jsonschema, Draft 7 semantics for the OpenAPI v3 subset the CRD
uses). --strict also rejects fields the schema does not list (as `kubectl apply
--validate=strict`); the API server would otherwise prune them silently. --min-jobs fails
when fewer TFJobs were found (so an empty input cannot pass).

Exit status: 0 all valid, 1 a document is invalid or too few jobs, 2 usage or I/O error.
"""
import argparse
import copy
import json
import os
import sys

try:
    import jsonschema
    import yaml
except ImportError as e:
    print(f"error: {e}: install python3-jsonschema and python3-yaml", file=sys.stderr)
    sys.exit(2)


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
    for v in crd["spec"]["versions"]:
        if v["name"] == "v1":
            schema = v["schema"]["openAPIV3Schema"]
            return strict_schema(schema) if strict else schema
    raise ValueError(f"{path}: the CRD has no version v1")


def sources(paths):
    for p in paths:
        if p == "-":
            yield "stdin", sys.stdin.read()
        elif os.path.isdir(p):
            for name in sorted(os.listdir(p)):
                if name.endswith((".yaml", ".yml", ".json")):
                    full = os.path.join(p, name)
                    with open(full, encoding="utf-8") as f:
                        yield full, f.read()
        else:
            with open(p, encoding="utf-8") as f:
                yield p, f.read()


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


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--crd", required=True)
    ap.add_argument("--strict", action="store_true")
    ap.add_argument("--min-jobs", type=int, default=1)
    ap.add_argument("paths", nargs="+")
    a = ap.parse_args()
    try:
        schema = load_schema(a.crd, a.strict)
    except (OSError, ValueError, yaml.YAMLError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    cls = jsonschema.validators.validator_for(schema)
    validator = cls(schema)
    jobs = 0
    bad = 0
    try:
        for name, text in sources(a.paths):
            try:
                docs = documents(text)
            except (ValueError, yaml.YAMLError) as e:
                print(f"{name}: not YAML/JSON: {e}", file=sys.stderr)
                bad += 1
                continue
            for i, d in enumerate(docs, 1):
                where = f"{name} (document {i})"
                if not isinstance(d, dict) or d.get("kind") != "TFJob" or d.get("apiVersion") != "kubeflow.org/v1":
                    print(f"{where}: not a kubeflow.org/v1 TFJob", file=sys.stderr)
                    bad += 1
                    continue
                jobs += 1
                errors = sorted(validator.iter_errors(d), key=lambda e: list(e.absolute_path))
                for e in errors:
                    path = ".".join(str(p) for p in e.absolute_path) or "<root>"
                    print(f"{where}: {path}: {e.message}", file=sys.stderr)
                if errors:
                    bad += 1
                else:
                    meta = d.get("metadata") or {}
                    print(f"ok: {where}: TFJob {meta.get('name', '<unnamed>')}")
    except OSError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    if jobs < a.min_jobs:
        print(f"error: found {jobs} TFJob(s), expected at least {a.min_jobs}", file=sys.stderr)
        return 1
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
