// Package demo is `tpbsim demo` as a library: an embedded program on four engine queues
// synchronised by semaphores (a DMA from HBM fanned out over DMA engines, a cast on POOL,
// StreamTranspose, LOAD_MASK_SELECT + StreamShuffle and TransposeTensorReduce on the DVE, a
// cast on ACT), its input data, a reference of every result computed apart from the executors,
// and the verification of a run against it.
//
// The reference follows the semantics of DESIGN.md §4 without the dve package: the 32x32 tile
// transposes are dge's direct reference of a permuted view (dge.Reference, the oracle the
// planner and the DMA engines are checked against), the bf16 rounding, the shuffle and the
// reduction are written out here.
package demo

import (
	"bytes"
	_ "embed"
	"encoding/binary"
	"fmt"
	"math"
	"strings"

	"github.com/tpbsim/tpbsim/asm"
	"github.com/tpbsim/tpbsim/dge"
	"github.com/tpbsim/tpbsim/fault"
	"github.com/tpbsim/tpbsim/internal/npy"
	"github.com/tpbsim/tpbsim/isa"
	"github.com/tpbsim/tpbsim/sim"
)

// The demo's geometry and where its tensors live: HBM for the input, per-partition byte
// offsets in SBUF (partition c holds channel c) for the rest.
const (
	Channels = 64 // two 32-channel groups
	Elems    = 64 // two 32-element tiles per channel

	HBMX    = 0x10000 // fp32 input X, row-major in HBM
	OffX    = 0x0000  // fp32 X, after the DMA
	OffB    = 0x0400  // bf16 B = CAST(X)
	OffT    = 0x0800  // bf16 T = STREAM_TRANSPOSE(B)
	OffS    = 0x0C00  // bf16 S = STREAM_SHUFFLE(T), pre-filled with Sentinel
	OffF    = 0x1000  // fp32 F = CAST(S)
	OffR    = 0x1400  // fp32 R = TRANSPOSE_TENSOR_REDUCE add over S (2 per channel)
	OffTag  = 0x1800  // uint16 tags: channel<<8 | element
	OffTagT = 0x1C00  // the tags transposed
	OffTagS = 0x2000  // the tags transposed then shuffled, pre-filled with 0xFFFF

	// Sentinel is bf16 -0.5, what an untouched (mask entry 0xFF) shuffle channel keeps.
	Sentinel = 0xBF00
)

// Mask is the LOAD_MASK_SELECT lane map of the program: output channel i of each 32-group
// takes input channel (5i+3) mod 32; entry 7 is 0xFF (output channel 7 left untouched).
func Mask() [32]uint8 {
	var m [32]uint8
	for i := range m {
		m[i] = uint8((5*i + 3) % 32)
	}
	m[7] = 0xFF
	return m
}

//go:embed program.tpb
var programText string

// programFile is the name the program's messages and trace give it.
const programFile = "demo_program.tpb"

// Source is the demo program for generation g as assembly text: the SBUF partition stride (in
// fp32 elements) filled in, and a .gen line before the first instruction so the text run or
// assembled elsewhere keeps the addresses it was written for. An invalid generation is isa's
// *GenerationError (rule isa.generation), not a program with no partition stride.
func Source(g isa.Generation) (string, error) {
	if err := g.Check(); err != nil {
		return "", err
	}
	src := strings.ReplaceAll(programText, "{{STRIDE}}", fmt.Sprint(g.Geometry().StateBufPartitionSize/4))
	if i := strings.Index(src, "\n.engine "); i >= 0 {
		src = src[:i+1] + ".gen " + g.String() + "\n\n" + src[i+1:]
	}
	return src, nil
}

// Step is one instruction of the demo: its queue, its index there, its opcode, and the comment
// lines above it in the program.
type Step struct {
	Engine isa.Engine
	Index  int
	Op     isa.Opcode
	What   string
}

