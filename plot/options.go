package plot

import (
	"fmt"
	"math"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"gonum.org/v1/plot/vg"
)

// Options are the settings shared by every plot. The zero value works:
// each field's doc states its default.
type Options struct {
	// Title is drawn above the plot; "" means a title made from the data.
	Title string
	// Size is the image size; the zero Size means the plot's default
	// (DefaultCPESize, DefaultCompareSize).
	Size Size
	// DPI is the resolution of PNG images in pixels per inch; 0 means
	// DefaultDPI. A PNG is Size.Width/72·DPI by Size.Height/72·DPI pixels:
	// a size parsed from "1200x800" gives 1200×800 pixels at DefaultDPI and
	// 2400×1600 at 2·DefaultDPI, with the same layout. SVG and PDF ignore
	// it.
	DPI int
	// XScale chooses the CPE plot's n axis: ScaleAuto (logarithmic when
	// the sizes are log-spaced over at least a decade), ScaleLinear or
	// ScaleLog.
	XScale Scale
	// Lower chooses the CPE plot's panels below the cost per call:
	// PanelBoth (the zero value: cost per element, then the residuals),
	// PanelPerElement, PanelResiduals, or PanelNone.
	Lower Panel
	// Bars chooses the orientation of Compare's bars: BarsAuto (horizontal
	// when the group names do not fit under vertical bars), BarsVertical
	// or BarsHorizontal.
	Bars Orientation
}

// Scale is the scale of an axis.
type Scale int

// Scales of [Options.XScale].
const (
	ScaleAuto Scale = iota
	ScaleLinear
	ScaleLog
)

// Panel chooses the CPE plot's panels below the cost-per-call panel; they
// share its n axis.
type Panel int

// Panels of [Options.Lower].
const (
	// PanelBoth draws the per-element panel and, under it, the residual
	// panel: the one shows the shape of the cost, the other how far the
	// kept runs stray from the fit at a scale where its band is visible.
	PanelBoth Panel = iota
	// PanelPerElement plots Y/Elements against n, with the fit as
	// Slope + Intercept/n: where curvature, cache steps and the per-call
	// overhead show.
	PanelPerElement
	// PanelResiduals plots Y − (Intercept + Slope·n) of the points the
	// fit kept against n, in the cost unit, with the confidence band
	// around 0.
	PanelResiduals
	// PanelNone draws the cost-per-call panel alone.
	PanelNone
)

// Orientation is the direction of Compare's bars.
type Orientation int

// Orientations of [Options.Bars].
const (
	BarsAuto Orientation = iota
	BarsVertical
	BarsHorizontal
)

// DefaultDPI is the PNG resolution used when Options.DPI is 0: the
// resolution at which a size given in pixels is exact.
const DefaultDPI = 96

// Size limits: a side below MinSide leaves no room for the data; above
// MaxSide, or more than maxPixels in a PNG, is a mistake rather than a
// picture.
const (
	MinSide   = 120 * vg.Inch / 96  // 120 px
	MaxSide   = 8000 * vg.Inch / 96 // 8000 px
	minDPI    = 24
	maxDPI    = 1200
	maxPixels = 64 << 20
)

// Default sizes, in points (1/72 inch): 800×640 and 800×500 pixels at
// DefaultDPI. Treat them as read-only; set Options.Size instead.
var (
	DefaultCPESize     = Size{Width: 600, Height: 480}
	DefaultCompareSize = Size{Width: 600, Height: 375}
)

// Size is an image's width and height in points (1/72 inch; vg.Length).
// The zero Size means a plot's default. *Size is a flag.Value, so a
// command line can bind it directly: flag.Var(&opt.Size, "plot-size", ...).
type Size struct {
	Width, Height vg.Length
}

// sizeRE is WxH, each number with an optional unit, or one unit at the
// end for both.
var sizeRE = regexp.MustCompile(`^\s*([0-9]*\.?[0-9]+)\s*([a-z]*)\s*[x×*]\s*([0-9]*\.?[0-9]+)\s*([a-z]*)\s*$`)

// units are the units ParseSize accepts, in points.
var units = map[string]vg.Length{
	"px": vg.Inch / DefaultDPI, "pt": vg.Points(1), "in": vg.Inch, "cm": vg.Centimeter, "mm": vg.Millimeter,
}

// ParseSize reads "WxH": two positive numbers separated by x (or ×),
// in pixels at DefaultDPI unless a unit follows: px, pt, in, cm or mm,
// after each number or once at the end for both ("1200x800",
// "6x4in", "16cmx10cm", "450ptx300pt"). Each side must lie between MinSide
// and MaxSide (120 to 8000 pixels). The error wraps [ErrBadSize].
func ParseSize(s string) (Size, error) {
	m := sizeRE.FindStringSubmatch(strings.ToLower(s))
	if m == nil {
		return Size{}, fmt.Errorf("%w: %q: want WIDTHxHEIGHT, in pixels or with a unit (px, pt, in, cm, mm), e.g. 1200x800 or 16x10cm", ErrBadSize, s)
	}
	wu, hu := m[2], m[4]
	if wu == "" {
		wu = hu
	}
	var sz Size
	for _, side := range []struct {
		num, unit string
		dst       *vg.Length
	}{{m[1], wu, &sz.Width}, {m[3], hu, &sz.Height}} {
		if side.unit == "" {
			side.unit = "px"
		}
		u, ok := units[side.unit]
		if !ok {
			return Size{}, fmt.Errorf("%w: %q: unknown unit %q (want px, pt, in, cm or mm)", ErrBadSize, s, side.unit)
		}
		v, err := strconv.ParseFloat(side.num, 64)
		if err != nil {
			return Size{}, fmt.Errorf("%w: %q: %v", ErrBadSize, s, err)
		}
		*side.dst = vg.Length(v) * u
	}
	if err := sz.check(); err != nil {
		return Size{}, fmt.Errorf("%w (from %q)", err, s)
	}
	return sz, nil
}

