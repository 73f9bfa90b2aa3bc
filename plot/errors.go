package plot

import "errors"

// Sentinel errors. Every error the package returns wraps one of them (test
// with errors.Is); the message names the offending value and what is
// allowed.
var (
	// ErrNoData: nothing to draw (no series, no points, no groups).
	ErrNoData = errors.New("plot: no data")
	// ErrBadValue: a NaN or ±Inf, a negative size, an interval that does
	// not contain its value, a non-positive value on a log axis or in a
	// ratio.
	ErrBadValue = errors.New("plot: bad value")
	// ErrBadInput: inputs that do not fit together: slices of different
	// lengths, series in different units, an unknown option value.
	ErrBadInput = errors.New("plot: bad input")
	// ErrBadSize: an image size or resolution that cannot be drawn, or a
	// size string ParseSize cannot read.
	ErrBadSize = errors.New("plot: bad size")
	// ErrFormat: an image format other than svg, png and pdf.
	ErrFormat = errors.New("plot: unknown image format")
	// ErrDraw: gonum/plot failed while drawing (a case the checks above
	// missed; please report it with the input).
	ErrDraw = errors.New("plot: drawing failed")
)
