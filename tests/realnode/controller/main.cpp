// tfjob-controller-standin: plays the Kubeflow training operator on a test cluster, with
// the test operator's reconcile (tests/support/operator/, the same one the fake API server's
// operator applies, on the SDK's tfjob/api/operator_rules.hpp). It watches TFJobs and the pods and services the operator
// labels, reconciles each job that changed (or whose deadline or TTL is due), creates and
// deletes pods and headless services, writes status through the status subresource and
// records events. Cluster DNS for TF_CONFIG's host names is the node's (tests/realnode/
// dns_feeder.sh feeds dnsmasq from every Service's endpoints), not the operator's part.
//
//   tfjob-controller-standin --kubeconfig FILE [--context NAME] [--namespace NS]
//                            [--cluster-domain D]
//
// Ends cleanly (exit 0) on SIGTERM or SIGINT. See docs/realnode-controller.md.
#include <tfjob/api/labels.hpp>
#include <tfjob/kube/tfjob_resource.hpp>
#include <tfjob/kube/kube.hpp>

#include "support/operator/reconcile.hpp"

#include <pthread.h>
#include <signal.h>  // sigwait, kill

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <iostream>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

using nlohmann::json;
namespace kube = tfjob::kube;
namespace op = tfjob::op;

namespace {

struct Options {
  std::string kubeconfig, context, namespace_, cluster_domain;
};

const char* const kUsage =
    "usage: tfjob-controller-standin --kubeconfig FILE [--context NAME] [--namespace NS] [--cluster-domain D]\n";

std::string now_text() {
  return tfjob::detail::format_rfc3339(std::time(nullptr));
}
void log(const std::string& msg) {
  std::cerr << now_text() << " tfjob-controller: " << msg << "\n" << std::flush;
}

std::int64_t unix_now() {
  return std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count();
}

/// An RFC 7386 merge patch that turns `from` into `to` (removed keys become null).
json merge_patch_between(const json& from, const json& to) {
  if (!from.is_object() || !to.is_object()) return to;
  json patch = json::object();
  for (auto it = from.begin(); it != from.end(); ++it)
    if (!to.contains(it.key())) patch[it.key()] = nullptr;
  for (auto it = to.begin(); it != to.end(); ++it) {
    auto old = from.find(it.key());
    if (old == from.end()) patch[it.key()] = it.value();
    else if (*old != it.value()) patch[it.key()] = merge_patch_between(*old, it.value());
  }
  return patch;
}

/// The job (`ns/name`) that controls an object, from its controller ownerReference.
std::string owner_key(const json& obj) {
  const json& md = obj.value("metadata", json::object());
  for (const auto& r : md.value("ownerReferences", json::array()))
    if (r.value("controller", false) && r.value("kind", "") == tfjob::kind)
      return md.value("namespace", "") + "/" + r.value("name", "");
  return "";
}

/// What the watches saw, by `ns/name`.
struct Cache {
  std::mutex mu;
  std::condition_variable cv;
  std::map<std::string, json> jobs, pods, services;
  std::set<std::string> dirty;  ///< jobs to reconcile
  std::map<std::string, std::chrono::steady_clock::time_point> timers;
  std::atomic<bool> stop{false};
};

std::string key_of(const json& obj) {
  const json& md = obj.value("metadata", json::object());
  return md.value("namespace", "") + "/" + md.value("name", "");
}

/// Keeps one collection in the cache through a watch (list, then watch; the SDK's watcher
/// relists on 410 and delivers only the difference). Restarts after errors until stopped.
template <class T>
void watch_into(kube::Api<T> api, const std::string& selector, std::map<std::string, json> Cache::*store, Cache& cache,
                const char* what) {
  kube::WatchParams wp;
  wp.label_selector = selector;
  kube::StreamOptions so;
  so.cancel = &cache.stop;
  auto w = api.watcher(wp);  // kept across errors: it resumes from the version it holds
  while (!cache.stop) {
    try {
      w.run(
          [&](const kube::WatchEvent<T>& ev) {
            json obj = ev.object;
            const std::string key = key_of(obj);
            std::lock_guard<std::mutex> lk(cache.mu);
            if (ev.type == kube::EventType::deleted) (cache.*store).erase(key);
            else (cache.*store)[key] = obj;
            if (store == &Cache::jobs) cache.dirty.insert(key);
            else if (auto owner = owner_key(obj); !owner.empty()) cache.dirty.insert(owner);
            cache.cv.notify_all();
            return !cache.stop.load();
          },
          so);
    } catch (const std::exception& e) {
      if (cache.stop) break;
      log(std::string("watch of ") + what + " failed, restarting: " + e.what());
      std::unique_lock<std::mutex> lk(cache.mu);
      cache.cv.wait_for(lk, std::chrono::seconds(1), [&] { return cache.stop.load(); });
    }
  }
}

class Controller {
 public:
  Controller(kube::Client client, Options o, Cache& cache) : client_(std::move(client)), o_(std::move(o)), cache_(cache) {
    opts_.cluster_domain = o_.cluster_domain;
  }

