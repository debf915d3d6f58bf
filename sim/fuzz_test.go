package sim

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/tpbsim/tpbsim/fault"
	"github.com/tpbsim/tpbsim/isa"
	"github.com/tpbsim/tpbsim/mem"
)

// randomProgram builds a program of random instructions on random queues from r: mostly
// plausible S4D4_TR / LOAD_MASK_SELECT words (some valid, many not), now and then a raw random
// word, with random semaphore waits and updates on a few semaphores so that some programs
// synchronise, some deadlock and some fail.
func randomProgram(r *rand.Rand, g isa.Generation) *Program { return randomProgramN(r, g, 0) }

// randomProgramN is randomProgram with at most budget instructions in all (0: no bound).
func randomProgramN(r *rand.Rand, g isa.Generation, budget int) *Program {
	geo := g.Geometry()
	s4ops := isa.S4D4TROpcodes(g)
	dtypes := []isa.DType{isa.DTypeUINT8, isa.DTypeINT8, isa.DTypeUINT16, isa.DTypeBFLOAT16, isa.DTypeFP16,
		isa.DTypeINT32, isa.DTypeFP32, isa.DTypeUINT32, isa.DTypeFP8_EXP4, isa.DType(r.IntN(32))}
	pick := func(n int) int { return r.IntN(n) }
	addr := func() isa.Addr4 {
		if pick(8) == 0 {
			return isa.Addr4(r.Uint32())
		}
		p := uint32(pick(4) * 32)
		if pick(4) == 0 {
			p = uint32(pick(128))
		}
		base := uint32(0)
		stride, active := geo.StateBufPartitionSize, geo.StateBufPartitionActive
		if pick(5) == 0 && geo.PSUMSize > 0 {
			base, stride, active = geo.PSUMOffset, geo.PSUMPartitionSize, geo.PSUMPartitionActive
		}
		off := uint32(pick(int(active/256))) * 64
		if pick(6) == 0 {
			off = active - uint32(pick(512))
		}
		return isa.Addr4(base + p*stride + off)
	}
	t4 := func() isa.Tensor4D {
		t := isa.Tensor4D{StartAddr: addr(), StepElem: [4]int16{1, 1, 1, 1}, NumElem: [4]uint16{1, 1, 1, 1}}
		nd := 1 + pick(3)
		step := int16(1)
		for d := 0; d < nd; d++ {
			n := []uint16{1, 2, 4, 8, 16, 32, 64, uint16(1 + pick(100))}[pick(8)]
			t.NumElem[d] = n
			t.StepElem[d] = step
			if pick(6) == 0 {
				t.StepElem[d] = int16(pick(9) - 4)
			}
			step *= int16(n)
		}
		return t
	}
	var valid bool
	events := func() isa.Events {
		var ev isa.Events
		if valid {
			if pick(3) == 0 {
				ev.WaitMode, ev.WaitIdx = isa.WaitMode(1+pick(5)), uint8(pick(4))
			}
			if pick(2) == 0 {
				ev.UpdateMode = []isa.UpdateMode{isa.SemIncRead, isa.SemIncComplete, isa.SemDecComplete, isa.SemAddImmRead,
					isa.SemWrImmComplete, isa.SemSubImmRead}[pick(6)]
				ev.UpdateIdx = uint8(pick(4))
			}
			ev.SemaphoreValue = uint32(pick(4))
			return ev
		}
		if pick(3) == 0 {
			ev.WaitMode = isa.WaitMode(1 + pick(5))
			if pick(20) == 0 {
				ev.WaitMode = isa.WaitMode(r.Uint32())
			}
			ev.WaitIdx = uint8(pick(4))
		}
		if pick(2) == 0 {
			ev.UpdateMode = []isa.UpdateMode{isa.SemIncRead, isa.SemIncComplete, isa.SemDecComplete, isa.SemAddImmRead,
				isa.SemWrImmComplete, isa.SemSubImmRead, isa.UpdateMode(r.Uint32())}[pick(7)]
			ev.UpdateIdx = uint8(pick(4))
		}
		ev.SemaphoreValue = uint32(pick(4))
		return ev
	}
	// Up to four queues of a few instructions: two queues of two already ask the ordering
	// questions (a wait on an update, an update racing a read), and a run costs about its length.
	p := &Program{File: "fuzz"}
	valid = pick(5) < 3 // most programs are built valid, so they run and meet the run-time checks
	nq := 1 + pick(4)
	total := 0
	more := func() bool { return budget <= 0 || total < budget }
	for qi := 0; qi < nq && more(); qi++ {
		q := Queue{Engine: queueEngines[pick(len(queueEngines))]}
		if valid {
			q.Engine = queueEngines[qi]
			for i, n := 0, 1+pick(3); i < n && more(); i++ {
				total++
				in := validInst(r, g, q.Engine, events())
				q.Insts = append(q.Insts, Instr{Inst: in, Index: i, Offset: int64(i * 64)})
			}
			p.Queues = append(p.Queues, q)
			continue
		}
		if pick(30) == 0 {
			q.Engine = isa.EnginePE
		}
		n := 1 + pick(4)
		for i := 0; i < n && more(); i++ {
			total++
			var in isa.Inst
			switch k := pick(12); {
			case k == 0:
				var w [64]byte
				for j := range w {
					w[j] = byte(r.Uint32())
				}
				w[1] = 16
				in, _ = isa.Decode(w[:])
			case k == 1:
				lms := &isa.LoadMaskSelect{Header: isa.Header{Opcode: isa.OpLOAD_MASK_SELECT, InstWordLen: 16}, Events: events()}
				for j := range lms.Immediate {
					lms.Immediate[j] = uint8(pick(32))
					if pick(8) == 0 {
						lms.Immediate[j] = 0xFF
					}
				}
				in = lms
			default:
				dt := dtypes[pick(len(dtypes))]
				out := dt
				if pick(3) == 0 {
					out = dtypes[pick(len(dtypes))]
				}
				src := t4()
				dst := src
				dst.StartAddr = addr()
				if pick(3) == 0 {
					dst = t4()
				}
				x := &isa.S4D4TR{Header: isa.Header{Opcode: s4ops[pick(len(s4ops))], InstWordLen: 16}, Events: events(),
					SrcMemPattern: src, DstMemPattern: dst, InDtype: dt, OutDtype: out,
					NumActiveChannels: []uint8{32, 64, 96, 128, uint8(1 + pick(128))}[pick(5)]}
				if pick(2) == 0 {
					x.Op = isa.ALUOp([]uint8{0x00, 0x04, 0x08, 0x09, uint8(r.Uint32())}[pick(5)])
					x.OpDim = isa.TensorSubdim(pick(6))
				}
				if pick(10) == 0 {
					x.MaskEnable = 1
				}
				in = x
			}
			q.Insts = append(q.Insts, Instr{Inst: in, Index: i, Offset: int64(i * 64)})
		}
		p.Queues = append(p.Queues, q)
	}
	return p
}

