// kubectl-tfjob __complete ARGS... PARTIAL: the hidden completion back end (cobra's
// protocol, which kubectl's plugin completion speaks): one candidate per line, optionally
// "value<TAB>description", then ":<directive>" (1 error, 2 no space, 4 no file completion).
// It walks the registered subcommands and their flags, and asks the cluster for job and
// namespace names where a command takes them.
#include "commands.hpp"
#include "../common/context.hpp"
#include "../common/complete_names.hpp"
#include "../common/flag_values.hpp"

#include <ostream>
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

std::vector<Candidate> values_for(const CLI::Option* o, const Globals& g, std::ostream& err, int& directive) {
  std::string name = o->get_lnames().empty() ? "" : o->get_lnames().front();
  directive = directive_no_file;
  // a flag's values, as the flag layer declares them (each command's own: -o differs)
  if (auto spec = flag::spec_of(*o)) {
    if (spec->kind == flag::Kind::choice) {
      std::vector<Candidate> out;
      for (const auto& c : spec->choices)
        if (!c.empty()) out.push_back({c, ""});
      for (const auto& p : spec->prefixes) out.push_back({p, ""});
      return out;
    }
    if (spec->kind == flag::Kind::boolean) return {{"true", ""}, {"false", ""}};
  }
  if (name == "replica") return {{"Chief", ""}, {"Master", ""}, {"PS", ""}, {"Worker", ""}, {"Evaluator", ""}};
  if (name == "for")
    return {{"condition=Succeeded", ""}, {"condition=Failed", ""}, {"condition=Running", ""},
            {"condition=Created", ""}, {"condition=Restarting", ""}, {"condition=Suspended", ""}, {"delete", ""}};
  if (name == "namespace") {
    std::vector<Candidate> out;
    for (auto& n : complete_names(g, "namespaces", "", err)) out.push_back({n, ""});
    return out;
  }
  if (name == "context") {
    std::vector<Candidate> out;
    for (auto& n : complete_contexts(g)) out.push_back({n, ""});
    return out;
  }
  directive = directive_default;  // files (-f, --kubeconfig, certificates) and free text
  return {};
}

/// Where the words typed so far lead: the (sub)command, its positionals so far, a flag
/// still waiting for its value; the connection flags among them are kept in `g`.
struct Walk {
  const CLI::App* cmd = nullptr;
  std::string cmd_name;
  std::string sub_name;  ///< a subcommand's own subcommand (serve list|delete)
  std::string ns;
  int positionals = 0;
  const CLI::Option* pending_value = nullptr;
};

/// A flag's value that changes where names come from (-n, --kubeconfig, --context).
void note_value(const CLI::Option* o, const std::string& v, Walk& w, Globals& g) {
  auto ln = o->get_lnames();
  if (ln.empty()) return;
  if (ln.front() == "namespace") w.ns = v;
  if (ln.front() == "kubeconfig") g.conn.kubeconfig = v;
  if (ln.front() == "context") g.conn.context = v;
}

Walk walk(const CLI::App* root, const std::vector<std::string>& words, Globals& g) {
  Walk k;
  k.cmd = root;
  k.ns = g.conn.namespace_;
  for (const std::string& w : words) {
    if (k.pending_value) {
      note_value(k.pending_value, w, k, g);
      k.pending_value = nullptr;
      continue;
    }
    if (w.size() > 1 && w[0] == '-') {
      const CLI::Option* o = find_option(k.cmd, w);
      if (o && w.find('=') != std::string::npos) note_value(o, w.substr(w.find('=') + 1), k, g);
      else if (takes_value(o)) k.pending_value = o;
      continue;
    }
    if (k.cmd == root) {
      for (const CLI::App* s : root->get_subcommands([](const CLI::App*) { return true; })) {
        if (s->check_name(w)) { k.cmd = s; k.cmd_name = s->get_name(); break; }
      }
      continue;
    }
    if (k.positionals == 0 && k.sub_name.empty()) {
      bool nested = false;
      for (const CLI::App* s : k.cmd->get_subcommands([](const CLI::App*) { return true; }))
        if (s->check_name(w)) { k.cmd = s; k.sub_name = s->get_name(); nested = true; break; }
      if (nested) continue;
    }
    ++k.positionals;
  }
  return k;
}

