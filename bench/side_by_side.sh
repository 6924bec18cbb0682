#!/usr/bin/env bash
# ARX 3.9.2 and kanon interleaved on issue 30's Adult scenarios: ROUNDS rounds of [ARX in one JVM: every
# scenario, 10 warm-ups + 7 runs] then [kanon's bench/bench_adult.py: every scenario, 3 warm-ups + 7 runs,
# with its pandas reference and ARX's figures of the same round beside]. Interleaving puts both under the
# same machine load.
#
# ARX is not shipped with kanon: build ARX 3.9.2 from its source (github.com/arx-deidentifier/arx, its
# src/main with the jars of its lib/ folder, javac), then compile bench/arx/ArxAdultBench.java against it
# and give the classpath (ARX's classes, its jars and the folder holding ArxAdultBench.class):
#
#   ARX_CLASSPATH=/path/arx/build:/path/arx/lib/...:/path/driver bash bench/side_by_side.sh OUT [ROUNDS] [only]
#
# OUT receives arx_N.txt, kanon_N.txt and a log with `uptime` before every round.
set -uo pipefail
OUT="$1"; ROUNDS="${2:-3}"; ONLY="${3:-}"
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
PY="${PYTHON:-$ROOT/.venv/bin/python}"
SHARED="${KANON_SHARED:-$ROOT/../shared}"
: "${ARX_CLASSPATH:?set ARX_CLASSPATH to the classes and jars of ARX 3.9.2 and the folder of ArxAdultBench.class}"
mkdir -p "$OUT"
for r in $(seq 1 "$ROUNDS"); do
    echo "== round $r  $(uptime)" | tee -a "$OUT/log"
    java -cp "$ARX_CLASSPATH" ArxAdultBench "$SHARED/datasets/adult" 10 7 ${ONLY//,/ } > "$OUT/arx_$r.txt" 2>&1
    cat "$OUT/arx_$r.txt" >> "$OUT/log"
    "$PY" "$ROOT/bench/bench_adult.py" --shared "$SHARED" --arx "$OUT/arx_$r.txt" ${ONLY:+--only $ONLY} \
        > "$OUT/kanon_$r.txt" 2>&1
    cat "$OUT/kanon_$r.txt" >> "$OUT/log"
done
echo "== end $(uptime)" >> "$OUT/log"
