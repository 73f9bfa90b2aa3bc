package results

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/cyclebench/cyclebench/stats"
)

// Reading cyclebench's JSON reports. The file is walked with a
// json.Decoder, object by object, so that every value keeps its offset:
// errors name the line of the value at fault, and the reader knows which
// fields a file lacks (an older version of the tool) rather than reading
// them as zero in silence.

// jfield is one JSON value and the offset of its first byte in the file.
type jfield struct {
	raw json.RawMessage
	off int64
}

// jobject is a JSON object's fields by key.
type jobject struct {
	fields map[string]jfield
	off    int64
}

type jsonReader struct {
	path string
	data []byte
	// absent counts, per kind of object ("results[]", "kernels[]"), the
	// objects that lack each expected key; total counts the objects.
	absent map[string]map[string]int
	total  map[string]int
}

func (jr *jsonReader) errorf(off int64, format string, args ...any) error {
	return fmt.Errorf("%w: %s:%d: %s", ErrSyntax, jr.path, lineAt(jr.data, off), fmt.Sprintf(format, args...))
}

// describe names the kind of JSON value raw holds.
func describe(raw []byte) string {
	t := bytes.TrimSpace(raw)
	if len(t) == 0 {
		return "empty"
	}
	switch t[0] {
	case '{':
		return "an object"
	case '[':
		return "an array"
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	}
	return "a number (" + string(t) + ")"
}

func isNull(raw []byte) bool { return bytes.Equal(bytes.TrimSpace(raw), []byte("null")) }

// skipToValue returns the offset in raw of the first byte at or after i
// that is not blank, ':' or ','.
func skipToValue(raw []byte, i int64) int64 {
	for i < int64(len(raw)) {
		switch raw[i] {
		case ' ', '\t', '\r', '\n', ':', ',':
			i++
			continue
		}
		break
	}
	return i
}

// object reads the JSON object in f; what names it in errors.
func (jr *jsonReader) object(f jfield, what string) (jobject, error) {
	dec := json.NewDecoder(bytes.NewReader(f.raw))
	tok, err := dec.Token()
	if d, ok := tok.(json.Delim); err != nil || !ok || d != '{' {
		return jobject{}, jr.errorf(f.off, "%s is %s, want a JSON object", what, describe(f.raw))
	}
	o := jobject{fields: map[string]jfield{}, off: f.off}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return jobject{}, jr.errorf(f.off+dec.InputOffset(), "%s: %v", what, err)
		}
		key, _ := tok.(string)
		start := skipToValue(f.raw, dec.InputOffset())
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return jobject{}, jr.errorf(f.off+start, "%s: %v", what, err)
		}
		o.fields[key] = jfield{raw: v, off: f.off + start}
	}
	return o, nil
}

// array reads the JSON array in f into its elements; null is an empty
// array.
func (jr *jsonReader) array(f jfield, what string) ([]jfield, error) {
	if isNull(f.raw) {
		return nil, nil
	}
	dec := json.NewDecoder(bytes.NewReader(f.raw))
	tok, err := dec.Token()
	if d, ok := tok.(json.Delim); err != nil || !ok || d != '[' {
		return nil, jr.errorf(f.off, "%s is %s, want an array", what, describe(f.raw))
	}
	var out []jfield
	for dec.More() {
		start := skipToValue(f.raw, dec.InputOffset())
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, jr.errorf(f.off+start, "%s: %v", what, err)
		}
		out = append(out, jfield{raw: v, off: f.off + start})
	}
	return out, nil
}

// get decodes o's key into dst when present and not null; want says what
// the value should be in the error.
func get[T any](jr *jsonReader, o jobject, where, key, want string, dst *T) error {
	f, ok := o.fields[key]
	if !ok || isNull(f.raw) {
		return nil
	}
	if err := json.Unmarshal(f.raw, dst); err != nil {
		return jr.errorf(f.off, "%s %q is %s, want %s", where, key, describe(f.raw), want)
	}
	return nil
}