  void run() {
    const std::string sel = std::string(tfjob::labels::operator_name) + "=" + tfjob::labels::tfjob_controller;
    const auto jobs_ri = kube::resource_info<tfjob::TFJob>();
    std::vector<std::thread> watches;
    watches.emplace_back([&] { watch_into(kube::Api<kube::DynamicObject>(client_, jobs_ri, o_.namespace_), "", &Cache::jobs, cache_, "tfjobs"); });
    watches.emplace_back([&] { watch_into(kube::Api<tfjob::k8s::Pod>(client_, o_.namespace_), sel, &Cache::pods, cache_, "pods"); });
    watches.emplace_back([&] { watch_into(kube::Api<tfjob::k8s::Service>(client_, o_.namespace_), sel, &Cache::services, cache_, "services"); });
    log("watching TFJobs in " + (o_.namespace_.empty() ? std::string("all namespaces") : "namespace " + o_.namespace_));
    while (!cache_.stop) {
      std::set<std::string> todo;
      {
        std::unique_lock<std::mutex> lk(cache_.mu);
        auto next = std::chrono::steady_clock::now() + std::chrono::hours(1);
        for (const auto& [k, t] : cache_.timers) next = std::min(next, t);
        cache_.cv.wait_until(lk, next, [&] {
          if (cache_.stop || !cache_.dirty.empty()) return true;
          for (const auto& [k, t] : cache_.timers)
            if (t <= std::chrono::steady_clock::now()) return true;
          return false;
        });
        if (cache_.stop) break;
        const auto now = std::chrono::steady_clock::now();
        for (auto it = cache_.timers.begin(); it != cache_.timers.end();) {
          if (it->second <= now) {
            cache_.dirty.insert(it->first);
            it = cache_.timers.erase(it);
          } else {
            ++it;
          }
        }
        todo.swap(cache_.dirty);
      }
      for (const auto& key : todo) {
        if (cache_.stop) break;
        try {
          reconcile(key);
        } catch (const std::exception& e) {
          log("reconcile " + key + ": " + e.what() + " (retrying in 1s)");
          std::lock_guard<std::mutex> lk(cache_.mu);
          cache_.timers[key] = std::chrono::steady_clock::now() + std::chrono::seconds(1);
        }
      }
    }
    cache_.cv.notify_all();
    for (auto& t : watches) t.join();
    log("stopped");
  }

