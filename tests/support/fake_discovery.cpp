// Discovery, /version, OpenAPI v3 and server-side Table printing for the fake API server.
#include <set>

#include "support/fake_internal.hpp"

namespace tfjob::test::fake {

json version_info() {
  return {{"major", "1"}, {"minor", "32"}, {"gitVersion", "v1.32.0-fake"}, {"gitCommit", "0000000000000000000000000000000000000000"},
          {"gitTreeState", "clean"}, {"buildDate", "2024-12-11T00:00:00Z"}, {"goVersion", "go1.23.3"}, {"compiler", "gc"},
          {"platform", "linux/amd64"}};
}

json discovery_api_versions(const std::string& address) {
  return {{"kind", "APIVersions"}, {"versions", {"v1"}},
          {"serverAddressByClientCIDRs", {{{"clientCIDR", "0.0.0.0/0"}, {"serverAddress", address}}}}};
}

static std::vector<std::string> groups_in_order() {
  std::vector<std::string> out;
  for (const auto& r : resources())
    if (!r.group.empty() && std::find(out.begin(), out.end(), r.group) == out.end()) out.push_back(r.group);
  return out;
}

json discovery_group(const std::string& group) {
  for (const auto& r : resources())
    if (r.group == group && !group.empty()) {
      json gv = {{"groupVersion", r.api_version()}, {"version", r.version}};
      return {{"kind", "APIGroup"}, {"apiVersion", "v1"}, {"name", group}, {"versions", {gv}}, {"preferredVersion", gv}};
    }
  return json();
}

json discovery_groups() {
  json groups = json::array();
  for (const auto& g : groups_in_order()) {
    json d = discovery_group(g);
    d.erase("kind");
    d.erase("apiVersion");
    groups.push_back(d);
  }
  return {{"kind", "APIGroupList"}, {"apiVersion", "v1"}, {"groups", groups}};
}

json discovery_resources(const std::string& group, const std::string& version) {
  json list = json::array();
  bool any = false;
  for (const auto& r : resources()) {
    if (r.group != group || r.version != version) continue;
    any = true;
    json e = {{"name", r.plural}, {"singularName", r.singular}, {"namespaced", r.namespaced}, {"kind", r.kind},
              {"verbs", {"create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"}}};
    if (!r.short_names.empty()) e["shortNames"] = r.short_names;
    if (!r.categories.empty()) e["categories"] = r.categories;
    list.push_back(e);
    for (const auto& sub : r.subresources) {
      json se = {{"name", r.plural + "/" + sub}, {"singularName", ""}, {"namespaced", r.namespaced}, {"kind", r.kind}};
      if (sub == "status") se["verbs"] = {"get", "patch", "update"};
      else if (sub == "log") se["verbs"] = {"get"};
      else if (sub == "proxy") {
        se["kind"] = "ServiceProxyOptions";
        se["verbs"] = {"create", "delete", "get", "patch", "update"};
      }
      list.push_back(se);
    }
  }
  if (!any) return json();
  std::string gv = group.empty() ? version : group + "/" + version;
  return {{"kind", "APIResourceList"}, {"apiVersion", "v1"}, {"groupVersion", gv}, {"resources", list}};
}

// ---- OpenAPI v3 ------------------------------------------------------------------------

static std::string gv_path(const ResourceInfo& r) { return r.group.empty() ? "api/" + r.version : "apis/" + r.group + "/" + r.version; }

json openapi_v3_index() {
  json paths = json::object();
  for (const auto& r : resources()) paths[gv_path(r)] = {{"serverRelativeURL", "/openapi/v3/" + gv_path(r) + "?hash=F4KE" + std::to_string(gv_path(r).size())}};
  return {{"paths", paths}};
}

static std::string def_name(const ResourceInfo& r) {
  // io.k8s.api.<group>.<version>.<Kind> like the real server; CRDs use reversed group
  if (!r.builtin) return "org.kubeflow.v1." + r.kind;
  std::string g = r.group.empty() ? "core" : r.group;
  return "io.k8s.api." + g + "." + r.version + "." + r.kind;
}

std::optional<json> openapi_v3_doc(const std::string& gv_path_in, const SchemaValidator& tfjob_schema) {
  std::string p = gv_path_in.substr(0, gv_path_in.find('?'));
  json paths = json::object();
  json schemas = json::object();
  bool any = false;
  for (const auto& r : resources()) {
    if (gv_path(r) != p) continue;
    any = true;
    json gvk = json::array({{{"group", r.group}, {"version", r.version}, {"kind", r.kind}}});
    json ref = {{"$ref", "#/components/schemas/" + def_name(r)}};
    json body = {{"content", {{"application/json", {{"schema", ref}}}}}};
    json ok = {{"200", {{"description", "OK"}, {"content", {{"application/json", {{"schema", ref}}}}}}}};
    auto param = [](const char* name) { return json{{"name", name}, {"in", "query"}, {"schema", {{"type", "string"}}}}; };
    json params = json::array({param("dryRun"), param("fieldManager"), param("fieldValidation")});
    std::string base = "/" + p + (r.namespaced ? "/namespaces/{namespace}/" : "/") + r.plural;
    auto op = [&](const char* verb, bool with_body) {
      json o = {{"operationId", std::string(verb) + r.kind}, {"responses", ok}, {"x-kubernetes-action", verb},
                {"x-kubernetes-group-version-kind", gvk[0]}, {"parameters", params}};
      if (with_body) o["requestBody"] = body;
      return o;
    };
    paths[base] = {{"get", op("list", false)}, {"post", op("post", true)}};
    json patch_op = op("patch", false);
    patch_op["requestBody"] = {{"content", {{"application/merge-patch+json", {{"schema", {{"type", "object"}}}}},
                                            {"application/apply-patch+yaml", {{"schema", {{"type", "object"}}}}}}}};
    paths[base + "/{name}"] = {{"get", op("get", false)}, {"put", op("put", true)}, {"patch", patch_op}, {"delete", op("delete", false)}};
    json schema;
    if (!r.builtin && tfjob_schema.loaded()) {
      schema = tfjob_schema.schema();
    } else {
      schema = {{"type", "object"},
                {"properties",
                 {{"apiVersion", {{"type", "string"}}},
                  {"kind", {{"type", "string"}}},
                  {"metadata", {{"type", "object"}, {"x-kubernetes-preserve-unknown-fields", true}}},
                  {"spec", {{"type", "object"}, {"x-kubernetes-preserve-unknown-fields", true}}},
                  {"status", {{"type", "object"}, {"x-kubernetes-preserve-unknown-fields", true}}}}}};
      for (const char* extra : {"data", "stringData", "type", "involvedObject", "reason", "message", "source", "count", "firstTimestamp",
                                "lastTimestamp", "eventTime", "reportingComponent", "reportingInstance", "action", "related", "series",
                                "immutable", "binaryData", "secrets", "imagePullSecrets", "automountServiceAccountToken"})
        schema["properties"][extra] = json::object();
    }
    schema["x-kubernetes-group-version-kind"] = gvk;
    schemas[def_name(r)] = schema;
  }
  if (!any) return std::nullopt;
  return json{{"openapi", "3.0.0"}, {"info", {{"title", "Kubernetes"}, {"version", "v1.32.0"}}}, {"paths", paths},
              {"components", {{"schemas", schemas}}}};
}

// ---- Tables ----------------------------------------------------------------------------

static json col(const char* name, const char* type, const char* format, int priority, const char* desc) {
  return {{"name", name}, {"type", type}, {"format", format}, {"description", desc}, {"priority", priority}};
}

static std::string age_of(const json& o) {
  Clock::time_point t;
  if (!parse_rfc3339(o["metadata"].value("creationTimestamp", ""), t)) return "<unknown>";
  return human_age(t, Clock::now());
}

static std::string pod_status_reason(const json& p) {
  const json& st = p.value("status", json::object());
  std::string reason = st.value("reason", st.value("phase", "Pending"));
  for (const auto& cs : st.value("containerStatuses", json::array())) {
    const json& state = cs.value("state", json::object());
    if (state.contains("waiting") && !state["waiting"].value("reason", "").empty()) reason = state["waiting"]["reason"];
    else if (state.contains("terminated")) reason = state["terminated"].value("reason", "");
  }
  if (p["metadata"].contains("deletionTimestamp")) reason = "Terminating";
  return reason;
}

json to_table(const ResourceInfo& ri, const std::vector<json>& objects, const json& list_meta) {
  json cols = json::array();
  const char* name_desc = "Name must be unique within a namespace.";
  cols.push_back(col("Name", "string", "name", 0, name_desc));
  std::function<json(const json&)> cells;
  if (ri.plural == "pods") {
    cols.push_back(col("Ready", "string", "", 0, "The aggregate readiness state of this pod for accepting traffic."));
    cols.push_back(col("Status", "string", "", 0, "The aggregate status of the containers in this pod."));
    cols.push_back(col("Restarts", "string", "", 0, "The number of times the containers in this pod have been restarted."));
    cols.push_back(col("Age", "string", "", 0, "CreationTimestamp"));
    cols.push_back(col("IP", "string", "", 1, "IP address allocated to the pod."));
    cols.push_back(col("Node", "string", "", 1, "Name of the node this pod is assigned to."));
    cells = [](const json& p) {
      int ready = 0, total = 0, restarts = 0;
      for (const auto& c : p["spec"].value("containers", json::array())) (void)c, ++total;
      for (const auto& cs : p.value("status", json::object()).value("containerStatuses", json::array())) {
        if (cs.value("ready", false)) ++ready;
        restarts += cs.value("restartCount", 0);
      }
      const json& st = p.value("status", json::object());
      return json::array({p["metadata"]["name"], std::to_string(ready) + "/" + std::to_string(total), pod_status_reason(p),
                          std::to_string(restarts), age_of(p), st.value("podIP", "<none>"), p["spec"].value("nodeName", "<none>")});
    };
  } else if (ri.plural == "nodes") {
    cols.push_back(col("Status", "string", "", 0, "The status of the node"));
    cols.push_back(col("Roles", "string", "", 0, "The roles of the node"));
    cols.push_back(col("Age", "string", "", 0, "CreationTimestamp"));
    cols.push_back(col("Version", "string", "", 0, "Kubelet Version reported by the node."));
    cells = [](const json& n) {
      std::string status = "Unknown";
      for (const auto& c : n.value("status", json::object()).value("conditions", json::array()))
        if (c.value("type", "") == "Ready") status = c.value("status", "") == "True" ? "Ready" : "NotReady";
      if (n["spec"].value("unschedulable", false)) status += ",SchedulingDisabled";
      return json::array({n["metadata"]["name"], status, "<none>", age_of(n),
                          n.value("status", json::object()).value("nodeInfo", json::object()).value("kubeletVersion", "")});
    };
  } else if (ri.plural == "deployments") {
    cols.push_back(col("Ready", "string", "", 0, "Number of the pod with ready state"));
    cols.push_back(col("Up-to-date", "string", "", 0, "Total number of non-terminated pods targeted by this deployment that have the desired template spec."));
    cols.push_back(col("Available", "string", "", 0, "Total number of available pods (ready for at least minReadySeconds) targeted by this deployment."));
    cols.push_back(col("Age", "string", "", 0, "CreationTimestamp"));
    cells = [](const json& d) {
      const json& st = d.value("status", json::object());
      return json::array({d["metadata"]["name"], std::to_string(st.value("readyReplicas", 0)) + "/" + std::to_string(d["spec"].value("replicas", 1)),
                          st.value("updatedReplicas", 0), st.value("availableReplicas", 0), age_of(d)});
    };
  } else if (ri.plural == "services") {
    cols.push_back(col("Type", "string", "", 0, "The type of the service."));
    cols.push_back(col("Cluster-IP", "string", "", 0, "The cluster IP."));
    cols.push_back(col("External-IP", "string", "", 0, "The external IP."));
    cols.push_back(col("Port(s)", "string", "", 0, "The ports of the service."));
    cols.push_back(col("Age", "string", "", 0, "CreationTimestamp"));
    cells = [](const json& s) {
      std::string ports;
      for (const auto& p : s["spec"].value("ports", json::array())) {
        if (!ports.empty()) ports += ",";
        ports += std::to_string(p.value("port", 0)) + "/" + p.value("protocol", "TCP");
      }
      return json::array({s["metadata"]["name"], s["spec"].value("type", "ClusterIP"), s["spec"].value("clusterIP", "<none>"), "<none>",
                          ports.empty() ? "<none>" : ports, age_of(s)});
    };
  } else if (ri.plural == "tfjobs") {
    cols.push_back(col("State", "string", "", 0, ""));
    cols.push_back(col("Age", "date", "", 0, ""));
    cells = [](const json& j) {
      const json& conds = j.value("status", json::object()).value("conditions", json::array());
      json state = conds.empty() ? json() : conds.back().value("type", json());
      return json::array({j["metadata"]["name"], state, age_of(j)});
    };
  } else if (ri.plural == "persistentvolumeclaims") {
    cols.push_back(col("Status", "string", "", 0, ""));
    cols.push_back(col("Volume", "string", "", 0, ""));
    cols.push_back(col("Capacity", "string", "", 0, ""));
    cols.push_back(col("Access Modes", "string", "", 0, ""));
    cols.push_back(col("StorageClass", "string", "", 0, ""));
    cols.push_back(col("Age", "string", "", 0, ""));
    cells = [](const json& c) {
      const json& st = c.value("status", json::object());
      std::string modes;
      for (const auto& m : c["spec"].value("accessModes", json::array())) {
        std::string s = m.get<std::string>();
        modes += (modes.empty() ? "" : ",") + std::string(s == "ReadWriteOnce" ? "RWO" : s == "ReadOnlyMany" ? "ROX" : s == "ReadWriteMany" ? "RWX" : s);
      }
      std::string cap = st.value("capacity", json::object()).value("storage", "");
      return json::array({c["metadata"]["name"], st.value("phase", "Pending"), c["spec"].value("volumeName", ""), cap, modes,
                          c["spec"].value("storageClassName", "<unset>"), age_of(c)});
    };
  } else if (ri.plural == "namespaces") {
    cols.push_back(col("Status", "string", "", 0, ""));
    cols.push_back(col("Age", "string", "", 0, ""));
    cells = [](const json& n) {
      return json::array({n["metadata"]["name"], n.value("status", json::object()).value("phase", "Active"), age_of(n)});
    };
  } else if (ri.plural == "jobs") {
    cols.push_back(col("Status", "string", "", 0, ""));
    cols.push_back(col("Completions", "string", "", 0, ""));
    cols.push_back(col("Duration", "string", "", 0, ""));
    cols.push_back(col("Age", "string", "", 0, ""));
    cells = [](const json& j) {
      const json& st = j.value("status", json::object());
      std::string status = "Running";
      for (const auto& c : st.value("conditions", json::array()))
        if (c.value("status", "") == "True" && (c.value("type", "") == "Complete" || c.value("type", "") == "Failed"))
          status = c.value("type", "");
      return json::array({j["metadata"]["name"], status,
                          std::to_string(st.value("succeeded", 0)) + "/" + std::to_string(j["spec"].value("completions", 1)), "", age_of(j)});
    };
  } else if (ri.plural == "events") {
    cols = json::array();
    cols.push_back(col("Last Seen", "string", "", 0, ""));
    cols.push_back(col("Type", "string", "", 0, ""));
    cols.push_back(col("Reason", "string", "", 0, ""));
    cols.push_back(col("Object", "string", "", 0, ""));
    cols.push_back(col("Message", "string", "", 0, ""));
    cells = [](const json& e) {
      const json& io = e.value("involvedObject", json::object());
      std::string kind = io.value("kind", "");
      std::transform(kind.begin(), kind.end(), kind.begin(), ::tolower);
      Clock::time_point t;
      std::string seen = parse_rfc3339(e.value("lastTimestamp", e["metadata"].value("creationTimestamp", "")), t)
                             ? human_age(t, Clock::now()) : "<unknown>";
      return json::array({seen, e.value("type", "Normal"), e.value("reason", ""), kind + "/" + io.value("name", ""), e.value("message", "")});
    };
  } else {
    cols.push_back(col("Age", "string", "", 0, "CreationTimestamp"));
    cells = [](const json& o) { return json::array({o["metadata"]["name"], age_of(o)}); };
  }
  json rows = json::array();
  for (const auto& o : objects) {
    json pom = {{"kind", "PartialObjectMetadata"}, {"apiVersion", "meta.k8s.io/v1"}, {"metadata", o["metadata"]}};
    rows.push_back({{"cells", cells(o)}, {"object", pom}});
  }
  return {{"kind", "Table"}, {"apiVersion", "meta.k8s.io/v1"}, {"metadata", list_meta}, {"columnDefinitions", cols}, {"rows", rows}};
}

}  // namespace tfjob::test::fake
