package isa

import (
	"sort"
	"strconv"
	"testing"
)

// Pins of seed claims against the seeds' literal values (testdata/claims/claims.tsv lists them with their mutations). Each names the claim
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

// T04, T05, T06: the S4D4_TR offsets gcc measured (seed 000 §4, §9.2: "header@0 events@4 src@12
// in_dtype@32 out_dtype@33 num_active_channels@34 negated@35 op@36 op_dim@37 mask_enable@38
// reserved1@39 dst@44") and the TENSOR4D inside it (§4.1: start_addr 4 bytes, int16_t
// step_elem[4], uint16_t num_elem[4]: 20 bytes, steps signed).
func TestSeedT04S4D4TROffsets(t *testing.T) {
	l := Layout(StructS4D4_TR)
	for _, c := range []struct {
		path      string
		off, size int
		kind      ValueKind
	}{
		{"opcode", 0, 1, KOpcode}, {"events.wait_mode", 4, 1, KWaitMode},
		{"src_mem_pattern.start_addr", 12, 4, KAddr4}, {"src_mem_pattern.step_elem", 16, 2, KInt}, {"src_mem_pattern.num_elem", 24, 2, KUint},
		{"in_dtype", 32, 1, KDType}, {"out_dtype", 33, 1, KDType}, {"num_active_channels", 34, 1, KUint},
		{"negated", 35, 1, KUint}, {"op", 36, 1, KALUOp}, {"op_dim", 37, 1, KSubdim}, {"mask_enable", 38, 1, KUint},
		{"reserved1", 39, 1, KUint}, {"dst_mem_pattern.start_addr", 44, 4, KAddr4}, {"dst_mem_pattern.step_elem", 48, 2, KInt},
		{"dst_mem_pattern.num_elem", 56, 2, KUint},
	} {
		t.Run(c.path, func(t *testing.T) {
			f, ok := l.Field(c.path)
			if !ok || l.Offset(c.path) != c.off || f.Size != c.size || f.Kind != c.kind {
				t.Errorf("%s at %d, %d bytes, %v (found %v); the seed's %d, %d bytes, %v", c.path, l.Offset(c.path), f.Size, f.Kind, ok, c.off, c.size, c.kind)
			}
		})
	}
}

// D02: the INDIRECT1D offsets the seed names (seed 003 §3.2: "idx_num_active_channels (+14),
// flags (+15 ...), src_idx_start_addr (ADDR4, +48), dst_idx_start_addr (ADDR4, +52),
// compute_op (+60)").
func TestSeedD02Indirect1DOffsets(t *testing.T) {
	l := Layout(StructDMA_INDIRECT1D)
	for _, c := range []struct {
		path string
		off  int
	}{{"idx_num_active_channels", 14}, {"flags", 15}, {"src_idx_start_addr", 48}, {"dst_idx_start_addr", 52}, {"compute_op", 60}} {
		t.Run(c.path, func(t *testing.T) {
			if got := l.Offset(c.path); got != c.off {
				t.Errorf("%s at %d, the seed's +%d", c.path, got, c.off)
			}
		})
	}
}