// validInst builds an instruction that passes the checks before the run on engine e; it may
// still fail at run time (no shuffle mask loaded, uninitialised reads, a bad cast target).
func validInst(r *rand.Rand, g isa.Generation, e isa.Engine, ev isa.Events) isa.Inst {
	pick := func(n int) int { return r.IntN(n) }
	stride := g.Geometry().StateBufPartitionSize
	ops := []isa.Opcode{isa.OpCOPY, isa.OpCAST}
	if e == isa.EngineDVE {
		ops = append(ops, isa.OpSTREAM_TRANSPOSE, isa.OpSTREAM_SHUFFLE, isa.OpSTREAM_SHUFFLE, isa.OpLOAD_MASK_SELECT,
			isa.OpTENSOR_REDUCE_ARITH_OP, isa.OpTRANSPOSE_TENSOR_REDUCE_ARITH_OP, isa.OpTENSOR_CUMULATIVE_ARITH_OP, isa.OpRECIPROCAL)
	}
	if e == isa.EngineTPB_SP || (e != isa.EngineDVE && pick(3) == 0) {
		// HBM <-> SBUF copy of rows x cols fp32, rows over partitions: mostly a few of each (a
		// descriptor a row, on up to 4 partitions), one in sixteen large in one
		// direction: up to every partition (all the engines), or rows of up to 256 elements, or
		// (one in four of those) past the element limit (rows x cols > 1<<14, refused before the
		// run). Never large both ways below the limit: a run's cost is its elements and its
		// descriptors, and what the large ones reach (every engine, long rows, the limit) a few
		// of them reach as well as many.
		rows, cols := uint16(1+pick(4)), uint16(1+pick(8))
		if pick(16) == rareChoice {
			switch pick(4) {
			case 0:
				rows, cols = 128, uint16(129+pick(128))
			case 1:
				cols = uint16(1 + pick(256))
			default:
				rows = uint16(1 + pick(128))
			}
		}
		part := uint32(pick(int(129 - rows)))
		hbm := uint64(pick(1<<20)) * 4
		d := dmaLoad(g, hbm, rows, cols, uint8(pick(4)), ev)
		d.SemIncrement = uint8(pick(3))
		d.DstStartAddr = isa.LocalAddr8(part * stride)
		if pick(2) == 0 { // SBUF -> HBM
			d.SrcStartAddr, d.DstStartAddr = d.DstStartAddr, d.SrcStartAddr
			d.SrcStepElem, d.DstStepElem = d.DstStepElem, d.SrcStepElem
		}
		return d
	}
	op := ops[pick(len(ops))]
	if op == isa.OpLOAD_MASK_SELECT {
		lms := &isa.LoadMaskSelect{Header: isa.Header{Opcode: op, InstWordLen: 16}, Events: ev}
		for j := range lms.Immediate {
			lms.Immediate[j] = uint8(pick(32))
			if pick(8) == 0 {
				lms.Immediate[j] = 0xFF
			}
		}
		return lms
	}
	floats := []isa.DType{isa.DTypeFP32, isa.DTypeBFLOAT16, isa.DTypeFP16}
	any := []isa.DType{isa.DTypeFP32, isa.DTypeBFLOAT16, isa.DTypeFP16, isa.DTypeUINT8, isa.DTypeINT16, isa.DTypeINT32, isa.DTypeFP8_EXP4}
	in := any[pick(len(any))]
	if op == isa.OpTENSOR_REDUCE_ARITH_OP || op == isa.OpTRANSPOSE_TENSOR_REDUCE_ARITH_OP || op == isa.OpTENSOR_CUMULATIVE_ARITH_OP || op == isa.OpRECIPROCAL {
		in = floats[pick(len(floats))]
	}
	out := in
	if op == isa.OpCAST || op == isa.OpRECIPROCAL {
		out = any[pick(len(any))]
	}
	// Mostly up to 8 channels of 8 elements (32 channels for the ops that take multiples of 32),
	// one in sixteen large in one direction: up to 128 channels, or rows of up to 128 elements.
	// Under the fuzzer's instrumentation what a run costs is its elements (every element's loop
	// step and compare is counted: 128 x 128 took a millisecond), and what more channels or a
	// longer row reach the few large ones reach; the data paths are dve's and dma's fuzzers'.
	// STREAM_TRANSPOSE takes 32 elements at least (32 x 32 blocks), the reduce ops too (a 32 x
	// (n/32) group).
	nac, n := uint8(32), uint16(8)
	if op == isa.OpCOPY || op == isa.OpCAST || op == isa.OpTENSOR_REDUCE_ARITH_OP || op == isa.OpTENSOR_CUMULATIVE_ARITH_OP || op == isa.OpRECIPROCAL {
		nac = uint8(1 + pick(8))
	}
	if pick(16) == rareChoice {
		if pick(2) == 0 {
			nac = uint8(32 * (1 + pick(4)))
		} else {
			n = uint16(32 * (1 + pick(4)))
		}
	}
	if op == isa.OpSTREAM_TRANSPOSE || op == isa.OpTENSOR_REDUCE_ARITH_OP || op == isa.OpTRANSPOSE_TENSOR_REDUCE_ARITH_OP {
		n = max(n, 32)
	}
	part := uint32(32 * pick(int(4-(int(nac)+31)/32+1)))
	off := func() isa.Addr4 { return isa.Addr4(part*stride + uint32(pick(8))*0x200) }
	t := func(a isa.Addr4, n uint16) isa.Tensor4D {
		return isa.Tensor4D{StartAddr: a, StepElem: [4]int16{1, int16(n), int16(n), int16(n)}, NumElem: [4]uint16{n, 1, 1, 1}}
	}
	x := &isa.S4D4TR{Header: isa.Header{Opcode: op, InstWordLen: 16}, Events: ev, SrcMemPattern: t(off(), n),
		DstMemPattern: t(off(), n), InDtype: in, OutDtype: out, NumActiveChannels: nac}
	switch op {
	case isa.OpTENSOR_REDUCE_ARITH_OP, isa.OpTRANSPOSE_TENSOR_REDUCE_ARITH_OP:
		x.Op, x.OpDim = isa.ALUAdd, isa.SubdimX
		x.SrcMemPattern.NumElem = [4]uint16{32, n / 32, 1, 1}
		x.SrcMemPattern.StepElem = [4]int16{1, 32, int16(n), int16(n)}
		x.DstMemPattern = t(x.DstMemPattern.StartAddr, n/32)
	case isa.OpTENSOR_CUMULATIVE_ARITH_OP:
		x.Op, x.OpDim = isa.ALUAdd, isa.SubdimX
	}
	return x
}

