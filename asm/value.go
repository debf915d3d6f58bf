// Package asm converts between tpbsim's two human forms of an instruction — a one-line text
// assembly and a JSON object (DESIGN.md §7) — and the 64-byte wire words of package isa.
//
// One table drives both directions: isa.Layout gives every field's path, offset, width and
// kind; the assembler sets bytes through it and the disassembler reads bytes through it, so
// any 64-byte word prints and parses back to the same 64 bytes.
//
// Text syntax (one instruction per line):
//
//	# comment                             (also after an instruction)
//	.gen CAYMAN                           generation for the address syntax (before any instruction)
//	.engine DVE                           following instructions go to the DVE queue (ParseProgram)
//	.word 6b10000000...                   a raw 64-byte word, 128 hex digits
//	STREAM_TRANSPOSE in_dtype=BFLOAT16 out_dtype=BFLOAT16 num_active_channels=32 \
//	    src_mem_pattern=sbuf:0:0x0[32@1] dst_mem_pattern=sbuf:0:0x1000[32@1]
//
// A line is the opcode (name or number) then key=value fields. Keys are the header's field
// names (`num_active_channels`, `events.wait_mode` or just `wait_mode`, `dma_configs.priority_class`,
// `src_mem_pattern.num_elem[2]`) with short aliases src, dst, nac, in, out. Fields not given take
// their default: inst_word_len 16, everything else 0. Values are numbers (decimal, 0x-hex,
// negative for signed fields), enum names (or numbers, so an invalid value can be written on
// purpose), addresses `sbuf:P:OFF`, `psum:P:OFF`, `hbm:ADDR`, `reg:N` or a raw number, arrays
// `[a,b,...]`, and hex strings for raw bytes. A TENSOR4D is written `ADDR[n0@s0,n1@s1,...]`:
// dim 0 first, each dim `num@step` (step in elements, signed; `n` alone means step 1); dims left
// out are 1@1.
package asm

import (
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"
	"sync"

	"github.com/tpbsim/tpbsim/isa"
	"github.com/tpbsim/tpbsim/num"
)

// aliases are the short keys the assembler accepts.
var aliases = map[string]string{
	"src": "src_mem_pattern", "dst": "dst_mem_pattern", "nac": "num_active_channels",
	"in": "in_dtype", "out": "out_dtype",
}

// parseInt reads a decimal or 0x-hex integer, optionally negative.
func parseInt(s string) (int64, bool, error) {
	t := strings.TrimSpace(s)
	neg := strings.HasPrefix(t, "-")
	if neg || strings.HasPrefix(t, "+") {
		t = t[1:]
	}
	u, err := isa.ParseNumber(t)
	if err != nil {
		return 0, false, fmt.Errorf("bad number %q", s)
	}
	if neg {
		if u > 1<<63 {
			return 0, false, fmt.Errorf("number %q out of range", s)
		}
		return -int64(u), true, nil
	}
	return int64(u), false, nil
}

// enumValue parses an enum by name, by number, or in the String() fallback form "Name(0x3f)".
func enumValue(k isa.ValueKind, s string, bitsMax uint64) (uint64, error) {
	t := strings.TrimSpace(s)
	if j := strings.IndexByte(t, '('); j > 0 && strings.HasSuffix(t, ")") {
		t = t[j+1 : len(t)-1]
	}
	// A number starts with a digit (ParseNumber reads decimal and 0x-hex, '_' allowed); names
	// skip it and the error it would build.
	if t != "" && t[0] >= '0' && t[0] <= '9' {
		if n, err := isa.ParseNumber(t); err == nil {
			if n > bitsMax {
				return 0, fmt.Errorf("%s above %d", s, bitsMax)
			}
			return n, nil
		}
	}
	u := strings.ToUpper(t)
	if c, ok := enumCodes(k)[u]; ok && c <= bitsMax {
		return c, nil
	}
	// the element types' other names (bf16, float32, ...) are num's, declared there once
	if k == isa.KDType {
		if kind, err := num.ParseKind(t); err == nil && kind.Known() {
			return uint64(kind), nil
		}
	}
	return 0, fmt.Errorf("unknown %s %q", k, s)
}

// enumCodesOf caches, per kind, the upper-case name of every named code 0..255 (the lowest code
// of a name): enumValue looked the name up by formatting all 256 codes per field, 80% of the
// assembler's time (45 us a line).
var enumCodesOf sync.Map // isa.ValueKind -> map[string]uint64

