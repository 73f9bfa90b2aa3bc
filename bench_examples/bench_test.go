package benchexamples

import "testing"

// benchN is the small size each default kernel is benchmarked at.
func benchN(k Kernel) int {
	switch k.Name {
	case "HashLoop", "SortInts":
		return 10_000
	case "BubbleSort":
		return 100
	case "Factorize":
		return 10007 * 10009 // 5004 divisions
	}
	return min(k.DefaultN, 1000)
}

// BenchmarkKernels times every kernel of the default selection at a small
// size with the plain testing loop (Setup excluded from the timing), and
// reports the time per element in the kernel's unit.
func BenchmarkKernels(b *testing.B) {
	ks, err := Select("")
	if err != nil {
		b.Fatal(err)
	}
	for _, k := range ks {
		b.Run(k.Name, func(b *testing.B) {
			inst, err := k.New(benchN(k))
			if err != nil {
				b.Fatal(err)
			}
			for b.Loop() {
				if inst.Setup != nil {
					b.StopTimer()
					inst.Setup()
					b.StartTimer()
				}
				inst.Run()
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/inst.Elements, "ns/"+unitSingular(k.Unit))
			if err := inst.Check(); err != nil {
				b.Fatal(err)
			}
		})
	}
}

func unitSingular(u string) string {
	switch u {
	case "elements":
		return "element"
	case "iterations":
		return "iteration"
	case "divisions":
		return "division"
	case "ops":
		return "link" // not "op": ns/op is the benchmark's own figure
	}
	return u
}