/// The flags of the command and its parents, each name once.
std::vector<Candidate> flag_names(const CLI::App* cmd) {
  std::vector<Candidate> out;
  std::set<std::string> seen;
  for (const CLI::Option* o : options_of(cmd)) {
    for (const auto& l : o->get_lnames())
      if (seen.insert("--" + l).second) out.push_back({"--" + l, o->get_description()});
    for (const auto& s : o->get_snames())
      if (seen.insert("-" + s).second) out.push_back({"-" + s, o->get_description()});
  }
  return out;
}

/// Visible subcommands of `cmd` (all of them for a nested command, as serve's).
std::vector<Candidate> subcommands(const CLI::App* cmd, bool visible_only) {
  std::vector<Candidate> out;
  for (const CLI::App* s : cmd->get_subcommands([](const CLI::App*) { return true; })) {
    if (visible_only && (s->get_group().empty() || s->get_name().rfind("__", 0) == 0)) continue;  // hidden
    out.push_back({s->get_name(), s->get_description()});
  }
  return out;
}

/// A command's positional argument: job, server, sample or shell names.
std::vector<Candidate> positional_values(const Walk& k, const Globals& g, std::ostream& err, int& directive) {
  const std::string& c = k.cmd_name;
  std::vector<Candidate> out;
  if (c == "serve" && k.sub_name.empty() && k.positionals == 0) {
    return subcommands(k.cmd, false);  // a new server's name is free text; the subcommands are offered
  } else if (((c == "serve" && (k.sub_name == "delete" || k.sub_name == "status" || k.sub_name == "label")) || c == "models" ||
              c == "predict") && k.positionals == 0) {
    for (auto& n : complete_servers(g, k.ns, err)) out.push_back({n, "model server"});
  } else if (c == "serve") {
    directive = directive_no_file;
  } else if (c == "completion") {
    if (k.positionals == 0) out = {{"bash", ""}, {"zsh", ""}, {"fish", ""}};
  } else if (takes_jobs(c)) {
    static const std::set<std::string> one_job = {"logs", "exec", "attach", "port-forward"};
    if (!one_job.count(c) || k.positionals == 0)
      for (auto& n : complete_names(g, "tfjobs", k.ns, err)) out.push_back({n, "TFJob"});
  } else if (c == "submit" && k.positionals == 0) {
    for (auto& n : complete_samples()) out.push_back({n, "built-in sample"});
  } else {
    directive = directive_default;
  }
  return out;
}

struct CompleteCommand {
  const CLI::App* root = nullptr;
  const CLI::App* self = nullptr;  ///< __complete: what its parse leaves over are the words typed

  void validate() const {}
  int run(Context& ctx) const;
};

int CompleteCommand::run(Context& ctx) const {
  Globals g = ctx.globals();  // the words' --kubeconfig and --context apply to this completion
  std::vector<std::string> typed = self->remaining();  // the partial word last
  std::string partial;
  if (!typed.empty()) {
    partial = typed.back();
    typed.pop_back();
  }
  const Walk k = walk(root, typed, g);
  std::vector<Candidate> out;
  int directive = directive_no_file;
  const bool flag_value = !k.pending_value && partial.size() > 1 && partial[0] == '-' && partial.find('=') != std::string::npos;
  if (flag_value) {
    // `--for=<TAB>`: the values, each as the whole word (cobra's flag=value form)
    if (const CLI::Option* o = find_option(k.cmd, partial); o && takes_value(o)) {
      const std::string prefix = partial.substr(0, partial.find('=') + 1);
      out = values_for(o, g, ctx.err, directive);
      for (auto& c : out) c.value = prefix + c.value;
    }
  } else if (k.pending_value) {
    out = values_for(k.pending_value, g, ctx.err, directive);
  } else if (!partial.empty() && partial[0] == '-') {
    out = flag_names(k.cmd);
  } else if (k.cmd == root) {
    out = subcommands(root, true);
  } else {
    out = positional_values(k, g, ctx.err, directive);
  }
  for (const auto& c : out) {
    if (c.value.rfind(partial, 0) != 0) continue;
    ctx.out << c.value;
    if (!c.description.empty()) ctx.out << '\t' << c.description;
    ctx.out << '\n';
  }
  ctx.out << ':' << directive << '\n';
  return exit_code::ok;
}

}  // namespace

void setup_complete(CLI::App& app, Globals& g) {
  auto* sub = app.add_subcommand("__complete", "Shell completion back end");
  sub->group("");  // hidden from --help
  sub->fallthrough(false);  // every word is ours, connection flags included
  sub->prefix_command();
  sub->allow_extras();
  auto o = std::make_shared<CompleteCommand>();
  o->root = &app;
  o->self = sub;
  set_action(*sub, g, o);
}

}  // namespace tfjob::cli
