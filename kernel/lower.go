package kernel

import (
	"errors"
	"fmt"
	"strings"

	"github.com/tpbsim/tpbsim/asm"
	"github.com/tpbsim/tpbsim/dge"
	"github.com/tpbsim/tpbsim/fault"
	"github.com/tpbsim/tpbsim/isa"
	"github.com/tpbsim/tpbsim/sim"
)

// Options configures a lowering.
type Options struct {
	// Gen is the target generation (required: an invalid one is an error).
	Gen isa.Generation
	// NKIVersion selects the NKI release whose constraint set applies ("" = the newest,
	// NewestNKIVersion).
	NKIVersion string
	// DeferCheck leaves the machine's check pipeline to the run: Lower does not check the
	// lowered words (sim.CheckProgram), and Run and RunOn return what Lower would have (the
	// call's *Error or a *LoweringError) when their machine's check, which Run makes anyway,
	// refuses one. A kernel lowered to be run is then checked once, not twice (the check plans
	// every DMA word with the DGE). The check is the running machine's: its limits
	// (sim.Config.MaxElements) apply, where Lower's own check is a default machine's.
	DeferCheck bool
}

// Inst is one lowered instruction: the queue that issues it, the word, and what it came from.
type Inst struct {
	Engine isa.Engine
	Inst   isa.Inst
	Call   int    // index of the kernel call it lowers; -1 for none
	Origin string // "file:line call" of that call, or what the lowering added it for
	Note   string // what the instruction does for the call, e.g. "transpose staging"

	slot   int
	id     int
	cseq   int // compute instructions: 1-based position among its queue's compute instructions
	did    int // DMA instructions: dense DMA number, else -1
	sigVal uint32
	signal bool // the instruction updates a semaphore others wait on
	issue  know // what is known complete when it issues
}

// IsDMA reports whether the instruction is a DMA instruction (its accesses are done by the DMA
// engines after its issue).
func (in *Inst) IsDMA() bool { return in.did >= 0 }

// Lowered is a kernel lowered for one generation: placements, the instruction list in emission
// order, and the memory the run must initialise first.
type Lowered struct {
	Kernel     *Kernel
	Gen        isa.Generation
	NKIVersion string
	// Tensors are the kernel's tensors followed by the staging tiles the lowering added.
	Tensors []Tensor
	// Placements[i] is where Tensors[i] lives (nil: never used).
	Placements []*Placement
	Insts      []*Inst
	// Zero lists the device address ranges the runner zeroes before the run (the sync
	// carriers' scratch words), as [addr, bytes] pairs.
	Zero [][2]uint64

	deferred bool // Options.DeferCheck: the words are checked by the run only
}

// Program is the lowered kernel as a machine program, queue by queue in emission order; each
// instruction's Origin names the NKI call it came from.
func (lw *Lowered) Program() *sim.Program {
	p := &sim.Program{File: lw.Kernel.Source}
	idx := map[isa.Engine]int{}
	for _, in := range lw.Insts {
		qi, ok := idx[in.Engine]
		if !ok {
			qi = len(p.Queues)
			idx[in.Engine] = qi
			p.Queues = append(p.Queues, sim.Queue{Engine: in.Engine})
		}
		q := &p.Queues[qi]
		origin := in.Origin
		if in.Note != "" {
			origin += ": " + in.Note // the machine's messages and trace say what the word does for the call
		}
		q.Insts = append(q.Insts, sim.Instr{Inst: in.Inst, Index: len(q.Insts), Offset: -1, Origin: origin})
	}
	return p
}

