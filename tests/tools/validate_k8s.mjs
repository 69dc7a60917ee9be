#!/usr/bin/env node
// Validates Kubernetes manifests against the Kubernetes OpenAPI schemas, as packaged by the
// npm module kubernetes-models (an independent judge: it knows nothing of this project).
//
//   node validate_k8s.mjs [--expect-invalid] PATH...
//
// PATH is a YAML/JSON file or a directory (searched recursively for *.yaml and *.yml).
// Every document that has apiVersion and kind is validated with `new Kind(obj).validate()`
// from `kubernetes-models/<group>/<version>`. Documents of the kubeflow.org group are left
// to the TFJob CRD judge (validate_crd.py) and only listed here. A document without
// apiVersion/kind is an error unless its file is a Helm values file (values*.yaml), which
// only has to parse. An apiVersion/kind with no schema is an error (a typo must not pass).
//
// Exit status: 0 when every document is valid (with --expect-invalid: when every file given
// holds at least one document that is rejected), 1 when not, 2 on usage or I/O errors.
import fs from "node:fs";
import path from "node:path";
import { parseAllDocuments } from "yaml";

const CRD_JUDGED_GROUPS = new Set(["kubeflow.org"]);
// Directories are searched for YAML only (JSON files in samples/ are request bodies and
// the like); a JSON manifest named explicitly is validated too.
const MANIFEST_EXT = new Set([".yaml", ".yml"]);
const SKIP_DIRS = new Set(["node_modules", ".terraform", ".git"]);

function usage(msg) {
  if (msg) console.error(`error: ${msg}`);
  console.error("usage: validate_k8s.mjs [--expect-invalid] PATH...");
  process.exit(2);
}

function collect(p, out) {
  let st;
  try {
    st = fs.statSync(p);
  } catch (e) {
    console.error(`error: cannot read ${p}: ${e.message}`);
    process.exit(2);
  }
  if (st.isDirectory()) {
    for (const name of fs.readdirSync(p).sort()) {
      if (SKIP_DIRS.has(name)) continue;
      const child = path.join(p, name);
      const cst = fs.statSync(child);
      if (cst.isDirectory() || MANIFEST_EXT.has(path.extname(name))) collect(child, out);
    }
  } else {
    out.push(p);
  }
}

// kustomize's Kustomization is not an API object, so kubernetes-models has no schema for it:
// check its shape by hand (known fields, resources a list of strings) and that every remote
// resource is pinned with ?ref= (an unpinned remote base changes under the user).
const KUSTOMIZATION_FIELDS = new Set([
  "apiVersion", "kind", "metadata", "resources", "components", "namespace", "namePrefix",
  "nameSuffix", "labels", "commonLabels", "commonAnnotations", "images", "replicas",
  "patches", "patchesStrategicMerge", "patchesJson6902", "configMapGenerator",
  "secretGenerator", "generatorOptions", "crds", "configurations", "openapi", "helmCharts",
  "sortOptions", "buildMetadata", "transformers", "generators", "validators", "vars"]);
function kustomizationErrors(obj) {
  const errs = [];
  if (obj.apiVersion !== "kustomize.config.k8s.io/v1beta1") {
    errs.push(`    apiVersion must be kustomize.config.k8s.io/v1beta1, not ${obj.apiVersion}`);
  }
  for (const k of Object.keys(obj)) {
    if (!KUSTOMIZATION_FIELDS.has(k)) errs.push(`    /${k}: not a Kustomization field`);
  }
  for (const list of ["resources", "components"]) {
    if (obj[list] === undefined) continue;
    if (!Array.isArray(obj[list]) || obj[list].some((r) => typeof r !== "string")) {
      errs.push(`    /${list}: must be a list of strings`);
      continue;
    }
    for (const r of obj[list]) {
      const remote = /^(https?:\/\/|git@|github\.com\/|gitlab\.com\/)/.test(r);
      if (remote && !/[?&]ref=[^&]+/.test(r)) errs.push(`    /${list}: remote ${r} is not pinned with ?ref=`);
    }
  }
  return errs;
}

const modelCache = new Map();
async function modelFor(apiVersion, kind) {
  const slash = apiVersion.indexOf("/");
  const group = slash < 0 ? "" : apiVersion.slice(0, slash);
  const version = slash < 0 ? apiVersion : apiVersion.slice(slash + 1);
  // kubernetes-models lays modules out as <group>/<version>, the core group as v1.
  const modPath = group === "" ? `kubernetes-models/${version}` : `kubernetes-models/${group}/${version}`;
  if (!modelCache.has(modPath)) {
    let mod = null;
    try {
      mod = await import(modPath);
    } catch {
      mod = null;
    }
    modelCache.set(modPath, mod);
  }
  const mod = modelCache.get(modPath);
  if (!mod || typeof mod[kind] !== "function") return null;
  const M = mod[kind];
  // Guard against helper types that share a module but are not top-level kinds.
  if (M.apiVersion !== apiVersion || M.kind !== kind) return null;
  return M;
}

