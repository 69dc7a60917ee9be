#pragma once
/// \file The bodies of <tfjob/workflow/logs/save.hpp>: that header includes this file at its end, in its
/// `#if TFJOB_SDK_DEFINE_WORKFLOW` section (detail/compiled.hpp says when that is compiled).
/// Include <tfjob/workflow/logs/save.hpp>, never this file.

namespace tfjob::workflow {

TFJOB_INLINE LogSaver::LogSaver(std::string dir) : dir_(std::move(dir)), folder_([this] {
  try {
    return tfjob::detail::Folder(dir_);
  } catch (const std::exception& e) {
    throw tfjob::error("cannot save logs in \"" + dir_ + "\": " + e.what());
  }
}()) {
  flusher_ = std::make_unique<kube::SideTask>(std::chrono::milliseconds(100), [this](const std::atomic<bool>&) {
    flush();
    return true;
  }, false);
}

TFJOB_INLINE LogSaver::~LogSaver() {
  flusher_.reset();
  flush();
}

TFJOB_INLINE void LogSaver::record(const LogRecord& r) {
  std::lock_guard<std::mutex> lk(mu_);
  auto& f = file(file_name(*r.source));
  f.write(r.piece.text);
  if (r.piece.last && r.piece.terminated) f.write("\n");
}

TFJOB_INLINE void LogSaver::bytes(const LogSource& s, std::string_view b) {
  std::lock_guard<std::mutex> lk(mu_);
  file(file_name(s)).write(b);
}

TFJOB_INLINE void LogSaver::event(const LogEvent& e) {
  std::lock_guard<std::mutex> lk(mu_);
  file("events.log").write(detail_now_rfc3339() + " " + to_string(e.kind) + " " + e.source.pod + " " + e.source.container +
                          ": " + e.message + "\n");
  flush_locked();
}

TFJOB_INLINE void LogSaver::flush() {
  std::lock_guard<std::mutex> lk(mu_);
  flush_locked();
}

TFJOB_INLINE std::string LogSaver::detail_now_rfc3339() { return kube::detail::format_rfc3339(std::time(nullptr)); }

/// `<pod>.<container>.log`, each name one path part (a container name has no '.', so two
/// streams never share a file).
TFJOB_INLINE std::string LogSaver::file_name(const LogSource& s) {
  return tfjob::detail::path_part(s.pod) + "." + tfjob::detail::path_part(s.container) + ".log";
}

TFJOB_INLINE tfjob::detail::OutFile& LogSaver::file(const std::string& name) {
  auto it = files_.find(name);
  if (it != files_.end()) return it->second;
  return files_.emplace(name, folder_.append(name)).first->second;
}

TFJOB_INLINE void LogSaver::flush_locked() {
  for (auto& [n, f] : files_) f.flush();
  last_flush_ = std::chrono::steady_clock::now();
}

TFJOB_INLINE JobLogsResult save_job_logs(kube::Client c, const std::string& ns, const std::string& job, LogSaver& saver,
                                         const std::atomic<bool>* cancel) {
  auto obj = get_tfjob(c, ns, job);
  if (!obj) throw tfjob::no_such_job(ns, job);
  LogTargetFilter f;
  f.all_containers = true;
  auto targets = log_targets(*obj, {}, f, true);
  JobLogOptions o;
  o.follow = true;
  o.cancel = cancel;
  o.on_event = [&](const LogEvent& e) { saver.event(e); };
  auto r = job_logs(c, ns, targets, o, {}, [&](const LogRecord& rec) {
    saver.record(rec);
    return true;
  });
  saver.flush();
  return r;
}

TFJOB_INLINE LogSaveTask::LogSaveTask(kube::Client c, std::string ns, std::string job, const std::string& dir) : saver_(dir) {
  task_ = std::make_unique<kube::SideTask>([this, c, ns = std::move(ns), job = std::move(job)](const std::atomic<bool>&) mutable {
    try {
      result_ = save_job_logs(c, ns, job, saver_, &cancel_);
    } catch (const std::exception& e) {
      error_ = e.what();
    }
    return false;
  });
}

TFJOB_INLINE LogSaveTask::~LogSaveTask() { finish(false); }

TFJOB_INLINE std::string LogSaveTask::finish(bool drain) {
  if (!drain) cancel_ = true;
  if (task_) task_->stop();  // its token is not the streams' cancel: a drain runs to the job's end
  saver_.flush();
  std::string e = error_;
  for (const auto& x : result_.errors)
    if (!x.empty() && e.empty()) e = x;
  return e;
}

}  // namespace tfjob::workflow