 private:
  void reconcile(const std::string& key) {
    json stored;
    op::Observed seen;
    const std::string ns = key.substr(0, key.find('/'));
    {
      std::lock_guard<std::mutex> lk(cache_.mu);
      auto it = cache_.jobs.find(key);
      if (it == cache_.jobs.end()) {
        cache_.timers.erase(key);
        return;  // deleted: the garbage collector removes what it owned
      }
      stored = it->second;
      for (const auto& [k, p] : cache_.pods)
        if (k.compare(0, ns.size() + 1, ns + "/") == 0) seen.pods.push_back(p);
      for (const auto& [k, s] : cache_.services)
        if (k.compare(0, ns.size() + 1, ns + "/") == 0) seen.services.push_back(s);
    }
    tfjob::TFJob job;
    try {
      job = stored.get<tfjob::TFJob>();
    } catch (const std::exception& e) {
      log("skipping TFJob " + key + ": " + e.what());
      return;
    }
    const op::Plan plan = op::reconcile(job, seen, unix_now(), opts_);
    kube::Api<tfjob::k8s::Pod> pods(client_, ns);
    kube::Api<tfjob::k8s::Service> services(client_, ns);
    for (const auto& name : plan.delete_pods) {
      if (pods.remove_opt(name)) log("deleted pod " + ns + "/" + name);
      std::lock_guard<std::mutex> lk(cache_.mu);
      // the slot stays taken until the watch says the pod is gone (the operator's expectations)
      auto it = cache_.pods.find(ns + "/" + name);
      if (it != cache_.pods.end()) it->second["metadata"]["deletionTimestamp"] = now_text();
    }
    for (const auto& name : plan.delete_services)
      if (services.remove_opt(name)) log("deleted service " + ns + "/" + name);
    for (const auto& p : plan.create_pods) {
      try {
        const json made = pods.create(p.get<tfjob::k8s::Pod>());
        log("created pod " + ns + "/" + key_of(made).substr(ns.size() + 1));
        std::lock_guard<std::mutex> lk(cache_.mu);
        cache_.pods[key_of(made)] = made;
      } catch (const tfjob::api_error& e) {
        if (!e.is_already_exists()) throw;
      }
    }
    for (const auto& s : plan.create_services) {
      try {
        const json made = services.create(s.get<tfjob::k8s::Service>());
        log("created service " + ns + "/" + key_of(made).substr(ns.size() + 1));
        std::lock_guard<std::mutex> lk(cache_.mu);
        cache_.services[key_of(made)] = made;
      } catch (const tfjob::api_error& e) {
        if (!e.is_already_exists()) throw;
      }
    }
    for (const auto& e : plan.events) record(job, stored, e);
    kube::Api<kube::DynamicObject> jobs(client_, kube::resource_info<tfjob::TFJob>(), ns);
    if (plan.status) {
      // a merge patch guarded by the resourceVersion reconciled from (a conflict retries)
      json patch = {{"metadata", {{"resourceVersion", job.metadata.resource_version}}},
                    {"status", merge_patch_between(stored.value("status", json::object()), json(*plan.status))}};
      try {
        kube::DynamicObject updated = jobs.patch_status(job.metadata.name, patch);
        std::lock_guard<std::mutex> lk(cache_.mu);
        cache_.jobs[key] = updated.json;
      } catch (const tfjob::api_error& e) {
        if (!e.is_conflict() && !e.is_not_found()) throw;
        std::lock_guard<std::mutex> lk(cache_.mu);
        cache_.timers[key] = std::chrono::steady_clock::now() + std::chrono::milliseconds(200);
      }
      std::string conds;
      for (const auto& c : plan.status->conditions)
        if (c.status == "True") conds += (conds.empty() ? "" : ",") + c.type;
      log("status of TFJob " + key + ": " + conds);
    }
    if (plan.delete_job) {
      kube::DeleteParams dp;
      dp.propagation_policy = "Background";
      if (jobs.remove_opt(job.metadata.name, dp)) log("deleted TFJob " + key + " (ttlSecondsAfterFinished)");
    }
    if (plan.requeue_after) {
      std::lock_guard<std::mutex> lk(cache_.mu);
      auto due = std::chrono::steady_clock::now() + std::chrono::seconds(*plan.requeue_after);
      auto it = cache_.timers.find(key);
      if (it == cache_.timers.end() || it->second > due) cache_.timers[key] = due;
    }
  }

