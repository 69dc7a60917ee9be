#pragma once
/// \file The bodies of <tfjob/kube/detail/http.hpp>: that header includes this file at its end, in its
/// `#if TFJOB_SDK_DEFINE_KUBE` section (detail/compiled.hpp says when that is compiled).
/// Include <tfjob/kube/detail/http.hpp>, never this file.

namespace tfjob::kube::detail {

TFJOB_INLINE Deadline no_deadline() { return Deadline::max(); }
TFJOB_INLINE Deadline deadline_after(std::chrono::milliseconds ms) {
  return ms.count() <= 0 ? no_deadline() : Clock::now() + ms;
}

TFJOB_INLINE bool is_ip_literal(const std::string& h) {
  unsigned char buf[sizeof(struct in6_addr)];
  return inet_pton(AF_INET, h.c_str(), buf) == 1 || inet_pton(AF_INET6, h.c_str(), buf) == 1;
}

TFJOB_INLINE TlsContext::TlsContext(const std::string& ca_pem, const std::string& ca_source, bool insecure,
                                    const std::string& client_cert_pem, const std::string& client_key_pem)
    : insecure_(insecure), ca_source_(ca_source) {
  ctx_.reset(SSL_CTX_new(TLS_client_method()));
  if (!ctx_) throw error("cannot create a TLS context: " + openssl_errors());
  SSL_CTX_set_min_proto_version(ctx_.get(), TLS1_2_VERSION);
  static const unsigned char alpn[] = {8, 'h', 't', 't', 'p', '/', '1', '.', '1'};
  SSL_CTX_set_alpn_protos(ctx_.get(), alpn, sizeof alpn);
  SSL_CTX_set_mode(ctx_.get(), SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
  if (!ca_pem.empty()) {
    auto store = make_store(ca_pem, ca_source.empty() ? "certificate authority" : ca_source);
    SSL_CTX_set_cert_store(ctx_.get(), store.release());  // the context owns it now
  } else {
    SSL_CTX_set_default_verify_paths(ctx_.get());
    ca_source_ = "the system trust store";
  }
  SSL_CTX_set_verify(ctx_.get(), insecure ? SSL_VERIFY_NONE : SSL_VERIFY_PEER, nullptr);
  if (!client_cert_pem.empty()) set_client_cert(ctx_.get(), nullptr, client_cert_pem, client_key_pem);
}

TFJOB_INLINE void TlsContext::set_client_cert(SSL_CTX* ctx, SSL* ssl, const std::string& cert_pem, const std::string& key_pem) {
  auto certs = parse_certificates(cert_pem, "client certificate");
  auto key = parse_private_key(key_pem, "client key");
  client_not_after_ = not_after(certs[0].get());
  int ok = ctx ? SSL_CTX_use_certificate(ctx, certs[0].get()) : SSL_use_certificate(ssl, certs[0].get());
  for (size_t i = 1; ok == 1 && i < certs.size(); ++i) {
    X509_up_ref(certs[i].get());
    ok = ctx ? SSL_CTX_add1_chain_cert(ctx, certs[i].get()) : SSL_add1_chain_cert(ssl, certs[i].get());
    X509_free(certs[i].get());
  }
  if (ok == 1) ok = ctx ? SSL_CTX_use_PrivateKey(ctx, key.get()) : SSL_use_PrivateKey(ssl, key.get());
  if (ok == 1) ok = ctx ? SSL_CTX_check_private_key(ctx) : SSL_check_private_key(ssl);
  if (ok != 1)
    throw config_error("the client certificate and client key do not belong together (" + openssl_errors() + ")");
}

TFJOB_INLINE void wait_fd(int fd, short events, Deadline dl, const std::atomic<bool>* cancel, const std::string& what) {
  for (;;) {
    if (cancel && cancel->load()) throw cancelled();
    int ms = 250;
    if (dl != no_deadline()) {
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(dl - Clock::now()).count();
      if (left <= 0) throw timeout_failure(what);
      if (left < ms || !cancel) ms = static_cast<int>(std::min<long long>(left, cancel ? 250 : 1 << 30));
    } else if (!cancel) {
      ms = -1;
    }
    pollfd p{fd, events, 0};
    int r = ::poll(&p, 1, ms);
    if (r > 0) return;
    if (r < 0 && errno != EINTR) throw transport_error(what + ": poll: " + std::strerror(errno));
  }
}

TFJOB_INLINE Conn::~Conn() {
  ssl_.reset();
  if (fd_ >= 0) ::close(fd_);
}

TFJOB_INLINE std::unique_ptr<Conn> Conn::dial(const std::string& host, int port, Deadline dl, const std::atomic<bool>* cancel) {
  auto c = std::make_unique<Conn>();
  c->peer_ = (host.find(':') != std::string::npos ? "[" + host + "]" : host) + ":" + std::to_string(port);
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* res = nullptr;
  int gai = ::getaddrinfo(host.c_str(), std::to_string(port).c_str(), &hints, &res);
  if (gai != 0)
    throw connect_failure("dial tcp " + c->peer_ + ": lookup " + host + ": " + gai_strerror(gai));
  std::unique_ptr<addrinfo, void (*)(addrinfo*)> guard(res, ::freeaddrinfo);
  std::string last = "no address";
  for (addrinfo* ai = res; ai; ai = ai->ai_next) {
    int fd = ::socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol);
    if (fd < 0) { last = std::strerror(errno); continue; }
    ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK);
    int one = 1;
    ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    int r = ::connect(fd, ai->ai_addr, ai->ai_addrlen);
    if (r != 0 && errno != EINPROGRESS) { last = std::strerror(errno); ::close(fd); continue; }
    // an answer already there (a local port refused at once) is read whatever the deadline
    // left, as Go's dialer reports a refusal even under a tiny timeout
    pollfd settled{fd, POLLOUT, 0};
    if (r != 0) {
      if (::poll(&settled, 1, 0) <= 0) {
        try {
          wait_fd(fd, POLLOUT, dl, cancel, "dial tcp " + c->peer_ + ": i/o timeout");
        } catch (const timeout_failure& e) {
          ::close(fd);
          throw connect_failure(e.what());
        } catch (...) {
          ::close(fd);
          throw;
        }
      }
      int err = 0;
      socklen_t len = sizeof err;
      ::getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len);
      if (err != 0) { last = std::strerror(err); ::close(fd); continue; }
    }
    c->fd_ = fd;
    c->cancel_ = cancel;
    return c;
  }
  throw connect_failure("dial tcp " + c->peer_ + ": connect: " + detail::lower(last));
}

