// The service proxy of the fake API server: services/NAME[:PORT]/proxy/... and
// pods/NAME[:PORT]/proxy/... answered by a handler that the test registered.
#include "support/fake_handler.hpp"

#include <algorithm>
#include <memory>

namespace tfjob::test::fake {

// services/NAME:PORT/proxy and pods/NAME:PORT/proxy alike: a handler registered for the
// name answers (ProxyRequest::resource says which kind was asked).
void Handler::service_proxy(const Target& t, const std::string& plural) {
  std::string svc = t.name, port;
  auto colon = svc.find(':');
  if (colon != std::string::npos) {
    port = svc.substr(colon + 1);
    svc = svc.substr(0, colon);
  }
  const ResourceInfo* services = fake::find_resource("", "v1", plural);
  {
    std::lock_guard<std::mutex> lk(s.mu);
    if (!s.find_locked(*services, t.ns, svc)) throw fake::err_not_found(*services, svc);
  }
  ProxyHandler h;
  {
    std::lock_guard<std::mutex> lk(s.proxy_mu);
    for (auto it = s.proxies.rbegin(); it != s.proxies.rend(); ++it)
      if (fake::glob_match(it->first, svc)) {
        h = it->second;
        break;
      }
  }
  if (!h)
    throw ApiError{503, fake::status_failure(503, "ServiceUnavailable", "no endpoints available for service \"" + svc + "\"")};
  ProxyRequest pr;
  pr.resource = plural;
  pr.method = req.method;
  pr.ns = t.ns;
  pr.service = svc;
  pr.port = port;
  pr.path = t.rest.empty() ? "/" : t.rest;
  auto q = req.target.find('?');
  pr.query = q == std::string::npos ? "" : req.target.substr(q + 1);
  pr.body = req.body;
  pr.content_type = header(req, "Content-Type");
  ProxyResponse r = h(pr);
  res.status = r.status;
  rec.status = r.status;
  fake::FaultRule cut;
  if (s.faults_impl.take(fake::FaultRule::cut, req.method, req.path, cut)) {
    // kube-apiserver's proxy when its connection to the pod breaks mid-answer ("ReverseProxy
    // read error during body copy"): a chunked body that ends without its last chunk
    auto stream = std::make_shared<Stream>();
    stream->cut_at = std::max<std::size_t>(1, std::min(cut.bytes, r.body.size()));
    auto body = std::make_shared<std::string>(std::move(r.body));
    res.set_chunked_content_provider(r.content_type, [stream, body](std::size_t, httplib::DataSink& sink) {
      return stream->write(sink, *body);
    });
    return;
  }
  res.set_content(r.body, r.content_type);
}

}  // namespace tfjob::test::fake