// T09, D12, D13: enum codes the seeds quote: ALU_OP BYPASS 0x00, ADD 0x04, MAX 0x08, MIN 0x09,
// BITWISE_AND 0x0A, BITWISE_OR 0x0B (seed 000 §3.1); TENSOR_SUBDIM UNUSED 0, X 2, XY 3, XYZ 4,
// XYZW 5 (§4.2); DGE_COMPUTE_OP NONE 0, ADD 1, MULTIPLY 2, MAX 3, MIN 4 and INDIRECT_DIM X 0,
// Y 1, Z 2, W 3 (seed 003 §3.4).
func TestSeedT09EnumCodes(t *testing.T) {
	for _, c := range []struct {
		name      string
		got, want uint8
	}{
		{"ALU BYPASS", uint8(ALUBypass), 0x00}, {"ALU ADD", uint8(ALUAdd), 0x04}, {"ALU MAX", uint8(ALUMax), 0x08},
		{"ALU MIN", uint8(ALUMin), 0x09}, {"ALU BITWISE_AND", uint8(ALUBitwiseAnd), 0x0A}, {"ALU BITWISE_OR", uint8(ALUBitwiseOr), 0x0B},
		{"SUBDIM UNUSED", uint8(SubdimUNUSED), 0}, {"SUBDIM X", uint8(SubdimX), 2}, {"SUBDIM XY", uint8(SubdimXY), 3},
		{"SUBDIM XYZ", uint8(SubdimXYZ), 4}, {"SUBDIM XYZW", uint8(SubdimXYZW), 5},
		{"DGE NONE", uint8(DGEComputeNONE), 0}, {"DGE ADD", uint8(DGEComputeADD), 1}, {"DGE MULTIPLY", uint8(DGEComputeMULTIPLY), 2},
		{"DGE MAX", uint8(DGEComputeMAX), 3}, {"DGE MIN", uint8(DGEComputeMIN), 4},
		{"INDIRECT X", uint8(IndirectDimX), 0}, {"INDIRECT Y", uint8(IndirectDimY), 1}, {"INDIRECT Z", uint8(IndirectDimZ), 2}, {"INDIRECT W", uint8(IndirectDimW), 3},
	} {
		t.Run(c.name, func(t *testing.T) {
			if c.got != c.want {
				t.Errorf("%#x, the seed's %#x", c.got, c.want)
			}
		})
	}
}

// T13, T25: StreamTranspose's dtypes pass is_valid_dtype, which excludes UINT64 and INT64; the
// TensorReduce family on the same struct calls is_valid_dtype_64 and admits them (seed 000 §4.2
// CORRECTION: "So the DVE datapath transpose is strictly <=32-bit; the reduce sibling is not").
func TestSeedT13T25SixtyFourBit(t *testing.T) {
	for _, c := range []struct {
		name string
		op   Opcode
		d    DType
		rule string
		bad  bool
	}{
		{"transpose UINT64", OpSTREAM_TRANSPOSE, DTypeUINT64, "is_valid_dtype", true},
		{"transpose INT64", OpSTREAM_TRANSPOSE, DTypeINT64, "is_valid_dtype", true},
		{"transpose INT32", OpSTREAM_TRANSPOSE, DTypeINT32, "is_valid_dtype", false},
		{"reduce UINT64", OpTENSOR_REDUCE_BITVEC_OP, DTypeUINT64, "is_valid_dtype_64", false},
		{"reduce INT64", OpTENSOR_REDUCE_BITVEC_OP, DTypeINT64, "is_valid_dtype_64", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			i := s4base(c.op)
			i.InDtype, i.OutDtype = c.d, c.d
			rs := rulesOf(Validate(i, CAYMAN))
			if rs[c.rule] != c.bad || (!c.bad && len(rs) != 0) {
				t.Errorf("%v -> %v on %v breaks %v; want %s broken %v", c.d, c.d, c.op, rs, c.rule, c.bad)
			}
		})
	}
}

// T19, T20: has_multiple_32_channels is the closed set {32, 64, 96, 128} and
// has_transpose_src_element_count_t4d asks prod(src.num_elem) % 32 == 0 (seed 000 §4.2,
// common.h:1767 and :1759, quoted).
func TestSeedT19T20TransposeGeometry(t *testing.T) {
	for n := 0; n < 256; n++ {
		i := s4base(OpSTREAM_TRANSPOSE)
		i.NumActiveChannels = uint8(n)
		want := n == 32 || n == 64 || n == 96 || n == 128
		if got := !rulesOf(Validate(i, CAYMAN))["has_multiple_32_channels"]; got != want {
			t.Errorf("%d channels pass has_multiple_32_channels: %v, want %v", n, got, want)
		}
	}
	for _, c := range []struct {
		num [4]uint16
		ok  bool
	}{{[4]uint16{32, 1, 1, 1}, true}, {[4]uint16{16, 2, 1, 1}, true}, {[4]uint16{4, 2, 2, 2}, true}, {[4]uint16{16, 1, 1, 1}, false}, {[4]uint16{48, 1, 1, 1}, false}} {
		t.Run(strconv.Itoa(int(c.num[0]))+"x"+strconv.Itoa(int(c.num[1]*c.num[2]*c.num[3])), func(t *testing.T) {
			i := s4base(OpSTREAM_TRANSPOSE)
			i.SrcMemPattern.NumElem = c.num
			if got := !rulesOf(Validate(i, CAYMAN))["has_transpose_src_element_count_t4d"]; got != c.ok {
				t.Errorf("src num_elem %v passes: %v, want %v", c.num, got, c.ok)
			}
		})
	}
}