TFJOB_INLINE void Conn::start_tls(TlsContext& tls, const std::string& verify_name, Deadline dl, const std::string& client_cert_pem,
                                  const std::string& client_key_pem) {
  ERR_clear_error();
  ssl_.reset(SSL_new(tls.get()));
  if (!ssl_) throw error("cannot create a TLS connection: " + openssl_errors());
  tls_ = &tls;
  verify_name_ = verify_name;
  SSL_set_fd(ssl_.get(), fd_);
  bool ip = is_ip_literal(verify_name);
  if (!ip) SSL_set_tlsext_host_name(ssl_.get(), verify_name.c_str());
  if (!tls.insecure()) {
    SSL_set_app_data(ssl_.get(), this);
    SSL_set_verify(ssl_.get(), SSL_VERIFY_PEER, &Conn::keep_server_cert);
    X509_VERIFY_PARAM* p = SSL_get0_param(ssl_.get());
    // Go's crypto/x509 (since 1.15, GODEBUG x509ignoreCN=0 gone in 1.17): the host is matched
    // against the subjectAltNames only, never the subject's Common Name.
    X509_VERIFY_PARAM_set_hostflags(p, X509_CHECK_FLAG_NO_PARTIAL_WILDCARDS | X509_CHECK_FLAG_NEVER_CHECK_SUBJECT);
    if (ip) X509_VERIFY_PARAM_set1_ip_asc(p, verify_name.c_str());
    else X509_VERIFY_PARAM_set1_host(p, verify_name.c_str(), 0);
  }
  if (!client_cert_pem.empty()) tls.set_client_cert(nullptr, ssl_.get(), client_cert_pem, client_key_pem);
  for (;;) {
    int r = SSL_connect(ssl_.get());
    if (r == 1) break;
    int e = SSL_get_error(ssl_.get(), r);
    if (e == SSL_ERROR_WANT_READ) wait_fd(fd_, POLLIN, dl, cancel_, "TLS handshake with " + peer_ + ": timed out");
    else if (e == SSL_ERROR_WANT_WRITE) wait_fd(fd_, POLLOUT, dl, cancel_, "TLS handshake with " + peer_ + ": timed out");
    else throw connect_failure(describe_tls_failure("TLS handshake with " + peer_ + " failed", r));
  }
  // TLS 1.3: the server judges our client certificate after our side of the handshake is
  // done, and reports a rejection as an alert right away (a good server sends session
  // tickets instead). Look for it now so a refusal reads as one, not as a broken pipe.
  if ((!client_cert_pem.empty() || tls.client_not_after() != 0) && SSL_version(ssl_.get()) == TLS1_3_VERSION) {
    pollfd p{fd_, POLLIN, 0};
    if (::poll(&p, 1, 200) > 0) check_alert("TLS handshake with " + peer_ + " failed");
  }
}

