package results

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// verdicts fills t.Verdicts: one per variant group, size and mode (only the
// largest size unless allSizes), and one per group's CPE fits.
func (t *Table) verdicts(allSizes bool) {
	type vkey struct {
		group, pkg, sizeKey string
		n                   int64
		mode                string
		fit                 bool
	}
	var order []vkey
	rows := map[vkey][]int{}
	for ri, r := range t.Rows {
		g, _, ok := variantOf(r.Kernel)
		if !ok {
			continue
		}
		k := vkey{g, r.Pkg, r.SizeKey, r.N, r.Mode, r.Fit}
		if _, ok := rows[k]; !ok {
			order = append(order, k)
		}
		rows[k] = append(rows[k], ri)
	}
	order = slices.DeleteFunc(order, func(k vkey) bool { return len(rows[k]) < 2 })
	if !allSizes {
		// Keep the largest size of each group and mode.
		type gkey struct{ group, pkg, mode string }
		largest := map[gkey]vkey{}
		for _, k := range order {
			if k.fit {
				continue
			}
			g := gkey{k.group, k.pkg, k.mode}
			if have, ok := largest[g]; !ok || k.n > have.n {
				largest[g] = k
			}
		}
		order = slices.DeleteFunc(order, func(k vkey) bool {
			return !k.fit && largest[gkey{k.group, k.pkg, k.mode}] != k
		})
	}
	for _, k := range order {
		v := Verdict{Group: k.group, Pkg: k.pkg, SizeKey: k.sizeKey, N: k.n, Mode: k.mode, Fit: k.fit, Rows: rows[k]}
		for ci := range t.Columns {
			v.Wins = append(v.Wins, t.win(v.Rows, ci))
		}
		v.Text = t.verdictText(v)
		t.Verdicts = append(t.Verdicts, v)
	}
}

// win ranks the rows' cells in column ci.
func (t *Table) win(rows []int, ci int) Win {
	w := Win{Fastest: -1, RunnerUp: -1, Slowest: -1}
	var cands []int
	for _, ri := range rows {
		if c := t.Rows[ri].Cells[ci]; !c.Missing {
			cands = append(cands, ri)
		}
	}
	cycles, perElem := true, true
	for _, ri := range cands {
		c := t.Rows[ri].Cells[ci]
		cycles = cycles && c.NoCycles == HasCycles
		perElem = perElem && (c.CyclesPerElem.N > 0 || c.NoCycles != HasCycles && c.NsPerElem.N > 0)
	}
	stat := func(ri int) Stat {
		c := t.Rows[ri].Cells[ci]
		switch {
		case cycles && perElem:
			return c.CyclesPerElem
		case cycles:
			return c.Cycles
		case perElem:
			return c.NsPerElem
		}
		return c.NS
	}
	switch {
	case cycles && perElem:
		w.Unit = "cycles/elem"
	case cycles:
		w.Unit = "cycles/op"
	case perElem:
		w.Unit = "ns/elem"
	default:
		w.Unit = "ns/op"
	}
	cands = slices.DeleteFunc(cands, func(ri int) bool { return stat(ri).N == 0 })
	w.Variants = len(cands)
	if len(cands) < 2 {
		return w
	}
	slices.SortStableFunc(cands, func(a, b int) int {
		x, y := stat(a).Median, stat(b).Median
		switch {
		case x < y:
			return -1
		case x > y:
			return 1
		}
		return 0
	})
	w.Fastest, w.RunnerUp, w.Slowest = cands[0], cands[1], cands[len(cands)-1]
	best, next := stat(w.Fastest), stat(w.RunnerUp)
	w.Value = best.Median
	if best.Median > 0 {
		w.Factor = next.Median / best.Median
		w.SlowFactor = stat(w.Slowest).Median / best.Median
	}
	w.Tied = w.Factor > 0 && w.Factor-1 <= t.Tie || next.Lo <= best.Hi
	return w
}

// variantName is how a verdict names a row: its kernel, or the part
// after the last '/' for a sub-benchmark ("Combine/Combine4" → "Combine4").
func variantName(r Row) string {
	if i := strings.LastIndexByte(r.Kernel, '/'); i >= 0 {
		return r.Kernel[i+1:]
	}
	return r.Kernel
}

// heading names what a verdict compares: "Combine n=1000", "Combine CPE",
// "Sum (latency)".
func (v Verdict) heading() string {
	s := v.Group
	if v.Pkg != "" {
		s = v.Pkg + "." + s
	}
	switch {
	case v.Fit:
		s += " CPE"
	case v.SizeKey != "":
		s += " " + v.SizeKey + "=" + strconv.FormatInt(v.N, 10)
	}
	if v.Mode != Throughput {
		s += " (" + v.Mode + ")"
	}
	return s
}

