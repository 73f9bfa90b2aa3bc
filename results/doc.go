// Package results is the model of cyclebench's result files: it reads and
// writes them, and compares and fits them, for a program to call.
//
// A result file holds one machine's measurements: the JSON reports of
// cyclebench run and cpe (-format json), or the Go benchmark format
// written by cyclebench -format bench or by go test -bench (with or
// without harness.Report). [Read] and [Parse] turn any of them into a
// [File]: the [Machine] it was measured on, its [Entry] values (a
// benchmark name with the [Run] of each measurement: cycles, ticks and ns
// per call and per element) and, for cpe reports, the kernels' fits ([Fit]).
// Every version of the files written so far is read; fields an older
// version did not write read as zero, and the File says which
// ([File.Absent], [ErrAbsentField]).
//
// # Names
//
// Benchmark names follow the Go convention for sub-benchmarks:
// "Combine4/n=1000" is kernel Combine4 at size 1000 (also size=, len=,
// elements=), ".../mode=latency" marks the latency mode in the benchmark
// format, and go test appends "-N" for GOMAXPROCS. [ParseName] takes a
// name apart; entries are matched across files by the name without mode
// and GOMAXPROCS, plus the mode.
//
// # Families and variant groups
//
// Two groupings serve two questions. A [Family] is one benchmark swept
// over sizes (Sum/n=100, Sum/n=200, ...): what a CPE fit needs
// ([Sweep]). A variant group is several implementations of one job,
// compared at the same size: Combine1 … Combine6, Psum1 and Psum2, or a
// user's Sum/one and Sum/four; the matrix says which variant is fastest
// on each machine and by how much ([Verdict]).
//
// # The matrix
//
// [Matrix] lays several files side by side: a [Table] of kernels (rows)
// by machines (columns), in core cycles per call and per element, each
// cell the median of the file's runs with their spread, relative to a
// baseline file. Cycles compare across machines whose counters differ (a
// 2.1 GHz TSC stepping by 2, a quantized guest TSC, an arm64 CNTVCT):
// nanoseconds do not. A kernel a machine lacks is marked missing; a cell
// without cycles (no core-clock ruler, a go test file without
// harness.Report) holds the ns figures and says why. [Table.TextRows]
// gives the table as text cells, [Table.String] a plain rendering, and
// [Table.Comparison] and [Table.HeatMap] the inputs of [plot.Compare] and
// [plot.Heat].
//
// # Two files
//
// [Compare] tests two files benchmark by benchmark: the matrix's rows,
// each unit's per-run figures (the ones its cells summarize) compared
// between the runs of each side with stats.CompareRuns, each row with a
// verdict and a sentence ([Comparison]). [Pool] merges the files of one
// machine into one column first.
//
// # Fits of file data
//
// [FitFiles] fits every family of files as cyclebench cpe fits a sweep
// it measures ([Sweep], harness.CPEResult.Fit): every run a point, the
// disturbed runs left out. [PlotSweeps] describes the picture.
//
// # Measurements and reports
//
// [File.Measurement] turns a run into a [Measurement] (a harness.Result
// with its kernel, size and check), [PairedOf] a run of
// harness.ReportCompare into a [Paired] comparison, and [File.Split] does
// both for a whole file. The documents of run and cpe are written here,
// as they are read here: [RunReport] and [WriteBench] (the benchmark
// format), [CPEReport].
//
// # Where the rest is
//
//   - results (this package): the file model ([File], [Entry], [Run],
//     [Machine]), reading and writing every format, names, and the
//     analysis of files: [Compare], [Matrix], [FitFiles]. It imports
//     harness only for its result types and the CPE fit
//     (harness.CPEResult.Fit, arithmetic on points), and calibrate only
//     for the calibration a [Header] describes; it never measures.
//   - internal/gotest: running go test and fanning a command out over
//     processes, read back as a [File] (gotest.GoTest, gotest.Processes).
//   - internal/reports: what the subcommands print beyond a result file:
//     the reports of info, calibrate, clocks and version, of comparisons
//     measured in the process, and the warnings summary; and the text and
//     CSV renderings of files' contents (a run's results table, cpe's
//     sweeps, the matrix, go test comparisons with their verdicts pooled
//     over runs, reports.PooledVerdicts).
//   - internal/revision: compare -base's report of two revisions over
//     code layouts.
//   - selfcheck: validate's report, beside the validation it describes.
//   - plot: the pictures; [Table.Comparison], [Table.HeatMap] and
//     [PlotSweeps] give it its inputs.
//   - internal/sigfig: the formatters shared by all: significant digits,
//     frequencies (sigfig.Hz) and p-values (sigfig.PValue).
//
// Nothing in the package prints, logs or panics; errors wrap the sentinel
// errors below, and soft problems are warnings in [File.Warnings].
package results
