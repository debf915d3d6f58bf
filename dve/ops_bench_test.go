package dve

import (
	"fmt"
	"testing"

	"github.com/tpbsim/tpbsim/isa"
	"github.com/tpbsim/tpbsim/mem"
)

// Benchmarks of the S4D4_TR opcodes other than StreamTranspose on [128 x N] tiles of about
// 1 MiB and 8 MiB of source on CAYMAN, reporting GB/s (SetBytes = source bytes) and "x-copy",
// copy() of the same number of bytes measured in the same process, as BenchmarkStreamTranspose
// does (see benchTranspose: the copies run in blocks with the timer stopped):
//
//	go test -run '^$' -bench 'TensorReduce|TensorCumulative|Reciprocal|Cast|StreamShuffle|TransposeTensorReduce' -count 3 ./dve/
//
// The source is noise: every bit pattern, NaNs and infinities included, as a kernel's data may be.

// benchSizes are the source bytes per instruction.
var benchSizes = []struct {
	name  string
	bytes int
}{{"1MiB", 1 << 20}, {"8MiB", 8 << 20}}

// opBench is one benchmarked instruction: the opcode, its ALU op and dtypes, and the group of
// op_dim (0: X over the whole row; else XY over [8 x group/8] blocks).
type opBench struct {
	name    string
	opcode  isa.Opcode
	op      isa.ALUOp
	in, out isa.DType
	group   int
}

// benchOpInst builds a CAYMAN memory of noise and opInst's instruction.
func benchOpInst(tb testing.TB, ob opBench, bytes int) (*mem.Memory, *isa.S4D4TR) {
	m, err := mem.New(isa.CAYMAN, mem.Options{HugePages: true})
	if err != nil {
		tb.Fatal(err)
	}
	for p := 0; p < 128; p++ {
		copy(m.Partition(mem.SBUF, p), noise[p*1000:])
	}
	return m, opInst(ob, bytes)
}

// opInst is ob as a [128 x E] CAYMAN instruction reading E elements per partition from offset 0
// (E = bytes / 128 / in size) and writing at the end of each partition.
func opInst(ob opBench, bytes int) *isa.S4D4TR {
	g := isa.CAYMAN
	E := bytes / 128 / ob.in.Size()
	D := E
	src := pat(sbufAddr(g, 0, 0), [4]int16{1, 1, 1, 1}, [4]uint16{uint16(E), 1, 1, 1})
	opDim := isa.SubdimX
	if ob.group > 0 { // XY over [8 x group/8] blocks
		src = pat(sbufAddr(g, 0, 0), [4]int16{1, 8, int16(ob.group), 1}, [4]uint16{8, uint16(ob.group / 8), uint16(E / ob.group), 1})
		opDim = isa.SubdimXY
	}
	switch ob.opcode {
	case isa.OpTENSOR_REDUCE_ARITH_OP, isa.OpTENSOR_REDUCE_BITVEC_OP, isa.OpTRANSPOSE_TENSOR_REDUCE_ARITH_OP:
		D = 1
		if ob.group > 0 {
			D = E / ob.group
		}
	}
	dst := lin(sbufAddr(g, 0, (int(g.Geometry().StateBufPartitionActive)-D*ob.out.Size())&^63), D) // at the end
	in := s4(ob.opcode, src, dst, ob.in, ob.out, 128)
	in.Op, in.OpDim = ob.op, opDim
	return in
}

// benchExec times d.Execute of in against copy() of n bytes (benchVsCopy).
func benchExec(b *testing.B, d *DVE, m *mem.Memory, in *isa.S4D4TR, n int) {
	benchVsCopy(b, n, func() {
		if _, err := d.Execute(m, in, isa.CAYMAN); err != nil {
			b.Fatal(err)
		}
	}, nil)
}

