package isa

// Array forms of the enum tables (aluTable, opcodeTable; dtypeArr is num's) for the decode and
// validation hot paths: a map lookup per field costs more than the whole decode.

var (
	aluArr, aluKnown = func() (t [256]aluInfo, k [256]bool) {
		for o, in := range aluTable {
			t[o], k[o] = in, true
		}
		return
	}()
	opcodeArr, opcodeKnown = func() (t [256]OpcodeInfo, k [256]bool) {
		for o, in := range opcodeTable {
			t[o], k[o] = in, true
		}
		return
	}()
)
