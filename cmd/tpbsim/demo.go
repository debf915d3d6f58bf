package main

import (
	"bytes"
	_ "embed"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/tpbsim/tpbsim/asm"
	"github.com/tpbsim/tpbsim/internal/npy"
	"github.com/tpbsim/tpbsim/isa"
	"github.com/tpbsim/tpbsim/sim"
)

// The demo: the embedded program demo_program.tpb on four engine queues synchronised by
// semaphores — a DMA from HBM fanned out over DMA engines, a cast on POOL, StreamTranspose,
// LOAD_MASK_SELECT + StreamShuffle and TransposeTensorReduce on the DVE, a cast on ACT. Its results
// are checked against a reference written here from the semantics of DESIGN.md §4 (not by
// calling the executor), and the 32x32 tile mapping is drawn from a tagged tile the machine
// moved with the same instructions.

const (
	demoChannels = 64 // two 32-channel groups
	demoElems    = 64 // two 32-element tiles per channel
	demoDefTrace = "tpbsim-demo-trace.json"

	// per-partition byte offsets of the demo's tensors
	hbmX     = 0x10000 // fp32 input, row-major in HBM
	offX     = 0x0000  // fp32 input, after the DMA
	offB     = 0x0400  // bf16 = CAST(X)
	offT     = 0x0800  // bf16 = STREAM_TRANSPOSE(B)
	offS     = 0x0C00  // bf16 = STREAM_SHUFFLE(T), pre-filled with a sentinel
	offF     = 0x1000  // fp32 = CAST(S)
	offR     = 0x1400  // fp32 = TRANSPOSE_TENSOR_REDUCE add over X (2 per channel)
	offTag   = 0x1800  // uint16 tags (channel<<8 | element)
	offTagT  = 0x1C00  // tags transposed
	offTagS  = 0x2000  // tags transposed then shuffled, pre-filled with 0xFFFF
	sentinel = 0xBF00  // bf16 -0.5: what an untouched (mask 0xFF) shuffle channel keeps
)

// demoMask is the LOAD_MASK_SELECT lane map of demo_program.tpb: output channel i of each
// 32-group takes input channel (5i+3) mod 32; entry 7 is 0xFF (leave output channel 7 untouched).
func demoMask() [32]uint8 {
	var m [32]uint8
	for i := range m {
		m[i] = uint8((5*i + 3) % 32)
	}
	m[7] = 0xFF
	return m
}

//go:embed demo_program.tpb
var demoProgramText string

// demoSource is the demo program for generation g: the embedded text with the SBUF partition
// stride (in fp32 elements) filled in.
// It names its generation in a .gen line before the first instruction, so the text run or
// assembled elsewhere keeps the addresses it was written for (without it a MAVERICK program
// would be read as CAYMAN's).
func demoSource(g isa.Generation) string {
	src := strings.ReplaceAll(demoProgramText, "{{STRIDE}}", fmt.Sprint(g.Geometry().StateBufPartitionSize/4))
	if i := strings.Index(src, "\n.engine "); i >= 0 {
		src = src[:i+1] + ".gen " + g.String() + "\n\n" + src[i+1:]
	}
	return src
}

// demoStep is one instruction of the demo with the comment line above it.
type demoStep struct {
	engine isa.Engine
	index  int
	op     isa.Opcode
	what   string
}

// demoProgram assembles the demo program and lists its steps in file order.
func demoProgram(g isa.Generation) (*sim.Program, []demoStep, error) {
	src := demoSource(g)
	ap, err := asm.ParseProgram("demo_program.tpb", []byte(src), g)
	if err != nil {
		return nil, nil, err
	}
	lines := strings.Split(src, "\n")
	idx := map[isa.Engine]int{}
	var steps []demoStep
	for _, it := range ap.Items {
		var what []string // the comment lines just above the instruction
		for l := it.Line - 2; l >= 0 && strings.HasPrefix(strings.TrimSpace(lines[l]), "#"); l-- {
			what = append([]string{strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(lines[l]), "#"))}, what...)
		}
		steps = append(steps, demoStep{it.Engine, idx[it.Engine], it.Inst.Hdr().Opcode, strings.Join(what, " ")})
		idx[it.Engine]++
	}
	return fromAsm("demo_program.tpb", ap), steps, nil
}

// demoInput is X[c][e] = c + e/64 (fp32; the bf16 cast must round most of them) and the tags.
func demoInput() (x [demoChannels][demoElems]float32, tags [demoChannels][demoElems]uint16) {
	for c := 0; c < demoChannels; c++ {
		for e := 0; e < demoElems; e++ {
			x[c][e] = float32(c) + float32(e)/64
			tags[c][e] = uint16(c)<<8 | uint16(e)
		}
	}
	return
}

