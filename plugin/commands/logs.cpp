// kubectl tfjob logs JOB: the chief's log as the operator marks it (job-role=master, else
// chief/master, else worker 0, else older operators' labels), or the replicas a filter
// picks (--all, --replica, --index, -l, --all-containers), in the order a user reads a job
// (chief, master, workers, PS, evaluator, each by index), prefixed `[chief-0]` and
// coloured per replica; --merge makes one timeline by the kubelet's timestamps; -o json
// one object per line. -f waits through Pending, follows restarts and recreated pods, says
// each state change once, and ends when the job finishes. A failed job shows the failed
// pod's log and names the pod and its exit code. --save DIR keeps every replica's log.
#include "commands.hpp"
#include "../common/context.hpp"
#include "../common/flag_values.hpp"
#include "../common/output.hpp"
#include "../common/workflow_cli.hpp"

#include <tfjob/workflow/logs.hpp>

#include <unistd.h>

#include <algorithm>
#include <iostream>
#include <map>
#include <memory>
#include <regex>
#include <string>
#include <vector>

namespace tfjob::cli {
namespace {

struct LogsOptions {
  std::string name;
  std::string selector;
  std::vector<std::string> containers;
  bool all_containers = false;
  std::vector<std::string> replicas;
  std::vector<std::string> indices;
  bool all = false;
  bool follow = false;
  bool merge = false;
  std::int64_t tail = -1;
  std::string since, since_time;
  bool timestamps = false;
  bool previous = false;
  bool prefix = false;
  std::vector<std::string> include, exclude, highlight;
  int max_log_requests = 5;
  std::string output;
  std::string save;
  bool quiet = false;
};

/// "2", "0,2", "1-3,5" → indices. Throws naming the flag, the part as given.
std::vector<int> parse_indices(const std::vector<std::string>& specs) {
  // more replicas than a job has: what the ranges may name in all (0-2000000000 would be 8 GB)
  constexpr std::size_t most = 10000;
  const std::string right = "give N, N,M or A-B, e.g. --index 0,2-3";
  std::vector<int> out;
  auto num = [&](const std::string& s, const std::string& part) {
    if (s.empty() || s.find_first_not_of("0123456789") != std::string::npos)
      throw flag::usage("--index", "\"" + part + "\" is not an index", right);
    if (s.size() > 9) throw flag::usage("--index", "\"" + part + "\" goes past any replica's index", "give the indices of the replicas, e.g. --index 0-3");
    return std::stoi(s);
  };
  for (const auto& spec : specs) {
    std::size_t pos = 0;
    while (pos <= spec.size()) {
      auto comma = spec.find(',', pos);
      std::string part = spec.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
      auto dash = part.find('-');
      const int a = num(part.substr(0, dash), part);
      const int b = dash == std::string::npos ? a : num(part.substr(dash + 1), part);
      if (b < a) throw flag::usage("--index", "the range \"" + part + "\" ends before it starts", "give A-B with A <= B");
      if (out.size() + static_cast<std::size_t>(b - a) >= most)
        throw flag::usage("--index", "\"" + part + "\" names more replicas than a job has (over " + std::to_string(most) + " in all)",
                          "give the indices of the replicas, e.g. --index 0-3");
      for (int i = a; i <= b; ++i) out.push_back(i);
      if (comma == std::string::npos) break;
      pos = comma + 1;
    }
  }
  return out;
}

std::vector<std::regex> compile(const std::vector<std::string>& res, const char* flag) {
  std::vector<std::regex> out;
  for (const auto& r : res) {
    try {
      out.emplace_back(r, std::regex::ECMAScript);
    } catch (const std::regex_error& e) {
      throw flag::usage(flag, "invalid regular expression \"" + r + "\" (" + e.what() + ")", "give an ECMAScript regular expression");
    }
  }
  return out;
}

/// Writes what the logs say: raw, prefixed or JSON; filters and highlights; stdout through
/// one buffer, flushed at least every 100 ms while following.
class Printer {
 public:
  /// `out` is a terminal only when it is std::cout on one.
  Printer(std::ostream& out, std::ostream& err) : out_(out), err_(err), tty_(&out == &std::cout && ::isatty(1) != 0) {}
  bool prefixed = false, json = false, color = false, timestamps = false, wide = false;
  bool job_in_prefix = false, container_in_prefix = false;
  std::vector<std::regex> include, exclude, highlight;
  tfjob::workflow::LogSaver* saver = nullptr;

