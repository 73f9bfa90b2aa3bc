package main

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/cyclebench/cyclebench/internal/reports"
)

// machine is the report of `cyclebench info -format json`, read into the
// main module's own type so that a field the CLI renames cannot drift from
// what the report's machine line reads.
type machine reports.InfoReport

// parseMachine reads the JSON of `cyclebench info -format json`.
func parseMachine(b []byte) (machine, error) {
	var m machine
	if err := json.Unmarshal(b, &m); err != nil {
		return m, fmt.Errorf("cyclebench info: %w", err)
	}
	if m.Vendor == "" {
		return m, fmt.Errorf("cyclebench info: no vendor in its output")
	}
	return m, nil
}

// kind names the machine for the report's file name: vendor and core
// generation where the family and model are known ("amd-zen4",
// "intel-emr"), else vendor, family and model ("amd-f25-m17").
func (m machine) kind() string {
	switch m.Vendor {
	case "AuthenticAMD", "HygonGenuine":
		switch f, mo := m.Family, m.Model; {
		case f == 0x17 && mo < 0x30:
			return "amd-zen1"
		case f == 0x17:
			return "amd-zen2"
		case f == 0x19 && (mo <= 0x0f || (mo >= 0x20 && mo <= 0x5f)):
			return "amd-zen3"
		case f == 0x19:
			return "amd-zen4"
		case f == 0x1a:
			return "amd-zen5"
		}
		return fmt.Sprintf("amd-f%d-m%d", m.Family, m.Model)
	case "GenuineIntel":
		if m.Family == 6 {
			switch m.Model {
			case 0x55:
				// One model, three generations, told apart by stepping.
				switch {
				case m.Stepping >= 10:
					return "intel-cpx" // Cooper Lake
				case m.Stepping >= 5:
					return "intel-clx" // Cascade Lake
				}
				return "intel-skx" // Skylake-SP
			case 0x6a, 0x6c:
				return "intel-icx"
			case 0x8f:
				return "intel-spr"
			case 0xcf:
				return "intel-emr"
			case 0xad, 0xae:
				return "intel-gnr"
			}
		}
		return fmt.Sprintf("intel-f%d-m%d", m.Family, m.Model)
	}
	v := strings.ToLower(strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' {
			return r
		}
		return -1
	}, m.Vendor))
	if v == "" {
		v = "unknown"
	}
	return fmt.Sprintf("%s-f%d-m%d", v, m.Family, m.Model)
}

// line is the report's machine line.
func (m machine) line() string {
	hv := "none"
	if m.Hypervisor != "" {
		hv = m.Hypervisor
	} else if m.Virtual {
		hv = "yes (vendor unknown)"
	}
	s := fmt.Sprintf("%s (%s), family %d model %d stepping %d, %d logical CPUs; TSC %.3f MHz (%s, ±%.2g ppm), step %.4g ticks; hypervisor %s",
		m.CPU, m.Vendor, m.Family, m.Model, m.Stepping, m.LogicalCPUs, m.TSCHz/1e6, m.TSCHzMethod, m.TSCHzPPM, m.TSCStep, hv)
	if m.CoreHz > 0 {
		s += fmt.Sprintf("; core ≈ %.2f GHz at `info` time", m.CoreHz/1e9)
	}
	return s
}