// ---- the independent reference (DESIGN.md §4), written without the dve or num packages ----

// refBF16 rounds an fp32 to bf16, to nearest even (finite inputs).
func refBF16(f float32) uint16 {
	b := math.Float32bits(f)
	return uint16((b + 0x7FFF + (b>>16)&1) >> 16)
}

// refTranspose: O[32g+i][32t+j] = S[32g+j][32t+i].
func refTranspose[T any](s [demoChannels][demoElems]T) (o [demoChannels][demoElems]T) {
	for g := 0; g < demoChannels/32; g++ {
		for t := 0; t < demoElems/32; t++ {
			for i := 0; i < 32; i++ {
				for j := 0; j < 32; j++ {
					o[32*g+i][32*t+j] = s[32*g+j][32*t+i]
				}
			}
		}
	}
	return
}

// refShuffle: output channel i of each 32-group takes input channel mask[i]; 0xFF keeps old.
func refShuffle[T any](s, old [demoChannels][demoElems]T, mask [32]uint8) [demoChannels][demoElems]T {
	o := old
	for c := 0; c < demoChannels; c++ {
		if m := mask[c%32]; m != 0xFF {
			o[c] = s[c/32*32+int(m)]
		}
	}
	return o
}

type demoRef struct {
	b, t, s [demoChannels][demoElems]uint16
	f       [demoChannels][demoElems]float32
	r       [demoChannels][2]float32
	tagT    [demoChannels][demoElems]uint16
	tagS    [demoChannels][demoElems]uint16
	rounded int
}

func demoReference() *demoRef {
	x, tags := demoInput()
	r := &demoRef{}
	for c := range x {
		for e := range x[c] {
			r.b[c][e] = refBF16(x[c][e])
			if math.Float32frombits(uint32(r.b[c][e])<<16) != x[c][e] {
				r.rounded++
			}
		}
	}
	mask := demoMask()
	var sent, ones [demoChannels][demoElems]uint16
	for c := range sent {
		for e := range sent[c] {
			sent[c][e], ones[c][e] = sentinel, 0xFFFF
		}
	}
	r.t = refTranspose(r.b)
	r.s = refShuffle(r.t, sent, mask)
	r.tagT = refTranspose(tags)
	r.tagS = refShuffle(r.tagT, ones, mask)
	for c := range r.s {
		for e := range r.s[c] {
			r.f[c][e] = math.Float32frombits(uint32(r.s[c][e]) << 16)
		}
	}
	st := refTranspose(r.s)
	for c := range st {
		for k := 0; k < 2; k++ {
			var acc float32
			for i := 0; i < 32; i++ {
				acc += math.Float32frombits(uint32(st[c][32*k+i]) << 16)
			}
			r.r[c][k] = acc
		}
	}
	return r
}

func le16[T ~[demoElems]uint16](rows []T) []byte {
	var b bytes.Buffer
	for _, r := range rows {
		binary.Write(&b, binary.LittleEndian, r[:])
	}
	return b.Bytes()
}

func lef32(vals ...float32) []byte {
	b := make([]byte, 4*len(vals))
	for i, v := range vals {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(v))
	}
	return b
}

func flat[T any, R ~[demoElems]T | ~[2]T](rows []R) []T {
	var out []T
	for _, r := range rows {
		switch v := any(r).(type) {
		case [demoElems]T:
			out = append(out, v[:]...)
		case [2]T:
			out = append(out, v[:]...)
		}
	}
	return out
}

// ---- the command ----

