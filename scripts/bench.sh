#!/usr/bin/env bash
# Runs every hot-path benchmark once per CPU setting and prints the raw `go test -bench` output
# (BENCHMARKS.md records a run of this script). Usage: scripts/bench.sh [COUNT] > bench.txt
# Needs /usr/bin/python3 with numpy for the x-numpy columns of the DGE benchmarks (skipped otherwise).
set -euo pipefail
cd "$(dirname "$0")/.."
count=${1:-1}
go test -run '^$' -count "$count" -bench . ./isa/ ./num/ ./ucode/
go test -run '^$' -count "$count" -bench 'StreamTranspose|CopySplit|ReadSplit' -cpu 1,2 ./dve/
go test -run '^$' -count "$count" -bench 'TensorReduce|TensorCumulative|Reciprocal|Cast|TransposeTensorReduce|StreamShuffle' ./dve/
go test -run '^$' -count "$count" -bench . -benchtime 5x ./dge/
go test -run '^$' -count "$count" -bench . ./dma/ ./mem/ 2>/dev/null || true
if /usr/bin/python3 -c 'import numpy' 2>/dev/null; then
  echo "# numpy on the same data"
  /usr/bin/python3 testdata/dve/bench_numpy.py || true
  /usr/bin/python3 testdata/dge/bench_numpy.py || true
fi
