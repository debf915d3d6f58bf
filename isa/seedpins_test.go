package isa

import (
	"sort"
	"strconv"
	"testing"
)

// Pins of seed claims against the seeds' literal values (issue 15 item 10). Each names the claim
// it pins; each was shown to fail by breaking the code it pins (see the commit message).

func rulesOf(vs []Violation) map[string]bool {
	m := map[string]bool{}
	for _, v := range vs {
		m[v.Rule] = true
	}
	return m
}

// T02: instruction_mapping.json binds the S4D4_TR struct to exactly these eleven opcodes
// (seed 000 §3, read byte-exact), on every generation from CAYMAN.
func TestSeedT02StructOpcodes(t *testing.T) {
	seed := []Opcode{0x42, 0x83, 0x52, 0x84, 0x4E, 0x5E, 0x46, 0x47, 0x48, 0x6a, 0x6b} // seed 000 §3, quoted
	sort.Slice(seed, func(i, j int) bool { return seed[i] < seed[j] })
	for _, g := range []Generation{CAYMAN, MARIANA, MARIANA_PLUS, MAVERICK} {
		t.Run(g.String(), func(t *testing.T) {
			var got []Opcode
			for op := 0; op < 256; op++ {
				if o := Opcode(op); o.Known() && o.Struct() == StructS4D4_TR && o.InGen(g) {
					got = append(got, o)
				}
			}
			if len(got) != len(seed) {
				t.Fatalf("%d opcodes use S4D4_TR (%v), the seed binds %d", len(got), got, len(seed))
			}
			for i := range seed {
				if got[i] != seed[i] {
					t.Fatalf("S4D4_TR opcodes %v, the seed's %v", got, seed)
				}
			}
		})
	}
}

// T12: "for them [the Copy/Cast/Reduce siblings] mask_enable_zero is asserted" (seed 000 §3):
// mask_enable = 1 breaks mask_enable_zero on every non-transpose S4D4_TR opcode; STREAM_TRANSPOSE
// permits it (mask_enable_valid).
func TestSeedT12MaskEnableZero(t *testing.T) {
	for _, op := range []Opcode{0x42, 0x52, 0x4E, 0x5E, 0x46, 0x47, 0x48, 0x6a, OpSTREAM_TRANSPOSE} {
		t.Run(op.String(), func(t *testing.T) {
			i := s4base(op)
			i.MaskEnable = 1
			if got, want := rulesOf(Validate(i, CAYMAN))["mask_enable_zero"], op != OpSTREAM_TRANSPOSE; got != want {
				t.Errorf("mask_enable=1 breaks mask_enable_zero: %v, want %v", got, want)
			}
		})
	}
}

// T16: is_zero_subdim admits op_dim in {UNUSED(0), X(2)} (seed 000 §4.2, "op_dim ∈ {UNUSED(0), X(2)}"):
// X = 2 is accepted on STREAM_TRANSPOSE, 1 and 3 are not.
func TestSeedT16OpDimX(t *testing.T) {
	for _, c := range []struct {
		v  TensorSubdim
		ok bool
	}{{0, true}, {2, true}, {1, false}, {3, false}} {
		t.Run(strconv.Itoa(int(c.v)), func(t *testing.T) {
			i := s4base(OpSTREAM_TRANSPOSE)
			i.OpDim = c.v
			if bad := rulesOf(Validate(i, CAYMAN))["is_zero_subdim"]; bad == c.ok {
				t.Errorf("is_zero_subdim broken = %v, want %v", bad, !c.ok)
			}
		})
	}
}

// T17: has_valid_active_channel_range: 1 <= num_active_channels <= 128 for S4D4_TR (seed 000 §4.2).
func TestSeedT17ActiveChannels(t *testing.T) {
	for _, c := range []struct {
		n  uint8
		ok bool
	}{{1, true}, {128, true}, {129, false}, {0, false}, {255, false}} {
		t.Run(strconv.Itoa(int(c.n)), func(t *testing.T) {
			i := s4base(OpCOPY)
			i.NumActiveChannels = c.n
			if bad := rulesOf(Validate(i, CAYMAN))["has_valid_active_channel_range"]; bad == c.ok {
				t.Errorf("has_valid_active_channel_range broken = %v, want %v", bad, !c.ok)
			}
		})
	}
}

// T18: start_addr_active_channels(dst.start_addr, nac) is in the validator (seed 000 §4.2, the
// quoted predicate list checks it for src and for dst): a dst starting at partition 100 with 32
// channels breaks it while the src is fine.
func TestSeedT18DstActiveChannels(t *testing.T) {
	for _, c := range []struct {
		partition uint32
		broken    bool
	}{{96, false}, {97, true}, {100, true}} {
		t.Run(strconv.Itoa(int(c.partition)), func(t *testing.T) {
			i := s4base(OpCOPY) // 32 channels
			i.DstMemPattern.StartAddr = Addr4(c.partition * CAYMAN.Geometry().StateBufPartitionSize)
			if got := rulesOf(Validate(i, CAYMAN))["start_addr_active_channels"]; got != c.broken {
				t.Errorf("dst from partition %d with 32 channels breaks start_addr_active_channels: %v, want %v", c.partition, got, c.broken)
			}
		})
	}
}

