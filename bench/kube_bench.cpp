// kube-bench: the SDK side of the kube benchmarks, using only tfjob::kube.
//   kube-bench logs --kubeconfig FILE --pod NAME [-n NS]   follow a log to stdout
//   kube-bench list --kubeconfig FILE -n NS [--print]      list + decode every pod
// Prints one result line on stderr: `<what> bytes=<n> items=<n> seconds=<s> MB/s=<x>`.
#include <tfjob/kube/kube.hpp>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <string>

using namespace tfjob::kube;
using tfjob::k8s::Pod;

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: kube-bench logs|list --kubeconfig FILE [-n NS] [--pod NAME] [--print]\n");
    return 2;
  }
  std::string mode = argv[1], ns = "default", pod;
  bool print = false;
  ConfigOverrides o;
  for (int i = 2; i < argc; ++i) {
    std::string a = argv[i];
    auto val = [&]() { return i + 1 < argc ? std::string(argv[++i]) : std::string(); };
    if (a == "--kubeconfig") o.kubeconfig = val();
    else if (a == "-n" || a == "--namespace") ns = val();
    else if (a == "--pod") pod = val();
    else if (a == "--print") print = true;
    else if (a == "--context") o.context = val();
  }
  try {
    Client c(load_config(o));
    auto t0 = std::chrono::steady_clock::now();
    std::uint64_t bytes = 0, items = 0;
    if (mode == "logs") {
      static char buf[1 << 20];
      std::setvbuf(stdout, buf, _IOFBF, sizeof buf);
      LogParams p;
      p.follow = true;
      stream_logs(c, ns, pod, p, [&](std::string_view line) {
        std::fwrite(line.data(), 1, line.size(), stdout);
        std::fputc('\n', stdout);
        bytes += line.size() + 1;
        ++items;
        return true;
      });
      std::fflush(stdout);
    } else if (mode == "list") {
      auto list = Api<Pod>(c, ns).list();  // pages of 500, as kubectl's --chunk-size default
      items = list.items.size();
      std::uint64_t containers = 0;
      for (const auto& p : list.items) containers += p.container_names().size();
      if (print) {
        nlohmann::json out = {{"apiVersion", "v1"}, {"kind", "List"}, {"items", nlohmann::json::array()}};
        for (const auto& p : list.items) out["items"].push_back(p);
        std::string s = out.dump(4);
        bytes = s.size();
        std::fwrite(s.data(), 1, s.size(), stdout);
      }
      if (containers < items) return 3;
    } else {
      std::fprintf(stderr, "unknown mode %s\n", mode.c_str());
      return 2;
    }
    double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::fprintf(stderr, "%s bytes=%llu items=%llu seconds=%.3f MB/s=%.1f\n", mode.c_str(),
                 static_cast<unsigned long long>(bytes), static_cast<unsigned long long>(items), secs,
                 bytes / secs / 1e6);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "kube-bench: %s\n", e.what());
    return 1;
  }
  return 0;
}
