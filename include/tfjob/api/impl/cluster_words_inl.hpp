#pragma once
/// \file The bodies of <tfjob/api/cluster_words.hpp>: that header includes this file at its end, in its
/// `#if TFJOB_SDK_DEFINE_API` section (detail/compiled.hpp says when that is compiled).
/// Include <tfjob/api/cluster_words.hpp>, never this file.

namespace tfjob::words {

TFJOB_INLINE std::string scheduler_filters(const std::string& message) {
  const auto p = message.find(" preemption: ");
  return p == std::string::npos ? message : message.substr(0, p);
}

TFJOB_INLINE SchedulerWords read_scheduler_message(const std::string& message) {
  SchedulerWords w;
  const std::string m = scheduler_filters(message);
  auto has = [&](const char* s) { return m.find(s) != std::string::npos; };
  for (std::size_t at = m.find("Insufficient "); at != std::string::npos; at = m.find("Insufficient ", at + 13)) {
    auto end = m.find_first_of(" ,", at + 13);  // "Insufficient nvidia.com/gpu." (the name has dots)
    std::string res = m.substr(at + 13, end == std::string::npos ? std::string::npos : end - at - 13);
    while (!res.empty() && res.back() == '.') res.pop_back();
    if (!res.empty()) w.insufficient.push_back(res);
  }
  w.enforced_affinity = has("scheduler-enforced node affinity");
  w.selector = has("didn't match Pod's node affinity") || has("didn't match node selector");
  w.taint = has("untolerated taint") || (has("had taint") && has("didn't tolerate"));
  w.cordoned = has("were unschedulable");
  w.claim_not_found = has("persistentvolumeclaim \"") && has("\" not found");
  w.claim = w.claim_not_found || has("PersistentVolumeClaim") || has("persistentvolumeclaim") ||
            has("available persistent volumes to bind");
  return w;
}

TFJOB_INLINE bool says_insufficient(const std::string& message, const std::string& resource) {
  for (const auto& r : read_scheduler_message(message).insufficient)
    if (r == resource) return true;
  return false;
}

TFJOB_INLINE bool image_pull_problem(const std::string& reason) {
  return reason == "ErrImagePull" || reason == "ImagePullBackOff" || reason == "ErrImageNeverPull" || reason == "InvalidImageName";
}

TFJOB_INLINE bool pull_backoff_names_error(const std::string& message) {
  // `Back-off pulling image "IMG"` (a quoted reference, so a colon in it is no separator)
  const auto q = message.find('"');
  const auto q2 = q == std::string::npos ? std::string::npos : message.find('"', q + 1);
  return q2 != std::string::npos && message.find(": ", q2) != std::string::npos;
}

TFJOB_INLINE bool crash_loop(const std::string& reason) { return reason == "CrashLoopBackOff"; }

TFJOB_INLINE bool restart_backoff_event(const std::string& reason, const std::string& message, const std::string& container) {
  if (reason != "BackOff" || message.rfind("Back-off restarting failed container", 0) != 0) return false;
  if (container.empty() || message == "Back-off restarting failed container") return true;
  return message.rfind("Back-off restarting failed container " + container + " in pod ", 0) == 0;
}

TFJOB_INLINE bool oom_killed(const std::string& terminated_reason) { return terminated_reason == "OOMKilled"; }

}  // namespace tfjob::words
