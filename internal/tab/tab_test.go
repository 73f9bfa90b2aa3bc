package tab

import (
	"math"
	"os"
	"strings"
	"testing"
)

// A table renders as aligned text, leaving out the columns empty in every
// row and the CSV-only ones; CSV keeps them all, under their keys.
func ExampleTable() {
	t := &Table{Cols: []Col{{Name: "name", Left: true}, {Name: "cycles", Key: "cycles_per_op", Digits: 4}, {Name: "empty"}, {Name: "note", CSV: true}}}
	t.Add("Sum", 1234.567, nil, "a")
	t.Add("Combine4", Shown{V: 98.7, Text: "~98.7"}, math.NaN(), "b")
	t.WriteText(os.Stdout)
	t.WriteCSV(os.Stdout)
	// Output:
	// name      cycles
	// Sum         1235
	// Combine4   ~98.7
	// name,cycles_per_op,empty,note
	// Sum,1234.567,,a
	// Combine4,98.7,,b
}

// TestDoc: a document is text as written, or markdown with its lines as
// paragraphs, its items as a list and its key/value tables as lists.
func TestDoc(t *testing.T) {
	for _, md := range []bool{false, true} {
		d := NewDoc(md)
		d.Heading("Sum")
		d.Item("one")
		d.Table(KVLines([][2]string{{"CPE", "1.0"}}))
		d.Line("done")
		var b strings.Builder
		if err := d.Render(&b); err != nil {
			t.Fatal(err)
		}
		want := "Sum\none\nCPE  1.0\ndone\n"
		if md {
			want = "### Sum\n\n- one\n\n- **CPE** 1.0\n\ndone\n"
		}
		if b.String() != want {
			t.Errorf("md %v: got %q, want %q", md, b.String(), want)
		}
	}
}

func TestWrapList(t *testing.T) {
	got := WrapList("same: ", []string{"goos linux", "goarch amd64", "cpu AMD EPYC"}, 32)
	if want := "same: goos linux, goarch amd64,\ncpu AMD EPYC"; got != want {
		t.Errorf("WrapList = %q, want %q", got, want)
	}
}
