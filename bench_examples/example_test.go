package benchexamples_test

import (
	"errors"
	"fmt"

	benchexamples "github.com/cyclebench/cyclebench/bench_examples"
)

func ExampleAll() {
	for _, k := range benchexamples.All() {
		fmt.Printf("%-10s %-15s default %v, cpe %v\n", k.Name, k.Seed, k.Default, k.CPE)
	}
	// Output:
	// SumLoop    seed 001        default true, cpe true
	// HashLoop   seed 002        default true, cpe true
	// Sleep      seed 002        default false, cpe false
	// SortInts   seed 003        default true, cpe false
	// BubbleSort seed 004        default true, cpe false
	// Factorize  seed 004        default true, cpe false
	// AddChain   reference chain default true, cpe true
	// ImulChain  reference chain default true, cpe true
	// AddImmChain reference chain default true, cpe true
	// Psum1      CS:APP 5        default true, cpe true
	// Psum2      CS:APP 5        default true, cpe true
	// Combine1   CS:APP 5        default true, cpe true
	// Combine2   CS:APP 5        default true, cpe true
	// Combine3   CS:APP 5        default true, cpe true
	// Combine4   CS:APP 5        default true, cpe true
	// Combine5   CS:APP 5        default true, cpe true
	// Combine6   CS:APP 5        default true, cpe true
}

func ExampleLookup() {
	k, err := benchexamples.Lookup("BubbleSort")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%s: n = %d %s by default, %d to %d allowed\n", k.Name, k.DefaultN, k.Unit, k.MinN, k.MaxN)

	_, err = benchexamples.Lookup("bubblesort") // names are case-sensitive
	fmt.Println(errors.Is(err, benchexamples.ErrUnknown))
	// Output:
	// BubbleSort: n = 1000 elements by default, 1 to 65536 allowed
	// true
}

func ExampleSelect() {
	ks, err := benchexamples.Select("Combine[4-6]|Chain")
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, k := range ks {
		fmt.Println(k.Name)
	}

	def, _ := benchexamples.Select("") // the default selection: everything but Sleep
	fmt.Println(len(def), "kernels by default")

	_, err = benchexamples.Select("Quicksort")
	fmt.Println(errors.Is(err, benchexamples.ErrNoMatch))
	// Output:
	// AddChain
	// ImulChain
	// AddImmChain
	// Combine4
	// Combine5
	// Combine6
	// 16 kernels by default
	// true
}

// Example_instance prepares a kernel for one size and runs the protocol a
// harness follows for every sample: Setup (untimed), Run (timed), Check.
func Example_instance() {
	k, err := benchexamples.Lookup("Factorize")
	if err != nil {
		fmt.Println(err)
		return
	}
	inst, err := k.New(10007 * 10009)
	if err != nil {
		fmt.Println(err)
		return
	}
	if inst.Setup != nil {
		inst.Setup()
	}
	inst.Run()
	fmt.Println("check:", inst.Check())
	fmt.Println(inst.Elements, k.Unit)

	_, err = k.New(3) // Factorize needs n ≥ 4
	fmt.Println(errors.Is(err, benchexamples.ErrBadSize))
	// Output:
	// check: <nil>
	// 5004 divisions
	// true
}
