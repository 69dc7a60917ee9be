#!/usr/bin/env python3
"""Checks a krew plugin manifest the way krew and the krew-index CI do.

    check_krew.py MANIFEST [--archives DIR] [--platforms OS/ARCH,...] [--expect-invalid]

The structural rules are krew's own (sigs.k8s.io/krew internal/index/validation/validate.go,
ValidatePlugin): apiVersion krew.googlecontainertools.github.com/v1alpha2, kind Plugin, a
safe name (^[\\w-]+$, no Windows device name) equal to the manifest's file name, a one-line
shortDescription, a semantic version with a leading "v" (k8s.io/apimachinery ParseSemantic),
at least one platform, and per platform: uri, a 64-hex lower-case sha256, bin, files either
absent or non-empty with from/to, a non-empty selector using only the keys os and arch.
Then those of cmd/validate-krew-manifest: every platform matches a supported os/arch, no
os/arch is matched by two platforms, and installing each platform works and yields a
LICENSE file.

With --archives DIR each platform's archive (the base name of its uri) must be in DIR with
the sha256 the manifest gives; it is then "installed" as krew does (extracted, the file
operations applied) and the bin must be an executable file, next to a LICENSE.
With --platforms each OS/ARCH listed must have a platform whose selector is exactly it.

Exit status: 0 valid (with --expect-invalid: rejected), 1 otherwise, 2 on usage errors.
"""
import argparse
import glob
import hashlib
import os
import re
import shutil
import stat
import sys
import tarfile
import tempfile
import zipfile

try:
    import yaml
except ImportError:
    print("error: python3-yaml is required", file=sys.stderr)
    sys.exit(2)

API_VERSION = "krew.googlecontainertools.github.com/v1alpha2"
SAFE_NAME = re.compile(r"^[\w-]+$")
WINDOWS_FORBIDDEN = {"CON", "PRN", "AUX", "NUL"} | {f"COM{i}" for i in range(1, 10)} | {
    f"LPT{i}" for i in range(1, 10)}
SHA256 = re.compile(r"^[a-f0-9]{64}$")
# k8s.io/apimachinery/pkg/util/version ParseSemantic: exactly three numeric components, no
# leading zeros, optional -prerelease and +build (krew additionally demands the leading v).
SEMVER = re.compile(r"^v(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)"
                    r"(-[0-9A-Za-z-]+(\.[0-9A-Za-z-]+)*)?(\+[0-9A-Za-z-]+(\.[0-9A-Za-z-]+)*)?$")
# cmd/validate-krew-manifest allPlatforms().
PLATFORMS = [("windows", "386"), ("windows", "amd64"), ("windows", "arm64"),
             ("linux", "386"), ("linux", "amd64"), ("linux", "arm"), ("linux", "arm64"),
             ("linux", "ppc64le"), ("darwin", "386"), ("darwin", "amd64"), ("darwin", "arm64")]
LICENSE_NAMES = {"license", "license.txt", "license.md", "licenses", "licenses.txt",
                 "licenses.md", "copying", "copying.txt"}


def selector_error(sel):
    if sel is None:
        return "nil selector is not supported"
    if not isinstance(sel, dict):
        return "selector must be a mapping"
    labels = sel.get("matchLabels")
    exprs = sel.get("matchExpressions")
    if labels is None and not exprs:
        return "empty selector is not supported"
    keys = list((labels or {}).keys()) + [e.get("key") for e in (exprs or [])]
    for k in keys:
        if k not in ("os", "arch"):
            return f'key "{k}" not supported'
    if labels is not None and len(labels) == 0:
        return "`matchLabels` specified but empty"
    if exprs is not None and len(exprs) == 0:
        return "`matchExpressions` specified but empty"
    for e in exprs or []:
        if e.get("operator") not in ("In", "NotIn", "Exists", "DoesNotExist"):
            return f"matchExpressions operator {e.get('operator')!r} is not valid"
    return None


def selector_matches(sel, os_, arch):
    env = {"os": os_, "arch": arch}
    for k, v in (sel.get("matchLabels") or {}).items():
        if env.get(k) != str(v):
            return False
    for e in sel.get("matchExpressions") or []:
        val, op, values = env.get(e.get("key")), e.get("operator"), e.get("values") or []
        if op == "In" and val not in values:
            return False
        if op == "NotIn" and val in values:
            return False
        if op == "DoesNotExist" and val is not None:
            return False
    return True


