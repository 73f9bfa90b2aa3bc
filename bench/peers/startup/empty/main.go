// Command empty is the start-up floor: a Go program that exits at once, so
// that the start-up table shows what exec and the Go runtime cost before any
// tool does anything.
package main

func main() {}