TFJOB_INLINE int Conn::keep_server_cert(int ok, X509_STORE_CTX* x) {
  auto* ssl = static_cast<SSL*>(X509_STORE_CTX_get_ex_data(x, SSL_get_ex_data_X509_STORE_CTX_idx()));
  auto* c = ssl ? static_cast<Conn*>(SSL_get_app_data(ssl)) : nullptr;
  X509* leaf = X509_STORE_CTX_get0_cert(x);
  if (c && !c->server_cert_ && leaf && X509_up_ref(leaf) == 1) c->server_cert_.reset(leaf);
  return ok;
}

TFJOB_INLINE void Conn::check_alert(const std::string& prefix) {
  char b;
  ERR_clear_error();
  int r = SSL_peek(ssl_.get(), &b, 1);
  if (r > 0) return;
  int e = SSL_get_error(ssl_.get(), r);
  if (e == SSL_ERROR_WANT_READ || e == SSL_ERROR_WANT_WRITE) return;
  if (e == SSL_ERROR_SSL) throw connect_failure(describe_tls_failure(prefix, r));
}

TFJOB_INLINE size_t Conn::read(char* buf, size_t n, Deadline dl) {
  for (;;) {
    if (ssl_) {
      ERR_clear_error();
      int r = SSL_read(ssl_.get(), buf, static_cast<int>(std::min<size_t>(n, 1 << 30)));
      if (r > 0) return static_cast<size_t>(r);
      int e = SSL_get_error(ssl_.get(), r);
      if (e == SSL_ERROR_ZERO_RETURN) return 0;
      if (e == SSL_ERROR_WANT_READ) { wait_fd(fd_, POLLIN, dl, cancel_, "timed out waiting for " + peer_); continue; }
      if (e == SSL_ERROR_WANT_WRITE) { wait_fd(fd_, POLLOUT, dl, cancel_, "timed out waiting for " + peer_); continue; }
      if (e == SSL_ERROR_SYSCALL && ERR_peek_error() == 0) return 0;  // closed without close_notify
      throw transport_error(describe_tls_failure("reading from " + peer_ + " failed", r));
    }
    ssize_t r = ::recv(fd_, buf, n, 0);
    if (r >= 0) return static_cast<size_t>(r);
    if (errno == EAGAIN || errno == EWOULDBLOCK) { wait_fd(fd_, POLLIN, dl, cancel_, "timed out waiting for " + peer_); continue; }
    if (errno == EINTR) continue;
    if (errno == ECONNRESET) return 0;
    throw transport_error("reading from " + peer_ + ": " + std::strerror(errno));
  }
}

