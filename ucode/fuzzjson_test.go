package ucode

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/tpbsim/tpbsim/fault"
)

// FuzzDecodeJSON, its input shaping and its property checks.
//
// The target takes a small input and maps it onto the JSON form: either raw JSON text, or patch
// records applied to the scalar tokens (keys and values) of a compact JSON rendering of one kind
// of element of the default fixture (a template of 200-650 bytes, built once). Decoding the text
// is most of an execution and grows with its length, and the fuzzer's minimiser grows with the
// input's, so both stay small.

// FuzzDecodeJSON maps a small input onto the JSON form (mode picks the generation, the shape and
// the template, see splitJSONMode): raw JSON text, or patch records (see patchJSON) rewriting keys
// and values of a compact JSON rendering of part of the default fixture. It checks (see
// checkDecodeJSON): text that is not one JSON object of the form is refused (rule
// ucode.json_syntax); any other decode error is fault.ErrInvalid of a rule and its path names
// where (format, gen, set, tables, or the list element and lane that exist in the JSON); a set
// holds exactly what the JSON lists and its own JSON form decodes to the same set. An unpatched
// template decodes to the tables it was rendered from.
func FuzzDecodeJSON(f *testing.F) {
	rec := func(slot int, how uint8, payload string) []byte {
		return append([]byte{byte(slot), how<<6 | uint8(len(payload))}, payload...)
	}
	for i, g := range TableGens {
		f.Add([]byte{}, jsonMode(g, false, i))
		f.Add(rec(0, 1, "fields"), jsonMode(g, false, 0)) // a key renamed: unknown field
		f.Add(slices.Concat(rec(9, 2, "\x01"), rec(17, 3, "\xff\xff"), rec(40, 2, "\xff")), jsonMode(g, false, 1))
		f.Add(slices.Concat(rec(60, 3, "\x01\x00\x00\x00\x00\x00\x00\x00\x00"), rec(90, 1, " 0x7 ")), jsonMode(g, false, 2))
		f.Add(rec(120, 0, "null"), jsonMode(g, false, 3))
	}
	f.Add([]byte(`{"format":"tpbsim.dtable/1","gen":"gen4","tables":["datapath_table"],"datapath_table":[{"block":3,"lanes":[{"lane":0,"fields":{"high":"0x1"}}]}]}`), jsonMode(Gen4, true, 0))
	f.Add([]byte(`{"format":"tpbsim.dtable/1","set":"s","gen":"2","tables":["opcode_table","control_table"],"opcode_table":[{"op":255,"raw":"0X81","fast_row":1,"slow_row":1}],"control_table":[{"row":127,"bytes":" 00112233445566778899aabbccddeeff"}]}`), jsonMode(Gen2, true, 0))
	f.Add([]byte(`{"format":"tpbsim.dtable/1","gen":"MARIANA","tables":["control_slow_table","datapath_table"],"datapath_table":[{"block":0,"lanes":[{"lane":7,"word":"0x40000000000"}]}]} `), jsonMode(Gen4, true, 0))
	f.Add([]byte(`{"format":"tpbsim.dtable/1","gen":"gen3","tables":[]}{}`), jsonMode(Gen3, true, 0))
	f.Add([]byte(`[`), jsonMode(Gen3, true, 0))
	f.Fuzz(func(t *testing.T, data []byte, mode uint8) {
		g, raw, v := splitJSONMode(mode)
		if raw {
			checkDecodeJSON(t, data[:min(len(data), jsonFuzzMaxRaw)])
			return
		}
		tp := fuzzJSONTemplate(t, g, v)
		js, n := patchJSON(tp, data[:min(len(data), fuzzMaxInput)])
		s := checkDecodeJSON(t, js)
		if n == 0 {
			want, _ := tp.src.Files()
			var got map[Table][]byte
			if s != nil {
				got, _ = s.Files()
			}
			if s == nil || len(got) != len(want) {
				t.Fatalf("%s template %d does not decode to its tables", g, v)
			}
			for tb, b := range got {
				if !bytes.Equal(b, want[tb]) {
					t.Fatalf("%s template %d: %s differs from the fixture's", g, v, tb)
				}
			}
		}
	})
}

