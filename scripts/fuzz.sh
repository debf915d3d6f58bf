#!/usr/bin/env bash
# Runs every fuzz target of the given packages (default: all of them) for DURATION each, one at a
# time, and prints a table of executions per second. Targets are found with `go test -list`, so a
# new Fuzz function is picked up without editing this script. The first target that finds a
# failing input stops the run: the script names the file Go kept it in (the package's
# testdata/fuzz/FuzzX/ folder, where plain `go test` replays it from then on) and the command that
# re-runs it.
#
# Each package's test binary is built once, instrumented for fuzzing, and run as `go test -fuzz`
# runs it (in the package's folder, with Go's fuzz cache), so the time measured is fuzzing, not
# compiling or linking. Only this module's packages are instrumented (the compiler's -d=libfuzzer
# on them, which is all `go test -fuzz` adds), not the standard library's as `go test -fuzz` does:
# after every execution Go's worker copies and compares all of the binary's coverage counters,
# and fmt, strconv, sort, encoding/json and the rest were 30% of sim's, a cost on every exec for
# coverage of code that is not ours. The table gives executions per second of wall
# time (execs/s), the same after the baseline phase in which Go first runs the whole cached
# corpus (steady/s: what a long campaign gets), and per second of CPU time (coordinator and
# worker, from /usr/bin/time when present; on a loaded host this is what one core does).
#
# Usage: scripts/fuzz.sh DURATION [PKG...]      e.g. scripts/fuzz.sh 15s ./kernel/ ./sim/
#   DURATION is -fuzztime's: 15s, 10m, or 100000x (a number of executions).
#   FUZZ_PARALLEL (default 1) is -parallel: the rates of the table are per worker at 1.
#   FUZZ_LOGS (default a temporary folder) keeps each target's full output as PKG.FuzzX.log.
#   FUZZ_INSTRUMENT (default module) is what is instrumented: module, or all (Go's own choice:
#   every package but a few of the runtime's, as go test -fuzz builds it).
#   FUZZ_MINIMIZE (default 5s) is -fuzzminimizetime: how long Go may minimise one input, a failing
#   one or a new interesting one. Go's minimiser costs about n^2 executions for an input of n
#   bytes and counts none of them, so with Go's default (60s) one long input can stall a short
#   run at 0 execs/s; a failing input is kept whether or not its minimisation finished.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ $# -lt 1 ] || [ -z "$1" ]; then
	echo "usage: scripts/fuzz.sh DURATION [PKG...]   (DURATION as go test -fuzztime: 15s, 10m, 100000x)" >&2
	exit 2
fi
duration=$1
shift
parallel=${FUZZ_PARALLEL:-1}
minimize=${FUZZ_MINIMIZE:-5s}
instrument=${FUZZ_INSTRUMENT:-module}
case "$instrument" in
module | all) ;;
*)
	echo "fuzz.sh: FUZZ_INSTRUMENT is module or all, not $instrument" >&2
	exit 2
	;;
esac
case "$(go env GOARCH)" in
amd64 | arm64 | loong64) ;;
*) instrument=all ;; # Go instruments nothing here (internal/platform.FuzzInstrumented): leave it to go test -fuzz
esac
build=()
if [ "$instrument" = module ]; then
	build=(-gcflags="$(go list -m)/...=-d=libfuzzer")
fi
logs=${FUZZ_LOGS:-$(mktemp -d "${TMPDIR:-/tmp}/tpbsim-fuzz.XXXXXX")}
mkdir -p "$logs"

if [ $# -eq 0 ]; then
	mapfile -t pkgs < <(go list ./...)
else
	mapfile -t pkgs < <(go list "$@")
fi

cache="$(go env GOCACHE)/fuzz"
timer=notime
if [ -x /usr/bin/time ]; then
	timer=/usr/bin/time
fi
# elapsed matches the coordinator's elapsed time, a Go duration of whole seconds (15s, 1m5s,
# 2h0m1s); seconds converts one to seconds (an empty one to empty).
elapsed='([0-9]+h)?([0-9]+m)?[0-9]+s'
seconds() {
	[ -n "$1" ] || return 0
	awk -v d="$1" 'BEGIN { n = 0; t = 0; s = d
		while (match(s, /^[0-9]+[hms]/)) { v = substr(s, 1, RLENGTH - 1); u = substr(s, RLENGTH, 1)
			t += v * (u == "h" ? 3600 : u == "m" ? 60 : 1); s = substr(s, RLENGTH + 1) }
		print t }'
}

# notime stands in for /usr/bin/time -o FILE -f '%U %S' CMD... where it is missing: no CPU column.
notime() { shift 4; "$@"; }