TFJOB_INLINE void Conn::write_all(std::string_view data, Deadline dl) {
  size_t off = 0;
  while (off < data.size()) {
    if (ssl_) {
      ERR_clear_error();
      int r = SSL_write(ssl_.get(), data.data() + off, static_cast<int>(std::min<size_t>(data.size() - off, 1 << 30)));
      if (r > 0) { off += static_cast<size_t>(r); continue; }
      int e = SSL_get_error(ssl_.get(), r);
      if (e == SSL_ERROR_WANT_READ) { wait_fd(fd_, POLLIN, dl, cancel_, "timed out sending to " + peer_); continue; }
      if (e == SSL_ERROR_WANT_WRITE) { wait_fd(fd_, POLLOUT, dl, cancel_, "timed out sending to " + peer_); continue; }
      if (e == SSL_ERROR_SYSCALL) check_alert("sending to " + peer_ + " failed");  // a pending alert explains it
      throw transport_error(describe_tls_failure("sending to " + peer_ + " failed", r));
    }
    ssize_t r = ::send(fd_, data.data() + off, data.size() - off, MSG_NOSIGNAL);
    if (r > 0) { off += static_cast<size_t>(r); continue; }
    if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) { wait_fd(fd_, POLLOUT, dl, cancel_, "timed out sending to " + peer_); continue; }
    if (r < 0 && errno == EINTR) continue;
    throw transport_error("sending to " + peer_ + ": " + std::strerror(errno));
  }
}

TFJOB_INLINE Text Conn::describe_tls_failure(const std::string& prefix, int ret) {
  std::string errs = openssl_errors();
  long vr = ssl_ ? SSL_get_verify_result(ssl_.get()) : X509_V_OK;
  std::string msg = prefix + ": ";
  if (tls_ && !tls_->insecure() && vr != X509_V_OK) {
    switch (vr) {
      case X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT_LOCALLY:
      case X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT:
      case X509_V_ERR_SELF_SIGNED_CERT_IN_CHAIN:
      case X509_V_ERR_DEPTH_ZERO_SELF_SIGNED_CERT:
      case X509_V_ERR_UNABLE_TO_VERIFY_LEAF_SIGNATURE:
      case X509_V_ERR_CERT_SIGNATURE_FAILURE:
        return msg + "x509: certificate signed by unknown authority: the server's certificate is not trusted by " +
               tls_->ca_source() + ". Set the cluster's certificate-authority-data (or " + setting::config_certificate_authority + ") "
               "to the CA that signed the API server's certificate";
      case X509_V_ERR_HOSTNAME_MISMATCH:
      case X509_V_ERR_IP_ADDRESS_MISMATCH: {
        std::string valid;
        bool common_name = false;
        const X509* peer = SSL_get0_peer_certificate(ssl_.get());
        if (!peer) peer = server_cert_.get();
        if (peer) {
          for (const auto& n : subject_alt_names(peer)) valid += (valid.empty() ? "" : ", ") + n;
          common_name = X509_NAME_get_index_by_NID(X509_get_subject_name(peer), NID_commonName, -1) >= 0;
        }
        if (valid.empty() && common_name)  // Go's HostnameError words for a certificate without SANs
          return msg + "x509: certificate relies on legacy Common Name field, use SANs instead: the server's "
                 "certificate names its host only in its subject's Common Name, which kubectl (Go 1.15 and later) "
                 "ignores. Reissue the API server's certificate with a subjectAltName for " + verify_name_;
        return msg + "x509: certificate is valid for " + (valid.empty() ? std::string("other names") : valid) +
               ", not " + verify_name_ + ". Use a server address the certificate names, or set "
               "tls-server-name (" + setting::config_tls_server_name + ") to one of them";
      }
      case X509_V_ERR_CERT_HAS_EXPIRED:
        return msg + "x509: the server's certificate has expired or is not yet valid (check the clocks "
               "and renew the API server's certificate)";
      case X509_V_ERR_CERT_NOT_YET_VALID:
        return msg + "x509: the server's certificate is not yet valid (check this machine's clock)";
      default:
        return msg + "x509: " + X509_verify_cert_error_string(vr);
    }
  }
  if (errs.empty()) errs = ret == 0 ? "the connection was closed" : std::strerror(errno);
  bool alert = errs.find("alert") != std::string::npos;
  if (alert) msg += "the server rejected the TLS connection (" + errs + ")";
  else msg += errs;
  if (tls_ && tls_->client_not_after() != 0 && tls_->client_not_after() < std::time(nullptr))
    msg += "; the client certificate expired on " + format_rfc3339(tls_->client_not_after()) +
           ": renew it (or the kubeconfig's client-certificate-data)";
  else if (errs.find("certificate required") != std::string::npos)
    msg += "; the server requires a client certificate or the request needs a token";
  else if (errs.find("unknown ca") != std::string::npos || errs.find("bad certificate") != std::string::npos)
    msg += "; the server does not accept this client certificate";
  return msg;
}