function formatError(e) {
  // kubernetes-models throws a ValidationError whose `errors` are ajv errors.
  if (e && Array.isArray(e.errors)) {
    return e.errors
      .map((x) => {
        const where = x.instancePath || x.dataPath || "";
        const extra = x.params && x.params.additionalProperty ? ` (${x.params.additionalProperty})` : "";
        return `    ${where || "/"}: ${x.message}${extra}`;
      })
      .join("\n");
  }
  return `    ${e && e.message ? e.message : String(e)}`;
}

async function main() {
  const args = process.argv.slice(2);
  let expectInvalid = false;
  const roots = [];
  for (const a of args) {
    if (a === "--expect-invalid") expectInvalid = true;
    else if (a === "-h" || a === "--help") usage();
    else if (a.startsWith("--")) usage(`unknown flag ${a}`);
    else roots.push(a);
  }
  if (roots.length === 0) usage("no PATH given");
  const files = [];
  for (const r of roots) collect(r, files);
  if (files.length === 0) usage(`no manifests under ${roots.join(", ")}`);

  let checked = 0;
  let bad = 0;
  let filesWithRejects = 0;
  for (const file of files) {
    const text = fs.readFileSync(file, "utf8");
    const isValues = /^values.*\.ya?ml$|.*-values\.ya?ml$/.test(path.basename(file));
    let fileRejected = false;
    const fail = (where, msg) => {
      console.log(`FAIL ${where}\n${msg}`);
      bad++;
      fileRejected = true;
    };
    const docs = parseAllDocuments(text, { prettyErrors: true });
    const docList = Array.isArray(docs) ? docs : [docs];
    let index = 0;
    for (const doc of docList) {
      const where = `${file} (document ${index + 1})`;
      index++;
      if (doc.errors && doc.errors.length) {
        fail(where, doc.errors.map((e) => `    ${e.message}`).join("\n"));
        continue;
      }
      const obj = doc.toJS();
      if (obj === null || obj === undefined) continue;  // empty document ("---" at the end)
      if (typeof obj !== "object" || Array.isArray(obj)) {
        fail(where, "    not a mapping");
        continue;
      }
      if (!obj.apiVersion || !obj.kind) {
        checked++;
        if (isValues) {
          console.log(`ok   ${where}: Helm values (parsed; no schema)`);
        } else {
          fail(where, "    has no apiVersion/kind: not a Kubernetes object (Helm values files must be named values*.yaml or *-values.yaml)");
        }
        continue;
      }
      const group = obj.apiVersion.includes("/") ? obj.apiVersion.split("/")[0] : "";
      if (CRD_JUDGED_GROUPS.has(group)) {
        console.log(`skip ${where}: ${obj.apiVersion} ${obj.kind} is judged by the CRD schema (validate_crd.py)`);
        continue;
      }
      checked++;
      if (obj.kind === "Kustomization" && obj.apiVersion.startsWith("kustomize.config.k8s.io/")) {
        const errs = kustomizationErrors(obj);
        if (errs.length) fail(`${where}: Kustomization`, errs.join("\n"));
        else console.log(`ok   ${where}: Kustomization (kustomize fields, pinned remote resources)`);
        continue;
      }
      const M = await modelFor(obj.apiVersion, obj.kind);
      if (!M) {
        fail(where, `    no Kubernetes schema for apiVersion "${obj.apiVersion}" kind "${obj.kind}" (typo, or a custom resource with no judge)`);
        continue;
      }
      const name = obj.metadata && obj.metadata.name ? obj.metadata.name : "<no name>";
      try {
        new M(obj).validate();
        console.log(`ok   ${where}: ${obj.kind} ${name}`);
      } catch (e) {
        fail(`${where}: ${obj.kind} ${name}`, formatError(e));
      }
    }
    if (fileRejected) filesWithRejects++;
    else if (expectInvalid) console.log(`UNEXPECTED PASS ${file}: expected the judge to reject it`);
  }
  if (expectInvalid) {
    const ok = filesWithRejects === files.length;
    console.log(`${ok ? files.length : filesWithRejects} passed, ${ok ? 0 : files.length - filesWithRejects} failed (each broken file must be rejected)`);
    process.exit(ok ? 0 : 1);
  }
  console.log(`${checked - bad} passed, ${bad} failed`);
  process.exit(bad === 0 ? 0 : 1);
}

main().catch((e) => {
  console.error(`error: ${e && e.stack ? e.stack : e}`);
  process.exit(2);
});