// randomMemory fills the first noiseBytes of every SBUF and PSUM partition with random bytes
// through Partition, leaving them never-written for the uninitialised tracking (MarkWritten
// records them for Reset only). Each partition gets a window of noise at an offset drawn from r
// (one draw a partition).
func randomMemory(r *rand.Rand, m *Machine) {
	mm := m.Memory()
	nz := noise()
	for _, reg := range []mem.Region{mem.SBUF, mem.PSUM} {
		for pi := 0; pi < mm.NumPartitions(reg); pi++ {
			part := mm.Partition(reg, pi)
			n := min(len(part), noiseBytes)
			off := r.IntN((len(nz)-n)/8+1) * 8
			copy(part[:n], nz[off:])
		}
		mm.MarkWritten(mem.Span{Region: reg, NumPartitions: mm.NumPartitions(reg), Hi: noiseBytes})
	}
}

// noiseBytes is the window of every partition randomMemory and putNoise fill: where validInst's operands lie
// (its offsets are below 0x1000 and most of its walks within 2 KiB of them), so what the valid
// programs read is mostly noise.
const noiseBytes = 2048

// noise is the random bytes randomMemory copies from: 1 MiB, a window starting at any of 131065
// offsets.
var noise = sync.OnceValue(func() []byte {
	b := make([]byte, 1<<20)
	rand.NewChaCha8([32]byte{'t', 'p', 'b', 's', 'i', 'm'}).Read(b)
	return b
})

