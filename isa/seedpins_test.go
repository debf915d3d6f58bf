package isa

import (
	"sort"
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
		var got []Opcode
		for op := 0; op < 256; op++ {
			if o := Opcode(op); o.Known() && o.Struct() == StructS4D4_TR && o.InGen(g) {
				got = append(got, o)
			}
		}
		if len(got) != len(seed) {
			t.Fatalf("%v: %d opcodes use S4D4_TR (%v), the seed binds %d", g, len(got), got, len(seed))
		}
		for i := range seed {
			if got[i] != seed[i] {
				t.Fatalf("%v: S4D4_TR opcodes %v, the seed's %v", g, got, seed)
			}
		}
	}
}

// T12: "for them [the Copy/Cast/Reduce siblings] mask_enable_zero is asserted" (seed 000 §3):
// mask_enable = 1 breaks mask_enable_zero on every non-transpose S4D4_TR opcode; STREAM_TRANSPOSE
// permits it (mask_enable_valid).
func TestSeedT12MaskEnableZero(t *testing.T) {
	for _, op := range []Opcode{0x42, 0x52, 0x4E, 0x5E, 0x46, 0x47, 0x48, 0x6a} {
		i := s4base(op)
		i.MaskEnable = 1
		if !rulesOf(Validate(i, CAYMAN))["mask_enable_zero"] {
			t.Errorf("%v with mask_enable=1: no mask_enable_zero", op)
		}
	}
	if rulesOf(Validate(s4base(OpSTREAM_TRANSPOSE), CAYMAN))["mask_enable_zero"] {
		t.Error("STREAM_TRANSPOSE mask_enable=1 breaks mask_enable_zero")
	}
}

// T16: is_zero_subdim admits op_dim in {UNUSED(0), X(2)} (seed 000 §4.2, "op_dim ∈ {UNUSED(0), X(2)}"):
// X = 2 is accepted on STREAM_TRANSPOSE, 1 and 3 are not.
func TestSeedT16OpDimX(t *testing.T) {
	for _, c := range []struct {
		v  TensorSubdim
		ok bool
	}{{0, true}, {2, true}, {1, false}, {3, false}} {
		i := s4base(OpSTREAM_TRANSPOSE)
		i.OpDim = c.v
		if bad := rulesOf(Validate(i, CAYMAN))["is_zero_subdim"]; bad == c.ok {
			t.Errorf("op_dim %d: is_zero_subdim broken = %v, want %v", c.v, bad, !c.ok)
		}
	}
}

// T17: has_valid_active_channel_range: 1 <= num_active_channels <= 128 for S4D4_TR (seed 000 §4.2).
func TestSeedT17ActiveChannels(t *testing.T) {
	for _, c := range []struct {
		n  uint8
		ok bool
	}{{1, true}, {128, true}, {129, false}, {0, false}, {255, false}} {
		i := s4base(OpCOPY)
		i.NumActiveChannels = c.n
		if bad := rulesOf(Validate(i, CAYMAN))["has_valid_active_channel_range"]; bad == c.ok {
			t.Errorf("num_active_channels %d: has_valid_active_channel_range broken = %v, want %v", c.n, bad, !c.ok)
		}
	}
}

// T18: start_addr_active_channels(dst.start_addr, nac) is in the validator (seed 000 §4.2, the
// quoted predicate list checks it for src and for dst): a dst starting at partition 100 with 32
// channels breaks it while the src is fine.
func TestSeedT18DstActiveChannels(t *testing.T) {
	i := s4base(OpCOPY)
	i.DstMemPattern.StartAddr = Addr4(100 * CAYMAN.Geometry().StateBufPartitionSize)
	if !rulesOf(Validate(i, CAYMAN))["start_addr_active_channels"] {
		t.Error("dst from partition 100 with 32 channels passes start_addr_active_channels")
	}
}

// T14: out_dtype passes is_valid_dtype with AllowFP32R=True (seed 000 §4.2: "dst: fp32r OK (but
// pinned by next line)"): FP32R out breaks the same-dtype rule of STREAM_TRANSPOSE, not
// is_valid_dtype; FP32R in breaks is_valid_dtype.
func TestSeedT14OutFP32R(t *testing.T) {
	i := s4base(OpSTREAM_TRANSPOSE)
	i.InDtype, i.OutDtype = DTypeFP32, DTypeFP32R
	rs := rulesOf(Validate(i, CAYMAN))
	if rs["is_valid_dtype"] || len(rs) == 0 {
		t.Errorf("out FP32R: rules %v, want the same-type rule and not is_valid_dtype", rs)
	}
	i.InDtype, i.OutDtype = DTypeFP32R, DTypeFP32R
	if !rulesOf(Validate(i, CAYMAN))["is_valid_dtype"] {
		t.Error("in FP32R passes is_valid_dtype")
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
		i := base().(*DMAGatherXpose)
		if len(Validate(i, CAYMAN)) != 0 {
			t.Fatalf("base gather-transpose invalid: %v", Validate(i, CAYMAN))
		}
		c.f(i)
		if !rulesOf(Validate(i, CAYMAN))[c.rule] {
			t.Errorf("%s: no %s (%v)", c.name, c.rule, Validate(i, CAYMAN))
		}
	}
}

// T23: the element count of a TENSOR4D is the product of all four num_elem, not num_elem[0]
// (seed 000 §4.2, same_src_dst_count_t4d / same_or_fewer_element_count_t4d): a COPY of
// [32,2,1,1] into [64,1,1,1] is valid, into [32,1,1,1] (num_elem[0] equal) it is not.
func TestSeedT23CountIsProduct(t *testing.T) {
	i := s4base(OpCOPY)
	i.SrcMemPattern.NumElem = [4]uint16{32, 2, 1, 1}
	i.SrcMemPattern.StepElem = [4]int16{1, 32, 1, 1}
	i.DstMemPattern.NumElem = [4]uint16{64, 1, 1, 1}
	if rs := rulesOf(Validate(i, CAYMAN)); rs["s4d4_tr_same_src_dst_count"] {
		t.Errorf("[32,2] -> [64]: %v", rs)
	}
	i.DstMemPattern.NumElem = [4]uint16{32, 1, 1, 1}
	if !rulesOf(Validate(i, CAYMAN))["s4d4_tr_same_src_dst_count"] {
		t.Error("[32,2] -> [32] passes s4d4_tr_same_src_dst_count")
	}
	tr := s4base(OpSTREAM_TRANSPOSE)
	tr.SrcMemPattern.NumElem = [4]uint16{32, 1, 1, 1}
	tr.DstMemPattern.NumElem = [4]uint16{32, 2, 1, 1}
	tr.DstMemPattern.StepElem = [4]int16{1, 32, 1, 1}
	if !rulesOf(Validate(tr, CAYMAN))["s4d4_tr_transpose_src_dst_count"] {
		t.Error("transpose [32] -> [32,2] passes same_or_fewer")
	}
}
