// Package harness measures how long a Go function takes, in counter ticks,
// nanoseconds and estimated core cycles, with the K-best method of CS:APP
// (Bryant and O'Hallaron, "Computer Systems: A Programmer's Perspective",
// 3rd ed., §5 and the web aside on measuring time).
//
// # What to time, and how
//
// A [Target] is the thing to time: a name, the function (Run), an untimed
// Setup before each sample, the elements one call processes, and an
// untimed Check of the output afterwards. A [Config] is the policy of the
// measurement (K, ε, the budget, the CPU, the mode, the priority); start
// from [DefaultConfig], the one source of defaults. The context (the
// Report helpers take a *testing.B instead) cancels the measurement and
// may carry a progress hook ([WithProgress]):
//
//	res, err := harness.Measure(ctx, harness.DefaultConfig(), harness.Target{Name: "sum", Run: sum})
//
// [CPE] sweeps a [Sweep] (a Build function making the Target for each
// size) and [Compare] measures two Targets interleaved; [Report],
// [ReportSweep] and [ReportCompare] do the same from inside a go test
// benchmark. Bad input is an error wrapping [ErrBadConfig] that names the
// field, its value and what is allowed; soft problems are in the results'
// Warnings, and [Remedy] says what may cure each. Package selfcheck checks
// all of this against chains of known latency.
//
// # One engine
//
// [Measure], [CPE], [Compare] and the Report helpers all run the same
// sampling engine on a fresh goroutine locked to its OS thread, pinned to
// one CPU with its priority raised where permitted and the garbage
// collector off (internal/pinned, the one pinning path). The engine warms
// the functions up, chooses R, the calls per sample, and then takes samples
// in rounds. Each round times, close together:
//
//   - each target: R calls of it between tsc.StartCPU and tsc.StopCPU, there
//     and back (A B B A) when there are several;
//   - the overhead to subtract: the empty region (the counter reads with
//     no call between) in throughput mode, the same loop of fenced calls of
//     an empty function in latency mode (see Latency and throughput);
//   - the core-clock ruler (calibrate.Ruler): a dependent chain of register
//     ADDs at two lengths, and where this core's multiply latency is
//     documented a dependent IMUL chain that checks it.
//
// Every other round runs backwards, so a slow drift affects every stream
// alike. Each stream keeps its K smallest samples (package stats). A
// target has converged when its figure would come out the same again: the
// cycle figure of the even rounds (their best target, overhead and ruler
// samples) and that of the odd rounds, which span the same stretch of
// time, agree within ε (or a few counter quanta), each half holding at
// least K samples. It is judged in cycles because the core clock moves
// under the samples, by percents on a shared host, which makes K best
// ticks disagree while the cycles they give do not. Without a ruler
// (NoCycles) the CS:APP rule judges the ticks: (1+ε)·v1 ≥ vK, or vK − v1
// within a few counter quanta. The overhead and ruler streams converge by
// the CS:APP rule. Every target is sampled until all
// have converged, and the overhead and the ruler as long as any target is,
// so all best samples come from the same stretch of time; and a
// measurement takes at least 16 rounds (and Config.MinTime), so that K
// samples agreeing by chance in a slow moment cannot end it. After
// MaxTime or MaxSamples samples it stops, converged or not
// (Result.Converged); only the ruler's wait (below) goes past MaxSamples.
//
// The result per call is (v1(target) − v1(overhead)) / R ticks, converted to
// nanoseconds with the calibrated counter frequency (package calibrate) and
// to core cycles with the ruler's slope measured in the same rounds: one
// register ADD is one core cycle on every core, whatever the counter's rate.
// The ruler's streams converge to 0.05% (or ε when smaller): every cycle
// figure carries that much of the ruler's own error, which comparisons of
// separate runs allow for.
// The figure is given only when the IMUL chain agrees with the ADD chain at
// its documented latency and the core clock they imply is plausible;
// otherwise Result.Cycles is 0 and a warning names both chains' figures.
// calibrate.DecideCycles alone decides this, the wait below and the
// fallback to the calibration's ratio (Result.CyclesSource). An ADD of a small immediate would not do:
// Golden Cove-class Intel cores fold it at register rename (0.2 cycles per
// link). A smaller disagreement, within the check, has a cause of its own:
// when the core is shared (a busy SMT sibling on the host), a dependent ADD
// chain is delayed more than an IMUL chain, and every figure of the ADD
// ruler reads low by as much. So a measurement whose ADD chain still lags
// its IMUL chain by more than 0.1% plus the slopes' resolution when
// everything else has converged goes on sampling, for at most 250 ms
// (Result.RulerWait), until the core is free and both chains agree; a lag
// left at the end is a warning (ErrRulerLag). Compare does not wait.
//
// The engine's decisions (R, the quantum, the R variants, the stopping
// rule, the two clusters; in calibrate, the cycle figure and the wait) are
// pure functions of what it has seen, tested without hardware.
//
// # The estimator, chosen from recorded streams
//
// How a measurement's samples become one figure (the best target sample
// less the best overhead sample, times the ruler's slope from the best
// samples of its chains) is chosen from sample streams recorded on every
// machine kind met (testdata/streams; trace_test.go says how to record
// them): TestReplayEstimators runs each candidate rule over all of them and
// fails when another rule beats the engine's by a third. Per-call truths
// are not known (the call's share), so it judges each rule's spread over
// the measurements, and the one truth that holds whatever the call costs:
// 3700 and 1000 chained ADDs through the same wrapper differ by 2700
// cycles. The candidates are the best-sample rule, the median and lower
// quantiles of per-round figures (each round's target converted with its
// own round's ruler) and the empty-loop rule; the test logs each one's
// error, so a recording from a new machine kind that favours another rule
// shows it.
//
// # Code without a floor
//
// K-best assumes the code has a floor it reaches again and again. When
// fewer than half of 200 or more samples (those whose round's core-state
// probe read alone) come within ε of the best, the code's cost varies from
// call to call and its best sample is a rare call: the figure is then the
// samples' 5th percentile (Result.Quantile, ErrNoFloor), which repeats, and
// convergence is judged on it (floor.go; TestReplayFloors chooses the rule
// from recordings).
//
// # Resolution from the samples
//
// R is chosen so that a sample spans at least Config.MinRegionSteps counter
// quanta, and at least 10/ε of them, so that one quantum is at most a tenth
// of the K-best tolerance. The quantum is the larger of the counter's step
// as package tsc detected it and the quantum the samples themselves show: a
// virtual TSC that advances 26 ticks at a time gives samples with few
// distinct values on a 26-tick grid, whatever the step detection said. The
// probe that chooses R looks for it, the engine looks again after 32 and
// 128 samples and lengthens R when it finds a coarser one
// (Result.Retunes), and the ruler's first eight samples of its long chain
// are checked the same way.
//
// # Latency and throughput
//
// "Cycles per call" has two meanings, as in llvm-exegesis, and every result
// says which one it is (Result.Mode):
//
//   - [Throughput], the default: calls back to back, as in a program's loop,
//     the call included: only the counter reads are subtracted, so an empty
//     function costs what a call does (about 4.5 cycles on an AMD Zen 4
//     guest). A call's own cost overlaps with the function's work by an
//     amount no empty function stands for, and the empty loop's best sample
//     moves between moments by far more than a steady kernel's, so
//     subtracting it would add its noise to every figure (overheadRepeat).
//     Consecutive calls may overlap in the out-of-order core, by an amount
//     that can depend on the loop around them; so the engine takes R, R+1,
//     R+2 and R+3 calls per sample in turn (every remainder of its loop
//     unrolled by four), and every measurement sees every such mode. When
//     the per-call samples form two clusters, a warning ([ErrModes]) names
//     both and the figure is the lower. A sample's ends cut off one
//     call's overlap (its first call follows a fence, its last has no next
//     call), so the figure reads high by that overlap over R: before
//     sampling, the engine times R and 4R calls per sample and raises R
//     until the overlap is at most 0.025% of the figure (Result.Overlap),
//     and to samples of 20 µs at least (the pipeline refilling after the
//     fence adds some ticks to every sample), up to samples of 1 ms
//     ([ErrOverlap] beyond).
//   - [Latency]: a serializing fence (LFENCE on amd64, ISB on arm64) before
//     each call, with the fenced empty call as the overhead: the time from
//     a call's first instruction to its last result, with nothing to overlap
//     with. 1000 dependent ADDs measure 1000 cycles here; back to back they
//     can measure 5% less.
//
// # Disturbed samples
//
// A sample whose start and stop ran on different CPUs, or on a CPU other
// than the pinned one (RDTSCP reports it), is discarded. On Linux the
// engine also reads the measuring thread's context switches and page
// faults (getrusage RUSAGE_THREAD) just before and after each target
// sample, outside its timed region, and discards a sample in which one
// moved; Result.Disturbed counts them by cause. A function that
// itself blocks or touches new memory switches or faults in most samples:
// then those are kept, with a warning. Config.Events counts extra events per
// call (instructions, branch misses, ...; hardware events need a PMU, which
// virtual machines seldom expose); with "cycles" on a machine that has one,
// Cycles comes from the PMU and the ruler cross-checks it.
//
// # Safety
//
// Everything a measurement changes is restored when it returns: the
// thread's CPU mask, priority and scheduler, the GC percentage. A function
// that panics or calls runtime.Goexit ends the measurement with an error
// wrapping [ErrPanic]; the measuring goroutine's state is restored first.
//
// A realtime measurement (Config.Realtime) is watched from another thread:
// RLIMIT_RTTIME alone cannot stop a spinning Go thread, so when the
// measuring thread has used most of Config.RTTimeLimit it is put back to
// normal priority and the call returns [ErrRealtimeLimit].
//
// # Beyond one measurement
//
// [CPE] sweeps a kernel over sizes and fits cost = intercept + CPE·n by
// least squares with an intercept, in cycles, ticks and nanoseconds; sizes
// come from [ParseSizes]. [Compare] measures two functions interleaved
// (ABBA), pairs their samples and reports B/A with a confidence interval
// and a p-value, taking the pairs in several separate blocks (each with its
// own warm-up, R, overhead and ruler) and judging the ratio by the blocks,
// each weighted by its own interval (stats.CombineBlocks): pairs
// milliseconds apart share the machine's state, so an interval built as if
// they were independent is too narrow (docs/how-it-measures.md); a block taken in
// a noisy moment is less precise than the others and counts for less. One
// process cannot see what moves between processes (the memory layout of
// code and data): compare results of several processes for that (go test
// -count, cyclebench compare FILE FILE). [CompareCPE] compares two slopes.
// [Report] puts cycles/op into `go test -bench` from inside a benchmark
// function. Package lab times the same runs of a kernel with every clock a
// program can read, side by side, and sets [Measure]'s figure for the
// kernel beside them.
package harness