// expect counts the keys o lacks under its kind.
func (jr *jsonReader) expect(o jobject, kind string, keys ...string) {
	jr.total[kind]++
	for _, k := range keys {
		if _, ok := o.fields[k]; !ok {
			if jr.absent[kind] == nil {
				jr.absent[kind] = map[string]int{}
			}
			jr.absent[kind][k]++
		}
	}
}

// Expected keys of each kind of object. Fields newer versions add
// (family, model, logical_cpus, quantum_ticks, partial) are read when
// present and not expected; so are the K-best settings k, eps and m, which
// a report of go test's benchmarks leaves out (each benchmark's Config set
// its own).
var (
	headerKeys = []string{"command", "cpu", "vendor", "hypervisor", "counter", "tsc_hz", "tsc_hz_source", "tsc_hz_ppm",
		"core_cycles_per_tick", "tsc_step", "goos", "goarch", "go_version", "warnings"}
	resultKeys = []string{"name", "mode", "cycles", "ticks", "ns", "converged", "samples", "repeat", "core_cycles_per_tick", "warnings"}
	kernelKeys = []string{"name", "unit", "sizes", "core_cycles_per_tick", "fits", "points", "check", "warnings"}
	fitKeys    = []string{"unit", "per_element", "per_element_ci95", "intercept", "intercept_ci95", "r2", "n"}
)

func parseJSON(path string, data []byte) (File, error) {
	jr := &jsonReader{path: path, data: data, absent: map[string]map[string]int{}, total: map[string]int{}}
	// Check the whole file first, so that a syntax error is reported once,
	// with its line, before anything is read.
	dec := json.NewDecoder(bytes.NewReader(data))
	var whole json.RawMessage
	if err := dec.Decode(&whole); err != nil {
		var se *json.SyntaxError
		switch {
		case errors.As(err, &se):
			return File{}, jr.errorf(se.Offset, "bad JSON: %v", err)
		case errors.Is(err, io.ErrUnexpectedEOF):
			return File{}, jr.errorf(int64(len(data)), "the file ends in the middle of a JSON value (cut short?)")
		}
		return File{}, fmt.Errorf("%w: %s: bad JSON: %v", ErrSyntax, path, err)
	}
	end := dec.InputOffset()
	if rest := bytes.TrimSpace(data[end:]); len(rest) > 0 {
		return File{}, jr.errorf(end+int64(bytes.Index(data[end:], rest[:1])), "data after the report's closing brace, want the end of the file")
	}
	top, err := jr.object(jfield{raw: whole, off: skipToValue(data, 0)}, "the file")
	if err != nil {
		return File{}, err
	}
	res, hasResults := top.fields["results"]
	kern, hasKernels := top.fields["kernels"]
	if !hasResults && !hasKernels {
		return File{}, fmt.Errorf("%w: %s: a JSON object without \"results\" or \"kernels\": want a report of cyclebench run or cpe -format json (compare, info and validate reports are not result files)", ErrFormat, path)
	}
	f := File{Path: path, Producer: ProducerCyclebench}
	if err := jr.header(top, &f); err != nil {
		return File{}, err
	}
	es := newEntrySet(&f)
	if hasResults {
		f.Format = FormatRunJSON
		elems, err := jr.array(res, "\"results\"")
		if err != nil {
			return File{}, err
		}
		for i, el := range elems {
			if err := jr.result(es, el, fmt.Sprintf("results[%d]", i), "results[]", "", ""); err != nil {
				return File{}, err
			}
		}
	}
	if hasKernels {
		f.Format = FormatCPEJSON
		elems, err := jr.array(kern, "\"kernels\"")
		if err != nil {
			return File{}, err
		}
		for i, el := range elems {
			if err := jr.kernel(es, el, i); err != nil {
				return File{}, err
			}
		}
	}
	if len(f.Entries) == 0 && len(f.Fits) == 0 {
		return File{}, fmt.Errorf("%w: %s: the report holds no result (an interrupted run?)", ErrNoResults, path)
	}
	jr.absentWarnings(&f)
	partialWarning(&f)
	return f, nil
}