TFJOB_INLINE bool Reader::fill(Deadline dl) {
  if (pos_ > 0) {  // drop what was consumed (what remains is at most a partial line)
    buf_.erase(0, pos_);
    pos_ = 0;
  }
  if (idle_.count() > 0) dl = std::min(dl, deadline_after(idle_));
  char tmp[65536];
  size_t n = c_.read(tmp, sizeof tmp, dl);
  if (n == 0) return false;
  buf_.append(tmp, n);
  any_ = true;
  return true;
}

TFJOB_INLINE std::string Reader::line(Deadline dl, const char* what) {
  for (;;) {
    auto nl = buf_.find('\n', pos_);
    if (nl != std::string::npos) {
      std::string l = buf_.substr(pos_, nl - pos_);
      pos_ = nl + 1;
      if (!l.empty() && l.back() == '\r') l.pop_back();
      return l;
    }
    if (buf_.size() - pos_ > 1 << 20) throw transport_error(std::string(what) + " line is too long");
    if (!fill(dl)) throw transport_error(std::string("the connection to ") + c_.peer() + " closed " + what);
  }
}

TFJOB_INLINE std::string ResponseHead::header(const std::string& lname) const {
  for (const auto& [k, v] : headers)
    if (k == lname) return v;
  return {};
}

TFJOB_INLINE ResponseHead read_head(Reader& r, Deadline dl) {
  ResponseHead h;
  for (;;) {
    std::string sl = r.line(dl, "before sending a response");
    if (sl.rfind("HTTP/", 0) != 0) throw transport_error("malformed HTTP status line from the server: " + sl.substr(0, 80));
    auto sp = sl.find(' ');
    h.status = std::atoi(sl.c_str() + sp + 1);
    auto sp2 = sl.find(' ', sp + 1);
    h.reason = sp2 == std::string::npos ? "" : sl.substr(sp2 + 1);
    h.headers.clear();
    std::size_t header_bytes = 0;
    for (;;) {
      std::string l = r.line(dl, "in the middle of the response headers");
      if (l.empty()) break;
      header_bytes += l.size() + 2;
      if (header_bytes > limits::max_header_bytes)
        throw answer_refused("the server's response headers are larger than " + tfjob::detail::human_bytes(limits::max_header_bytes) +
                             " (the bound on response headers)");
      auto colon = l.find(':');
      if (colon == std::string::npos) continue;
      h.headers.emplace_back(lower(l.substr(0, colon)), trim(l.substr(colon + 1)));
    }
    if (h.status >= 100 && h.status < 200 && h.status != 101) continue;  // 100 Continue etc.
    return h;
  }
}

