package ucode

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// Input shaping and property checks for FuzzDecodeJSON.
//
// The target takes a small input and maps it onto the JSON form: either raw JSON text, or patch
// records applied to the scalar tokens (keys and values) of a compact JSON rendering of a few
// opcode slots, rows and blocks of the default fixture (a template of 1-3 KiB, built once).
// A whole-set JSON as a corpus entry (~600 KiB) left the fuzzer minimising it most of a run.

// jsonFuzzMaxRaw caps the raw JSON text FuzzDecodeJSON reads; the rest is ignored.
const jsonFuzzMaxRaw = 512

// jsonTemplate is a compact JSON rendering of part of a fixture and the spans of its scalar
// tokens (strings, keys included, numbers, true/false/null), which patch records rewrite.
type jsonTemplate struct {
	src   *TableSet // the sparse set the JSON renders
	js    []byte
	slots [][2]int
}

var jsonTemplates struct {
	once sync.Once
	t    map[[2]int]*jsonTemplate // by generation and variant
	err  error
}

// jsonVariants is how many templates each generation has (they list different slots, rows and
// blocks of the fixture).
const jsonVariants = 4

// fuzzJSONTemplate returns template variant v of generation g: three enabled opcode slots (from
// the v-th group of four), the control rows of two and the slow row of the first, and a fourth
// slot with its active block (deeper than 2+v lanes) and a passthru block; the first control
// and slow rows list their fields in variant 0, the first lane of a block its kind.
func fuzzJSONTemplate(tb testing.TB, g TableGen, v int) *jsonTemplate {
	tb.Helper()
	jsonTemplates.once.Do(func() {
		jsonTemplates.t = map[[2]int]*jsonTemplate{}
		for _, g := range TableGens {
			base := fuzzBase(tb, g)
			var enabled []int
			for op, e := range base.Opcodes.Entries {
				if e.Enabled() {
					enabled = append(enabled, op)
				}
			}
			infos := base.Datapath.Analyze()
			for v := range jsonVariants {
				var ops, rows, slow, blocks []int
				for k := range 3 {
					op := enabled[(4*v+k*7)%len(enabled)]
					e := base.Opcodes.Entries[op]
					ops = append(ops, op)
					if k < 2 {
						rows = append(rows, e.FastRow)
					}
					if k == 0 && base.Slow != nil && int(e.SlowRow) < len(base.Slow.Rows) {
						slow = append(slow, int(e.SlowRow))
					}
				}
				for k := range enabled {
					op := enabled[(4*v+k)%len(enabled)]
					if r := base.Opcodes.Entries[op].FastRow; infos[r].Class == ClassActive && infos[r].Depth > 2+v {
						ops, blocks = append(ops, op), append(blocks, r)
						break
					}
				}
				src := sparseCopy(base, ops, blocks, rows, slow)
				j := src.JSON()
				for _, rj := range [][]RowJSON{j.Control, j.ControlFast, j.ControlSlow} {
					for i := range rj {
						if i > 0 || v != 0 {
							rj[i].Fields = nil
						}
					}
				}
				for _, bj := range j.Datapath {
					for L := 1; L < len(bj.Lanes); L++ {
						bj.Lanes[L].Kind = "" // informational; fewer tokens, so a slot byte reaches them all
					}
				}
				js, err := json.Marshal(j)
				if err != nil {
					jsonTemplates.err = err
					return
				}
				tp := &jsonTemplate{src: src, js: js, slots: jsonScalars(js)}
				if len(tp.slots) > 256 {
					jsonTemplates.err = fmt.Errorf("%s template %d has %d tokens: a slot byte does not reach them all", g, v, len(tp.slots))
					return
				}
				jsonTemplates.t[[2]int{int(g), v}] = tp
			}
		}
	})
	if jsonTemplates.err != nil {
		tb.Fatal(jsonTemplates.err)
	}
	return jsonTemplates.t[[2]int{int(g), v % jsonVariants}]
}

// jsonScalars lists the spans of the scalar tokens of a valid compact JSON text.
func jsonScalars(js []byte) [][2]int {
	var out [][2]int
	for i := 0; i < len(js); {
		switch c := js[i]; {
		case c == '"':
			j := i + 1
			for js[j] != '"' {
				if js[j] == '\\' {
					j++
				}
				j++
			}
			out = append(out, [2]int{i, j + 1})
			i = j + 1
		case strings.IndexByte("{}[],: \n\t", c) >= 0:
			i++
		default:
			j := i
			for j < len(js) && strings.IndexByte("{}[],: \n\t", js[j]) < 0 {
				j++
			}
			out = append(out, [2]int{i, j})
			i = j
		}
	}
	return out
}

