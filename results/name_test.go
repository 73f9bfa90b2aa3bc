package results

import "testing"

func TestParseName(t *testing.T) {
	tests := []struct {
		in   string
		want Name
	}{
		{"Combine4/n=1000", Name{Full: "Combine4/n=1000", Base: "Combine4", SizeKey: "n", N: 1000}},
		{"Combine4/n=1000/mode=latency", Name{Full: "Combine4/n=1000", Base: "Combine4", SizeKey: "n", N: 1000, Mode: "latency"}},
		{"Combine/Combine4/n=200-2", Name{Full: "Combine/Combine4/n=200", Base: "Combine/Combine4", SizeKey: "n", N: 200, Procs: 2}},
		{"Sum/size=64-16", Name{Full: "Sum/size=64", Base: "Sum", SizeKey: "size", N: 64, Procs: 16}},
		{"Sum/len=8", Name{Full: "Sum/len=8", Base: "Sum", SizeKey: "len", N: 8}},
		{"Sum/elements=0", Name{Full: "Sum/elements=0", Base: "Sum", SizeKey: "elements", N: 0}},
		{"Sum/N=5", Name{Full: "Sum/N=5", Base: "Sum", SizeKey: "n", N: 5}},
		{"Sum/n=100/acc=4", Name{Full: "Sum/n=100/acc=4", Base: "Sum/acc=4", SizeKey: "n", N: 100}},
		{"Sum/acc=4/n=100-8", Name{Full: "Sum/acc=4/n=100", Base: "Sum/acc=4", SizeKey: "n", N: 100, Procs: 8}},
		// Only the first size part is the size.
		{"Sum/n=1/len=2", Name{Full: "Sum/n=1/len=2", Base: "Sum/len=2", SizeKey: "n", N: 1}},
		// Factorize's n does not fit in 32 bits.
		{"Factorize/n=352700091909229843", Name{Full: "Factorize/n=352700091909229843", Base: "Factorize", SizeKey: "n", N: 352700091909229843}},
		// Not sizes: the value is not a non-negative decimal integer.
		{"Sum/n=1e6", Name{Full: "Sum/n=1e6", Base: "Sum/n=1e6"}},
		{"Sum/n=big", Name{Full: "Sum/n=big", Base: "Sum/n=big"}},
		{"Sum/n=+5", Name{Full: "Sum/n=+5", Base: "Sum/n=+5"}},
		{"Sum/n=99999999999999999999", Name{Full: "Sum/n=99999999999999999999", Base: "Sum/n=99999999999999999999"}},
		{"Sum/n=", Name{Full: "Sum/n=", Base: "Sum/n="}},
		{"Sum/count=5", Name{Full: "Sum/count=5", Base: "Sum/count=5"}},
		// The first part is the benchmark, never a size.
		{"n=5", Name{Full: "n=5", Base: "n=5"}},
		// Mode parts in any case; an empty mode is not a mode part.
		{"AddChain/n=10/MODE=Latency", Name{Full: "AddChain/n=10", Base: "AddChain", SizeKey: "n", N: 10, Mode: "latency"}},
		{"AddChain/mode=", Name{Full: "AddChain/mode=", Base: "AddChain/mode="}},
		// GOMAXPROCS: the last '-' followed by digits only.
		{"Sum-4", Name{Full: "Sum", Base: "Sum", Procs: 4}},
		{"Sum/one-acc", Name{Full: "Sum/one-acc", Base: "Sum/one-acc"}},
		{"Sum-", Name{Full: "Sum-", Base: "Sum-"}},
		{"Sum-0", Name{Full: "Sum-0", Base: "Sum-0"}},
		{"SumLoop", Name{Full: "SumLoop", Base: "SumLoop"}},
		{"", Name{}},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			if got := ParseName(tt.in); got != tt.want {
				t.Errorf("ParseName(%q) = %+v, want %+v", tt.in, got, tt.want)
			}
		})
	}
}

func TestNameSize(t *testing.T) {
	for _, tt := range []struct {
		in, want string
	}{{"Sum/size=64-2", "size=64"}, {"Sum", ""}, {"Sum/N=3", "n=3"}} {
		if got := ParseName(tt.in).Size(); got != tt.want {
			t.Errorf("ParseName(%q).Size() = %q, want %q", tt.in, got, tt.want)
		}
	}
}