def platform_errors(p):
    if not isinstance(p, dict):
        return ["platform is not a mapping"]
    errs = []
    if not p.get("uri"):
        errs.append("`uri` has to be set")
    sha = p.get("sha256")
    if not sha:
        errs.append("`sha256` sum has to be set")
    elif not SHA256.match(str(sha)):
        errs.append(f"`sha256` value {sha} is not valid, must match pattern {SHA256.pattern}")
    if not p.get("bin"):
        errs.append("`bin` has to be set")
    if "files" in p and p["files"] is not None:
        files = p["files"]
        if not isinstance(files, list) or len(files) == 0:
            errs.append("`files` has to be unspecified or non-empty")
        else:
            for op in files:
                if not isinstance(op, dict) or not op.get("from"):
                    errs.append("`files`: `from` field has to be set")
                elif not op.get("to"):
                    errs.append("`files`: `to` field has to be set")
    sel_err = selector_error(p.get("selector"))
    if sel_err:
        errs.append(f"invalid platform selector: {sel_err}")
    return errs


def structural_errors(manifest_path, m):
    errs = []
    if not isinstance(m, dict):
        return ["manifest is not a mapping"]
    if m.get("apiVersion") != API_VERSION:
        errs.append(f"apiVersion={m.get('apiVersion')!r} is not supported (want {API_VERSION})")
    if m.get("kind") != "Plugin":
        errs.append(f"kind={m.get('kind')!r}, but only \"Plugin\" is supported")
    base = os.path.basename(manifest_path)
    if not base.endswith(".yaml"):
        errs.append(f'expected manifest extension ".yaml" but found "{os.path.splitext(base)[1]}"')
    name = base[:-len(".yaml")] if base.endswith(".yaml") else base
    if not SAFE_NAME.match(name) or name.upper() in WINDOWS_FORBIDDEN:
        errs.append(f'the plugin name "{name}" is not allowed, must match {SAFE_NAME.pattern}')
    got = (m.get("metadata") or {}).get("name")
    if got != name:
        errs.append(f'plugin should be named "{name}", not "{got}"')
    spec = m.get("spec") or {}
    sd = spec.get("shortDescription")
    if not sd:
        errs.append("should have a short description")
    elif "\n" in sd or "\r" in sd:
        errs.append("should not have line breaks in short description")
    platforms = spec.get("platforms") or []
    if not platforms:
        errs.append("should have a platform specified")
    version = spec.get("version")
    if not version:
        errs.append("should have a version specified")
    elif not str(version).startswith("v"):
        errs.append(f'failed to parse plugin version: version string "{version}" not starting with \'v\'')
    elif not SEMVER.match(str(version)):
        errs.append(f'failed to parse plugin version: "{version}" is not a semantic version')
    for i, p in enumerate(platforms):
        for e in platform_errors(p):
            errs.append(f"platform[{i}] is badly constructed: {e}")
    if errs:
        return errs
    for i, p in enumerate(platforms):
        if not any(selector_matches(p["selector"], o, a) for o, a in PLATFORMS):
            errs.append(f"spec.platform[{i}]'s selector ({p['selector']}) doesn't match any supported platforms")
    for o, a in PLATFORMS:
        hits = [i for i, p in enumerate(platforms) if selector_matches(p["selector"], o, a)]
        if len(hits) > 1:
            errs.append(f"multiple spec.platforms (at indexes {hits}) have overlapping selectors that select {o}/{a}")
    return errs


def safe_extract(archive, dest):
    if archive.endswith(".zip"):
        with zipfile.ZipFile(archive) as z:
            for n in z.namelist():
                if n.startswith("/") or ".." in n.split("/"):
                    raise ValueError(f"unsafe path {n!r} in archive")
            z.extractall(dest)
        return
    with tarfile.open(archive, "r:*") as t:
        for mem in t.getmembers():
            if mem.name.startswith("/") or ".." in mem.name.split("/"):
                raise ValueError(f"unsafe path {mem.name!r} in archive")
            if not (mem.isfile() or mem.isdir()):
                raise ValueError(f"{mem.name!r} is neither a file nor a directory")
        t.extractall(dest)


def companion_errors(p, companions):
    """The project's rule (not krew's): each companion file (the hello-tfjob trainer) is
    installed next to bin, where the plugin looks for it (plugin/common/local_run.cpp)."""
    errs = []
    bindir = os.path.dirname(os.path.normpath(p.get("bin", "")))
    for c in companions:
        ops = p.get("files") or [{"from": "*", "to": "."}]
        ok = any(glob.fnmatch.fnmatch(c, op.get("from", "")) and
                 os.path.normpath(op.get("to", ".")) in (os.path.normpath(bindir or "."), os.path.normpath(os.path.join(bindir or ".", c)))
                 for op in ops)
        if not ok:
            errs.append(f"{c} is not installed next to bin {p.get('bin')!r} (`files` has no from: {c}, to: .)")
    return errs


