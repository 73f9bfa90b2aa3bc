// Package blockrec is the record of one block of harness.Compare, as
// bench/peers/blocks writes it (one JSON line a block) and the harness's
// tests read it back from harness/testdata/blocks, so that a comparison
// rule can be judged offline on blocks recorded on real machines. The one
// type keeps the writer and the readers of those files in step.
package blockrec

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// Block is one recorded block of a comparison of two targets, A and B.
type Block struct {
	// Kind is "aa" (A against itself) or "ab" (A against B).
	Kind string `json:"kind"`
	// At is the block's start, seconds since the first block.
	At float64 `json:"at"`
	// A and B are the pairs, ticks per call, in measuring order.
	A []float64 `json:"a"`
	B []float64 `json:"b"`
	// TicksA and TicksB are the sides' K-best figures (ticks per call),
	// SpreadA and SpreadB their K best samples' spread relative to them.
	TicksA  float64 `json:"ticks_a"`
	TicksB  float64 `json:"ticks_b"`
	SpreadA float64 `json:"spread_a"`
	SpreadB float64 `json:"spread_b"`
	// Converged is true when both sides converged.
	Converged bool `json:"converged"`
	// Quantum is the counter quantum per call of the pairs, in ticks, and
	// R the calls per sample.
	Quantum float64 `json:"quantum"`
	R       int     `json:"r"`
	// ImulAdd is the ratio of the block's ruler chains (IMUL/ADD ticks per
	// link; the documented IMUL latency when the core is not shared), 0
	// when the ruler gave none; Wall is the block's time in its measuring
	// loop, seconds. Both say what state the machine was in.
	ImulAdd float64 `json:"imul_add,omitempty"`
	Wall    float64 `json:"wall,omitempty"`
	// Lagged is true when the block warned that its ruler's ADD chain
	// lagged its IMUL chain beyond the tolerance (harness.ErrRulerLag).
	Lagged bool `json:"lagged,omitempty"`
}

// ErrSyntax is wrapped by [Read]'s error for a line that is not a block.
var ErrSyntax = errors.New("blockrec: not a block record")

// maxLine bounds a record's line: a block of a few hundred pairs is a few
// kilobytes; the bound only keeps a corrupt file from filling memory.
const maxLine = 1 << 20

// Write writes b to w as one JSON line.
func Write(w io.Writer, b Block) error {
	return json.NewEncoder(w).Encode(b)
}

// Read reads the blocks of r, one JSON line each, skipping empty lines.
// A line that is not a block is an error wrapping [ErrSyntax] that names
// its number.
func Read(r io.Reader) ([]Block, error) {
	var bs []Block
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, maxLine)
	for line := 1; sc.Scan(); line++ {
		if len(sc.Bytes()) == 0 {
			continue
		}
		var b Block
		if err := json.Unmarshal(sc.Bytes(), &b); err != nil {
			return nil, fmt.Errorf("%w: line %d: %v", ErrSyntax, line, err)
		}
		bs = append(bs, b)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("blockrec: %w", err)
	}
	return bs, nil
}
