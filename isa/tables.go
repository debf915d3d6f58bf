package isa

// Array forms of the enum tables (dtypeTable, aluTable, opcodeTable) for the decode and
// validation hot paths: a map lookup per field costs more than the whole decode.

var (
	dtypeArr, dtypeKnown = func() (t [256]dtypeInfo, k [256]bool) {
		for d, in := range dtypeTable {
			t[d], k[d] = in, true
		}
		return
	}()
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
