// kubectl tfjob completion bash|zsh|fish: shell completion scripts. Each script asks the
// plugin itself (`kubectl-tfjob __complete ...`, see complete.cpp) for candidates, the same
// protocol kubectl's plugin completion (`kubectl_complete-tfjob`, kubectl >= 1.26) uses,
// so `kubectl-tfjob <TAB>` and `kubectl tfjob <TAB>` complete the same way.
#include "commands.hpp"
#include "../common/flag_values.hpp"
#include "../common/context.hpp"

#include <memory>
#include <string>

namespace tfjob::cli {
namespace {

// Directives follow cobra's ShellCompDirective bits: 1 error, 2 no space, 4 no file completion.
constexpr const char* bash_script = R"(# bash completion for kubectl-tfjob (kubectl tfjob)
# Load it:  source <(kubectl tfjob completion bash)
_kubectl_tfjob_complete() {
  local cur="${COMP_WORDS[COMP_CWORD]}"
  local -a args=("${COMP_WORDS[@]:1:COMP_CWORD-1}")
  local out
  out=$(kubectl-tfjob __complete "${args[@]}" "$cur" 2>/dev/null) || return 0
  local directive=0 line cand
  COMPREPLY=()
  while IFS= read -r line; do
    if [[ $line =~ ^:[0-9]+$ ]]; then directive=${line#:}; continue; fi
    cand=${line%%$'\t'*}
    # A candidate is text, never code: matched against the word as typed and quoted for the
    # command line (compgen -W would expand it, $(...) included).
    [[ -n $cand && $cand == "$cur"* ]] || continue
    printf -v cand '%q' "$cand"
    COMPREPLY+=("$cand")
  done <<< "$out"
  (( directive & 1 )) && { COMPREPLY=(); return 0; }
  if (( directive & 4 )); then compopt +o default 2>/dev/null; fi
  if (( directive & 2 )); then compopt -o nospace 2>/dev/null; fi
  return 0
}
complete -o default -F _kubectl_tfjob_complete kubectl-tfjob
)";

constexpr const char* zsh_script = R"(#compdef kubectl-tfjob
# zsh completion for kubectl-tfjob (kubectl tfjob)
# Load it:  source <(kubectl tfjob completion zsh)
_kubectl_tfjob() {
  local -a args cands
  local out line value desc directive=0
  args=("${words[@]:1:$((CURRENT-2))}")
  out=$(kubectl-tfjob __complete "${args[@]}" "${words[CURRENT]}" 2>/dev/null) || return 1
  for line in "${(@f)out}"; do
    if [[ $line =~ '^:[0-9]+$' ]]; then directive=${line#:}; continue; fi
    [[ -n $line ]] || continue
    value=${line%%$'\t'*}
    desc=${line#"$value"}
    desc=${desc#$'\t'}
    # _describe reads VALUE:DESCRIPTION, so a ':' or '\' of the value is escaped; compadd
    # quotes what it inserts: a candidate is offered as text, never run
    value=${value//\\/\\\\}
    value=${value//:/\\:}
    cands+=("$value${desc:+:$desc}")
  done
  (( directive & 1 )) && return 1
  if (( ${#cands} == 0 )) && (( ! (directive & 4) )); then _files; return; fi
  _describe -t tfjob 'kubectl tfjob' cands
}
if [ "$funcstack[1]" = "_kubectl_tfjob" ]; then _kubectl_tfjob "$@"; else compdef _kubectl_tfjob kubectl-tfjob; fi
)";

constexpr const char* fish_script = R"(# fish completion for kubectl-tfjob (kubectl tfjob)
# Load it:  kubectl tfjob completion fish | source
function __kubectl_tfjob_complete
    set -l args (commandline -opc)
    set -e args[1]
    for line in (kubectl-tfjob __complete $args (commandline -ct) 2>/dev/null)
        # a candidate is printed as data (echo would take -n or -e as its own option); fish
        # quotes what it inserts, except a leading '~' (it expands it): such a name is not offered
        string match -q -r -- '^:[0-9]+$' $line; and continue
        string match -q -- '~*' $line; and continue
        test -n "$line"; and printf '%s\n' $line
    end
end
complete -c kubectl-tfjob -f -a '(__kubectl_tfjob_complete)'
)";

struct CompletionCommand {
  std::string shell;  ///< bash, zsh or fish (checked by its option)

  void validate() const {}
  int run(Context& ctx) const {
    ctx.out << (shell == "bash" ? bash_script : shell == "zsh" ? zsh_script : fish_script);
    return exit_code::ok;
  }
};

}  // namespace

void setup_completion(CLI::App& app, Globals& g) {
  auto opts = std::make_shared<CompletionCommand>();
  auto* sub = app.add_subcommand("completion", "Print a shell completion script (bash, zsh or fish)");
  flag::choice(*sub, "shell", opts->shell, "bash, zsh or fish", {"bash", "zsh", "fish"})->required();
  sub->footer(R"(Examples:
  # bash, for this shell; add the line to ~/.bashrc to keep it
  source <(kubectl tfjob completion bash)
  # zsh
  source <(kubectl tfjob completion zsh)
  # fish
  kubectl tfjob completion fish | source

  "kubectl tfjob <TAB>" (kubectl 1.26+) also needs the kubectl_complete-tfjob helper from
  the release archive on your PATH (krew installs it).

Exit codes: 0 printed, 64 usage error.)");
  set_action(*sub, g, opts);
}

}  // namespace tfjob::cli
