package ucode

import (
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/tpbsim/tpbsim/fault"
)

// TableSet is one compiled DVE table set (FACTS §E.1): whichever of its tables were given.
// Control holds the row table the opcode's fast row indexes: control_table in gen2,
// control_fast_table in gen3/gen4. Slow is control_slow_table (gen3/gen4 only).
type TableSet struct {
	Name      string // the set name, e.g. "default", "transformer", "saturate"
	Gen       TableGen
	GenReason string // how Gen was decided, in words
	// GenWarning is set when an explicit generation contradicts the datapath table's idle-word
	// census (the set is still read as the given generation); it is also part of GenReason.
	GenWarning string
	Paths      map[Table]string // where each table came from
	Opcodes    *OpcodeTable
	Control    *ControlTable
	Slow       *ControlTable
	Datapath   *DatapathTable
}

// RawTable is one table file's bytes and the path to name in errors.
type RawTable struct {
	Path string
	Data []byte
}

// Has reports whether table t is present.
func (s *TableSet) Has(t Table) bool {
	switch t {
	case TableOpcode:
		return s.Opcodes != nil
	case TableControl, TableControlFast:
		return s.Control != nil && s.Control.Table == t
	case TableControlSlow:
		return s.Slow != nil
	case TableDatapath:
		return s.Datapath != nil
	}
	return false
}

// Files encodes every present table to its file bytes, keyed by table. A set of an invalid
// generation has no file form: an error.
func (s *TableSet) Files() (map[Table][]byte, error) {
	if err := s.Gen.Check(); err != nil {
		return nil, err
	}
	out := map[Table][]byte{}
	if s.Opcodes != nil {
		out[TableOpcode] = s.Opcodes.Bytes()
	}
	if s.Control != nil {
		out[s.Control.Table] = s.Control.Bytes()
	}
	if s.Slow != nil {
		out[TableControlSlow] = s.Slow.Bytes()
	}
	if s.Datapath != nil {
		out[TableDatapath] = s.Datapath.Bytes()
	}
	return out, nil
}

// ParseTables parses the given tables as one set. With gen == GenUnknown the generation is
// inferred by InferGen; otherwise gen must be valid and every size must match it. Errors are
// *Error, naming the file each table came from.
func ParseTables(name string, raw map[Table]RawTable, gen TableGen) (*TableSet, error) {
	if len(raw) == 0 {
		return nil, invalid(RuleTablePresent, "", "", "", "no table files given")
	}
	s := &TableSet{Name: name, Paths: map[Table]string{}}
	if gen == GenUnknown {
		g, why, err := InferGen(raw)
		if err != nil {
			return nil, err
		}
		s.Gen, s.GenReason = g, why
	} else {
		if err := gen.Check(); err != nil {
			return nil, err
		}
		s.Gen, s.GenReason = gen, fmt.Sprintf("%s given explicitly", gen)
		if dp, ok := raw[TableDatapath]; ok && len(dp.Data) == gen.TableSize(TableDatapath) && gen != Gen2 {
			if n3, n4 := idleCensus(dp.Data); (gen == Gen3 && n4 > n3) || (gen == Gen4 && n3 > n4) {
				s.GenWarning = fmt.Sprintf("read as %s as given, but the datapath_table's idle-word census suggests otherwise: %d gen3 idle words, %d gen4", gen, n3, n4)
				s.GenReason += " (warning: " + s.GenWarning + ")"
			}
		}
	}
	for _, t := range AllTables {
		r, ok := raw[t]
		if !ok {
			continue
		}
		s.Paths[t] = r.Path
		var err error
		switch t {
		case TableOpcode:
			s.Opcodes, err = ParseOpcodeTable(r.Data, s.Gen)
		case TableControl, TableControlFast:
			s.Control, err = ParseControlTable(r.Data, t, s.Gen)
		case TableControlSlow:
			s.Slow, err = ParseControlTable(r.Data, t, s.Gen)
		case TableDatapath:
			s.Datapath, err = ParseDatapathTable(r.Data, s.Gen)
		}
		if err != nil {
			return nil, inFile(err, r.Path, t)
		}
	}
	return s, nil
}

// idleCensus counts the gen3 (bit 32) and gen4 (bit 42) idle words in a datapath table.
func idleCensus(data []byte) (n3, n4 int) {
	i3, i4 := uint64(Gen3.IdleWord()), uint64(Gen4.IdleWord())
	for off := 0; off+8 <= len(data); off += 8 {
		switch binary.LittleEndian.Uint64(data[off:]) {
		case i3:
			n3++
		case i4:
			n4++
		}
	}
	return n3, n4
}