// T33: STREAM_TRANSPOSE 0x6b on S4D4_TR is in every generation's ISA, SUNDA (v3) to MAVERICK
// (seed 000 §1: "present SUNDA(v3) -> MARIANA_PLUS(v4+) (struct byte-identical, opcode stable)";
// §7: MAVERICK header-OBSERVED).
func TestSeedT33StreamTransposeEveryGeneration(t *testing.T) {
	for _, g := range []Generation{SUNDA, CAYMAN, MARIANA, MARIANA_PLUS, MAVERICK} {
		if o := Opcode(0x6b); !o.InGen(g) || o.Struct() != StructS4D4_TR || o.String() != "STREAM_TRANSPOSE" {
			t.Errorf("%v: opcode 0x6b is %v on %v (in the ISA: %v)", g, o, o.Struct(), o.InGen(g))
		}
	}
}

// D04-D10, D36: the GATHER_XPOSE rules of gather_xpose.h (seed 003 §2: it "writes the result to
// SBUF"; §3.3: one 2-byte dtype, dtype_lo == dtype_hi ("no cast yet"), elem_size even and in
// [2, 256], "dst_start_addr must be 32 B aligned, and dst_step_elem[1] % 32 == 0 (xbar HW
// constraint)", "gather_dim must be Y", "src_num_elem[gather_dim] % 16 == 0",
// "src_num_elem[gather_dim] == dst_num_elem[0]"), each broken and kept on the valid base.
func TestSeedD04D10GatherXpose(t *testing.T) {
	base := bases()["gx"]
	for _, c := range []struct {
		name   string
		f      func(*DMAGatherXpose)
		rule   string
		broken bool
	}{
		{"fp32", func(i *DMAGatherXpose) { i.Dtype = MakeDTypePair(DTypeFP32, DTypeFP32) }, "is_valid_gather_transpose_dtype", true},
		{"uint8", func(i *DMAGatherXpose) { i.Dtype = MakeDTypePair(DTypeUINT8, DTypeUINT8) }, "is_valid_gather_transpose_dtype", true},
		{"bf16 -> fp16", func(i *DMAGatherXpose) { i.Dtype = MakeDTypePair(DTypeBFLOAT16, DTypeFP16) }, "is_valid_gather_transpose_dtype", true},
		{"fp16", func(i *DMAGatherXpose) { i.Dtype = MakeDTypePair(DTypeFP16, DTypeFP16) }, "is_valid_gather_transpose_dtype", false},
		{"elem_size 3", func(i *DMAGatherXpose) { i.ElemSize = 3 }, "gather_xpose_elem_size", true},
		{"elem_size 0", func(i *DMAGatherXpose) { i.ElemSize = 0 }, "gather_xpose_elem_size", true},
		{"elem_size 258", func(i *DMAGatherXpose) { i.ElemSize = 258 }, "gather_xpose_elem_size", true},
		{"dst 0x1010", func(i *DMAGatherXpose) { i.DstStartAddr = LocalAddr8(0x1010) }, "gather_xpose_dst_aligned", true},
		{"dst 0x1020", func(i *DMAGatherXpose) { i.DstStartAddr = LocalAddr8(0x1020) }, "gather_xpose_dst_aligned", false},
		{"dst in PSUM", func(i *DMAGatherXpose) { i.DstStartAddr = LocalAddr8(CAYMAN.Geometry().PSUMOffset) }, "gather_xpose_dst_in_sbuf", true},
		{"dst step 16 bytes", func(i *DMAGatherXpose) { i.DstNumElem[1], i.DstStepElem1 = 2, 8 }, "gather_xpose_dst_step", true},
		{"dst step 32 bytes", func(i *DMAGatherXpose) { i.DstNumElem[1], i.DstStepElem1 = 2, 16 }, "gather_xpose_dst_step", false},
		{"gather_dim X", func(i *DMAGatherXpose) { i.Flags = GatherTransposeFlags(IndirectDimX) }, "gather_xpose_gather_dim_y", true},
		{"gather_dim Z", func(i *DMAGatherXpose) { i.Flags = GatherTransposeFlags(IndirectDimZ) }, "gather_xpose_gather_dim_y", true},
		{"gather_dim W", func(i *DMAGatherXpose) { i.Flags = GatherTransposeFlags(IndirectDimW) }, "gather_xpose_gather_dim_y", true},
		{"24 rows", func(i *DMAGatherXpose) { i.SrcNumElem[1], i.DstNumElem[0] = 24, 24 }, "gather_xpose_src_rows_multiple_16", true},
		{"8 rows", func(i *DMAGatherXpose) { i.SrcNumElem[1], i.DstNumElem[0] = 8, 8 }, "gather_xpose_src_rows_multiple_16", true},
		{"32 rows", func(i *DMAGatherXpose) { i.SrcNumElem[1], i.DstNumElem[0] = 32, 32 }, "gather_xpose_src_rows_multiple_16", false},
		{"16 rows into 32", func(i *DMAGatherXpose) { i.DstNumElem[0] = 32 }, "gather_xpose_index_count", true},
		{"32 rows into 16", func(i *DMAGatherXpose) { i.SrcNumElem[1] = 32 }, "gather_xpose_index_count", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			i := base().(*DMAGatherXpose)
			if len(Validate(i, CAYMAN)) != 0 {
				t.Fatalf("base gather-transpose invalid: %v", Validate(i, CAYMAN))
			}
			c.f(i)
			if got := rulesOf(Validate(i, CAYMAN))[c.rule]; got != c.broken {
				t.Errorf("%s broken %v, want %v (%v)", c.rule, got, c.broken, Validate(i, CAYMAN))
			}
		})
	}
}

