package harness

// Sizes of a CPE sweep: [ParseSizes] reads them from text in three forms,
// and checkSizes is the one rule every sweep's sizes obey.

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// ErrBadSizes: a size list, range or log spacing for a CPE sweep is empty,
// unsorted, has a duplicate, a size below 1 or above 2³¹−1, fewer than 3
// or more than 1000 sizes, or does not parse.
var ErrBadSizes = errors.New("harness: bad sizes")

// Limits of a sweep's size list.
const (
	// minSizes is the fewest sizes a CPE fit accepts: a line with a
	// confidence interval needs N−2 ≥ 1 degrees of freedom.
	minSizes = 3
	// maxSizes bounds the length of a size list, so a range such as
	// 1:1000000000:1 is refused instead of allocating and measuring for hours.
	maxSizes = 1000
	// maxSize is the largest size accepted (2³¹−1, so it is an int on every
	// platform).
	maxSize = math.MaxInt32
)

// checkSizes returns nil when sizes can be a sweep: at least minSizes and
// at most maxSizes sizes, each from 1 to maxSize, strictly increasing.
// Otherwise the error wraps [ErrBadSizes] and names the offending value.
func checkSizes(sizes []int) error {
	switch {
	case len(sizes) == 0:
		return fmt.Errorf("%w: empty size list (want at least %d sizes)", ErrBadSizes, minSizes)
	case len(sizes) > maxSizes:
		return fmt.Errorf("%w: %d sizes (allowed: at most %d)", ErrBadSizes, len(sizes), maxSizes)
	}
	for i, n := range sizes {
		if n < 1 || n > maxSize {
			return fmt.Errorf("%w: size %d (allowed: 1 to %d)", ErrBadSizes, n, maxSize)
		}
		if i > 0 && n == sizes[i-1] {
			return fmt.Errorf("%w: duplicate size %d", ErrBadSizes, n)
		}
		if i > 0 && n < sizes[i-1] {
			return fmt.Errorf("%w: size %d after %d (sizes must increase)", ErrBadSizes, n, sizes[i-1])
		}
	}
	if len(sizes) < minSizes {
		return fmt.Errorf("%w: %d sizes %v (a fit with a confidence interval needs at least %d)", ErrBadSizes, len(sizes), sizes, minSizes)
	}
	return nil
}

// ParseSizes parses a sweep's sizes in any of three forms:
//
//	100,200,400,800     a list, strictly increasing
//	100:2000:100        a range from:to:step (to included when a step reaches it)
//	log 64:65536:16     from:to:count, count sizes from from to to spaced
//	                    evenly on a log scale and rounded to integers
//
// A sweep has 3 to 1000 sizes, each from 1 to 2³¹−1. An error wraps
// [ErrBadSizes] and names the value and what is allowed, as when rounding
// would make two log-spaced sizes equal (too many sizes for the range).
func ParseSizes(s string) ([]int, error) {
	t := strings.TrimSpace(s)
	if rest, ok := strings.CutPrefix(t, "log"); ok && (rest == "" || rest[0] == ' ' || rest[0] == ':' || rest[0] == '\t') {
		return parseSizeLog(strings.TrimPrefix(strings.TrimSpace(rest), ":"))
	}
	if strings.Contains(t, ":") {
		return parseSizeRange(t)
	}
	return parseSizeList(t)
}

// parseSizeList parses a comma-separated list of sizes, "100,200,400"
// (spaces around items allowed). The sizes must satisfy checkSizes: no
// empty item, each an integer from 1 to maxSize, strictly increasing, at
// least minSizes. Errors wrap [ErrBadSizes].
func parseSizeList(s string) ([]int, error) {
	if strings.TrimSpace(s) == "" {
		return nil, fmt.Errorf("%w: empty size list (want e.g. 100,200,400)", ErrBadSizes)
	}
	items := strings.Split(s, ",")
	if len(items) > maxSizes {
		return nil, fmt.Errorf("%w: %d sizes (allowed: at most %d)", ErrBadSizes, len(items), maxSizes)
	}
	sizes := make([]int, 0, len(items))
	for i, it := range items {
		it = strings.TrimSpace(it)
		if it == "" {
			return nil, fmt.Errorf("%w: %q: item %d is empty", ErrBadSizes, s, i+1)
		}
		n, err := parseSize(it)
		if err != nil {
			return nil, err
		}
		sizes = append(sizes, n)
	}
	if err := checkSizes(sizes); err != nil {
		return nil, err
	}
	return sizes, nil
}

// parseSizeRange parses "from:to:step": from, from+step, … up to and
// including to when the steps reach it. Each part is an integer; from ≥ 1,
// to ≥ from, step ≥ 1, and the range must hold minSizes to maxSizes
// sizes. Errors wrap [ErrBadSizes].
func parseSizeRange(s string) ([]int, error) {
	a, b, step, err := parseTriple(s, "from:to:step", "100:2000:100")
	if err != nil {
		return nil, err
	}
	return sizeRange(a, b, step)
}

