// Pod logs on the fake API server: pods/NAME/log from the kubelet's record of each run,
// with container, previous, follow, timestamps, tailLines, sinceSeconds/sinceTime and
// limitBytes as the kubelet serves them, and the synthetic lines of generated output.
#include <algorithm>
#include <cstdio>
#include <optional>

#include "support/fake_handler.hpp"

namespace tfjob::test::fake {

void append_synthetic_line(std::string& out, std::uint64_t index, std::size_t bytes) {
  // "line %012llu " then a rotating alphabet: cheap to make, easy to check
  static const std::string pattern = [] {
    std::string p;
    while (p.size() < 65536 + 64) p += "abcdefghijklmnopqrstuvwxyz0123456789";
    return p;
  }();
  char head[32];
  int n = std::snprintf(head, sizeof head, "line %012llu ", static_cast<unsigned long long>(index));
  std::size_t h = static_cast<std::size_t>(n);
  if (bytes <= h) {
    out.append(head, bytes);
    return;
  }
  out.append(head, h);
  std::size_t rest = bytes - h, off = static_cast<std::size_t>((index + h) % 36);
  while (rest > 0) {
    std::size_t take = std::min(rest, std::size_t{65536});
    out.append(pattern, off, take);
    rest -= take;
    off = (off + take) % 36;
  }
}

std::string synthetic_line(std::uint64_t index, std::size_t bytes) {
  std::string s;
  append_synthetic_line(s, index, bytes);
  return s;
}

namespace {

/// The container a log request names, or the pod's only one; 400 otherwise. Init containers
/// (native sidecars among them) and ephemeral ones have logs too (pkg/registry/core/pod/
/// strategy.go LogLocation: podHasContainerWithName looks at all three lists).
std::string pick_container(const json& pod, std::string container, const std::string& pod_name) {
  std::vector<std::string> names, all;
  for (const auto& c : pod["spec"].value("containers", json::array())) names.push_back(c.value("name", ""));
  all = names;
  for (const char* k : {"initContainers", "ephemeralContainers"})
    for (const auto& c : pod["spec"].value(k, json::array())) all.push_back(c.value("name", ""));
  if (container.empty()) {
    if (names.size() != 1) {
      std::string list;
      for (const auto& n : names) list += (list.empty() ? "" : " ") + n;
      throw fake::err_bad_request("a container name must be specified for pod " + pod_name + ", choose one of: [" + list + "]");
    }
    container = names[0];
  } else if (std::find(all.begin(), all.end(), container) == all.end()) {
    std::string list;
    for (const auto& n : names) list += (list.empty() ? "" : " ") + n;
    throw fake::err_bad_request("container " + container + " is not valid for pod " + pod_name);
  }
  return container;
}

/// The index of the run to read (the current one, or with `previous` the one before);
/// 400 while the container has not started or has no previous run.
size_t pick_run(Kubelet::Impl& k, const std::string& key, const json& pod, const std::string& container,
                const std::string& pod_name, bool previous) {
  size_t run_index;
  std::lock_guard<std::mutex> lk(k.mu);
  auto it = k.containers.find(key);
  if (it == k.containers.end() || it->second.runs.empty()) {
    std::string reason = pod["status"].value("phase", "") == "Pending" ? "ContainerCreating" : "PodInitializing";
    throw fake::err_bad_request("container \"" + container + "\" in pod \"" + pod_name + "\" is waiting to start: " + reason);
  }
  auto& cs = it->second;
  if (previous) {
    if (cs.runs.size() < 2 && !(cs.runs.size() == 1 && cs.restart_pending))
      throw fake::err_bad_request("previous terminated container \"" + container + "\" in pod \"" + pod_name + "\" not found");
    run_index = cs.restart_pending ? cs.runs.size() - 1 : cs.runs.size() - 2;
  } else {
    run_index = cs.runs.size() - 1;
  }
  return run_index;
}

/// Where a log stream is, between chunks.
struct LogState {
  size_t entry = 0;         // next log entry
  std::uint64_t gen_i = 0;  // within a generated entry
  bool started = false;
  bool line_start = true;  // at a line's first record
  std::uint64_t line_bytes = 0;  // of the current line, in the records sent
  std::size_t limit = 0, sent = 0;
};

/// tailLines / sinceTime: picks the first entry to send.
void seek_log(const std::vector<LogEntry>& log, std::optional<Clock::time_point> since, long tail, LogState& st) {
  size_t first = 0;
  if (since) {
    while (first < log.size() && log[first].t < *since) ++first;
  }
  if (tail >= 0) {
    // tailLines counts lines, not records: a line of several partial records (and the
    // log's unterminated last line) is one line (the kubelet's tail.FindTailLineStartIndex)
    std::uint64_t need = static_cast<std::uint64_t>(tail);
    size_t e = log.size();
    std::uint64_t gen_skip = 0;
    while (e > first && need > 0) {
      const auto& en = log[e - 1];
      if (e - 1 > first && log[e - 2].partial) {  // not the start of its line
        --e;
        continue;
      }
      std::uint64_t n = en.gen_count ? en.gen_count : 1;
      if (n <= need) {
        need -= n;
        --e;
      } else {
        gen_skip = n - need;
        need = 0;
        --e;
        break;
      }
    }
    if (need == 0 && e < log.size() && log[e].gen_count && gen_skip) st.gen_i = gen_skip;
    first = std::max(first, e);
  }
  st.entry = first;
}

/// Copies out the run's next entries, up to ~256 KiB, as the kubelet writes them.
void copy_log(const ContainerRun& run, bool timestamps, LogState& st, std::string& buf) {
  while (st.entry < run.log.size() && buf.size() < 256 * 1024) {
    const auto& en = run.log[st.entry];
    // the kubelet prefixes every CRI entry (kuberuntime/logs/logs.go logWriter.write):
    // a line's first, and each further 16 KiB entry of a long line (what containerd
    // writes as partial entries); the fake's other partial records (an unterminated
    // tail that a later write continues, which containerd would hold back) are not
    std::string ts = timestamps && (st.line_start || (st.line_bytes > 0 && st.line_bytes % 16384 == 0))
                         ? fake::rfc3339_nano(en.t) + " " : "";
    if (en.gen_count) {
      while (st.gen_i < en.gen_count && buf.size() < 256 * 1024) {
        buf += ts;
        fake::append_synthetic_line(buf, st.gen_i, en.gen_bytes);
        buf += '\n';
        ++st.gen_i;
      }
      if (st.gen_i >= en.gen_count) {
        st.gen_i = 0;
        ++st.entry;
      }
    } else {
      buf += ts;
      buf += en.text;
      if (!en.partial) buf += '\n';
      st.line_start = !en.partial;
      st.line_bytes = en.partial ? st.line_bytes + en.text.size() : 0;
      ++st.entry;
    }
  }
}

/// The chunks of one log stream: what the run has, then (following) what it writes next,
/// through the limitBytes and cut knobs (the members are what its provider captures).
struct LogPump {
  FakeApiServer::Impl* sp;
  const httplib::Request* rq;
  std::string key;
  size_t run_index;
  bool follow, timestamps;
  std::shared_ptr<LogState> st;
  std::shared_ptr<Stream> stream;