// T24: same_or_fewer_element_count_t4d holds when either pattern takes its shape from a register
// (seed 000 §4.2, common.h:1862: "shape_from_register(dst.start_addr) ||
// shape_from_register(src.start_addr) || t4d_element_count(dst) <= t4d_element_count(src)"): a
// transpose of [32] into [32,2] breaks it, the same with a SHAPE_REG marker on either side does not.
func TestSeedT24ShapeFromRegister(t *testing.T) {
	for _, c := range []struct {
		name     string
		src, dst Addr4
		broken   bool
	}{{"immediate", 0, 0x1000, true}, {"src shape from register", 0x40000000, 0x1000, false}, {"dst shape from register", 0, 0x40001000, false}} {
		t.Run(c.name, func(t *testing.T) {
			i := s4base(OpSTREAM_TRANSPOSE)
			i.SrcMemPattern.StartAddr, i.DstMemPattern.StartAddr = c.src, c.dst
			i.SrcMemPattern.NumElem, i.DstMemPattern.NumElem = [4]uint16{32, 1, 1, 1}, [4]uint16{32, 2, 1, 1}
			i.DstMemPattern.StepElem = [4]int16{1, 32, 1, 1}
			if got := rulesOf(Validate(i, CAYMAN))["s4d4_tr_transpose_src_dst_count"]; got != c.broken {
				t.Errorf("s4d4_tr_transpose_src_dst_count broken %v, want %v (%v)", got, c.broken, Validate(i, CAYMAN))
			}
		})
	}
}
