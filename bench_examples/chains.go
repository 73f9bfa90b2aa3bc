package benchexamples

import (
	"github.com/cyclebench/cyclebench/harness"
	"github.com/cyclebench/cyclebench/internal/chain"
)

// chainState runs one of the chains of package internal/chain: n dependent
// 64-bit ADDs of a register (1 core cycle each on every core), IMULs (3
// core cycles each on Intel's big cores and AMD Zen, 2 to 4 on Arm cores),
// or ADDs of the immediate 1 (1 cycle on most cores, about 0.2 on cores
// that fold them at rename), in assembly on amd64 and arm64, in Go
// elsewhere and under -tags noasm (where the per-op cost is only
// approximate).
//
// Each run continues the chain from the previous run's result (AddFrom,
// ImulFrom), so back-to-back runs form one dependent chain and cost exactly
// n ops each: independent chains would overlap in an out-of-order core and
// a harness repeating short runs would see fewer cycles than ops.
type chainState struct {
	name string
	n    int
	run  func(x uint64, n int) uint64
	imul bool
	acc  uint64 // the chain's running value
	runs uint64 // runs since the instance was built
}

func (s *chainState) runChain() { s.acc = s.run(s.acc, s.n); s.runs++ }

func (s *chainState) check() error {
	if s.runs == 0 {
		return wrong(s.name, "no run to check")
	}
	want := s.runs * uint64(s.n)
	if s.imul {
		want = powMod64(chain.ImulMultiplier, int(s.runs)*s.n)
	}
	if s.acc != want {
		return wrong(s.name, "chain of %d ops after %d runs holds %#x, want %#x", s.n, s.runs, s.acc, want)
	}
	return nil
}

// powMod64 returns m to the power n modulo 2⁶⁴ by repeated squaring.
func powMod64(m uint64, n int) uint64 {
	r := uint64(1)
	for ; n > 0; n >>= 1 {
		if n&1 == 1 {
			r *= m
		}
		m *= m
	}
	return r
}

// chainSpec is the kernel of one chain: n links per run, each run
// continuing the last (imul: the chain multiplies, starting from 1).
func chainSpec(name, description string, run func(uint64, int) uint64, imul bool) spec {
	return spec{
		k: Kernel{
			Name:        name,
			Description: description,
			Seed:        "reference chain",
			DefaultN:    10000,
			MinN:        1,
			MaxN:        1 << 30,
			Unit:        "ops",
			Default:     true,
			CPE:         true,
		},
		build: func(n, offset int) (harness.Target, any) {
			s := &chainState{name: name, n: n, run: run, imul: imul}
			if imul {
				s.acc = 1
			}
			return harness.Target{Run: s.runChain, Check: s.check, Elements: float64(n)}, s
		},
	}
}

func addChainSpec() spec {
	return chainSpec("AddChain", "n dependent 64-bit ADDs of a register in assembly: 1 core cycle per op on every core", chain.AddFrom, false)
}

func imulChainSpec() spec {
	return chainSpec("ImulChain", "n dependent 64-bit IMULs in assembly: 3 core cycles per op on Intel's big cores and AMD Zen", chain.ImulFrom, true)
}

func addImmChainSpec() spec {
	return chainSpec("AddImmChain", "n dependent ADDs of the immediate 1 in assembly: 1 core cycle per op on most cores, "+
		"about 0.2 where the core folds them at rename (Golden Cove-class Intel)", chain.AddImmFrom, false)
}
