package chain_test

import (
	"testing"

	"github.com/cyclebench/cyclebench/internal/chain"
)

func TestProbesComputeTheirSums(t *testing.T) {
	for _, tt := range []struct {
		name string
		f    func(uint64, int) uint64
		x    uint64
		n    int
		want uint64
	}{
		{"Branch", chain.Branch, 5, 10, 15},
		{"Branch/n=1", chain.Branch, 0, 1, 1},
		{"Branch/n=0", chain.Branch, 7, 0, 7},
		{"Branch/n<0", chain.Branch, 7, -3, 7},
		{"Wide", chain.Wide, 3, 10, 83},
		{"Wide/n=1", chain.Wide, 0, 1, 8},
		{"Wide/n=0", chain.Wide, 9, 0, 9},
		{"Room/calls=0", chain.Room, 9, 0, 9},
		{"Room/calls<0", chain.Room, 9, -2, 9},
		{"Room/calls=3", chain.Room, 2, 3, 2 + 3*3*chain.ImulFrom(1, chain.RoomLinks)},
	} {
		if got := tt.f(tt.x, tt.n); got != tt.want {
			t.Errorf("%s(%d, %d) = %d, want %d", tt.name, tt.x, tt.n, got, tt.want)
		}
	}
}