// header reads the report's header into f.
func (jr *jsonReader) header(o jobject, f *File) error {
	jr.expect(o, "header", headerKeys...)
	m := &f.Machine
	const str, num, integer = "a string", "a number", "an integer"
	for _, g := range []error{
		get(jr, o, "header", "command", str, &f.Command),
		get(jr, o, "header", "cpu", str, &m.CPU),
		get(jr, o, "header", "vendor", str, &m.Vendor),
		get(jr, o, "header", "family", integer, &m.Family),
		get(jr, o, "header", "model", integer, &m.Model),
		get(jr, o, "header", "stepping", integer, &m.Stepping),
		get(jr, o, "header", "logical_cpus", integer, &m.LogicalCPUs),
		get(jr, o, "header", "hypervisor", str, &m.Hypervisor),
		get(jr, o, "header", "counter", str, &m.Counter),
		get(jr, o, "header", "tsc_hz", num, &m.CounterHz),
		get(jr, o, "header", "tsc_hz_source", str, &m.CounterHzSource),
		get(jr, o, "header", "tsc_hz_ppm", num, &m.CounterHzPPM),
		get(jr, o, "header", "core_cycles_per_tick", num, &m.CyclesPerTick),
		get(jr, o, "header", "tsc_step", num, &m.CounterStep),
		get(jr, o, "header", "goos", str, &m.GOOS),
		get(jr, o, "header", "goarch", str, &m.GOARCH),
		get(jr, o, "header", "go_version", str, &m.GoVersion),
		get(jr, o, "header", "k", integer, &f.Settings.K),
		get(jr, o, "header", "eps", num, &f.Settings.Epsilon),
		get(jr, o, "header", "m", integer, &f.Settings.MaxSamples),
		get(jr, o, "header", "warnings", "an array of strings", &f.Notes),
		get(jr, o, "header", "partial", str, &f.Partial),
	} {
		if g != nil {
			return g
		}
	}
	return nil
}

// jsonResult is the part of a result object read by field type; presence
// is checked apart.
type jsonResult struct {
	Name          string   `json:"name"`
	Mode          string   `json:"mode"`
	Kernel        string   `json:"kernel"`
	N             int64    `json:"n"`
	Unit          string   `json:"unit"`
	Cycles        float64  `json:"cycles"`
	Ticks         float64  `json:"ticks"`
	NS            float64  `json:"ns"`
	Elements      float64  `json:"elements"`
	CyclesPerElem float64  `json:"cycles_per_element"`
	TicksPerElem  float64  `json:"ticks_per_element"`
	NsPerElem     float64  `json:"ns_per_element"`
	Converged     bool     `json:"converged"`
	RulerOK       *bool    `json:"ruler_converged"`
	Samples       int      `json:"samples"`
	Repeat        int      `json:"repeat"`
	CyclesPerTick float64  `json:"core_cycles_per_tick"`
	Quantum       float64  `json:"quantum"`
	QuantumTicks  float64  `json:"quantum_ticks"`
	Check         string   `json:"check"`
	Warnings      []string `json:"warnings"`
	Shared        bool     `json:"shared"`
	Room          bool     `json:"room"`
	ProbeExcess   float64  `json:"probe_excess"`
	Quantile      float64  `json:"quantile"`
}