  void record(const tfjob::workflow::LogRecord& r) {
    const auto& s = *r.source;
    const auto& pc = r.piece;
    if (saver) saver->record(r);
    const std::string key = s.pod + "/" + s.container;
    if (pc.first) {
      bool show = true;
      if (!include.empty()) {
        show = false;
        for (const auto& re : include) show = show || std::regex_search(pc.text.begin(), pc.text.end(), re);
      }
      for (const auto& re : exclude) show = show && !std::regex_search(pc.text.begin(), pc.text.end(), re);
      if (!pc.last) hidden_[key] = !show;
      if (!show) return;
    } else {
      auto h = hidden_.find(key);
      bool hide = h != hidden_.end() && h->second;
      if (pc.last) hidden_.erase(key);
      if (hide) return;
    }
    if (json) return json_line(r);
    // another stream's line while one is open: end it visually; it resumes with its prefix
    if (!open_.empty() && open_ != key && prefixed) put("\n");
    bool start = pc.first || (prefixed && open_ != key);
    if (start && prefixed) put(prefix(s));
    if (pc.first && timestamps && !pc.timestamp.empty()) {
      put(pc.timestamp);
      put(" ");
    }
    if (!highlight.empty() && color) put(highlighted(pc.text));
    else put(pc.text);
    if (pc.last && (pc.terminated || prefixed)) put("\n");
    open_ = pc.last ? std::string() : key;
    tick();
  }

  void bytes(const tfjob::workflow::LogSource& s, std::string_view b) {
    if (saver) saver->bytes(s, b);
    put(b);
    tick();
  }