// genError is a rule ucode.table_gen error about the set as a whole.
func genError(format string, args ...any) *Error {
	return invalid(RuleTableGen, "", "", "", format, args...)
}

// InferGen decides the table generation from the files' sizes and, between gen3 and gen4
// (whose files are the same size), from the idle-word census of the datapath table: the idle
// word is bit 32 in gen3 and bit 42 in gen4 (seed 004 §2, §5). It returns the reason in words.
func InferGen(raw map[Table]RawTable) (TableGen, string, error) {
	cands := map[TableGen]bool{Gen2: true, Gen3: true, Gen4: true}
	var why []string
	keep := func(gs ...TableGen) {
		for g := range cands {
			found := false
			for _, h := range gs {
				found = found || g == h
			}
			if !found {
				delete(cands, g)
			}
		}
	}
	for _, t := range AllTables {
		r, ok := raw[t]
		if !ok {
			continue
		}
		n := len(r.Data)
		s2, s34 := Gen2.TableSize(t), Gen3.TableSize(t)
		switch {
		case s2 != 0 && n == s2 && s34 != 0 && n == s34:
			why = append(why, fmt.Sprintf("%s is %d B (any generation)", t, n))
		case s2 != 0 && n == s2:
			keep(Gen2)
			why = append(why, fmt.Sprintf("%s is %d B (gen2)", t, n))
		case s34 != 0 && n == s34:
			keep(Gen3, Gen4)
			why = append(why, fmt.Sprintf("%s is %d B (gen3/gen4)", t, n))
		default:
			return GenUnknown, "", sizeError(r, t, s2, s34)
		}
	}
	if len(cands) == 0 {
		return GenUnknown, "", genError("the tables disagree: %s", strings.Join(why, ", "))
	}
	if len(cands) == 1 {
		for g := range cands {
			return g, fmt.Sprintf("%s: %s", g, strings.Join(why, ", ")), nil
		}
	}
	if cands[Gen2] {
		return GenUnknown, "", genError("%s fit more than one generation; pass the generation", strings.Join(why, ", "))
	}
	dp, ok := raw[TableDatapath]
	if !ok {
		return GenUnknown, "", genError(
			"%s: gen3 and gen4 files have the same sizes and there is no datapath_table for the idle-word census; pass the generation",
			strings.Join(why, ", "))
	}
	n3, n4 := idleCensus(dp.Data)
	census := fmt.Sprintf("datapath_table holds %d gen3 idle words %#x (bit 32) and %d gen4 idle words %#x (bit 42)",
		n3, uint64(Gen3.IdleWord()), n4, uint64(Gen4.IdleWord()))
	switch {
	case n4 > n3:
		return Gen4, fmt.Sprintf("gen4: %s; %s", strings.Join(why, ", "), census), nil
	case n3 > n4:
		return Gen3, fmt.Sprintf("gen3: %s; %s", strings.Join(why, ", "), census), nil
	}
	e := genError("cannot tell gen3 from gen4: %s; pass the generation", census)
	e.File, e.Table = dp.Path, TableDatapath
	return GenUnknown, "", e
}

// sizeError is the rule ucode.table_size error of a file r of table t whose size is neither the
// gen2 size s2 nor the gen3/gen4 size s34 (0: the table does not exist there).
func sizeError(r RawTable, t Table, s2, s34 int) error {
	var sizes []string
	lo, hi := s2, s34
	if s2 != 0 {
		sizes = append(sizes, fmt.Sprintf("%d B (gen2)", s2))
	}
	if s34 != 0 {
		sizes = append(sizes, fmt.Sprintf("%d B (gen3/gen4)", s34))
	}
	if lo == 0 || (hi != 0 && hi < lo) {
		lo = hi
	}
	if hi < s2 {
		hi = s2
	}
	n := len(r.Data)
	want := strings.Join(sizes, " or ")
	e := &Error{File: r.Path, Table: t, Offset: -1, Kind: fault.ErrInvalid,
		V: fault.Violation{Rule: RuleTableSize, Offset: -1, Value: fmt.Sprintf("%d B", n), Legal: want}}
	switch {
	case n < lo:
		e.Offset, e.Kind = int64(n), fault.ErrTruncated
		e.V.Msg = fmt.Sprintf("the file ends after %d B", n)
	case n > hi:
		e.Offset = int64(hi)
		e.V.Msg = fmt.Sprintf("%d B, %d extra bytes from here", n, n-hi)
	default:
		e.V.Msg = fmt.Sprintf("%d B, between the sizes", n)
	}
	return e
}

