#!/usr/bin/env bash
# Times clean and incremental builds of the calculator example, release and dev profiles, and
# prints them as Markdown on stdout (cargo's output goes to stderr).
#
# It builds a copy of the work tree in /tmp with its own target directory, so neither the
# shared tree nor the shared target directory is touched. The incremental rebuild follows an
# edit of one tool body (`a + b` becomes `b + a` in `add`).
#
# Usage: bench/build-time.sh [release] [dev]     (default: both)
set -euo pipefail
shopt -s inherit_errexit

root="$(cd "$(dirname "$0")/.." && pwd)"
profiles=("$@")
[ ${#profiles[@]} -gt 0 ] || profiles=(release dev)

scratch="$(mktemp -d /tmp/mcp-build-time.XXXXXX)"
trap 'rm -rf "$scratch"' EXIT
# Tracked and untracked files, minus what .gitignore excludes (target/, node_modules, ...).
(cd "$root" && git ls-files -z --cached --others --exclude-standard) |
    (cd "$root" && tar --null -T - -cf -) | (mkdir "$scratch/tree" && tar -C "$scratch/tree" -xf -)
cd "$scratch/tree"

seconds_of() {
    local started ended
    started=$(date +%s.%N)
    "$@" >&2
    ended=$(date +%s.%N)
    awk -v a="$started" -v b="$ended" 'BEGIN { printf "%.1f s", b - a }'
}

# Swaps the operands in the body of `add` (back and forth), failing if there is no such body.
edit_one_tool_body() {
    local before
    before=$(cksum < examples/calculator.rs)
    sed -i 's/^    a + b$/    b + a/; t; s/^    b + a$/    a + b/' examples/calculator.rs
    if [ "$(cksum < examples/calculator.rs)" = "$before" ]; then
        echo "no \`a + b\` tool body to edit in examples/calculator.rs" >&2
        exit 1
    fi
}

rows=()
for profile in "${profiles[@]}"; do
    case "$profile" in
        release) flags=(--release) ;;
        dev) flags=() ;;
        *) echo "unknown profile '$profile' (release or dev)" >&2; exit 2 ;;
    esac
    # One empty target directory per profile: neither build reuses the other's artifacts.
    export CARGO_TARGET_DIR="$scratch/target-$profile"
    build=(cargo build "${flags[@]}" --example calculator)
    elapsed=$(seconds_of "${build[@]}")
    rows+=("| clean \`${build[*]}\` (dependencies included) | $elapsed |")
    edit_one_tool_body
    elapsed=$(seconds_of "${build[@]}")
    rows+=("| the same, after editing one tool body | $elapsed |")
done

echo "## Build times"
echo
echo "Measured by \`bench/build-time.sh\` on $(nproc) CPUs, in a copy of the tree with an empty"
echo "target directory, on $(date -u '+%Y-%m-%d')."
echo
echo "| build of the calculator example | time |"
echo "|---|---:|"
printf '%s\n' "${rows[@]}"