def install_errors(p, archives_dir, companions=()):
    """Fetches the archive from archives_dir and installs it as krew would."""
    file_name = os.path.basename(p["uri"].split("?")[0])
    archive = os.path.join(archives_dir, file_name)
    if not os.path.isfile(archive):
        return [f"archive {file_name} (from uri {p['uri']}) not found in {archives_dir}"]
    with open(archive, "rb") as f:
        digest = hashlib.sha256(f.read()).hexdigest()
    if digest != p["sha256"]:
        return [f"{file_name}: sha256 is {digest}, the manifest says {p['sha256']}"]
    with tempfile.TemporaryDirectory() as tmp:
        extracted = os.path.join(tmp, "download")
        install = os.path.join(tmp, "install")
        os.makedirs(extracted)
        os.makedirs(install)
        try:
            safe_extract(archive, extracted)
        except (tarfile.TarError, zipfile.BadZipFile, ValueError, OSError) as e:
            return [f"{file_name}: cannot extract: {e}"]
        # krew internal/installation/move.go: `from` is a glob in the extracted tree, `to`
        # a path in the install dir (a directory when it is "." or ends in "/").
        ops = p.get("files") or [{"from": "*", "to": "."}]
        for op in ops:
            matches = glob.glob(os.path.join(extracted, op["from"]))
            if not matches:
                return [f"{file_name}: files: from {op['from']!r} matches nothing in the archive"]
            to = os.path.normpath(os.path.join(install, op["to"]))
            if not (to + os.sep).startswith(install + os.sep) and to != install:
                return [f"files: to {op['to']!r} leaves the install directory"]
            for src in matches:
                if op["to"] in (".", "./") or op["to"].endswith("/") or len(matches) > 1:
                    os.makedirs(to, exist_ok=True)
                    dst = os.path.join(to, os.path.basename(src))
                else:
                    os.makedirs(os.path.dirname(to), exist_ok=True)
                    dst = to
                shutil.move(src, dst)
        errs = []
        binpath = os.path.join(install, p["bin"])
        if not os.path.isfile(binpath):
            errs.append(f"{file_name}: bin {p['bin']!r} is not in the installed files")
        elif not os.stat(binpath).st_mode & stat.S_IXUSR:
            errs.append(f"{file_name}: bin {p['bin']!r} is not executable")
        for c in companions:
            path = os.path.join(os.path.dirname(binpath), c)
            if not os.path.isfile(path) or not os.stat(path).st_mode & stat.S_IXUSR:
                errs.append(f"{file_name}: {c} is not installed as an executable next to bin {p['bin']!r}")
        installed = [n.lower() for _, _, fs in os.walk(install) for n in fs]
        if not LICENSE_NAMES.intersection(installed):
            errs.append(f"{file_name}: no LICENSE (or alike) file among the installed files {sorted(installed)}")
        return errs


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("manifest")
    ap.add_argument("--archives", help="directory holding the archives the uris name")
    ap.add_argument("--platforms", help="comma-separated OS/ARCH that must each have a platform entry")
    ap.add_argument("--companion", action="append", default=[],
                    help="a file that must be installed next to bin (the project's hello-tfjob trainer)")
    ap.add_argument("--expect-invalid", action="store_true")
    args = ap.parse_args()
    try:
        with open(args.manifest, encoding="utf-8") as f:
            m = yaml.safe_load(f)
    except OSError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    except yaml.YAMLError as e:
        m = None
        errs = [f"YAML does not parse: {e}"]
    else:
        errs = structural_errors(args.manifest, m)
    if not errs and args.platforms:
        have = {(p["selector"].get("matchLabels", {}).get("os"), p["selector"].get("matchLabels", {}).get("arch"))
                for p in m["spec"]["platforms"]}
        for want in args.platforms.split(","):
            os_, _, arch = want.partition("/")
            if (os_, arch) not in have:
                errs.append(f"no platform for {want} (the release builds it; have "
                            f"{', '.join(sorted(f'{o}/{a}' for o, a in have))})")
    if not errs and args.companion:
        for i, p in enumerate(m["spec"]["platforms"]):
            errs += [f"spec.platforms[{i}]: {e}" for e in companion_errors(p, args.companion)]
    if not errs and args.archives:
        for i, p in enumerate(m["spec"]["platforms"]):
            errs += [f"spec.platforms[{i}] failed to install: {e}" for e in install_errors(p, args.archives, args.companion)]
    for e in errs:
        print(f"FAIL {args.manifest}: {e}")
    if not errs:
        n = len(m["spec"]["platforms"])
        print(f"ok   {args.manifest}: plugin {m['metadata']['name']} {m['spec']['version']}, "
              f"{n} platform(s){', archives installed' if args.archives else ''}")
    if args.expect_invalid:
        print(f"{1 if errs else 0} passed, {0 if errs else 1} failed (the broken manifest must be rejected)")
        return 0 if errs else 1
    print(f"{0 if errs else 1} passed, {1 if errs else 0} failed")
    return 1 if errs else 0


if __name__ == "__main__":
    sys.exit(main())
