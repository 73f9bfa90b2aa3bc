package main

// Tests of the flows a new user walks first (issue 22): saving results and
// comparing them, help texts that hold only flags that exist, bad input
// files.

import (
	"encoding/json"
	"errors"
	"io"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/cyclebench/cyclebench/harness"
	"github.com/cyclebench/cyclebench/internal/reports"
	"github.com/cyclebench/cyclebench/results"
	"github.com/cyclebench/cyclebench/stats"
)

func TestFormatOfPath(t *testing.T) {
	all := []string{formatTable, formatBench, formatJSON, formatCSV, formatMD}
	plain := []string{formatTable, formatJSON, formatCSV}
	tests := []struct {
		path    string
		allowed []string
		want    string // "error": a usage error naming the known extensions
	}{
		{"old.json", all, formatJSON},
		{"dir.d/OLD.JSON", all, formatJSON},
		{"r.csv", all, formatCSV},
		{"new.txt", all, formatBench},
		{"new.bench", all, formatBench},
		{"r.md", all, formatMD},
		{"out.xyz", all, "error"},
		{"r.svg", all, "error"},
		{"noext", all, ""},
		{"new.txt", plain, ""}, // no benchmark format: -format's default (text) stays
		{"r.md", plain, "error"},
		{"r.json", plain, formatJSON},
	}
	for _, tt := range tests {
		got, err := formatOfPath(tt.path, tt.allowed)
		var ue *usageError
		switch {
		case tt.want == "error" && (!errors.As(err, &ue) || !strings.Contains(err.Error(), ".json, .csv")):
			t.Errorf("formatOfPath(%q, %v): error %v, want a usage error naming .json, .csv", tt.path, tt.allowed, err)
		case tt.want != "error" && (got != tt.want || err != nil):
			t.Errorf("formatOfPath(%q, %v) = %q, %v; want %q", tt.path, tt.allowed, got, err, tt.want)
		}
	}
	// On the command line: exit 2, nothing measured.
	_, _, err := runCLI(t, "run", "-o", "out.xyz")
	if code := exitStatus(err, io.Discard); code != exitUsage || !strings.Contains(err.Error(), `".xyz"`) {
		t.Errorf("run -o out.xyz: exit %d, err %v; want 2 naming the extension", code, err)
	}
}

// TestOutputFormatFromExtension: -o FILE picks the format from the
// extension unless -format or -json says otherwise, and writes what the
// same command with that -format prints.
func TestOutputFormatFromExtension(t *testing.T) {
	td := func(name string) string { return filepath.Join("testdata", name) }
	files := []string{td("compare_a.json"), td("compare_b.json")}
	dir := t.TempDir()
	tests := []struct {
		file string
		args []string // after the files
		same []string // the -format flags whose stdout the file must equal
	}{
		{"cmp.json", nil, []string{"-format", "json"}},
		{"cmp.csv", nil, []string{"-format", "csv"}},
		{"cmp.txt", nil, []string{"-format", "bench"}},
		{"cmp2.json", []string{"-format", "table"}, []string{"-format", "table"}},
		{"cmp3.csv", []string{"-json"}, []string{"-format", "json"}},
	}
	for _, tt := range tests {
		t.Run(tt.file+" "+strings.Join(tt.args, " "), func(t *testing.T) {
			useFake(t)
			path := filepath.Join(dir, tt.file)
			args := append(append([]string{"compare", "-o", path}, files...), tt.args...)
			if out, errOut, err := runCLI(t, args...); err != nil || out != "" {
				t.Fatalf("run(%q) = %v, stdout %q, stderr %q", args, err, out, errOut)
			}
			got, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			want, _, err := runCLI(t, append(append([]string{"compare"}, files...), tt.same...)...)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != want {
				t.Errorf("-o %s wrote\n%s\nwant what %v prints:\n%s", tt.file, got, tt.same, want)
			}
		})
	}
	t.Run("info -o x.txt", func(t *testing.T) {
		useFake(t)
		path := filepath.Join(dir, "info.txt")
		if _, _, err := runCLI(t, "info", "-o", path); err != nil {
			t.Fatal(err)
		}
		got, _ := os.ReadFile(path)
		want, _, _ := runCLI(t, "info")
		if string(got) != want {
			t.Errorf("info -o info.txt wrote\n%s\nwant the table info prints", got)
		}
	})
}