  /// An event on the TFJob, as the operator's recorder writes it (component tfjob-controller).
  void record(const tfjob::TFJob& job, const json& stored, const op::JobEvent& e) {
    const std::string ts = now_text();
    char suffix[20];
    std::snprintf(suffix, sizeof suffix, "%llx", static_cast<unsigned long long>(
                                                      std::chrono::steady_clock::now().time_since_epoch().count()));
    json ev = {{"apiVersion", "v1"}, {"kind", "Event"},
               {"metadata", {{"name", job.metadata.name + "." + suffix}, {"namespace", job.metadata.namespace_}}},
               {"involvedObject", {{"apiVersion", tfjob::api_version}, {"kind", tfjob::kind}, {"name", job.metadata.name},
                                   {"namespace", job.metadata.namespace_}, {"uid", job.metadata.uid},
                                   {"resourceVersion", stored["metadata"].value("resourceVersion", "")}}},
               {"type", e.type}, {"reason", e.reason}, {"message", e.message},
               {"source", {{"component", "tfjob-controller"}}}, {"firstTimestamp", ts}, {"lastTimestamp", ts}, {"count", 1}};
    try {
      kube::Api<tfjob::k8s::Event>(client_, job.metadata.namespace_).create(ev.get<tfjob::k8s::Event>());
    } catch (const std::exception& ex) {
      log("cannot record event " + e.reason + " on TFJob " + job.metadata.name + ": " + ex.what());
    }
  }

  kube::Client client_;
  Options o_;
  Cache& cache_;
  op::OperatorOptions opts_;
};

}  // namespace

int main(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&](std::string& out) {
      if (i + 1 >= argc) {
        std::cerr << "tfjob-controller-standin: " << a << " needs a value\n" << kUsage;
        std::exit(2);
      }
      out = argv[++i];
    };
    if (a == "--kubeconfig") value(o.kubeconfig);
    else if (a == "--context") value(o.context);
    else if (a == "--namespace" || a == "-n") value(o.namespace_);
    else if (a == "--cluster-domain") value(o.cluster_domain);
    else if (a == "-h" || a == "--help") {
      std::cout << kUsage;
      return 0;
    } else {
      std::cerr << "tfjob-controller-standin: unknown argument " << a << "\n" << kUsage;
      return 2;
    }
  }
  if (o.kubeconfig.empty()) {
    std::cerr << "tfjob-controller-standin: --kubeconfig FILE is required (the cluster to control)\n" << kUsage;
    return 2;
  }
  // SIGTERM/SIGINT are taken by one thread (sigwait), never by a handler in another
  sigset_t sigs;
  sigemptyset(&sigs);
  sigaddset(&sigs, SIGTERM);
  sigaddset(&sigs, SIGINT);
  pthread_sigmask(SIG_BLOCK, &sigs, nullptr);
  try {
    kube::ConfigOverrides co;
    co.kubeconfig = o.kubeconfig;
    co.context = o.context;
    kube::Client client(kube::load_config(co));
    Cache cache;
    std::thread signals([&] {
      int sig = 0;
      sigwait(&sigs, &sig);
      log(std::string("got ") + (sig == SIGTERM ? "SIGTERM" : "SIGINT") + ", stopping");
      std::lock_guard<std::mutex> lk(cache.mu);
      cache.stop = true;
      cache.cv.notify_all();
    });
    Controller c(client, o, cache);
    try {
      c.run();
    } catch (...) {
      ::kill(::getpid(), SIGTERM);  // let the signal thread end
      signals.join();
      throw;
    }
    signals.join();
  } catch (const std::exception& e) {
    std::cerr << "tfjob-controller-standin: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
