#!/usr/bin/env bash
# Single-node PostgreSQL end-to-end throughput before cluster mode and now, for docs/cluster.md's claim that a
# one-node cluster keeps >= 90 % of the single-node figure.
#
# Builds the commit before cluster mode (44b4a5b) in a temporary `git worktree` (removed at the end; its build output
# never enters this checkout), builds this checkout unless --no-build, then runs the webhook benchmark's FAST scenario
# (`dev.tickwheel.bench.WebhookBenchmark --runs 1 --scenarios fast`: 100 000 one-shot webhook instances due over 2 s,
# a receiver answering at once, a fresh schema and a fresh server JVM each run; it also runs its in-process handler
# scenario first) of the old and the new build alternately, old, new, old, new, ..., each against PostgreSQL, and
# prints each run's instances/s (the benchmark's dispatchPerSec: first claim to last SUCCEEDED write), both medians
# and the ratio new / old. Each run's full output is kept under the printed log directory.
#
# usage (from anywhere in the repository):
#   dispatcher-bench/compare-single-node.sh [--runs 3] [--old 44b4a5b] [--pg-url jdbc:postgresql://...] [--no-build]
#                                           [-- further WebhookBenchmark options, e.g. --fast-instances 20000]
set -euo pipefail

runs=3
old_commit=44b4a5b
pg_url="jdbc:postgresql://127.0.0.1:5432/test?user=postgres"
build=1
extra=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    --runs) runs="$2"; shift 2 ;;
    --old) old_commit="$2"; shift 2 ;;
    --pg-url) pg_url="$2"; shift 2 ;;
    --no-build) build=0; shift ;;
    --) shift; extra=("$@"); break ;;
    *) echo "unknown option: $1 (known: --runs N, --old COMMIT, --pg-url URL, --no-build, -- ...)" >&2; exit 2 ;;
  esac
done
if ! [[ "$runs" =~ ^[1-9][0-9]*$ ]]; then
  echo "--runs must be a positive whole number: $runs" >&2
  exit 2
fi

repo="$(git -C "$(dirname "$0")" rev-parse --show-toplevel)"
old_sha="$(git -C "$repo" rev-parse --short "$old_commit^{commit}")"
new_sha="$(git -C "$repo" rev-parse --short HEAD)"
old_dir="$(mktemp -d "${TMPDIR:-/tmp}/tickwheel-$old_sha-XXXXXX")"
log_dir="$(mktemp -d "${TMPDIR:-/tmp}/tickwheel-compare-XXXXXX")"

cleanup() {
  git -C "$repo" worktree remove --force "$old_dir" >/dev/null 2>&1 || rm -rf "$old_dir"
  git -C "$repo" worktree prune
}
trap cleanup EXIT

echo "old: $old_sha (temporary worktree $old_dir); new: $new_sha ($repo$(git -C "$repo" diff --quiet HEAD || echo ', with uncommitted changes'))"
git -C "$repo" worktree add --detach --quiet "$old_dir" "$old_sha"
echo "building $old_sha: mvn -B -q -DskipTests package"
(cd "$old_dir" && mvn -B -q -DskipTests package)
if [[ "$build" == 1 ]]; then
  echo "building $new_sha: mvn -B -q -DskipTests package"
  (cd "$repo" && mvn -B -q -DskipTests package)
fi
old_jar="$old_dir/dispatcher-bench/target/benchmarks.jar"
new_jar="$repo/dispatcher-bench/target/benchmarks.jar"
for jar in "$old_jar" "$new_jar"; do
  [[ -f "$jar" ]] || { echo "missing $jar (build it, or drop --no-build)" >&2; exit 1; }
done

old_rates=()
new_rates=()
old_local=()
new_local=()
failed=()
for run in $(seq 1 "$runs"); do
  for side in old new; do
    jar="$old_jar"; [[ "$side" == new ]] && jar="$new_jar"
    log="$log_dir/$side-$run.log"
    load="$(cut -d' ' -f1-3 /proc/loadavg)"
    echo "run $run of $runs, $side: load average $load (1/5/15 min)"
    status=0
    java -cp "$jar" dev.tickwheel.bench.WebhookBenchmark --runs 1 --scenarios fast --pg-url "$pg_url" \
        "${extra[@]}" >"$log" 2>&1 || status=$?
    rate="$(sed -nE 's/^  fast: dispatchPerSec=([0-9,.]+).*/\1/p' "$log" | head -n1 | tr -d ,)"
    local_rate="$(sed -nE 's/^  in-process: .*dispatchPerSec=([0-9.]+).*/\1/p' "$log" | head -n1)"
    verdict="$(sed -nE 's/^  fast: .*\| (.*)$/\1/p' "$log" | head -n1)"
    echo "  fast: ${rate:-none} instances/s (${verdict:-no result line}); in-process: ${local_rate:-none}/s; exit $status; $log"
    if [[ -z "$rate" || "$status" != 0 ]]; then
      failed+=("run $run $side (exit $status, ${verdict:-no result}; see $log)")
    fi
    if [[ -n "$rate" ]]; then
      if [[ "$side" == old ]]; then old_rates+=("$rate"); else new_rates+=("$rate"); fi
    fi
    if [[ -n "$local_rate" ]]; then
      if [[ "$side" == old ]]; then old_local+=("$local_rate"); else new_local+=("$local_rate"); fi
    fi
  done
done

median() {
  if [[ $# -eq 0 ]]; then
    echo nan
    return
  fi
  printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { if (NR == 0) print "nan"; else if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
ratio() {
  awk -v a="$1" -v b="$2" 'BEGIN { if (b + 0 == 0 || a == "nan" || b == "nan") print "nan"; else printf "%.3f", a / b }'
}

old_median="$(median "${old_rates[@]}")"
new_median="$(median "${new_rates[@]}")"
old_local_median="$(median "${old_local[@]}")"
new_local_median="$(median "${new_local[@]}")"
echo
echo "WebhookBenchmark fast scenario on PostgreSQL, single node, $runs runs each, alternating (old, new, ...):"
echo "| build | instances/s per run | median | in-process handler, median |"
echo "| --- | ---: | ---: | ---: |"
echo "| $old_sha (before cluster mode) | ${old_rates[*]} | $old_median | $old_local_median |"
echo "| $new_sha (one-node cluster) | ${new_rates[*]} | $new_median | $new_local_median |"
echo
echo "ratio new / old (medians): $(ratio "$new_median" "$old_median") (target >= 0.90); in-process handler: $(ratio "$new_local_median" "$old_local_median")"
echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg) (1/5/15 min); logs: $log_dir"
if [[ ${#failed[@]} -gt 0 ]]; then
  echo "FAILED runs:"
  printf '  %s\n' "${failed[@]}"
  exit 1
fi
