package isa

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// parseNumber reads a decimal or 0x-hex unsigned number (DESIGN.md §7 number syntax);
// underscores are allowed as digit separators. A well-formed number too large for 64 bits is
// reported as overflowing, not as malformed.
func parseNumber(s string) (uint64, error) {
	t := strings.ReplaceAll(strings.TrimSpace(s), "_", "")
	base := 10
	if strings.HasPrefix(t, "0x") || strings.HasPrefix(t, "0X") {
		t, base = t[2:], 16
	}
	v, err := strconv.ParseUint(t, base, 64)
	if err != nil {
		if errors.Is(err, strconv.ErrRange) {
			return 0, fmt.Errorf("number %q overflows 64 bits (largest %d = 0x%x)", s, uint64(1<<64-1), uint64(1<<64-1))
		}
		return 0, fmt.Errorf("bad number %q", s)
	}
	return v, nil
}

// ParseNumber is parseNumber for callers outside the package.
func ParseNumber(s string) (uint64, error) { return parseNumber(s) }