// TestRunFileCount: run -o FILE measures each kernel fileCount times unless
// -count says otherwise, so that two saved runs can be compared.
func TestRunFileCount(t *testing.T) {
	if testing.Short() {
		t.Skip("measures")
	}
	dir := t.TempDir()
	for _, tt := range []struct {
		args []string
		want int
	}{
		{nil, results.FileRuns},
		{[]string{"-count", "1"}, 1},
		{[]string{"-count", "2"}, 2},
	} {
		path := filepath.Join(dir, "r.json")
		args := append([]string{"run", "-bench", "^AddChain$", "-n", "200", "-m", "40", "-q", "-o", path}, tt.args...)
		// Exit status 1 (a result that did not converge in 40 samples) still
		// writes every result: only the count is judged here.
		if _, _, err := runCLI(t, args...); err != nil && !isExit1(err) {
			t.Fatalf("run(%q) = %v", args, err)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		var r struct {
			Results []json.RawMessage `json:"results"`
		}
		if err := json.Unmarshal(data, &r); err != nil {
			t.Fatalf("%s is not the JSON report the extension asks for: %v", path, err)
		}
		if len(r.Results) != tt.want {
			t.Errorf("run %v: %d results, want %d", tt.args, len(r.Results), tt.want)
		}
	}
}

// flagMention is a flag a help text names: the subcommand it belongs to
// (the one whose help it is, or the one named before it on the line, as
// in "see cyclebench run -list") and whether it is said of the package
// mode (the "Go packages:" section, or the help of cmd ./PKG -h).
type flagMention struct {
	cmd, flag string
	pkg       bool
}

// mentionRE finds, in order, what decides whose flag a token is: a
// cyclebench subcommand (or cyclebench's own --version), another tool
// (whose flags are its own), and flags.
var mentionRE = regexp.MustCompile("(cyclebench ([a-z]+|-))|(go (test|build|install|run)|benchstat|staticcheck)|(^|[ \\t(\\[,|`'\"/])(-{1,2}[a-z][a-z0-9-]*)")

// flagMentions lists the flags the help text of cmd names; pkg says
// whether it is the help of the package mode. Within a line, a flag after
// "cyclebench X" is X's, in the package mode when a package pattern
// follows X on the line; one after "go test" or "benchstat" is that tool's
// and not listed. The "Go packages:" section of a help, up to its
// examples, is said of the package mode.
func flagMentions(cmd, help string, pkg bool) []flagMention {
	var ms []flagMention
	section := pkg
	for _, line := range strings.Split(help, "\n") {
		switch {
		case strings.HasPrefix(line, "Go packages:"):
			section = true
		case strings.HasPrefix(line, "examples:"):
			section = pkg
		}
		owner, ownerPkg := cmd, section
		for _, m := range mentionRE.FindAllStringSubmatchIndex(line, -1) {
			sub := func(i int) string {
				if m[2*i] < 0 {
					return ""
				}
				return line[m[2*i]:m[2*i+1]]
			}
			switch {
			case sub(2) == "-":
				owner = "" // cyclebench --version: tested with the top-level help
			case sub(2) != "":
				if _, ok := lookup(sub(2)); ok {
					owner, ownerPkg = sub(2), packageArgs(strings.Fields(line[m[1]:]))
				}
			case sub(3) != "":
				owner = "" // another tool's flags follow
			case sub(6) != "" && owner != "" && sub(6) != "-h" && sub(6) != "--help":
				ms = append(ms, flagMention{owner, sub(6), ownerPkg})
			}
		}
	}
	return ms
}

// TestHelpFlagsExist: every flag that a -h text names exists. Each help
// text (cyclebench CMD -h, and cyclebench CMD ./PKG -h for the subcommands
// that take packages) is parsed for flags, and each is tried on the
// subcommand it belongs to, in the mode it is said of, as -flag=1 followed
// by -h: a flag that is not defined fails the parse before -h; one whose
// value "1" is wrong fails with another message; one that exists and takes
// "1" prints the help. Nothing is measured.
func TestHelpFlagsExist(t *testing.T) {
	pkgDir := filepath.Join("..", "..", "examples", "sums")
	type help struct {
		cmd string
		pkg bool
	}
	var helps []help
	for _, c := range commands {
		helps = append(helps, help{c.name, false})
		if packageHelp(c.name) != "" {
			helps = append(helps, help{c.name, true})
		}
	}
	tried := 0
	for _, h := range helps {
		args := []string{h.cmd, "-h"}
		if h.pkg {
			args = []string{h.cmd, pkgDir, "-h"}
		}
		out, _, err := runCLI(t, args...)
		if err != nil {
			t.Fatalf("%q: %v", args, err)
		}
		ms := flagMentions(h.cmd, out, h.pkg)
		if len(ms) < 3 {
			t.Errorf("%q: %d flags found in the help, want its flags:\n%s", args, len(ms), out)
		}
		for _, m := range ms {
			try := []string{m.cmd, m.flag + "=1", "-h"}
			if m.pkg {
				try = []string{m.cmd, pkgDir, m.flag + "=1", "-h"}
			}
			tried++
			_, _, err := runCLI(t, try...)
			if err != nil && strings.Contains(err.Error(), "not defined") {
				t.Errorf("%s: the help of %q names %s, which %q does not take: %v", h.cmd, args, m.flag, try[:len(try)-2], err)
			}
		}
	}
	t.Logf("%d flag mentions tried", tried)
}

// writeRuns writes what cyclebench run -o FILE.json writes for kernel
// AddChain/n=1000 measured once per figure in cycles, the runs listed in
// unconverged marked as not converged.
func writeRuns(t *testing.T, path string, cycles []float64, unconverged ...int) {
	t.Helper()
	cal := fakeCalibration(1.4, 2596141000)
	var rs []results.Measurement
	for i, c := range cycles {
		r := harness.Result{Name: "AddChain/n=1000", Cycles: c, Ticks: c / 1.4, Nanoseconds: c / 1.4 / 2.596141, CyclesPerTick: 1.4,
			ReferenceConverged: true, Converged: !slices.Contains(unconverged, i), Samples: 40, Repeat: 10, Elements: 1000, Spread: 0.001,
			Config: harness.Config{Epsilon: 0.01}}
		r.CyclesPerElement, r.TicksPerElement, r.NsPerElement = r.Cycles/1000, r.Ticks/1000, r.Nanoseconds/1000
		rs = append(rs, results.Measurement{Result: r, Kernel: "AddChain", N: 1000, Unit: "ops", Check: "ok", Bench: r.Name, PerElement: true})
	}
	var b strings.Builder
	if err := writeResults(&b, formatJSON, newHeader("run", cal, harness.DefaultConfig(), nil), rs); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestCompareFilesVerdicts: two saved runs compare with no flag: each
// benchmark gets a verdict and one sentence; a side with a run that did
// not converge makes it inconclusive; one run per side says which flag to
// add.
func TestCompareFilesVerdicts(t *testing.T) {
	dir := t.TempDir()
	old, new := filepath.Join(dir, "old.json"), filepath.Join(dir, "new.json")
	tests := []struct {
		name        string
		a, b        []float64
		unconverged []int // runs of b
		verdict     string
		says        string
	}{
		{"slower", []float64{1000, 1001, 1000.5}, []float64{1100, 1101, 1100.2}, nil, stats.VerdictSlower, "old.json ran 1.100 ± 0.002 times faster than new.json (cycles/op)"},
		{"same", []float64{1000, 1001, 1000.5}, []float64{1000.2, 1001.1, 1000.4}, nil, stats.VerdictSame, "new.json and old.json ran equally fast"},
		{"not converged", []float64{1000, 1001, 1000.5}, []float64{1100, 1101, 1100.2}, []int{1}, stats.VerdictInconclusive, "inconclusive, new.json against old.json: 1 of 3 runs of B did not converge"},
		{"one run each", []float64{1000}, []float64{1100}, nil, stats.VerdictNoTest, "no verdict on new.json against old.json: 1 run per side"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			writeRuns(t, old, tt.a)
			writeRuns(t, new, tt.b, tt.unconverged...)
			out, errOut, err := runCLI(t, "compare", old, new)
			if err != nil {
				t.Fatalf("compare: %v (stderr %q)", err, errOut)
			}
			if !strings.Contains(out, "AddChain/n=1000: "+tt.says) {
				t.Errorf("output lacks %q:\n%s", tt.says, out)
			}
			if tt.verdict == stats.VerdictNoTest && !strings.Contains(out, "cyclebench run -o FILE writes 3") {
				t.Errorf("output does not say which flag to add:\n%s", out)
			}
			js, _, err := runCLI(t, "compare", old, new, "-format", "json")
			if err != nil {
				t.Fatal(err)
			}
			var j struct {
				Rows []results.CompareRow `json:"results"`
			}
			if err := json.Unmarshal([]byte(js), &j); err != nil {
				t.Fatal(err)
			}
			if len(j.Rows) != 1 || j.Rows[0].Verdict != tt.verdict || j.Rows[0].Metrics[0].Verdict != tt.verdict {
				t.Errorf("JSON rows %+v, want verdict %q", j.Rows, tt.verdict)
			}
		})
	}
}

// TestCompareGlob: compare over a glob that caught a file which is not a
// result file, and two files of one machine: the matrix, one warning for
// the skipped file, the two files pooled as one machine's runs (so the
// verdicts count two machines, not three), said in a line on stderr too,
// every line within 100 columns.
func TestCompareGlob(t *testing.T) {
	dir := t.TempDir()
	copyFile := func(from, to string) string {
		data, err := os.ReadFile(from)
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, to)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	zen5 := copyFile(resultsTestdata("kvm-amd-zen5-run.txt"), "kvm-amd-zen5-run.txt")
	zen4 := copyFile(resultsTestdata("kvm-amd-zen4-run-count3.json"), "kvm-amd-zen4-run.json")
	zen4b := copyFile(resultsTestdata("kvm-amd-zen4-run-count3.json"), "kvm-amd-zen4-run-again.json")
	readme := copyFile(resultsTestdata("README.md"), "README.md")
	out, errOut, err := runCLI(t, "compare", zen5, zen4, zen4b, readme)
	if err != nil {
		t.Fatalf("compare: %v (stderr %q)", err, errOut)
	}
	if lines := strings.Split(strings.TrimSpace(errOut), "\n"); len(lines) != 2 || !strings.HasPrefix(lines[1], "note: ") || !strings.Contains(lines[1], "2 files of one machine") ||
		!strings.HasPrefix(lines[0], "warning: skipped a file: not a result file: "+readme) {
		t.Errorf("stderr %q, want a note on the pooled files and one warning naming %s", errOut, readme)
	}
	flat := strings.Join(strings.Fields(out), " ")
	for _, want := range []string{"2 files of one machine", "pooled as the runs of one column", "fastest on both machines", "(up to 6)"} {
		if !strings.Contains(flat, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	for _, l := range strings.Split(out, "\n") {
		if n := len([]rune(l)); n > 100 && !strings.Contains(l, dir) {
			t.Errorf("a line of %d columns: %q", n, l)
		}
	}
	// -per-file keeps three columns; a glob of one result file and junk is
	// bad input.
	out, _, err = runCLI(t, "compare", "-per-file", zen5, zen4, zen4b, readme)
	if err != nil || strings.Contains(out, "pooled") || !strings.Contains(strings.Join(strings.Fields(out), " "), "all 3 machines") {
		t.Errorf("-per-file: %v\n%s", err, out)
	}
	_, _, err = runCLI(t, "compare", zen5, readme, readme)
	if st := exitStatus(err, io.Discard); st != exitUsage {
		t.Errorf("one result file and two others: exit status %d (%v), want %d", st, err, exitUsage)
	}
}

// TestTableHidesEmptyColumns: the text rendering leaves out a column with
// nothing in any row (nil, "", "-", NaN); CSV keeps every column, so its
// header does not depend on the data; a table without rows keeps its
// header.
func TestTableHidesEmptyColumns(t *testing.T) {
	tab := &table{Cols: []col{{Name: "name", Left: true}, {Name: "R"}, {Name: "unit", Left: true}, {Name: "spread"}, {Name: "cycles"}}}
	tab.Add("a", nil, "-", math.NaN(), 1.5)
	tab.Add("b", nil, "", nil, 2.5)
	var text, csvOut strings.Builder
	if err := tab.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	if want := "name  cycles\na        1.5\nb        2.5\n"; text.String() != want {
		t.Errorf("text:\n%s\nwant:\n%s", text.String(), want)
	}
	if err := tab.WriteCSV(&csvOut); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(csvOut.String(), "name,R,unit,spread,cycles\n") {
		t.Errorf("CSV header %q, want every column", csvOut.String())
	}
	empty := &table{Cols: tab.Cols}
	text.Reset()
	empty.WriteText(&text)
	if text.String() != "name  R  unit  spread  cycles\n" {
		t.Errorf("a table without rows: %q", text.String())
	}
}

// TestWarnResults: one line per distinct problem per benchmark (a problem
// of several sizes or runs is one line naming them), no doubled prefixes,
// no result named twice in a line, the machine's warnings once whichever
// result carried them, a remedy where there is one, and the count last.
func TestWarnResults(t *testing.T) {
	hv := "calibrate: running under a hypervisor (KVMKVMKVM): the counter may be virtualised"
	ws := []reports.Warning{
		{Subject: "", Text: hv},
		{Subject: "Sum1/n=400 (latency)", Text: "harness.ReportSweep: warning: harness: two modes: BenchmarkSum1/mode=latency/n=400: the samples form two clusters, from 420 cycles"},
		{Subject: "Sum1/n=800 (latency)", Text: "harness.ReportSweep: warning: " + hv},
		{Subject: "Sum1/n=800 (latency)", Text: "harness: two modes: BenchmarkSum1/mode=latency/n=800: the samples form two clusters, from 820 cycles"},
		{Subject: "Sum4/n=400", Text: "harness: did not converge: spread of the 3 best is 3% after 1000 samples; remedy: raise Config.MaxTime"},
		{Subject: "Sum4/n=400", Text: "harness: many samples discarded: 4 of 32"},
	}
	var b strings.Builder
	(&out{stderr: &b}).warnResults(ws)
	want := []string{
		"warning: " + hv,
		"warning: Sum1 (latency): harness: two modes in 2 results (n=400, n=800); the first, at n=400: the samples form two clusters, from 420 cycles; remedy: " + harness.Remedy("harness: two modes"),
		"warning: Sum4/n=400: harness: did not converge: spread of the 3 best is 3% after 1000 samples; remedy: raise Config.MaxTime",
		"warning: Sum4/n=400: harness: many samples discarded: 4 of 32; remedy: " + harness.Remedy("harness: many samples discarded"),
		"warning: 3 problems in 2 benchmarks, above (-q leaves warnings out; -format json has them in full)",
	}
	got := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	if !slices.Equal(got, want) {
		t.Errorf("stderr:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	for _, l := range got {
		if strings.Count(l, "warning:") > 1 || strings.Contains(l, "harness.Report") || strings.Contains(l, "BenchmarkSum1") {
			t.Errorf("line repeats itself: %q", l)
		}
	}
	var quiet strings.Builder
	(&out{stderr: &quiet, quiet: true}).warnResults(ws)
	if quiet.Len() != 0 {
		t.Errorf("-q printed %q", quiet.String())
	}
}

// TestPartialOutputs: an interrupted run's output says it is partial in
// every format (a first line in text, "# partial:" in the benchmark
// format, a field in JSON), and a file read back carries it as a warning.
func TestPartialOutputs(t *testing.T) {
	dir := t.TempDir()
	cal := fakeCalibration(1.4, 2596141000)
	h := newHeader("run", cal, harness.DefaultConfig(), nil)
	h.Partial = "interrupted by SIGINT after 2 of 15 measurements"
	r := harness.Result{Name: "AddChain/n=1000", Cycles: 1000, Ticks: 714, Nanoseconds: 275, CyclesPerTick: 1.4, ReferenceConverged: true, Converged: true, Samples: 40, Repeat: 10}
	rs := []results.Measurement{{Result: r, Kernel: "AddChain", N: 1000, Unit: "ops", Check: "ok", Bench: r.Name}}
	for _, tt := range []struct{ format, want string }{
		{formatTable, "PARTIAL: " + h.Partial + "\ncpu: "},
		{formatBench, "\n# partial: " + h.Partial + "\n"},
		{formatJSON, `"partial": "` + h.Partial + `"`},
	} {
		var b strings.Builder
		if err := writeResults(&b, tt.format, h, rs); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(b.String(), tt.want) {
			t.Errorf("%s output lacks %q:\n%s", tt.format, tt.want, b.String())
		}
		if tt.format == formatTable {
			continue
		}
		path := filepath.Join(dir, "r."+tt.format)
		os.WriteFile(path, []byte(b.String()), 0o644)
		f, err := results.Read(path)
		if err != nil {
			t.Fatal(err)
		}
		if f.Partial != h.Partial || !slices.ContainsFunc(f.Warnings, func(e error) bool { return errors.Is(e, results.ErrPartial) }) {
			t.Errorf("%s read back: partial %q, warnings %v", tt.format, f.Partial, f.Warnings)
		}
	}
	var whole strings.Builder
	h.Partial = ""
	writeResults(&whole, formatJSON, h, rs)
	if strings.Contains(whole.String(), "partial") {
		t.Errorf("a whole run says partial:\n%s", whole.String())
	}
}

// checkMarkdownTables fails unless every table in md is well formed: a
// header row, a rule row of ---, then rows with as many cells as the
// header; and returns how many tables there are.
func checkMarkdownTables(t *testing.T, md string) int {
	t.Helper()
	cells := func(l string) int { return strings.Count(strings.ReplaceAll(l, `\|`, ""), "|") - 1 }
	lines := strings.Split(md, "\n")
	tables := 0
	for i := 0; i < len(lines); i++ {
		if !strings.HasPrefix(lines[i], "|") {
			continue
		}
		tables++
		n := cells(lines[i])
		if i+1 >= len(lines) || !regexp.MustCompile(`^\|(-{3}:?\|)+$`).MatchString(lines[i+1]) || cells(lines[i+1]) != n {
			t.Fatalf("table at line %d has no rule row under its header:\n%s", i+1, md)
		}
		for i += 2; i < len(lines) && strings.HasPrefix(lines[i], "|"); i++ {
			if cells(lines[i]) != n {
				t.Errorf("line %d has %d cells, the header %d: %q", i+1, cells(lines[i]), n, lines[i])
			}
		}
	}
	return tables
}

// TestMarkdown: -format md (or -o FILE.md) writes markdown tables for run,
// cpe and compare: the same figures as the text table, no aligned text.
func TestMarkdown(t *testing.T) {
	useFake(t)
	cal := fakeCalibration(1.4, 2596141000)
	h := newHeader("run", cal, harness.DefaultConfig(), nil)
	r := harness.Result{Name: "AddChain/n=1000", Cycles: 1000, Ticks: 714, Nanoseconds: 275, CyclesPerTick: 1.4, ReferenceConverged: true, Converged: true, Samples: 40, Repeat: 10, Spread: 0.001}
	var b strings.Builder
	if err := writeResults(&b, formatMD, h, []results.Measurement{{Result: r, Kernel: "AddChain", N: 1000, Unit: "ops", Check: "ok", Bench: r.Name}}); err != nil {
		t.Fatal(err)
	}
	if n := checkMarkdownTables(t, b.String()); n != 1 || !strings.Contains(b.String(), "| AddChain/n=1000 | 1000 |") {
		t.Errorf("run as markdown: %d tables:\n%s", n, b.String())
	}
	td := func(name string) string { return filepath.Join("testdata", name) }
	for _, args := range [][]string{
		{"compare", td("compare_a.json"), td("compare_b.json"), "-format", "md"},
		{"compare", td("compare_cpe_a.json"), td("compare_cpe_b.json"), "-format", "md"},
		append(machineFiles(), "-format", "md"),
	} {
		if args[0] != "compare" {
			args = append([]string{"compare"}, args...)
		}
		out, errOut, err := runCLI(t, args...)
		if err != nil {
			t.Fatalf("%q: %v (%s)", args, err, errOut)
		}
		if n := checkMarkdownTables(t, out); n < 1 {
			t.Errorf("%q: no markdown table:\n%s", args, out)
		}
		if strings.Contains(out, "  |") && !strings.Contains(out, "| ") {
			t.Errorf("%q: aligned text in markdown:\n%s", args, out)
		}
	}
	path := filepath.Join(t.TempDir(), "cmp.md")
	if _, _, err := runCLI(t, "compare", "-o", path, td("compare_a.json"), td("compare_b.json")); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(path)
	want, _, _ := runCLI(t, "compare", td("compare_a.json"), td("compare_b.json"), "-format", "md")
	if string(got) != want {
		t.Errorf("-o cmp.md wrote\n%s\nwant the markdown", got)
	}
}

// TestRunProgressLines: when stderr is a file or a pipe rather than a
// terminal, run says as each kernel is measured what it got, one line per
// kernel (a terminal gets the line redrawn in place instead), and -q keeps
// it quiet.
func TestRunProgressLines(t *testing.T) {
	if testing.Short() {
		t.Skip("measures")
	}
	for _, quiet := range []bool{false, true} {
		f, err := os.CreateTemp(t.TempDir(), "stderr")
		if err != nil {
			t.Fatal(err)
		}
		args := []string{"run", "-bench", "^(AddChain|ImulChain)$", "-n", "1000"}
		if quiet {
			args = append(args, "-q")
		}
		var out strings.Builder
		if err := run(args, &out, f); err != nil && !isExit1(err) {
			t.Fatal(err)
		}
		f.Close()
		data, _ := os.ReadFile(f.Name())
		lines := regexp.MustCompile(`(?m)^run ([12])/2 (AddChain|ImulChain)/n=1000 \(throughput\): [0-9.]+ cycles, (converged|nearly converged \(within 2ε\)|did not converge) \([0-9.]+m?s elapsed\)$`).FindAllStringSubmatch(string(data), -1)
		switch {
		case quiet && len(data) != 0:
			t.Errorf("-q: stderr %q", data)
		case !quiet && (len(lines) != 2 || lines[0][1] != "1" || lines[1][2] != "ImulChain"):
			t.Errorf("stderr %q: want a line per kernel, in order", data)
		case !quiet && strings.Contains(string(data), "\r"):
			t.Errorf("stderr %q: a line redrawn in a file", data)
		}
	}
}
