package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// goBenchLine matches a result line of go test -bench: name (with the
// -GOMAXPROCS suffix), iterations, ns/op.
var goBenchLine = regexp.MustCompile(`^Benchmark(\S+?)(?:-\d+)?\s+\d+\s+([0-9.eE+-]+) ns/op`)

// parseGoBench returns the ns/op of every result line of go test -bench
// output, by name without "Benchmark" and the -GOMAXPROCS suffix, in order.
func parseGoBench(out []byte) map[string][]float64 {
	res := map[string][]float64{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		m := goBenchLine.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		v, err := strconv.ParseFloat(m[2], 64)
		if err != nil {
			continue
		}
		res[m[1]] = append(res[m[1]], v)
	}
	return res
}

var benchstatP = regexp.MustCompile(`\(p=([0-9.]+) n=`)

// parseBenchstat reads benchstat's verdict on two files of one benchmark:
// the first row of its time table carries "(p=P n=N)", and "~" in place of
// the change when P ≥ α (benchstat's own rule: it prints a change only when
// the difference is significant).
func parseBenchstat(out []byte) (verdict, error) {
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		line := sc.Text()
		m := benchstatP.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		p, err := strconv.ParseFloat(m[1], 64)
		if err != nil {
			return verdict{}, fmt.Errorf("benchstat: bad p-value in %q", line)
		}
		before := line[:strings.Index(line, m[0])]
		return verdict{P: p, Alpha: 0.05, Detected: !strings.Contains(before, "~")}, nil
	}
	return verdict{}, fmt.Errorf("benchstat: no comparison row in its output")
}

// gbRun is one entry of Google Benchmark's JSON output.
type gbRun struct {
	Name          string  `json:"name"`
	RunName       string  `json:"run_name"`
	RunType       string  `json:"run_type"`
	RealTime      float64 `json:"real_time"`
	TimeUnit      string  `json:"time_unit"`
	Iterations    int64   `json:"iterations"`
	ErrorOccurred bool    `json:"error_occurred"`
	ErrorMessage  string  `json:"error_message"`
}

// parseGBench returns the real time per iteration in ns of every
// repetition (run_type "iteration"; the aggregates are skipped), by the
// benchmark's name up to the first '/', in order.
func parseGBench(out []byte) (map[string][]float64, error) {
	var doc struct {
		Benchmarks []gbRun `json:"benchmarks"`
	}
	if err := json.Unmarshal(out, &doc); err != nil {
		return nil, fmt.Errorf("google benchmark JSON: %w", err)
	}
	unit := map[string]float64{"ns": 1, "us": 1e3, "ms": 1e6, "s": 1e9}
	res := map[string][]float64{}
	for _, b := range doc.Benchmarks {
		if b.RunType != "" && b.RunType != "iteration" {
			continue
		}
		if b.ErrorOccurred {
			return nil, fmt.Errorf("google benchmark %s: %s", b.Name, b.ErrorMessage)
		}
		f, ok := unit[b.TimeUnit]
		if !ok {
			return nil, fmt.Errorf("google benchmark %s: unknown time unit %q", b.Name, b.TimeUnit)
		}
		name := b.RunName
		if name == "" {
			name = b.Name
		}
		name, _, _ = strings.Cut(name, "/")
		res[name] = append(res[name], b.RealTime*f)
	}
	if len(res) == 0 {
		return nil, fmt.Errorf("google benchmark JSON: no results")
	}
	return res, nil
}

// parseKV reads "key=value" fields of a line, as the start-up programs print
// them.
func parseKV(out []byte) map[string]string {
	res := map[string]string{}
	for _, f := range strings.Fields(string(out)) {
		if k, v, ok := strings.Cut(f, "="); ok {
			res[k] = v
		}
	}
	return res
}

// gbBuildType returns the library_build_type of Google Benchmark's JSON
// context ("release" or "debug"; Debian's 1.7.1 package says "debug"), ""
// when absent.
func gbBuildType(out []byte) string {
	var doc struct {
		Context struct {
			BuildType string `json:"library_build_type"`
		} `json:"context"`
	}
	if json.Unmarshal(out, &doc) != nil {
		return ""
	}
	return doc.Context.BuildType
}
