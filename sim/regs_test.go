package sim

import (
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/tpbsim/tpbsim/fault"
	"github.com/tpbsim/tpbsim/isa"
)

// regAddr4 is the ADDR4 of address register n in register mode (reg:n).
func regAddr4(n uint8) isa.Addr4 { return isa.Addr4(uint32(isa.Addr4MarkerADDR_REG)<<24 | uint32(n)) }

// indirectGather is a DMA_INDIRECT gather of len(idx) 8-byte rows of an HBM table at 0x100000 into
// HBM at 0x200000, its index tensor at idx.
func indirectGather(n uint16, idx isa.Addr4) *isa.DMAIndirect1D {
	return &isa.DMAIndirect1D{Header: isa.Header{Opcode: isa.OpDMA_INDIRECT, InstWordLen: isa.InstWordLen},
		Semaphore: 1, SemIncrement: 1, IdxNumActiveChannels: 128,
		Flags:        isa.MakeDMAIndirectFlags(isa.SrcIndirection, true, false, isa.IndirectDimX, isa.IndirectDimX),
		SrcStartAddr: 0x100000, SrcStepElem: 1, SrcNumElem: 100, SrcElemSize: 8,
		DstStartAddr: 0x200000, DstStepElem: 1, DstNumElem: n, DstElemSize: 8,
		SrcIdxStartAddr: idx, InDtype: isa.DTypeUINT32, OutDtype: isa.DTypeUINT32}
}

