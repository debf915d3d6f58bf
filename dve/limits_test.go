package dve

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/tpbsim/tpbsim/fault"
	"github.com/tpbsim/tpbsim/isa"
	"github.com/tpbsim/tpbsim/mem"
)

// A valid instruction whose step-0 walks name more bytes than the stream limit is refused with
// fault.ErrLimit before any host buffer is allocated, and writes nothing. Without the limit these
// instructions ask for 16-32 GiB of host memory (the reviewer's out-of-memory crash).
func TestStreamBytesLimitRefusesHugeWalks(t *testing.T) {
	g := isa.CAYMAN
	m := newMem(t, g, mem.Options{})
	for p := 0; p < 128; p++ {
		copy(m.Partition(mem.SBUF, p), []byte{1, 2, 3, 4, 5, 6, 7, 8})
	}
	before := snapshotSBUF(m)
	big := pat(sbufAddr(g, 0, 0), [4]int16{}, [4]uint16{65535, 1000, 1, 1}) // 65,535,000 elements, under 2^26
	bigDst := big
	bigDst.StartAddr = sbufAddr(g, 0, 0x100)
	reduce := s4(isa.OpTENSOR_REDUCE_ARITH_OP, big, lin(sbufAddr(g, 0, 0x100), 1), isa.DTypeFP32, isa.DTypeFP32, 128)
	reduce.Op, reduce.OpDim = isa.ALUAdd, isa.SubdimXYZW
	tbig := pat(sbufAddr(g, 0, 0), [4]int16{}, [4]uint16{65535, 992, 1, 1}) // a multiple of 32
	treduce := s4(isa.OpTRANSPOSE_TENSOR_REDUCE_ARITH_OP, tbig, lin(sbufAddr(g, 0, 0x100), 1), isa.DTypeFP32, isa.DTypeFP32, 128)
	treduce.Op, treduce.OpDim = isa.ALUAdd, isa.SubdimXYZW
	tdst := tbig
	tdst.StartAddr = sbufAddr(g, 0, 0x100)
	for _, in := range []*isa.S4D4TR{
		s4(isa.OpCOPY, big, bigDst, isa.DTypeFP32, isa.DTypeFP32, 128),
		s4(isa.OpCAST, big, bigDst, isa.DTypeFP32, isa.DTypeBFLOAT16, 128),
		reduce,
		treduce,
		s4(isa.OpSTREAM_TRANSPOSE, tbig, tdst, isa.DTypeFP32, isa.DTypeFP32, 128),
	} {
		for _, impl := range []TransposeImpl{TransposeFast, TransposeButterfly} {
			t.Run(in.Header.Opcode.String()+"/"+impl.String(), func(t *testing.T) {
				d := DVE{Transpose: impl}
				_, err := d.Execute(m, in, g)
				var de *Error
				if !errors.Is(err, fault.ErrLimit) || !errors.As(err, &de) || de.Rule != RuleMaxStreamBytes {
					t.Fatalf("want ErrLimit (rule %s), got %v", RuleMaxStreamBytes, err)
				}
				if !strings.Contains(err.Error(), "DVE.MaxStreamBytes") {
					t.Errorf("the message does not name the limit: %v", err)
				}
			})
		}
	}
	if snapshotSBUF(m) != before {
		t.Error("a refused instruction wrote memory")
	}
}

// The limit is DVE.MaxStreamBytes when set: an instruction at the limit runs, one byte over fails.
func TestStreamBytesLimitIsExact(t *testing.T) {
	g := isa.CAYMAN
	m := newMem(t, g, mem.Options{})
	in := s4(isa.OpCOPY, lin(sbufAddr(g, 0, 0), 16), lin(sbufAddr(g, 0, 0x100), 16), isa.DTypeFP32, isa.DTypeFP32, 32)
	n := StreamBytes(32, 64, 64) // 32 channels x (64 + 64) bytes
	if n != 4096 {
		t.Fatalf("StreamBytes = %d, want 4096", n)
	}
	d := DVE{MaxStreamBytes: n}
	if _, err := d.Execute(m, in, g); err != nil {
		t.Fatalf("at the limit: %v", err)
	}
	d.MaxStreamBytes = n - 1
	if _, err := d.Execute(m, in, g); !errors.Is(err, fault.ErrLimit) {
		t.Fatalf("one byte over the limit: %v", err)
	}
	if got := StreamBytes(128, 1<<63, 1<<63); got != 1<<64-1 {
		t.Errorf("StreamBytes does not saturate: %d", got)
	}
}