TFJOB_INLINE bool read_body(Reader& r, const ResponseHead& h, bool head_request, Deadline dl,
                            const std::function<bool(std::string_view)>& sink, bool& reusable) {
  reusable = lower(h.header("connection")) != "close";
  if (head_request || h.status == 204 || h.status == 304) return true;
  auto cut = [&](const std::string& how) {
    reusable = false;
    return transport_error("the response body was cut short (" + how + ")");
  };
  if (lower(h.header("transfer-encoding")).find("chunked") != std::string::npos) {
    for (;;) {
      std::string sl;
      try {
        sl = r.line(dl, "in the middle of a chunked body");
      } catch (const timeout_failure&) {
        throw;
      } catch (const transport_error&) {
        throw cut("the connection closed in the middle of a chunked body");
      }
      size_t size = std::strtoull(sl.c_str(), nullptr, 16);
      if (size == 0) {
        for (;;) {  // trailers
          std::string t;
          try { t = r.line(dl, "in the trailers"); } catch (const transport_error&) { reusable = false; return true; }
          if (t.empty()) break;
        }
        return true;
      }
      while (size > 0) {
        if (r.available() == 0 && !r.fill(dl)) throw cut("the connection closed in the middle of a chunk");
        size_t take = std::min(size, r.available());
        std::string_view piece = r.peek().substr(0, take);
        bool more = sink(piece);
        r.consume(take);
        size -= take;
        if (!more) { reusable = false; return false; }
      }
      try {
        r.line(dl, "after a chunk");
      } catch (const timeout_failure&) {
        throw;
      } catch (const transport_error&) {
        throw cut("the connection closed after a chunk");
      }
    }
  }
  std::string cl = h.header("content-length");
  if (!cl.empty()) {
    unsigned long long left = std::strtoull(cl.c_str(), nullptr, 10);
    while (left > 0) {
      if (r.available() == 0 && !r.fill(dl))
        throw cut(std::to_string(left) + " of " + cl + " bytes missing");
      size_t take = static_cast<size_t>(std::min<unsigned long long>(left, r.available()));
      bool more = sink(r.peek().substr(0, take));
      r.consume(take);
      left -= take;
      if (!more) { reusable = false; return false; }
    }
    return true;
  }
  reusable = false;  // delimited by close
  for (;;) {
    if (r.available() == 0 && !r.fill(dl)) return true;
    size_t take = r.available();
    bool more = sink(r.peek().substr(0, take));
    r.consume(take);
    if (!more) return false;
  }
}