table=()
total=0
for pkg in "${pkgs[@]}"; do
	dir=$(go list -f '{{.Dir}}' "$pkg")
	# -list prints the matching names, then "ok ..." (or nothing for a package without tests).
	mapfile -t targets < <(go test -list '^Fuzz' "$pkg" | grep '^Fuzz' || true)
	[ ${#targets[@]} -gt 0 ] || continue
	bin="$logs/$(basename "$pkg").test"
	if [ "$instrument" = all ]; then
		go test -c -fuzz "^${targets[0]}\$" -o "$bin" "$pkg"
	else
		go test -c "${build[@]}" -o "$bin" "$pkg"
	fi
	for t in "${targets[@]}"; do
		log="$logs/$(basename "$pkg").$t.log"
		cpu="$logs/$(basename "$pkg").$t.cpu"
		echo "== $pkg $t ($duration, -parallel $parallel)" >&2
		status=0
		(cd "$dir" && $timer -o "$cpu" -f '%U %S' "$bin" -test.run '^$' -test.fuzz "^${t}\$" -test.fuzztime "$duration" \
			-test.parallel "$parallel" -test.fuzzminimizetime "$minimize" -test.fuzzcachedir "$cache/$pkg") >"$log" 2>&1 || status=$?
		# The coordinator's last progress line: "fuzz: elapsed: 1m15s, execs: 123456 (8230/sec),
		# ..." (the elapsed time as Go prints a duration). Its rate is the last interval's; the
		# table's is all executions over all the time.
		last=$(grep -E "^fuzz: elapsed: $elapsed, execs: [0-9]+" "$log" | tail -n 1 || true)
		secs=$(seconds "$(sed -E "s/^fuzz: elapsed: ($elapsed).*/\1/" <<<"$last")")
		execs=$(sed -E 's/^.*execs: ([0-9]+).*/\1/' <<<"$last")
		rate="-" steady="-"
		if [ -n "$last" ] && [ "${secs:-0}" -gt 0 ]; then
			rate=$((execs / secs))
		fi
		# Fuzzing starts once the cached corpus has been run for its baseline coverage
		# ("now fuzzing"); the steady rate leaves that phase out, as a long campaign would.
		start=$(sed -nE "s/^fuzz: elapsed: ($elapsed), gathering baseline coverage: .*now fuzzing.*/\1/p" "$log" | tail -n 1)
		[ -z "$start" ] || start=$(seconds "$start")
		if [ -n "$last" ] && [ -n "$start" ] && [ "$secs" -gt "$start" ]; then
			steady=$((execs / (secs - start)))
		fi
		cpus="-" cpurate="-"
		if [ -s "$cpu" ] && [ -n "$last" ]; then
			cpus=$(tail -n 1 "$cpu" | awk '{printf "%.1f", $1 + $2}')
			cpurate=$(awk -v e="$execs" -v c="$cpus" 'BEGIN { if (c > 0) printf "%d", e / c; else print "-" }')
		fi
		table+=("$(printf '%-32s %-20s %10s %6s %9s %9s %7s %11s' "${pkg#github.com/tpbsim/tpbsim/}" "$t" "${execs:--}" "${secs:--}s" "$rate" "$steady" "${cpus}s" "$cpurate")")
		if [ "$status" -ne 0 ] && grep -q 'context deadline exceeded' "$log" && ! grep -q 'Failing input written' "$log"; then
			# Go's coordinator sometimes reports its own -fuzztime deadline as a failure when it
			# passes while a worker is busy (seen on a loaded host); no input failed.
			echo "fuzz.sh: $pkg $t: the run ended with Go's 'context deadline exceeded' and no failing input (not a failure)" >&2
			status=0
		fi
		if [ "$status" -ne 0 ]; then
			cat "$log" >&2
			kept=$(sed -nE 's/.*Failing input written to (testdata\/fuzz\/[^ ]+).*/\1/p' "$log" | tail -n 1)
			echo >&2
			if [ -n "$kept" ]; then
				rel=${dir#"$PWD"/}
				echo "fuzz.sh: $pkg $t failed; the input is kept in $rel/$kept" >&2
				echo "fuzz.sh: re-run it with: go test -run '^$t/$(basename "$kept")\$' ./$rel/" >&2
			else
				echo "fuzz.sh: $pkg $t failed without writing an input (a build or seed-corpus failure); log: $log" >&2
			fi
			exit 1
		fi
		total=$((total + 1))
	done
done

printf '%-32s %-20s %10s %6s %9s %9s %7s %11s\n' package target execs time 'execs/s' 'steady/s' cpu 'execs/cpu-s'
printf '%s\n' "${table[@]}"
echo "fuzz.sh: $total targets, no failing input (logs in $logs)" >&2