// Demo is the demo on one generation: its program, and its steps in file order.
type Demo struct {
	Gen     isa.Generation
	Program *sim.Program
	Steps   []Step
}

// New assembles the demo program for g.
func New(g isa.Generation) (*Demo, error) {
	src, err := Source(g)
	if err != nil {
		return nil, err
	}
	ap, err := asm.ParseProgram(programFile, []byte(src), g)
	if err != nil {
		return nil, err
	}
	d := &Demo{Gen: g, Program: &sim.Program{File: programFile, BoundRegs: ap.BoundRegs, AddrRegs: ap.AddrRegs}}
	queue := map[isa.Engine]int{}
	for _, e := range ap.Engines {
		queue[e] = len(d.Program.Queues)
		d.Program.Queues = append(d.Program.Queues, sim.Queue{Engine: e})
	}
	lines := strings.Split(src, "\n")
	for _, it := range ap.Items {
		var what []string // the comment lines just above the instruction
		for l := it.Line - 2; l >= 0 && strings.HasPrefix(strings.TrimSpace(lines[l]), "#"); l-- {
			what = append([]string{strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(lines[l]), "#"))}, what...)
		}
		q := &d.Program.Queues[queue[it.Engine]]
		d.Steps = append(d.Steps, Step{it.Engine, len(q.Insts), it.Inst.Hdr().Opcode, strings.Join(what, " ")})
		q.Insts = append(q.Insts, sim.Instr{Inst: it.Inst, Index: len(q.Insts), Offset: -1, Line: it.Line})
	}
	return d, nil
}

// tile is one Channels x Elems array of 16-bit elements (bf16 bits or tags).
type tile = [Channels][Elems]uint16

// Input is X[c][e] = c + e/64 (fp32; the bf16 cast must round most of them).
func Input() (x [Channels][Elems]float32) {
	for c := range x {
		for e := range x[c] {
			x[c][e] = float32(c) + float32(e)/64
		}
	}
	return x
}

// fills are the inputs besides X: the tags and the pre-filled shuffle destinations.
func fills() (tags, sent, ones tile) {
	for c := range tags {
		for e := range tags[c] {
			tags[c][e] = uint16(c)<<8 | uint16(e)
			sent[c][e], ones[c][e] = Sentinel, 0xFFFF
		}
	}
	return
}

// Load writes the demo's inputs into m: X in HBM, the tags and the pre-filled destinations of
// the shuffles in SBUF.
func Load(m *sim.Machine) error {
	tags, sent, ones := fills()
	x := Input()
	shape := []int{Channels, Elems}
	for _, l := range []struct {
		at   isa.Location
		size int
		data []byte
	}{
		{sbuf(OffTag), 2, le16(tags)}, {sbuf(OffS), 2, le16(sent)}, {sbuf(OffTagS), 2, le16(ones)},
		{isa.Location{Space: isa.SpaceHBM, Offset: HBMX}, 4, lef32(flat(x[:])...)},
	} {
		if err := m.WriteTensor(l.at, shape, l.size, l.data); err != nil {
			return err
		}
	}
	return nil
}

func sbuf(off uint64) isa.Location { return isa.Location{Space: isa.SpaceSBUF, Offset: off} }

// Reference is every result of the demo, computed from the inputs by the semantics.
type Reference struct {
	B, T, S    tile // bf16 bits
	F          [Channels][Elems]float32
	R          [Channels][2]float32
	TagT, TagS tile
	Rounded    int // values of X the bf16 cast rounds
}