// patchJSON applies FuzzDecodeJSON's patch records to a template: a slot byte (the scalar token,
// modulo their count), a form byte (the top two bits how, the low six a length n) and n payload
// bytes (fewer at the end of the input). The token becomes: 0 the payload as raw text; 1 the
// payload as a JSON string; 2 a decimal number, the payload read as a little-endian signed
// integer (sign-extended; nine bytes or more overflow int64 and are read as unsigned, in
// hex-digit decimal); 3 a string of the payload in hex, with "0x" when the token had it. A later
// record for the same token wins. It returns the JSON text and how many records it applied.
func patchJSON(tp *jsonTemplate, data []byte) ([]byte, int) {
	repl := map[int][]byte{}
	n := 0
	for ; len(data) >= 2; n++ {
		slot, how, size := int(data[0])%len(tp.slots), data[1]>>6, int(data[1]&63)
		payload := data[2:min(2+size, len(data))]
		data = data[min(2+size, len(data)):]
		old := tp.js[tp.slots[slot][0]:tp.slots[slot][1]]
		var tok []byte
		switch how {
		case 0:
			tok = bytes.Clone(payload)
		case 1:
			tok, _ = json.Marshal(string(payload))
		case 2:
			if len(payload) > 8 {
				tok = []byte("1" + strings.Repeat("0", 2*len(payload)))
				break
			}
			var u uint64
			for i := len(payload) - 1; i >= 0; i-- {
				u = u<<8 | uint64(payload[i])
			}
			if k := 8 * len(payload); k > 0 && k < 64 && u>>(k-1) != 0 {
				u |= ^uint64(0) << k
			}
			tok = strconv.AppendInt(nil, int64(u), 10)
		case 3:
			h := hex.EncodeToString(payload)
			if bytes.HasPrefix(old, []byte(`"0x`)) {
				h = "0x" + h
			}
			tok = []byte(`"` + h + `"`)
		}
		repl[slot] = tok
	}
	if n == 0 {
		return tp.js, 0
	}
	var out []byte
	last := 0
	for i, sp := range tp.slots {
		if tok, ok := repl[i]; ok {
			out = append(append(out, tp.js[last:sp[0]]...), tok...)
			last = sp[1]
		}
	}
	return append(out, tp.js[last:]...), n
}

// strictSetJSON decodes js the way DecodeJSON promises to read it: one JSON object, no unknown
// keys, nothing after it but white space.
// Duplicate keys and keys matching a field only case-insensitively are refused too (by
// CheckJSONKeys itself, which TestCheckJSONKeys checks on its own).
func strictSetJSON(js []byte) (SetJSON, error) {
	var j SetJSON
	if err := CheckJSONKeys(js, reflect.TypeOf(j)); err != nil {
		return j, err
	}
	dec := json.NewDecoder(bytes.NewReader(js))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&j); err != nil {
		return j, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return j, errors.New("data after the JSON object")
	}
	return j, nil
}

// jsonErrAt matches the JSON path a decode error of one list element starts with.
var jsonErrAt = regexp.MustCompile(`^(opcode_table|control_table|control_fast_table|control_slow_table|datapath_table)\[(\d+)\] \((op|row|block) (-?\d+)\)(\.lanes\[(\d+)\] \(lane (-?\d+)\))?: `)

// checkDecodeJSON decodes js and checks the result against the JSON's own reading (see
// strictSetJSON): a text it refuses must fail with ErrInvalid and a "json:" message; otherwise
// an error must be ErrInvalid or ErrGeneration with a message naming where (format, gen, tables,
// a table, or the list element and lane, by index and number, that exist in the JSON), and a set
// must hold exactly what the JSON lists (checkSetMatchesJSON) and round-trip (checkJSONRoundTrip
// and a JSON fixpoint). It returns the set, or nil.
func checkDecodeJSON(t *testing.T, js []byte) *TableSet {
	t.Helper()
	j, jerr := strictSetJSON(js)
	s, err := DecodeJSON(js)
	if jerr != nil {
		if err == nil || !errors.Is(err, ErrInvalid) || !strings.HasPrefix(err.Error(), "invalid: json: ") {
			t.Fatalf("JSON that does not decode (%v): err %v, want invalid: json: ...", jerr, err)
		}
		return nil
	}
	if err != nil {
		checkJSONErr(t, j, err)
		return nil
	}
	checkSetMatchesJSON(t, j, s)
	checkJSONRoundTrip(t, s)
	a, err := MarshalJSONSet(s)
	if err != nil {
		t.Fatal(err)
	}
	back, err := DecodeJSON(a)
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := MarshalJSONSet(back); !bytes.Equal(a, b) {
		t.Fatalf("re-encoded JSON is not a fixpoint:\n%s\n%s", a, b)
	}
	return s
}

