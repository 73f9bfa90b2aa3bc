package chain_test

import (
	"fmt"

	"github.com/cyclebench/cyclebench/internal/chain"
)

// The documented MUL latency of an arm64 core, looked up by the MIDR_EL1
// fields Linux prints in /proc/cpuinfo.
func ExampleImulLatencyArm() {
	for _, part := range []int{0xd0c, 0xd40, 0xd03} {
		cycles, core, known := chain.ImulLatencyArm(0x41, part)
		fmt.Printf("part %#x: %q %v cycles (known %v)\n", part, core, cycles, known)
	}
	// Output:
	// part 0xd0c: "Neoverse N1" 4 cycles (known true)
	// part 0xd40: "Neoverse V1" 2 cycles (known true)
	// part 0xd03: "" 0 cycles (known false)
}

// AddFrom chains calls so that each costs exactly n dependent ADDs.
func ExampleAddFrom() {
	s := chain.AddFrom(0, 1000)
	s = chain.AddFrom(s, 24)
	fmt.Println(s)
	// Output: 1024
}
