#pragma once
/// \file How one replica's log is read or followed: the chief (as the operator marks it) or
/// one replica; following waits through Pending (reporting progress), picks up restarted
/// containers and recreated pods, says each state change once, and ends when the job
/// finishes (detail::ReplicaFollower). Part of <tfjob/workflow/logs.hpp>.

#include <tfjob/api/k8s/pod.hpp>
#include <tfjob/detail/compiled.hpp>
#include <tfjob/error.hpp>
#include <tfjob/kube/logs.hpp>
#include <tfjob/workflow/cluster.hpp>
#include <tfjob/workflow/job_watch.hpp>
#include <tfjob/workflow/logs/record.hpp>
#include <tfjob/workflow/logs/targets.hpp>
#include <tfjob/workflow/pods.hpp>
#include <tfjob/workflow/progress.hpp>
#include <tfjob/workflow/status.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>

namespace tfjob::workflow {

namespace detail {

/// The restart count of `container` in a pod (0 when unknown).
int restart_count(const k8s::Pod& pod, const std::string& container);

}  // namespace detail

/// Follow (or print) one target's logs: the chief (type "") or replica `type`/`index`.
/// `sink` gets each piece of each line. Returns when the logs end: without follow after one
/// stream; with follow when the job has finished and the last attempt's log is drained.
JobLogResult replica_log_records(kube::Client c, const std::string& ns, const std::string& job,
                                 const std::string& type, int index, const JobLogOptions& o,
                                 const std::function<bool(const LogRecord&)>& sink);

/// replica_log_records with whole lines: `emit(pod, line)` gets each line (without '\n';
/// a long line is gathered whole).
JobLogResult replica_logs(kube::Client c, const std::string& ns, const std::string& job, const std::string& type,
                          int index, const JobLogOptions& o,
                          const std::function<bool(const std::string& pod, std::string_view line)>& emit);

}  // namespace tfjob::workflow

#if TFJOB_SDK_DEFINE_WORKFLOW
#include <tfjob/workflow/logs/impl/follow_inl.hpp>
#endif  // TFJOB_SDK_DEFINE_WORKFLOW