func (t *Table) verdictText(v Verdict) string {
	var winners []int // row indices, in order of first column won
	by := map[int][]int{}
	for ci, w := range v.Wins {
		if w.Fastest < 0 {
			continue
		}
		if _, ok := by[w.Fastest]; !ok {
			winners = append(winners, w.Fastest)
		}
		by[w.Fastest] = append(by[w.Fastest], ci)
	}
	if len(winners) == 0 {
		return v.heading() + ": no machine measured two variants"
	}
	var clauses []string
	for _, ri := range winners {
		cols := by[ri]
		var phrases []string
		for _, ci := range cols {
			w := v.Wins[ci]
			p := fmt.Sprintf("%s (%s %s, ", t.Columns[ci].Name, num(w.Value, 3), w.Unit)
			if w.Tied {
				p += fmt.Sprintf("tied with %s: %s×)", variantName(t.Rows[w.RunnerUp]), factor(w.Factor))
			} else {
				p += fmt.Sprintf("%s× %s)", factor(w.Factor), variantName(t.Rows[w.RunnerUp]))
			}
			phrases = append(phrases, p)
		}
		where := "on " + strings.Join(phrases, ", ")
		switch {
		case len(cols) == len(t.Columns) && len(cols) == 2:
			where = "on both machines: " + strings.Join(phrases, ", ")
		case len(cols) == len(t.Columns) && len(cols) > 2:
			where = fmt.Sprintf("on all %d machines: %s", len(cols), strings.Join(phrases, ", "))
		}
		clauses = append(clauses, variantName(t.Rows[ri])+" fastest "+where)
	}
	s := v.heading() + ": " + strings.Join(clauses, "; ")
	var few []string
	for ci, w := range v.Wins {
		if w.Fastest < 0 {
			few = append(few, t.Columns[ci].Name)
		}
	}
	if len(few) > 0 {
		s += "; fewer than two variants on " + strings.Join(few, ", ")
	}
	return s
}

// num writes v with digits significant digits, trailing zeros kept, and
// no exponent (whole numbers from 10^digits up): 0.951, 7.00, 12077.
func num(v float64, digits int) string {
	if v == 0 || math.IsNaN(v) || math.IsInf(v, 0) {
		return strconv.FormatFloat(v, 'f', -1, 64)
	}
	decimals := digits - 1 - int(math.Floor(math.Log10(math.Abs(v))))
	s := strconv.FormatFloat(v, 'f', max(decimals, 0), 64)
	// Rounding may carry into a new digit (9.996 → "10.00"): one decimal
	// fewer then.
	if decimals > 0 && len(strings.TrimLeft(strings.ReplaceAll(s, ".", ""), "-0")) > digits {
		s = strconv.FormatFloat(v, 'f', decimals-1, 64)
	}
	return s
}

// factor writes a ratio with two decimals: 2.01.
func factor(v float64) string { return strconv.FormatFloat(v, 'f', 2, 64) }

// notes fills t.Notes.
func (t *Table) notes(files []File) {
	maxRuns := 0
	perElem := false
	for _, r := range t.Rows {
		for _, c := range r.Cells {
			if !r.Fit {
				maxRuns = max(maxRuns, c.Runs)
			}
			perElem = perElem || c.CyclesPerElem.N > 0 || c.NsPerElem.N > 0
		}
	}
	base := t.Columns[t.Baseline].Name
	t.Notes = append(t.Notes, fmt.Sprintf("cycles are estimated core cycles per call (the core-clock ruler), comparable across machines whose counters differ; ratios are cycles over the baseline's (%s): below 1 is fewer cycles than %s", base, base))
	if perElem {
		t.Notes = append(t.Notes, "per-element figures are per call over the elements of one call (the kernel's unit: elements, iterations, ops)")
	}
	if maxRuns > 1 {
		t.Notes = append(t.Notes, fmt.Sprintf("a cell is the median of its file's runs (up to %d); its spread is the %s of the runs", maxRuns, t.Spread))
	}
	if slices.ContainsFunc(t.Rows, func(r Row) bool { return r.Fit }) {
		t.Notes = append(t.Notes, "CPE rows are the slopes of a cpe file's fit of cost against n, with their 95% confidence interval as the spread")
	}
	if t.Columns[t.Baseline].NoCycles != HasCycles {
		t.Notes = append(t.Notes, fmt.Sprintf("the baseline %s has no cycle figures: no ratios", base))
	}
	for ci, col := range t.Columns {
		if col.NoCycles != HasCycles {
			t.Notes = append(t.Notes, fmt.Sprintf("%s has no cycle figures — %s; its cells give ns", col.Name, col.NoCycles))
		}
		var missing, unconverged, failed []string
		partial := false
		for _, r := range t.Rows {
			c := r.Cells[ci]
			switch {
			case c.Missing:
				missing = append(missing, r.Label())
				continue
			case col.NoCycles == HasCycles && c.NoCycles != HasCycles:
				partial = true
			}
			if c.NotConverged > 0 {
				unconverged = append(unconverged, fmt.Sprintf("%s (%d of %d)", r.Label(), c.NotConverged, c.Runs))
			}
			if c.CheckFailed > 0 {
				failed = append(failed, r.Label())
			}
		}
		if len(missing) > 0 {
			t.Notes = append(t.Notes, fmt.Sprintf("%s lacks %d of the %d rows: %s", col.Name, len(missing), len(t.Rows), listSome(missing, 6)))
		}
		if partial {
			t.Notes = append(t.Notes, fmt.Sprintf("%s has cycles for some rows only: the others give ns", col.Name))
		}
		if len(unconverged) > 0 {
			t.Notes = append(t.Notes, fmt.Sprintf("%s: runs that did not converge: %s", col.Name, listSome(unconverged, 6)))
		}
		if len(failed) > 0 {
			t.Notes = append(t.Notes, fmt.Sprintf("%s: output check failed: %s", col.Name, listSome(failed, 6)))
		}
		for _, w := range files[ci].Warnings {
			msg := w.Error()
			for _, s := range []error{ErrAbsentField, ErrSkippedLine, ErrMachineChanged} {
				if errors.Is(w, s) {
					msg = strings.TrimPrefix(msg, s.Error()+": ")
				}
			}
			msg = strings.TrimPrefix(msg, files[ci].Path+": ")
			t.Notes = append(t.Notes, col.Name+": "+msg)
		}
	}
}

// listSome joins up to n items and says how many more there are.
func listSome(items []string, n int) string {
	if len(items) <= n {
		return strings.Join(items, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(items[:n], ", "), len(items)-n)
}