// checkJSONErr checks a DecodeJSON error for JSON j that decodes.
func checkJSONErr(t *testing.T, j SetJSON, err error) {
	t.Helper()
	msg := err.Error()
	if !errors.Is(err, ErrInvalid) && !errors.Is(err, ErrGeneration) {
		t.Fatalf("decode error %q is neither ErrInvalid nor ErrGeneration", msg)
	}
	if strings.HasPrefix(msg, "invalid: json: ") {
		t.Fatalf("JSON that decodes refused as JSON: %q", msg)
	}
	switch {
	case strings.HasPrefix(msg, "invalid: format "):
		if j.Format == JSONFormat {
			t.Fatalf("format %q refused: %q", j.Format, msg)
		}
		return
	case strings.HasPrefix(msg, "gen: "):
		if _, gerr := ParseTableGen(j.Gen); gerr == nil {
			t.Fatalf("gen %q refused: %q", j.Gen, msg)
		}
		return
	case strings.HasPrefix(msg, "invalid: tables: "):
		return
	case strings.HasPrefix(msg, "invalid: set: "):
		if j.Set != "" && j.Set != "." && j.Set != ".." && !strings.ContainsAny(j.Set, `/\`) &&
			!strings.ContainsFunc(j.Set, func(r rune) bool { return r < 0x20 || r == 0x7f }) {
			t.Fatalf("set %q refused: %q", j.Set, msg)
		}
		return
	}
	for _, tb := range AllTables {
		if strings.HasPrefix(msg, "invalid: "+tb.String()+" has entries but is not listed in tables") {
			return
		}
	}
	m := jsonErrAt.FindStringSubmatch(msg)
	if m == nil || len(msg) == len(m[0]) {
		t.Fatalf("decode error %q names no JSON path", msg)
	}
	i, _ := strconv.Atoi(m[2])
	num, _ := strconv.Atoi(m[4])
	var n int
	var got int
	var lanes []LaneJSON
	switch m[1] {
	case "opcode_table":
		if n = len(j.Opcodes); i < n {
			got = j.Opcodes[i].Op
		}
	case "control_table", "control_fast_table", "control_slow_table":
		rows := map[string][]RowJSON{"control_table": j.Control, "control_fast_table": j.ControlFast, "control_slow_table": j.ControlSlow}[m[1]]
		if n = len(rows); i < n {
			got = rows[i].Row
		}
	case "datapath_table":
		if n = len(j.Datapath); i < n {
			got, lanes = j.Datapath[i].Block, j.Datapath[i].Lanes
		}
	}
	if i >= n || got != num {
		t.Fatalf("decode error %q: %s has %d entries, entry %d is number %d", msg, m[1], n, i, got)
	}
	if m[5] != "" {
		k, _ := strconv.Atoi(m[6])
		L, _ := strconv.Atoi(m[7])
		if k >= len(lanes) || lanes[k].Lane != L {
			t.Fatalf("decode error %q: the block lists %d lanes, and not lane %d at %d", msg, len(lanes), L, k)
		}
	}
}

// checkSetMatchesJSON checks that s holds exactly what j lists: name, generation, reason, the
// listed tables and no others, no slot, row, block or lane out of range or listed twice, every
// listed one where it says, and zero elsewhere.
func checkSetMatchesJSON(t *testing.T, j SetJSON, s *TableSet) {
	t.Helper()
	g, err := ParseTableGen(j.Gen)
	if err != nil || s.Gen != g || s.Name != j.Set || s.GenReason != j.GenReason {
		t.Fatalf("decoded %s %q (%q), JSON says %q %q (%q)", s.Gen, s.Name, s.GenReason, j.Gen, j.Set, j.GenReason)
	}
	for _, tb := range AllTables {
		listed := false
		for _, name := range j.Tables {
			listed = listed || name == tb.String()
		}
		if s.Has(tb) != (listed && slices.Contains(g.Tables(), tb)) {
			t.Fatalf("%s: decoded set has %s %t, JSON lists it %t", g, tb, s.Has(tb), listed)
		}
	}
	unique := func(what string, n, limit int, num func(int) int) {
		seen := map[int]bool{}
		for i := range n {
			if k := num(i); k < 0 || k >= limit || seen[k] {
				t.Fatalf("%s: %s %d (entry %d) out of range or repeated, but the JSON decoded", g, what, k, i)
			} else {
				seen[k] = true
			}
		}
	}
	if s.Opcodes != nil {
		unique("op", len(j.Opcodes), NumOpcodes, func(i int) int { return j.Opcodes[i].Op })
	}
	for _, rows := range [][]RowJSON{j.Control, j.ControlFast, j.ControlSlow} {
		unique("row", len(rows), g.ControlRows(), func(i int) int { return rows[i].Row })
	}
	unique("block", len(j.Datapath), g.ControlRows(), func(i int) int { return j.Datapath[i].Block })
	for _, bj := range j.Datapath {
		unique("lane", len(bj.Lanes), LanesPerBlock, func(i int) int { return bj.Lanes[i].Lane })
	}
	files := s.Files()
	if s.Opcodes != nil {
		var want []byte
		var raws [NumOpcodes]uint64
		for _, o := range j.Opcodes {
			raws[o.Op] = o.SlowRow<<rowBits(g) | uint64(o.FastRow)
		}
		for _, raw := range raws {
			if g.OpcodeEntrySize() == 8 {
				want = binary.LittleEndian.AppendUint64(want, raw)
			} else {
				want = binary.LittleEndian.AppendUint32(want, uint32(raw))
			}
		}
		for _, o := range j.Opcodes {
			e := s.Opcodes.Entries[o.Op]
			if e.FastRow != o.FastRow || e.SlowRow != o.SlowRow {
				t.Fatalf("%s op %d: decoded %+v, JSON says fast %d slow %d", g, o.Op, e, o.FastRow, o.SlowRow)
			}
		}
		if !bytes.Equal(files[TableOpcode], want) {
			t.Fatalf("%s opcode_table: bytes differ from the listed slots", g)
		}
	}
	checkRows := func(tb Table, ct *ControlTable, in []RowJSON) {
		if ct == nil {
			return
		}
		want := make([]byte, len(ct.Rows)*ControlRowSize)
		for _, r := range in {
			b, err := hex.DecodeString(strings.ReplaceAll(strings.TrimSpace(r.Bytes), " ", ""))
			if err != nil || len(b) != ControlRowSize {
				t.Fatalf("%s %s row %d: %q decoded, but is not 16 hex bytes", g, tb, r.Row, r.Bytes)
			}
			copy(want[r.Row*ControlRowSize:], b)
		}
		if !bytes.Equal(ct.Bytes(), want) {
			t.Fatalf("%s %s: bytes differ from the listed rows", g, tb)
		}
	}
	if g == Gen2 {
		checkRows(TableControl, s.Control, j.Control)
	} else {
		checkRows(TableControlFast, s.Control, j.ControlFast)
	}
	checkRows(TableControlSlow, s.Slow, j.ControlSlow)
	if s.Datapath == nil {
		return
	}
	want := make([]DatapathBlock, len(s.Datapath.Blocks))
	for _, bj := range j.Datapath {
		for _, lj := range bj.Lanes {
			var w LaneWord
			if lj.Word != "" {
				u, err := jsonNumber(lj.Word)
				if err != nil {
					t.Fatalf("%s block %d lane %d: word %q decoded", g, bj.Block, lj.Lane, lj.Word)
				}
				w = LaneWord(u)
			}
			if f := lj.Fields; f != nil {
				d := w.Decode(g)
				if lj.Word == "" {
					w = s.Datapath.Blocks[bj.Block][lj.Lane]
					d = w.Decode(g)
				}
				high := uint64(0)
				if f.HIGH != "" {
					high, _ = jsonNumber(f.HIGH)
				}
				if d != (LaneFields{f.OPA, f.OPB, f.MUX, f.EXT3, f.EXT4, f.VALID, f.MODE, f.STAGE, high}) {
					t.Fatalf("%s block %d lane %d: word %#x has fields %+v, JSON says %+v", g, bj.Block, lj.Lane, uint64(w), d, *f)
				}
			}
			want[bj.Block][lj.Lane] = w
		}
	}
	for i := range want {
		if want[i] != s.Datapath.Blocks[i] {
			t.Fatalf("%s block %d: decoded %#x, JSON says %#x", g, i, s.Datapath.Blocks[i], want[i])
		}
	}
}

// jsonNumber reads a number string the way the JSON form documents it: 0x-hex or decimal.
func jsonNumber(s string) (uint64, error) {
	t := strings.TrimSpace(s)
	if len(t) > 2 && t[0] == '0' && (t[1] == 'x' || t[1] == 'X') {
		return strconv.ParseUint(t[2:], 16, 64)
	}
	return strconv.ParseUint(t, 10, 64)
}