// checkRun is the program-level oracle: a run either finishes every instruction or fails with
// exactly one of the categories; a deadlock report is true (every engine it lists as waiting
// really cannot proceed with the semaphores it reports).
func checkRun(t testing.TB, m *Machine, p *Program) error {
	t.Helper()
	res, err := m.Run(p)
	if err == nil {
		n := 0
		for _, s := range res.Engines {
			if !strings.HasPrefix(s.Engine, "DMA") {
				n += s.Instructions
			}
		}
		if n != p.Len() {
			t.Fatalf("finished with %d of %d instructions issued", n, p.Len())
		}
		return nil
	}
	known := false
	if errors.Is(err, fault.ErrRace) {
		if res == nil || len(res.Races) == 0 || m.cfg.Races != RacesError {
			t.Fatalf("race error without races, or under %v: %v", m.cfg.Races, err)
		}
		return err
	}
	for _, s := range []error{fault.ErrInvalid, fault.ErrBounds, fault.ErrUninit, fault.ErrDeadlock, fault.ErrUnsupported, fault.ErrLimit, fault.ErrCapacity} {
		if errors.Is(err, s) {
			known = true
		}
	}
	if !known {
		t.Fatalf("error of no category: %v", err)
	}
	var de *DeadlockError
	if errors.As(err, &de) {
		waiting := 0
		for _, s := range de.Engines {
			if s.Done {
				continue
			}
			waiting++
			if s.SemValue != m.Semaphore(int(s.WaitIdx)) {
				t.Fatalf("deadlock report: %s sem[%d] = %d, machine has %d", s.Engine, s.WaitIdx, s.SemValue, m.Semaphore(int(s.WaitIdx)))
			}
			if s.WaitMode.Satisfied(s.SemValue, s.WaitValue) {
				t.Fatalf("deadlock report lists %s whose wait is satisfied: %v", s.Engine, s)
			}
		}
		if waiting == 0 {
			t.Fatalf("deadlock with no waiting engine: %v", err)
		}
	}
	var ie *InstError
	if errors.As(err, &ie) && ie.Engine == "" && ie.Index >= 0 && ie.Offset < 0 {
		t.Fatalf("instruction error names neither its engine nor its word: %v", err)
	}
	return err
}

