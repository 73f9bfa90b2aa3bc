package benchexamples

import (
	"fmt"
	"unsafe"
)

// Where a kernel's data lie moves its figure: a slice that starts at
// another offset from a 4 KiB boundary meets other cache-line splits and
// other 4K-aliasing between its loads and stores. Go puts a slice where its
// size class puts it, the same in every process of one binary, so a
// comparison of two binaries (or two processes) holds the data's offset
// fixed without saying so. NewAt lets a run choose the offset and
// docs/measurements/layouts.sh vary it (issue 33's characterization).

// pageBoundary is the boundary an offset counts from: 4 KiB, the page size
// and the period of 4K aliasing on the processors met.
const pageBoundary = 4096

// CheckDataOffset returns nil for a data offset [Kernel.NewAt] accepts,
// else an error wrapping [ErrBadOffset] that names it and what is allowed.
func CheckDataOffset(offset int) error {
	if offset == -1 || offset >= 0 && offset < pageBoundary && offset%8 == 0 {
		return nil
	}
	return fmt.Errorf("%w: data offset %d bytes (allowed: 0 to %d, a multiple of 8, from a 4 KiB boundary; -1: where Go puts the data)", ErrBadOffset, offset, pageBoundary-8)
}

// placed returns n zero Ts whose first lies offset bytes past a 4 KiB
// boundary; offset −1 gives make's own placement. offset is a multiple of
// 8 (CheckDataOffset), so of T's size for the kernels' 4- and 8-byte elements.
func placed[T any](n, offset int) []T {
	if offset < 0 {
		return make([]T, n)
	}
	size := int(unsafe.Sizeof(*new(T)))
	buf := make([]T, n+(pageBoundary+offset)/size+1)
	at := int(uintptr(unsafe.Pointer(unsafe.SliceData(buf))) % pageBoundary)
	skip := ((offset-at)%pageBoundary + pageBoundary) % pageBoundary / size
	return buf[skip : skip+n : skip+n]
}
