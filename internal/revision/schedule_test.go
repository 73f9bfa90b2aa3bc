package revision_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/cyclebench/cyclebench/internal/revision"
	"github.com/cyclebench/cyclebench/results"
)

func TestSchedule(t *testing.T) {
	for _, c := range []struct {
		layouts, count int
		want           string
	}{
		{1, 1, "A0 B0"},
		{2, 1, "A0 B0 B1 A1"},
		{3, 1, "A0 B0 B1 A1 A2 B2"},
		{2, 2, "A0 B0 B1 A1 A0 B0 B1 A1"},
		{3, 2, "A0 B0 B1 A1 A2 B2 B0 A0 A1 B1 B2 A2"},
	} {
		t.Run(fmt.Sprintf("%dx%d", c.layouts, c.count), func(t *testing.T) {
			slots, err := revision.Schedule(c.layouts, c.count)
			if err != nil {
				t.Fatal(err)
			}
			var parts []string
			perSide := map[revision.Side]map[int]int{revision.A: {}, revision.B: {}}
			for _, s := range slots {
				parts = append(parts, fmt.Sprintf("%v%d", s.Side, s.Layout))
				perSide[s.Side][s.Layout]++
			}
			if got := strings.Join(parts, " "); got != c.want {
				t.Errorf("order %q, want %q", got, c.want)
			}
			for side, m := range perSide {
				for l := 0; l < c.layouts; l++ {
					if m[l] != c.count {
						t.Errorf("side %v layout %d runs %d times, want %d", side, l, m[l], c.count)
					}
				}
			}
		})
	}
	for _, bad := range [][2]int{{0, 1}, {1, 0}, {revision.MaxLayouts + 1, 1}} {
		if _, err := revision.Schedule(bad[0], bad[1]); !errors.Is(err, results.ErrBadInput) {
			t.Errorf("Schedule(%d, %d): %v, want ErrBadInput", bad[0], bad[1], err)
		}
	}
}

func TestSeeds(t *testing.T) {
	if got := fmt.Sprint(revision.Seeds(4)); got != "[1 2 3 4]" {
		t.Errorf("Seeds(4) = %s", got)
	}
}
