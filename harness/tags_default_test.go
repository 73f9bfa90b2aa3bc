//go:build !noasm

package harness

// buildTags are the build tags this test binary was built with that a child
// "go test" must also use.
const buildTags = ""
