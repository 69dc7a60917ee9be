// kubectl-tfjob __complete ARGS... PARTIAL: the hidden completion back end (cobra's
// protocol, which kubectl's plugin completion speaks): one candidate per line, optionally
// "value<TAB>description", then ":<directive>" (1 error, 2 no space, 4 no file completion).
// It walks the registered subcommands and their flags, and asks the cluster for job and
// namespace names where a command takes them.
#include "../common/command.hpp"
#include "../common/complete_names.hpp"

#include <iostream>
#include <memory>
#include <set>
#include <string>
#include <vector>

namespace tfjob::cli {
namespace {

constexpr int directive_default = 0;
constexpr int directive_no_file = 4;

struct Candidate {
  std::string value, description;
};

bool takes_jobs(const std::string& cmd) {
  static const std::set<std::string> s = {"get", "list", "describe", "logs", "wait", "delete",
                                          "exec", "attach", "port-forward", "suspend", "resume", "scale"};
  return s.count(cmd) > 0;
}

/// Options of `app` and, through fallthrough, of its parents (the connection flags).
std::vector<const CLI::Option*> options_of(const CLI::App* app) {
  std::vector<const CLI::Option*> out;
  for (const CLI::App* a = app; a; a = a->get_parent()) {
    for (const CLI::Option* o : a->get_options()) out.push_back(o);
  }
  return out;
}

const CLI::Option* find_option(const CLI::App* app, const std::string& word) {
  std::string w = word;
  if (auto eq = w.find('='); eq != std::string::npos) w = w.substr(0, eq);
  for (const CLI::Option* o : options_of(app)) {
    if (w.rfind("--", 0) == 0) {
      for (const auto& l : o->get_lnames()) if ("--" + l == w) return o;
    } else if (w.size() == 2 && w[0] == '-') {
      for (const auto& s : o->get_snames()) if ("-" + s == w) return o;
    }
  }
  return nullptr;
}

bool takes_value(const CLI::Option* o) { return o && o->get_type_size_max() > 0 && o->get_expected_min() > 0; }

std::vector<Candidate> values_for(const CLI::Option* o, const Globals& g, const std::string& ns, int& directive) {
  std::string name = o->get_lnames().empty() ? "" : o->get_lnames().front();
  directive = directive_no_file;
  if (name == "output") return {{"json", ""}, {"yaml", ""}, {"name", ""}, {"wide", ""}};
  if (name == "color") return {{"auto", ""}, {"always", ""}, {"never", ""}};
  if (name == "cascade") return {{"background", ""}, {"foreground", ""}, {"orphan", ""}};
  if (name == "replica") return {{"Chief", ""}, {"Master", ""}, {"PS", ""}, {"Worker", ""}, {"Evaluator", ""}};
  if (name == "for")
    return {{"condition=Succeeded", ""}, {"condition=Failed", ""}, {"condition=Running", ""},
            {"condition=Created", ""}, {"condition=Restarting", ""}, {"condition=Suspended", ""}, {"delete", ""}};
  if (name == "wait") return {{"true", ""}, {"false", ""}};
  if (name == "dry-run") return {{"client", ""}, {"server", ""}, {"none", ""}};
  if (name == "namespace") {
    std::vector<Candidate> out;
    for (auto& n : complete_names(g, "namespaces", "")) out.push_back({n, ""});
    return out;
  }
  if (name == "context") {
    std::vector<Candidate> out;
    for (auto& n : complete_contexts(g)) out.push_back({n, ""});
    return out;
  }
  (void)ns;
  directive = directive_default;  // files (-f, --kubeconfig, certificates) and free text
  return {};
}

int run_complete(const CLI::App* root, Globals& g, std::vector<std::string> words) {
  std::string partial;
  if (!words.empty()) {
    partial = words.back();
    words.pop_back();
  }
  const CLI::App* cmd = root;
  std::string cmd_name;
  std::string sub_name;  ///< a subcommand's own subcommand (serve list|delete)
  std::string ns = g.conn.namespace_;
  int positionals = 0;
  const CLI::Option* pending_value = nullptr;
  for (size_t i = 0; i < words.size(); ++i) {
    const std::string& w = words[i];
    if (pending_value) {
      auto ln = pending_value->get_lnames();
      if (!ln.empty() && ln.front() == "namespace") ns = w;
      if (!ln.empty() && ln.front() == "kubeconfig") g.conn.kubeconfig = w;
      if (!ln.empty() && ln.front() == "context") g.conn.context = w;
      pending_value = nullptr;
      continue;
    }
    if (w.size() > 1 && w[0] == '-') {
      const CLI::Option* o = find_option(cmd, w);
      if (o && w.find('=') != std::string::npos) {
        std::string v = w.substr(w.find('=') + 1);
        auto ln = o->get_lnames();
        if (!ln.empty() && ln.front() == "namespace") ns = v;
        if (!ln.empty() && ln.front() == "kubeconfig") g.conn.kubeconfig = v;
        if (!ln.empty() && ln.front() == "context") g.conn.context = v;
      } else if (takes_value(o)) {
        pending_value = o;
      }
      continue;
    }
    if (cmd == root) {
      for (const CLI::App* s : root->get_subcommands([](const CLI::App*) { return true; })) {
        if (s->check_name(w)) { cmd = s; cmd_name = s->get_name(); break; }
      }
      continue;
    }
    if (positionals == 0 && sub_name.empty()) {
      bool nested = false;
      for (const CLI::App* s : cmd->get_subcommands([](const CLI::App*) { return true; }))
        if (s->check_name(w)) { cmd = s; sub_name = s->get_name(); nested = true; break; }
      if (nested) continue;
    }
    ++positionals;
  }

  std::vector<Candidate> out;
  int directive = directive_no_file;
  std::string prefix;  // `--for=<TAB>`: the values, each as the whole word (cobra's flag=value form)
  if (!pending_value && partial.size() > 1 && partial[0] == '-' && partial.find('=') != std::string::npos) {
    if (const CLI::Option* o = find_option(cmd, partial); o && takes_value(o)) {
      prefix = partial.substr(0, partial.find('=') + 1);
      out = values_for(o, g, ns, directive);
      for (auto& c : out) c.value = prefix + c.value;
    }
  }
  if (!prefix.empty()) {
    // done above
  } else if (pending_value) {
    out = values_for(pending_value, g, ns, directive);
  } else if (!partial.empty() && partial[0] == '-') {
    std::set<std::string> seen;
    for (const CLI::Option* o : options_of(cmd)) {
      for (const auto& l : o->get_lnames())
        if (seen.insert("--" + l).second) out.push_back({"--" + l, o->get_description()});
      for (const auto& s : o->get_snames())
        if (seen.insert("-" + s).second) out.push_back({"-" + s, o->get_description()});
    }
  } else if (cmd == root) {
    for (const CLI::App* s : root->get_subcommands([](const CLI::App*) { return true; })) {
      if (s->get_group().empty() || s->get_name().rfind("__", 0) == 0) continue;  // hidden
      out.push_back({s->get_name(), s->get_description()});
    }
  } else if (cmd_name == "serve" && sub_name.empty() && positionals == 0) {
    // a new server's name is free text; the subcommands are offered
    for (const CLI::App* s : cmd->get_subcommands([](const CLI::App*) { return true; }))
      out.push_back({s->get_name(), s->get_description()});
  } else if (((cmd_name == "serve" && (sub_name == "delete" || sub_name == "status" || sub_name == "label")) || cmd_name == "models" || cmd_name == "predict") && positionals == 0) {
    for (auto& n : complete_servers(g, ns)) out.push_back({n, "model server"});
  } else if (cmd_name == "serve") {
    directive = directive_no_file;
  } else if (cmd_name == "completion") {
    if (positionals == 0) out = {{"bash", ""}, {"zsh", ""}, {"fish", ""}};
  } else if (takes_jobs(cmd_name)) {
    static const std::set<std::string> one_job = {"logs", "exec", "attach", "port-forward"};
    if (!one_job.count(cmd_name) || positionals == 0) {
      for (auto& n : complete_names(g, "tfjobs", ns)) out.push_back({n, "TFJob"});
    }
  } else if (cmd_name == "submit" && positionals == 0) {
    for (auto& n : complete_samples()) out.push_back({n, "built-in sample"});
  } else {
    directive = directive_default;
  }
  for (const auto& c : out) {
    if (c.value.rfind(partial, 0) != 0) continue;
    std::cout << c.value;
    if (!c.description.empty()) std::cout << '\t' << c.description;
    std::cout << '\n';
  }
  std::cout << ':' << directive << '\n';
  return exit_code::ok;
}

void setup_complete(CLI::App& app, Globals& g) {
  auto* sub = app.add_subcommand("__complete", "Shell completion back end");
  sub->group("");  // hidden from --help
  sub->fallthrough(false);  // every word is ours, connection flags included
  sub->prefix_command();
  sub->allow_extras();
  const CLI::App* root = &app;
  sub->callback([sub, root, &g] {
    auto words = std::make_shared<std::vector<std::string>>(sub->remaining());
    g.run = [root, &g, words] { return run_complete(root, g, *words); };
  });
}

}  // namespace
TFJOB_REGISTER_COMMAND("__complete", 1000, setup_complete);
}  // namespace tfjob::cli
