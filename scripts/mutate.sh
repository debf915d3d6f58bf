#!/usr/bin/env bash
# scripts/mutate.sh [-c CATALOG] [-v] [ID...]
#
# The seed-claim mutation audit. For every claim of the catalog (testdata/claims/claims.tsv; or
# only the IDs named), in a throwaway copy of the working tree: apply the claim's mutation (each
# edit replaces an exact string that must occur once in its file), run its optional post command
# (e.g. go generate after a wire-spec edit), run `go test -count=1 -run TESTS PKG`, and restore the
# tree. A claim is
#
#   caught    its pins fail on the mutated code
#   SURVIVED  its pins pass on the mutated code: the claim is not pinned
#   GONE      an edit's old string is not in its file (the code moved: fix the catalog row)
#   AMBIGUOUS an edit's old string occurs more than once in its file
#   BUILD     the mutated tree does not compile (the mutation shows nothing: fix the row)
#   NOTEST    TESTS matches no test in PKG
#   SKIPPED   every test TESTS matches skipped itself (e.g. numpy absent)
#   BASEFAIL  the pins already fail on the unmutated tree
#
# and the last line is "caught N/M". Exit status 0 when every claim run is caught, 1 otherwise.
# The audit is CPU-heavy (one test build per claim): run it as
#   nice -n 10 env GOMAXPROCS=1 scripts/mutate.sh
set -u

root=$(cd "$(dirname "$0")/.." && pwd)
catalog=$root/testdata/claims/claims.tsv
verbose=0
while getopts "c:v" o; do
	case $o in
	c) catalog=$OPTARG ;;
	v) verbose=1 ;;
	*) echo "usage: $0 [-c CATALOG] [-v] [ID...]" >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
command -v python3 >/dev/null || { echo "mutate.sh: python3 is needed to apply the edits" >&2; exit 2; }
command -v go >/dev/null || export PATH=/usr/local/go/bin:$PATH

base=$(mktemp -d /tmp/tpbsim-mutate.XXXXXX)
trap 'rm -rf "$base"' EXIT
work=$base/tree logs=$base/logs
mkdir -p "$work" "$logs"
# Tests that quote the seeds read them from ../shared beside the repository (dge's
# TestLogFormatsQuoted skips without them): give the copy the same neighbour.
[ -d "$root/../shared" ] && ln -s "$(cd "$root/../shared" && pwd)" "$base/shared"
# The copy: the working tree as it is (uncommitted edits included), without the repository, as
# a fresh git repository of its own so that each claim is undone with one reset.
(cd "$root" && git ls-files -co --exclude-standard -z | tar --null --ignore-failed-read -T - -cf - 2>/dev/null) |
	(cd "$work" && tar xf -)
(cd "$work" && git init -q && git add -A && git -c user.name=mutate -c user.email=mutate@localhost commit -qm base) ||
	{ echo "mutate.sh: cannot make the scratch copy in $work" >&2; exit 2; }

# rows: ID<TAB>PKG<TAB>TESTS, one per claim in catalog order (the first row of each id).
rows=$(awk -F'\t' '!/^#/ && NF >= 8 && $1 != "id" && !seen[$1]++ { print $1 "\t" $4 "\t" $5 }' "$catalog")
if [ $# -gt 0 ]; then
	want=" $* "
	rows=$(printf '%s\n' "$rows" | while IFS=$'\t' read -r id pkg tests; do
		case $want in *" $id "*) printf '%s\t%s\t%s\n' "$id" "$pkg" "$tests" ;; esac
	done)
	for id in "$@"; do
		printf '%s\n' "$rows" | cut -f1 | grep -qx -- "$id" || { echo "mutate.sh: no claim $id in $catalog" >&2; exit 2; }
	done
fi

