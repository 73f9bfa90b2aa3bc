package perfevent

import (
	"encoding/binary"
	"errors"
	"strings"
	"testing"
	"unsafe"
)

// pageImage is a perf_event_mmap_page's leading fields, to lay out in bytes.
type pageImage struct {
	lock, index   uint32
	offset        int64
	caps          uint64
	width         uint16
	enabled, runn uint64
}

// pageBytes lays out p as the kernel does, in the host's byte order, in a
// 4096-byte buffer whose lock field is 8-byte aligned as an mmap'ed page's
// is (atomic loads need it).
func pageBytes(p pageImage) []byte {
	words := make([]uint64, 512)
	b := unsafe.Slice((*byte)(unsafe.Pointer(&words[0])), 4096)
	ne := binary.NativeEndian
	ne.PutUint32(b[0:], 0) // version
	ne.PutUint32(b[4:], 0) // compat_version
	ne.PutUint32(b[pageLock:], p.lock)
	ne.PutUint32(b[pageIndex:], p.index)
	ne.PutUint64(b[pageOffset:], uint64(p.offset))
	ne.PutUint64(b[pageTimeEnabled:], p.enabled)
	ne.PutUint64(b[pageTimeRunning:], p.runn)
	ne.PutUint64(b[pageCapabilities:], p.caps)
	ne.PutUint16(b[pagePMCWidth:], p.width)
	return b
}

const capsRDPMC = 1<<1 | capUserRDPMC | 1<<3 // bit0_is_deprecated, user_rdpmc, user_time

func TestPageCount(t *testing.T) {
	tests := []struct {
		name string
		page pageImage
		pmc  uint64
		want uint64
		err  string
	}{
		{name: "positive counter", page: pageImage{index: 1, offset: 1000, caps: capsRDPMC, width: 48}, pmc: 234, want: 1234},
		// The kernel programs the counter with a negative start (−period)
		// and stores the difference in offset: the 48-bit value must be
		// sign-extended before the add.
		{name: "negative 48-bit counter", page: pageImage{index: 3, offset: 1<<47 + 500, caps: capsRDPMC, width: 48}, pmc: 1<<48 - 16, want: 1<<47 + 484},
		{name: "upper bits ignored", page: pageImage{index: 1, offset: 10, caps: capsRDPMC, width: 48}, pmc: 0xdead_0000_0000_0005, want: 15},
		{name: "full width", page: pageImage{index: 1, offset: -5, caps: capsRDPMC, width: 64}, pmc: 25, want: 20},
		{name: "narrow counter wraps", page: pageImage{index: 1, offset: 100, caps: capsRDPMC, width: 8}, pmc: 0xff, want: 99},
		{name: "no cap_user_rdpmc", page: pageImage{index: 1, caps: 1 << 1, width: 48}, err: "cap_user_rdpmc is 0"},
		{name: "index 0", page: pageImage{index: 0, caps: capsRDPMC, width: 48}, err: "index 0"},
		{name: "width 0", page: pageImage{index: 1, caps: capsRDPMC, width: 0}, err: "width 0 bits"},
		{name: "width 65", page: pageImage{index: 1, caps: capsRDPMC, width: 65}, err: "width 65 bits"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := pageBytes(tt.page)
			f, err := parsePage(b)
			if err != nil {
				t.Fatal(err)
			}
			if f.Index != tt.page.index || f.Offset != tt.page.offset || f.Capabilities != tt.page.caps || f.PMCWidth != tt.page.width {
				t.Fatalf("parsePage = %+v, want %+v", f, tt.page)
			}
			got, err := f.count(tt.pmc)
			var counter []uint32
			seq, seqErr := seqRead(b, func(c uint32) uint64 { counter = append(counter, c); return tt.pmc })
			if tt.err != "" {
				for _, e := range []error{err, seqErr} {
					if !errors.Is(e, ErrNoRDPMC) || !strings.Contains(e.Error(), tt.err) {
						t.Errorf("error = %v, want ErrNoRDPMC mentioning %q", e, tt.err)
					}
				}
				if (tt.page.index == 0 || tt.page.caps&capUserRDPMC == 0) && len(counter) > 0 {
					t.Errorf("seqRead executed RDPMC (counter %v) on a page that forbids it", counter)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Errorf("count(%#x) = %d, %v; want %d", tt.pmc, got, err, tt.want)
			}
			if seqErr != nil || seq != tt.want {
				t.Errorf("seqRead = %d, %v; want %d", seq, seqErr, tt.want)
			}
			if len(counter) != 1 || counter[0] != tt.page.index-1 {
				t.Errorf("RDPMC read counters %v, want [%d] (index−1)", counter, tt.page.index-1)
			}
		})
	}
}