TFJOB_INLINE std::string proxy_from_env(const Url& target, const std::function<const char*(const char*)>& env) {
  auto get = [&](const char* up, const char* lo) -> std::string {
    const char* v = env(up);
    if (!v || !*v) v = env(lo);
    return v ? v : "";
  };
  std::string proxy = target.scheme == "https" ? get("HTTPS_PROXY", "https_proxy") : get("HTTP_PROXY", "http_proxy");
  if (proxy.empty()) return {};
  std::string host = lower(target.host);
  if (host == "localhost") return {};
  {
    in_addr a4{};
    in6_addr a6{};
    if (inet_pton(AF_INET, host.c_str(), &a4) == 1 && (ntohl(a4.s_addr) >> 24) == 127) return {};
    if (inet_pton(AF_INET6, host.c_str(), &a6) == 1 && IN6_IS_ADDR_LOOPBACK(&a6)) return {};
  }
  std::string no = get("NO_PROXY", "no_proxy");
  size_t start = 0;
  while (start <= no.size()) {
    auto end = no.find(',', start);
    if (end == std::string::npos) end = no.size();
    std::string e = lower(trim(no.substr(start, end - start)));
    start = end + 1;
    if (e.empty()) continue;
    if (e == "*") return {};
    // CIDR
    if (auto slash = e.find('/'); slash != std::string::npos) {
      in_addr net{}, ip{};
      int bits = std::atoi(e.c_str() + slash + 1);
      if (inet_pton(AF_INET, e.substr(0, slash).c_str(), &net) == 1 && inet_pton(AF_INET, host.c_str(), &ip) == 1 &&
          bits >= 0 && bits <= 32) {
        uint32_t mask = bits == 0 ? 0 : ~uint32_t(0) << (32 - bits);
        if ((ntohl(net.s_addr) & mask) == (ntohl(ip.s_addr) & mask)) return {};
      }
      continue;
    }
    std::string eh = e;
    int eport = 0;
    if (auto c = e.rfind(':'); c != std::string::npos && e.find(':') == c) {
      eh = e.substr(0, c);
      eport = std::atoi(e.c_str() + c + 1);
    }
    if (eport && eport != target.port) continue;
    if (!eh.empty() && eh[0] == '*') eh = eh.substr(1);
    if (!eh.empty() && eh[0] == '.') {
      if (host.size() > eh.size() && host.compare(host.size() - eh.size(), eh.size(), eh) == 0) return {};
      if (host == eh.substr(1)) return {};
      continue;
    }
    if (host == eh) return {};
    if (host.size() > eh.size() && host.compare(host.size() - eh.size(), eh.size(), eh) == 0 &&
        host[host.size() - eh.size() - 1] == '.')
      return {};
  }
  return proxy;
}

TFJOB_INLINE std::unique_ptr<Conn> open_connection(const Url& target, const std::string& proxy, TlsContext* tls,
                                                   const std::string& tls_server_name, Deadline dl,
                                                   const std::atomic<bool>* cancel, const std::string& client_cert_pem,
                                                   const std::string& client_key_pem) {
  std::unique_ptr<Conn> c;
  if (!proxy.empty()) {
    auto sep = proxy.find("://");
    if (sep != std::string::npos && lower(proxy.substr(0, sep)) != "http")
      throw config_error("proxy \"" + redact_url(proxy) + "\": only http:// proxies (HTTP CONNECT) are supported");
    Url p = parse_url(sep == std::string::npos ? "http://" + proxy : proxy, "proxy");
    c = Conn::dial(p.host, p.port, dl, cancel);
    if (target.scheme == "https") {
      std::string req = "CONNECT " + target.host_port() + " HTTP/1.1\r\nHost: " + target.host_port() + "\r\n";
      if (!p.userinfo.empty()) req += "Proxy-Authorization: Basic " + base64_encode(p.userinfo) + "\r\n";
      req += "\r\n";
      try {
        c->write_all(req, dl);
        Reader r(*c);
        std::string sl = r.line(dl, "before answering CONNECT");
        int code = sl.size() > 12 ? std::atoi(sl.c_str() + 9) : 0;
        for (;;) {
          if (r.line(dl, "in the CONNECT answer").empty()) break;
        }
        if (code != 200)
          throw connect_failure("proxy " + p.host_port() + " refused CONNECT " + target.host_port() + ": " + sl);
        if (r.available() != 0) throw connect_failure("proxy " + p.host_port() + " sent data after CONNECT");
      } catch (const connect_failure&) {
        throw;
      } catch (const transport_error& e) {
        throw connect_failure("proxy " + p.host_port() + ": " + e.what());
      }
    }
  } else {
    c = Conn::dial(target.host, target.port, dl, cancel);
  }
  if (target.scheme == "https") {
    if (!tls) throw error("internal: https without a TLS context");
    c->start_tls(*tls, tls_server_name.empty() ? target.host : tls_server_name, dl, client_cert_pem, client_key_pem);
  }
  return c;
}

}  // namespace tfjob::kube::detail