// checkUntouched fails t unless m is as New made it: every semaphore 0, no HBM page
// allocated, SBUF and PSUM all zero.
func checkUntouched(t testing.TB, m *Machine, err error) {
	t.Helper()
	if e := untouched(m); e != nil {
		t.Fatalf("failed instruction %v: %v", e, err)
	}
}

// untouched says how m differs from the state New leaves it in (a semaphore not 0, an HBM
// page allocated, a nonzero SBUF or PSUM byte), or returns nil. Of SBUF and PSUM it reads only
// the bytes the memory records as possibly written (mem.Memory.Written): every other byte is
// zero, which TestResetMatchesNew checks on every machine it resets.
func untouched(m *Machine) error {
	for i := 0; i < NumSemaphores; i++ {
		if v := m.Semaphore(i); v != 0 {
			return fmt.Errorf("set sem[%d] = %d", i, v)
		}
	}
	mm := m.Memory()
	if n := mm.HBMBytesAllocated(); n != 0 {
		return fmt.Errorf("allocated %d HBM bytes", n)
	}
	return writtenNonzero(mm)
}

// writtenNonzero names the first nonzero SBUF or PSUM byte among those mm records as possibly
// written, or returns nil.
func writtenNonzero(mm *mem.Memory) error {
	var err error
	mm.Written(func(reg mem.Region, p, off int, b []byte) {
		if i := slices.IndexFunc(b, func(x byte) bool { return x != 0 }); i >= 0 && err == nil {
			err = fmt.Errorf("wrote %v partition %d offset 0x%x", reg, p, off+i)
		}
	})
	return err
}

// pool keeps machines between runs, one per configuration: a run takes one (Reset when given
// back, so exactly as New would make it) and gives it back, so a fuzz worker process builds each of its
// machines once instead of paying New's memory set-up every input.
var pool = struct {
	sync.Mutex
	m map[poolKey][]*Machine
}{m: map[poolKey][]*Machine{}}

// poolKey is a Config without Annotate (pooled configurations have none).
type poolKey struct {
	gen                                 isa.Generation
	hbmCap, maxElements, maxStream      uint64
	uninit, trace, butterfly, hugePages bool
	noisy                               bool // the noise of getNoisyMachine lies in SBUF and PSUM
}

