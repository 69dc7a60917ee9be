// A TF Serving stand-in for the real-node tier's serving image: takes tensorflow_model_server's
// flags, serves TF Serving's REST API (the same answers as the fake API server's TF Serving,
// tests/support/tfserving_rest.cpp) on --rest_api_port, for the model found under
// --model_base_path as TF Serving finds it: the highest numeric version directory holding
// saved_model.pb (tensorflow_serving/sources/storage_path/file_system_storage_path_source.cc).
// It cannot parse a real SavedModel (saved_model.pb is a protobuf of the whole graph), so the
// signatures its metadata answer gives come from a small file the test puts beside
// saved_model.pb, <version>/signature_def.json (the signature_def map exactly as TF Serving's
// GET .../metadata writes it); without one it answers ResNet-50's signatures.
// With --model_config_file (serve --model NAME=SOURCE) it serves every model of that
// text-format ModelServerConfig with its version policy and labels, and re-reads the file
// every --model_config_file_poll_wait_seconds as TF Serving does (server_core.cc; the
// rules: tfserving_rest.cpp load_model_config), logging each reload and each refused label.
// An unknown flag ends the process with exit 1, as tensorflow_model_server does, so a wrong
// `serve --arg` really crash-loops on the node; so do all three thread flags together
// (server.cc: session parallelism or intra/inter-op parallelism, not all), and
// --rest_api_num_threads sizes its REST thread pool as TF Serving's does.
// Its model-size rule: it reads every file of the served version's variables/ into memory and
// holds it while it serves, as TF Serving restores a SavedModel's weights into tensors, so its
// resident memory grows with the model (bench/edge_bench.sh measures it).
//   tfserving-standin --port=8500 --rest_api_port=8501 --model_name=M --model_base_path=/models/M
#include "support/tfserving_rest.hpp"

#include <httplib.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <mutex>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace fs = std::filesystem;
using tfjob::test::RestReply;
using tfjob::test::ServedModel;

namespace {

/// The versions under BASE: numeric directories holding saved_model.pb, as TF Serving's
/// file system source finds them.
std::vector<int> disk_versions(const std::string& base) {
  std::vector<int> out;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(base, ec)) {
    const std::string name = e.path().filename().string();
    if (name.empty() || name.find_first_not_of("0123456789") != std::string::npos || name.size() > 9) continue;
    if (!fs::exists(e.path() / "saved_model.pb", ec)) continue;
    out.push_back(std::stoi(name));
  }
  return out;
}

/// The highest version under BASE, or -1.
int latest_version(const std::string& base) {
  int best = -1;
  for (int v : disk_versions(base)) best = std::max(best, v);
  return best;
}

/// The model config in force (--model_config_file), replaced by each poll.
struct ConfigState {
  std::mutex mu;
  std::vector<tfjob::test::ConfiguredModel> models;
  std::map<std::string, std::map<std::string, int>> labels;  ///< model → labels in force
  std::string last_text;
};

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream ss;
  if (in) ss << in.rdbuf();
  return ss.str();
}

/// Reads the config file again; logs what changed, as TF Serving's reload does.
void reload(ConfigState& st, const std::string& path, bool allow_unavailable) {
  const std::string text = read_text(path);
  std::lock_guard<std::mutex> lk(st.mu);
  auto load = tfjob::test::load_model_config(text, disk_versions, st.labels, allow_unavailable);
  if (load.models.empty() && !load.error.empty()) {  // unreadable: keep serving what was loaded
    if (text != st.last_text) std::cerr << "E model config " << path << ": " << load.error << "\n" << std::flush;
    st.last_text = text;
    return;
  }
  if (!load.error.empty() && text != st.last_text) std::cerr << "E " << load.error << "\n" << std::flush;
  bool changed = load.models.size() != st.models.size();
  for (std::size_t i = 0; !changed && i < load.models.size(); ++i)
    changed = load.models[i].versions != st.models[i].versions || load.models[i].labels != st.models[i].labels;
  st.models = load.models;
  for (const auto& m : st.models) {
    st.labels[m.name] = m.labels;
    if (!changed) continue;
    std::cerr << "Successfully loaded model config: model " << m.name << " versions";
    for (int v : m.versions) std::cerr << " " << v;
    for (const auto& [k, v] : m.labels) std::cerr << " label " << k << "=" << v;
    std::cerr << "\n";
  }
  std::cerr << std::flush;
  st.last_text = text;
}