// Set parses v with [ParseSize]; "" sets the zero Size (the default), so
// a flag's printed default parses back. It makes *Size a flag.Value.
func (s *Size) Set(v string) error {
	if strings.TrimSpace(v) == "" {
		*s = Size{}
		return nil
	}
	sz, err := ParseSize(v)
	if err != nil {
		return err
	}
	*s = sz
	return nil
}

// String returns the size as ParseSize reads it: pixels when both sides
// are whole pixels at DefaultDPI, else points to 3 decimals; "" for the
// zero Size.
func (s Size) String() string {
	if s == (Size{}) {
		return ""
	}
	pw, ph := float64(s.Width/units["px"]), float64(s.Height/units["px"])
	if isWhole(pw) && isWhole(ph) {
		return fmt.Sprintf("%.0fx%.0f", pw, ph)
	}
	pt := func(v vg.Length) string {
		return strings.TrimRight(strings.TrimRight(strconv.FormatFloat(float64(v), 'f', 3, 64), "0"), ".")
	}
	return pt(s.Width) + "x" + pt(s.Height) + "pt"
}

func isWhole(v float64) bool { return math.Abs(v-math.Round(v)) < 1e-6 }

// check returns an error wrapping ErrBadSize unless both sides are
// finite and within [MinSide, MaxSide].
func (s Size) check() error {
	for _, side := range []struct {
		name string
		v    vg.Length
	}{{"width", s.Width}, {"height", s.Height}} {
		v := float64(side.v)
		if math.IsNaN(v) || v < float64(MinSide) || v > float64(MaxSide) {
			return fmt.Errorf("%w: %s %.4gpt (%.4g px): want %g to %g px at %d dpi", ErrBadSize, side.name, v, v/float64(units["px"]), float64(MinSide/units["px"]), float64(MaxSide/units["px"]), DefaultDPI)
		}
	}
	return nil
}

// resolve returns the size and DPI to draw with: the defaults filled in
// and everything checked.
func (o Options) resolve(def Size, format string) (Size, int, error) {
	sz := o.Size
	if sz == (Size{}) {
		sz = def
	}
	if err := sz.check(); err != nil {
		return Size{}, 0, err
	}
	dpi := o.DPI
	if dpi == 0 {
		dpi = DefaultDPI
	}
	if dpi < minDPI || dpi > maxDPI {
		return Size{}, 0, fmt.Errorf("%w: DPI %d: want 0 (meaning %d) or %d to %d", ErrBadSize, o.DPI, DefaultDPI, minDPI, maxDPI)
	}
	if format == "png" {
		px := float64(sz.Width/vg.Inch) * float64(dpi) * float64(sz.Height/vg.Inch) * float64(dpi)
		if px > maxPixels {
			return Size{}, 0, fmt.Errorf("%w: %s at %d dpi is %.0f Mpixel: want at most %d", ErrBadSize, sz, dpi, px/(1<<20), maxPixels>>20)
		}
	}
	if o.XScale < ScaleAuto || o.XScale > ScaleLog {
		return Size{}, 0, fmt.Errorf("%w: XScale %d: want ScaleAuto, ScaleLinear or ScaleLog", ErrBadInput, o.XScale)
	}
	if o.Lower < PanelBoth || o.Lower > PanelNone {
		return Size{}, 0, fmt.Errorf("%w: Lower %d: want PanelBoth, PanelPerElement, PanelResiduals or PanelNone", ErrBadInput, o.Lower)
	}
	if o.Bars < BarsAuto || o.Bars > BarsHorizontal {
		return Size{}, 0, fmt.Errorf("%w: Bars %d: want BarsAuto, BarsVertical or BarsHorizontal", ErrBadInput, o.Bars)
	}
	return sz, dpi, nil
}

// Formats are the image formats the plots are written in (read-only).
var Formats = []string{"svg", "png", "pdf"}

// checkFormat returns format in lower case, or an error wrapping
// ErrFormat.
func checkFormat(format string) (string, error) {
	f := strings.ToLower(strings.TrimPrefix(format, "."))
	for _, ok := range Formats {
		if f == ok {
			return f, nil
		}
	}
	return "", fmt.Errorf("%w: %q: want svg, png or pdf", ErrFormat, format)
}

// FormatOf returns the image format named by path's extension (".svg",
// ".png" or ".pdf", any case), or an error wrapping [ErrFormat].
func FormatOf(path string) (string, error) {
	ext := filepath.Ext(path)
	if ext == "" {
		return "", fmt.Errorf("%w: %q has no extension: want a name ending in .svg, .png or .pdf", ErrFormat, path)
	}
	f, err := checkFormat(ext)
	if err != nil {
		return "", fmt.Errorf("%w: %q: want a name ending in .svg, .png or .pdf", ErrFormat, path)
	}
	return f, nil
}
