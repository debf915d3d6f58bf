package mem

import (
	"strings"
	"testing"
)

// TestCapStateNamesWholePages: a cap that is not a multiple of the page size is stated as the
// whole pages it allows (a 130000-byte cap read "0 of the cap's 130000 bytes" while one 64 KiB
// page was all it allowed).
func TestCapStateNamesWholePages(t *testing.T) {
	got := CapState(0, 130000)
	if !strings.Contains(got, "0 of the cap's 1 pages") || !strings.Contains(got, "a cap of 130000 bytes allows 1 whole pages, 65536 bytes") {
		t.Errorf("CapState(0, 130000) = %q", got)
	}
}
