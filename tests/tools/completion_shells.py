#!/usr/bin/env python3
"""Presses TAB in a real interactive bash, zsh or fish (in a pseudo-terminal) with a
completion script loaded, and reports what each TAB put on the command line and what that
line's words are when the shell reads it back (as it would on Enter).

    completion_shells.py SHELL SCRIPT WORKDIR CASES.json

SHELL is bash, zsh or fish; SCRIPT the completion script to source; WORKDIR the shell's
current directory (a test looks there for files a candidate must not have made). CASES is a
JSON list of {"typed": "kubectl-tfjob get ", "candidates": ["..."]}: before each case the
candidates are written, one a line, to the file named by $TFJOB_TEST_CANDIDATES (which a
stand-in kubectl-tfjob on PATH may print), then "typed" and a TAB are sent. The rest of the
environment (PATH, KUBECONFIG...) is passed on as it is.

Prints a JSON list: for each case {"typed", "line", "words"}, "line" being the command line
after the TAB ("" when it was not read back in time) and "words" its words as the same shell
reads them (null when it could not read them). Exit status 0 when every case was read back,
1 otherwise, 2 on a usage error.
"""
import json
import os
import pty
import select
import signal
import subprocess
import sys
import tempfile
import time

SHELLS = {
    # argv, the line that loads the script and binds Ctrl-X to "write the command line to $1"
    "bash": (["bash", "--norc", "--noprofile", "-i"],
             "source {script}; bind -x '\"\\C-x\": printf \"%s\" \"$READLINE_LINE\" > {dump}'"),
    "zsh": (["zsh", "-f", "-i"],
            "autoload -U compinit; compinit -u -D; source {script}; "
            "_tfjob_dump() {{ print -rn -- \"$BUFFER\" > {dump}; }}; zle -N _tfjob_dump; bindkey '^X' _tfjob_dump; "
            "zstyle ':completion:*' menu no; unsetopt beep"),
    "fish": (["fish", "--no-config", "-i"],
             "source {script}; function _tfjob_dump; commandline | string collect > {dump}; end; "
             "bind \\cx _tfjob_dump"),
}

# How each shell splits a line into words, as on Enter (prints them NUL-terminated).
READ_BACK = {
    "bash": ["bash", "--norc", "--noprofile", "-c", 'eval "set -- $1"; printf "%s\\0" "$@"', "_"],
    "zsh": ["zsh", "-f", "-c", 'eval "a=( $1 )"; printf "%s\\0" "${a[@]}"', "_"],
    "fish": ["fish", "--no-config", "-c", 'eval "printf \'%s\\0\' $argv[1]"'],
}


class Pty:
    def __init__(self, argv, cwd, env):
        self.pid, self.fd = pty.fork()
        if self.pid == 0:
            os.chdir(cwd)
            os.execvpe(argv[0], argv, env)

    def send(self, data):
        os.write(self.fd, data.encode())

    def drain(self, seconds):
        end = time.time() + seconds
        while time.time() < end:
            r, _, _ = select.select([self.fd], [], [], 0.05)
            if r:
                try:
                    os.read(self.fd, 65536)
                except OSError:
                    return

    def close(self):
        try:
            os.kill(self.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        os.waitpid(self.pid, 0)
        os.close(self.fd)


def wait_file(path, seconds):
    end = time.time() + seconds
    while time.time() < end:
        if os.path.exists(path):
            time.sleep(0.1)  # the shell may still be writing
            with open(path, encoding="utf-8", errors="surrogateescape") as f:
                return f.read()
        time.sleep(0.05)
    return None


def main():
    if len(sys.argv) != 5 or sys.argv[1] not in SHELLS:
        print(__doc__, file=sys.stderr)
        return 2
    shell, script, workdir, cases_file = sys.argv[1:]
    with open(cases_file, encoding="utf-8") as f:
        cases = json.load(f)
    env = dict(os.environ)
    tmp = tempfile.mkdtemp(prefix="tfjob-completion-")
    env.update({"HOME": tmp, "TERM": "dumb", "INPUTRC": "/dev/null", "HISTFILE": "/dev/null"})
    cands = env.setdefault("TFJOB_TEST_CANDIDATES", os.path.join(tmp, "candidates"))
    dump = os.path.join(tmp, "line")
    argv, setup = SHELLS[shell]
    sh = Pty(argv, workdir, env)
    results, ok = [], True
    try:
        sh.drain(1.0)
        sh.send(setup.format(script=script, dump=dump) + "\r")
        sh.drain(1.0)
        for case in cases:
            with open(cands, "w", encoding="utf-8", errors="surrogateescape") as f:
                f.write("".join(c + "\n" for c in case.get("candidates", [])))
            if os.path.exists(dump):
                os.unlink(dump)
            # the TAB's completion runs before the shell reads the Ctrl-X after it
            sh.send(case["typed"] + "\t")
            sh.drain(0.1)
            sh.send("\x18")  # Ctrl-X: write the command line to the dump file
            line = wait_file(dump, 15)
            sh.send("\x15")  # Ctrl-U: clear the line for the next case
            sh.drain(0.05)
            words = None
            if line is None:
                ok = False
                line = ""
            else:
                r = subprocess.run(READ_BACK[shell] + [line], cwd=workdir, env=env, capture_output=True, timeout=30)
                if r.returncode == 0:
                    words = r.stdout.decode("utf-8", "surrogateescape").split("\0")[:-1]
            results.append({"typed": case["typed"], "line": line, "words": words})
    finally:
        sh.close()
    json.dump(results, sys.stdout)
    print()
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
