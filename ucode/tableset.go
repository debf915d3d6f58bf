package ucode

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
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
	case TableControl:
		return s.Control != nil && s.Gen == Gen2
	case TableControlFast:
		return s.Control != nil && s.Gen != Gen2
	case TableControlSlow:
		return s.Slow != nil
	case TableDatapath:
		return s.Datapath != nil
	}
	return false
}

// Files encodes every present table to its file bytes, keyed by table.
func (s *TableSet) Files() map[Table][]byte {
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
	return out
}

// ParseTables parses the given tables as one set. With gen == GenUnknown the generation is
// inferred by InferGen; otherwise every size must match gen. Errors are *TableError.
func ParseTables(name string, raw map[Table]RawTable, gen TableGen) (*TableSet, error) {
	if len(raw) == 0 {
		return nil, &TableError{Offset: -1, Err: fmt.Errorf("%w: no table files given", ErrMissing)}
	}
	s := &TableSet{Name: name, Paths: map[Table]string{}}
	if gen == GenUnknown {
		g, why, err := InferGen(raw)
		if err != nil {
			return nil, err
		}
		s.Gen, s.GenReason = g, why
	} else {
		if !gen.Valid() {
			return nil, &TableError{Offset: -1, Err: fmt.Errorf("%w: %s", ErrGeneration, gen)}
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
			var te *TableError
			if errors.As(err, &te) && te.Path == "" {
				te.Path = r.Path
			}
			return nil, err
		}
	}
	return s, nil
}

// idleCensus counts the gen3 (bit 32) and gen4 (bit 42) idle words in a datapath table.
func idleCensus(data []byte) (n3, n4 int) {
	i3, i4 := uint64(Gen3.IdleWord()), uint64(Gen4.IdleWord())
	for off := 0; off+8 <= len(data); off += 8 {
		var w uint64
		for i := 7; i >= 0; i-- {
			w = w<<8 | uint64(data[off+i])
		}
		switch w {
		case i3:
			n3++
		case i4:
			n4++
		}
	}
	return n3, n4
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
		return GenUnknown, "", &TableError{Offset: -1,
			Err: fmt.Errorf("%w: the tables disagree: %s", ErrGeneration, strings.Join(why, ", "))}
	}
	if len(cands) == 1 {
		for g := range cands {
			return g, fmt.Sprintf("%s: %s", g, strings.Join(why, ", ")), nil
		}
	}
	if cands[Gen2] {
		return GenUnknown, "", &TableError{Offset: -1,
			Err: fmt.Errorf("%w: %s fit more than one generation; pass the generation", ErrGeneration, strings.Join(why, ", "))}
	}
	dp, ok := raw[TableDatapath]
	if !ok {
		return GenUnknown, "", &TableError{Offset: -1, Err: fmt.Errorf(
			"%w: %s: gen3 and gen4 files have the same sizes and there is no datapath_table for the idle-word census; pass the generation",
			ErrGeneration, strings.Join(why, ", "))}
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
	return GenUnknown, "", &TableError{Path: dp.Path, Table: TableDatapath, Offset: -1,
		Err: fmt.Errorf("%w: cannot tell gen3 from gen4: %s; pass the generation", ErrGeneration, census)}
}

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
	switch {
	case n < lo:
		return &TableError{Path: r.Path, Table: t, Offset: int64(n),
			Err: fmt.Errorf("%w: file ends after %d B; a %s is %s", ErrTruncated, n, t, want)}
	case n > hi:
		return &TableError{Path: r.Path, Table: t, Offset: int64(hi),
			Err: fmt.Errorf("%w: %d B; a %s is %s", ErrSize, n, t, want)}
	}
	return &TableError{Path: r.Path, Table: t, Offset: -1,
		Err: fmt.Errorf("%w: %d B; a %s is %s", ErrSize, n, t, want)}
}

// Load reads a table set from a folder (picking set, or the only set, or "default") or from
// single files named <set>_<table>.bin. gen == GenUnknown infers the generation.
func Load(paths []string, set string, gen TableGen) (*TableSet, error) {
	if len(paths) == 0 {
		return nil, &TableError{Offset: -1, Err: fmt.Errorf("%w: no path given", ErrMissing)}
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
			return nil, &TableError{Path: p, Offset: -1, Err: fmt.Errorf(
				"%w: cannot tell which table this is: name it <set>_{opcode,control,control_fast,control_slow,datapath}_table.bin", ErrInvalid)}
		}
		if _, dup := raw[t]; dup {
			return nil, &TableError{Path: p, Table: t, Offset: -1, Err: fmt.Errorf("%w: %s given twice", ErrInvalid, t)}
		}
		// Files of two sets (default_opcode_table.bin with saturate_datapath_table.bin) were
		// read as one set under the first name.
		if first == "" {
			first, firstPath = sn, p
		} else if sn != first {
			return nil, &TableError{Path: p, Table: t, Offset: -1, Err: fmt.Errorf(
				"%w: this file is of set %q, %s of set %q: give the files of one set", ErrInvalid, sn, firstPath, first)}
		}
		if name == "" {
			name = sn
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return nil, &TableError{Path: p, Table: t, Offset: -1, Err: err}
		}
		raw[t] = RawTable{Path: p, Data: data}
	}
	s, err := ParseTables(name, raw, gen)
	// An error about the set as a whole (the generation cannot be told, the sizes disagree)
	// names the folder or the files it was read from.
	var te *TableError
	if errors.As(err, &te) && te.Path == "" {
		te.Path = strings.Join(paths, ", ")
	}
	return s, err
}

// Sets lists the table-set names found in a folder, ascending.
func Sets(dir string) ([]string, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, &TableError{Path: dir, Offset: -1, Err: err}
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
	if set == "" {
		switch {
		case len(sets) == 1:
			set = sets[0]
		case contains(sets, "default"):
			set = "default"
		case len(sets) == 0:
			return nil, "", &TableError{Path: dir, Offset: -1, Err: fmt.Errorf("%w: no <set>_*_table.bin files in the folder", ErrMissing)}
		default:
			return nil, "", &TableError{Path: dir, Offset: -1, Err: fmt.Errorf("%w: the folder holds sets %s: pick one", ErrInvalid, strings.Join(sets, ", "))}
		}
	} else if !contains(sets, set) {
		return nil, "", &TableError{Path: dir, Offset: -1, Err: fmt.Errorf("%w: no set %q in the folder (found %s)", ErrMissing, set, strings.Join(sets, ", "))}
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

// Lookup follows op through the set. ok is false when there is no opcode table or the opcode's
// slot is zero (disabled in this set).
func (s *TableSet) Lookup(op uint8) (Resolution, bool) {
	r := Resolution{Opcode: op, Name: OpcodeName(op)}
	r.Twin, r.HasTwin = Twin(op)
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
