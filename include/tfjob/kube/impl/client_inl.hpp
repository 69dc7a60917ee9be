#pragma once
/// \file The bodies of <tfjob/kube/client.hpp>: that header includes this file at its end, in its
/// `#if TFJOB_SDK_DEFINE_KUBE` section (detail/compiled.hpp says when that is compiled).
/// Include <tfjob/kube/client.hpp>, never this file.

namespace tfjob::kube {

TFJOB_INLINE Client::Client(RestConfig cfg) : s_(std::make_shared<State>(std::move(cfg))) {}

TFJOB_INLINE Client Client::from_default() { return Client(load_config()); }

TFJOB_INLINE int Client::exec_runs() const { return s_->exec ? s_->exec->runs() : 0; }

TFJOB_INLINE void Client::cache_discovery(bool on) {
  std::lock_guard<std::mutex> lk(s_->discovery_mu);
  s_->discovery_cached = on;
  if (!on) s_->discovery.clear();
}

TFJOB_INLINE std::optional<nlohmann::json> Client::discovery(const std::string& path,
                                                          const std::function<std::optional<nlohmann::json>()>& fetch) {
  std::unique_lock<std::mutex> lk(s_->discovery_mu);
  if (!s_->discovery_cached) {
    lk.unlock();
    return fetch();
  }
  auto it = s_->discovery.find(path);
  if (it != s_->discovery.end()) return it->second;
  auto answer = fetch();  // under the lock: the others asking now get this answer
  s_->discovery[path] = answer;
  return answer;
}

TFJOB_INLINE Response Client::send(const Request& req) {
  Response resp;
  bool done = perform(req, nullptr, StreamOptions{}, &resp);
  (void)done;
  return resp;
}

TFJOB_INLINE std::string Client::request_text(const Request& req) {
  Response r = send(req);
  if (r.status >= 200 && r.status < 300) return std::move(r.body);
  throw_for(req, r.status, r.reason, r.body, r.header("retry-after"));
}

TFJOB_INLINE nlohmann::json Client::request_json(const Request& req, const tfjob::detail::JsonOmit* omit) {
  Response resp = send(req);
  if (resp.status < 200 || resp.status >= 300)
    throw_for(req, resp.status, resp.reason, resp.body, resp.header("retry-after"));
  return decode_json(req, resp.status, resp.body, omit);
}

TFJOB_INLINE int Client::request_into(const Request& req, BodyConsumer& body, const std::atomic<bool>* cancel) {
  Response resp;
  resp.consumer = &body;
  StreamOptions so;
  so.cancel = cancel;
  if (!perform(req, nullptr, so, &resp) && cancel && cancel->load()) throw detail::cancelled();
  if (resp.status < 200 || resp.status >= 300) throw_for(req, resp.status, resp.reason, resp.body, resp.header("retry-after"));
  return resp.status;
}

TFJOB_INLINE nlohmann::json Client::decode_json(const Request& req, int http_status, const std::string& body,
                                                const tfjob::detail::JsonOmit* omit) {
  if (body.empty()) return nlohmann::json::object();
  auto r = tfjob::detail::read_json(body, limits::max_depth, omit);
  if (!r.ok())
    throw decode_error(req.what + ": the server answered " + std::to_string(http_status) +
                           " but its body is not valid JSON (" + r.error + " " +
                           tfjob::detail::json_fault_place(body, r) + "); the body begins: " + printable_prefix(body, 120),
                       http_status);
  return std::move(r.value);
}

TFJOB_INLINE bool Client::stream(const Request& req, const std::function<bool(std::string_view)>& on_data,
                                 const StreamOptions& opts) {
  return perform(req, &on_data, opts, nullptr);
}

TFJOB_INLINE void Client::throw_for(const Request& req, int code, const std::string& reason, const std::string& body,
                                    const std::string& retry_after) const {
  status st = status_from_response(code, reason, body, retry_after);
  if (code == 401) {
    std::string who = s_->cfg.auth.user_name.empty() ? std::string("these credentials")
                                                     : "the credentials of user \"" + s_->cfg.auth.user_name + "\"";
    std::string hint = "check the token, client certificate or credential plugin, or log in again";
    if (s_->tls && s_->tls->client_not_after() != 0 && s_->tls->client_not_after() < std::time(nullptr))
      hint = "the client certificate expired on " + detail::format_rfc3339(s_->tls->client_not_after()) + ": renew it";
    throw auth_error(req.what + ": Unauthorized (401): the server rejected " + who + " (" + s_->cfg.source +
                     "); " + hint);
  }
  throw api_error(std::move(st), req.what);
}

TFJOB_INLINE Client::State::State(RestConfig c) : cfg(std::move(c)), server(detail::parse_url(cfg.server, "server")) {
  if (server.scheme == "https")
    tls = std::make_unique<detail::TlsContext>(cfg.tls.ca_pem, cfg.tls.ca_source, cfg.tls.insecure_skip_verify,
                                               cfg.tls.client_cert_pem, cfg.tls.client_key_pem);
  if (!cfg.warn) cfg.warn = [](const std::string&) {};  // unset: the application is not told
  if (cfg.tls.insecure_skip_verify && server.scheme == "https")
    cfg.warn("TLS certificate verification is disabled (insecure-skip-tls-verify) for " + server.origin() +
             "; the connection is not protected against impersonation");
  // clientcmd client_config.go: "only try to read the auth information if we are
  // secure" - no bearer token, token file, exec credential or client certificate goes
  // to a server that is not https.
  if (server.scheme != "https") {
    const auto& a = cfg.auth;
    std::string what = !a.token.empty()        ? "bearer token"
                       : !a.token_file.empty() ? "token file"
                       : a.exec                ? "exec credential plugin"
                       : !cfg.tls.client_cert_pem.empty() ? "client certificate"
                                                          : "";
    if (!what.empty()) {
      withheld = "the server " + server.origin() + " is plain http://, so the " + what +
                 " is not sent (credentials go only over TLS, as with kubectl); use an https:// server address";
      cfg.auth.token.clear();
      cfg.auth.token_file.clear();
      cfg.auth.exec.reset();
      cfg.tls.client_cert_pem.clear();
      cfg.tls.client_key_pem.clear();
      cfg.warn(withheld);
    }
  }
  if (cfg.auth.exec) exec = std::make_unique<ExecCredentialProvider>(*cfg.auth.exec, cfg.auth.exec_cluster_json, cfg.auth.user_name);
  proxy = !cfg.proxy_url.empty() ? cfg.proxy_url : (cfg.use_env_proxy ? detail::proxy_from_env(server) : "");
}

TFJOB_INLINE Client::Creds Client::credentials() {
  Creds c;
  const auto& a = s_->cfg.auth;
  if (!a.token.empty()) {
    c.bearer = a.token;
  } else if (!a.token_file.empty()) {
    std::string t;
    try {
      t = detail::trim(detail::read_file(a.token_file, "token file"));
    } catch (const config_error& e) {
      throw auth_error(e.what());
    }
    if (t.empty()) throw auth_error("token file \"" + a.token_file + "\" is empty");
    c.bearer = t;
  } else if (s_->exec) {
    c.exec = s_->exec->get();
    c.bearer = c.exec->token;
    if (c.bearer.empty()) {
      c.cert_pem = c.exec->client_certificate_pem;
      c.key_pem = c.exec->client_key_pem;
    }
  }
  return c;
}

TFJOB_INLINE std::string Client::build_head(const Request& req, const Creds& cr, bool via_http_proxy, bool redact) const {
  const auto& srv = s_->server;
  std::string target = srv.path + req.target();
  if (via_http_proxy) target = srv.origin() + target;
  std::string h = req.method + " " + target + " HTTP/1.1\r\n";
  h += "Host: " + (srv.port == (srv.scheme == "https" ? 443 : 80) ? (srv.ipv6 ? "[" + srv.host + "]" : srv.host)
                                                                  : srv.host_port()) + "\r\n";
  h += "User-Agent: " + s_->cfg.user_agent + "\r\n";
  h += "Accept: " + req.accept + "\r\n";
  if (!cr.bearer.empty()) h += std::string("Authorization: Bearer ") + (redact ? "<masked>" : cr.bearer) + "\r\n";
  if (!req.body.empty() || req.method == "POST" || req.method == "PUT" || req.method == "PATCH") {
    if (!req.content_type.empty()) h += "Content-Type: " + req.content_type + "\r\n";
    h += "Content-Length: " + std::to_string(req.body.size()) + "\r\n";
  }
  h += "\r\n";
  return h;
}

TFJOB_INLINE void Client::log(const std::string& s) const {
  if (s_->cfg.log) s_->cfg.log(s);
}

TFJOB_INLINE std::unique_ptr<detail::Conn> Client::take_pooled(const Creds& cr) {
  std::lock_guard<std::mutex> lk(s_->pool_mu);
  for (auto it = s_->pool.begin(); it != s_->pool.end(); ++it) {
    if (it->cert == cr.cert_pem) {
      auto c = std::move(it->conn);
      s_->pool.erase(it);
      return c;
    }
  }
  return nullptr;
}

TFJOB_INLINE void Client::give_back(std::unique_ptr<detail::Conn> c, const Creds& cr) {
  std::lock_guard<std::mutex> lk(s_->pool_mu);
  if (s_->pool.size() < 4) s_->pool.push_back({std::move(c), cr.cert_pem});
}

TFJOB_INLINE Client::Attempt Client::attempt(const Request& req, const Creds& cr, detail::Deadline dl, const std::function<bool(std::string_view)>* sink,
                                             const StreamOptions& opts, Response* out) {
  std::unique_ptr<detail::Conn> conn;
  bool pooled = false;
  if (!sink && req.idempotent) {
    conn = take_pooled(cr);
    pooled = conn != nullptr;
  }
  for (;;) {
    if (!conn) conn = open_for(cr, dl, sink != nullptr, opts);
    conn->set_cancel(opts.cancel);
    try {
      return exchange(req, cr, dl, sink, opts, out, conn, pooled);
    } catch (const detail::connect_failure&) {
      if (pooled) {  // the server closed an idle connection: open a fresh one, once
        conn.reset();
        pooled = false;
        continue;
      }
      throw;
    }
  }
}

TFJOB_INLINE std::unique_ptr<detail::Conn> Client::open_for(const Creds& cr, detail::Deadline dl, bool stream,
                                                           const StreamOptions& opts) {
  auto& st = *s_;
  // A stream's connection phase still has a limit even when the request has none.
  detail::Deadline cdl = dl == detail::no_deadline() ? detail::deadline_after(std::chrono::seconds(30)) : dl;
  if (stream) cdl = std::min(cdl, opts.deadline);
  return detail::open_connection(st.server, st.proxy, st.tls.get(), st.cfg.tls.server_name, cdl, opts.cancel,
                                 cr.cert_pem, cr.key_pem);
}

TFJOB_INLINE Client::Attempt Client::exchange(const Request& req, const Creds& cr, detail::Deadline dl,
                                              const std::function<bool(std::string_view)>* sink, const StreamOptions& opts,
                                              Response* out, std::unique_ptr<detail::Conn>& conn, bool pooled) {
  bool via_http_proxy = !s_->proxy.empty() && s_->server.scheme == "http";
  Attempt a;
  ++s_->sent;
  conn->write_all(build_head(req, cr, via_http_proxy, false) + req.body, dl);
  detail::Reader rd(*conn);
  try {
    a.head = detail::read_head(rd, dl);
  } catch (const detail::timeout_failure&) {
    throw;
  } catch (const transport_error&) {
    if (pooled && !rd.received_any()) throw detail::connect_failure("stale pooled connection");
    throw;
  }
  if (s_->cfg.on_warning) {
    // client-go rest/warnings.go: every 299 warning goes to the handler
    std::vector<std::string> values;
    for (const auto& [k, v] : a.head.headers)
      if (k == "warning") values.push_back(v);
    for (const auto& w : parse_warning_headers(values))
      if (w.code == 299 && !w.text.empty()) s_->cfg.on_warning(w.text);
  }
  bool reusable = false;
  bool ok2xx = a.head.status >= 200 && a.head.status < 300;
  if (sink && ok2xx) {
    a.complete = read_stream_body(rd, a.head, req, *sink, opts);
    return a;
  }
  if (out && out->consumer && ok2xx) {  // request_into: the body to its consumer as it is read
    const size_t cap = s_->cfg.max_response_bytes;
    size_t total = 0;
    out->consumer->start();
    detail::read_body(rd, a.head, req.method == "HEAD", dl,
                      [&](std::string_view d) {
                        if (total + d.size() > cap) throw detail::answer_refused(too_large(cap));
                        total += d.size();
                        out->consumer->data(d);
                        return true;
                      },
                      reusable);
    out->status = a.head.status;
    out->reason = a.head.reason;
    out->headers = a.head.headers;
    if (reusable) give_back(std::move(conn), cr);
    return a;
  }
  std::string body = read_buffered_body(rd, a.head, req, dl, sink != nullptr, reusable);
  if (out) {
    out->status = a.head.status;
    out->reason = a.head.reason;
    out->headers = a.head.headers;
    out->body = std::move(body);
  } else {
    a.error_body = std::move(body);
  }
  if (reusable && !sink) give_back(std::move(conn), cr);
  return a;
}

TFJOB_INLINE bool Client::read_stream_body(detail::Reader& rd, const detail::ResponseHead& head, const Request& req,
                                           const std::function<bool(std::string_view)>& sink, const StreamOptions& opts) {
  bool reusable = false;
  rd.set_idle(opts.idle_timeout);
  try {
    return detail::read_body(rd, head, req.method == "HEAD", opts.deadline, sink, reusable);
  } catch (const detail::cancelled&) {
    throw;
  } catch (const detail::timeout_failure& e) {
    if (detail::Clock::now() >= opts.deadline) throw detail::cancelled();  // the caller's deadline: an end
    throw detail::stream_broken(e.what());
  } catch (const transport_error& e) {
    throw detail::stream_broken(e.what());
  }
}

TFJOB_INLINE std::string Client::too_large(size_t cap) {
  return "the server's answer is larger than " + tfjob::detail::human_bytes(cap) +
         " (the bound on one answer); narrow the request (a label selector, a namespace)";
}

TFJOB_INLINE std::string Client::read_buffered_body(detail::Reader& rd, const detail::ResponseHead& head, const Request& req,
                                                    detail::Deadline dl, bool stream, bool& reusable) const {
  // An error answer to a stream is kept to 1 MiB (a Status is small); a buffered
  // answer may be large (lists) but not without bound.
  const size_t cap = stream ? (1u << 20) : s_->cfg.max_response_bytes;
  // Read in blocks, joined once at the end, each block freed as it is copied: a string grown
  // as the bytes come doubles its capacity and, while it moves, holds the old buffer and the
  // new one, up to three times the answer (15 MiB for a 5 MiB page of 500 jobs); this way
  // the answer and one block.
  constexpr size_t block = size_t(256) << 10;
  std::vector<std::string> blocks(1);
  size_t total = 0;
  detail::read_body(rd, head, req.method == "HEAD", dl,
                    [&](std::string_view d) {
                      if (!stream && total + d.size() > cap) throw detail::answer_refused(too_large(cap));
                      d = d.substr(0, std::min(d.size(), cap - total));
                      while (!d.empty()) {
                        if (blocks.back().size() >= block) blocks.emplace_back().reserve(block);
                        const size_t n = std::min(d.size(), block - blocks.back().size());
                        blocks.back().append(d.substr(0, n));
                        d.remove_prefix(n);
                        total += n;
                      }
                      return true;
                    },
                    reusable);
  if (blocks.size() == 1) return std::move(blocks.front());
  std::string body;
  body.reserve(total);
  for (auto& b : blocks) {
    body += b;
    std::string().swap(b);
  }
  return body;
}

TFJOB_INLINE std::chrono::milliseconds Client::backoff(const RetryPolicy& p, int n) {
  auto ms = p.base_backoff * (1 << std::min(n, 10));
  return std::min(ms, p.max_backoff);
}

TFJOB_INLINE Request Client::with_field_manager(const Request& req) const {
  Request r = req;
  if (r.takes_field_manager && r.param("fieldManager").empty() && !s_->cfg.field_manager.empty())
    r.query.emplace_back("fieldManager", s_->cfg.field_manager);
  return r;
}

TFJOB_INLINE bool Client::perform(const Request& req0, const std::function<bool(std::string_view)>* sink, const StreamOptions& opts,
                                  Response* out) {
  const Request req = with_field_manager(req0);
  const auto& cfg = s_->cfg;
  Tries t;
  t.dl = detail::deadline_after(cfg.timeout);
  for (;;) {
    Creds cr = credentials();
    t.t0 = std::chrono::steady_clock::now();
    t.url = s_->server.origin() + s_->server.path + req.target();
    if (cfg.verbosity >= 7) {
      std::string head = build_head(req, cr, false, true);
      log("Request Headers:\n" + head.substr(head.find("\r\n") + 2));
    }
    if (cfg.verbosity >= 8 && !req.body.empty()) log("Request Body: " + req.body.substr(0, 10240));
    Attempt a;
    t.wait = std::chrono::milliseconds{0};
    t.why.clear();
    Next n = run_attempt(req, cr, t, sink, opts, out, a);
    if (n == Next::answered) n = judge_answer(req, cr, t, a, sink != nullptr, out);
    if (n == Next::retry_later) n = pause_before_retry(req, t, sink != nullptr, opts, out);
    if (n == Next::retry_now) continue;
    return n == Next::stop_true;
  }
}

TFJOB_INLINE Client::Next Client::run_attempt(const Request& req, const Creds& cr, Tries& t,
                                              const std::function<bool(std::string_view)>* sink, const StreamOptions& opts,
                                              Response* out, Attempt& a) {
  const auto& cfg = s_->cfg;
  const auto& pol = s_->retry;
  try {
    a = attempt(req, cr, t.dl, sink, opts, out);
    return Next::answered;
  } catch (const detail::cancelled&) {
    return Next::stop_false;
  } catch (const detail::answer_refused& e) {
    throw transport_error(req.what + ": " + e.what());
  } catch (const detail::stream_broken& e) {
    throw transport_error(req.what + ": " + e.what());
  } catch (const detail::timeout_failure& e) {
    if (cfg.verbosity >= 6) log(req.method + " " + t.url + "  in " + ms_since(t.t0) + " milliseconds (timeout)");
    std::string limit = cfg.timeout.count() > 0 ? " (request timeout " + std::to_string(cfg.timeout.count()) + "ms)" : "";
    throw transport_error(req.what + ": " + e.what() + limit);
  } catch (const detail::connect_failure& e) {
    if (cfg.verbosity >= 6) log(req.method + " " + t.url + "  in " + ms_since(t.t0) + " milliseconds (" + e.what() + ")");
    const std::string what = e.what();
    // client-go repeats no failed dial (rest/request.go, isErrRetryableFunc: only a GET's
    // connection reset or EOF): a refused connection or a name that does not resolve is
    // said at once. A dial that timed out or a TLS handshake cut short is tried again within
    // the deadline, for any verb: nothing was sent.
    const bool refused = what.find("connection refused") != std::string::npos;
    const bool unknown_host = what.find(": lookup ") != std::string::npos && what.find("Temporary failure") == std::string::npos;
    if (refused || unknown_host || t.failure_count >= pol.max_failures || is_tls_verification(what))
      throw unreachable(req, e.text(), refused);
    t.wait = backoff(pol, t.failure_count++);
    t.why = what;
    t.why_reason = reasons::server_unreachable;
    return Next::retry_later;
  } catch (const auth_error&) {
    throw;
  } catch (const config_error&) {
    throw;
  } catch (const transport_error& e) {
    if (cfg.verbosity >= 6) log(req.method + " " + t.url + "  in " + ms_since(t.t0) + " milliseconds (" + e.what() + ")");
    if (!req.idempotent)
      throw transport_error(req.what + ": " + e.text() +
                            "; the request was not repeated because it may already have taken effect");
    if (t.failure_count >= pol.max_failures) throw transport_error(req.what + ": " + e.text());
    t.wait = backoff(pol, t.failure_count++);
    t.why = e.what();
    return Next::retry_later;
  }
}

TFJOB_INLINE Client::Next Client::judge_answer(const Request& req, const Creds& cr, Tries& t, const Attempt& a, bool stream,
                                               Response* out) {
  const auto& cfg = s_->cfg;
  const auto& pol = s_->retry;
  int code = a.head.status;
  if (cfg.verbosity >= 6)
    log(req.method + " " + t.url + " " + std::to_string(code) + " " + a.head.reason + " in " + ms_since(t.t0) + " milliseconds");
  if (cfg.verbosity >= 8 && out && !out->body.empty()) log("Response Body: " + out->body.substr(0, 10240));
  std::string ra = a.head.header("retry-after");
  if (code == 401 && !t.refreshed_after_401 && (s_->exec || !cfg.auth.token_file.empty())) {
    // client-go: a 401 invalidates exec credentials; refresh once and repeat (the
    // server refused the request, so nothing took effect).
    t.refreshed_after_401 = true;
    if (s_->exec && cr.exec) s_->exec->invalidate(*cr.exec);
    if (cfg.verbosity >= 6) log("401 Unauthorized: refreshing credentials and retrying once");
    if (out) *out = Response{0, {}, {}, {}, out->consumer};  // a fresh answer, to the same consumer
    return Next::retry_now;
  }
  bool retryable_5xx = code == 500 || code == 502 || code == 503 || code == 504;
  if (code == 429 || (retryable_5xx && req.idempotent)) {
    int secs = std::atoi(ra.c_str());
    bool use_ra = !ra.empty() && secs >= 0;
    if (code == 429 ? t.retry_after_count < pol.max_retry_after : t.failure_count < pol.max_failures) {
      t.wait = use_ra ? std::chrono::milliseconds(std::min<long long>(secs, pol.max_retry_after_wait.count()) * 1000)
                      : backoff(pol, code == 429 ? t.retry_after_count : t.failure_count);
      if (code == 429) ++t.retry_after_count; else ++t.failure_count;
      t.why = std::to_string(code) + " " + a.head.reason;
      return Next::retry_later;
    }
  }
  if (stream && (code < 200 || code >= 300)) throw_for(req, code, a.head.reason, a.error_body, ra);
  return (stream ? a.complete : true) ? Next::stop_true : Next::stop_false;
}

TFJOB_INLINE Client::Next Client::pause_before_retry(const Request& req, const Tries& t, bool stream, const StreamOptions& opts,
                                                     Response* out) {
  if (stream && detail::Clock::now() + t.wait >= opts.deadline) return Next::stop_false;  // the caller's end comes first
  if (t.dl != detail::no_deadline() && detail::Clock::now() + t.wait >= t.dl) {
    if (out && out->status != 0) return Next::stop_true;  // hand back the last answer
    if (t.why_reason == reasons::server_unreachable) throw unreachable(req, t.why, false);
    throw transport_error(req.what + ": gave up before the request timeout after: " + t.why);
  }
  if (s_->cfg.verbosity >= 6)
    log("retrying " + req.method + " " + t.url + " in " + std::to_string(t.wait.count()) + "ms after: " + t.why);
  kube::sleep_for(t.wait, opts.cancel, stream ? opts.deadline : std::chrono::steady_clock::time_point::max());
  if (opts.cancel && opts.cancel->load()) return Next::stop_false;
  if (out) *out = Response{0, {}, {}, {}, out->consumer};  // a fresh answer, to the same consumer
  return Next::retry_now;
}

TFJOB_INLINE std::string Client::printable_prefix(const std::string& body, std::size_t n) {
  std::string out;
  for (std::size_t i = 0; i < body.size() && i < n; ++i) {
    auto c = static_cast<unsigned char>(body[i]);
    out += c < 0x20 || c >= 0x7F ? '?' : static_cast<char>(c);
  }
  return body.size() > n ? out + "..." : out;
}

TFJOB_INLINE transport_error Client::unreachable(const Request& req, const Text& what, bool refused) const {
  // the server as configured, host[:port] (kubectl says url.Parse(server).Host)
  std::string host = s_->cfg.server;
  if (auto p = host.find("://"); p != std::string::npos) host = host.substr(p + 3);
  host = host.substr(0, host.find('/'));
  if (refused)
    return transport_error(reasons::connection_refused, what + " (" + req.what + ")",
                           "; is the API server running there, and is that its host and port? (the server comes from " +
                               s_->cfg.source + ")",
                           host);
  return transport_error(reasons::server_unreachable, what + " (" + req.what + ")",
                         "; check the server's address (from " + s_->cfg.source + ") and the network to it", host);
}

TFJOB_INLINE bool Client::is_tls_verification(const std::string& m) {
  return m.find("x509:") != std::string::npos || m.find("rejected the TLS") != std::string::npos ||
         m.find("client certificate") != std::string::npos;
}

TFJOB_INLINE std::string Client::ms_since(std::chrono::steady_clock::time_point t0) {
  return std::to_string(
      std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - t0).count());
}

}  // namespace tfjob::kube
