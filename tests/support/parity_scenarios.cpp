// The parity scenarios (see parity_scenarios.hpp). Requests go through the SDK's
// RequestBuilder and Client::send/stream so every status code is seen as the server sent it.
#include "support/parity_scenarios.hpp"

#include <chrono>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <stdexcept>
#include <thread>

#include <tfjob/error.hpp>
#include <tfjob/kube/request.hpp>

#include "support/fake_pki.hpp"
#include "support/paths.hpp"

namespace tfjob::test {
namespace {

using nlohmann::json;
using tfjob::kube::Client;
using tfjob::kube::Request;
using tfjob::kube::RequestBuilder;
using tfjob::kube::ResourceInfo;

const ResourceInfo kTFJobs{"kubeflow.org", "v1", "tfjobs", "TFJob", true};
const ResourceInfo kPods{"", "v1", "pods", "Pod", true};
const ResourceInfo kNamespaces{"", "v1", "namespaces", "Namespace", false};

json tfjob(const std::string& name, const std::string& ns, int workers = 2) {
  json container = {{"name", "tensorflow"},
                    {"image", "ghcr.io/kubectl-tfjob/mnist:v0.1.0"},
                    {"command", {"python", "/opt/mnist/mnist.py"}}};
  return {{"apiVersion", "kubeflow.org/v1"},
          {"kind", "TFJob"},
          {"metadata", {{"name", name}, {"namespace", ns}, {"labels", {{"parity", "yes"}}}}},
          {"spec",
           {{"tfReplicaSpecs",
             {{"Chief", {{"replicas", 1}, {"restartPolicy", "Never"}, {"template", {{"spec", {{"containers", {container}}}}}}}},
              {"Worker",
               {{"replicas", workers},
                {"restartPolicy", "OnFailure"},
                {"template", {{"spec", {{"containers", {container}}}}}}}}}}}}};
}

json parse_body(const std::string& body) {
  auto j = json::parse(body, nullptr, false);
  return j.is_discarded() ? json(nullptr) : j;
}

/// The normalised view of one response: code, and for a Status its reason and details;
/// for an object, which server-set metadata fields it carries.
json outcome(const tfjob::kube::Response& r) {
  json o = {{"code", r.status}};
  json b = parse_body(r.body);
  if (b.is_object() && b.value("kind", "") == "Status") {
    o["kind"] = "Status";
    o["reason"] = b.value("reason", "");
    if (b.contains("details")) {
      const json& d = b["details"];
      json dd = json::object();
      for (const char* k : {"kind", "group", "name"})
        if (d.contains(k)) dd[k] = d[k];
      if (d.contains("causes")) {
        json causes = json::array();
        for (const auto& c : d["causes"]) causes.push_back({{"reason", c.value("reason", "")}, {"field", c.value("field", "")}});
        std::sort(causes.begin(), causes.end());
        dd["causes"] = causes;
      }
      o["details"] = dd;
    }
  } else if (b.is_object()) {
    o["kind"] = b.value("kind", "");
  }
  return o;
}

/// Which of the server-set metadata fields an object has (and generation's value).
json server_set(const json& obj) {
  json s = json::object();
  const json md = obj.value("metadata", json::object());
  for (const char* k : {"uid", "resourceVersion", "creationTimestamp", "selfLink", "deletionTimestamp"})
    s[k] = md.contains(k) && !md[k].is_null() && !md[k].get<std::string>().empty();
  s["generation"] = md.value("generation", 0);
  if (md.contains("finalizers")) s["finalizers"] = md["finalizers"];
  return s;
}

/// metadata.managedFields as "manager:operation:fieldsType" (recorded under
/// "managedFields.<scenario>").
json managers(const json& obj) {
  json out = json::array();
  const json md = obj.value("metadata", json::object());
  if (md.contains("managedFields"))
    for (const auto& m : md["managedFields"])
      out.push_back(m.value("manager", "") + ":" + m.value("operation", "") + ":" + m.value("fieldsType", ""));
  std::sort(out.begin(), out.end());
  return out;
}

std::string rv_of(const std::string& body) {
  json b = parse_body(body);
  return b.is_object() ? b.value("/metadata/resourceVersion"_json_pointer, std::string()) : std::string();
}

Request with_query(Request r, const std::string& k, const std::string& v) {
  r.query.emplace_back(k, v);
  return r;
}

bool exists(Client& c, const RequestBuilder& rb, const std::string& name) { return c.send(rb.get(name)).status == 200; }

void wait_gone(Client& c, const RequestBuilder& rb, const std::string& name) {
  for (int i = 0; i < 200 && exists(c, rb, name); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(25));
}

/// Removes leftovers of an earlier run (names are fixed so the record is stable).
void clean(Client& c, const RequestBuilder& rb, const std::string& name) {
  tfjob::kube::DeleteParams now;
  now.grace_period_seconds = 0;
  // a finalizer left by a Foreground/Orphan delete (no garbage collector runs on the real tier)
  if (c.send(rb.get(name)).status == 200)
    c.send(rb.merge_patch(name, {{"metadata", {{"finalizers", nullptr}}}}));
  c.send(rb.remove(name, now));
  wait_gone(c, rb, name);
}

/// Watch from `rv`; collect the events (type, and the object's name or Status reason) until
/// `want` arrived or the server ends the watch.
json watch_events(Client& c, const RequestBuilder& rb, const std::string& rv, const std::string& selector, std::size_t want,
                  json* http) {
  tfjob::kube::WatchParams wp;
  wp.label_selector = selector;
  wp.allow_bookmarks = false;
  wp.timeout_seconds = 5;
  Request req = rb.watch(wp, rv);
  json events = json::array();
  std::string buf;
  try {
    c.stream(req, [&](std::string_view data) {
      buf.append(data);
      std::size_t nl;
      while ((nl = buf.find('\n')) != std::string::npos) {
        std::string line = buf.substr(0, nl);
        buf.erase(0, nl + 1);
        if (line.empty()) continue;
        json e = parse_body(line);
        if (!e.is_object()) continue;
        json ev = {{"type", e.value("type", "")}};
        const json& o = e.value("object", json::object());
        if (o.value("kind", "") == "Status") {
          ev["code"] = o.value("code", 0);
          ev["reason"] = o.value("reason", "");
        } else {
          ev["name"] = o.value("/metadata/name"_json_pointer, std::string());
        }
        events.push_back(ev);
      }
      return events.size() < want;
    });
    if (http) *http = 200;
  } catch (const tfjob::api_error& e) {
    if (http) *http = json{{"code", e.code()}, {"reason", e.reason()}};
  }
  return events;
}

std::string normalise_log(const std::string& text) {
  static const std::regex ts(R"((^|\n)\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{1,9})?Z )");
  return std::regex_replace(text, ts, "$1<RFC3339Nano> ");
}

// ---- the scenarios --------------------------------------------------------------------

struct Run {
  const ParityTarget& t;
  Client admin;
  std::string ns;  // a namespace only this suite uses
  json out = json::object();