// result reads one result object (of "results", or a cpe kernel's
// "points") into es. kind groups the object for the absent-field count;
// unit and kernel are the enclosing cpe kernel's, used when the point
// lacks its own.
func (jr *jsonReader) result(es *entrySet, el jfield, where, kind, unit, kernel string) error {
	o, err := jr.object(el, where)
	if err != nil {
		return err
	}
	jr.expect(o, kind, resultKeys...)
	var j jsonResult
	const str, num, integer, boolean = "a string", "a number", "an integer", "true or false"
	for _, g := range []error{
		get(jr, o, where, "name", str, &j.Name), get(jr, o, where, "mode", str, &j.Mode),
		get(jr, o, where, "kernel", str, &j.Kernel), get(jr, o, where, "n", "an integer (int64)", &j.N),
		get(jr, o, where, "unit", str, &j.Unit), get(jr, o, where, "cycles", num, &j.Cycles),
		get(jr, o, where, "ticks", num, &j.Ticks), get(jr, o, where, "ns", num, &j.NS),
		get(jr, o, where, "elements", num, &j.Elements), get(jr, o, where, "cycles_per_element", num, &j.CyclesPerElem),
		get(jr, o, where, "ticks_per_element", num, &j.TicksPerElem), get(jr, o, where, "ns_per_element", num, &j.NsPerElem),
		get(jr, o, where, "converged", boolean, &j.Converged), get(jr, o, where, "samples", integer, &j.Samples),
		get(jr, o, where, "repeat", integer, &j.Repeat), get(jr, o, where, "core_cycles_per_tick", num, &j.CyclesPerTick),
		get(jr, o, where, "quantum", num, &j.Quantum), get(jr, o, where, "quantum_ticks", num, &j.QuantumTicks),
		get(jr, o, where, "check", str, &j.Check), get(jr, o, where, "ruler_converged", boolean, &j.RulerOK),
		get(jr, o, where, "warnings", "an array of strings", &j.Warnings),
		get(jr, o, where, "shared", boolean, &j.Shared), get(jr, o, where, "probe_excess", num, &j.ProbeExcess),
		get(jr, o, where, "quantile", num, &j.Quantile), get(jr, o, where, "room", boolean, &j.Room),
	} {
		if g != nil {
			return g
		}
	}
	if strings.TrimSpace(j.Name) == "" {
		return jr.errorf(el.off, "%s has no \"name\": want the benchmark's name, such as \"Combine4/n=1000\"", where)
	}
	nm := ParseName(j.Name)
	e := Entry{Name: nm.Full, Kernel: j.Kernel, SizeKey: nm.SizeKey, N: nm.N, Mode: strings.ToLower(j.Mode), Unit: j.Unit}
	if e.Kernel == "" {
		e.Kernel = kernel
	}
	if e.Kernel == "" {
		e.Kernel = nm.Base
	}
	if e.SizeKey == "" {
		if _, ok := o.fields["n"]; ok {
			e.SizeKey, e.N = "n", j.N
		}
	}
	if e.Mode == "" {
		e.Mode = nm.Mode
	}
	if e.Mode == "" {
		e.Mode = Throughput
	}
	if e.Unit == "" {
		e.Unit = unit
	}
	r := Run{
		Ticks: j.Ticks, NS: j.NS, NotConverged: !j.Converged, Samples: j.Samples, Repeat: j.Repeat,
		CyclesPerTick: j.CyclesPerTick, Quantum: j.Quantum, Check: j.Check, Warnings: j.Warnings,
		Shared: j.Shared, Room: j.Room, ProbeExcess: j.ProbeExcess, Quantile: j.Quantile,
		Line: lineAt(jr.data, el.off),
	}
	if r.Quantum == 0 { // the name cyclebench run -format json writes
		r.Quantum = j.QuantumTicks
	}
	if _, ok := o.fields["converged"]; !ok {
		r.NotConverged = false // unknown: absent is said in File.Absent
	}
	if j.RulerOK != nil && !*j.RulerOK && j.CyclesPerTick > 0 {
		r.RulerNotConverged = true
	}
	_, hasCycles := o.fields["cycles"]
	_, hasRuler := o.fields["core_cycles_per_tick"]
	switch {
	case !hasCycles:
		r.NoCycles = NotWritten
	case hasRuler && j.CyclesPerTick > 0, !hasRuler && j.Cycles != 0:
		r.Cycles = j.Cycles
	default:
		r.NoCycles = NoRuler
	}
	if j.Elements > 0 {
		r.Elements, r.TicksPerElem, r.NsPerElem = j.Elements, j.TicksPerElem, j.NsPerElem
		if r.NoCycles == HasCycles {
			r.CyclesPerElem = j.CyclesPerElem
		}
	}
	return es.add(e, r)
}