// sizeRange returns from, from+step, … ≤ to, checked like parseSizeRange.
func sizeRange(from, to, step int) ([]int, error) {
	switch {
	case from < 1 || from > maxSize:
		return nil, fmt.Errorf("%w: range from %d (allowed: 1 to %d)", ErrBadSizes, from, maxSize)
	case to < from || to > maxSize:
		return nil, fmt.Errorf("%w: range to %d (allowed: %d to %d, at least from)", ErrBadSizes, to, from, maxSize)
	case step < 1:
		return nil, fmt.Errorf("%w: range step %d (allowed: ≥ 1)", ErrBadSizes, step)
	}
	count := (to-from)/step + 1
	if count > maxSizes {
		return nil, fmt.Errorf("%w: range %d:%d:%d has %d sizes (allowed: at most %d)", ErrBadSizes, from, to, step, count, maxSizes)
	}
	if count < minSizes {
		return nil, fmt.Errorf("%w: range %d:%d:%d has %d sizes (a fit needs at least %d)", ErrBadSizes, from, to, step, count, minSizes)
	}
	sizes := make([]int, 0, count)
	for i := 0; i < count; i++ {
		sizes = append(sizes, from+i*step)
	}
	return sizes, nil
}

// parseSizeLog parses "from:to:count": count sizes from from to to
// inclusive, spaced evenly on a logarithmic scale and rounded to integers
// (from·(to/from)^(i/(count−1))). from ≥ 1, to > from, minSizes ≤ count ≤
// maxSizes; an error names the count when rounding would make two sizes
// equal (too many sizes for the range). Errors wrap [ErrBadSizes].
func parseSizeLog(s string) ([]int, error) {
	a, b, count, err := parseTriple(s, "from:to:count", "64:65536:16")
	if err != nil {
		return nil, err
	}
	return sizeLog(a, b, count)
}

// sizeLog returns count log-spaced sizes from from to to, checked like
// .
func sizeLog(from, to, count int) ([]int, error) {
	switch {
	case from < 1 || from > maxSize:
		return nil, fmt.Errorf("%w: log from %d (allowed: 1 to %d)", ErrBadSizes, from, maxSize)
	case to <= from || to > maxSize:
		return nil, fmt.Errorf("%w: log to %d (allowed: more than from = %d, at most %d)", ErrBadSizes, to, from, maxSize)
	case count < minSizes || count > maxSizes:
		return nil, fmt.Errorf("%w: log count %d (allowed: %d to %d)", ErrBadSizes, count, minSizes, maxSizes)
	}
	sizes := make([]int, count)
	ratio := math.Log(float64(to) / float64(from))
	for i := range sizes {
		sizes[i] = int(math.Round(float64(from) * math.Exp(ratio*float64(i)/float64(count-1))))
	}
	sizes[0], sizes[count-1] = from, to
	for i := 1; i < count; i++ {
		if sizes[i] <= sizes[i-1] {
			distinct := len(slices.Compact(slices.Clone(sizes)))
			return nil, fmt.Errorf("%w: log %d:%d:%d: rounding to integers makes sizes repeat (%d and %d), leaving %d distinct sizes; use a smaller count or a wider range", ErrBadSizes, from, to, count, sizes[i-1], sizes[i], distinct)
		}
	}
	return sizes, nil
}

// parseTriple parses "a:b:c" of integers.
func parseTriple(s, form, example string) (a, b, c int, err error) {
	parts := strings.Split(strings.TrimSpace(s), ":")
	if len(parts) != 3 {
		return 0, 0, 0, fmt.Errorf("%w: %q (want %s, e.g. %s)", ErrBadSizes, s, form, example)
	}
	var v [3]int
	for i, p := range parts {
		if v[i], err = parseSize(strings.TrimSpace(p)); err != nil {
			return 0, 0, 0, fmt.Errorf("%w (in %q, want %s)", err, s, form)
		}
	}
	return v[0], v[1], v[2], nil
}

// parseSize parses one integer of a size specification; the caller checks
// its range.
func parseSize(s string) (int, error) {
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		var ne *strconv.NumError
		if errors.As(err, &ne) && errors.Is(ne.Err, strconv.ErrRange) {
			return 0, fmt.Errorf("%w: size %s out of range (allowed: 1 to %d)", ErrBadSizes, s, maxSize)
		}
		return 0, fmt.Errorf("%w: %q is not an integer", ErrBadSizes, s)
	}
	if n < 1 || n > maxSize {
		return 0, fmt.Errorf("%w: size %d (allowed: 1 to %d)", ErrBadSizes, n, maxSize)
	}
	return int(n), nil
}
