package chain_test

import (
	"fmt"

	"github.com/cyclebench/cyclebench/internal/chain"
)

// AddFrom chains calls so that each costs exactly n dependent ADDs.
func ExampleAddFrom() {
	s := chain.AddFrom(0, 1000)
	s = chain.AddFrom(s, 24)
	fmt.Println(s)
	// Output: 1024
}

// AddImm computes the same sum as Add with an immediate operand, which
// some cores fold at rename: it shows the folding and is never a ruler.
func ExampleAddImm() {
	fmt.Println(chain.AddImm(1000) == chain.Add(1000))
	// Output: true
}
