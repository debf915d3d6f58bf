package ucode

import (
	"encoding/json"
	"strconv"
)

// OpcodeList is a list of DVE opcodes; it marshals to JSON as numbers (a plain []uint8 would
// become base64).
type OpcodeList []uint8

// MarshalJSON renders the opcodes as a JSON array of numbers.
func (l OpcodeList) MarshalJSON() ([]byte, error) {
	ints := make([]int, len(l))
	for i, op := range l {
		ints[i] = int(op)
	}
	return json.Marshal(ints)
}

// MarshalText renders w as 0x-hex, so JSON keeps all 64 bits (a JSON number would not).
func (w LaneWord) MarshalText() ([]byte, error) {
	return []byte("0x" + strconv.FormatUint(uint64(w), 16)), nil
}

// UnmarshalText reads 0x-hex or decimal.
func (w *LaneWord) UnmarshalText(b []byte) error {
	v, err := strconv.ParseUint(string(b), 0, 64)
	if err != nil {
		return invalid(RuleJSONNumber, "word", strconv.Quote(string(b)), "0x-hex or decimal, 64 bits", "not a lane word")
	}
	*w = LaneWord(v)
	return nil
}

// MarshalText renders g as "gen2".."gen4".
func (g TableGen) MarshalText() ([]byte, error) { return []byte(g.String()), nil }

// MarshalText renders c as OFF / PASSTHRU / ACTIVE.
func (c BlockClass) MarshalText() ([]byte, error) { return []byte(c.String()), nil }

// MarshalText renders f as "", "all-idle" or "idle+zero".
func (f PassthruForm) MarshalText() ([]byte, error) { return []byte(f.String()), nil }

// MarshalText renders k as zero / idle / active.
func (k LaneKind) MarshalText() ([]byte, error) { return []byte(k.String()), nil }

// MarshalText renders t as its file-name part, e.g. "datapath_table".
func (t Table) MarshalText() ([]byte, error) { return []byte(t.String()), nil }
