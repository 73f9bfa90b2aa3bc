// Package plot draws cyclebench results with gonum.org/v1/plot: CPE
// sweeps ([CPE]), comparisons between kernels or machines ([Compare])
// and tables of kernels × machines ([Heat]), as SVG, PNG or PDF. The
// command line and library users call the same functions.
//
// The inputs are plain structs ([CPESeries], [Comparison], [HeatMap]) that do not
// depend on the measuring engine: fill them from harness.CPEResult and
// stats.Fit, from a saved JSON file, or by hand.
//
// # Pictures
//
// A CPE plot has two panels sharing the n axis: cost per call against n
// with each kernel's points, fitted line and 95% confidence band, and
// below it cost per element (or the residuals), where curvature, cache
// steps and the per-call overhead show. Sizes that did not converge are
// drawn hollow and listed in the legend; a kernel whose cost is not linear
// in n is marked in the title and legend. A comparison is a grouped bar
// chart with error bars, bars growing from 1 when the values are ratios.
// A heat map colours each cell of a table by its value (diverging from
// white at 1 for ratios) and writes its figure in it: it stays readable
// with a hundred rows, where grouped bars do not.
//
// Every series has a colour from a colour-blind-safe [Palette], a marker
// [Shape] and a dash pattern ([StyleOf]), so overlapping lines stay apart.
// Axes are labelled with SI suffixes ([FormatSI]: 1.5k, 20M) by the
// [SITicks] and [SILogTicks] tickers, which gonum users may also use.
//
// # Sizes
//
// [Options.Size] is in points; [ParseSize] reads "1200x800" (pixels at
// [DefaultDPI]) or sizes with units ("16x10cm"), and *[Size] is a
// flag.Value. A PNG has Size/72·DPI pixels.
//
// # Errors
//
// The functions check their input before drawing and return errors
// wrapping [ErrNoData], [ErrBadValue], [ErrBadInput], [ErrBadSize] or
// [ErrFormat]; they do not panic (gonum/plot does on NaN, empty or
// non-positive log data). Nothing is written to the io.Writer when an
// error is returned.
package plot
