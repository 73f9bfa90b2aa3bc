package calibrate

import (
	"strings"
	"testing"

	"github.com/cyclebench/cyclebench/internal/chain"
)

func TestCPUTable(t *testing.T) {
	tests := []struct {
		name   string
		cpu    CPU
		core   string // a part of the name; "" for not in the table
		imul   float64
		folds  Fold
		source string // a part of the source
	}{
		{"emerald rapids (this project's Intel guest)", CPU{GOARCH: "amd64", Vendor: "GenuineIntel", Family: 6, Model: 207}, "Emerald Rapids", 3, FoldYes, "0.2 cycles"},
		{"sapphire rapids", CPU{GOARCH: "amd64", Vendor: "GenuineIntel", Family: 6, Model: 0x8f}, "Sapphire Rapids", 3, FoldYes, "Intel"},
		{"granite rapids", CPU{GOARCH: "amd64", Vendor: "GenuineIntel", Family: 6, Model: 0xad}, "Granite Rapids", 3, FoldYes, "Intel"},
		{"skylake server", CPU{GOARCH: "amd64", Vendor: "GenuineIntel", Family: 6, Model: 0x55}, "Skylake", 3, FoldNo, "Intel"},
		{"ice lake server", CPU{GOARCH: "amd64", Vendor: "GenuineIntel", Family: 6, Model: 0x6a}, "Ice Lake", 3, FoldNo, "Intel"},
		{"alder lake: hybrid, not vouched for", CPU{GOARCH: "amd64", Vendor: "GenuineIntel", Family: 6, Model: 0x97}, "hybrid", 0, FoldUnknown, "Intel"},
		{"silvermont atom: left out", CPU{GOARCH: "amd64", Vendor: "GenuineIntel", Family: 6, Model: 0x37}, "", 0, FoldUnknown, ""},
		{"netburst: left out", CPU{GOARCH: "amd64", Vendor: "GenuineIntel", Family: 15, Model: 4}, "", 0, FoldUnknown, ""},
		{"zen 3", CPU{GOARCH: "amd64", Vendor: "AuthenticAMD", Family: 25, Model: 1}, "Zen 3", 3, FoldNo, "AMD"},
		{"zen 4", CPU{GOARCH: "amd64", Vendor: "AuthenticAMD", Family: 25, Model: 17}, "Zen 4", 3, FoldNo, "AMD"},
		{"zen 5", CPU{GOARCH: "amd64", Vendor: "AuthenticAMD", Family: 26, Model: 2}, "Zen 5", 3, FoldNo, "AMD"},
		{"hygon dhyana", CPU{GOARCH: "amd64", Vendor: "HygonGenuine", Family: 24, Model: 1}, "Hygon", 3, FoldNo, "AMD"},
		{"bulldozer: left out", CPU{GOARCH: "amd64", Vendor: "AuthenticAMD", Family: 21, Model: 1}, "", 0, FoldUnknown, ""},
		{"unknown vendor", CPU{GOARCH: "amd64", Vendor: "CentaurHauls", Family: 6, Model: 15}, "", 0, FoldUnknown, ""},
		{"neoverse n1", CPU{GOARCH: "arm64", ArmImplementer: 0x41, ArmPart: 0xd0c}, "Neoverse N1", 4, FoldUnknown, "Arm"},
		{"neoverse v1", CPU{GOARCH: "arm64", ArmImplementer: 0x41, ArmPart: 0xd40}, "Neoverse V1", 2, FoldUnknown, "Arm"},
		{"cortex-a76", CPU{GOARCH: "arm64", ArmImplementer: 0x41, ArmPart: 0xd0b}, "Cortex-A76", 4, FoldUnknown, "Arm"},
		{"unlisted arm core", CPU{GOARCH: "arm64", ArmImplementer: 0x41, ArmPart: 0xd03}, "", 0, FoldUnknown, ""},
		{"apple", CPU{GOARCH: "arm64", ArmImplementer: 0x61, ArmPart: 0x022}, "", 0, FoldUnknown, ""},
		{"qemu's own cpu (implementer 0)", CPU{GOARCH: "arm64", ArmImplementer: 0, ArmPart: 0x051}, "", 0, FoldUnknown, ""},
		{"emulated neoverse: the table does not apply", CPU{GOARCH: "arm64", ArmImplementer: 0x41, ArmPart: 0xd0c, Emulated: "qemu"}, "", 0, FoldUnknown, ""},
		{"x86 figures on an arm64 build do not apply", CPU{GOARCH: "arm64", Vendor: "AuthenticAMD", Family: 25, ArmImplementer: -1, ArmPart: -1}, "", 0, FoldUnknown, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := tt.cpu.Microarch()
			if tt.core == "" {
				if m != (Microarch{}) {
					t.Fatalf("Microarch() = %+v, want nothing known", m)
				}
			} else if !strings.Contains(m.Name, tt.core) || !strings.Contains(m.Source, tt.source) {
				t.Fatalf("Microarch() = %+v, want a name with %q and a source with %q", m, tt.core, tt.source)
			}
			if m.ImulLatency != tt.imul || m.FoldsAddImm != tt.folds {
				t.Fatalf("Microarch() = %+v, want IMUL %v, folds %v", m, tt.imul, tt.folds)
			}
			lat, known := tt.cpu.ImulLatency()
			want := tt.imul
			if !chain.Exact() {
				want = 0 // the pure-Go chains have no documented latency
			}
			if lat != want || known != (want > 0) {
				t.Fatalf("ImulLatency() = %v, %v; want %v, %v", lat, known, want, want > 0)
			}
			if s := m.String(); s == "" || (tt.core != "" && !strings.Contains(s, tt.core)) {
				t.Fatalf("String() = %q", s)
			}
		})
	}
}
