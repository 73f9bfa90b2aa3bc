//go:build !linux

package calibrate

import (
	"errors"
	"fmt"
)

// adjtimex reports that the kernel's clock discipline cannot be read: only
// Linux has adjtimex(2).
func adjtimex() (clockDiscipline, error) {
	return clockDiscipline{}, fmt.Errorf("%w: adjtimex(2) is Linux-only", errors.ErrUnsupported)
}