/// <base>/<version>/signature_def.json, or "" (the REST answers then use ResNet's).
std::string signature_file(const std::string& base, int version) {
  std::ifstream in(fs::path(base) / std::to_string(version) / "signature_def.json");
  std::ostringstream ss;
  if (in) ss << in.rdbuf();
  return ss.str();
}

/// The served version's weights, held as TF Serving holds restored variables (the model-size
/// rule): every regular file of <base>/<version>/variables/, read whole.
std::vector<std::string> hold_variables(const std::string& base, int version) {
  std::vector<std::string> held;
  std::error_code ec;
  std::uintmax_t total = 0;
  for (const auto& e : fs::directory_iterator(fs::path(base) / std::to_string(version) / "variables", ec)) {
    if (!e.is_regular_file(ec)) continue;
    std::ifstream in(e.path(), std::ios::binary);
    std::string blob(static_cast<std::size_t>(e.file_size(ec)), '\0');
    in.read(blob.data(), static_cast<std::streamsize>(blob.size()));
    total += blob.size();
    held.push_back(std::move(blob));
  }
  if (!held.empty()) std::cerr << "Restoring SavedModel variables: " << total << " bytes of version " << version << "\n";
  return held;
}

httplib::Server* g_server = nullptr;
void on_term(int) {
  if (g_server) g_server->stop();
}

}  // namespace