// T14: out_dtype passes is_valid_dtype with AllowFP32R=True (seed 000 §4.2: "dst: fp32r OK (but
// pinned by next line)"): FP32R out breaks the same-dtype rule of STREAM_TRANSPOSE, not
// is_valid_dtype; FP32R in breaks is_valid_dtype.
func TestSeedT14OutFP32R(t *testing.T) {
	for _, c := range []struct {
		name      string
		in, out   DType
		dtypeRule bool // is_valid_dtype broken
		sameType  bool // s4d4_tr_same_src_dst_type broken
	}{
		{"out FP32R", DTypeFP32, DTypeFP32R, false, true},
		{"in FP32R", DTypeFP32R, DTypeFP32R, true, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			i := s4base(OpSTREAM_TRANSPOSE)
			i.InDtype, i.OutDtype = c.in, c.out
			rs := rulesOf(Validate(i, CAYMAN))
			if rs["is_valid_dtype"] != c.dtypeRule || rs["s4d4_tr_same_src_dst_type"] != c.sameType {
				t.Errorf("rules %v: is_valid_dtype %v, same type %v wanted", rs, c.dtypeRule, c.sameType)
			}
		})
	}
}

// D04, D05: GATHER_XPOSE takes one 2-byte dtype (is_valid_gather_transpose_dtype) and an even
// elem_size >= 2 (FACTS §C.4, seed 003 §3.3).
func TestSeedD04D05GatherXpose(t *testing.T) {
	base := bases()["gx"]
	for _, c := range []struct {
		name string
		f    func(*DMAGatherXpose)
		rule string
	}{
		{"fp32", func(i *DMAGatherXpose) { i.Dtype = MakeDTypePair(DTypeFP32, DTypeFP32) }, "is_valid_gather_transpose_dtype"},
		{"uint8", func(i *DMAGatherXpose) { i.Dtype = MakeDTypePair(DTypeUINT8, DTypeUINT8) }, "is_valid_gather_transpose_dtype"},
		{"elem_size 3", func(i *DMAGatherXpose) { i.ElemSize = 3 }, "gather_xpose_elem_size"},
		{"elem_size 0", func(i *DMAGatherXpose) { i.ElemSize = 0 }, "gather_xpose_elem_size"},
	} {
		t.Run(c.name, func(t *testing.T) {
			i := base().(*DMAGatherXpose)
			if len(Validate(i, CAYMAN)) != 0 {
				t.Fatalf("base gather-transpose invalid: %v", Validate(i, CAYMAN))
			}
			c.f(i)
			if !rulesOf(Validate(i, CAYMAN))[c.rule] {
				t.Errorf("no %s (%v)", c.rule, Validate(i, CAYMAN))
			}
		})
	}
}

// T23: the element count of a TENSOR4D is the product of all four num_elem, not num_elem[0]
// (seed 000 §4.2, same_src_dst_count_t4d / same_or_fewer_element_count_t4d): a COPY of
// [32,2,1,1] into [64,1,1,1] is valid, into [32,1,1,1] (num_elem[0] equal) it is not.
func TestSeedT23CountIsProduct(t *testing.T) {
	for _, c := range []struct {
		name     string
		op       Opcode
		src, dst [4]uint16
		rule     string
		broken   bool
	}{
		{"copy [32,2] -> [64]", OpCOPY, [4]uint16{32, 2, 1, 1}, [4]uint16{64, 1, 1, 1}, "s4d4_tr_same_src_dst_count", false},
		{"copy [32,2] -> [32]", OpCOPY, [4]uint16{32, 2, 1, 1}, [4]uint16{32, 1, 1, 1}, "s4d4_tr_same_src_dst_count", true},
		{"transpose [32] -> [32,2]", OpSTREAM_TRANSPOSE, [4]uint16{32, 1, 1, 1}, [4]uint16{32, 2, 1, 1}, "s4d4_tr_transpose_src_dst_count", true},
		{"transpose [32,2] -> [32]", OpSTREAM_TRANSPOSE, [4]uint16{32, 2, 1, 1}, [4]uint16{32, 1, 1, 1}, "s4d4_tr_transpose_src_dst_count", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			i := s4base(c.op)
			i.SrcMemPattern.NumElem, i.SrcMemPattern.StepElem = c.src, [4]int16{1, 32, 1, 1}
			i.DstMemPattern.NumElem, i.DstMemPattern.StepElem = c.dst, [4]int16{1, 32, 1, 1}
			if got := rulesOf(Validate(i, CAYMAN))[c.rule]; got != c.broken {
				t.Errorf("%s broken: %v, want %v (%v)", c.rule, got, c.broken, Validate(i, CAYMAN))
			}
		})
	}
}