  void event(const tfjob::workflow::LogEvent& e, bool quiet) {
    if (saver) saver->event(e);
    if (json) {
      nlohmann::json j = base(e.source, tfjob::kube::detail::format_rfc3339(std::time(nullptr)));
      j["stream"] = "event";
      j["event"] = tfjob::workflow::to_string(e.kind);
      if (e.exit_code) j["exitCode"] = *e.exit_code;
      if (!e.reason.empty()) j["reason"] = e.reason;
      j["line"] = e.message;
      put(j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
      put("\n");
      flush();
      return;
    }
    if (quiet) return;
    flush();
    std::string who = e.source.replica_type.empty() ? "" : e.source.replica_type + "-" + std::to_string(e.source.index) + ": ";
    err_ << paint(who + e.message, color::faint, color) << "\n" << std::flush;
  }

  void flush() {
    out_.flush();
    last_flush_ = std::chrono::steady_clock::now();
  }
  bool following = false;

 private:
  void put(std::string_view s) { out_.write(s.data(), static_cast<std::streamsize>(s.size())); }
  void tick() {
    if (!following) return;
    auto now = std::chrono::steady_clock::now();
    if (tty_ || now - last_flush_ >= std::chrono::milliseconds(100)) flush();
  }
  std::string label(const tfjob::workflow::LogSource& s) const {
    std::string l = s.replica_type + "-" + std::to_string(s.index);
    if (job_in_prefix) l = s.job + "/" + l;
    if (container_in_prefix) l += "/" + s.container;
    return l;
  }
  std::string prefix(const tfjob::workflow::LogSource& s) {
    std::string l = label(s);
    std::string text = "[" + l + (wide ? " " + s.pod : "") + "] ";
    // a stable colour per replica (stern's per-pod hash, keyed by the replica: a recreated
    // pod keeps its colour)
    return color ? std::string(pod_color(l)) + text.substr(0, text.size() - 1) + color::reset + " " : text;
  }
  std::string highlighted(std::string_view text) const {
    std::string out;
    std::string t(text);
    std::vector<std::pair<std::size_t, std::size_t>> spans;
    for (const auto& re : highlight)
      for (auto it = std::sregex_iterator(t.begin(), t.end(), re); it != std::sregex_iterator(); ++it)
        if (it->length() > 0) spans.emplace_back(static_cast<std::size_t>(it->position()), static_cast<std::size_t>(it->length()));
    std::sort(spans.begin(), spans.end());
    std::size_t pos = 0;
    for (const auto& [at, len] : spans) {
      if (at < pos) continue;
      out.append(t, pos, at - pos);
      out += std::string(color::bold) + color::red + t.substr(at, len) + color::reset;
      pos = at + len;
    }
    out.append(t, pos, std::string::npos);
    return out;
  }
  nlohmann::json base(const tfjob::workflow::LogSource& s, const std::string& time) const {
    return {{"time", time},     {"job", s.job},     {"namespace", s.namespace_}, {"replicaType", s.replica_type},
            {"index", s.index}, {"pod", s.pod},     {"container", s.container},  {"attempt", s.attempt}};
  }
  void json_line(const tfjob::workflow::LogRecord& r) {
    const auto& pc = r.piece;
    const std::string key = r.source->pod + "/" + r.source->container;
    if (pc.first) line_ts_[key] = std::string(pc.timestamp);
    nlohmann::json j = base(*r.source, line_ts_[key]);
    // the API serves stdout and stderr as one stream (PodLogOptions.stream "All", the default)
    j["stream"] = "all";
    j["line"] = std::string(pc.text);
    if (!pc.last) j["partial"] = true;
    if (pc.last) line_ts_.erase(key);
    // invalid UTF-8 cannot be JSON text: such bytes become U+FFFD (the plain output is exact)
    put(j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
    put("\n");
    tick();
  }
  std::map<std::string, bool> hidden_;
  std::map<std::string, std::string> line_ts_;
  std::string open_;
  std::ostream& out_;
  std::ostream& err_;
  bool tty_;
  std::chrono::steady_clock::time_point last_flush_ = std::chrono::steady_clock::now();
};

struct LogsCommand : LogsOptions {
  const CLI::App* sub = nullptr;  ///< its command, to tell which flags were given

  /// Every flag, before any request.
  void validate() {
    auto& o = *this;
    if (o.name.empty() && o.selector.empty()) throw flag::usage("NAME", "no TFJob named", "give a TFJob name or -l SELECTOR");
    if (!o.name.empty() && !o.selector.empty()) throw flag::exclusive("--selector", "a TFJob name");
    if (o.previous && o.follow) throw flag::exclusive("--previous", "--follow");
    if (o.all_containers && !o.containers.empty()) throw flag::exclusive("--all-containers", "--container");
    if (!o.since.empty() && !o.since_time.empty()) throw flag::exclusive("--since", "--since-time");  // kubectl logs' rule
    if (o.output == "json")  // each object carries its replica and time, and JSON is not coloured
      flag::refuse_given(*sub, {"--prefix", "--timestamps", "--highlight"},
                         "with --output json, whose objects hold each line's replica and time, uncoloured", "leave out one of them");
    if (!o.since.empty()) {
      // Go's time.ParseDuration, as kubectl logs --since (a number needs a unit: the flag layer)
      // 0 is no bound, every line (kubectl logs sets sinceSeconds only when --since is not 0)
      auto d = wf::parse_duration(o.since, "--since");
      if (d.count() > 0)
        since_secs = std::max<std::int64_t>(1, std::chrono::duration_cast<std::chrono::seconds>(d + std::chrono::milliseconds(999)).count());
    }
    // a container named twice is read once (as a pair given twice is taken once: cli.md), so
    // `-c tensorflow -c tensorflow` is the chief's one log, not every replica's twice
    std::vector<std::string> named;
    for (const auto& c : containers)
      if (std::find(named.begin(), named.end(), c) == named.end()) named.push_back(c);
    containers = std::move(named);
    parsed_types.clear();
    for (const auto& t : o.replicas) parsed_types.push_back(workflow::detail::lower(*tfjob::canonical_replica_type(t)));
    parsed_indices = parse_indices(o.indices);
    include_re = compile(o.include, "--include");
    exclude_re = compile(o.exclude, "--exclude");
    highlight_re = compile(o.highlight, "--highlight");
  }
  int run(Context& ctx) const;

 private:
  /// The steps of run: how to print, what to read, how, where it goes, and the read itself
  /// (an error worded with this command's flags).
  void configure(Printer& pr, Context& ctx) const;
  workflow::LogsRequest request() const;
  workflow::JobLogOptions log_options(bool json) const;
  workflow::LogsOutput log_output(Context& ctx, Printer& pr, wf::ProgressLine& line, bool many) const;
  workflow::LogsOutcome read(kube::Client& client, const std::string& ns, const workflow::LogsRequest& rq,
                             const workflow::JobLogOptions& lo, const workflow::LogsOutput& out) const;
  /// What the run's outcome means to the user, and the exit code.
  int say_outcome(Context& ctx, const workflow::LogsOutcome& oc) const;
  std::optional<std::int64_t> since_secs;
  std::vector<std::string> parsed_types;  ///< --replica, lower case
  std::vector<int> parsed_indices;        ///< --index
  std::vector<std::regex> include_re, exclude_re, highlight_re;
};

int LogsCommand::run(Context& ctx) const {
  Printer pr(ctx.out, ctx.err);
  configure(pr, ctx);

  auto& client = ctx.tfjobs();
  const std::string ns = client.namespace_();
  std::unique_ptr<workflow::LogSaver> saver;
  if (!save.empty()) saver = std::make_unique<workflow::LogSaver>(save);
  pr.saver = saver.get();

  const workflow::LogsRequest rq = request();
  const workflow::JobLogOptions lo = log_options(pr.json);
  wf::ProgressLine line(!quiet && !pr.json, ctx.err);
  const workflow::LogsOutput out = log_output(ctx, pr, line, rq.many);
  const workflow::LogsOutcome oc = read(client, ns, rq, lo, out);
  line.finish();
  pr.flush();
  return say_outcome(ctx, oc);
}

void LogsCommand::configure(Printer& pr, Context& ctx) const {
  const auto& o = *this;
  pr.include = include_re;
  pr.exclude = exclude_re;
  pr.highlight = highlight_re;
  pr.json = o.output == "json";
  pr.wide = o.output == "wide";
  pr.timestamps = o.timestamps;
  pr.color = use_color(ctx.globals().color, 1);
  pr.following = o.follow;
}

workflow::LogsRequest LogsCommand::request() const {
  const auto& o = *this;
  workflow::LogsRequest rq;
  rq.name = o.name;
  rq.selector = o.selector;
  rq.many = o.all || !parsed_types.empty() || !parsed_indices.empty() || !o.selector.empty() || o.all_containers ||
            o.containers.size() > 1 || o.merge;
  rq.filter.types = parsed_types;
  rq.filter.indices = parsed_indices;
  rq.filter.containers = o.containers;
  rq.filter.all_containers = o.all_containers;
  rq.merge = o.merge;
  rq.max_streams = static_cast<std::size_t>(o.max_log_requests);
  return rq;
}

workflow::JobLogOptions LogsCommand::log_options(bool json) const {
  const auto& o = *this;
  workflow::JobLogOptions lo;
  lo.container = o.containers.empty() ? "tensorflow" : o.containers.front();
  lo.follow = o.follow;
  if (o.tail >= 0) lo.tail_lines = o.tail;
  lo.since_seconds = since_secs;
  lo.since_time = o.since_time;
  lo.timestamps = o.timestamps || json;  // JSON carries each line's time
  lo.previous = o.previous;
  return lo;
}

workflow::LogsOutput LogsCommand::log_output(Context& ctx, Printer& pr, wf::ProgressLine& line, bool many) const {
  // the callbacks run during read (after this returns): they hold this command, the printer,
  // the progress line and the context, which run keeps alive until then
  const bool filtered = pr.json || !pr.include.empty() || !pr.exclude.empty() || !pr.highlight.empty();
  workflow::LogsOutput out;
  out.record = [&pr, &line](const workflow::LogRecord& r) {
    line.finish();
    pr.record(r);
  };
  out.event = [this, &pr, &line](const workflow::LogEvent& e) {
    line.finish();
    pr.event(e, quiet);
  };
  out.note = [this, &ctx, &pr, &line](const std::string& n) {
    if (quiet) return;
    line.finish();
    pr.flush();
    ctx.err << n << "\n";
  };
  out.flush = [&pr] { pr.flush(); };
  // how to print, once the streams are known: prefixes when there are several; the bytes
  // as they come (a progress bar shows as drawn) when nothing needs whole lines
  out.prepare = [this, &pr, &line, filtered, many](std::size_t streams, std::size_t jobs, workflow::LogsOutput& w,
                                                   workflow::JobLogOptions& x) {
    bool plain = false;
    if (many) {
      pr.prefixed = streams > 1 || prefix || all;
      pr.job_in_prefix = jobs > 1;
      pr.container_in_prefix = all_containers || containers.size() > 1;
      plain = !pr.prefixed && !filtered && !merge;
      x.eager = plain;
    } else {
      pr.prefixed = prefix;
      if (follow && !quiet && !pr.json) x.on_progress = [&line](const workflow::Progress& p) { line.show(p); };
      plain = !filtered && !prefix;
      x.eager = plain;
    }
    if (plain) w.bytes = [&pr](const workflow::LogSource& s, std::string_view b) { pr.bytes(s, b); };
  };
  return out;
}

workflow::LogsOutcome LogsCommand::read(kube::Client& client, const std::string& ns, const workflow::LogsRequest& rq,
                                        const workflow::JobLogOptions& lo, const workflow::LogsOutput& out) const {
  try {
    return workflow::read_logs(client, ns, rq, lo, out);
  } catch (const tfjob::error& e) {
    // the SDK's reason, worded with this command's flags
    std::string m = e.what();
    if (m.find("has no container") != std::string::npos) m += " (choose one with -c, or --all-containers)";
    if (m.find("Follow the logs") != std::string::npos || m.find("follow the logs") != std::string::npos) m += " (-f)";
    throw tfjob::error(m);
  }
}

int LogsCommand::say_outcome(Context& ctx, const workflow::LogsOutcome& oc) const {
  using R = workflow::LogsOutcome::Result;
  const std::string& ns = ctx.namespace_();
  switch (oc.result) {
    case R::not_found: return say_not_found(ctx, name);
    case R::no_match: throw tfjob::error("no TFJobs in namespace \"" + ns + "\" match the selector \"" + selector + "\"");
    case R::no_streams:
      throw tfjob::error("TFJob \"" + oc.job_name + "\" has no " + (oc.any_pods ? "pods that match" : "pods") +
                         (oc.any_pods ? std::string("") : (oc.finished ? " left (see runPolicy.cleanPodPolicy)" : " yet: use -f to wait for them")));
    case R::too_many_streams:
      // kubectl logs (pkg/cmd/logs/logs.go): "you are attempting to follow %d log streams,
      // but maximum allowed concurrency is %d, use --max-log-requests to increase the limit"
      throw flag::usage("--max-log-requests", "you are attempting to follow " + std::to_string(oc.streams) +
                                                  " log streams, but maximum allowed concurrency is " +
                                                  std::to_string(max_log_requests),
                        "use --max-log-requests to increase the limit");
    case R::done: break;
  }
  for (const auto& e : oc.errors) ctx.err << "error: " << e << "\n";
  if (!oc.errors.empty()) return exit_code::failure;
  if (oc.jobs > 1) return exit_code::ok;
  const auto& res = oc.end;
  if (res.job_state == "Failed") {
    std::string msg = "TFJob " + oc.job_name + " Failed";
    if (!res.failed_pod.empty()) {
      msg += ": pod " + res.failed_pod;
      if (res.failed_exit_code) msg += " exited with code " + std::to_string(*res.failed_exit_code);
      else msg += " failed";
    }
    if (!res.job_message.empty()) msg += " (" + res.job_message + ")";
    ctx.err << msg << "\n";
    return exit_code::failure;
  }
  if (follow && res.job_state == "Succeeded" && !quiet) ctx.err << "TFJob " << oc.job_name << " Succeeded\n";
  return exit_code::ok;
}

}  // namespace

void setup_logs(CLI::App& app, Globals& g) {
  auto o = std::make_shared<LogsCommand>();
  auto* sub = app.add_subcommand("logs", "Print or follow a TFJob's logs (the chief's by default, or any replicas)");
  o->sub = sub;
  flag::text(*sub, "name", o->name, "TFJob name (or -l)", "NAME");
  flag::text(*sub, "-l,--selector", o->selector, "Label selector: the logs of every TFJob it matches (prefixed job/replica)", "SELECTOR");
  flag::text(*sub, "-c,--container", o->containers, "Container(s) (default: tensorflow); repeat for several", "NAME");
  flag::boolean(*sub, "--all-containers", o->all_containers, "Every container of each replica, init containers and sidecars included");
  flag::composite(*sub, "--replica", o->replicas, "Replica type(s): Chief, Master, PS, Worker, Evaluator (TYPE[,TYPE])",
                  "a replica type: Chief, Master, PS, Worker or Evaluator", "Worker", {"Boss", "Workers2"},
                  [](const std::string& t) {
                    if (!tfjob::canonical_replica_type(t)) throw tfjob::error("unknown replica type \"" + t + "\"");
                  })
      ->delimiter(',');
  flag::composite(*sub, "--index", o->indices, "Replica index(es): N, N,M or A-B (with --replica, or of every type)", "N, N,M or A-B",
                  "0,2-3", {"a", "3-1", "-1", "99999999999", "0-2000000000"}, [](const std::string& v) { parse_indices({v}); });
  flag::boolean(*sub, "--all", o->all, "Every replica, in order (chief, master, workers, PS, evaluator), prefixed [chief-0]");
  flag::boolean(*sub, "-f,--follow", o->follow,
                "Follow: wait while pods are Pending (progress on stderr), follow restarts, end when the job finishes");
  flag::boolean(*sub, "--merge", o->merge, "One timeline of the replicas, ordered by the kubelet's timestamps (also with -f)");
  flag::count(*sub, "--tail", o->tail, "Lines of recent log to show (-1 = all)", -1, std::numeric_limits<std::int64_t>::max())
      ->capture_default_str();
  flag::duration(*sub, "--since", o->since, "Only lines newer than this, e.g. 10s, 5m, 1h (a unit is required)", false);
  flag::composite(*sub, "--since-time", o->since_time, "Only lines at or after this RFC 3339 time", "an RFC 3339 time, e.g. 2026-01-02T15:04:05Z",
                  "2026-01-02T15:04:05Z", {"yesterday", "2026-13-45"}, [](const std::string& v) {
                    std::int64_t s = 0, n = 0;
                    if (!tfjob::kube::detail::parse_rfc3339(v, s, n)) throw tfjob::error("\"" + v + "\" is not an RFC 3339 time");
                  });
  flag::boolean(*sub, "--timestamps", o->timestamps, "Prefix each line with its RFC 3339 timestamp");
  flag::boolean(*sub, "-p,--previous", o->previous, "The previous (crashed) instance of the container");
  flag::boolean(*sub, "--prefix", o->prefix, "Prefix each line with its replica even when there is one");
  auto regex = [](const char* which) {
    return [which](const std::string& v) { compile({v}, which); };
  };
  flag::composite(*sub, "--include", o->include, "Only lines matching this regular expression (repeatable)", "a regular expression",
                  "error", {"("}, regex("--include"));
  flag::composite(*sub, "--exclude", o->exclude, "No lines matching this regular expression (repeatable)", "a regular expression",
                  "debug", {"[a-"}, regex("--exclude"));
  flag::composite(*sub, "--highlight", o->highlight, "Colour what matches this regular expression (repeatable)", "a regular expression",
                  "loss", {"*x"}, regex("--highlight"));
  flag::count(*sub, "--max-log-requests", o->max_log_requests, "Most streams followed at once (as kubectl logs)", 1)->capture_default_str();
  flag::choice(*sub, "-o,--output", o->output, "json: one object per line (see docs/logs.md); wide: the pod in the prefix", {"json", "wide"});
  flag::text(*sub, "--save", o->save, "Also write every stream's log to this directory as it comes (<pod>.<container>.log, events.log)", "DIR");
  flag::boolean(*sub, "-q,--quiet", o->quiet, "No progress or notes on stderr");
  sub->footer(R"(Examples:
  kubectl tfjob logs mnist                       # the chief's log, byte for byte
  kubectl tfjob logs mnist -f                    # wait for it, follow it to the end of the job
  kubectl tfjob logs mnist --replica Worker --index 1 --tail 50
  kubectl tfjob logs mnist --all -f              # every replica, in order, coloured prefixes
  kubectl tfjob logs mnist --all -f --merge      # one timeline by timestamp
  kubectl tfjob logs mnist --all -o json | jq -r 'select(.replicaType=="worker") | .line'
  kubectl tfjob logs mnist --all -f --save ./logs  # keep every replica's log
  kubectl tfjob logs mnist --previous            # the crashed attempt before a restart

The chief is the pod labelled training.kubeflow.org/job-role=master, else replica type
Chief or Master, else Worker 0, else the same through older operators' labels. For a job
that Failed, logs shows the failed pod's output and names the pod and its exit code.

Exit codes: 0 done (the job Succeeded or is still running), 1 the job Failed (its failed
pod and exit code are printed on stderr) or the logs could not be read, 64 usage error.
The table for every command: kubectl tfjob --help.)");
  set_action(*sub, g, o);
}

}  // namespace tfjob::cli