func enumCodes(k isa.ValueKind) map[string]uint64 {
	if m, ok := enumCodesOf.Load(k); ok {
		return m.(map[string]uint64)
	}
	m := map[string]uint64{}
	for c := uint64(0); c < 256; c++ {
		if n := strings.ToUpper(enumName(k, c)); n != "" {
			if _, dup := m[n]; !dup {
				m[n] = c
			}
		}
	}
	enumCodesOf.Store(k, m)
	return m
}

// enumName is the name of code c, or "" when it has none.
func enumName(k isa.ValueKind, c uint64) string {
	n, _ := isa.EnumName(k, c)
	return n
}

// parseScalar parses one element value of field f.
func parseScalar(f isa.Field, s string, g isa.Generation) (uint64, error) {
	switch {
	case f.Kind.IsEnum():
		return enumValue(f.Kind, s, f.Max())
	case f.Kind == isa.KAddr4:
		loc, err := isa.ParseAddress(s, g)
		if err != nil {
			return 0, err
		}
		a, err := loc.Addr4(g)
		return uint64(a), err
	case f.Kind == isa.KAddr8:
		loc, err := isa.ParseAddress(s, g)
		if err != nil {
			return 0, err
		}
		a, err := loc.Addr8(g)
		return uint64(a), err
	}
	v, neg, err := parseInt(s)
	if err != nil {
		return 0, err
	}
	max := f.Max()
	if neg {
		if f.Kind != isa.KInt {
			return 0, fmt.Errorf("%s out of range (0..%d): the field is unsigned", s, max)
		}
		if uint64(-v) > (max>>1)+1 {
			return 0, fmt.Errorf("%s out of range (%d..%d) for a signed field", s, -int64(max>>1)-1, max>>1)
		}
		return uint64(v) & max, nil
	}
	if uint64(v) > max {
		return 0, fmt.Errorf("%s out of range (max %d)", s, max)
	}
	if f.Kind == isa.KInt && uint64(v) > max>>1 && !isHex(s) {
		// A decimal number past a signed field's range would wrap to a negative value (40000
		// in a 16-bit step is -25536): refused; hex still writes raw bits on purpose.
		return 0, fmt.Errorf("%s out of range (%d..%d) for a signed field; 0x%x writes these bits as %d",
			s, -int64(max>>1)-1, max>>1, uint64(v), int64(uint64(v)|^max))
	}
	return uint64(v), nil
}

func isHex(s string) bool {
	s = strings.TrimPrefix(strings.TrimSpace(s), "+")
	return strings.HasPrefix(s, "0x") || strings.HasPrefix(s, "0X")
}

// formatScalar prints one element value of field f so that parseScalar reads it back.
func formatScalar(f isa.Field, v uint64, g isa.Generation) string {
	switch {
	case f.Kind.IsEnum():
		if n := enumName(f.Kind, v); n != "" {
			return n
		}
		return fmt.Sprintf("0x%02x", v)
	case f.Kind == isa.KAddr4:
		return isa.LocateAddr4(isa.Addr4(v), g).String()
	case f.Kind == isa.KAddr8:
		return isa.LocateAddr8(isa.Addr8(v), g).String()
	case f.Kind == isa.KInt:
		return strconv.FormatInt(int64(v), 10)
	}
	return strconv.FormatUint(v, 10)
}

func parseBlob(f isa.Field, s string) ([]byte, error) {
	t := strings.TrimPrefix(strings.TrimPrefix(strings.TrimSpace(s), "0x"), "0X")
	b, err := hex.DecodeString(t)
	if err != nil {
		return nil, fmt.Errorf("want hex bytes (%d at most): %v", f.Count, err)
	}
	if len(b) > f.Count {
		return nil, fmt.Errorf("%d bytes given, the field holds %d", len(b), f.Count)
	}
	out := make([]byte, f.Count)
	copy(out, b)
	return out, nil
}

func formatBlob(w *[isa.InstNBytes]byte, f isa.Field) string {
	b := w[f.Offset : f.Offset+f.Count]
	n := len(b)
	for n > 0 && b[n-1] == 0 {
		n--
	}
	if n == 0 {
		return "00"
	}
	return hex.EncodeToString(b[:n])
}