// Text is the lowered program as tpbsim assembly (`tpbsim run` executes it), each instruction
// after a comment naming the NKI call it came from; the data placement is in the header.
func (lw *Lowered) Text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "# kernel %s (%s), lowered by tpbsim for %v, NKI %s\n", lw.Kernel.Name, lw.Kernel.Source, lw.Gen, lw.NKIVersion)
	b.WriteString("# tensors:\n")
	for i, pl := range lw.Placements {
		if pl == nil {
			continue
		}
		t := &lw.Tensors[i]
		var roles []string
		if t.Kind == "input" {
			roles = append(roles, "input")
		}
		for k, o := range lw.Kernel.Outputs {
			if o == i {
				roles = append(roles, fmt.Sprintf("output %d", k))
			}
		}
		if roles == nil {
			roles = []string{"internal"}
		}
		role := strings.Join(roles, ", ")
		fmt.Fprintf(&b, "#   %-12s %v %s %s @ %s (%s)\n", t.Name, t.Shape, t.DType, t.Buffer, pl, role)
	}
	for _, z := range lw.Zero {
		fmt.Fprintf(&b, "#   sync scratch: %d bytes at %s, zeroed before the run\n", z[1], devAddrString(z[0], lw.Gen))
	}
	fmt.Fprintf(&b, ".gen %v\n", lw.Gen)
	cur := isa.EngineNone
	last := ""
	for _, in := range lw.Insts {
		if in.Engine != cur {
			cur = in.Engine
			fmt.Fprintf(&b, ".engine %v\n", cur)
			last = ""
		}
		if in.Origin != last || in.Note != "" {
			c := in.Origin
			if in.Note != "" {
				c += " (" + in.Note + ")"
			}
			fmt.Fprintf(&b, "# %s\n", c)
			last = in.Origin
		}
		line, err := asm.Format(isa.Encode(in.Inst), lw.Gen)
		if err != nil { // only a Lowered Lower did not make has an invalid generation
			line = "# " + err.Error()
		}
		b.WriteString(line)
		b.WriteByte('\n')
	}
	return b.String()
}

func devAddrString(a uint64, g isa.Generation) string {
	if a < isa.DMALocalBase {
		return fmt.Sprintf("hbm:0x%x", a)
	}
	if l, ok := isa.LocateOnChip(uint32(a-isa.DMALocalBase), g); ok {
		return l.String()
	}
	return fmt.Sprintf("0x%x", a)
}

// lowerer is the state of one Lower call.
type lowerer struct {
	k       *Kernel
	g       isa.Generation
	geo     isa.Geometry
	rules   *ruleSet
	tensors []Tensor
	pls     []*Placement
	sbuf    *chipAllocator
	psum    *chipAllocator
	hbmNext uint64
	out     []*Inst
	sy      syncState
	call    int // the call being lowered
	origin  string
	zero    [][2]uint64
	// scratch is the sync carriers' 8-byte words, per queue slot (on-chip addresses).
	scratch [4]uint32
	// mask is the shuffle mask last loaded on the DVE queue (nil: none).
	mask *[32]uint8
	// staged is an index vector a gather transpose staged for its dmaIndirect.
	staged *stagedIndex
}

// Lower allocates, lowers and synchronises kernel k for opt.Gen and checks every word with the
// machine's check pipeline (sim.CheckProgram): a word it refuses is a *LoweringError (with
// opt.DeferCheck the run makes that check, and refuses with the same errors). A kernel
// built in Go rather than parsed gets the form's checks first (Parse makes them), so any *Kernel
// is lowered or refused with an *Error.
func Lower(k *Kernel, opt Options) (*Lowered, error) {
	if opt.Gen.Check() != nil { // isa's rule and its violation's value and legal values, as every layer reports them
		v := (&isa.GenerationError{Gen: opt.Gen}).Violation()
		return nil, &Error{Kind: fault.ErrInvalid, Malformed: true, Arg: "gen", Rule: v.Rule, Msg: "generation " + v.Value, Legal: v.Legal}
	}
	if err := k.checkStructure(); err != nil {
		return nil, err
	}
	rs, err := rulesFor(opt.NKIVersion)
	if err != nil {
		return nil, err
	}
	l := &lowerer{k: k, g: opt.Gen, geo: opt.Gen.Geometry(), rules: rs}
	l.tensors = append([]Tensor(nil), k.Tensors...)
	if err := l.place(); err != nil {
		return nil, err
	}
	l.sy.init(l)
	for i := range k.Calls {
		c := &k.Calls[i]
		l.call = i
		l.origin = c.Loc + " " + c.name()
		l.sbuf.free(i)
		l.psum.free(i)
		if err := l.allocCall(i); err != nil {
			return nil, err
		}
		if err := l.lowerCall(c); err != nil {
			return nil, err
		}
	}
	lw := &Lowered{Kernel: k, Gen: l.g, NKIVersion: rs.version, Tensors: l.tensors, Placements: l.pls, Insts: l.out, Zero: l.zero, deferred: opt.DeferCheck}
	if lw.deferred {
		return lw, nil
	}
	if err := lw.selfCheck(); err != nil {
		return nil, err
	}
	return lw, nil
}

// Check is the check Lower makes unless Options.DeferCheck is set: the machine's check pipeline
// on the lowered program, for a default machine of the lowering's generation. It returns nil
// or what Lower would have returned: the call's *Error or a *LoweringError (or the
// *sim.ProgramError of a program refused for its settings). A caller that lowered with
// DeferCheck and stops before the run (its inputs or its machine's settings are refused) calls
// it to report what Lower would have reported first.
func (lw *Lowered) Check() error { return lw.selfCheck() }

