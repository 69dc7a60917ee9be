#pragma once
/// \file The bodies of <tfjob/workflow/logs/record.hpp>: that header includes this file at its end, in its
/// `#if TFJOB_SDK_DEFINE_WORKFLOW` section (detail/compiled.hpp says when that is compiled).
/// Include <tfjob/workflow/logs/record.hpp>, never this file.

namespace tfjob::workflow {

TFJOB_INLINE const char* to_string(LogEvent::Kind k) {
  switch (k) {
    case LogEvent::started: return "started";
    case LogEvent::terminated: return "terminated";
    case LogEvent::restarted: return "restarted";
    case LogEvent::recreated: return "recreated";
    case LogEvent::deleted: return "deleted";
  }
  return "";
}

}  // namespace tfjob::workflow