// A DMA_INDIRECT gather whose index tensor address is reg:2 reads its indices where addr_reg[2]
// points when it issues: two index tensors in SBUF partition 0, the register picks one. A
// register pointing outside partition 0 fails the rule an immediate index address does, at the
// issue (the check before the run passed it), naming the register and its value.
func TestAddrRegIndexTensor(t *testing.T) {
	g := isa.CAYMAN
	idxA, idxB := []uint32{5, 99, 0, 42}, []uint32{7, 7, 3, 60}
	for _, tc := range []struct {
		name    string
		reg     uint32 // addr_reg[2]
		want    []uint32
		wantErr string // rule of the run's error, "" none
	}{
		{"register at index tensor A (sbuf:0:0x100)", 0x100, idxA, ""},
		{"register at index tensor B (sbuf:0:0x200)", 0x200, idxB, ""},
		{"register in partition 1", g.Geometry().StateBufPartitionSize + 0x100, nil, isa.RuleHasDMAIndirectIdxAddrInSBUFPartition0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, err := New(Config{Gen: g})
			if err != nil {
				t.Fatal(err)
			}
			mm := m.Memory()
			for r := 0; r < 100; r++ {
				b := make([]byte, 8)
				binary.LittleEndian.PutUint64(b, uint64(r)*0x0101010101)
				mm.WriteAt(0x100000+uint64(8*r), b)
			}
			for _, x := range []struct {
				at  uint64
				idx []uint32
			}{{0x100, idxA}, {0x200, idxB}} {
				b := make([]byte, 4*len(x.idx))
				for i, v := range x.idx {
					binary.LittleEndian.PutUint32(b[4*i:], v)
				}
				mm.WriteAt(isa.DMALocalBase+x.at, b)
			}
			p := &Program{Queues: []Queue{{Engine: isa.EngineTPB_SP, Insts: []Instr{{Inst: indirectGather(4, regAddr4(2)), Offset: -1}}}},
				AddrRegs: map[int]uint32{2: tc.reg}}
			rep, err := CheckProgram(p, m.cfg)
			if err != nil || !rep.OK() {
				t.Fatalf("check refuses the word with a register index address: %v %v", err, rep.Err())
			}
			_, err = m.Run(p)
			if tc.wantErr != "" {
				var ie *InstError
				if !errors.As(err, &ie) || ie.Rule != tc.wantErr || !errors.Is(err, fault.ErrInvalid) {
					t.Fatalf("run: %v, want rule %s", err, tc.wantErr)
				}
				if note := fmt.Sprintf("src_idx_start_addr names addr_reg[2] = 0x%08x", tc.reg); !strings.Contains(err.Error(), note) {
					t.Errorf("the error does not name the register and its value (%q):\n%v", note, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			for i, r := range tc.want {
				b := make([]byte, 8)
				if err := mm.ReadAt(0x200000+uint64(8*i), b); err != nil {
					t.Fatal(err)
				}
				if got, want := binary.LittleEndian.Uint64(b), uint64(r)*0x0101010101; got != want {
					t.Errorf("row %d = %#x, want table[%d] = %#x", i, got, r, want)
				}
			}
		})
	}
}

// The register file's settings and their reads: a program's AddrRegs outside 0..63 are refused
// before the run (check and run alike); Machine.SetAddrReg supplies a register the program does
// not set; Reset clears it.
func TestAddrRegSettings(t *testing.T) {
	g := isa.CAYMAN
	copyTo := func(dst isa.Addr4) *Program {
		in := s4(isa.OpCOPY, isa.DTypeFP32, 1, sbufAddr(g, 0, 0), dst, 4, isa.Events{})
		return &Program{Queues: []Queue{{Engine: isa.EngineDVE, Insts: []Instr{{Inst: in, Offset: -1}}}}}
	}
	t.Run("a register past 63 is refused before the run", func(t *testing.T) {
		m, _ := New(Config{Gen: g})
		p := copyTo(regAddr4(3))
		p.AddrRegs = map[int]uint32{64: 0x100}
		_, err := m.Run(p)
		sameVerdicts(t, p, m.cfg, err)
		if got := runVerdicts(err); !slices.Equal(got, []string{"program " + RuleAddrRegIndex}) {
			t.Fatalf("run verdicts %v, want the setting refused (%v)", got, err)
		}
	})
	t.Run("SetAddrReg, then Reset", func(t *testing.T) {
		m, _ := New(Config{Gen: g})
		m.SetAddrReg(3, 0x40)
		if v, ok := m.AddrReg(3); !ok || v != 0x40 {
			t.Fatalf("AddrReg(3) = %#x, %v", v, ok)
		}
		if _, err := m.Run(copyTo(regAddr4(3))); err != nil {
			t.Fatal(err)
		}
		m.Reset()
		if _, ok := m.AddrReg(3); ok {
			t.Fatal("Reset left addr_reg[3] set")
		}
		_, err := m.Run(copyTo(regAddr4(3)))
		var ie *InstError
		if !errors.As(err, &ie) || ie.Rule != RuleAddrRegSet {
			t.Fatalf("after Reset: %v, want %s", err, RuleAddrRegSet)
		}
	})
}

// Each register form, in one program of one instruction, gets the same verdict from check
// (CheckProgram) and from run before the run; what check accepts runs, or fails at its issue only
// under the rules that need the registers' values.
func TestRegisterFormsCheckAgreesWithRun(t *testing.T) {
	copyEv := func(ev isa.Events, src, dst isa.Addr4) isa.Inst {
		return s4(isa.OpCOPY, isa.DTypeFP32, 1, src, dst, 4, ev)
	}
	sbuf := func(g isa.Generation, off uint32) isa.Addr4 { return sbufAddr(g, 0, off) }
	shapeReg := isa.Addr4(uint32(isa.Addr4MarkerADDR_SHAPE)<<24 | 3)
	type tc struct {
		name  string
		gen   isa.Generation
		inst  func(g isa.Generation) isa.Inst
		regs  map[int]uint32
		check string // the check's rule ("" executable)
		run   string // the run's rule at issue ("" it finishes)
		sems  map[int]uint32
	}
	cases := []tc{
		{"ADDR_REG source", isa.CAYMAN, func(g isa.Generation) isa.Inst { return copyEv(isa.Events{}, regAddr4(3), sbuf(g, 0x100)) }, map[int]uint32{3: 0x40}, "", "", nil},
		{"ADDR_REG source, register unset", isa.CAYMAN, func(g isa.Generation) isa.Inst { return copyEv(isa.Events{}, regAddr4(3), sbuf(g, 0x100)) }, nil, "", RuleAddrRegSet, nil},
		{"ADDR_REG source holding ADDR_SHAPE_REG", isa.CAYMAN, func(g isa.Generation) isa.Inst { return copyEv(isa.Events{}, regAddr4(3), sbuf(g, 0x100)) }, map[int]uint32{3: uint32(shapeReg)}, "", RuleAddrRegValue, nil},
		{"ADDR_SHAPE_REG source", isa.CAYMAN, func(g isa.Generation) isa.Inst { return copyEv(isa.Events{}, shapeReg, sbuf(g, 0x100)) }, nil, "addr4_immediate", "", nil},
		{"MEMSET to ADDR_SHAPE_REG", isa.CAYMAN, func(g isa.Generation) isa.Inst {
			return &isa.Memset{Header: isa.Header{Opcode: isa.OpMEMSET, InstWordLen: isa.InstWordLen}, Dtype: isa.DTypeFP32, NumActiveChannels: 1,
				DstElementCount: 4, DstMemPattern: isa.Tensor4D{StartAddr: shapeReg, StepElem: [4]int16{1, 1, 1, 1}, NumElem: [4]uint16{4, 1, 1, 1}}}
		}, nil, "addr4_immediate", "", nil},
		{"MEMSET to ADDR_REG", isa.CAYMAN, func(g isa.Generation) isa.Inst {
			return &isa.Memset{Header: isa.Header{Opcode: isa.OpMEMSET, InstWordLen: isa.InstWordLen}, Dtype: isa.DTypeFP32, NumActiveChannels: 1,
				DstElementCount: 4, DstMemPattern: isa.Tensor4D{StartAddr: regAddr4(1), StepElem: [4]int16{1, 1, 1, 1}, NumElem: [4]uint16{4, 1, 1, 1}}}
		}, map[int]uint32{1: 0x80}, "", "", nil},
		{"GE_REG wait, satisfied", isa.CAYMAN, func(g isa.Generation) isa.Inst {
			return copyEv(isa.Events{WaitMode: isa.WaitForSemGEReg, WaitIdx: 4, SemaphoreValue: 9}, sbuf(g, 0), sbuf(g, 0x100))
		}, map[int]uint32{9: 0}, "", "", nil},
		{"GE_REG wait, register unset", isa.CAYMAN, func(g isa.Generation) isa.Inst {
			return copyEv(isa.Events{WaitMode: isa.WaitForSemGEReg, WaitIdx: 4, SemaphoreValue: 9}, sbuf(g, 0), sbuf(g, 0x100))
		}, nil, "", RuleAddrRegSet, nil},
		{"GE_REG wait naming register 64", isa.CAYMAN, func(g isa.Generation) isa.Inst {
			return copyEv(isa.Events{WaitMode: isa.WaitForSemGEReg, WaitIdx: 4, SemaphoreValue: 64}, sbuf(g, 0), sbuf(g, 0x100))
		}, nil, RuleEventRegOperand, "", nil},
		{"SEM_WR_REG_COMPLETE", isa.CAYMAN, func(g isa.Generation) isa.Inst {
			return copyEv(isa.Events{UpdateMode: isa.SemWrRegComplete, UpdateIdx: 4, SemaphoreValue: 2}, sbuf(g, 0), sbuf(g, 0x100))
		}, map[int]uint32{2: 7}, "", "", map[int]uint32{4: 7}},
		{"SEM_WR_REG_COMPLETE naming 0x102", isa.CAYMAN, func(g isa.Generation) isa.Inst {
			return copyEv(isa.Events{UpdateMode: isa.SemWrRegComplete, UpdateIdx: 4, SemaphoreValue: 0x102}, sbuf(g, 0), sbuf(g, 0x100))
		}, nil, RuleEventRegOperand, "", nil},
		{"event wait", isa.CAYMAN, func(g isa.Generation) isa.Inst {
			return copyEv(isa.Events{WaitMode: isa.WaitForEvt6, WaitIdx: 4}, sbuf(g, 0), sbuf(g, 0x100))
		}, nil, RuleExecutableWaitMode, "", nil},
		{"REG_OFFSET wait", isa.MAVERICK, func(g isa.Generation) isa.Inst {
			return copyEv(isa.Events{WaitMode: isa.WaitSemGERegOff, WaitIdx: 4}, sbuf(g, 0), sbuf(g, 0x100))
		}, nil, RuleExecutableWaitMode, "", nil},
		{"DMA_INDIRECT with a register index address", isa.CAYMAN, func(g isa.Generation) isa.Inst { return indirectGather(4, regAddr4(5)) },
			map[int]uint32{5: 0x100}, "", "", nil},
		{"DMA_GATHER_TRANSPOSE with a register index address", isa.CAYMAN, func(g isa.Generation) isa.Inst {
			c := *dmaBases(g)["DMA_GATHER_TRANSPOSE"].(*isa.DMAGatherXpose)
			c.SrcIdxStartAddr = regAddr4(6)
			return &c
		}, map[int]uint32{6: 0x100}, "", "", nil},
		{"DMA_GATHER_TRANSPOSE, index register holding an unaligned address", isa.CAYMAN, func(g isa.Generation) isa.Inst {
			c := *dmaBases(g)["DMA_GATHER_TRANSPOSE"].(*isa.DMAGatherXpose)
			c.SrcIdxStartAddr = regAddr4(6)
			return &c
		}, map[int]uint32{6: 0x102}, "", isa.RuleGatherXposeSrcIdxAligned, nil},
		{"DMAMEMCPY from an ADDR8 register", isa.CAYMAN, func(g isa.Generation) isa.Inst {
			d := dmaBases(g)["DMAMEMCPY"].(*isa.DMADirect2D)
			c := *d
			c.SrcStartAddr = isa.Addr8(uint64(isa.Addr8MarkerADDR_REG)<<56 | 5)
			return &c
		}, map[int]uint32{5: 0x100}, "dge_addr_immediate", "", nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m, err := New(Config{Gen: c.gen, Races: RacesOff})
			if err != nil {
				t.Fatal(err)
			}
			eng := isa.EngineDVE
			in := c.inst(c.gen)
			if opcodeOf(in).IsDMA() {
				eng = isa.EngineTPB_SP
				if opcodeOf(in) == isa.OpDMA_GATHER_TRANSPOSE {
					eng = isa.EnginePOOL
				}
			}
			m.Memory().WriteAt(isa.DMALocalBase, make([]byte, 0x400)) // partition 0's first bytes: read by the copies
			m.Memory().WriteAt(isa.DMALocalBase+0x100, []byte{1, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0, 4, 0, 0, 0})
			m.Memory().WriteAt(0x100000, make([]byte, 800))
			m.Memory().WriteAt(0x1000, make([]byte, 0x2000))
			p := &Program{Queues: []Queue{{Engine: eng, Insts: []Instr{{Inst: in, Offset: -1}}}}, AddrRegs: c.regs}
			_, err = m.Run(p)
			sameVerdicts(t, p, m.cfg, err)
			rep, _ := CheckProgram(p, m.cfg)
			checkRule := ""
			if r := rep.Insts[0]; !r.Executable() {
				checkRule = r.Rules()[0]
			}
			if checkRule != c.check {
				t.Fatalf("check: rule %q, want %q (%v)", checkRule, c.check, rep.Err())
			}
			if c.check != "" {
				return
			}
			runRule := ""
			var ie *InstError
			if errors.As(err, &ie) {
				runRule = ie.Rule
			} else if err != nil {
				t.Fatalf("run: %v", err)
			}
			if runRule != c.run {
				t.Fatalf("run: rule %q, want %q (%v)", runRule, c.run, err)
			}
			for i, v := range c.sems {
				if got := m.Semaphore(i); got != v {
					t.Errorf("sem[%d] = %d, want %d", i, got, v)
				}
			}
		})
	}
}

// A _REG wait orders what it waits for like the _IMM wait with the register's value: the ACT
// copy reads what the DVE's second copy writes, each DVE copy adding 1 to sem[1] on completion;
// waiting for sem[1] >= addr_reg[4] orders the read when the register holds 2 and races it when
// it holds 1 (released by the first copy), also when ACT reaches the wait only after both
// copies (the race model orders by the first update that satisfies the compare, not by when the
// wait was tried), and the race's hint names the register's value. A value the writers never
// reach deadlocks, the report naming the register.
func TestRegWaitOrdersAndDeadlocks(t *testing.T) {
	g := isa.CAYMAN
	inc := isa.Events{UpdateMode: isa.SemIncComplete, UpdateIdx: 1}
	wait := isa.Events{WaitMode: isa.WaitForSemGEReg, WaitIdx: 1, SemaphoreValue: 4}
	for _, tc := range []struct {
		name   string
		r4     uint32
		races  int
		hint   string // in the first race's hint
		locked bool   // deadlock
		late   bool   // ACT runs a long copy first: it tries the wait after both updates
	}{
		{"register 2: ordered", 2, 0, "", false, false},
		{"register 2, the reader late: ordered", 2, 0, "", false, true},
		{"register 1: released too early", 1, 1, "addr_reg[4] = 1", false, false},
		{"register 1, the reader late: still a race", 1, 1, "addr_reg[4] = 1", false, true},
		{"register 3: never reached", 3, 0, "", true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, err := New(Config{Gen: g, Races: RacesWarn})
			if err != nil {
				t.Fatal(err)
			}
			act := []isa.Inst{s4(isa.OpCOPY, isa.DTypeFP32, 1, sbufAddr(g, 0, 0x200), sbufAddr(g, 1, 0), 4, wait)}
			if tc.late {
				act = append([]isa.Inst{s4(isa.OpCOPY, isa.DTypeFP32, 1, sbufAddr(g, 2, 0), sbufAddr(g, 3, 0), 8192, isa.Events{})}, act...)
			}
			p := prog(
				q(isa.EngineDVE, s4(isa.OpCOPY, isa.DTypeFP32, 1, sbufAddr(g, 0, 0), sbufAddr(g, 0, 0x100), 4, inc),
					s4(isa.OpCOPY, isa.DTypeFP32, 1, sbufAddr(g, 0, 0), sbufAddr(g, 0, 0x200), 4, inc)),
				q(isa.EngineACT, act...))
			p.AddrRegs = map[int]uint32{4: tc.r4}
			res, err := m.Run(p)
			var de *DeadlockError
			if tc.locked {
				if !errors.As(err, &de) {
					t.Fatalf("want a deadlock, got %v", err)
				}
				st := de.Engines[len(de.Engines)-1]
				if st.Engine != "ACT" || st.WaitReg != 4 || st.WaitValue != 3 || st.SemValue != 2 ||
					!strings.Contains(st.String(), "WAIT_FOR_SEM_GE_REG addr_reg[4] = 3; sem[1] = 2") {
					t.Fatalf("deadlock state %+v: %s", st, st)
				}
				w := res.StateOf(err).Engines[2].Wait // DVE, POOL, ACT, SP
				if w == nil || w.Register == nil || *w.Register != 4 || w.Value != 3 || w.Current != 2 {
					t.Fatalf("--state wait %+v", w)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Races) != tc.races {
				t.Fatalf("%d races, want %d: %+v", len(res.Races), tc.races, res.Races)
			}
			if tc.races > 0 && !strings.Contains(res.Races[0].Hint, tc.hint) {
				t.Errorf("hint %q does not name %q", res.Races[0].Hint, tc.hint)
			}
		})
	}
}