// NewReference computes the reference.
func NewReference() (*Reference, error) {
	x := Input()
	tags, sent, ones := fills()
	r := &Reference{}
	for c := range x {
		for e := range x[c] {
			r.B[c][e] = bf16(x[c][e])
			if math.Float32frombits(uint32(r.B[c][e])<<16) != x[c][e] {
				r.Rounded++
			}
		}
	}
	mask := Mask()
	var err error
	if r.T, err = transposeTiles(r.B); err != nil {
		return nil, err
	}
	r.S = shuffle(r.T, sent, mask)
	if r.TagT, err = transposeTiles(tags); err != nil {
		return nil, err
	}
	r.TagS = shuffle(r.TagT, ones, mask)
	for c := range r.S {
		for e := range r.S[c] {
			r.F[c][e] = math.Float32frombits(uint32(r.S[c][e]) << 16)
		}
	}
	st, err := transposeTiles(r.S)
	if err != nil {
		return nil, err
	}
	for c := range st {
		for k := 0; k < 2; k++ {
			var acc float32
			for i := 0; i < 32; i++ {
				acc += math.Float32frombits(uint32(st[c][32*k+i]) << 16)
			}
			r.R[c][k] = acc
		}
	}
	return r, nil
}

// bf16 rounds an fp32 to bf16, to nearest even (finite inputs). It is written here rather than
// taken from num, whose codecs the machine's cast runs on, so that the demo's expected results
// do not come from the code they check.
func bf16(f float32) uint16 {
	b := math.Float32bits(f)
	return uint16((b + 0x7FFF + (b>>16)&1) >> 16)
}

// transposeTiles is StreamTranspose's meaning on 32-channel groups of 32-element tiles,
// O[32g+i][32t+j] = S[32g+j][32t+i], as dge's direct reference of a permuted view: the source
// read with dims (j, t, i, g) innermost first is O in row-major order.
func transposeTiles(s tile) (tile, error) {
	const n = Channels * Elems * 2
	m := make(flatMemory, 2*n)
	copy(m, le16(s))
	req := dge.Request{
		Src: dge.View{Base: 0, ElemSize: 2, NumElem: [4]uint32{32, Elems / 32, 32, Channels / 32}, StepElem: [4]int64{Elems, 32, 1, 32 * Elems}},
		Dst: dge.RowMajor(n, 2, []int{Channels, Elems}),
	}
	var o tile
	if err := dge.Reference(m, req); err != nil {
		return o, err
	}
	for c := range o {
		for e := range o[c] {
			o[c][e] = binary.LittleEndian.Uint16(m[n+2*(c*Elems+e):])
		}
	}
	return o, nil
}

// shuffle: output channel i of each 32-group takes input channel mask[i]; 0xFF keeps old.
func shuffle(s, old tile, mask [32]uint8) tile {
	o := old
	for c := range o {
		if m := mask[c%32]; m != 0xFF {
			o[c] = s[c/32*32+int(m)]
		}
	}
	return o
}

// flatMemory is a byte array as a dma.Memory from address 0, for the reference.
type flatMemory []byte

func (f flatMemory) ReadAt(addr uint64, p []byte) error {
	if addr > uint64(len(f)) || uint64(len(p)) > uint64(len(f))-addr {
		return fmt.Errorf("demo reference: read of %d bytes at 0x%x past %d", len(p), addr, len(f))
	}
	copy(p, f[addr:])
	return nil
}

func (f flatMemory) WriteAt(addr uint64, p []byte) error {
	if addr > uint64(len(f)) || uint64(len(p)) > uint64(len(f))-addr {
		return fmt.Errorf("demo reference: write of %d bytes at 0x%x past %d", len(p), addr, len(f))
	}
	copy(f[addr:], p)
	return nil
}

func le16(rows tile) []byte {
	b := make([]byte, 0, 2*Channels*Elems)
	for _, r := range rows {
		for _, v := range r {
			b = binary.LittleEndian.AppendUint16(b, v)
		}
	}
	return b
}

// lef32 is float32 values as little-endian bytes.
func lef32(vs ...float32) []byte {
	b := make([]byte, 0, 4*len(vs))
	for _, v := range vs {
		b = binary.LittleEndian.AppendUint32(b, math.Float32bits(v))
	}
	return b
}