int main(int argc, char** argv) {
  std::map<std::string, std::string> flags = {
      {"port", "8500"}, {"rest_api_port", "8501"}, {"model_name", "default"}, {"model_base_path", ""},
      {"enable_batching", "false"}, {"batching_parameters_file", ""}, {"monitoring_config_file", ""},
      {"model_config_file", ""}, {"model_config_file_poll_wait_seconds", "0"}, {"allow_version_labels_for_unavailable_models", "false"},
      {"tensorflow_session_parallelism", "0"}, {"tensorflow_intra_op_parallelism", "0"}, {"tensorflow_inter_op_parallelism", "0"},
      {"rest_api_num_threads", "0"}};
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    std::string key = a.rfind("--", 0) == 0 ? a.substr(2) : a;
    std::string value;
    if (auto eq = key.find('='); eq != std::string::npos) {
      value = key.substr(eq + 1);
      key = key.substr(0, eq);
    } else {
      value = "true";  // a boolean flag given bare
    }
    if (!flags.count(key)) {  // tensorflow_model_server: "ERROR: unknown command line flag 'x'"
      std::cerr << "ERROR: unknown command line flag '" << key << "'\n";
      return 1;
    }
    flags[key] = value;
  }
  const std::string model = flags["model_name"], base = flags["model_base_path"];
  const int port = std::atoi(flags["rest_api_port"].c_str());
  const std::string config_file = flags["model_config_file"];
  const bool allow_unavailable = flags["allow_version_labels_for_unavailable_models"] == "true";
  const int poll = std::max(0, std::min(86400, std::atoi(flags["model_config_file_poll_wait_seconds"].c_str())));
  if (base.empty() && config_file.empty()) {
    std::cerr << "Both server_model_config_file and model_base_path are empty!\n";
    return 1;
  }
  if (std::atoi(flags["tensorflow_session_parallelism"].c_str()) > 0 && std::atoi(flags["tensorflow_intra_op_parallelism"].c_str()) > 0 &&
      std::atoi(flags["tensorflow_inter_op_parallelism"].c_str()) > 0) {  // server.cc's words
    std::cerr << "Either configure server_options.tensorflow_session_parallelism or (server_options.tensorflow_intra_op_parallelism, "
                 "server_options.tensorflow_inter_op_parallelism) separately. You cannot configure all.\n";
    return 1;
  }
  // TF Serving's default: 4 x the schedulable CPUs (server.h, http_num_threads)
  const int rest_threads = std::atoi(flags["rest_api_num_threads"].c_str()) > 0
                               ? std::atoi(flags["rest_api_num_threads"].c_str())
                               : 4 * static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));

  // The config files serve mounts from its ConfigMap: a file that cannot be read ends the
  // server at start, as tensorflow_model_server's ParseProtoTextFile does.
  std::string prometheus;
  for (const char* flag : {"batching_parameters_file", "monitoring_config_file"}) {
    if (flags[flag].empty()) continue;
    std::ifstream in(flags[flag]);
    std::ostringstream text;
    if (in) text << in.rdbuf();
    if (!in) {
      std::cerr << "Failed to read --" << flag << "=" << flags[flag] << "\n";
      return 1;
    }
    // prometheus_config { enable: true path: "/monitoring/prometheus/metrics" }
    if (std::string(flag) == "monitoring_config_file" && text.str().find("enable: true") != std::string::npos) {
      prometheus = "/monitoring/prometheus/metrics";
      auto at = text.str().find("path: \"");
      if (at != std::string::npos) {
        auto end = text.str().find('"', at + 7);
        if (end != std::string::npos) prometheus = text.str().substr(at + 7, end - at - 7);
      }
    }
  }
  std::mutex metrics_mu;
  tfjob::test::RestMetrics metrics;

  httplib::Server server;
  server.new_task_queue = [rest_threads] { return new httplib::ThreadPool(static_cast<std::size_t>(rest_threads)); };
  // an answer's header and body leave at once (no Nagle delay waiting for the client's ACK of
  // the header: 40 ms a request on a kept-alive connection)
  server.set_tcp_nodelay(true);
  g_server = &server;
  std::signal(SIGTERM, on_term);
  std::signal(SIGINT, on_term);
  ConfigState config;
  std::atomic<bool> stopping{false};
  std::thread poller;
  if (!config_file.empty()) {
    reload(config, config_file, allow_unavailable);
    if (poll > 0)
      poller = std::thread([&] {
        while (!stopping) {
          for (int i = 0; i < poll * 10 && !stopping; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(100));
          if (!stopping) reload(config, config_file, allow_unavailable);
        }
      });
  }
  auto answer = [&](const httplib::Request& req, httplib::Response& res) {
    const auto started = std::chrono::steady_clock::now();
    RestReply r;
    auto parsed = tfjob::test::parse_model_path(req.path);
    if (parsed && !config_file.empty()) {
      std::optional<tfjob::test::ConfiguredModel> m;
      {
        std::lock_guard<std::mutex> lk(config.mu);
        for (const auto& c : config.models)
          if (c.name == parsed->model) m = c;
      }
      if (!m) {
        r = tfjob::test::servable_not_found(parsed->model);
      } else if (m->versions.empty()) {
        r = tfjob::test::rest_error(404, "Could not find any versions of model " + m->name);
      } else {
        ServedModel sm;
        sm.version = m->versions.back();
        sm.versions = m->versions;
        sm.labels = m->labels;
        for (int v : m->versions) sm.version_signatures[v] = signature_file(m->base_path, v);
        for (auto it = sm.version_signatures.begin(); it != sm.version_signatures.end();)
          it = it->second.empty() ? sm.version_signatures.erase(it) : std::next(it);
        r = tfjob::test::model_rest(req.method, *parsed, req.body, sm);
      }
    } else if (!parsed) {
      r = tfjob::test::rest_error(404, "Malformed request: " + req.method + " " + req.path);
    } else if (parsed->model != model) {
      r = tfjob::test::servable_not_found(parsed->model);
    } else if (int v = latest_version(base); v < 0) {
      r = tfjob::test::rest_error(404, "Could not find any versions of model " + model);
    } else {
      ServedModel m;
      m.version = v;
      m.signature_def = signature_file(base, v);
      r = tfjob::test::model_rest(req.method, *parsed, req.body, m);
    }
    if (parsed) {
      std::lock_guard<std::mutex> lk(metrics_mu);
      metrics.record(*parsed, r.status,
                     std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - started).count());
    }
    res.status = r.status;
    res.set_content(r.body, "application/json");
  };
  if (!prometheus.empty())
    server.Get(prometheus, [&](const httplib::Request&, httplib::Response& res) {
      std::lock_guard<std::mutex> lk(metrics_mu);
      res.set_content(metrics.prometheus_text(), "text/plain; version=0.0.4");
    });
  server.Get(R"(/v1/.*)", answer);
  server.Post(R"(/v1/.*)", answer);

  const int v = config_file.empty() ? latest_version(base) : -2;
  std::vector<std::string> weights;
  if (v == -2) {
  } else if (v >= 0) {
    weights = hold_variables(base, v);
    std::cerr << "Successfully loaded servable version {name: " << model << " version: " << v << "}\n";
  } else {
    std::cerr << "No versions of servable " << model << " found under base path " << base << "\n";
  }
  std::cerr << "Exporting HTTP/REST API at:0.0.0.0:" << port << " ...\n" << std::flush;
  const bool listened = server.listen("0.0.0.0", port);
  stopping = true;
  if (poller.joinable()) poller.join();
  if (!listened) {
    std::cerr << "cannot listen on port " << port << "\n";
    return 1;
  }
  return 0;
}
