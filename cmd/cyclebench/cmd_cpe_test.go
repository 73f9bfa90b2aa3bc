package main

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"

	"github.com/cyclebench/cyclebench/internal/chain"
	"github.com/cyclebench/cyclebench/results"
	"golang.org/x/perf/benchfmt"
)

// wantUsageError runs args and checks for a one-line *usageError naming
// want, exit status 2, and nothing on stdout (so nothing was measured:
// the results would have been written first).
func wantUsageError(t *testing.T, want string, args ...string) {
	t.Helper()
	out, _, err := runCLI(t, args...)
	var ue *usageError
	if !errors.As(err, &ue) {
		t.Fatalf("run(%q) = %v (%T), want a *usageError", args, err, err)
	}
	if !strings.Contains(err.Error(), want) {
		t.Errorf("error %q does not say %q", err, want)
	}
	if strings.Contains(err.Error(), "\n") {
		t.Errorf("error %q is more than one line", err)
	}
	if st := exitStatus(err, new(bytes.Buffer)); st != exitUsage {
		t.Errorf("exit status %d, want %d", st, exitUsage)
	}
	if out != "" {
		t.Errorf("stdout = %q, want nothing", out)
	}
}

func TestCPEUsageErrors(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"no bench", []string{"cpe"}, "-bench: missing"},
		{"unknown kernel", []string{"cpe", "-bench", "NoSuchKernel"}, "NoSuchKernel"},
		{"bad regexp", []string{"cpe", "-bench", "Add("}, "Add("},
		{"empty list", []string{"cpe", "-bench", "AddChain", "-sizes", ","}, "item 1 is empty"},
		{"unsorted", []string{"cpe", "-bench", "AddChain", "-sizes", "300,200,100"}, "size 200 after 300"},
		{"duplicate", []string{"cpe", "-bench", "AddChain", "-sizes", "100,100,200"}, "duplicate size 100"},
		{"zero", []string{"cpe", "-bench", "AddChain", "-sizes", "0,100,200"}, "size 0"},
		{"negative", []string{"cpe", "-bench", "AddChain", "-sizes", "-100,100,200"}, "size -100"},
		{"two sizes", []string{"cpe", "-bench", "AddChain", "-sizes", "100,200"}, "needs at least 3"},
		{"range backwards", []string{"cpe", "-bench", "AddChain", "-range", "2000:100:100"}, "range to 100"},
		{"range form", []string{"cpe", "-bench", "AddChain", "-range", "100-2000"}, "from:to:step"},
		{"log repeats", []string{"cpe", "-bench", "AddChain", "-log", "1:10:16"}, "repeat"},
		{"two ways", []string{"cpe", "-bench", "AddChain", "-sizes", "1,2,3", "-log", "1:100:3"}, "-sizes and -log"},
		{"above the kernel's range", []string{"cpe", "-bench", "Psum1", "-sizes", "1,2,100000000"}, "size 100000000"},
		{"plot extension", []string{"cpe", "-bench", "AddChain", "-plot", filepath.Join(dir, "cpe.gif")}, ".svg, .png or .pdf"},
		{"plot no extension", []string{"cpe", "-bench", "AddChain", "-plot", filepath.Join(dir, "cpe")}, "unknown image format"},
		{"plot missing dir", []string{"cpe", "-bench", "AddChain", "-plot", filepath.Join(dir, "nope", "cpe.svg")}, "does not exist"},
		{"plot is a dir", []string{"cpe", "-bench", "AddChain", "-plot", filepath.Join(dir, "isdir.svg")}, "is a directory"},
		{"output missing dir", []string{"cpe", "-bench", "AddChain", "-o", filepath.Join(dir, "nope", "out.json")}, "does not exist"},
		{"format", []string{"cpe", "-bench", "AddChain", "-format", "xml"}, "xml"},
		{"argument", []string{"cpe", "-bench", "AddChain", "extra"}, `"extra"`},
		{"k", []string{"cpe", "-bench", "AddChain", "-k", "0"}, "-k 0"},
	}
	if err := os.Mkdir(filepath.Join(dir, "isdir.svg"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			wantUsageError(t, tt.want, tt.args...)
		})
	}
	t.Run("plot dir not writable", func(t *testing.T) {
		if runtime.GOOS == "linux" {
			// Not even root can create a file in /proc.
			wantUsageError(t, "cannot write", "cpe", "-bench", "AddChain", "-plot", "/proc/cpe.svg")
			return
		}
		ro := filepath.Join(dir, "ro")
		if err := os.Mkdir(ro, 0o555); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.Chmod(ro, 0o755) })
		if f, err := os.CreateTemp(ro, "probe"); err == nil {
			f.Close()
			os.Remove(f.Name())
			t.Skip("the directory is writable despite its mode (running as root without permission checks)")
		}
		wantUsageError(t, "cannot write", "cpe", "-bench", "AddChain", "-plot", filepath.Join(ro, "cpe.svg"))
	})
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.Name() != "isdir.svg" && e.Name() != "ro" {
			t.Errorf("%s left behind in the output directory", e.Name())
		}
	}
}