// FitJSON is one fit of a kernel in cyclebench's cpe JSON report
// (kernels[].fits[]), as the command writes it and ReadFile reads it.
type FitJSON struct {
	Unit         string    `json:"unit"`
	PerElement   float64   `json:"per_element"`
	PerElementCI float64   `json:"per_element_ci95"`
	PerElementSE float64   `json:"per_element_se"`
	Intercept    float64   `json:"intercept"`
	InterceptCI  float64   `json:"intercept_ci95"`
	InterceptSE  float64   `json:"intercept_se"`
	R2           float64   `json:"r2"`
	N            int       `json:"n"`
	Residuals    []float64 `json:"residuals"`
	OutlierSizes []int64   `json:"outlier_sizes"`
}

// newFitJSON is f, a fit in unit, as a report writes it; outliers are the
// sizes it flags.
func newFitJSON(unit string, f stats.Fit, outliers []int) FitJSON {
	j := FitJSON{Unit: unit, PerElement: f.Slope, PerElementCI: f.SlopeCI, PerElementSE: f.SlopeSE,
		Intercept: f.Intercept, InterceptCI: f.InterceptCI, InterceptSE: f.InterceptSE, R2: f.R2, N: f.N,
		Residuals: f.Residuals, OutlierSizes: make([]int64, len(outliers))}
	if j.Residuals == nil {
		j.Residuals = []float64{}
	}
	for i, n := range outliers {
		j.OutlierSizes[i] = int64(n)
	}
	return j
}

// LineOf is f as a FitLine: its slope per element and intercept with
// their 95% half-widths and standard errors, R² and the number of points
// (no outlier sizes: f gives indices, not sizes).
func LineOf(f stats.Fit) FitLine {
	return FitLine{PerElement: f.Slope, PerElementCI: f.SlopeCI, PerElementSE: f.SlopeSE,
		Intercept: f.Intercept, InterceptCI: f.InterceptCI, InterceptSE: f.InterceptSE, R2: f.R2, N: f.N}
}

// kernel reads one kernel of a cpe report: its points into es, its fits
// into the file.
func (jr *jsonReader) kernel(es *entrySet, el jfield, i int) error {
	where := fmt.Sprintf("kernels[%d]", i)
	o, err := jr.object(el, where)
	if err != nil {
		return err
	}
	jr.expect(o, "kernels[]", kernelKeys...)
	fit := Fit{Line: lineAt(jr.data, el.off)}
	for _, g := range []error{
		get(jr, o, where, "name", "a string", &fit.Kernel), get(jr, o, where, "unit", "a string", &fit.Unit),
		get(jr, o, where, "sizes", "an array of integers", &fit.Sizes),
		get(jr, o, where, "core_cycles_per_tick", "a number", &fit.CyclesPerTick),
		get(jr, o, where, "check", "a string", &fit.Check), get(jr, o, where, "warnings", "an array of strings", &fit.Warnings),
	} {
		if g != nil {
			return g
		}
	}
	if strings.TrimSpace(fit.Kernel) == "" {
		return jr.errorf(el.off, "%s has no \"name\": want the kernel's name, such as \"Combine4\"", where)
	}
	if p, ok := o.fields["points"]; ok {
		pts, err := jr.array(p, where+" \"points\"")
		if err != nil {
			return err
		}
		for k, pt := range pts {
			if err := jr.result(es, pt, fmt.Sprintf("%s.points[%d]", where, k), "kernels[].points[]", fit.Unit, fit.Kernel); err != nil {
				return err
			}
			if k == 0 {
				fit.Mode = es.file.Entries[es.last].Mode
			}
		}
	}
	if fit.Mode == "" {
		fit.Mode = Throughput
	}
	fs, ok := o.fields["fits"]
	if !ok {
		return nil
	}
	elems, err := jr.array(fs, where+" \"fits\"")
	if err != nil {
		return err
	}
	for k, fe := range elems {
		fw := fmt.Sprintf("%s.fits[%d]", where, k)
		fo, err := jr.object(fe, fw)
		if err != nil {
			return err
		}
		jr.expect(fo, "kernels[].fits[]", fitKeys...)
		var j FitJSON
		if err := json.Unmarshal(fe.raw, &j); err != nil {
			var te *json.UnmarshalTypeError
			if errors.As(err, &te) {
				off := fe.off
				if f, ok := fo.fields[te.Field]; ok {
					off = f.off
				}
				return jr.errorf(off, "%s %q is %s, want %s", fw, te.Field, "JSON "+te.Value, te.Type.String())
			}
			return jr.errorf(fe.off, "%s: %v", fw, err)
		}
		line := FitLine{PerElement: j.PerElement, PerElementCI: j.PerElementCI, PerElementSE: j.PerElementSE,
			Intercept: j.Intercept, InterceptCI: j.InterceptCI, InterceptSE: j.InterceptSE, R2: j.R2, N: j.N, OutlierSizes: j.OutlierSizes}
		if line.N == 0 {
			line.N = max(len(j.Residuals), len(fit.Sizes))
		}
		switch j.Unit {
		case "cycles":
			fit.Cycles = line
		case "ticks":
			fit.Ticks = line
		case "ns":
			fit.NS = line
		default:
			return jr.errorf(fe.off, "%s has unit %q, want cycles, ticks or ns", fw, j.Unit)
		}
	}
	if len(elems) > 0 {
		es.file.Fits = append(es.file.Fits, fit)
	}
	return nil
}