func keyOf(c Config) poolKey {
	return poolKey{gen: c.Gen, hbmCap: c.HBMCapBytes, maxElements: c.MaxElements, maxStream: c.MaxStreamBytes, uninit: c.CheckUninit,
		trace: c.Trace, butterfly: c.Butterfly, hugePages: c.HugePages}
}

// getMachine returns a machine in the state New(cfg) leaves, and the function that gives it
// back: it Resets the machine (dropping the HBM pages the run allocated, up to the cap, rather
// than holding them until the configuration's next run) and returns it to the pool.
func getMachine(t testing.TB, cfg Config) (*Machine, func()) {
	t.Helper()
	return pooled(t, cfg, false)
}

// getNoisyMachine is getMachine, except that the first noiseBytes of every SBUF and PSUM
// partition hold the fixed noise of putNoise, never reported as written: the run reads them as
// never-written bytes (with CheckUninit), and giving the machine back restores the noise where
// the run wrote, so every run starts from the same bytes. Copying 1 MiB of noise in and Reset
// clearing it out again on every run was most of a FuzzRun exec.
func getNoisyMachine(t testing.TB, cfg Config) (*Machine, func()) {
	t.Helper()
	return pooled(t, cfg, true)
}

func pooled(t testing.TB, cfg Config, noisy bool) (*Machine, func()) {
	t.Helper()
	if cfg.Annotate != nil {
		t.Fatal("getMachine: a configuration with Annotate is not pooled")
	}
	k := keyOf(cfg) // of cfg as given: New fills in the limits
	k.noisy = noisy
	put := func(m *Machine) func() {
		return func() {
			var dirty []mem.Span
			if noisy {
				m.Memory().Written(func(reg mem.Region, p, off int, b []byte) {
					if off < noiseBytes {
						dirty = append(dirty, mem.Span{Region: reg, FirstPartition: p, NumPartitions: 1, Lo: uint32(off), Hi: uint32(min(off+len(b), noiseBytes))})
					}
				})
			}
			m.Reset()
			for _, d := range dirty {
				putNoise(m.Memory(), d.Region, d.FirstPartition, int(d.Lo), int(d.Hi))
			}
			pool.Lock()
			defer pool.Unlock()
			pool.m[k] = append(pool.m[k], m)
		}
	}
	pool.Lock()
	if ms := pool.m[k]; len(ms) > 0 {
		m := ms[len(ms)-1]
		pool.m[k] = ms[:len(ms)-1]
		pool.Unlock()
		return m, put(m)
	}
	pool.Unlock()
	m, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if noisy {
		mm := m.Memory()
		for _, reg := range []mem.Region{mem.SBUF, mem.PSUM} {
			for p := 0; p < mm.NumPartitions(reg); p++ {
				putNoise(mm, reg, p, 0, noiseBytes)
			}
		}
	}
	return m, put(m)
}

// putNoise writes bytes [lo, hi) of partition p's noise window (the first noiseBytes): the
// same bytes for a partition on every machine, a window of noise() at an offset of its own.
// The memory is not told (Partition), so Reset keeps them.
func putNoise(mm *mem.Memory, reg mem.Region, p, lo, hi int) {
	part := mm.Partition(reg, p)
	hi = min(hi, len(part))
	if lo >= hi {
		return
	}
	off := (p*2654435761 + int(reg)*40503) % ((len(noise()) - noiseBytes) / 8) * 8
	copy(part[lo:hi], noise()[off+lo:off+hi])
}

// runRandom runs the random program of seed, and holds the check pipeline run alone
// (CheckProgram) to what Run refused before the run.
func runRandom(t *testing.T, seed uint64) {
	r := fuzzChoices(seed, nil)
	m, put := getNoisyMachine(t, randomConfig(r))
	defer put()
	p := fuzzStart(r, m, 0)
	sameVerdicts(t, p, m.cfg, checkRun(t, m, p))
}

