// Command flagcheck prints the flags registered on flag.CommandLine by the
// time main runs in a program that imports harness (which imports testing):
// none may be the testing package's "test." flags.
package main

import (
	"flag"
	"fmt"

	"github.com/cyclebench/cyclebench/harness"
)

func main() {
	_ = harness.DefaultConfig()
	flag.CommandLine.VisitAll(func(f *flag.Flag) { fmt.Println(f.Name) })
	fmt.Println("flags listed")
}
