#!/usr/bin/env bash
# Measure the `jitlint` pre-commit hook as users get it: real pre-commit, a fresh hook
# environment, a one-file repository with one bug. Prints the environment's size and the
# first (install + run) and second (run only) wall times. Usage: benchmarks/precommit_hook.sh
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
python3 -m venv "$work/pc" && "$work/pc/bin/pip" install -q pre-commit
mkdir "$work/demo" && cd "$work/demo" && git init -q
printf 'import jax\n\n\n@jax.jit\ndef relu(x):\n    if x > 0:\n        return x\n    return 0.0\n' > model.py
printf 'repos:\n  - repo: %s\n    rev: %s\n    hooks:\n      - id: jitlint\n' \
    "$here" "$(git -C "$here" rev-parse HEAD)" > .pre-commit-config.yaml
git add -A && git -c user.email=bench@example.com -c user.name=bench commit -qm demo
export PRE_COMMIT_HOME="$work/home"
run() {
    local start end rc
    start=$(date +%s.%N)
    set +e
    "$work/pc/bin/pre-commit" run --all-files > "$work/out.txt" 2>&1
    rc=$?
    set -e
    end=$(date +%s.%N)
    echo "$1: exit $rc, $(echo "$end - $start" | bc) s"
}
run "first run (installs the hook)"
run "second run"
grep -q JIT101 "$work/out.txt" && echo "the hook reported the JIT101 bug"
echo "hook environment: $(du -sm "$PRE_COMMIT_HOME"/repo*/py_env-* | cut -f1) MB"