// maxChoiceBytes bounds the fuzz bytes FuzzRun draws choices from (the rest come from the
// seed). The bound is what keeps the fuzzer's minimisation of a new-coverage input short: it
// tries O(n^2) cuts of the n bytes, and nearly every cut shifts all the later choices, so an
// input of a few hundred meaningful bytes takes the whole 60 s minimisation budget on every
// worker at once.
const maxChoiceBytes = 128

// bytesSource draws from b, one byte a value (the byte repeated in all 8), then from pcg: each
// choice randomProgram makes (r.IntN and the like) is one input byte, so a fuzzer's mutation
// changes a few choices and keeps the rest, where a changed seed would make a new program. Byte b
// makes IntN(n) about b*n/255 for n not a power of two (0 is rejected there and skipped: the
// choice takes the next byte), b mod n for a power of two.
type bytesSource struct {
	b   []byte
	pcg *rand.PCG
}

func (s *bytesSource) Uint64() uint64 {
	if len(s.b) == 0 {
		return s.pcg.Uint64()
	}
	v := uint64(s.b[0]) * 0x0101010101010101
	s.b = s.b[1:]
	return v
}

// runFuzz runs one random program on a noisy machine (getNoisyMachine): the configuration, the
// semaphores and the program are drawn from data (at most maxChoiceBytes of it), then from the
// seed.
func runFuzz(t testing.TB, seed uint64, data []byte) {
	r := fuzzChoices(seed, data)
	m, put := getNoisyMachine(t, randomConfig(r))
	defer put()
	checkRun(t, m, fuzzStart(r, m, fuzzBudget))
}

// fuzzStart draws the semaphores of m and the program from r, a program of at most budget
// instructions (0: as many as randomProgram makes).
func fuzzStart(r *rand.Rand, m *Machine, budget int) *Program {
	randomSemaphores(r, m)
	return randomProgramN(r, m.Gen(), budget)
}

// fuzzBudget bounds the length of FuzzRun's programs. The fuzzer's corpus fills with the
// longest programs the generator makes (each one reaches a little more), and under its
// instrumentation a run costs about 30 us an executed instruction on top of about 40 us: at up
// to 12 instructions its corpus ran at less than half the speed of the generated programs.
// Four is two queues of two or four of one: a wait on an update, an update racing an access, a
// deadlock between two queues, every engine at once. TestRandomPrograms runs the longer ones.
const fuzzBudget = 4

// fuzzChoices is the source of a FuzzRun input's choices.
func fuzzChoices(seed uint64, data []byte) *rand.Rand {
	return rand.New(&bytesSource{b: data[:min(len(data), maxChoiceBytes)], pcg: rand.NewPCG(seed, seed^0x9E3779B97F4A7C15)})
}

// TestFuzzDataChoosesProgram: FuzzRun's data bytes are the choices of the configuration and the
// program (they once filled partition 0 of SBUF instead, the program coming from the seed alone).
func TestFuzzDataChoosesProgram(t *testing.T) {
	gens := isa.Generations
	if g := randomConfig(fuzzChoices(5, []byte{0xFE})).Gen; len(gens) > 1 && g != gens[len(gens)-1] {
		t.Errorf("data byte 0xFE chose %v, want the last generation %v", g, gens[len(gens)-1])
	}
	progs := make([]*Program, 2)
	for i, b := range []byte{0x01, 0xFE} { // the same configuration (3 bytes), then b
		r := fuzzChoices(5, append([]byte{1, 1, 1}, bytes.Repeat([]byte{b}, maxChoiceBytes-3)...))
		m, put := getNoisyMachine(t, randomConfig(r))
		progs[i] = fuzzStart(r, m, fuzzBudget)
		put()
	}
	if reflect.DeepEqual(progs[0], progs[1]) {
		t.Error("the same seed with different data made the same program")
	}
}

// randomConfig draws the configuration of a random run.
func randomConfig(r *rand.Rand) Config {
	g := isa.Generations[r.IntN(len(isa.Generations))]
	return Config{Gen: g, MaxElements: 1 << 14, CheckUninit: r.IntN(3) == 0, Trace: r.IntN(4) == 0, Races: RaceMode(r.IntN(3))}
}

