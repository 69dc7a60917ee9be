#pragma once
/// \file The bodies of <tfjob/serving/diagnose.hpp>: that header includes this file at its end, in its
/// `#if TFJOB_SDK_DEFINE_SERVING` section (detail/compiled.hpp says when that is compiled).
/// Include <tfjob/serving/diagnose.hpp>, never this file.

namespace tfjob::serving {

namespace detail {
/// The events about pod `name` (one of `pods`, whose uid narrows them), by kubectl describe's
/// field selector; none when they may not be read.
TFJOB_INLINE std::vector<k8s::Event> pod_events(kube::Client& c, const std::string& ns, const std::vector<k8s::Pod>& pods,
                                                const std::string& name) {
  std::string uid;
  for (const auto& p : pods)
    if (p.metadata.name == name) uid = p.metadata.uid;
  std::vector<k8s::Event> out;
  try {
    kube::Api<k8s::Event>(c, ns).list_pages(kube::events_about("Pod", name, ns, uid), [&](kube::ObjectList<k8s::Event>& page) {
      for (auto& e : page.items) out.push_back(std::move(e));
      return true;
    });
  } catch (const std::exception&) {
  }
  return out;
}
}  // namespace detail

TFJOB_INLINE std::string diagnose(kube::Client& c, const std::string& ns, const std::vector<k8s::Pod>& pods,
                                  const std::vector<PodProblem>& problems, int log_lines) {
  std::string s;
  // the events of the pods with a problem, each pod's by its own field selector
  std::vector<k8s::Event> events;
  std::set<std::string> seen;
  for (const auto& p : problems)
    if (seen.insert(p.pod).second)
      for (auto& e : detail::pod_events(c, ns, pods, p.pod)) events.push_back(std::move(e));
  for (const auto& p : problems) {
    s += "pod " + p.pod + ": " + (p.init ? "init container " : "container ") + p.container + " is " + p.reason;
    if (p.restarts) s += " (restarted " + std::to_string(p.restarts) + " times";
    if (p.last_exit_code) s += std::string(p.restarts ? ", " : " (") + "last exit code " + std::to_string(*p.last_exit_code);
    if (p.restarts || p.last_exit_code) s += ")";
    if (!p.message.empty()) s += ": " + p.message;
    s += "\n";
    for (const auto& e : events)
      if (e.involved_object.name == p.pod) s += "  event " + e.type + " " + e.reason + ": " + e.message + "\n";
    kube::LogParams lp;
    lp.container = p.container;
    lp.tail_lines = log_lines;
    lp.previous = p.restarts > 0;
    std::string logs;
    // The kubelet answers 200 with its own error as the body when the runtime has no log
    // for the container it picked (kubelet server.go getContainerLogs writes the error into
    // the stream); on a crash loop that happens for previous=true while the current log
    // (lastState.terminated's container, kubelet validateContainerLogStatus) still has it.
    auto unreadable = [](const std::string& body) {
      return body.empty() || kube::detail::kubelet_log_unavailable(body);  // (get_logs throws on it too)
    };
    try {
      logs = kube::get_logs(c, ns, p.pod, lp);
      if (lp.previous && unreadable(logs)) throw tfjob::error("the previous attempt's log is gone");
    } catch (const std::exception&) {
      try {
        lp.previous = false;
        logs = kube::get_logs(c, ns, p.pod, lp);
      } catch (const std::exception& e2) {
        logs = std::string("(no logs: ") + e2.what() + ")\n";
      }
    }
    if (!logs.empty()) {
      s += "  last log lines of " + p.container + ":\n";
      std::string line;
      for (char ch : logs) {
        if (ch == '\n') {
          s += "    " + line + "\n";
          line.clear();
        } else {
          line += ch;
        }
      }
      if (!line.empty()) s += "    " + line + "\n";
    }
  }
  (void)pods;
  return s;
}

TFJOB_INLINE std::string scheduling_reasons(const std::vector<k8s::Pod>& pods) {
  std::string s;
  for (const auto& p : pods)
    for (const auto& c : p.status.conditions)
      if (c.type == "PodScheduled" && c.status == "False" && !c.message.empty())
        s += "pod " + p.metadata.name + " is not scheduled: " + c.message + "\n";
  return s;
}

TFJOB_INLINE std::string warning_events(kube::Client& c, const std::string& ns, const std::vector<k8s::Pod>& pods) {
  std::string s;
  try {
    for (const auto& p : pods)
      for (const auto& e : detail::pod_events(c, ns, pods, p.metadata.name))
        if (e.type == "Warning" && e.involved_object.name == p.metadata.name)
          s += "pod " + p.metadata.name + ": " + e.reason + ": " + e.message + "\n";
  } catch (const std::exception&) {
  }
  return s;
}

}  // namespace tfjob::serving