func TestDefaultSizes(t *testing.T) {
	k, err := selectKernels("-bench", "AddChain")
	if err != nil {
		t.Fatal(err)
	}
	s := defaultSizes(k[0])
	if len(s) != 10 || s[0] != k[0].DefaultN/10 || s[9] != k[0].DefaultN {
		t.Fatalf("default sizes %v for default n %d: want 10 from a tenth to all of it", s, k[0].DefaultN)
	}
	if ks, err := selectKernels("-bench", "Psum"); err != nil || len(ks) != 2 {
		t.Fatalf("-bench Psum selects %d kernels (%v), want Psum1 and Psum2", len(ks), err)
	}
}

// measureLive runs args on the real machine and returns stdout. Exit
// status 1 after the output is accepted: on a loaded machine or with a
// coarse counter (the monotonic clock of a noasm build) a size may not
// converge, which the command reports that way.
func measureLive(t *testing.T, args ...string) string {
	t.Helper()
	if testing.Short() {
		t.Skip("measures on the real machine; skipped with -short")
	}
	out, errOut, err := runCLI(t, args...)
	var ee *exitError
	if err != nil && !(errors.As(err, &ee) && ee.code == exitFailure) {
		t.Fatalf("run(%q) = %v (stderr %q)", args, err, errOut)
	}
	checkDiagnostics(t, errOut)
	return out
}

// checkDiagnostics fails unless every line of stderr is a warning, a
// "wrote FILE" or the failure summary (a test's stderr is no terminal: no
// progress line).
func checkDiagnostics(t *testing.T, stderr string) {
	t.Helper()
	for _, l := range strings.Split(strings.TrimSuffix(stderr, "\n"), "\n") {
		if l != "" && !strings.HasPrefix(l, "warning: ") && !strings.HasPrefix(l, "wrote ") {
			t.Errorf("stderr line %q is neither a warning nor \"wrote FILE\"", l)
		}
	}
}

// cpeLive runs a small real sweep and returns its output.
func cpeLive(t *testing.T, args ...string) string {
	t.Helper()
	return measureLive(t, append([]string{"cpe", "-bench", "AddChain", "-sizes", "1000,2000,3000,4000"}, args...)...)
}

var (
	outliersRE  = regexp.MustCompile(`^outliers .*`)
	verdictRE   = regexp.MustCompile(`^verdict .*`)
	fitRE       = regexp.MustCompile(`^fit .*`)
	resolvesRE  = regexp.MustCompile(`^resolution .*`)
	summaryRE   = regexp.MustCompile(`^summary .*`)
	pMethodRE   = regexp.MustCompile(`(exact|normal approximation);`)
	cpuLineRE   = regexp.MustCompile(`^cpu: .*`)
	convergedRE = regexp.MustCompile(` (yes|nearly|NO)$`)
)