// jsonMode packs FuzzDecodeJSON's mode byte: mode%3 the generation, mode/3%2 raw JSON (1) or
// patches (0), mode/6%jsonVariants the template.
func jsonMode(g TableGen, raw bool, variant int) uint8 {
	m := uint8(g-Gen2) + 6*uint8(variant%jsonVariants)
	if raw {
		m += 3
	}
	return m
}

func splitJSONMode(mode uint8) (TableGen, bool, int) {
	return TableGens[mode%3], mode/3%2 == 1, int(mode / 6 % jsonVariants)
}

// jsonFuzzMaxRaw caps the raw JSON text FuzzDecodeJSON reads; the rest is ignored.
const jsonFuzzMaxRaw = 320

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
const jsonVariants = 8

// fuzzJSONTemplate returns template variant v of generation g, one kind of element each (a
// template of a few hundred bytes decodes several times faster than one of them all): v%4 = 0
// two enabled opcode slots, 1 a control row, 2 a slow row (a control row in gen2), 3 an active
// block deeper than 1 (v < 4) or 4 lanes; the rows list their fields when v < 4, the block's first
// lane its kind, its first two lanes their fields, the others their words. The set's other tables
// are listed, without entries.
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
				op := func(k int) int { return enabled[(4*v+k)%len(enabled)] }
				switch v % 4 {
				case 0: // two opcode slots
					ops = []int{op(0), op(7)}
				case 1: // a control (fast) row
					rows = []int{base.Opcodes.Entries[op(3)].FastRow}
				case 2: // a control_slow_table row (gen2 has none: another control row)
					for k := range enabled {
						e := base.Opcodes.Entries[op(k)]
						if base.Slow == nil {
							rows = []int{e.FastRow}
							break
						}
						if e.SlowRow != 0 && int(e.SlowRow) < len(base.Slow.Rows) {
							slow = []int{int(e.SlowRow)}
							break
						}
					}
				case 3: // an active block deeper than 1 or 4 lanes
					for k := range enabled {
						if r := base.Opcodes.Entries[op(k)].FastRow; infos[r].Class == ClassActive && infos[r].Depth > 1+3*(v/4) {
							blocks = []int{r}
							break
						}
					}
				}
				src := sparseCopy(base, ops, blocks, rows, slow)
				j, err := src.JSON()
				if err != nil {
					jsonTemplates.err = err
					return
				}
				for _, rj := range [][]RowJSON{j.Control, j.ControlFast, j.ControlSlow} {
					for i := range rj {
						if v >= 4 {
							rj[i].Fields = nil
						}
					}
				}
				// Informational keys left out, and lanes past the second given by word alone: a
				// template of fewer tokens decodes faster, and a slot byte reaches them all.
				for i := range j.Opcodes {
					if i > 0 {
						j.Opcodes[i].Name = ""
					}
				}
				for _, bj := range j.Datapath {
					for L := 1; L < len(bj.Lanes); L++ {
						bj.Lanes[L].Kind = ""
						if L > 1 {
							bj.Lanes[L].Fields = nil
						}
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
// keys, nothing after it but white space. DecodeJSON also refuses keys given twice or spelled in
// another case (CheckJSONKeys, which TestCheckJSONKeys checks on its own); checkDecodeJSON
// allows for those.
func strictSetJSON(js []byte) (SetJSON, error) {
	var j SetJSON
	dec := json.NewDecoder(bytes.NewReader(js))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&j); err != nil {
		return j, err
	}
	for _, c := range js[dec.InputOffset():] {
		if c != ' ' && c != '\t' && c != '\n' && c != '\r' { // RFC 8259 white space
			return j, errors.New("data after the JSON object")
		}
	}
	return j, nil
}

// jsonErrAt matches the path of a decode error about one list element: the table, the
// element by its number (op, row, block), and for a lane its number and maybe its field.
var jsonErrAt = regexp.MustCompile(`^(opcode_table|control_table|control_fast_table|control_slow_table|datapath_table): (op|row|block)\[(-?\d+)\](: lane\[(-?\d+)\])?(: [A-Za-z_]+)?$`)

// checkDecodeJSON decodes js and checks the result against the JSON's own reading (see
// strictSetJSON): a text it refuses must fail with rule ucode.json_syntax, and so may a text it
// reads whose keys are given twice or spelled in another case (CheckJSONKeys, tested on its own
// by TestCheckJSONKeys); otherwise an error must be ErrInvalid with a path naming where (format,
// gen, set, tables, a table, or the list element and lane, by number, that exist in the JSON),
// and a set must hold exactly what the JSON lists (checkSetMatchesJSON) and its own JSON form
// must decode to the same set (so that form is a fixpoint: JSON is a function of the set; the
// text of whole sets goes through encoding/json in TestJSONRoundTripFixtures). It returns the
// set, or nil.
func checkDecodeJSON(t *testing.T, js []byte) *TableSet {
	t.Helper()
	j, jerr := strictSetJSON(js)
	s, err := DecodeJSON(js)
	syntax := fault.Category(err) == fault.ErrInvalid && fault.Rule(err) == RuleJSONSyntax && strings.Contains(err.Error(), "json: ")
	switch {
	case jerr != nil:
		if !syntax {
			t.Fatalf("JSON that does not decode (%v): err %v, want rule %s", jerr, err, RuleJSONSyntax)
		}
		return nil
	case syntax:
		if msg := err.Error(); !strings.Contains(msg, "key given twice") && !strings.Contains(msg, "the key is spelled") {
			t.Fatalf("JSON that decodes refused as JSON: %v", err)
		}
		return nil
	case err != nil:
		checkJSONErr(t, j, err)
		return nil
	}
	checkSetMatchesJSON(t, j, s)
	sj, err := s.JSON()
	if err != nil {
		t.Fatal(err)
	}
	back, err := sj.Decode()
	if err != nil {
		t.Fatalf("decode own JSON form: %v\n%+v", err, sj)
	}
	if !sameSet(s, back) {
		t.Fatalf("JSON form round trip changed the set:\n%+v", sj)
	}
	return s
}

// sameSet reports whether two sets hold the same name, generation, reason and tables.
func sameSet(a, b *TableSet) bool {
	same := func(x, y *ControlTable) bool {
		return (x == nil) == (y == nil) && (x == nil || (x.Table == y.Table && slices.Equal(x.Rows, y.Rows)))
	}
	return a.Name == b.Name && a.Gen == b.Gen && a.GenReason == b.GenReason &&
		(a.Opcodes == nil) == (b.Opcodes == nil) && (a.Opcodes == nil || a.Opcodes.Entries == b.Opcodes.Entries) &&
		same(a.Control, b.Control) && same(a.Slow, b.Slow) &&
		(a.Datapath == nil) == (b.Datapath == nil) && (a.Datapath == nil || slices.Equal(a.Datapath.Blocks, b.Datapath.Blocks))
}

// checkJSONErr checks a DecodeJSON error for JSON j that decodes.
func checkJSONErr(t *testing.T, j SetJSON, err error) {
	t.Helper()
	msg, rule, path := err.Error(), fault.Rule(err), fault.Path(err)
	if fault.Category(err) != fault.ErrInvalid || rule == "" {
		t.Fatalf("decode error %q is not ErrInvalid of a rule", msg)
	}
	switch rule {
	case RuleJSONSyntax:
		t.Fatalf("JSON that decodes refused as JSON: %q", msg)
	case RuleJSONFormat:
		if j.Format == JSONFormat || path != "format" {
			t.Fatalf("format %q refused: %q", j.Format, msg)
		}
		return
	case RuleTableGen:
		if _, gerr := ParseTableGen(j.Gen); gerr == nil || path != "gen" {
			t.Fatalf("gen %q refused: %q", j.Gen, msg)
		}
		return
	case RuleSetName:
		if path != "set" || (j.Set != "" && j.Set != "." && j.Set != ".." && !strings.ContainsAny(j.Set, `/\`) &&
			!strings.ContainsFunc(j.Set, func(r rune) bool { return r < 0x20 || r == 0x7f })) {
			t.Fatalf("set %q refused: %q", j.Set, msg)
		}
		return
	case RuleJSONTables:
		for i := range j.Tables {
			if path == fmt.Sprintf("tables[%d]", i) {
				return
			}
		}
		for _, tb := range AllTables {
			if path == tb.String() && strings.Contains(msg, "has entries but is not listed in tables") {
				return
			}
		}
		t.Fatalf("tables error %q at %q names no listed table or table with entries", msg, path)
	}
	m := jsonErrAt.FindStringSubmatch(path)
	if m == nil {
		t.Fatalf("decode error %q (rule %s) names no JSON element: path %q", msg, rule, path)
	}
	num, _ := strconv.Atoi(m[3])
	var nums []int
	var lanes [][]LaneJSON
	switch m[1] {
	case "opcode_table":
		for _, o := range j.Opcodes {
			nums = append(nums, o.Op)
		}
	case "control_table", "control_fast_table", "control_slow_table":
		rows := map[string][]RowJSON{"control_table": j.Control, "control_fast_table": j.ControlFast, "control_slow_table": j.ControlSlow}[m[1]]
		for _, r := range rows {
			nums = append(nums, r.Row)
		}
	case "datapath_table":
		for _, b := range j.Datapath {
			nums, lanes = append(nums, b.Block), append(lanes, b.Lanes)
		}
	}
	k := slices.Index(nums, num)
	if k < 0 {
		t.Fatalf("decode error %q: %s lists no %s %d (it has %v)", msg, m[1], m[2], num, nums)
	}
	if m[4] != "" {
		L, _ := strconv.Atoi(m[5])
		found := false
		for i, n := range nums {
			if n == num {
				found = found || slices.ContainsFunc(lanes[i], func(l LaneJSON) bool { return l.Lane == L })
			}
		}
		if !found {
			t.Fatalf("decode error %q: block %d lists no lane %d", msg, num, L)
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
	if s.Opcodes != nil {
		var raws [NumOpcodes]uint64
		for _, o := range j.Opcodes {
			raws[o.Op] = o.SlowRow<<rowBits(g) | uint64(o.FastRow)
		}
		for op, raw := range raws {
			if e := s.Opcodes.Entries[op]; e.Raw != raw || e.FastRow != int(raw&(1<<rowBits(g)-1)) || e.SlowRow != raw>>rowBits(g) {
				t.Fatalf("%s op %d: decoded %+v, the JSON lists raw %#x", g, op, e, raw)
			}
		}
	}
	checkRows := func(tb Table, ct *ControlTable, in []RowJSON) {
		if ct == nil {
			return
		}
		want := make([]ControlRow, len(ct.Rows))
		for _, r := range in {
			b, err := hex.DecodeString(strings.ReplaceAll(strings.TrimSpace(r.Bytes), " ", ""))
			if err != nil || len(b) != ControlRowSize {
				t.Fatalf("%s %s row %d: %q decoded, but is not 16 hex bytes", g, tb, r.Row, r.Bytes)
			}
			want[r.Row] = ControlRow(b)
		}
		if ct.Table != tb || !slices.Equal(ct.Rows, want) {
			t.Fatalf("%s %s: rows differ from the listed rows", g, tb)
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
				if lj.Word == "" {
					w = s.Datapath.Blocks[bj.Block][lj.Lane]
				}
				d := mustDecode(t, w, g)
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

// sparseCopy is s with only the listed opcode slots, datapath blocks and control and slow rows
// (the rest zero), for the JSON templates of FuzzDecodeJSON.
func sparseCopy(s *TableSet, ops, blocks, rows, slow []int) *TableSet {
	out := &TableSet{Name: s.Name, Gen: s.Gen}
	if s.Opcodes != nil {
		out.Opcodes = &OpcodeTable{Gen: s.Gen}
		for _, op := range ops {
			out.Opcodes.Entries[op] = s.Opcodes.Entries[op]
		}
	}
	keep := func(ct *ControlTable, idx []int) *ControlTable {
		if ct == nil {
			return nil
		}
		c := &ControlTable{Table: ct.Table, Gen: ct.Gen, Rows: make([]ControlRow, len(ct.Rows))}
		for _, i := range idx {
			c.Rows[i] = ct.Rows[i]
		}
		return c
	}
	out.Control, out.Slow = keep(s.Control, rows), keep(s.Slow, slow)
	if s.Datapath != nil {
		out.Datapath = &DatapathTable{Gen: s.Gen, Blocks: make([]DatapathBlock, len(s.Datapath.Blocks))}
		for _, i := range blocks {
			out.Datapath.Blocks[i] = s.Datapath.Blocks[i]
		}
	}
	return out
}
