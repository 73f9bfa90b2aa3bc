// Package revision measures a Go package's benchmarks as revisions of
// its code in several code layouts: where the code came from ([Describe]:
// module, git revision, dirty flag), a git revision checked out in a
// temporary worktree ([Worktree]), test binaries built with the linker's
// -randlayout in many layouts and cached by commit ([Builder]), the order
// in which the two sides' processes run, alternated ([Schedule]), the
// verdict over layouts ([CompareLayouts]), and compare -base's report of
// it as JSON, a table and text ([Report]).
//
// It is internal because it runs git, the go command and processes; the
// CLI decides when to, and package results holds what is written.
//
// # Why layouts
//
// The Go linker's -ldflags=-randlayout=SEED places the same functions in
// another order, as an unrelated edit does: a branchy kernel's figure can
// move by 40% or more between layouts (issue 33, DESIGN.md "Code
// layout"), while every process of one binary shares its layout. A
// before/after verdict taken from one build per side measures the layout
// along with the change, so each side is built in several layouts and
// the verdict is taken over them (Mytkowicz et al., ASPLOS 2009;
// Stabilizer, ASPLOS 2013).
package revision