// liveShape drops the warning lines and the growth line and normalises
// what depends on the machine and the run (the header line, which sizes are outliers, which
// converged, the verdicts), keeping the layout.
func liveShape(s string) string {
	var keep []string
	for _, l := range strings.Split(s, "\n") {
		if strings.HasPrefix(l, "warning: ") || strings.HasPrefix(l, "growth ") {
			continue // a growth line comes only with a fit that is not linear, as "fit" may say
		}
		l = strings.ReplaceAll(l, " *", "") // an outlier's residual
		l = strings.ReplaceAll(l, "~", "")  // a figure from a ruler that did not converge
		l = outliersRE.ReplaceAllString(l, "outliers  (none or a list)")
		l = verdictRE.ReplaceAllString(l, "verdict  (the verdict)")
		l = fitRE.ReplaceAllString(l, "fit  (linear in n or not)")
		l = resolvesRE.ReplaceAllString(l, "resolution  (the smallest difference the run could detect)")
		l = summaryRE.ReplaceAllString(l, "summary  (the verdict in one sentence)")
		l = pMethodRE.ReplaceAllString(l, "exact or not;")
		l = cpuLineRE.ReplaceAllString(l, "cpu: (the machine)")
		l = convergedRE.ReplaceAllString(l, " yes/no")
		keep = append(keep, l)
	}
	// 2e-05, and "< 1e-05" for a p-value below what the test can print;
	// the disturbed-sample counts' column is left out where the software
	// events cannot be read (qemu-user has no perf_event_open), so it is
	// left out of the shape everywhere.
	out := strings.ReplaceAll(mask(strings.Join(keep, "\n")), "NeN", "N")
	out = strings.ReplaceAll(out, "< N", "N")
	out = strings.ReplaceAll(out, "  cs/mig/pf", "")
	return spacesRE.ReplaceAllString(strings.ReplaceAll(out, " N/N/N ", " "), "  ")
}

func TestCPELive(t *testing.T) {
	dir := t.TempDir()
	t.Run("table", func(t *testing.T) {
		out := cpeLive(t)
		golden(t, "cpe_table.golden", liveShape(out))
	})
	t.Run("json and plots", func(t *testing.T) {
		jsonPath, svg := filepath.Join(dir, "cpe.json"), filepath.Join(dir, "cpe.svg")
		if out := cpeLive(t, "-format", "json", "-o", jsonPath, "-plot", svg); out != "" {
			t.Errorf("stdout %q with -o", out)
		}
		data, err := os.ReadFile(jsonPath)
		if err != nil {
			t.Fatal(err)
		}
		sameJSONShape(t, "cpe", decode(t, string(data)), decode(t, readGolden(t, "cpe.json.golden")))
		var r results.CPEReport
		if err := json.Unmarshal(data, &r); err != nil {
			t.Fatal(err)
		}
		if len(r.Kernels) != 1 || len(r.Kernels[0].Points) != 4 || len(r.Kernels[0].Fits) == 0 {
			t.Fatalf("kernels %+v: want one with 4 points and fits", r.Kernels)
		}
		f := r.Kernels[0].Fits[0]
		if chain.Exact() && f.Unit == "cycles" && (f.PerElement < 0.8 || f.PerElement > 1.5) {
			t.Errorf("CPE of AddChain %v cycles/op, outside 0.8–1.5", f.PerElement)
		}
		if f.N != 4 || len(f.Residuals) != 4 || f.R2 > 1 {
			t.Errorf("fit %+v", f)
		}
		img, err := os.ReadFile(svg)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Contains(img[:min(len(img), 512)], []byte("<svg")) || !bytes.Contains(img, []byte("AddChain")) {
			t.Errorf("%s is not an SVG naming the kernel", svg)
		}
	})
	t.Run("png", func(t *testing.T) {
		png := filepath.Join(dir, "cpe.png")
		cpeLive(t, "-plot", png)
		img, err := os.ReadFile(png)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.HasPrefix(img, []byte("\x89PNG\r\n\x1a\n")) {
			t.Errorf("%s does not start with the PNG signature", png)
		}
	})
	t.Run("csv", func(t *testing.T) {
		recs, err := csv.NewReader(strings.NewReader(cpeLive(t, "-format", "csv"))).ReadAll()
		if err != nil {
			t.Fatal(err)
		}
		points, fits := 0, 0
		for _, r := range recs[1:] {
			switch r[1] {
			case "point":
				points++
			case "fit":
				fits++
			}
		}
		// 4 sizes in 3 units (2 without a cycle estimate).
		if recs[0][0] != "kernel" || points != 4*fits || fits < 2 {
			t.Errorf("%d point rows, %d fit rows; header %v", points, fits, recs[0])
		}
	})
	t.Run("bench", func(t *testing.T) {
		out := cpeLive(t, "-format", "bench")
		rd := benchfmt.NewReader(strings.NewReader(out), "cpe")
		n := 0
		for rd.Scan() {
			switch r := rd.Result().(type) {
			case *benchfmt.SyntaxError:
				t.Fatal(r)
			case *benchfmt.Result:
				n++
			}
		}
		if n != 4 || !strings.Contains(out, "# cpe AddChain: ") {
			t.Errorf("%d results, want 4 and a # cpe line:\n%s", n, out)
		}
	})
}
