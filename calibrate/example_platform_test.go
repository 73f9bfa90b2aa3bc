package calibrate_test

import (
	"errors"
	"fmt"

	"github.com/cyclebench/cyclebench/calibrate"
)

// ImulLatency is the multiply latency the IMUL/ADD ratio is checked
// against, from the CPU table: Neoverse N1 4 cycles; unknown under
// emulation (and for the pure-Go chains, which are not single
// instructions).
func ExampleCPU_ImulLatency() {
	n1 := calibrate.CPU{GOARCH: "arm64", ArmImplementer: 0x41, ArmPart: 0xd0c}
	fmt.Println(n1.ImulLatency())
	emulated := calibrate.CPU{GOARCH: "arm64", ArmImplementer: 0, ArmPart: 0x51, Emulated: "qemu"}
	fmt.Println(emulated.ImulLatency())
}

// Under emulation, or with a counter that carries no CPU number, every
// calibration (and so every harness result) says so in its warnings.
func ExampleMeasure_platformWarnings() {
	c, err := calibrate.Get()
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, w := range c.Warnings {
		switch {
		case errors.Is(w, calibrate.ErrEmulated):
			fmt.Println("emulated:", c.CPU.Emulated)
		case errors.Is(w, calibrate.ErrNoMigrationCheck):
			fmt.Println("pin the thread: migration cannot be detected")
		}
	}
}