// absentWarnings lists the expected fields the file lacks in f.Absent and
// says in f.Warnings how they were read.
func (jr *jsonReader) absentWarnings(f *File) {
	kinds := make([]string, 0, len(jr.absent))
	for k := range jr.absent {
		kinds = append(kinds, k)
	}
	slices.Sort(kinds)
	for _, kind := range kinds {
		keys := make([]string, 0, len(jr.absent[kind]))
		for k := range jr.absent[kind] {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		var plain []string
		for _, k := range keys {
			n, total := jr.absent[kind][k], jr.total[kind]
			path := k
			if kind != "header" {
				path = kind + "." + k
			}
			f.Absent = append(f.Absent, path)
			of := fmt.Sprintf("%d of %d %s", n, total, strings.TrimSuffix(kind, "[]"))
			switch {
			case k == "mode" && kind != "header":
				f.Warnings = append(f.Warnings, fmt.Errorf("%w: %s: \"mode\" absent from %s (a file from before the tool had modes): read as throughput, calls back to back", ErrAbsentField, f.Path, of))
			case k == "cycles" && kind != "header":
				f.Warnings = append(f.Warnings, fmt.Errorf("%w: %s: \"cycles\" absent from %s: no cycle figures for them", ErrAbsentField, f.Path, of))
			case kind == "header":
				plain = append(plain, fmt.Sprintf("%q", k))
			default:
				plain = append(plain, fmt.Sprintf("%q (%s)", k, of))
			}
		}
		if len(plain) > 0 {
			where := "from " + strings.TrimSuffix(kind, "[]")
			if kind == "header" {
				where = "from the header"
			}
			f.Warnings = append(f.Warnings, fmt.Errorf("%w: %s: %s absent %s: read as zero or empty", ErrAbsentField, f.Path, strings.Join(plain, ", "), where))
		}
	}
}

// entrySet gathers runs into a file's entries by (package, name, mode).
type entrySet struct {
	file  *File
	index map[entryKey]int
	last  int // index of the entry of the last run added
}

type entryKey struct{ pkg, name, mode string }

func newEntrySet(f *File) *entrySet { return &entrySet{file: f, index: map[entryKey]int{}} }

// add adds r to the entry like e, creating it when new. An entry whose
// unit differs from one run to the next is an error.
func (es *entrySet) add(e Entry, r Run) error {
	k := entryKey{e.Pkg, e.Name, e.Mode}
	i, ok := es.index[k]
	if !ok {
		i = len(es.file.Entries)
		es.index[k] = i
		es.file.Entries = append(es.file.Entries, e)
	}
	have := &es.file.Entries[i]
	if have.Unit == "" {
		have.Unit = e.Unit
	} else if e.Unit != "" && e.Unit != have.Unit {
		return fmt.Errorf("%w: %s:%d: %s counts %s here but %s at line %d: want one unit per benchmark", ErrSyntax, es.file.Path, r.Line, e.Name, e.Unit, have.Unit, have.Runs[0].Line)
	}
	have.Runs = append(have.Runs, r)
	es.last = i
	return nil
}
