#pragma once
/// \file The bodies of <tfjob/workflow/delete.hpp>: that header includes this file at its end, in its
/// `#if TFJOB_SDK_DEFINE_WORKFLOW` section (detail/compiled.hpp says when that is compiled).
/// Include <tfjob/workflow/delete.hpp>, never this file.

namespace tfjob::workflow {

TFJOB_INLINE const char* propagation_policy(Cascade c) {
  switch (c) {
    case Cascade::foreground: return "Foreground";
    case Cascade::orphan: return "Orphan";
    case Cascade::background: break;
  }
  return "Background";
}

TFJOB_INLINE std::vector<std::string> tfjob_names(kube::Client& c, const std::string& ns, const std::string& selector) {
  kube::ListParams lp;
  lp.label_selector = selector;
  std::vector<std::string> names;  // each page decoded into the names it holds
  kube::list_pages(c, kube::RequestBuilder(resources::tfjobs(), ns), lp, [&](kube::ListPage& page) {
    for (const auto& j : page.items) {
      const auto* md = j.is_object() && j.contains("metadata") && j["metadata"].is_object() ? &j["metadata"] : nullptr;
      if (md && md->contains("name") && (*md)["name"].is_string()) names.push_back((*md)["name"].get<std::string>());
    }
    return true;
  });
  return names;
}

TFJOB_INLINE std::string deleted_uid(const nlohmann::json& answer) {
  for (const char* k : {"metadata", "details"}) {
    if (!answer.is_object() || !answer.contains(k) || !answer[k].is_object()) continue;
    const auto& m = answer[k];
    if (m.contains("uid") && m["uid"].is_string()) return m["uid"].get<std::string>();
  }
  return "";
}

TFJOB_INLINE DeleteOutcome delete_tfjob(kube::Client& c, const std::string& ns, const std::string& name, Cascade cascade,
                                        std::optional<int> grace_period_seconds) {
  kube::DeleteParams dp;
  dp.propagation_policy = propagation_policy(cascade);
  dp.grace_period_seconds = grace_period_seconds;
  DeleteOutcome r;
  r.name = name;
  try {
    r.uid = deleted_uid(c.request_json(kube::RequestBuilder(resources::tfjobs(), ns).remove(name, dp)));
  } catch (const api_error& e) {
    r.result = e.is_not_found() ? DeleteOutcome::Result::not_found
               : e.is_forbidden() ? DeleteOutcome::Result::forbidden
                                  : DeleteOutcome::Result::failed;
    r.message = e.is_forbidden() ? e.status().message : e.what();
  }
  return r;
}

TFJOB_INLINE GoneReport wait_tfjob_gone(kube::Client& c, const std::string& ns, const DeleteOutcome& d, Cascade cascade,
                                        std::chrono::milliseconds timeout) {
  GoneReport r;
  r.gone = wait_gone(c, resources::tfjobs(), ns, d.name, timeout, d.uid);
  if (!r.gone) {
    // foregroundDeletion waits for the garbage collector to delete the pods first; other
    // finalizers wait for their controller
    try {
      auto still = get_opt(c, resources::tfjobs(), ns, d.name);
      if (still && still->contains("metadata") && (*still)["metadata"].is_object()) {
        const auto& md = (*still)["metadata"];
        if (md.contains("finalizers") && md["finalizers"].is_array())
          for (const auto& f : md["finalizers"])
            if (f.is_string()) r.finalizers.push_back(f.get<std::string>());
      }
    } catch (const std::exception&) {  // the hint is a courtesy: the timeout is the answer
    }
    return r;
  }
  if (cascade == Cascade::foreground) r.pods_left = job_pods(c, ns, d.name).size();
  return r;
}

}  // namespace tfjob::workflow
