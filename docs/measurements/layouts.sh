#!/bin/sh
# What moves a kernel's figure, factor by factor: regenerates
# docs/measurements/layouts-MACHINE.md. Run from the repository root, on a
# quiet machine:
#
#   sh docs/measurements/layouts.sh MACHINE [LAYOUTS [PROCESSES]]
#
# (MACHINE names the file, such as amd-zen4; LAYOUTS defaults to 8,
# PROCESSES per layout or setting to 4; KERNELS, a -bench regexp, to the
# bundled BubbleSort, Combine4 and AddChain.) Each factor is varied alone,
# everything else held:
#
#   code layout      the cyclebench command built with -ldflags=-randlayout=SEED,
#                    seeds 0 (the linker's default) to LAYOUTS-1; and a user-like
#                    branchy kernel (an insertion sort of 600 ints, harness.Report)
#                    through run -layouts
#   environment size the default build, run with 0, 1, 2 and 4 KiB more environment
#                    (which moves the initial stack)
#   data alignment   the default build, the kernel's input at 0, 8, 32, 64, 1024, 2048 and
#                    4032 bytes past a 4 KiB boundary (run -data-offset)
#   host stretches   the default build, PROCESSES x 4 processes a few seconds apart
#
# A setting's figure is the best of its processes (cycles per call); each
# row gives the settings' figures from best to worst and the spread
# worst/best - 1.
set -eu
machine=${1:?usage: sh docs/measurements/layouts.sh MACHINE [LAYOUTS [PROCESSES]]}
layouts=${2:-8}
procs=${3:-4}
kernels=${KERNELS:-'^(BubbleSort|Combine4|AddChain)$'}
repo=$(pwd)
out=docs/measurements/layouts-$machine.md
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM

# best FILE...: per benchmark name, the smallest "cycles" of the CSV files
# (one file per setting): prints "name cycles".
best() {
	awk -F, 'FNR == 1 { for (i = 1; i <= NF; i++) { if ($i == "name") n = i; if ($i == "cycles") c = i }; next }
		$c + 0 > 0 { if (!($n in b) || $c + 0 < b[$n]) b[$n] = $c + 0 }
		END { for (k in b) print k, b[k] }' "$@"
}

# row LABEL SETTINGFILES...: one markdown row per benchmark: every
# setting's best, sorted, and the spread.
rows() {
	label=$1
	shift
	for f in "$@"; do best "$f"; done | sort -k1,1 -k2,2n | awk -v label="$label" '
		{ v[$1] = v[$1] (v[$1] == "" ? "" : ", ") sprintf("%.4g", $2); if (!($1 in lo)) lo[$1] = $2; hi[$1] = $2 }
		END { for (k in v) printf "| %s | %s | %s | %+.1f%% |\n", k, label, v[k], (hi[k] / lo[k] - 1) * 100 }' | sort
}

extra="" # more flags of run, for one factor
run() { # run BINARY OUT [ENV...]: PROCESSES runs of the kernels, one process each
	bin=$1
	o=$2
	shift 2
	env "$@" "$bin" run -bench "$kernels" -count "$procs" -format csv -q -o "$o" $extra
}

# Code layout: the command in LAYOUTS layouts.
files=""
seed=0
while [ "$seed" -lt "$layouts" ]; do
	go build -ldflags="-randlayout=$seed" -o "$tmp/cb-$seed" ./cmd/cyclebench
	run "$tmp/cb-$seed" "$tmp/layout-$seed.csv"
	files="$files $tmp/layout-$seed.csv"
	seed=$((seed + 1))
done
layoutRows=$(rows "code layout ($layouts builds)" $files)

# Environment size.
files=""
for kib in 0 1 2 4; do
	pad=$(head -c $((kib * 1024)) /dev/zero | tr '\0' x)
	run "$tmp/cb-0" "$tmp/env-$kib.csv" CYCLEBENCH_PAD="$pad"
	files="$files $tmp/env-$kib.csv"
done
envRows=$(rows "environment +0/1/2/4 KiB" $files)

# Data alignment: the kernel's input at other offsets from a 4 KiB boundary.
files=""
for off in 0 8 32 64 1024 2048 4032; do
	extra="-data-offset $off"
	run "$tmp/cb-0" "$tmp/align-$off.csv"
	files="$files $tmp/align-$off.csv"
done
extra=""
alignRows=$(rows "data at +0/8/32/64/1024/2048/4032 B" $files)

# The host's stretches: the same binary, over time.
files=""
i=0
while [ "$i" -lt 4 ]; do
	run "$tmp/cb-0" "$tmp/time-$i.csv"
	files="$files $tmp/time-$i.csv"
	sleep 5
	i=$((i + 1))
done
timeRows=$(rows "host, over time (4 x $procs processes)" $files)

# A user-like branchy kernel in L layouts (go test -c -ldflags=-randlayout).
mkdir -p "$tmp/user/sorts"
cat > "$tmp/user/go.mod" <<MOD
module example.com/user

go 1.26

require github.com/cyclebench/cyclebench v0.0.0

replace github.com/cyclebench/cyclebench => $repo
MOD
cp go.sum "$tmp/user/go.sum"
cat > "$tmp/user/sorts/sorts_test.go" <<'GO'
package sorts

import (
	"math/rand/v2"
	"testing"

	"github.com/cyclebench/cyclebench/harness"
)

//go:noinline
func insertion(xs []int) {
	for i := 1; i < len(xs); i++ {
		for j := i; j > 0 && xs[j] < xs[j-1]; j-- {
			xs[j], xs[j-1] = xs[j-1], xs[j]
		}
	}
}

func BenchmarkInsertion(b *testing.B) {
	in := rand.New(rand.NewPCG(1, 2)).Perm(600)
	xs := make([]int, len(in))
	harness.Report(b, harness.DefaultConfig(), harness.Target{Name: "Insertion/n=600", Setup: func() { copy(xs, in) }, Run: func() { insertion(xs) }, Elements: 600})
}
GO
(cd "$tmp/user" && go mod tidy >/dev/null 2>&1 || true)
go run ./cmd/cyclebench run -layouts "$layouts" -count $((layouts * procs)) -format csv -q -o "$tmp/user.csv" "$tmp/user/sorts"
userRows=$(awk -F, 'FNR == 1 { for (i = 1; i <= NF; i++) { if ($i == "name") n = i; if ($i == "cycles") c = i }; next }
	$c + 0 > 0 { print $n, $c }' "$tmp/user.csv" | sort -k2,2n | awk -v L="$layouts" '
	{ v = v (v == "" ? "" : ", ") sprintf("%.4g", $2); if (NR == 1) lo = $2; hi = $2; name = $1 }
	END { printf "| %s | code layout (%d layouts, every process) | %s | %+.1f%% |\n", name, L, v, (hi / lo - 1) * 100 }')

{
	echo "# What moves a kernel's figure: $machine"
	echo
	echo "Regenerate: \`sh docs/measurements/layouts.sh $machine $layouts $procs\` (from the repository root)."
	echo
	echo "$(go run ./cmd/cyclebench info -q 2>/dev/null | head -1)"
	echo
	echo "Each factor varied alone; a setting's figure is the best of its $procs processes, in core cycles per call."
	echo
	echo "| kernel | factor | settings' figures, best to worst | worst/best |"
	echo "|---|---|---|---|"
	echo "$layoutRows"
	echo "$userRows"
	echo "$envRows"
	echo "$alignRows"
	echo "$timeRows"
} > "$out"
echo "wrote $out"
