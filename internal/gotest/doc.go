// Package gotest runs go test for the CLI and fans measurements out over
// processes: [GoTest] builds and runs a package's benchmarks (in one
// process, or each run of -count in a process of its own) and reads what
// they print as a [results.File]; [Processes] starts the same command
// several times and [ReadProcessRun] / [MergeProcessRuns] gather what each
// child measured, in order.
//
// It is internal because it runs processes: package results only reads
// and writes files, and the CLI decides when to start a process.
package gotest