// Load reads a table set from a folder (picking set, or the only set, or "default") or from
// single files named <set>_<table>.bin. gen == GenUnknown infers the generation; any other
// gen must be valid. A path that cannot be read is an I/O error (fault category none, the
// file-system error in its chain); the rest are *Error of a rule.
func Load(paths []string, set string, gen TableGen) (*TableSet, error) {
	if len(paths) == 0 {
		return nil, invalid(RuleTablePresent, "", "", "", "no path given")
	}
	if gen != GenUnknown {
		if err := gen.Check(); err != nil {
			return nil, err
		}
	}
	// A missing path is an I/O error in its own words, not a file whose table kind is unknown.
	for _, p := range paths {
		if _, err := os.Stat(p); err != nil {
			return nil, &Error{Offset: -1, Err: err}
		}
	}
	files := paths
	if len(paths) == 1 {
		if st, err := os.Stat(paths[0]); err == nil && st.IsDir() {
			var err error
			files, set, err = setFiles(paths[0], set)
			if err != nil {
				return nil, err
			}
		}
	}
	raw := map[Table]RawTable{}
	name := set
	first, firstPath := "", ""
	for _, p := range files {
		sn, t, ok := TableOfFile(p)
		if !ok {
			e := invalid(RuleTableKind, "", "", "<set>_{opcode,control,control_fast,control_slow,datapath}_table.bin", "cannot tell which table this is")
			e.File = p
			return nil, e
		}
		if _, dup := raw[t]; dup {
			e := invalid(RuleOneSet, "", "", "", "%s given twice", t)
			e.File, e.Table = p, t
			return nil, e
		}
		// Files of two sets (default_opcode_table.bin with saturate_datapath_table.bin) were
		// read as one set under the first name.
		if first == "" {
			first, firstPath = sn, p
		} else if sn != first {
			e := invalid(RuleOneSet, "", "", "", "this file is of set %q, %s of set %q: give the files of one set", sn, firstPath, first)
			e.File, e.Table = p, t
			return nil, e
		}
		if name == "" {
			name = sn
		}
		data, err := os.ReadFile(p)
		if err != nil {
			e := ioError(p, err)
			e.Table = t
			return nil, e
		}
		raw[t] = RawTable{Path: p, Data: data}
	}
	s, err := ParseTables(name, raw, gen)
	// An error about the set as a whole (the generation cannot be told, the sizes disagree)
	// names the folder or the files it was read from.
	return s, inFile(err, strings.Join(paths, ", "), TableInvalid)
}

// Sets lists the table-set names found in a folder, ascending.
func Sets(dir string) ([]string, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, ioError(dir, err)
	}
	seen := map[string]bool{}
	for _, e := range ents {
		if sn, _, ok := TableOfFile(e.Name()); ok && !e.IsDir() {
			seen[sn] = true
		}
	}
	var out []string
	for sn := range seen {
		out = append(out, sn)
	}
	sort.Strings(out)
	return out, nil
}

