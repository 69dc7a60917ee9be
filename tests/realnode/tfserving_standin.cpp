// A TF Serving stand-in for the real-node tier's serving image: takes tensorflow_model_server's
// flags, serves TF Serving's REST API (the same answers as the fake API server's TF Serving,
// tests/support/tfserving_rest.cpp) on --rest_api_port, for the model found under
// --model_base_path as TF Serving finds it: the highest numeric version directory holding
// saved_model.pb (tensorflow_serving/sources/storage_path/file_system_storage_path_source.cc).
// An unknown flag ends the process with exit 1, as tensorflow_model_server does, so a wrong
// `serve --arg` really crash-loops on the node.
//   tfserving-standin --port=8500 --rest_api_port=8501 --model_name=M --model_base_path=/models/M
#include "support/tfserving_rest.hpp"

#include <httplib.h>

#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <map>
#include <string>

namespace fs = std::filesystem;
using tfjob::test::RestReply;
using tfjob::test::ServedModel;

namespace {

/// The highest version under BASE (a numeric directory with saved_model.pb), or -1.
int latest_version(const std::string& base) {
  int best = -1;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(base, ec)) {
    const std::string name = e.path().filename().string();
    if (name.empty() || name.find_first_not_of("0123456789") != std::string::npos || name.size() > 9) continue;
    if (!fs::exists(e.path() / "saved_model.pb", ec)) continue;
    best = std::max(best, std::stoi(name));
  }
  return best;
}

httplib::Server* g_server = nullptr;
void on_term(int) {
  if (g_server) g_server->stop();
}

}  // namespace

int main(int argc, char** argv) {
  std::map<std::string, std::string> flags = {
      {"port", "8500"}, {"rest_api_port", "8501"}, {"model_name", "default"}, {"model_base_path", ""}};
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    std::string key = a.rfind("--", 0) == 0 ? a.substr(2) : a;
    std::string value;
    if (auto eq = key.find('='); eq != std::string::npos) {
      value = key.substr(eq + 1);
      key = key.substr(0, eq);
    }
    if (!flags.count(key)) {  // tensorflow_model_server: "ERROR: unknown command line flag 'x'"
      std::cerr << "ERROR: unknown command line flag '" << key << "'\n";
      return 1;
    }
    flags[key] = value;
  }
  const std::string model = flags["model_name"], base = flags["model_base_path"];
  const int port = std::atoi(flags["rest_api_port"].c_str());
  if (base.empty()) {
    std::cerr << "Both server_model_config_file and model_base_path are empty!\n";
    return 1;
  }

  httplib::Server server;
  g_server = &server;
  std::signal(SIGTERM, on_term);
  std::signal(SIGINT, on_term);
  auto answer = [&](const httplib::Request& req, httplib::Response& res) {
    RestReply r;
    auto parsed = tfjob::test::parse_model_path(req.path);
    if (!parsed) {
      r = tfjob::test::rest_error(404, "Malformed request: " + req.method + " " + req.path);
    } else if (parsed->first != model) {
      r = tfjob::test::servable_not_found(parsed->first);
    } else if (int v = latest_version(base); v < 0) {
      r = tfjob::test::rest_error(404, "Could not find any versions of model " + model);
    } else {
      ServedModel m;
      m.version = v;
      r = tfjob::test::model_rest(req.method, parsed->first, parsed->second, req.body, m);
    }
    res.status = r.status;
    res.set_content(r.body, "application/json");
  };
  server.Get(R"(/v1/.*)", answer);
  server.Post(R"(/v1/.*)", answer);

  const int v = latest_version(base);
  if (v >= 0)
    std::cerr << "Successfully loaded servable version {name: " << model << " version: " << v << "}\n";
  else
    std::cerr << "No versions of servable " << model << " found under base path " << base << "\n";
  std::cerr << "Exporting HTTP/REST API at:0.0.0.0:" << port << " ...\n" << std::flush;
  if (!server.listen("0.0.0.0", port)) {
    std::cerr << "cannot listen on port " << port << "\n";
    return 1;
  }
  return 0;
}
