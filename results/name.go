package results

import (
	"strconv"
	"strings"
)

// sizeKeys are the keys of a name part that gives a benchmark's size:
// "Sum/n=1000", "Sum/size=1000", "Sum/len=1000", "Sum/elements=1000". The
// key is matched without regard to case and reported in lower case.
var sizeKeys = []string{"n", "size", "len", "elements"}

// Name is a benchmark name taken apart by [ParseName].
type Name struct {
	// Full is the name without the mode part and the GOMAXPROCS suffix:
	// "Combine4/n=1000" for "Combine4/n=1000/mode=latency-8".
	Full string
	// Base is Full without the size part: "Combine4", "Sum/acc=4" for
	// "Sum/n=100/acc=4".
	Base string
	// SizeKey is the size part's key in lower case ("n", "size", "len",
	// "elements"), "" when the name has no size part; N is its value.
	SizeKey string
	N       int64
	// Mode is the mode part's value ("latency", "throughput"), "" when the
	// name has none.
	Mode string
	// Procs is the GOMAXPROCS suffix go test appends ("-8"), 0 when there
	// is none.
	Procs int
}

// ParseName takes a benchmark name apart: a trailing "-N" (go test's
// GOMAXPROCS suffix, read as benchfmt does: the last '-' followed only by
// digits), a "/mode=VALUE" part, and the first part "/KEY=N" whose key is
// one of [sizeKeys] (any case) and whose value is a non-negative decimal
// integer that fits in an int64. A leading "Benchmark" is kept: the
// benchmark-format reader removes it before. A name whose size value is
// not such an integer ("n=1e6", "n=big") has no size; the part stays in
// Base. The first part of a name (before any '/') is never a size or mode
// part. ParseName is pure and never fails.
func ParseName(s string) Name {
	var nm Name
	// GOMAXPROCS, as benchfmt's splitGomaxprocs: the last '-' followed
	// only by digits, at least one.
	for i := len(s) - 1; i >= 0; i-- {
		c := s[i]
		if c == '-' && i < len(s)-1 {
			if p, err := strconv.Atoi(s[i+1:]); err == nil && p > 0 {
				nm.Procs = p
				s = s[:i]
			}
			break
		}
		if c < '0' || c > '9' {
			break
		}
	}
	parts := strings.Split(s, "/")
	full := parts[:1:1]
	base := parts[:1:1]
	for _, p := range parts[1:] {
		k, v, ok := strings.Cut(p, "=")
		if ok && nm.Mode == "" && strings.EqualFold(k, "mode") && v != "" {
			nm.Mode = strings.ToLower(v)
			continue
		}
		full = append(full, p)
		if ok && nm.SizeKey == "" && isSizeKey(k) {
			if n, err := strconv.ParseInt(v, 10, 64); err == nil && n >= 0 && v[0] != '+' {
				nm.SizeKey, nm.N = strings.ToLower(k), n
				continue
			}
		}
		base = append(base, p)
	}
	nm.Full = strings.Join(full, "/")
	nm.Base = strings.Join(base, "/")
	return nm
}

func isSizeKey(k string) bool {
	for _, s := range sizeKeys {
		if strings.EqualFold(k, s) {
			return true
		}
	}
	return false
}

// HasSize reports whether the name has a size part.
func (n Name) HasSize() bool { return n.SizeKey != "" }

// Size is the size part as written in names, "n=1000"; "" without one.
func (n Name) Size() string {
	if n.SizeKey == "" {
		return ""
	}
	return n.SizeKey + "=" + strconv.FormatInt(n.N, 10)
}