// randomStart fills memory and a few semaphores before a random run.
func randomStart(r *rand.Rand, m *Machine) {
	randomMemory(r, m)
	randomSemaphores(r, m)
}

// randomSemaphores sets a few of the semaphores the random programs use.
func randomSemaphores(r *rand.Rand, m *Machine) {
	for i := 0; i < 4; i++ {
		if r.IntN(2) == 0 {
			m.SetSemaphore(r.IntN(4), uint32(r.IntN(3)))
		}
	}
}

// TestRandomPrograms runs a fixed set of random programs through the oracle.
func TestRandomPrograms(t *testing.T) {
	n := 400
	if testing.Short() {
		n = 50
	}
	for seed := uint64(0); seed < uint64(n); seed++ {
		runRandom(t, seed)
	}
}

// FuzzRun runs random programs on random memory: never a panic, never a hang, and every
// failure categorised (deadlocks checked to be real). The run's choices are drawn from data
// first (a byte each, up to maxChoiceBytes), then from the seed, and the memory from the seed
// (with empty data, exactly runRandom(seed)).
func FuzzRun(f *testing.F) {
	for _, s := range []uint64{0, 1, 7, 42, 1234, 99999} {
		f.Add(s, []byte(nil))
	}
	f.Add(uint64(3), []byte{0x80, 2, 1, 0x40, 3, 0xC0, 5})
	f.Fuzz(func(t *testing.T, seed uint64, data []byte) {
		runFuzz(t, seed, data)
	})
}

// FuzzRunWords runs arbitrary instruction words as a bare list (a raw .bin): each word goes to
// the queue of its opcode's engine. Never a panic; every failure categorised; a program of one
// instruction that fails leaves the machine untouched (memory and semaphores).
func FuzzRunWords(f *testing.F) {
	w := isa.Encode(transposeWord())
	f.Add(w[:])
	f.Add(make([]byte, 128))
	f.Fuzz(func(t *testing.T, data []byte) {
		// At most four words: a longer input is passed over rather than cut, so it finds no
		// coverage and Go never minimises it (minimising costs about n^2 execs of an n-byte
		// input: a kept 1 KiB input stalled the campaign for the rest of a 10 s run).
		if len(data) > 4*64 {
			return
		}
		data = data[:len(data)/64*64]
		insts, err := isa.DecodeStream(data)
		if err != nil {
			t.Fatalf("DecodeStream of whole words: %v", err)
		}
		p, err := FromList("fuzz.bin", insts, nil)
		if err != nil {
			t.Fatalf("FromList: %v", err)
		}
		m, put := getMachine(t, Config{Gen: isa.CAYMAN, MaxElements: 1 << 14})
		defer put()
		if err := checkRun(t, m, p); err != nil && p.Len() == 1 {
			checkUntouched(t, m, err)
		}
	})
}

func transposeWord() *isa.S4D4TR {
	t := isa.Tensor4D{StepElem: [4]int16{1, 1, 1, 1}, NumElem: [4]uint16{32, 1, 1, 1}}
	d := t
	d.StartAddr = 0x100
	return &isa.S4D4TR{Header: isa.Header{Opcode: isa.OpSTREAM_TRANSPOSE, InstWordLen: 16}, SrcMemPattern: t, DstMemPattern: d,
		InDtype: isa.DTypeFP32, OutDtype: isa.DTypeFP32, NumActiveChannels: 32}
}

// rareChoice is the value of a pick(16) that takes a rare, costly branch (a large tensor). Not 0,
// 1, 4 or 15: when Go's mutator overwrites a byte with one of its interesting values (0x80, 0xFF,
// 0x00, 0x01, 0x10, 0x20, 0x40, 0x64, 0x7F), a pick(16) reads it as 0, 15, 0, 1, 0, 0, 0, 4 or
// 15, so a branch on 0 would be taken by five of the nine.
const rareChoice = 9