# apply ID: make the claim's edits in $work; prints GONE / AMBIGUOUS with the file, or nothing.
apply() {
	python3 - "$catalog" "$1" "$work" <<'EOF'
import sys, os
catalog, cid, work = sys.argv[1:4]
def unesc(s):
    out, i = [], 0
    while i < len(s):
        if s[i] == '\\' and i + 1 < len(s) and s[i+1] in 'nt\\':
            out.append({'n': '\n', 't': '\t', '\\': '\\'}[s[i+1]]); i += 2
        else:
            out.append(s[i]); i += 1
    return ''.join(out)
edits = []
for line in open(catalog, encoding='utf-8'):
    line = line.rstrip('\n')
    if line.startswith('#') or not line:
        continue
    f = line.split('\t')
    if f[0] == cid and len(f) >= 8:
        edits.append((f[5], unesc(f[6]), unesc(f[7])))
for path, old, new in edits:
    p = os.path.join(work, path)
    try:
        s = open(p, encoding='utf-8').read()
    except OSError:
        print('GONE\t%s (no such file)' % path); sys.exit(0)
    n = s.count(old)
    if n == 0:
        print('GONE\t%s' % path); sys.exit(0)
    if n > 1:
        print('AMBIGUOUS\t%s (%d occurrences)' % (path, n)); sys.exit(0)
    open(p, 'w', encoding='utf-8').write(s.replace(old, new))
EOF
}

# post ID: the claim's post command (column 9 of its first row), or empty.
post() { awk -F'\t' -v id="$1" '!/^#/ && $1 == id && $9 != "" && $9 != "-" { print $9; exit }' "$catalog"; }

# Baseline: every package's pins on the unmutated tree, once.
declare -A basefail
for pkg in $(printf '%s\n' "$rows" | cut -f2 | sort -u); do
	re=$(printf '%s\n' "$rows" | awk -F'\t' -v p="$pkg" '$2 == p { printf "%s(%s)", sep, $3; sep = "|" }')
	if ! (cd "$work" && go test -count=1 -run "$re" "$pkg") >"$logs/base.log" 2>&1; then
		basefail[$pkg]=1
		echo "baseline: the pins of $pkg fail unmutated:" >&2
		grep -m5 -- '--- FAIL\|FAIL\|cannot\|error' "$logs/base.log" >&2
	fi
done

total=0 caught=0
bad=()
printf '%-6s %-9s %-10s %s\n' ID RESULT PKG "DETAIL"
while IFS=$'\t' read -r id pkg tests; do
	[ -n "$id" ] || continue
	total=$((total + 1))
	detail=""
	if [ -n "${basefail[$pkg]:-}" ]; then
		res=BASEFAIL
	else
		out=$(apply "$id")
		if [ -n "$out" ]; then
			res=${out%%$'\t'*} detail=${out#*$'\t'}
		else
			p=$(post "$id")
			if [ -n "$p" ] && ! (cd "$work" && sh -c "$p") >"$logs/post.log" 2>&1; then
				res=BUILD detail="post command failed: $p"
			elif (cd "$work" && go test -count=1 -v -run "$tests" "$pkg") >"$logs/test.log" 2>&1; then
				if grep -q 'no tests to run' "$logs/test.log"; then
					res=NOTEST detail="-run '$tests'"
				elif ! grep -q '^--- PASS: ' "$logs/test.log"; then
					res=SKIPPED detail="every pin skipped here: $(grep -m1 -A1 '^--- SKIP: ' "$logs/test.log" | tail -1 | sed 's/^ *//')"
				else
					res=SURVIVED detail="-run '$tests' passes"
					[ $verbose = 1 ] && cat "$logs/test.log"
				fi
			elif grep -q '\[build failed\]\|\[setup failed\]' "$logs/test.log"; then
				res=BUILD detail=$(grep -m1 '\.go:[0-9]*:' "$logs/test.log")
			else
				res=caught detail=$(grep -m1 -- '--- FAIL' "$logs/test.log" | sed 's/^ *//')
			fi
		fi
		(cd "$work" && git reset -q --hard && git clean -fdqx)
	fi
	if [ "$res" = caught ]; then caught=$((caught + 1)); else bad+=("$id $res"); fi
	printf '%-6s %-9s %-10s %s\n' "$id" "$res" "$pkg" "$detail"
done <<<"$rows"
echo "caught $caught/$total"
if [ ${#bad[@]} -gt 0 ]; then
	echo "not caught: ${bad[*]}"
	exit 1
fi