func runOpBenches(b *testing.B, benches []opBench) {
	for _, ob := range benches {
		for _, sz := range benchSizes {
			b.Run(fmt.Sprintf("%s/%s", ob.name, sz.name), func(b *testing.B) {
				m, in := benchOpInst(b, ob, sz.bytes)
				benchExec(b, &DVE{}, m, in, sz.bytes)
			})
		}
	}
}

func BenchmarkTensorReduce(b *testing.B) {
	arith, bitvec := isa.OpTENSOR_REDUCE_ARITH_OP, isa.OpTENSOR_REDUCE_BITVEC_OP
	var benches []opBench
	for _, ob := range []opBench{
		{"fp32/add", arith, isa.ALUAdd, isa.DTypeFP32, isa.DTypeFP32, 0},
		{"bf16/max", arith, isa.ALUMax, isa.DTypeBFLOAT16, isa.DTypeBFLOAT16, 0},
		{"int32/add", arith, isa.ALUAdd, isa.DTypeINT32, isa.DTypeINT32, 0},
		{"int32/add_int", arith, isa.ALUAddInt, isa.DTypeINT32, isa.DTypeINT32, 0},
		{"uint32/and", bitvec, isa.ALUBitwiseAnd, isa.DTypeUINT32, isa.DTypeUINT32, 0},
		{"uint32/xor", bitvec, isa.ALUBitwiseXor, isa.DTypeUINT32, isa.DTypeUINT32, 0},
	} {
		x, xy := ob, ob
		x.name += "/X"
		xy.name += "/XY32"
		xy.group = 32
		benches = append(benches, x, xy)
	}
	runOpBenches(b, benches)
}

func BenchmarkTensorCumulative(b *testing.B) {
	op := isa.OpTENSOR_CUMULATIVE_ARITH_OP
	runOpBenches(b, []opBench{
		{"fp32/add/X", op, isa.ALUAdd, isa.DTypeFP32, isa.DTypeFP32, 0},
		{"fp32/add/XY32", op, isa.ALUAdd, isa.DTypeFP32, isa.DTypeFP32, 32},
	})
}

func BenchmarkReciprocal(b *testing.B) {
	op := isa.OpRECIPROCAL
	runOpBenches(b, []opBench{
		{"fp32", op, 0, isa.DTypeFP32, isa.DTypeFP32, 0},
		{"bf16-fp32", op, 0, isa.DTypeBFLOAT16, isa.DTypeFP32, 0},
	})
}

func BenchmarkCast(b *testing.B) {
	op := isa.OpCAST
	runOpBenches(b, []opBench{
		{"fp32-bf16", op, 0, isa.DTypeFP32, isa.DTypeBFLOAT16, 0},
		{"fp32-int8", op, 0, isa.DTypeFP32, isa.DTypeINT8, 0},
	})
}

func BenchmarkTransposeTensorReduce(b *testing.B) {
	op := isa.OpTRANSPOSE_TENSOR_REDUCE_ARITH_OP
	runOpBenches(b, []opBench{{"fp32/add/X", op, isa.ALUAdd, isa.DTypeFP32, isa.DTypeFP32, 0}})
}

// BenchmarkStreamShuffle runs a channel-reversing mask (output channel i of each group of 32
// takes input channel 31-i).
func BenchmarkStreamShuffle(b *testing.B) {
	for _, sz := range benchSizes {
		b.Run("fp32/"+sz.name, func(b *testing.B) {
			ob := opBench{"", isa.OpSTREAM_SHUFFLE, 0, isa.DTypeFP32, isa.DTypeFP32, 0}
			m, in := benchOpInst(b, ob, sz.bytes)
			d := &DVE{}
			lm := &isa.LoadMaskSelect{Header: isa.Header{Opcode: isa.OpLOAD_MASK_SELECT, InstWordLen: isa.InstWordLen}}
			for i := range lm.Immediate {
				lm.Immediate[i] = uint8(31 - i)
			}
			if _, err := d.Execute(m, lm, isa.CAYMAN); err != nil {
				b.Fatal(err)
			}
			benchExec(b, d, m, in, sz.bytes)
		})
	}
}