  bool operator()(size_t, httplib::DataSink& sink) const {
    auto& k = sp->kubelet_impl;
    std::string buf, after_log;
    for (;;) {
      bool ended = false;
      buf.clear();
      {
        std::unique_lock<std::mutex> lk(k.mu);
        auto it = k.containers.find(key);
        if (it == k.containers.end() || it->second.runs.size() <= run_index) {
          ended = true;
        } else {
          const auto& run = it->second.runs[run_index];
          if (st->entry >= run.log.size()) {
            if (!follow || run.terminated || sp->stopping) {
              ended = true;
              if (follow && run.terminated && it->second.removed && run_index + 1 == it->second.runs.size())
                after_log = "rpc error: code = NotFound desc = an error occurred when try to find container \"" +
                            std::string(64, 'c') + "\": not found";
            } else {
              k.cv.wait_for(lk, std::chrono::milliseconds(250));
              lk.unlock();
              if (peer_gone(*rq)) return false;
              continue;
            }
          } else {
            copy_log(run, timestamps, *st, buf);
          }
        }
      }
      if (!buf.empty()) {
        if (st->limit) {
          if (st->sent >= st->limit) ended = true;
          else if (st->sent + buf.size() > st->limit) buf.resize(st->limit - st->sent);
        }
        if (!buf.empty() && !ended) {
          st->sent += buf.size();
          if (!stream->write(sink, buf)) return false;
          continue;
        }
      }
      if (ended) {
        if (!after_log.empty() && !stream->write(sink, after_log)) return false;
        sink.done();
        return true;
      }
    }
  }
};

}  // namespace

void Handler::pod_log(const Target& t) {
  const ResourceInfo* pods = fake::find_resource("", "v1", "pods");
  json pod;
  {
    std::lock_guard<std::mutex> lk(s.mu);
    json* p = s.find_locked(*pods, t.ns, t.name);
    if (!p) throw fake::err_not_found(*pods, t.name);
    pod = *p;
  }
  std::string container = pick_container(pod, param(req, "container"), t.name);
  const bool follow = truthy(param(req, "follow"));
  const bool previous = truthy(param(req, "previous"));
  const bool timestamps = truthy(param(req, "timestamps"));
  long tail = -1;
  std::optional<fake::Clock::time_point> since;
  std::size_t limit_bytes = 0;
  try {
    if (req.has_param("tailLines")) tail = std::stol(param(req, "tailLines"));
    if (req.has_param("sinceSeconds")) since = fake::Clock::now() - std::chrono::seconds(std::stol(param(req, "sinceSeconds")));
    if (req.has_param("limitBytes")) limit_bytes = std::stoul(param(req, "limitBytes"));
  } catch (...) {
    throw fake::err_bad_request("invalid log options");
  }
  if (req.has_param("sinceTime")) {
    fake::Clock::time_point tp;
    if (!fake::parse_rfc3339(param(req, "sinceTime"), tp)) throw fake::err_bad_request("invalid sinceTime: " + param(req, "sinceTime"));
    since = tp;
  }
  const std::string key = pod["metadata"].value("uid", "") + "/" + container;
  auto& k = s.kubelet_impl;
  size_t run_index = pick_run(k, key, pod, container, t.name, previous);
  auto stream = std::make_shared<Stream>();
  fake::FaultRule rule;
  if (s.faults_impl.take(fake::FaultRule::cut, req.method, req.path, rule)) stream->cut_at = rule.bytes;
  auto st = std::make_shared<LogState>();
  st->limit = limit_bytes;
  // tailLines / sinceTime: pick the first entry to send
  {
    std::lock_guard<std::mutex> lk(k.mu);
    seek_log(k.containers[key].runs[run_index].log, since, tail, *st);
  }
  rec.status = 200;
  res.status = 200;
  FakeApiServer::Impl* sp = &s;
  const httplib::Request* rq = &req;
  res.set_chunked_content_provider("text/plain", LogPump{sp, rq, key, run_index, follow, timestamps, st, stream});
}

}  // namespace tfjob::test::fake