// flat lists the rows' values in row-major order.
func flat[R [Elems]float32 | [2]float32](rows []R) []float32 {
	var out []float32
	for i := range rows {
		switch r := any(rows[i]).(type) {
		case [Elems]float32:
			out = append(out, r[:]...)
		case [2]float32:
			out = append(out, r[:]...)
		}
	}
	return out
}

// Check is one result compared with the reference: Channels x Cols elements of Size bytes at
// SBUF offset Off in every partition; when it differs, the first differing element.
type Check struct {
	Name             string
	Off              uint64
	Cols, Size       int
	OK               bool
	Channel, Element int
}

// Status is "ok" or where the result first differs.
func (c Check) Status() string {
	if c.OK {
		return "ok"
	}
	return fmt.Sprintf("MISMATCH at channel %d element %d", c.Channel, c.Element)
}

// RuleResultsMatch is the rule a demo run breaks when a result differs from the reference.
const RuleResultsMatch = "demo.results_match"

// VerifyError lists the results that differ from the reference.
type VerifyError struct{ Bad []Check }

func (e *VerifyError) Error() string {
	lines := make([]string, len(e.Bad))
	for i, c := range e.Bad {
		lines[i] = c.Name + ": " + c.Status()
	}
	return "demo results differ from the reference:\n  " + strings.Join(lines, "\n  ")
}
func (e *VerifyError) Unwrap() error  { return fault.ErrInvalid }
func (e *VerifyError) RuleID() string { return RuleResultsMatch }

// ErrPath names the first differing element, "STREAM_TRANSPOSE bf16: channel[3].element[5]"
// (Bad holds the others).
func (e *VerifyError) ErrPath() string {
	if len(e.Bad) == 0 {
		return ""
	}
	c := e.Bad[0]
	return fmt.Sprintf("%s: channel[%d].element[%d]", c.Name, c.Channel, c.Element)
}

// Provenance is the demo's registry entry (tpbsim explain demo.results_match).
func Provenance() []isa.Provenance {
	return []isa.Provenance{isa.Rule(RuleResultsMatch,
		"Every result of the demo program (the DMA, both casts, StreamTranspose, the shuffle, TransposeTensorReduce, the tag tiles) equals the reference computed from its inputs by the semantics of DESIGN.md §4.",
		"DESIGN.md §4, §7 (exit status 1: verification mismatch)", isa.Invented, []string{"dst"},
		"the rule id is tpbsim's: a demo run checked against its reference breaks no hardware rule, but the check needs an id its error and explain can name")}
}

// Verify compares the demo's results in m with the reference, in program order. A result that
// differs is an *VerifyError returned with every check; a result that cannot be read is the
// machine's error.
func Verify(m *sim.Machine, ref *Reference) ([]Check, error) {
	x := Input()
	checks := []struct {
		name string
		off  uint64
		size int
		cols int
		want []byte
	}{
		{"DMAMEMCPY HBM -> SBUF fp32", OffX, 4, Elems, lef32(flat(x[:])...)},
		{fmt.Sprintf("CAST fp32 -> bf16 (%d of %d values rounded)", ref.Rounded, Channels*Elems), OffB, 2, Elems, le16(ref.B)},
		{"STREAM_TRANSPOSE bf16", OffT, 2, Elems, le16(ref.T)},
		{"LOAD_MASK_SELECT + STREAM_SHUFFLE bf16", OffS, 2, Elems, le16(ref.S)},
		{"CAST bf16 -> fp32", OffF, 4, Elems, lef32(flat(ref.F[:])...)},
		{"TRANSPOSE_TENSOR_REDUCE add -> fp32", OffR, 4, 2, lef32(flat(ref.R[:])...)},
		{"STREAM_TRANSPOSE uint16 tags", OffTagT, 2, Elems, le16(ref.TagT)},
		{"STREAM_SHUFFLE uint16 tags", OffTagS, 2, Elems, le16(ref.TagS)},
	}
	out := make([]Check, 0, len(checks))
	var bad []Check
	for _, c := range checks {
		got, err := m.ReadTensor(sbuf(c.off), []int{Channels, c.cols}, c.size)
		if err != nil {
			return nil, err
		}
		ck := Check{Name: c.name, Off: c.off, Cols: c.cols, Size: c.size, OK: true}
		if !bytes.Equal(got, c.want) {
			i := firstDiff(got, c.want) / c.size
			ck.OK, ck.Channel, ck.Element = false, i/c.cols, i%c.cols
			bad = append(bad, ck)
		}
		out = append(out, ck)
	}
	if bad != nil {
		return out, &VerifyError{Bad: bad}
	}
	return out, nil
}

