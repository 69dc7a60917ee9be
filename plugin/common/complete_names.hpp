#pragma once
/// \file Names from the cluster and the kubeconfig for shell completion. Completion must
/// never fail loudly: any error (no kubeconfig, no server, 403) yields no candidates.

#include "command.hpp"
#include "kube.hpp"
#include "samples.hpp"

#include <tfjob/detail/json.hpp>
#include <tfjob/kube/config.hpp>
#include <tfjob/serving/kserve.hpp>
#include <tfjob/serving/serving.hpp>
#include <tfjob/workflow/cluster.hpp>

#include <ostream>
#include <string>
#include <vector>

namespace tfjob::cli {

/// Whether a name from the cluster or the kubeconfig may be offered: the shells quote what
/// they insert (completion.cpp), but a candidate is one line of cobra's protocol, so a control
/// character (a newline would make two) or a leading ':' (a directive line) cannot be carried,
/// and a leading '-' would be read back as a flag. Such names are not offered (a real API
/// server refuses them; a hostile one may send them).
inline bool offerable(const std::string& name) {
  if (name.empty() || name[0] == '-' || name[0] == ':') return false;
  for (unsigned char c : name)
    if (c < 0x20 || c == 0x7f) return false;
  return true;
}

/// A client for completion: the flags' connection, in `ns` ("" = the context's namespace), and
/// a short request timeout (a shell waits for the answer).
inline tfjob::kube::Client completion_client(const Globals& g, const std::string& ns, std::ostream& err) {
  Globals quick = g;
  quick.conn.request_timeout = "5s";
  if (!ns.empty()) quick.conn.namespace_ = ns;
  return tfjob::kube::Client(make_rest_config(quick, err));
}

/// Names of `resource` ("tfjobs" or "namespaces") in `ns` ("" = the context's namespace);
/// the client's warnings (credentials withheld over http://) go to `err`.
inline std::vector<std::string> complete_names(const Globals& g, const std::string& resource, const std::string& ns,
                                               std::ostream& err) {
  std::vector<std::string> out;
  try {
    tfjob::kube::Client client = completion_client(g, ns, err);
    auto res = resource == "namespaces" ? workflow::resources::namespaces() : workflow::resources::tfjobs();
    kube::list_pages(client, kube::RequestBuilder(res, resource == "namespaces" ? "" : client.namespace_()), {},
                     [&](kube::ListPage& page) {
                       for (const auto& o : page.items)
                         if (auto n = metadata_of(o).name; offerable(n))
                           out.push_back(n);
                       return true;
                     });
  } catch (const std::exception&) {
  }
  return out;
}

/// Names of the model servers `serve` created in `ns` ("" = the context's namespace).
inline std::vector<std::string> complete_servers(const Globals& g, const std::string& ns, std::ostream& err) {
  std::vector<std::string> out;
  try {
    tfjob::kube::Client client = completion_client(g, ns, err);
    for (const auto& [sns, s] : serving::list_servers(client, client.namespace_()))
      if (offerable(s.name)) out.push_back(s.name);
    if (serving::kserve::served_or_hidden(client))  // serve --kserve's InferenceServices
      for (const auto& [sns, s] : serving::kserve::list(client, client.namespace_()))
        if (offerable(s.name)) out.push_back(s.name);
  } catch (const std::exception&) {
  }
  return out;
}

/// Context names of the kubeconfig the flags select.
inline std::vector<std::string> complete_contexts(const Globals& g) {
  std::vector<std::string> out;
  try {
    auto kc = tfjob::kube::LoadingRules::from_environment(g.conn.kubeconfig).load();
    for (const auto& [name, ctx] : kc.contexts)
      if (offerable(name)) out.push_back(name);
  } catch (const std::exception&) {
  }
  return out;
}

/// Built-in sample names (`submit <sample>`).
inline std::vector<std::string> complete_samples() {
  std::vector<std::string> out;
  for (const auto& s : samples_sorted()) out.emplace_back(s.name);
  return out;
}

}  // namespace tfjob::cli