func TestSeqReadRetries(t *testing.T) {
	t.Run("update during the read", func(t *testing.T) {
		b := pageBytes(pageImage{lock: 4, index: 2, offset: 100, caps: capsRDPMC, width: 48})
		calls := 0
		got, err := seqRead(b, func(c uint32) uint64 {
			calls++
			if calls == 1 {
				// The kernel reschedules the event meanwhile: new offset,
				// new counter, lock bumped twice.
				binary.NativeEndian.PutUint64(b[pageOffset:], 1000)
				binary.NativeEndian.PutUint32(b[pageIndex:], 5)
				binary.NativeEndian.PutUint32(b[pageLock:], 6)
				return 1 // stale
			}
			if c != 4 {
				t.Errorf("second try read counter %d, want 4", c)
			}
			return 7
		})
		if err != nil || got != 1007 || calls != 2 {
			t.Errorf("seqRead = %d, %v after %d RDPMCs; want 1007 after 2", got, err, calls)
		}
	})
	t.Run("odd lock is retried", func(t *testing.T) {
		b := pageBytes(pageImage{lock: 5, index: 1, offset: 1, caps: capsRDPMC, width: 48})
		calls := 0
		got, err := seqRead(b, func(uint32) uint64 {
			calls++
			if calls == 1 {
				binary.NativeEndian.PutUint32(b[pageLock:], 6) // update finished
			}
			return 1
		})
		if err != nil || got != 2 || calls != 2 {
			t.Errorf("seqRead = %d, %v after %d RDPMCs; want 2 after 2", got, err, calls)
		}
	})
	t.Run("page never settles", func(t *testing.T) {
		b := pageBytes(pageImage{index: 1, caps: capsRDPMC, width: 48})
		calls := uint32(0)
		_, err := seqRead(b, func(uint32) uint64 {
			calls++
			binary.NativeEndian.PutUint32(b[pageLock:], 2*calls)
			return 0
		})
		if !errors.Is(err, ErrNoRDPMC) || !strings.Contains(err.Error(), "kept changing") || calls != seqTries {
			t.Errorf("seqRead error = %v after %d tries, want ErrNoRDPMC after %d", err, calls, seqTries)
		}
	})
}

func TestParsePageShort(t *testing.T) {
	for _, n := range []int{0, 8, pageMin - 1} {
		b := make([]byte, n)
		if _, err := parsePage(b); !errors.Is(err, ErrBadRead) {
			t.Errorf("parsePage(%d bytes) error = %v, want ErrBadRead", n, err)
		}
		if _, err := seqRead(b, func(uint32) uint64 { t.Fatal("RDPMC on a short page"); return 0 }); !errors.Is(err, ErrBadRead) {
			t.Errorf("seqRead(%d bytes) error = %v, want ErrBadRead", n, err)
		}
	}
}

func FuzzPage(f *testing.F) {
	f.Add(pageBytes(pageImage{index: 1, offset: 1000, caps: capsRDPMC, width: 48})[:64], uint64(234))
	f.Add([]byte{1, 2, 3}, uint64(0))
	f.Fuzz(func(t *testing.T, b []byte, pmc uint64) {
		f, err := parsePage(b)
		if err != nil {
			if !errors.Is(err, ErrBadRead) {
				t.Fatal(err)
			}
			return
		}
		if _, err := f.count(pmc); err != nil && !errors.Is(err, ErrNoRDPMC) {
			t.Fatal(err)
		}
	})
}