  explicit Run(const ParityTarget& target)
      : t(target), admin(target.admin()), ns("parity-" + target.suffix) {}

  RequestBuilder jobs(const std::string& n) const { return RequestBuilder(kTFJobs, n); }
  RequestBuilder jobs() const { return jobs(ns); }

  void setup() {
    RequestBuilder nsb(kNamespaces, "");
    auto r = admin.send(nsb.create({{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", ns}}}}));
    if (r.status != 201 && r.status != 409)
      throw std::runtime_error("parity: cannot create namespace " + ns + ": " + std::to_string(r.status) + " " + r.body);
    for (const char* n : {"p-crud", "p-ssa", "p-page-0", "p-page-1", "p-page-2", "p-watch", "p-bg", "p-fg", "p-default",
                          "p-dry", "p-invalid"})
      clean(admin, jobs(), n);
  }

  void crud() {
    auto rb = jobs();
    auto r = admin.send(rb.create(tfjob("p-crud", ns)));
    json created = parse_body(r.body);
    out["create"] = outcome(r);
    out["create"]["set"] = server_set(created);
    out["managedFields.create"] = managers(created);
    out["create"]["defaulted_by_server"] = created.value("/spec/runPolicy"_json_pointer, json(nullptr)).is_object();

    r = admin.send(rb.create(tfjob("p-crud", ns)));
    out["create_twice"] = outcome(r);

    r = admin.send(rb.get("p-crud"));
    out["get"] = outcome(r);
    out["get"]["same_uid"] = parse_body(r.body).value("/metadata/uid"_json_pointer, std::string()) ==
                             created.value("/metadata/uid"_json_pointer, std::string("?"));

    // merge patch of metadata: resourceVersion moves, generation does not
    const std::string rv0 = rv_of(r.body);
    r = admin.send(rb.merge_patch("p-crud", {{"metadata", {{"labels", {{"patched", "yes"}}}}}}));
    json p = parse_body(r.body);
    out["merge_patch_labels"] = outcome(r);
    out["merge_patch_labels"]["generation"] = p.value("/metadata/generation"_json_pointer, 0);
    out["merge_patch_labels"]["rv_changed"] = rv_of(r.body) != rv0;
    out["merge_patch_labels"]["label"] = p.value("/metadata/labels/patched"_json_pointer, std::string());
    out["merge_patch_labels"]["kept_label"] = p.value("/metadata/labels/parity"_json_pointer, std::string());
    // a spec change bumps generation
    r = admin.send(rb.merge_patch("p-crud", {{"spec", {{"tfReplicaSpecs", {{"Worker", {{"replicas", 3}}}}}}}}));
    p = parse_body(r.body);
    out["merge_patch_spec"] = outcome(r);
    out["merge_patch_spec"]["generation"] = p.value("/metadata/generation"_json_pointer, 0);
    out["merge_patch_spec"]["replicas"] = p.value("/spec/tfReplicaSpecs/Worker/replicas"_json_pointer, 0);
    // the status subresource: status changes, generation does not; status on the main resource is ignored
    r = admin.send(rb.merge_patch(
        "p-crud", {{"status", {{"conditions", {{{"type", "Created"}, {"status", "True"}, {"reason", "TFJobCreated"}}}}}}},
        {}, "status"));
    p = parse_body(r.body);
    out["patch_status"] = outcome(r);
    out["patch_status"]["generation"] = p.value("/metadata/generation"_json_pointer, 0);
    out["patch_status"]["conditions"] = p.value("/status/conditions"_json_pointer, json::array()).size();
    r = admin.send(rb.merge_patch("p-crud", {{"status", {{"conditions", nullptr}}}}));
    p = parse_body(r.body);
    out["patch_status_via_main_resource"] = outcome(r);
    out["patch_status_via_main_resource"]["conditions_kept"] =
        p.value("/status/conditions"_json_pointer, json::array()).size();
    // a merge patch that breaks the schema
    r = admin.send(rb.merge_patch("p-crud", {{"spec", {{"tfReplicaSpecs", {{"Worker", {{"replicas", "three"}}}}}}}}));
    out["merge_patch_invalid"] = outcome(r);
    // a merge patch of a missing object
    r = admin.send(rb.merge_patch("p-missing", {{"metadata", {{"labels", {{"a", "b"}}}}}}));
    out["merge_patch_missing"] = outcome(r);
  }

  void missing() {
    out["get_missing"] = outcome(admin.send(jobs().get("p-missing")));
    const std::string gone_ns = "parity-no-such-ns-" + t.suffix;
    out["get_in_missing_namespace"] = outcome(admin.send(jobs(gone_ns).get("p-missing")));
    out["list_in_missing_namespace"] = outcome(admin.send(jobs(gone_ns).list({})));
    out["create_in_missing_namespace"] = outcome(admin.send(jobs(gone_ns).create(tfjob("p-crud", gone_ns))));
    out["delete_missing"] = outcome(admin.send(jobs().remove("p-missing")));
  }

  void invalid() {
    json bad = tfjob("p-invalid", ns);
    bad["spec"]["tfReplicaSpecs"]["Worker"]["replicas"] = "two";
    bad["spec"]["tfReplicaSpecs"]["Worker"]["template"]["spec"]["containers"][0].erase("name");
    auto r = admin.send(jobs().create(bad));
    out["create_invalid"] = outcome(r);
    out["create_invalid"]["created"] = exists(admin, jobs(), "p-invalid");
    json nospec = tfjob("p-invalid", ns);
    nospec["spec"].erase("tfReplicaSpecs");
    out["create_without_replica_specs"] = outcome(admin.send(jobs().create(nospec)));
    json badname = tfjob("P_Invalid", ns);
    out["create_bad_name"] = outcome(admin.send(jobs().create(badname)));
    Request raw = jobs().create(tfjob("p-invalid", ns));
    raw.body = "{\"apiVersion\": \"kubeflow.org/v1\", \"kind\": ";
    out["create_bad_json"] = outcome(admin.send(raw));
    json other_ns = tfjob("p-invalid", t.limited_ns);
    out["create_namespace_mismatch"] = outcome(admin.send(jobs().create(other_ns)));
  }

  void dry_run() {
    tfjob::kube::PostParams dp;
    dp.dry_run = true;
    auto r = admin.send(jobs().create(tfjob("p-dry", ns), dp));
    out["create_dry_run"] = outcome(r);
    out["create_dry_run"]["set"] = server_set(parse_body(r.body));
    out["managedFields.create_dry_run"] = managers(parse_body(r.body));
    out["create_dry_run"]["persisted"] = exists(admin, jobs(), "p-dry");
  }

  void server_side_apply() {
    auto rb = jobs();
    tfjob::kube::ApplyParams a;
    a.field_manager = "parity-a";
    auto r = admin.send(rb.apply("p-ssa", tfjob("p-ssa", ns), a));
    json obj = parse_body(r.body);
    out["apply_create"] = outcome(r);
    out["apply_create"]["set"] = server_set(obj);
    out["managedFields.apply_create"] = managers(obj);
    const std::string rv1 = rv_of(r.body);

    r = admin.send(rb.apply("p-ssa", tfjob("p-ssa", ns), a));
    out["apply_unchanged"] = outcome(r);
    out["apply_unchanged"]["generation"] = parse_body(r.body).value("/metadata/generation"_json_pointer, 0);
    out["apply_unchanged"]["rv_changed"] = rv_of(r.body) != rv1;

    tfjob::kube::ApplyParams b;
    b.field_manager = "parity-b";
    r = admin.send(rb.apply("p-ssa", tfjob("p-ssa", ns, 5), b));
    out["apply_conflict"] = outcome(r);

    b.force = true;
    r = admin.send(rb.apply("p-ssa", tfjob("p-ssa", ns, 5), b));
    obj = parse_body(r.body);
    out["apply_force"] = outcome(r);
    out["apply_force"]["set"] = server_set(obj);
    out["managedFields.apply_force"] = managers(obj);
    out["apply_force"]["replicas"] = obj.value("/spec/tfReplicaSpecs/Worker/replicas"_json_pointer, 0);

    // the same value from a second manager is no conflict (shared ownership)
    tfjob::kube::ApplyParams c;
    c.field_manager = "parity-c";
    r = admin.send(rb.apply("p-ssa", tfjob("p-ssa", ns, 5), c));
    out["apply_shared_value"] = outcome(r);
    out["apply_shared_value"]["set"] = server_set(parse_body(r.body));
    out["managedFields.apply_shared_value"] = managers(parse_body(r.body));

    // no fieldManager: refused
    Request nofm = rb.apply("p-ssa", tfjob("p-ssa", ns), a);
    nofm.query.erase(std::remove_if(nofm.query.begin(), nofm.query.end(),
                                    [](const auto& kv) { return kv.first == "fieldManager"; }),
                     nofm.query.end());
    nofm.takes_field_manager = false;  // nor the client's own: the server's answer to none at all
    out["apply_without_field_manager"] = outcome(admin.send(nofm));

    // apply an invalid object
    json bad = tfjob("p-ssa", ns);
    bad["spec"]["tfReplicaSpecs"]["Worker"]["replicas"] = "two";
    a.force = true;
    out["apply_invalid"] = outcome(admin.send(rb.apply("p-ssa", bad, a)));
  }

  void paging() {
    auto rb = jobs();
    for (int i = 0; i < 3; ++i) {
      json j = tfjob("p-page-" + std::to_string(i), ns);
      j["metadata"]["labels"]["page"] = "yes";
      admin.send(rb.create(j));
    }
    tfjob::kube::ListParams lp;
    lp.label_selector = "page=yes";
    lp.limit = 2;
    auto r = admin.send(rb.list(lp));
    json l = parse_body(r.body);
    json page1 = outcome(r);
    page1["items"] = l.value("items", json::array()).size();
    page1["has_continue"] = !l.value("/metadata/continue"_json_pointer, std::string()).empty();
    page1["remainingItemCount"] = l.value("/metadata/remainingItemCount"_json_pointer, json(nullptr));
    page1["has_resourceVersion"] = !l.value("/metadata/resourceVersion"_json_pointer, std::string()).empty();
    page1["item_kind_apiVersion"] = l.value("items", json::array()).empty()
                                        ? json(nullptr)
                                        : json(l["items"][0].value("kind", "") + " " + l["items"][0].value("apiVersion", ""));
    out["list_page_1"] = page1;

    lp.continue_token = l.value("/metadata/continue"_json_pointer, std::string());
    r = admin.send(rb.list(lp));
    l = parse_body(r.body);
    json page2 = outcome(r);
    page2["items"] = l.value("items", json::array()).size();
    page2["has_continue"] = !l.value("/metadata/continue"_json_pointer, std::string()).empty();
    page2["remainingItemCount"] = l.value("/metadata/remainingItemCount"_json_pointer, json(nullptr));
    page2["names"] = json::array();
    for (const auto& it : l.value("items", json::array())) page2["names"].push_back(it["metadata"]["name"]);
    out["list_page_2"] = page2;

    // without a selector the server knows how many remain
    tfjob::kube::ListParams all;
    all.limit = 2;
    l = parse_body(admin.send(rb.list(all)).body);
    out["list_unfiltered_page_1"] = {
        {"items", l.value("items", json::array()).size()},
        {"has_continue", !l.value("/metadata/continue"_json_pointer, std::string()).empty()},
        {"remainingItemCount", l.value("/metadata/remainingItemCount"_json_pointer, json(nullptr))}};

    lp.continue_token = "this-is-not-a-continue-token";
    out["list_bad_continue"] = outcome(admin.send(rb.list(lp)));
    tfjob::kube::ListParams bad_sel;
    bad_sel.label_selector = "a in (b";
    out["list_bad_selector"] = outcome(admin.send(rb.list(bad_sel)));
  }

  void watch() {
    auto rb = jobs();
    tfjob::kube::ListParams lp;
    lp.label_selector = "watch=yes";
    auto r = admin.send(rb.list(lp));
    const std::string rv = rv_of(r.body);
    json j = tfjob("p-watch", ns);
    j["metadata"]["labels"]["watch"] = "yes";
    admin.send(rb.create(j));
    admin.send(rb.merge_patch("p-watch", {{"metadata", {{"annotations", {{"step", "1"}}}}}}));
    admin.send(rb.merge_patch("p-watch", {{"status", {{"conditions", {{{"type", "Created"}, {"status", "True"}}}}}}}, {},
                              "status"));
    admin.send(rb.remove("p-watch"));
    json http;
    out["watch_from_list_rv"] = {{"events", watch_events(admin, rb, rv, "watch=yes", 4, &http)}, {"http", http}};

    json http_old;
    auto old = watch_events(admin, rb, "1", "watch=yes", 1, &http_old);
    out["watch_too_old_rv"] = {{"events", old}, {"http", http_old}};
  }

  void deletes() {
    auto rb = jobs();
    for (const char* n : {"p-bg", "p-fg", "p-default"}) admin.send(rb.create(tfjob(n, ns)));
    tfjob::kube::DeleteParams bg;
    bg.propagation_policy = "Background";
    auto r = admin.send(rb.remove("p-bg", bg));
    out["delete_background"] = outcome(r);
    out["delete_background"]["set"] = server_set(parse_body(r.body));
    out["managedFields.delete_background"] = managers(parse_body(r.body));
    out["delete_background"]["then_get"] = admin.send(rb.get("p-bg")).status;

    r = admin.send(rb.remove("p-default"));
    out["delete_default"] = outcome(r);
    out["delete_default"]["then_get"] = admin.send(rb.get("p-default")).status;

    // Foreground: the server marks the object (deletionTimestamp, finalizer foregroundDeletion)
    // and answers 200 with it; removing it is the garbage collector's work, which does not run
    // on the real tier, so only the answer is compared.
    tfjob::kube::DeleteParams fg;
    fg.propagation_policy = "Foreground";
    r = admin.send(rb.remove("p-fg", fg));
    out["delete_foreground"] = outcome(r);
    out["delete_foreground"]["set"] = server_set(parse_body(r.body));
    out["managedFields.delete_foreground"] = managers(parse_body(r.body));

    tfjob::kube::DeleteParams bad;
    bad.propagation_policy = "Sideways";
    admin.send(rb.create(tfjob("p-bg", ns)));
    out["delete_bad_propagation"] = outcome(admin.send(rb.remove("p-bg", bad)));
    clean(admin, rb, "p-fg");
    clean(admin, rb, "p-bg");
  }

  void rbac() {
    Client lim = t.limited();
    RequestBuilder in(kTFJobs, t.limited_ns), out_ns(kTFJobs, t.forbidden_ns);
    out["limited_list_own_namespace"] = outcome(lim.send(in.list({})));
    out["limited_list_other_namespace"] = outcome(lim.send(out_ns.list({})));
    out["limited_get_other_namespace"] = outcome(lim.send(out_ns.get("p-crud")));
    out["limited_create_other_namespace"] = outcome(lim.send(out_ns.create(tfjob("p-crud", t.forbidden_ns))));
    out["limited_list_nodes"] = outcome(lim.send(RequestBuilder({"", "v1", "nodes", "Node", false}, "").list({})));
    out["limited_list_all_namespaces"] = outcome(lim.send(RequestBuilder(kTFJobs, "").list({})));
  }

  /// Who the server takes a request for: no credentials (the anonymous user, refused by
  /// RBAC, except the public /version), and a client certificate from a CA the server does
  /// not trust (accepted in the handshake, 401; a valid token alongside it still counts).
  void authentication() {
    using tfjob::kube::RestConfig;
    RestConfig anon = admin.config();
    anon.tls.client_cert_pem.clear();
    anon.tls.client_key_pem.clear();
    anon.auth = tfjob::kube::AuthConfig{};
    RestConfig foreign = anon;
    static const FakePki other = FakePki::generate();  // a CA this server has never seen
    foreign.tls.client_cert_pem = other.wrong_ca_client.cert;
    foreign.tls.client_key_pem = other.wrong_ca_client.key;
    auto raw = [](const std::string& path) {
      tfjob::kube::Request r;
      r.path = path;
      r.what = "get " + path;
      return r;
    };
    auto with_message = [](const tfjob::kube::Response& r) {
      json o = outcome(r);
      json b = parse_body(r.body);
      if (b.is_object() && b.value("kind", "") == "Status") o["message"] = b.value("message", "");
      return o;
    };
    Client a(anon);
    out["auth_anonymous_list"] = with_message(a.send(jobs().list({})));
    out["auth_anonymous_discovery"] = with_message(a.send(raw("/apis")));
    out["auth_anonymous_version"] = outcome(a.send(raw("/version")));
    Client f(foreign);
    out["auth_foreign_cert"] = outcome(f.send(raw("/version")));
  }

  void logs() {
    const std::string pod = "p-logs";
    Client c = t.pod_with_log(ns, pod, "tensorflow", {"line one", "line two", "line three"});
    RequestBuilder pods(kPods, ns);
    auto tail = with_query(pods.get(pod, "log"), "tailLines", "2");
    tail.accept = "*/*";
    auto r = c.send(tail);
    out["logs_tail"] = {{"code", r.status}, {"body", r.body}};
    auto ts = with_query(with_query(pods.get(pod, "log"), "tailLines", "1"), "timestamps", "true");
    ts.accept = "*/*";
    r = c.send(ts);
    out["logs_timestamps"] = {{"code", r.status}, {"body", normalise_log(r.body)}};
    auto all = pods.get(pod, "log");
    all.accept = "*/*";
    r = c.send(with_query(all, "container", "tensorflow"));
    out["logs_all"] = {{"code", r.status}, {"body", r.body}};
    out["logs_unknown_container"] = outcome(c.send(with_query(all, "container", "nope")));
    out["logs_missing_pod"] = outcome(c.send(pods.get("p-no-such-pod", "log")));
    out["logs_bad_tail"] = outcome(c.send(with_query(all, "tailLines", "minus-one")));
  }
};

}  // namespace

json run_parity_scenarios(const ParityTarget& target) {
  Run run(target);
  run.setup();
  run.crud();
  run.missing();
  run.invalid();
  run.dry_run();
  run.server_side_apply();
  run.paging();
  run.watch();
  run.deletes();
  run.rbac();
  run.authentication();
  run.logs();
  // names that carry the per-run suffix are recorded without it
  std::string text = run.out.dump();
  for (std::size_t at; !target.suffix.empty() && (at = text.find(target.suffix)) != std::string::npos;)
    text.replace(at, target.suffix.size(), "SUFFIX");
  return json::parse(text);
}

json parity_expected() {
  const std::string path = source_dir() + "/tests/data/parity/expected.json";
  std::ifstream f(path);
  if (!f) throw std::runtime_error("cannot read " + path);
  return json::parse(f);
}

std::vector<std::string> parity_diff(const json& expected, const json& got, const std::vector<std::string>& skip) {
  std::vector<std::string> d;
  auto skipped = [&](const std::string& k) {
    for (const auto& p : skip)
      if (k.rfind(p, 0) == 0) return true;
    return false;
  };
  for (auto it = expected.begin(); it != expected.end(); ++it) {
    if (skipped(it.key())) continue;
    if (!got.contains(it.key())) {
      d.push_back(it.key() + ": missing (expected " + it.value().dump() + ")");
    } else if (got[it.key()] != it.value()) {
      d.push_back(it.key() + ":\n    expected " + it.value().dump() + "\n    got      " + got[it.key()].dump());
    }
  }
  for (auto it = got.begin(); it != got.end(); ++it)
    if (!skipped(it.key()) && !expected.contains(it.key())) d.push_back(it.key() + ": not in expected.json (got " + it.value().dump() + ")");
  return d;
}

}  // namespace tfjob::test
