#!/bin/sh
# The targets of compare -base (issue 33), measured on this machine. Run
# from the repository root, on a quiet machine:
#
#   sh docs/measurements/revision-targets.sh [RUNS [LAYOUTS]]
#
# It makes a git repository with a user's package (an insertion sort of
# 300 ints, layout-sensitive; the bundled register ADD chain,
# layout-insensitive; both through harness.Report) and four head
# revisions of it, then counts the comparisons that call a difference:
#
#   aa-sort   B = A plus an unused function in another file   want <= 1 of 20 (19 of 20 find none)
#   sort+20%  B sorts 329 ints (329^2/300^2 = 1.20)           want >= 9 of 10, each <= 60 s
#   aa-add    the ADD chain, B = A plus an unused function    want <= 1 of 20
#   add+0.1%  the ADD chain of 10010 instead of 10000 ADDs    want >= 9 of 10
#   sort+det  B sorts the N ints whose inversions exceed the 300's by
#             aa-sort's median detectable change; of its comparisons that
#             printed a detectable change at most the change measured,
#             the share that found it                         want >= 7 of 10
#
# An insertion sort's work is its inversions, and a permutation of N ints
# has N^2/4 of them give or take 4%, so sort+det picks N by counting them
# (the ratio it reaches is printed) rather than by N^2.
# RUNS (default 20 for A/A, half for the changes) and LAYOUTS (default:
# compare's own) set the effort. Each line of the output: the case, how
# many comparisons called a difference, the slowest comparison's seconds,
# and the median detectable change the comparisons printed (to check its
# honesty: a change of that size should be found in >= 7 of 10).
set -eu
runs=${1:-20}
layoutsFlag=""
[ $# -ge 2 ] && layoutsFlag="-layouts $2"
repo=$(pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
go build -o "$tmp/cyclebench" ./cmd/cyclebench

newrepo() { # newrepo DIR SORTN ADDN
	mkdir -p "$1/sorts"
	cat > "$1/go.mod" <<MOD
module example.com/user

go 1.26

require github.com/cyclebench/cyclebench v0.0.0

replace github.com/cyclebench/cyclebench => $repo
MOD
	cp go.sum "$1/go.sum"
	cat > "$1/sorts/sort.go" <<'GO'
package sorts

// Insertion sorts xs in place.
//
//go:noinline
func Insertion(xs []int) {
	for i := 1; i < len(xs); i++ {
		for j := i; j > 0 && xs[j] < xs[j-1]; j-- {
			xs[j], xs[j-1] = xs[j-1], xs[j]
		}
	}
}
GO
	printf 'package sorts\n\nconst sortN, addN = %s, %s\n' "$2" "$3" > "$1/sorts/n.go"
	cat > "$1/sorts/sort_test.go" <<'GO'
package sorts

import (
	"math/rand/v2"
	"testing"

	benchexamples "github.com/cyclebench/cyclebench/bench_examples"
	"github.com/cyclebench/cyclebench/harness"
)

func BenchmarkInsertion(b *testing.B) {
	in := rand.New(rand.NewPCG(1, 2)).Perm(sortN)
	xs := make([]int, len(in))
	harness.Report(b, harness.DefaultConfig(), harness.Target{Name: "Insertion", Setup: func() { copy(xs, in) }, Run: func() { Insertion(xs) }})
}

func BenchmarkAdd(b *testing.B) {
	k, err := benchexamples.Lookup("AddChain")
	if err != nil {
		b.Fatal(err)
	}
	t, err := k.New(addN)
	if err != nil {
		b.Fatal(err)
	}
	harness.Report(b, harness.DefaultConfig(), t)
}
GO
	(cd "$1" && go mod tidy && git init -q -b main && git add . && git -c user.name=t -c user.email=t@example.com commit -q -m A && git tag base)
}

commit() { # commit DIR MESSAGE
	(cd "$1" && git add . && git -c user.name=t -c user.email=t@example.com commit -q -m "$2")
}

measure() { # measure CASE DIR BENCH N
	hits=0
	slowest=0
	dets=""
	pairs="" # each comparison's ratio, printed detectable change and verdict
	i=0
	while [ "$i" -lt "$4" ]; do
		out=$(cd "$2" && "$tmp/cyclebench" compare -base base -head HEAD $layoutsFlag -bench "$3" -format json -q ./sorts) || { echo "$1: a comparison failed (its message is above)"; exit 1; }
		echo "$out" | grep -q '"significant": true' && hits=$((hits + 1))
		took=$(echo "$out" | sed -n 's/.*"took_seconds": \([0-9.]*\).*/\1/p')
		slowest=$(echo "$slowest $took" | awk '{ print ($2 > $1 ? $2 : $1) }')
		d=$(echo "$out" | sed -n 's/.*"detectable": \([0-9.e+-]*\).*/\1/p' | head -1)
		dets="$dets $d"
		r=$(echo "$out" | sed -n 's/.*"ratio": \([0-9.e+-]*\).*/\1/p' | head -1)
		sig=0
		echo "$out" | grep -q '"significant": true' && sig=1
		pairs="$pairs$r $d $sig
"
		i=$((i + 1))
	done
	det=$(echo "$dets" | tr ' ' '\n' | grep . | sort -g | awk '{ a[NR] = $1 } END { if (NR) printf "%.3g%%", a[int((NR + 1) / 2)] * 100 }')
	echo "$1: $hits of $4 called a difference; slowest comparison ${slowest} s; median detectable change $det"
}

"$tmp/cyclebench" info -q | head -1
newrepo "$tmp/aa" 300 10000
printf 'package sorts\n\n// Unused moves the code layout.\nfunc Unused(x int) int { return x*7 + 1 }\n' > "$tmp/aa/sorts/unused.go"
commit "$tmp/aa" "B: an unused function"
measure aa-sort "$tmp/aa" '^BenchmarkInsertion$' "$runs"
sortDet=$det
measure aa-add "$tmp/aa" '^BenchmarkAdd$' "$runs"
newrepo "$tmp/sort20" 300 10000
printf 'package sorts\n\nconst sortN, addN = 329, 10000\n' > "$tmp/sort20/sorts/n.go"
commit "$tmp/sort20" "B: 20% more work"
measure sort+20% "$tmp/sort20" '^BenchmarkInsertion$' $((runs / 2))
newrepo "$tmp/add" 300 10000
printf 'package sorts\n\nconst sortN, addN = 300, 10010\n' > "$tmp/add/sorts/n.go"
commit "$tmp/add" "B: 0.1% more ADDs"
measure add+0.1% "$tmp/add" '^BenchmarkAdd$' $((runs / 2))
# sort+det: the N whose inversions come closest above (1 + det) times the 300's.
mkdir -p "$tmp/inv"
cat > "$tmp/inv/main.go" <<'GO'
package main

import (
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
)

func inversions(n int) int {
	p := rand.New(rand.NewPCG(1, 2)).Perm(n)
	c := 0
	for i := range p {
		for j := i + 1; j < len(p); j++ {
			if p[j] < p[i] {
				c++
			}
		}
	}
	return c
}

func main() {
	want, _ := strconv.ParseFloat(os.Args[1], 64)
	base := inversions(300)
	for n := 301; n < 600; n++ {
		if r := float64(inversions(n)) / float64(base); r >= 1+want/100 {
			fmt.Printf("%d %.4f\n", n, r)
			return
		}
	}
}
GO
set -- $(cd "$tmp/inv" && go run main.go "${sortDet%\%}")
newrepo "$tmp/sortdet" 300 10000
printf 'package sorts\n\nconst sortN, addN = %s, 10000\n' "$1" > "$tmp/sortdet/sorts/n.go"
commit "$tmp/sortdet" "B: the detectable change"
printf '(sort+det: B sorts %s ints, inversions %s times the 300s)\n' "$1" "$2"
measure "sort+det" "$tmp/sortdet" '^BenchmarkInsertion$' $((runs / 2))
# Honest means: a comparison that printed a detectable change at most the
# change it faced (the median ratio of these comparisons) found it in >= 7
# of 10; aa-sort's figure is only where the size came from, as each build
# set spreads its layouts differently.
echo "$pairs" | awk 'NF == 3 { r[++n] = $1; d[n] = $2; s[n] = $3 }
	END { m = n; split("", t); for (i = 1; i <= n; i++) t[i] = r[i]; for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (t[j] < t[i]) { x = t[i]; t[i] = t[j]; t[j] = x }
		c = t[int((n + 1) / 2)] - 1; k = 0; f = 0
		for (i = 1; i <= n; i++) if (d[i] <= c) { k++; f += s[i] }
		printf "sort+det honesty: the change measured %.3g%% (median ratio); %d of %d comparisons printed a detectable change at most that, and %d of those %d found it (want >= 7 of 10)\n", c * 100, k, n, f, k }'