func setFiles(dir, set string) ([]string, string, error) {
	sets, err := Sets(dir)
	if err != nil {
		return nil, "", err
	}
	var e *Error
	if set == "" {
		switch {
		case len(sets) == 1:
			set = sets[0]
		case contains(sets, "default"):
			set = "default"
		case len(sets) == 0:
			e = invalid(RuleTablePresent, "", "", "", "no <set>_*_table.bin files in the folder")
		default:
			e = invalid(RuleOneSet, "set", "", strings.Join(sets, ", "), "the folder holds sets %s: pick one", strings.Join(sets, ", "))
		}
	} else if !contains(sets, set) {
		e = invalid(RuleTablePresent, "set", strconv.Quote(set), strings.Join(sets, ", "), "no set %q in the folder (found %s)", set, strings.Join(sets, ", "))
	}
	if e != nil {
		e.File = dir
		return nil, "", e
	}
	var files []string
	for _, t := range AllTables {
		p := filepath.Join(dir, t.FileName(set))
		if _, err := os.Stat(p); err == nil {
			files = append(files, p)
		}
	}
	return files, set, nil
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// Resolution is one opcode followed through the chain opcode -> fast row (+ slow row) ->
// control words -> datapath block (FACTS §E.2, seed 004 §1).
type Resolution struct {
	Opcode  uint8
	Name    string
	Entry   OpcodeEntry
	FastRow int
	SlowRow uint64      // 0: fast-only. gen2 has the field but no slow table.
	Fast    *ControlRow // control_table (gen2) / control_fast_table row; nil if absent
	Slow    *ControlRow // control_slow_table row; nil if fast-only, gen2, or absent
	Block   *DatapathBlock
	Info    BlockInfo // valid when Block != nil
	// SharesRow lists the other enabled opcodes on the same fast row, which therefore share the
	// datapath block (seed 004 §1 NOTE).
	SharesRow []uint8
	Twin      uint8 // the arith/bitvec partner, when HasTwin
	HasTwin   bool
	TwinRow   bool     // the partner is enabled on the same fast row
	Notes     []string // anything out of range or missing
}

// Depth is the datapath pipeline depth k (0 when no datapath table is loaded).
func (r Resolution) Depth() int { return r.Info.Depth }

// Class is the block class (ClassInvalid when no datapath table is loaded).
func (r Resolution) Class() BlockClass { return r.Info.Class }

// Lookup follows op through the set. ok is false when there is no opcode table, the opcode's
// slot is zero (disabled in this set) or the set's generation is invalid; Notes says which.
func (s *TableSet) Lookup(op uint8) (Resolution, bool) {
	r := Resolution{Opcode: op, Name: OpcodeName(op)}
	r.Twin, r.HasTwin = Twin(op)
	if err := s.Gen.Check(); err != nil {
		r.Notes = append(r.Notes, err.Error())
		return r, false
	}
	if s.Opcodes == nil {
		r.Notes = append(r.Notes, "no opcode_table loaded")
		return r, false
	}
	e := s.Opcodes.Entries[op]
	r.Entry, r.FastRow, r.SlowRow = e, e.FastRow, e.SlowRow
	if !e.Enabled() {
		return r, false
	}
	for _, o := range s.Opcodes.OpcodesOnRow(e.FastRow) {
		if o != op {
			r.SharesRow = append(r.SharesRow, o)
		}
		if r.HasTwin && o == r.Twin {
			r.TwinRow = true
		}
	}
	if e.FastRow < 0 {
		r.Notes = append(r.Notes, fmt.Sprintf("fast row %d is negative", e.FastRow))
		return r, true
	}
	if s.Control != nil {
		if e.FastRow < len(s.Control.Rows) {
			row := s.Control.Rows[e.FastRow]
			r.Fast = &row
		} else {
			r.Notes = append(r.Notes, fmt.Sprintf("fast row %d is past the %s (%d rows)", e.FastRow, s.Control.Table, len(s.Control.Rows)))
		}
	}
	if e.SlowRow != 0 {
		switch {
		case s.Gen == Gen2:
			r.Notes = append(r.Notes, fmt.Sprintf("slow field %d (gen2 has no slow table)", e.SlowRow))
		case s.Slow == nil:
			// Said, not skipped: a folder without its control_slow_table printed no slow word
			// and no reason.
			r.Notes = append(r.Notes, fmt.Sprintf("slow row %d: no control_slow_table loaded", e.SlowRow))
		case e.SlowRow < uint64(len(s.Slow.Rows)):
			row := s.Slow.Rows[e.SlowRow]
			r.Slow = &row
		default:
			r.Notes = append(r.Notes, fmt.Sprintf("slow row %d is past the control_slow_table (%d rows)", e.SlowRow, len(s.Slow.Rows)))
		}
	}
	if s.Datapath != nil {
		if e.FastRow < len(s.Datapath.Blocks) {
			b := s.Datapath.Blocks[e.FastRow]
			r.Block = &b
			r.Info = b.Analyze(s.Gen)
			r.Info.Index = e.FastRow
		} else {
			r.Notes = append(r.Notes, fmt.Sprintf("fast row %d is past the datapath_table (%d blocks)", e.FastRow, len(s.Datapath.Blocks)))
		}
	}
	return r, true
}

// MissingOpcodes lists, ascending and without repeats, the opcodes of ops this set cannot run
// (slot zero, or no opcode table): the compiler's checkMissingOpcodes (FACTS §E.4).
func (s *TableSet) MissingOpcodes(ops []uint8) []uint8 {
	var seen [NumOpcodes]bool
	var out []uint8
	for _, op := range ops {
		if seen[op] {
			continue
		}
		seen[op] = true
		if s.Opcodes == nil || !s.Opcodes.Entries[op].Enabled() {
			out = append(out, op)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}

// needs is the rule ucode.table_present error of an operation that reads table t, which s lacks.
func (s *TableSet) needs(t Table, what string) error {
	e := invalid(RuleTablePresent, "", "", "", "%s needs a %s", what, t)
	e.Table = t
	return e
}
