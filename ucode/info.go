package ucode

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
)

// TableInfo is one table of a set as Info describes it.
type TableInfo struct {
	Table string `json:"table"`
	Path  string `json:"path"`
	Bytes int    `json:"bytes"`
	Note  string `json:"note"`
}

// Info is what `dtable info` prints: the set's generation and why, what each table holds, and
// how the opcode table compares with the generation's default roster (FACTS §E.1-§E.2).
type Info struct {
	Set          string      `json:"set"`
	Gen          TableGen    `json:"gen"`
	Generation   string      `json:"generation"`
	GenReason    string      `json:"gen_reason"`
	Tables       []TableInfo `json:"tables"`
	RosterSize   int         `json:"roster_size"`
	NotEnabled   OpcodeList  `json:"roster_not_enabled"`
	OutOfRoster  OpcodeList  `json:"enabled_not_in_roster"`
	MissingTable []string    `json:"missing_tables,omitempty"`
	hasOpcodes   bool
}

// Info describes s; a set of an invalid generation is an error.
func (s *TableSet) Info() (Info, error) {
	out := Info{Set: s.Name, Gen: s.Gen, Generation: s.Gen.Generation().String(), GenReason: s.GenReason, hasOpcodes: s.Opcodes != nil}
	files, err := s.Files()
	if err != nil {
		return out, err
	}
	for _, t := range s.Gen.Tables() {
		data, ok := files[t]
		if !ok {
			out.MissingTable = append(out.MissingTable, t.String())
			continue
		}
		it := TableInfo{Table: t.String(), Path: s.Paths[t], Bytes: len(data)}
		switch t {
		case TableOpcode:
			it.Note = fmt.Sprintf("%d enabled opcode slots", len(s.Opcodes.Enabled()))
		case TableControl, TableControlFast:
			it.Note = fmt.Sprintf("%d/%d rows used", s.Control.UsedRows(), len(s.Control.Rows))
		case TableControlSlow:
			it.Note = fmt.Sprintf("%d/%d rows used", s.Slow.UsedRows(), len(s.Slow.Rows))
		case TableDatapath:
			c, err := s.Census()
			if err != nil {
				return out, err
			}
			it.Note = fmt.Sprintf("%d blocks: %d OFF, %d PASSTHRU, %d ACTIVE", c.Blocks, c.Off, c.Passthru, c.Active)
		}
		out.Tables = append(out.Tables, it)
	}
	roster, err := Roster(s.Gen)
	if err != nil {
		return out, err
	}
	out.RosterSize = len(roster)
	if s.Opcodes != nil {
		in := map[uint8]bool{}
		for _, r := range roster {
			in[r.Opcode] = true
			if !s.Opcodes.Entries[r.Opcode].Enabled() {
				out.NotEnabled = append(out.NotEnabled, r.Opcode)
			}
		}
		for _, op := range s.Opcodes.Enabled() {
			if op != 0 && !in[op] {
				out.OutOfRoster = append(out.OutOfRoster, op)
			}
		}
	}
	return out, nil
}

// WriteText writes the text form `dtable info` prints.
func (in Info) WriteText(w io.Writer) error {
	ew := &errWriter{w: w}
	ew.printf("set:        %s\ngeneration: %s (%s)\nwhy:        %s\n", in.Set, in.Gen, in.Generation, in.GenReason)
	tw := tabwriter.NewWriter(ew, 0, 0, 2, ' ', 0)
	for _, it := range in.Tables {
		fmt.Fprintf(tw, "  %s\t%d B\t%s\t%s\n", it.Table, it.Bytes, it.Note, it.Path)
	}
	tw.Flush()
	if len(in.MissingTable) > 0 {
		ew.printf("missing:    %s\n", strings.Join(in.MissingTable, ", "))
	}
	if in.hasOpcodes {
		ew.printf("roster:     %d ops in the %s default roster (FACTS §E.2)\n", in.RosterSize, in.Gen)
		if len(in.NotEnabled) > 0 {
			ew.printf("  not enabled in this set: %s\n", FormatOpcodes(in.NotEnabled))
		}
		if len(in.OutOfRoster) > 0 {
			ew.printf("  enabled outside the roster: %s\n", FormatOpcodes(in.OutOfRoster))
		}
	}
	return ew.err
}

// WriteText writes the text form `dtable census` prints.
func (c Census) WriteText(w io.Writer) error {
	ew := &errWriter{w: w}
	ew.printf("set %s, %s: %d blocks\n", c.Set, c.Gen, c.Blocks)
	ew.printf("  OFF       %4d\n  PASSTHRU  %4d  (all-idle %d: rows %v; idle+zero %d)\n  ACTIVE    %4d\n",
		c.Off, c.Passthru, c.PassthruAllIdle, c.AllIdleRows, c.PassthruIdleZero, c.Active)
	ew.printf("words: %d nonzero = %d idle (%#x) + %d active; %d terminal lanes (VALID clear); highest active bit %d\n",
		c.NonzeroWords, c.IdleWords, uint64(c.Gen.IdleWord()), c.ActiveWords, c.TerminalLanes, c.HighestBit)
	if c.UsedControlRows >= 0 {
		ew.printf("control rows used: %d", c.UsedControlRows)
		if c.UsedSlowRows >= 0 {
			ew.printf("; slow rows used: %d", c.UsedSlowRows)
		}
		ew.printf("\n")
	}
	if c.EnabledOpcodes >= 0 {
		ew.printf("enabled opcode slots: %d\n", c.EnabledOpcodes)
	}
	ew.printf("depth k histogram:\n")
	for _, d := range c.Depths {
		ew.printf("  k=%d %4d blocks", d.K, len(d.Blocks))
		if len(d.Opcodes) > 0 {
			ew.printf("  ops: %s", FormatOpcodes(d.Opcodes))
		}
		ew.printf("\n")
	}
	ew.printf("per-bit set counts over active words (bit: count):\n")
	for b := 0; b <= c.HighestBit && b < len(c.BitCounts); b++ {
		ew.printf(" %d:%d", b, c.BitCounts[b])
		if b%16 == 15 || b == c.HighestBit {
			ew.printf("\n")
		}
	}
	ew.printf("left-packing violations: %v\norphan active blocks: %v\n", c.PackingViolations, c.OrphanBlocks)
	return ew.err
}

// errWriter keeps the first write error, so a text form is written with plain printf calls and
// its writer's failure still reaches the caller.
type errWriter struct {
	w   io.Writer
	err error
}

func (e *errWriter) Write(p []byte) (int, error) {
	if e.err != nil {
		return 0, e.err
	}
	n, err := e.w.Write(p)
	e.err = err
	return n, err
}

func (e *errWriter) printf(format string, args ...any) { fmt.Fprintf(e, format, args...) }