func firstDiff(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

// Result is a verified demo run: the machine's result, every check, and the tag tiles the
// machine moved (for WriteTileMap).
type Result struct {
	Run        *sim.Result
	Checks     []Check
	TagT, TagS []byte
}

// Run runs the demo on a new machine of cfg (cfg.Gen is the demo's; `tpbsim demo` also sets
// Trace and CheckUninit): the inputs loaded (Load), then RunOn.
func (d *Demo) Run(cfg sim.Config) (*Result, error) {
	cfg.Gen = d.Gen
	m, err := sim.New(cfg)
	if err != nil {
		return nil, err
	}
	if err := Load(m); err != nil {
		return nil, err
	}
	return d.RunOn(m)
}

// RunOn runs the program on m, whose inputs are loaded, and verifies every result. A result
// that differs is a *VerifyError returned with the Result; a failing run or read is the
// machine's error, with no Result.
func (d *Demo) RunOn(m *sim.Machine) (*Result, error) {
	res, err := m.Run(d.Program)
	if err != nil {
		return nil, err
	}
	ref, err := NewReference()
	if err != nil {
		return nil, err
	}
	checks, verr := Verify(m, ref)
	if checks == nil {
		return nil, verr
	}
	out := &Result{Run: res, Checks: checks}
	shape := []int{Channels, Elems}
	if out.TagT, err = m.ReadTensor(sbuf(OffTagT), shape, 2); err != nil {
		return nil, err
	}
	if out.TagS, err = m.ReadTensor(sbuf(OffTagS), shape, 2); err != nil {
		return nil, err
	}
	return out, verr
}

// File is one file of the exported demo: its name and its bytes.
type File struct {
	Name string
	Data []byte
}

// Files are the demo as files `tpbsim run` takes: the program for g (demo.tpb), its inputs
// (x.npy, tags.npy, sentinel.npy, ones.npy) and the references of the transposed and the
// reduced results (expect_transposed.npy as bf16 bits, expect_reduced.npy as fp32).
func Files(g isa.Generation) ([]File, error) {
	src, err := Source(g)
	if err != nil {
		return nil, err
	}
	ref, err := NewReference()
	if err != nil {
		return nil, err
	}
	x := Input()
	tags, sent, ones := fills()
	arr := func(name, dtype string, shape []int, data []byte) (File, error) {
		var b bytes.Buffer
		err := npy.Write(&b, &npy.Array{Dtype: dtype, Shape: shape, Data: data})
		return File{name, b.Bytes()}, err
	}
	shape := []int{Channels, Elems}
	out := []File{{"demo.tpb", []byte(src)}}
	for _, a := range []struct {
		name, dtype string
		shape       []int
		data        []byte
	}{
		{"x.npy", "f4", shape, lef32(flat(x[:])...)}, {"tags.npy", "u2", shape, le16(tags)}, {"sentinel.npy", "u2", shape, le16(sent)},
		{"ones.npy", "u2", shape, le16(ones)}, {"expect_transposed.npy", "u2", shape, le16(ref.T)},
		{"expect_reduced.npy", "f4", []int{Channels, 2}, lef32(flat(ref.R[:])...)},
	} {
		f, err := arr(a.name, a.dtype, a.shape, a.data)
		if err != nil {
			return nil, err
		}
		out = append(out, f)
	}
	return out, nil
}