func newDemoCmd(stdout, stderr io.Writer) *cobra.Command {
	var (
		gen       string
		tracef    string
		noTrace   bool
		printProg bool
		export    string
		racesf    string
		tf        timingFlags
	)
	cmd := &cobra.Command{
		Use:   "demo",
		Short: "Run the built-in multi-engine program, verify it, and show what moved where",
		Long: `Run an embedded program on four engine queues synchronised by semaphores:

  SP    DMAMEMCPY HBM -> SBUF over up to 4 DMA engines      they add 4 to sem[4]
  POOL  CAST fp32 -> bf16 (waits sem[4] >= 4)               then sem[1] += 1
  DVE   LOAD_MASK_SELECT, STREAM_TRANSPOSE (waits sem[1]), STREAM_SHUFFLE (then sem[2] += 1),
        TRANSPOSE_TENSOR_REDUCE add
  ACT   CAST bf16 -> fp32 (waits sem[2])                    then sem[3] += 1

on 64 channels x 64 elements (two 32-channel groups, two 32-element tiles), verify every result
against an independent reference, draw the 32x32 tile mapping, print the per-engine summary and
write a Chrome/Perfetto trace (open it in ui.perfetto.dev). --print-program prints the program
as assembly text for tpbsim run.

Exit status: 0 verified; 1 a result differs from the reference or the run failed; 2 I/O error.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			g, err := isa.ParseGeneration(gen)
			if err != nil {
				return ioErr(err)
			}
			if printProg {
				fmt.Fprint(stdout, demoSource(g))
				return nil
			}
			if export != "" {
				return exportDemo(g, export, stdout)
			}
			races, err := parseRaces(racesf)
			if err != nil {
				return err
			}
			if noTrace {
				tracef = ""
			}
			report := stdout
			outs := tf.outFlags()
			if tracef != "" {
				outs = append(outs, outFlag{"--trace", tracef})
				if tracef == stdoutPath {
					report = stderr // stdout carries the trace
				}
			}
			if err := checkOutputs(outs...); err != nil {
				return err
			}
			if sumOut, err := tf.toStdout(tracef); err != nil {
				return err
			} else if sumOut {
				report = stderr // stdout carries the summary
			}
			return runDemo(g, tracef, races, &tf, report, stdout, stderr)
		},
	}
	cmd.Flags().StringVar(&gen, "gen", isa.DefaultGeneration.String(), "hardware generation")
	cmd.Flags().StringVar(&tracef, "trace", demoDefTrace, "trace file to write (- for standard output; the report then goes to stderr)")
	cmd.Flags().BoolVar(&noTrace, "no-trace", false, "do not write a trace file")
	cmd.Flags().StringVar(&racesf, "races", "error", racesHelp)
	tf.register(cmd.Flags())
	cmd.Flags().BoolVar(&printProg, "print-program", false, "print the demo program (assembly text) and exit")
	cmd.Flags().StringVar(&export, "export", "", "write the program and its input arrays (.npy) to this folder, print the tpbsim run command, and exit")
	// Flags that contradict each other are a usage error: --print-program used to drop --export
	// silently, and --no-trace a --trace FILE the user asked for.
	for _, pair := range [][2]string{{"print-program", "export"}, {"trace", "no-trace"}, {"print-program", "trace"}, {"export", "trace"}} {
		cmd.MarkFlagsMutuallyExclusive(pair[0], pair[1])
	}
	return cmd
}

// demoFills are the demo's inputs besides X: the tags and the pre-filled shuffle destinations.
func demoFills() (tags, sent, ones [demoChannels][demoElems]uint16) {
	_, tags = demoInput()
	for c := range sent {
		for e := range sent[c] {
			sent[c][e], ones[c][e] = sentinel, 0xFFFF
		}
	}
	return
}

// exportDemo writes the demo as files tpbsim run takes, and prints the command line.
func exportDemo(g isa.Generation, dir string, w io.Writer) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return ioErr(fmt.Errorf("--export %s: %w", dir, err))
	}
	x, _ := demoInput()
	tags, sent, ones := demoFills()
	shape := []int{demoChannels, demoElems}
	arr := func(dtype string, data []byte) []byte {
		var b bytes.Buffer
		npy.Write(&b, &npy.Array{Dtype: dtype, Shape: shape, Data: data})
		return b.Bytes()
	}
	j := func(name string) string { return filepath.Join(dir, name) }
	ref := demoReference()
	outs := []output{
		{j("demo.tpb"), []byte(demoSource(g))},
		{j("x.npy"), arr("f4", lef32(flat[float32](x[:])...))},
		{j("tags.npy"), arr("u2", le16(tags[:]))},
		{j("sentinel.npy"), arr("u2", le16(sent[:]))},
		{j("ones.npy"), arr("u2", le16(ones[:]))},
		{j("expect_transposed.npy"), arr("u2", le16(ref.t[:]))},
	}
	var rb bytes.Buffer
	npy.Write(&rb, &npy.Array{Dtype: "f4", Shape: []int{demoChannels, 2}, Data: lef32(flat[float32](ref.r[:])...)})
	outs = append(outs, output{j("expect_reduced.npy"), rb.Bytes()})
	if err := writeOutputs(outs, w); err != nil {
		return ioErr(fmt.Errorf("--export %s: %w", dir, err))
	}
	fmt.Fprintf(w, "wrote %s, x.npy, tags.npy, sentinel.npy, ones.npy and the references expect_transposed.npy (bf16 bits),\n", j("demo.tpb"))
	fmt.Fprintf(w, "expect_reduced.npy (fp32); run the demo program on its data, checking both results, with:\n\n")
	fmt.Fprintf(w, "  tpbsim run %s --check-uninit \\\n", j("demo.tpb"))
	fmt.Fprintf(w, "    --load hbm:0x%x=%s \\\n", hbmX, j("x.npy"))
	fmt.Fprintf(w, "    --load sbuf:0:0x%x=%s --load sbuf:0:0x%x=%s --load sbuf:0:0x%x=%s \\\n",
		offTag, j("tags.npy"), offS, j("sentinel.npy"), offTagS, j("ones.npy"))
	fmt.Fprintf(w, "    --expect sbuf:0:0x%x=64x64:bf16:%s --expect sbuf:0:0x%x=64x2:fp32:%s \\\n",
		offT, j("expect_transposed.npy"), offR, j("expect_reduced.npy"))
	fmt.Fprintf(w, "    --dump sbuf:0:0x%x=64x64:bf16:%s:float32 --trace %s\n", offT, j("transposed.npy"), j("trace.json"))
	return nil
}

// runDemo runs the demo, printing the report to w; a trace path "-" writes the trace to stdout.
func runDemo(g isa.Generation, tracePath string, races sim.RaceMode, tf *timingFlags, w, stdout, stderr io.Writer) error {
	t0 := time.Now()
	prog, steps, err := demoProgram(g)
	if err != nil {
		return ioErr(fmt.Errorf("the embedded demo program: %w", err))
	}
	tt, err := tf.table(g)
	if err != nil {
		return err
	}
	m, err := sim.New(sim.Config{Gen: g, Trace: true, CheckUninit: true, Races: races, Timing: tt})
	if err != nil {
		return ioErr(err)
	}
	x, _ := demoInput()
	tags, sent, ones := demoFills()
	at := func(off uint64) isa.Location { return isa.Location{Space: isa.SpaceSBUF, Offset: off} }
	shape := []int{demoChannels, demoElems}
	for _, l := range []struct {
		off  uint64
		size int
		data []byte
	}{{offTag, 2, le16(tags[:])}, {offS, 2, le16(sent[:])}, {offTagS, 2, le16(ones[:])}} {
		if err := m.WriteTensor(at(l.off), shape, l.size, l.data); err != nil {
			return ruleErr(err)
		}
	}
	if err := m.WriteTensor(isa.Location{Space: isa.SpaceHBM, Offset: hbmX}, shape, 4, lef32(flat[float32](x[:])...)); err != nil {
		return ruleErr(err)
	}
	fmt.Fprintf(w, "tpbsim demo: %d channels x %d elements on %v, four engine queues synchronised by semaphores\n", demoChannels, demoElems, g)
	fmt.Fprintf(w, "(the program: tpbsim demo --print-program)\n\n")
	for _, s := range steps {
		fmt.Fprintf(w, "  %-4s %d  %-32s %s\n", s.engine, s.index, s.op, s.what)
	}
	res, err := m.Run(prog)
	if err != nil {
		return ruleErr(err)
	}
	printRaces(stderr, res.Races)
	ref := demoReference()
	fmt.Fprintf(w, "\nresults, each checked against an independent reference:\n")
	checks := []struct {
		name string
		off  uint64
		size int
		cols int
		want []byte
	}{
		{"DMAMEMCPY HBM -> SBUF fp32", offX, 4, demoElems, lef32(flat[float32](x[:])...)},
		{fmt.Sprintf("CAST fp32 -> bf16 (%d of %d values rounded)", ref.rounded, demoChannels*demoElems), offB, 2, demoElems, le16(ref.b[:])},
		{"STREAM_TRANSPOSE bf16", offT, 2, demoElems, le16(ref.t[:])},
		{"LOAD_MASK_SELECT + STREAM_SHUFFLE bf16", offS, 2, demoElems, le16(ref.s[:])},
		{"CAST bf16 -> fp32", offF, 4, demoElems, lef32(flat[float32](ref.f[:])...)},
		{"TRANSPOSE_TENSOR_REDUCE add -> fp32", offR, 4, 2, lef32(flat[float32](ref.r[:])...)},
		{"STREAM_TRANSPOSE uint16 tags", offTagT, 2, demoElems, le16(ref.tagT[:])},
		{"STREAM_SHUFFLE uint16 tags", offTagS, 2, demoElems, le16(ref.tagS[:])},
	}
	var bad []string
	for _, c := range checks {
		got, err := m.ReadTensor(at(c.off), []int{demoChannels, c.cols}, c.size)
		if err != nil {
			return ruleErr(err)
		}
		status := "ok"
		if !bytes.Equal(got, c.want) {
			i := firstDiff(got, c.want) / c.size
			status = fmt.Sprintf("MISMATCH at channel %d element %d", i/c.cols, i%c.cols)
			bad = append(bad, c.name+": "+status)
		}
		fmt.Fprintf(w, "  %-48s %dx%d at sbuf:0:0x%04x  %s\n", c.name, demoChannels, c.cols, c.off, status)
	}
	tagT, _ := m.ReadTensor(at(offTagT), shape, 2)
	tagS, _ := m.ReadTensor(at(offTagS), shape, 2)
	fmt.Fprintln(w)
	drawTiles(w, [2]string{"after STREAM_TRANSPOSE", "then STREAM_SHUFFLE, lane map (5i+3) mod 32"}, [2][]byte{tagT, tagS})
	fmt.Fprintln(w)
	res.WriteSummary(w)
	if races != sim.RacesOff && len(res.Races) == 0 {
		fmt.Fprintln(w, "data races: none (every pair of accesses to common bytes is ordered by queue order or a semaphore)")
	}
	sum := res.Summary()
	outs := tf.files(sum)
	if tracePath != "" {
		var b bytes.Buffer
		if err := res.Trace.Write(&b); err != nil {
			return ioErr(err)
		}
		outs = append(outs, output{tracePath, b.Bytes()})
	}
	if err := writeOutputs(outs, stdout); err != nil {
		return ioErr(flagged(err, map[string]string{tracePath: "--trace " + tracePath, tf.summary: "--summary " + tf.summary}))
	}
	if err := tf.writeStdout(sum, stdout); err != nil {
		return err
	}
	if tracePath != "" {
		fmt.Fprintf(w, "trace: %s (%d slices; open it in ui.perfetto.dev)\n", outputName(tracePath), res.Trace.Len())
	}
	if bad != nil {
		return ruleErr(errors.New("demo results differ from the reference:\n  " + strings.Join(bad, "\n  ")))
	}
	fmt.Fprintf(w, "demo verified in %v\n", time.Since(t0).Round(time.Millisecond))
	return nil
}

func firstDiff(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

// drawTiles prints, for the first 32x32 tile, where each destination cell's data came from,
// read back from the tags the machine moved: per destination channel c, the source channel of
// each element e = 0..31 as a base-32 digit, and the source element (one number when the whole
// row came from one source element).
func drawTiles(w io.Writer, titles [2]string, tiles [2][]byte) {
	const digits = "0123456789abcdefghijklmnopqrstuv"
	fmt.Fprintf(w, "what moved where, first 32x32 tile: dst (channel c, element e) <- src (channel, element)\n")
	fmt.Fprintf(w, "base-32 digits (a=10 ... v=31); '.' = channel left untouched (mask entry 0xFF)\n\n")
	fmt.Fprintf(w, "       %-43s %s\n", titles[0], titles[1])
	fmt.Fprintf(w, "  dst  %-32s %-9s %-32s %s\n", "src channel for e = 0..31", "src elem", "src channel for e = 0..31", "src elem")
	for c := 0; c < 32; c++ {
		var line strings.Builder
		fmt.Fprintf(&line, "  c=%-2d", c)
		for k, tags := range tiles {
			var ch, el strings.Builder
			elems := map[int]bool{}
			for e := 0; e < 32; e++ {
				v := binary.LittleEndian.Uint16(tags[(c*demoElems+e)*2:])
				if v == 0xFFFF {
					ch.WriteByte('.')
					el.WriteByte('.')
					continue
				}
				ch.WriteByte(digit(digits, int(v>>8)))
				el.WriteByte(digit(digits, int(v&0xFF)))
				elems[int(v&0xFF)] = true
			}
			elem := el.String()
			if len(elems) == 1 {
				for e := range elems {
					elem = fmt.Sprint(e)
				}
			} else if len(elems) == 0 {
				elem = "-"
			}
			sep := ""
			if k == 0 {
				sep = " "
			}
			fmt.Fprintf(&line, " %s %-9s%s", ch.String(), elem, sep)
		}
		fmt.Fprintln(w, strings.TrimRight(line.String(), " "))
	}
}

func digit(d string, v int) byte {
	if v >= 0 && v < len(d) {
		return d[v]
	}
	return '?'
}
