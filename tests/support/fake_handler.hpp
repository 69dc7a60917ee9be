#pragma once
// The fake API server's request handler, one concern a file: fake_apiserver.cpp
// (authentication, authorization, routing), fake_crud.cpp (get, list, create, update,
// patch, apply, delete), fake_watch.cpp, fake_logs.cpp and fake_proxy.cpp.
#include <string>
#include <vector>

#include <httplib.h>

#include "support/fake_server_impl.hpp"

namespace tfjob::test::fake {

/// What a request is about, parsed from its path.
struct Target {
  const ResourceInfo* ri = nullptr;
  std::string ns, name, sub, rest;  ///< rest: what follows the subresource (proxy path)
  bool watch_prefix = false;
};

/// Who sent a request, as authentication found them.
struct Caller {
  std::string user;
  bool admin = false;
  bool anonymous = false;
  std::vector<std::string> namespaces;  ///< limited users
};

/// A request header's value, "" when absent.
std::string header(const httplib::Request& req, const char* key);
/// A query parameter's value, "" when absent.
std::string param(const httplib::Request& req, const char* key);
/// A query flag's "true", "1" or "True".
bool truthy(const std::string& v);
/// Is the peer gone? (checked while a stream idles; a client never sends during a stream)
bool peer_gone(const httplib::Request& req);
/// `s` without its spaces.
std::string strip_ws(std::string s);

/// Shared state of one streamed response (lives as long as the provider).
struct Stream {
  std::size_t written = 0;
  std::size_t cut_at = 0;  ///< 0 = never
  bool cut = false;
  /// Writes through the cut knob; false when the connection must close now.
  bool write(httplib::DataSink& sink, const std::string& data) {
    if (cut_at && written + data.size() >= cut_at) {
      std::size_t n = cut_at - written;
      if (n) sink.write(data.data(), n);
      written += n;
      cut = true;
      return false;
    }
    written += data.size();
    return sink.write(data.data(), data.size());
  }
};

/// One request, from authentication to its response (recorded in FakeApiServer::requests()).
struct Handler {
  FakeApiServer::Impl& s;
  const httplib::Request& req;
  httplib::Response& res;
  RecordedRequest rec;
  Caller caller;

  // -- answering, auth and routing (fake_apiserver.cpp) ---------------------------------
  /// Answers `body` as JSON with `code`.
  void send(int code, const json& body);
  /// Answers an ApiError's Status.
  void send_error(const ApiError& e);
  /// Did the client ask for a server-side Table (`kubectl get`)?
  bool wants_table() const;
  /// Finds the caller: client certificate, bearer token or anonymous; false = 401.
  bool authenticate();
  /// What system:anonymous may read without RBAC (the system:public-info-viewer role).
  void authorize_anonymous_path();
  /// RBAC, abridged: admins anything; limited users only inside their namespaces.
  void authorize(const std::string& verb, const Target& t);
  /// Parses a resource path (/api/v1/..., /apis/G/V/...); false when it names none.
  bool parse_target(Target& t);
  /// Handles the request: dispatch, errors as Status, then records it.
  void run();
  /// Faults, authentication, discovery and OpenAPI, then route() for resource paths.
  void dispatch();
  /// Answers a GET of /version, a health check, discovery or OpenAPI; false for other paths.
  bool get_non_resource(const std::string& p);
  /// Calls the verb's handler after authorizing it.
  void route(const Target& t);

  // -- get, list, create, update, patch, apply, delete (fake_crud.cpp) -----------------
  /// The body as JSON (or YAML); 400 when empty or undecodable, 415 for protobuf.
  json read_body() const;
  /// 404 when the target's namespace does not exist.
  void check_namespace_exists(const Target& t);
  void do_get(const Target& t);
  /// Lists with label/field selectors, limit/continue paging and tables.
  void do_list(const Target& t);
  /// The causes of an invalid metadata.name (or neither name nor generateName).
  std::vector<Cause> validate_meta(const ResourceInfo& ri, const json& obj);
  /// Pruning, defaulting and schema validation for TFJobs; minimal checks for builtins.
  void validate_object(const ResourceInfo& ri, json& obj);
  /// 400 when the body's apiVersion, kind or namespace disagrees with the URL.
  void check_kind(const Target& t, const json& obj);
  /// Is this a ?dryRun= request?
  bool dry_run() const;
  /// The field manager of a create/update/patch: ?fieldManager=, else the User-Agent's.
  std::string update_manager() const;
  void do_create(const Target& t);
  /// 409 when `incoming` names a resourceVersion other than `current`'s.
  void check_rv(const Target& t, const json& incoming, const json& current);
  void do_update(const Target& t);
  /// JSON, merge and strategic merge patches; apply patches go to do_apply().
  void do_patch(const Target& t);
  /// Server-side apply: creates, or merges with conflicts between managers.
  void do_apply(const Target& t);
  /// Deletes with propagation and preconditions (DeleteOptions).
  void do_delete(const Target& t);
  void do_delete_collection(const Target& t);

  // -- streams and subresources ---------------------------------------------------------
  /// A watch: initial ADDED events or from a resourceVersion, bookmarks, 410 (fake_watch.cpp).
  void do_watch(const Target& t);
  /// pods/NAME/log from the kubelet's record, followed or not (fake_logs.cpp).
  void pod_log(const Target& t);
  /// services|pods/NAME[:PORT]/proxy/... to a registered ProxyHandler (fake_proxy.cpp).
  void service_proxy(const Target& t, const std::string& plural);
};

}  // namespace tfjob::test::fake