// A destination walk that names the same bytes more than once is written in walk order and the
// last write wins (Provenance dve.dst_self_overlap), on every path: COPY, CAST, the fast and the
// butterfly transpose, with and without uninitialised-read tracking.
func TestDstSelfOverlapLastWriteWins(t *testing.T) {
	g := isa.CAYMAN
	found := false
	for _, p := range Provenance() {
		found = found || p.ID == "dve.dst_self_overlap"
	}
	if !found {
		t.Fatal("Provenance lacks dve.dst_self_overlap")
	}
	for _, track := range []bool{false, true} {
		t.Run(fmt.Sprintf("track=%v", track), func(t *testing.T) {
			m := newMem(t, g, mem.Options{TrackUninit: track})
			for c := 0; c < 32; c++ {
				row := make([]byte, 4*32)
				for e := 0; e < 32; e++ {
					binary.LittleEndian.PutUint32(row[4*e:], uint32(c<<8|e))
				}
				if err := m.Write(mem.Loc{Region: mem.SBUF, Partition: c}, row); err != nil {
					t.Fatal(err)
				}
			}
			at := func(c, off int) uint32 { return binary.LittleEndian.Uint32(m.Partition(mem.SBUF, c)[off:]) }
			var d DVE
			cp := s4(isa.OpCOPY, lin(sbufAddr(g, 0, 0), 8), pat(sbufAddr(g, 0, 0x200), [4]int16{}, [4]uint16{8, 1, 1, 1}), isa.DTypeUINT32, isa.DTypeUINT32, 32)
			if _, err := d.Execute(m, cp, g); err != nil {
				t.Fatal(err)
			}
			// two dims over one byte range: [4@1, 2@0] writes elements 0..3 twice; the second pass wins
			cp2 := s4(isa.OpCOPY, lin(sbufAddr(g, 0, 0), 8), pat(sbufAddr(g, 0, 0x300), [4]int16{1, 0, 1, 1}, [4]uint16{4, 2, 1, 1}), isa.DTypeUINT32, isa.DTypeUINT32, 32)
			if _, err := d.Execute(m, cp2, g); err != nil {
				t.Fatal(err)
			}
			cast := s4(isa.OpCAST, lin(sbufAddr(g, 0, 0), 8), pat(sbufAddr(g, 0, 0x400), [4]int16{}, [4]uint16{8, 1, 1, 1}), isa.DTypeUINT32, isa.DTypeFP32, 32)
			if _, err := d.Execute(m, cast, g); err != nil {
				t.Fatal(err)
			}
			for c := 0; c < 32; c++ {
				if got := at(c, 0x200); got != uint32(c<<8|7) {
					t.Errorf("track=%v COPY dst=[8@0] channel %d = 0x%x, want element 7 (0x%x)", track, c, got, c<<8|7)
				}
				for e := 0; e < 4; e++ {
					if got := at(c, 0x300+4*e); got != uint32(c<<8|(4+e)) {
						t.Errorf("track=%v COPY dst=[4@1,2@0] channel %d element %d = 0x%x, want 0x%x", track, c, e, got, c<<8|(4+e))
					}
				}
				if got := at(c, 0x400); got != math.Float32bits(float32(c<<8|7)) {
					t.Errorf("track=%v CAST dst=[8@0] channel %d = 0x%x, want %v", track, c, got, float32(c<<8|7))
				}
			}
			for _, impl := range []TransposeImpl{TransposeFast, TransposeButterfly} {
				d := DVE{Transpose: impl}
				tr := s4(isa.OpSTREAM_TRANSPOSE, lin(sbufAddr(g, 0, 0), 32), pat(sbufAddr(g, 0, 0x500), [4]int16{}, [4]uint16{32, 1, 1, 1}), isa.DTypeUINT32, isa.DTypeUINT32, 32)
				if _, err := d.Execute(m, tr, g); err != nil {
					t.Fatal(err)
				}
				for c := 0; c < 32; c++ {
					// O[c][31] = S[31][c]
					if got := at(c, 0x500); got != uint32(31<<8|c) {
						t.Errorf("track=%v %v transpose dst=[32@0] channel %d = 0x%x, want 0x%x", track, impl, c, got, 31<<8|c)
					}
				}
			}
		})
	}
}

func snapshotSBUF(m *mem.Memory) string {
	var b strings.Builder
	for p := 0; p < m.NumPartitions(mem.SBUF); p++ {
		b.Write(m.Partition(mem.SBUF, p)[:0x400])
	}
	return b.String()
}
