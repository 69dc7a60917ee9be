// A stand-in for NVIDIA's dcgm-exporter in the real-node tier's `top` scenario: serves the
// Prometheus text in FILE as dcgm-exporter serves its counters, at GET /metrics on
// --address (dcgm-exporter's `-a`, default ":9400"), read again on every request so that an
// updated ConfigMap mount shows. The node has no GPU: the figures are the test's, not measured.
//   dcgm-exporter-standin --file /etc/dcgm/metrics.prom [--address :9400]
#include <httplib.h>

#include <csignal>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>

namespace {
httplib::Server* g_server = nullptr;
void on_term(int) {
  if (g_server) g_server->stop();
}
}  // namespace

int main(int argc, char** argv) {
  std::string file, address = ":9400";
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&](const std::string& flag) -> std::string {
      if (a.rfind(flag + "=", 0) == 0) return a.substr(flag.size() + 1);
      if (a == flag && i + 1 < argc) return argv[++i];
      return {};
    };
    if (auto v = value("--file"); !v.empty()) file = v;
    else if (auto v2 = value("--address"); !v2.empty()) address = v2;
    else {
      std::cerr << "dcgm-exporter-standin: unknown flag " << a << "\nusage: dcgm-exporter-standin --file FILE [--address :9400]\n";
      return 2;
    }
  }
  if (file.empty()) {
    std::cerr << "dcgm-exporter-standin: --file FILE (the metrics page to serve) is required\n";
    return 2;
  }
  const auto colon = address.rfind(':');
  const std::string host = colon == 0 || colon == std::string::npos ? "0.0.0.0" : address.substr(0, colon);
  const int port = std::stoi(colon == std::string::npos ? address : address.substr(colon + 1));
  httplib::Server srv;
  srv.Get("/metrics", [&](const httplib::Request&, httplib::Response& res) {
    std::ifstream in(file, std::ios::binary);
    if (!in) {
      res.status = 500;
      res.set_content("cannot read " + file + "\n", "text/plain");
      return;
    }
    std::ostringstream s;
    s << in.rdbuf();
    res.set_content(s.str(), "text/plain; version=0.0.4");
  });
  g_server = &srv;
  std::signal(SIGTERM, on_term);
  std::signal(SIGINT, on_term);
  std::cerr << "dcgm-exporter-standin: serving " << file << " on " << host << ":" << port << "\n";
  if (!srv.listen(host, port)) {
    std::cerr << "dcgm-exporter-standin: cannot listen on " << host << ":" << port << "\n";
    return 1;
  }
  return 0;
}
