#!/usr/bin/env bash
# The whole `anonymize` process on Adult x30 (904,860 records; the README's "larger work" table): build
# the table (Adult's rows 30 times, one header) in a temporary folder, then RUNS times run the command as a
# user would, under /usr/bin/time (wall, CPU, peak memory), with `uptime` before and after. The release and
# its JSON report go to the same temporary folder, removed at the end.
#
#   bash bench/whole_process.sh [RUNS]
set -euo pipefail
RUNS="${1:-3}"
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
PY="${PYTHON:-$ROOT/.venv/bin/python}"
ADULT="${KANON_SHARED:-$ROOT/../shared}/datasets/adult"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
{ head -n 1 "$ADULT/adult.csv"; for _ in $(seq 30); do tail -n +2 "$ADULT/adult.csv"; done; } > "$WORK/adult_x30.csv"
QI=age,education,marital-status,native-country,race,salary-class,sex,workclass
FLAGS=()
for q in ${QI//,/ }; do FLAGS+=(--hierarchy "$q=$ADULT/adult_hierarchy_$q.csv"); done
echo "load before: $(uptime)"
for r in $(seq 1 "$RUNS"); do
    (cd "$ROOT" && /usr/bin/time -f "run $r: %e s wall, %U s user + %S s system CPU, peak %M KB" \
        "$PY" -m kanon_engine anonymize "$WORK/adult_x30.csv" --qi "$QI" "${FLAGS[@]}" --k 150 \
        --suppression-limit 0.05 --metric dm --output "$WORK/release.csv" --report "$WORK/report.json" \
        > /dev/null 2> "$WORK/stderr") || { cat "$WORK/stderr"; exit 1; }
    tail -n 1 "$WORK/stderr"
done
echo "load after: $(uptime)"
