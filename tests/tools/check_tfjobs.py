#!/usr/bin/env python3
"""Validates every TFJob in the given YAML files against the official CRD schema.

    check_tfjobs.py --crd kubeflow.org_tfjobs.v1.9.0.yaml [--expect-invalid] PATH...

PATH is a file or a directory (searched recursively for *.yaml / *.yml). Each document with
kind TFJob is checked against the CRD's openAPIV3Schema (version v1) with python3-jsonschema,
strictly: an object schema that lists its properties rejects fields it does not list, as
`kubectl apply --validate=strict` does (the API server would silently prune them, which
hides typos such as `replicaSpec`). Other documents are left to validate_k8s.mjs.

Exit status: 0 when every TFJob is valid (with --expect-invalid: when every file given holds
a TFJob that is rejected), 1 when not, 2 on usage or I/O errors.
"""
import argparse
import copy
import os
import re
import sys

try:
    import jsonschema
    import yaml
except ImportError as e:  # the ctest only runs this with a python that has both
    print(f"error: {e}: install python3-jsonschema and python3-yaml", file=sys.stderr)
    sys.exit(2)

DNS1123_SUBDOMAIN = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$")
SKIP_DIRS = {"node_modules", ".terraform", ".git"}


def strict(schema):
    """Returns a copy of an OpenAPI v3 structural schema that rejects unknown fields."""
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


def load_schema(crd_path):
    with open(crd_path, encoding="utf-8") as f:
        crd = yaml.safe_load(f)
    if not isinstance(crd, dict) or crd.get("kind") != "CustomResourceDefinition":
        raise ValueError(f"{crd_path}: not a CustomResourceDefinition")
    for v in crd["spec"]["versions"]:
        if v["name"] == "v1":
            return crd["spec"]["group"], strict(v["schema"]["openAPIV3Schema"])
    raise ValueError(f"{crd_path}: no version v1")


def collect(path, out):
    if os.path.isdir(path):
        for name in sorted(os.listdir(path)):
            if name in SKIP_DIRS:
                continue
            child = os.path.join(path, name)
            if os.path.isdir(child) or name.endswith((".yaml", ".yml")):
                collect(child, out)
    elif os.path.exists(path):
        out.append(path)
    else:
        raise FileNotFoundError(path)


def check_doc(doc, group, validator):
    """Returns a list of error strings for one TFJob document."""
    errors = []
    if doc.get("apiVersion") != f"{group}/v1":
        errors.append(f"apiVersion: must be {group}/v1, not {doc.get('apiVersion')!r}")
    meta = doc.get("metadata") or {}
    name = meta.get("name")
    if not name and not meta.get("generateName"):
        errors.append("metadata.name: required")
    elif name and (len(name) > 253 or not DNS1123_SUBDOMAIN.match(name)):
        errors.append(f"metadata.name: {name!r} is not a lower-case DNS-1123 name")
    for e in sorted(validator.iter_errors(doc), key=lambda e: list(e.absolute_path)):
        where = ".".join(str(p) for p in e.absolute_path) or "<root>"
        errors.append(f"{where}: {e.message}")
    return errors


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--crd", required=True, help="the TFJob CustomResourceDefinition YAML")
    ap.add_argument("--expect-invalid", action="store_true",
                    help="succeed only when every file holds a TFJob the schema rejects")
    ap.add_argument("paths", nargs="+")
    args = ap.parse_args()
    try:
        group, schema = load_schema(args.crd)
        files = []
        for p in args.paths:
            collect(p, files)
    except (OSError, ValueError, KeyError, yaml.YAMLError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    validator = jsonschema.Draft7Validator(schema)

    passed = failed = 0
    rejected_files = 0
    for path in files:
        rejected = False
        try:
            with open(path, encoding="utf-8") as f:
                docs = list(yaml.safe_load_all(f))
        except yaml.YAMLError as e:
            print(f"FAIL {path}: YAML does not parse: {e}")
            failed += 1
            rejected_files += 1
            continue
        for i, doc in enumerate(docs, 1):
            if not isinstance(doc, dict) or doc.get("kind") != "TFJob":
                continue
            name = (doc.get("metadata") or {}).get("name", "<no name>")
            errs = check_doc(doc, group, validator)
            if errs:
                failed += 1
                rejected = True
                print(f"FAIL {path} (document {i}): TFJob {name}")
                for e in errs:
                    print(f"    {e}")
            else:
                passed += 1
                print(f"ok   {path} (document {i}): TFJob {name}")
        if rejected:
            rejected_files += 1
        elif args.expect_invalid:
            print(f"UNEXPECTED PASS {path}: expected the CRD schema to reject a TFJob in it")

    if args.expect_invalid:
        ok = rejected_files == len(files)
        print(f"{rejected_files} passed, {len(files) - rejected_files} failed "
              "(each broken file must be rejected)")
        return 0 if ok else 1
    if passed + failed == 0:
        print("error: no TFJob found: nothing was checked", file=sys.stderr)
        return 1
    print(f"{passed} passed, {failed} failed")
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