// selfCheck runs the machine's check pipeline (sim.CheckProgram, what Run refuses before it
// executes anything) on the lowered program; a refusal is returned as checkRefusal words it.
func (lw *Lowered) selfCheck() error {
	rep, err := sim.CheckProgram(lw.Program(), sim.Config{Gen: lw.Gen})
	if err != nil {
		return err
	}
	if err := rep.Err(); err != nil {
		return lw.checkRefusal(err.(*sim.ProgramError))
	}
	return nil
}

// checkRefusal is the error of a lowering whose program the check pipeline refuses with pe
// (Lower's own check, or the run's under Options.DeferCheck): the first refused word's. A DMA
// word whose source and destination share bytes (dge_src_dst_disjoint) comes from a call whose
// src and dst views overlap (tensors that live at the same time never share bytes), so it is that
// call's error; any other refused word is a *LoweringError; a program refused for its settings
// only is refused with pe.
func (lw *Lowered) checkRefusal(pe *sim.ProgramError) error {
	for _, ie := range pe.Errs {
		if ie.Index < 0 {
			continue // a program setting (listed first)
		}
		// the word: instruction ie.Index of the queue ie.Engine names (Program's queue order)
		var in *Inst
		eng, n := isa.EngineNone, 0
		for _, x := range lw.Insts {
			if x.Engine.String() != ie.Engine && (x.Engine != isa.EngineNone || ie.Engine != "") {
				continue
			}
			if n == ie.Index {
				in, eng = x, x.Engine
				break
			}
			n++
		}
		if ie.Rule == dge.RuleSrcDstDisjoint && in != nil && in.Call >= 0 {
			c := &lw.Kernel.Calls[in.Call]
			return callErr(c, fault.ErrInvalid, "dst", dge.RuleSrcDstDisjoint, "a dst that shares no byte with src (or the very same view, a no-op)",
				"%s", ie.Violations[0].Msg)
		}
		return &LoweringError{Origin: ie.Origin, Engine: eng, Index: ie.Index, Opcode: ie.Opcode, Rule: ie.Rule, Err: ie}
	}
	return pe
}

func (l *lowerer) placement(t int) *Placement {
	if t < 0 || t >= len(l.pls) {
		return nil
	}
	return l.pls[t]
}

// place lays out the HBM tensors (inputs first, then the rest, without overlap) and computes the
// lifetimes of the on-chip ones, which allocCall places as their first call comes.
func (l *lowerer) place() error {
	n := len(l.tensors)
	l.pls = make([]*Placement, n)
	first, last := make([]int, n), make([]int, n)
	for i := range first {
		first[i] = -1
	}
	use := func(v *View, ci int) {
		for _, t := range []int{v.Tensor, indexTensor(v)} {
			if t < 0 {
				continue
			}
			if first[t] < 0 {
				first[t] = ci
			}
			last[t] = ci
		}
	}
	for ci := range l.k.Calls {
		c := &l.k.Calls[ci]
		for _, v := range []*View{c.Dst, c.Src, c.Data} {
			if v != nil {
				use(v, ci)
			}
		}
	}
	activeSBUF := uint64(l.geo.StateBufPartitionActive)
	// The top 64 bytes of SBUF partition 0 hold the sync carriers' scratch words
	// (Provenance kernel.sync_carrier).
	scratchBytes := uint64(64)
	l.sbuf = &chipAllocator{space: isa.SpaceSBUF, limit: activeSBUF - scratchBytes, align: 64, tensors: l.tensors}
	for q := range l.scratch {
		l.scratch[q] = uint32(activeSBUF - scratchBytes + uint64(16*q))
	}
	l.zero = append(l.zero, [2]uint64{isa.DMALocalBase + activeSBUF - scratchBytes, scratchBytes})
	l.psum = &chipAllocator{space: isa.SpacePSUM, limit: uint64(l.geo.PSUMPartitionActive), align: 4, bank: uint64(l.geo.PSUMBankSize), tensors: l.tensors}
	if l.geo.PSUMSize == 0 {
		l.psum.limit = 0
	}
	for _, pass := range []bool{true, false} {
		for i := range l.tensors {
			t := &l.tensors[i]
			if t.onChip() || (t.Kind == "input") != pass {
				continue
			}
			d, err := dtypeOf(t, l.g)
			if err != nil {
				return err
			}
			size := uint64(t.Elements()) * uint64(d.Size())
			l.hbmNext = (l.hbmNext + 0xfff) &^ 0xfff
			l.pls[i] = &Placement{Tensor: i, Space: isa.SpaceHBM, Addr: l.hbmNext, RowBytes: size, DType: d, ES: d.Size(),
				FreeElems: t.Elements(), First: -1, Last: len(l.k.Calls)}
			l.hbmNext += size
		}
	}
	for i := range l.tensors {
		t := &l.tensors[i]
		if !t.onChip() || first[i] < 0 {
			continue
		}
		d, err := dtypeOf(t, l.g)
		if err != nil {
			return err
		}
		if t.Shape[0] > 128 {
			return &Error{Kind: fault.ErrInvalid, Loc: t.Loc, Arg: "tensor " + t.Name, Rule: "nki.partition_dim",
				Msg: fmt.Sprintf("shape %v: the partition dimension (first axis) is %d", t.Shape, t.Shape[0]), Legal: "at most 128 partitions"}
		}
		free := t.Elements() / int64(t.Shape[0])
		l.pls[i] = &Placement{Tensor: i, Space: isa.SpaceSBUF, Partitions: t.Shape[0], RowBytes: uint64(free) * uint64(d.Size()),
			DType: d, ES: d.Size(), FreeElems: free, First: first[i], Last: last[i]}
		if t.Buffer == BufPSUM {
			l.pls[i].Space = isa.SpacePSUM
		}
	}
	return nil
}

