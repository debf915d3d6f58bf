package main

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/spf13/cobra"

	"github.com/tpbsim/tpbsim/asm"
	"github.com/tpbsim/tpbsim/internal/npy"
	"github.com/tpbsim/tpbsim/isa"
	"github.com/tpbsim/tpbsim/num"
	"github.com/tpbsim/tpbsim/sim"
	"github.com/tpbsim/tpbsim/ucode"
)

type runFlags struct {
	gen         string
	loads       []string
	dumps       []string
	trace       string
	checkUninit bool
	tables      string
	hbmCap      string
	maxElements uint64
	quiet       bool
	genSet      bool
	butterfly   bool
}

func newRunCmd(stdout, stderr io.Writer) *cobra.Command {
	var f runFlags
	cmd := &cobra.Command{
		Use:   "run PROGRAM",
		Short: "Run a program of engine queues on the machine model",
		Long: `Run a program on a model NeuronCore: engine queues DVE, POOL, ACT and SP run concurrently,
synchronised by the 256 semaphores of their instructions' EVENTS (wait before issue; update after
the reads or on completion). Every instruction is checked before anything runs; a failing
instruction changes no memory and no semaphore; a deadlock stops the run with each engine's state.

PROGRAM is assembly text (one file may hold several engine queues, ".engine DVE" sections),
JSON, or a raw .bin of 64-byte words (a bare instruction list runs each instruction on the queue
of the engine that executes its opcode).

Addresses: sbuf:P:OFF, psum:P:OFF (partition, byte offset), hbm:ADDR, or a raw on-chip number.
--load ADDR=FILE.npy[:DTYPE]      in SBUF/PSUM the first axis is the partition axis; bf16/fp8 travel
                                  as raw uint16/uint8 bits, or as float32 converted with :DTYPE
--dump ADDR=SHAPE:DTYPE:FILE.npy  SHAPE like 128x64; written with the dtype's numpy type where one
                                  exists (float32, float16, ints), raw bits otherwise (bf16 -> uint16)

Outputs (dumps, trace) are written whole or not at all, and not at all when the run fails.
Exit status: 0 success; 1 a rule is broken (invalid instruction, bounds, uninitialised read,
deadlock); 2 usage or I/O error.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			f.genSet = cmd.Flags().Changed("gen")
			return runProgram(args[0], &f, stdout, stderr)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.gen, "gen", isa.DefaultGeneration.String(), "hardware generation: SUNDA, CAYMAN, MARIANA, MARIANA_PLUS or MAVERICK")
	fl.StringArrayVar(&f.loads, "load", nil, "ADDR=FILE.npy[:DTYPE]: load an array before the run (repeatable)")
	fl.StringArrayVar(&f.dumps, "dump", nil, "ADDR=SHAPE:DTYPE:FILE.npy: write memory to a .npy after the run (repeatable)")
	fl.StringVar(&f.trace, "trace", "", "write a Chrome/Perfetto trace-event JSON file (open in ui.perfetto.dev)")
	fl.BoolVar(&f.checkUninit, "check-uninit", false, "report reads of never-written memory as errors")
	fl.StringVar(&f.tables, "tables", "", "DVE microcode table set (folder): annotate DVE instructions with control rows, block class, depth")
	fl.StringVar(&f.hbmCap, "hbm-cap", "", "cap on HBM bytes the run may allocate (default 4 GiB; suffixes K, M, G)")
	fl.Uint64Var(&f.maxElements, "max-elements", sim.DefaultMaxElements, "largest element count per channel one instruction may stream")
	fl.BoolVar(&f.quiet, "quiet", false, "do not print the summary table")
	fl.BoolVar(&f.butterfly, "butterfly", false, "run transposes on the faithful 5-stage dsel butterfly model (slower; same bytes)")
	return cmd
}

// output is a file to write after a successful run.
type output struct {
	path string
	data []byte
}

func runProgram(path string, f *runFlags, stdout, stderr io.Writer) error {
	g, err := isa.ParseGeneration(f.gen)
	if err != nil {
		return ioErr(err)
	}
	cfg := sim.Config{Gen: g, CheckUninit: f.checkUninit, Trace: f.trace != "", MaxElements: f.maxElements, Butterfly: f.butterfly}
	if f.hbmCap != "" {
		if cfg.HBMCapBytes, err = parseSize(f.hbmCap); err != nil {
			return ioErr(fmt.Errorf("--hbm-cap: %v", err))
		}
	}
	prog, g, err := loadProgram(path, g, f.genSet)
	if err != nil {
		return err
	}
	cfg.Gen = g
	var tables *ucode.TableSet
	if f.tables != "" {
		if tables, err = loadTables(f.tables, g, stderr); err != nil {
			return err
		}
		cfg.Annotate = annotator(tables)
		var ops []uint8
		for _, op := range prog.Opcodes(isa.EngineDVE) {
			ops = append(ops, uint8(op))
		}
		for _, op := range tables.MissingOpcodes(ops) {
			fmt.Fprintf(stderr, "tpbsim: warning: the microcode table set %q lacks opcode %v (0x%02x), which the DVE queue uses\n",
				tables.Name, isa.Opcode(op), op)
		}
	}
	m, err := sim.New(cfg)
	if err != nil {
		return ioErr(err)
	}
	for _, l := range f.loads {
		if err := loadArg(m, g, l); err != nil {
			return ioErr(fmt.Errorf("--load %s: %w", l, err))
		}
	}
	dumps := make([]dumpSpec, 0, len(f.dumps))
	for _, d := range f.dumps {
		ds, err := parseDump(d, g)
		if err != nil {
			return ioErr(fmt.Errorf("--dump %s: %w", d, err))
		}
		dumps = append(dumps, ds)
	}
	res, err := m.Run(prog)
	if err != nil {
		return ruleErr(err)
	}
	var (
		outs  []output
		notes []string
	)
	for _, d := range dumps {
		data, err := d.render(m)
		if err != nil {
			return ruleErr(fmt.Errorf("--dump %s: %w", d.arg, err))
		}
		outs = append(outs, output{d.file, data})
		if typ, own := npyTypeOf(d.kind); !own {
			notes = append(notes, fmt.Sprintf("%s holds %v as raw %s bits (numpy has no %v)", d.file, d.kind, npyName[typ], d.kind))
		}
	}
	if f.trace != "" {
		var b bytes.Buffer
		if err := res.Trace.Write(&b); err != nil {
			return ioErr(err)
		}
		outs = append(outs, output{f.trace, b.Bytes()})
	}
	if err := writeAll(outs); err != nil {
		return ioErr(err)
	}
	if !f.quiet {
		fmt.Fprintf(stdout, "%s: %d instructions on %v, finished\n", path, prog.Len(), g)
		res.WriteSummary(stdout)
		for _, o := range outs {
			fmt.Fprintf(stdout, "wrote %s (%d bytes)\n", o.path, len(o.data))
		}
		for _, n := range notes {
			fmt.Fprintln(stdout, "note:", n)
		}
	}
	return nil
}

// loadProgram reads PROGRAM: a raw .bin of 64-byte words, or assembly text / JSON.
func loadProgram(path string, g isa.Generation, genSet bool) (*sim.Program, isa.Generation, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, g, ioErr(err)
	}
	if isBinary(path, data) {
		insts, err := isa.DecodeStream(data)
		if err != nil {
			return nil, g, ioErr(fmt.Errorf("%s: %w", path, err))
		}
		p, err := sim.FromList(path, insts, nil)
		if err != nil {
			return nil, g, ruleErr(err)
		}
		return p, g, nil
	}
	p, g, err := parseSource(path, data, g, genSet)
	if err != nil {
		return nil, g, ioErr(err)
	}
	return p, g, nil
}

// isBinary: a .bin file, or any file that is not UTF-8 text or holds a NUL byte.
func isBinary(path string, data []byte) bool {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".bin":
		return true
	case ".s", ".asm", ".json", ".tpb":
		return false
	}
	return bytes.IndexByte(data, 0) >= 0 || !utf8.Valid(data)
}

func loadTables(dir string, g isa.Generation, stderr io.Writer) (*ucode.TableSet, error) {
	tg := ucode.TableGenFor(g)
	if tg == ucode.GenUnknown {
		return nil, ioErr(fmt.Errorf("--tables: %v has no DVE microcode table generation", g))
	}
	ts, err := ucode.Load([]string{dir}, "", ucode.GenUnknown)
	if err != nil {
		return nil, ioErr(fmt.Errorf("--tables: %w", err))
	}
	if ts.Gen != tg {
		fmt.Fprintf(stderr, "tpbsim: warning: table set %q is %v (%s) but %v uses %v tables\n", ts.Name, ts.Gen, ts.GenReason, g, tg)
	}
	return ts, nil
}

func annotator(ts *ucode.TableSet) func(isa.Opcode) (sim.Annotation, bool) {
	return func(op isa.Opcode) (sim.Annotation, bool) {
		r, ok := ts.Lookup(uint8(op))
		if !ok {
			return sim.Annotation{"ucode": "opcode missing from table set " + ts.Name}, true
		}
		a := sim.Annotation{"ucode_fast_row": r.FastRow}
		if r.SlowRow != 0 {
			a["ucode_slow_row"] = r.SlowRow
		}
		if r.Block != nil {
			a[sim.AnnotationClassKey] = r.Class().String()
			a["ucode_depth"] = r.Depth()
		}
		if len(r.Notes) > 0 {
			a["ucode_notes"] = strings.Join(r.Notes, "; ")
		}
		return a, true
	}
}

func parseSize(s string) (uint64, error) {
	t := strings.ToUpper(strings.TrimSpace(s))
	mul := uint64(1)
	for suf, m := range map[string]uint64{"K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40} {
		if strings.HasSuffix(t, suf+"IB") || strings.HasSuffix(t, suf) {
			t = strings.TrimSuffix(strings.TrimSuffix(t, "IB"), suf)
			mul = m
			break
		}
	}
	v, err := isa.ParseNumber(t)
	if err != nil || v == 0 || v*mul/mul != v {
		return 0, fmt.Errorf("bad size %q", s)
	}
	return v * mul, nil
}

// npyKind maps a .npy element type to the element kind of its bytes.
var npyKind = map[string]num.Kind{
	"b1": num.UINT8, "u1": num.UINT8, "i1": num.INT8, "u2": num.UINT16, "i2": num.INT16,
	"u4": num.UINT32, "i4": num.INT32, "u8": num.UINT64, "i8": num.INT64, "f2": num.FP16, "f4": num.FP32,
}

var npyName = map[string]string{"u1": "uint8", "u2": "uint16", "u4": "uint32", "u8": "uint64"}

// npyTypeOf is the numpy type a kind is written as: its own where numpy has it, else the
// unsigned integer of its width (raw bits). ok false when it is raw bits.
func npyTypeOf(k num.Kind) (string, bool) {
	switch k {
	case num.UINT8:
		return "u1", true
	case num.INT8:
		return "i1", true
	case num.UINT16:
		return "u2", true
	case num.INT16:
		return "i2", true
	case num.UINT32:
		return "u4", true
	case num.INT32:
		return "i4", true
	case num.UINT64:
		return "u8", true
	case num.INT64:
		return "i8", true
	case num.FP16:
		return "f2", true
	case num.FP32, num.FP32R:
		return "f4", true
	}
	switch k.Size() {
	case 1:
		return "u1", false
	case 2:
		return "u2", false
	case 4:
		return "u4", false
	case 8:
		return "u8", false
	}
	return "", false
}

func readNPY(path string) (*npy.Array, error) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	return npy.Read(fh)
}

// loadArg applies one --load ADDR=FILE.npy[:DTYPE].
func loadArg(m *sim.Machine, g isa.Generation, arg string) error {
	addrS, rest, ok := strings.Cut(arg, "=")
	if !ok || rest == "" {
		return errors.New("want ADDR=FILE.npy[:DTYPE]")
	}
	at, err := isa.ParseAddress(addrS, g)
	if err != nil {
		return err
	}
	file, kind := rest, num.INVALID
	if i := strings.LastIndexByte(rest, ':'); i > 0 {
		if k, err := num.ParseKind(rest[i+1:]); err == nil {
			file, kind = rest[:i], k
		}
	}
	a, err := readNPY(file)
	if err != nil {
		return err
	}
	data, size := a.Data, npy.ItemSize(a.Dtype)
	if kind != num.INVALID {
		if data, err = convertIn(a, kind); err != nil {
			return err
		}
		size = kind.Size()
	}
	shape := a.Shape
	if len(shape) == 0 {
		shape = []int{1}
	}
	return m.WriteTensor(at, shape, size, data)
}

// convertIn turns the array's elements into elements of k: raw bits when the file's type is k's
// own numpy type or the unsigned integer of k's width, a value conversion through FP32 otherwise.
func convertIn(a *npy.Array, k num.Kind) ([]byte, error) {
	if !k.Numeric() || k.Size() == 0 {
		return nil, fmt.Errorf("element type %v cannot be loaded", k)
	}
	own, _ := npyTypeOf(k)
	if a.Dtype == own {
		return a.Data, nil
	}
	n := a.Len()
	out := make([]byte, n*k.Size())
	if a.Dtype == "f8" {
		for i := 0; i < n; i++ {
			num.StoreF64(k, out[i*k.Size():], float64frombits(a.Data[i*8:]))
		}
		return out, nil
	}
	sk, ok := npyKind[a.Dtype]
	if !ok {
		return nil, fmt.Errorf("cannot convert %s to %v", a.Dtype, k)
	}
	if err := num.ConvertSlice(out, k, a.Data, sk, n); err != nil {
		return nil, err
	}
	return out, nil
}

type dumpSpec struct {
	arg   string
	at    isa.Location
	shape []int
	kind  num.Kind
	file  string
}

// parseDump reads ADDR=SHAPE:DTYPE:FILE.npy.
func parseDump(arg string, g isa.Generation) (dumpSpec, error) {
	d := dumpSpec{arg: arg}
	addrS, rest, ok := strings.Cut(arg, "=")
	parts := strings.SplitN(rest, ":", 3)
	if !ok || len(parts) != 3 || parts[2] == "" {
		return d, errors.New("want ADDR=SHAPE:DTYPE:FILE.npy")
	}
	var err error
	if d.at, err = isa.ParseAddress(addrS, g); err != nil {
		return d, err
	}
	for _, s := range strings.FieldsFunc(parts[0], func(r rune) bool { return r == 'x' || r == 'X' || r == ',' || r == '*' }) {
		v, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || v < 0 {
			return d, fmt.Errorf("bad shape %q (want e.g. 128x64)", parts[0])
		}
		d.shape = append(d.shape, v)
	}
	if len(d.shape) == 0 {
		return d, fmt.Errorf("bad shape %q (want e.g. 128x64)", parts[0])
	}
	if d.kind, err = num.ParseKind(parts[1]); err != nil {
		return d, err
	}
	if d.kind.Size() == 0 || !d.kind.Numeric() {
		return d, fmt.Errorf("element type %v cannot be dumped", d.kind)
	}
	d.file = parts[2]
	return d, nil
}

func (d dumpSpec) render(m *sim.Machine) ([]byte, error) {
	data, err := m.ReadTensor(d.at, d.shape, d.kind.Size())
	if err != nil {
		return nil, err
	}
	typ, _ := npyTypeOf(d.kind)
	var b bytes.Buffer
	if err := npy.Write(&b, &npy.Array{Dtype: typ, Shape: d.shape, Data: data}); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// writeAll writes every output to a temporary file beside it, then renames them all: either
// every output appears whole, or (on an error before the renames) none does.
func writeAll(outs []output) error {
	var tmps []string
	cleanup := func() {
		for _, t := range tmps {
			os.Remove(t)
		}
	}
	for _, o := range outs {
		fh, err := os.CreateTemp(filepath.Dir(o.path), "."+filepath.Base(o.path)+".tmp*")
		if err != nil {
			cleanup()
			return err
		}
		tmps = append(tmps, fh.Name())
		_, werr := fh.Write(o.data)
		merr := fh.Chmod(0o644) // CreateTemp makes 0600; outputs are ordinary files
		cerr := fh.Close()
		if werr != nil || merr != nil || cerr != nil {
			cleanup()
			return errors.Join(werr, merr, cerr)
		}
	}
	for i, o := range outs {
		if err := os.Rename(tmps[i], o.path); err != nil {
			cleanup()
			return err
		}
	}
	return nil
}

func float64frombits(b []byte) float64 {
	return math.Float64frombits(binary.LittleEndian.Uint64(b))
}

// parseSource reads an assembly or JSON program. A `.gen` line in the file must agree with
// an explicit --gen; without --gen it sets the generation.
func parseSource(path string, data []byte, g isa.Generation, genSet bool) (*sim.Program, isa.Generation, error) {
	var (
		ap  *asm.Program
		err error
	)
	trim := bytes.TrimLeft(data, " \t\r\n")
	if strings.EqualFold(filepath.Ext(path), ".json") || (len(trim) > 0 && (trim[0] == '{' || trim[0] == '[')) {
		ap, err = asm.ParseJSON(path, data, g)
	} else {
		ap, err = asm.ParseProgram(path, data, g)
	}
	if err != nil {
		return nil, g, err
	}
	if ap.Gen != g {
		if genSet {
			return nil, g, fmt.Errorf("%s says .gen %v but --gen is %v", path, ap.Gen, g)
		}
		g = ap.Gen
	}
	return fromAsm(path, ap), g, nil
}

// fromAsm turns an assembled program into machine queues, keeping each instruction's line.
func fromAsm(path string, ap *asm.Program) *sim.Program {
	p := &sim.Program{File: path}
	for _, e := range ap.Engines {
		q := sim.Queue{Engine: e}
		for i, it := range ap.Queues[e] {
			q.Insts = append(q.Insts, sim.Instr{Inst: it.Inst, Index: i, Offset: -1, Line: it.Line})
		}
		p.Queues = append(p.Queues, q)
	}
	return p
}