func indexTensor(v *View) int {
	if v.Indirect != nil {
		return v.Indirect.Index.Tensor
	}
	return -1
}

// allocCall places the on-chip tensors whose first use is call ci.
func (l *lowerer) allocCall(ci int) error {
	for i, pl := range l.pls {
		if pl == nil || pl.Space == isa.SpaceHBM || pl.First != ci {
			continue
		}
		a := l.sbuf
		if pl.Space == isa.SpacePSUM {
			a = l.psum
			if a.limit == 0 {
				t := &l.tensors[i]
				return &Error{Kind: fault.ErrInvalid, Loc: t.Loc, Arg: "tensor " + t.Name, Rule: "kernel.psum_present",
					Msg: fmt.Sprintf("%v has no PSUM (PSUM_BUF_SZ = 0)", l.g), Legal: "buffer=nl.sbuf"}
			}
		}
		if err := a.place(pl, pl.RowBytes); err != nil {
			var ke *Error
			if errors.As(err, &ke) {
				ke.Msg += fmt.Sprintf(" (placing it for %s)", l.origin)
			}
			return err
		}
	}
	return nil
}

// stage adds a staging tile of P partitions x free elements of dtype d that lives for the
// current call only, and places it.
func (l *lowerer) stage(name string, P int, free int64, d isa.DType, partition0 bool) (int, error) {
	id := len(l.tensors)
	l.tensors = append(l.tensors, Tensor{Name: fmt.Sprintf("tpbsim.%s%d", name, id), Shape: []int{P, int(free)}, DType: strings.ToLower(d.String()), Buffer: BufSBUF, Loc: l.origin})
	pl := &Placement{Tensor: id, Space: isa.SpaceSBUF, Partitions: P, RowBytes: uint64(free) * uint64(d.Size()), DType: d, ES: d.Size(),
		FreeElems: free, First: l.call, Last: l.call, partition0: partition0}
	l.pls = append(l.pls, pl)
	l.sbuf.tensors = l.tensors
	if err := l.sbuf.place(pl, pl.RowBytes); err != nil {
		return 0, err
	}
	return id, nil
}

// lowerCall lowers one call after the NKI-level checks of its release.
func (l *lowerer) lowerCall(c *Call) error {
	switch c.Op {
	case OpDMACopy:
		return l.dmaCopy(c)
	case OpDMATranspose, OpLoadTranspose2D:
		return l.dmaTranspose(c)
	case OpNCTranspose:
		return l.ncTranspose(c)
	case OpStreamShuffle:
		return l.streamShuffle(c)
	case OpTensorReduce:
		return l.tensorReduce(c)
	case OpTensorCopy:
		return l.tensorCopy(c)
	case OpReciprocal:
		return l.reciprocal(c)
	case OpMemset:
		return l.memset(c)
	}
	e := callErr(c, fault.ErrInvalid, "op", "kernel.op", "", "unknown op %q", c.Op)
	e.Malformed = true
	return e
}
