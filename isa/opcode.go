package isa

import (
	"fmt"
	"strings"
)

// Opcode is NEURON_ISA_TPB_OPCODE, byte 0 of every 64-byte instruction word: the union
// discriminant that selects the operand struct (FACTS §C.1, §D.2, §E.2).
type Opcode uint8

// The opcodes tpbsim models in full, and those it names. Names are the ISA header's where the
// header is known (FACTS "Known conflicts": the ISA names win over the compiler's), otherwise
// the compiler's DVE roster names in the same UPPER_SNAKE style.
const (
	OpTENSOR_REDUCE_ARITH_OP            Opcode = 0x42
	OpTENSOR_REDUCE_BITVEC_OP           Opcode = 0x52
	OpTRANSPOSE_TENSOR_REDUCE_ARITH_OP  Opcode = 0x83
	OpTRANSPOSE_TENSOR_REDUCE_BITVEC_OP Opcode = 0x84
	OpTENSOR_CUMULATIVE_ARITH_OP        Opcode = 0x4E
	OpTENSOR_CUMULATIVE_BITVEC_OP       Opcode = 0x5E
	OpCOPY                              Opcode = 0x46
	OpCAST                              Opcode = 0x47
	OpRECIPROCAL                        Opcode = 0x48
	OpSTREAM_SHUFFLE                    Opcode = 0x6A
	OpSTREAM_TRANSPOSE                  Opcode = 0x6B
	OpTENSOR_REDUCE_ADD_BF16            Opcode = 0x8C // SUNDA only
	OpTENSOR_REDUCE_MAX_BF16            Opcode = 0x8D // SUNDA only
	OpLOAD_MASK_SELECT                  Opcode = 0x69
	OpMEMSET                            Opcode = 0x49
	OpDMAMEMCPY                         Opcode = 0xB8 // DMA_DIRECT2D
	OpDMA_INDIRECT                      Opcode = 0xBB // DMA_INDIRECT1D
	OpDMA_TRANSPOSE                     Opcode = 0xBD // DMA_DIRECT2D_XPOSE
	OpDMA_GATHER_TRANSPOSE              Opcode = 0xF1 // DMA_GATHER_XPOSE, CAYMAN+
	OpDMA_MEMCPY2                       Opcode = 0xB9 // MAVERICK only
	OpDMA_IMMEDIATE                     Opcode = 0xBA // MAVERICK only
	OpPSEUDO_DMAMEMCPY_FULL_IND         Opcode = 0xC4
	OpPSEUDO_DMA_DIRECT2D               Opcode = 0xD4
	OpPSEUDO_CORE_BARRIER               Opcode = 0xD8
	OpPSEUDO_EXTENSION                  Opcode = 0xDA
	OpCROSS_LANE_REDUCE_ARITH           Opcode = 0x7C // S4D4_CR
	OpCROSS_LANE_REDUCE_BITVEC          Opcode = 0x7D // S4D4_CR
)

// Engine is an engine whose queue executes instructions (FACTS §A.4 NEURON_ENGINE: PE, ACT, POOL,
// DVE, TPB_SP, TOP_SP). The zero value is EngineNone: no engine. The Go values are not the
// NEURON_ENGINE codes (PE = 0 there); Code and EngineOfCode convert. No wire field, JSON key or
// assembly line carries the numeric value: engines are written by name.
type Engine uint8

const (
	EngineNone   Engine = iota // not executed by any modelled engine queue; the zero value
	EnginePE                   // NEURON_ENGINE PE = 0
	EngineACT                  // ACT = 1
	EnginePOOL                 // POOL = 2 (GpSimd)
	EngineDVE                  // DVE = 3
	EngineTPB_SP               // TPB_SP = 4 ("SP")
	EngineTOP_SP               // TOP_SP = 5
)

// Code is e's NEURON_ENGINE code (FACTS §A.4); false for EngineNone and values outside the enum.
func (e Engine) Code() (uint8, bool) {
	if !e.valid() {
		return 0, false
	}
	return uint8(e - EnginePE), true
}

// EngineOfCode is the engine of NEURON_ENGINE code c; false for a code FACTS does not list.
func EngineOfCode(c uint8) (Engine, bool) {
	if c > uint8(EngineTOP_SP-EnginePE) {
		return EngineNone, false
	}
	return Engine(c) + EnginePE, true
}

// valid reports an engine of the enum (not EngineNone, not out of range).
func (e Engine) valid() bool { return e >= EnginePE && e <= EngineTOP_SP }

func (e Engine) String() string {
	switch e {
	case EnginePE:
		return "PE"
	case EngineACT:
		return "ACT"
	case EnginePOOL:
		return "POOL"
	case EngineDVE:
		return "DVE"
	case EngineTPB_SP:
		return "SP"
	case EngineTOP_SP:
		return "TOP_SP"
	case EngineNone:
		return "none"
	}
	return fmt.Sprintf("Engine(%d)", uint8(e))
}

// EngineSet is a set of engines, one bit per Engine value.
type EngineSet uint16

// EngineSetOf is the set holding es (EngineNone and out-of-range values are left out).
func EngineSetOf(es ...Engine) EngineSet {
	var s EngineSet
	for _, e := range es {
		if e.valid() {
			s |= 1 << e
		}
	}
	return s
}

// Has reports whether e is in the set (never for EngineNone).
func (s EngineSet) Has(e Engine) bool { return e.valid() && s&(1<<e) != 0 }

// engineOrder is the order sets list their engines in: the machine's queues first (DVE, POOL,
// ACT, SP), then the engines without a modelled queue.
var engineOrder = [...]Engine{EngineDVE, EnginePOOL, EngineACT, EngineTPB_SP, EnginePE, EngineTOP_SP}

// List returns the set's engines in the order DVE, POOL, ACT, SP, PE, TOP_SP.
func (s EngineSet) List() []Engine {
	var out []Engine
	for _, e := range engineOrder {
		if s.Has(e) {
			out = append(out, e)
		}
	}
	return out
}

// String lists the engines, e.g. "DVE, POOL, ACT"; the empty set is "none".
func (s EngineSet) String() string {
	if s&allEngines == 0 {
		return "none"
	}
	var b strings.Builder
	for _, e := range s.List() {
		if b.Len() > 0 {
			b.WriteString(", ")
		}
		b.WriteString(e.String())
	}
	return b.String()
}

// allEngines holds every engine an EngineSet can hold.
var allEngines = EngineSetOf(engineOrder[:]...)

// ParseEngine accepts an engine name as printed by String (case-insensitive; "TPB_SP" too).
func ParseEngine(s string) (Engine, error) {
	switch upper(s) {
	case "PE":
		return EnginePE, nil
	case "ACT":
		return EngineACT, nil
	case "POOL", "GPSIMD":
		return EnginePOOL, nil
	case "DVE":
		return EngineDVE, nil
	case "SP", "TPB_SP":
		return EngineTPB_SP, nil
	case "TOP_SP":
		return EngineTOP_SP, nil
	}
	return EngineNone, parseErr(RuleEngineName, "engine", "unknown engine %q (want DVE, POOL, ACT, SP, PE)", s)
}

func upper(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'a' && c <= 'z' {
			b[i] = c - 32
		}
	}
	return string(b)
}

// OpcodeInfo is the per-opcode row of the opcode table: everything else (decode dispatch,
// validators, executor, disassembler, explain) is derived from it.
type OpcodeInfo struct {
	Name    string
	Struct  StructKind
	Engine  Engine     // queue that executes it in a bare instruction list
	Engines EngineSet  // every queue whose executor runs it in tpbsim's machine (empty: named only)
	First   Generation // first generation whose ISA has it
	Last    Generation // last generation whose ISA has it (MAVERICK when still present)
	Doc     string     // one line: what it does, with the seed/FACTS section
}

// The engine sets of the opcode table (FACTS §D.2 engine surface column, §F.2 engine check,
// §C.1): the DVE runs the whole S4D4_TR family, LOAD_MASK_SELECT and MEMSET; POOL (GpSimd) COPY,
// CAST, the (transpose-)reduces and DMA issue (the software DGE, so DMA_GATHER_TRANSPOSE too);
// ACT COPY, CAST and DMA issue; SP DMA issue. An opcode tpbsim only names runs nowhere.
var (
	dveOnly    = EngineSetOf(EngineDVE)
	dvePool    = EngineSetOf(EngineDVE, EnginePOOL)
	dvePoolAct = EngineSetOf(EngineDVE, EnginePOOL, EngineACT)
	poolOnly   = EngineSetOf(EnginePOOL)
	dmaQueues  = EngineSetOf(EnginePOOL, EngineACT, EngineTPB_SP)
	noQueue    = EngineSet(0)
)

var opcodeTable = map[Opcode]OpcodeInfo{
	0x42: {"TENSOR_REDUCE_ARITH_OP", StructS4D4_TR, EngineDVE, dvePool, SUNDA, MAVERICK, "fold src along op_dim with an arithmetic ALU op (FACTS §D.2)"},
	0x52: {"TENSOR_REDUCE_BITVEC_OP", StructS4D4_TR, EngineDVE, dvePool, SUNDA, MAVERICK, "fold src along op_dim with a bitvec ALU op (FACTS §D.2)"},
	0x83: {"TRANSPOSE_TENSOR_REDUCE_ARITH_OP", StructS4D4_TR, EngineDVE, dvePool, SUNDA, MAVERICK, "32x32 transpose then arithmetic reduce (seed 000 §3)"},
	0x84: {"TRANSPOSE_TENSOR_REDUCE_BITVEC_OP", StructS4D4_TR, EngineDVE, dvePool, SUNDA, MAVERICK, "32x32 transpose then bitvec reduce (seed 000 §3)"},
	0x4E: {"TENSOR_CUMULATIVE_ARITH_OP", StructS4D4_TR, EngineDVE, dveOnly, SUNDA, MAVERICK, "inclusive scan along op_dim, arithmetic (FACTS §D.5)"},
	0x5E: {"TENSOR_CUMULATIVE_BITVEC_OP", StructS4D4_TR, EngineDVE, dveOnly, SUNDA, MAVERICK, "inclusive scan along op_dim, bitvec (FACTS §D.5)"},
	0x46: {"COPY", StructS4D4_TR, EngineDVE, dvePoolAct, SUNDA, MAVERICK, "bit-exact element move src pattern -> dst pattern (FACTS §D.5)"},
	0x47: {"CAST", StructS4D4_TR, EngineDVE, dvePoolAct, SUNDA, MAVERICK, "dtype conversion through FP32 (FACTS §D.5)"},
	0x48: {"RECIPROCAL", StructS4D4_TR, EngineDVE, dveOnly, SUNDA, MAVERICK, "elementwise 1/x in FP32 (FACTS §D.5)"},
	0x6A: {"STREAM_SHUFFLE", StructS4D4_TR, EngineDVE, dveOnly, SUNDA, MAVERICK, "cross-channel permute within 32-channel groups by the LOAD_MASK_SELECT mask (FACTS §D.5)"},
	0x6B: {"STREAM_TRANSPOSE", StructS4D4_TR, EngineDVE, dveOnly, SUNDA, MAVERICK, "32 element x 32 channel transpose of the data (seed 000 §1)"},
	0x8C: {"TENSOR_REDUCE_ADD_BF16", StructS4D4_TR, EngineDVE, dveOnly, SUNDA, SUNDA, "SUNDA-only BF16 add-reduce (FACTS §D.2)"},
	0x8D: {"TENSOR_REDUCE_MAX_BF16", StructS4D4_TR, EngineDVE, dveOnly, SUNDA, SUNDA, "SUNDA-only BF16 max-reduce (FACTS §D.2)"},
	0x69: {"LOAD_MASK_SELECT", StructCTRL_IM, EngineDVE, dveOnly, SUNDA, MAVERICK, "load the 32-entry lane map StreamShuffle uses (FACTS §F.4)"},
	0x49: {"MEMSET", StructD4_MR, EngineDVE, dveOnly, SUNDA, MAVERICK, "fill a dst pattern with set_value (FACTS §F.4)"},
	0xB8: {"DMAMEMCPY", StructDMA_DIRECT2D, EngineTPB_SP, dmaQueues, SUNDA, MAVERICK, "2-D strided DMA copy, optional cast and compute_op (FACTS §C.2)"},
	0xBB: {"DMA_INDIRECT", StructDMA_INDIRECT1D, EngineTPB_SP, dmaQueues, SUNDA, MAVERICK, "1-D DMA with gather/scatter indices (FACTS §C.3)"},
	// 0xBD from CAYMAN: INFERRED (Provenance dge.dma_transpose_generations): SUNDA has no DGE
	// transpose machinery and no transpose-reshape descriptor header (seed 003 §6.1, FACTS §C.7).
	0xBD: {"DMA_TRANSPOSE", StructDMA_DIRECT2D_XPOSE, EngineTPB_SP, dmaQueues, CAYMAN, MAVERICK, "plain crossbar DMA transpose (CAYMAN+, INFERRED); partial layout (FACTS §C.5)"},
	0xF1: {"DMA_GATHER_TRANSPOSE", StructDMA_GATHER_XPOSE, EnginePOOL, poolOnly, CAYMAN, MAVERICK, "gather rows by uint32 index then 16x128 crossbar transpose into SBUF (seed 003 §3.3)"},
	0xB9: {"DMA_MEMCPY2", StructNone, EngineTPB_SP, noQueue, MAVERICK, MAVERICK, "MAVERICK inline-descriptor copy (FACTS §C.1)"},
	0xBA: {"DMA_IMMEDIATE", StructNone, EngineTPB_SP, noQueue, MAVERICK, MAVERICK, "MAVERICK inline immediate DMA (FACTS §C.1)"},
	0xC4: {"PSEUDO_DMAMEMCPY_FULL_IND", StructNone, EngineNone, noQueue, SUNDA, MAVERICK, "compiler pseudo-op, rewritten by the runtime (FACTS §C.1)"},
	0xD4: {"PSEUDO_DMA_DIRECT2D", StructNone, EngineNone, noQueue, SUNDA, MAVERICK, "compiler pseudo-op carrying dge_op@15 (FACTS §C.1)"},
	0xD8: {"PSEUDO_CORE_BARRIER", StructNone, EngineNone, noQueue, SUNDA, MAVERICK, "compiler pseudo-op (FACTS §A.4)"},
	0xDA: {"PSEUDO_EXTENSION", StructNone, EngineNone, noQueue, SUNDA, MAVERICK, "must follow PSEUDO_DMA_DIRECT2D for kinds 1..3 (FACTS §C.1)"},
	0x7C: {"CROSS_LANE_REDUCE_ARITH_OP", StructNone, EnginePOOL, noQueue, SUNDA, MAVERICK, "cross-partition reduce on S4D4_CR (FACTS §D.6)"},
	0x7D: {"CROSS_LANE_REDUCE_BITVEC_OP", StructNone, EnginePOOL, noQueue, SUNDA, MAVERICK, "cross-partition reduce on S4D4_CR (FACTS §D.6)"},
	0x02: {"MATMUL", StructNone, EnginePE, noQueue, SUNDA, MAVERICK, "PE matrix multiply (FACTS §F.4)"},
	// The DVE microcode roster (FACTS §E.2), named for disassembly; not modelled.
	0x30: {"EXPONENTIAL", StructNone, EngineDVE, noQueue, MARIANA, MAVERICK, "DVE roster, gen4"},
	0x41: {"TENSOR_TENSOR_ARITH_OP", StructNone, EngineDVE, noQueue, SUNDA, MAVERICK, "DVE roster"},
	0x43: {"TENSOR_SCALAR_ARITH_OP", StructNone, EngineDVE, noQueue, SUNDA, MAVERICK, "DVE roster"},
	0x44: {"TENSOR_SCALAR_PTR_ARITH_OP", StructNone, EngineDVE, noQueue, SUNDA, MAVERICK, "DVE roster"},
	0x45: {"POOL", StructNone, EngineDVE, noQueue, SUNDA, MAVERICK, "DVE roster"},
	0x4D: {"RNG", StructNone, EngineDVE, noQueue, SUNDA, MAVERICK, "DVE roster"},
	0x51: {"TENSOR_TENSOR_BITVEC_OP", StructNone, EngineDVE, noQueue, SUNDA, MAVERICK, "DVE roster"},
	0x53: {"TENSOR_SCALAR_BITVEC_OP", StructNone, EngineDVE, noQueue, SUNDA, MAVERICK, "DVE roster"},
	0x54: {"TENSOR_SCALAR_PTR_BITVEC_OP", StructNone, EngineDVE, noQueue, SUNDA, MAVERICK, "DVE roster"},
	0x58: {"MAX_POOL_SELECT", StructNone, EngineDVE, noQueue, SUNDA, MAVERICK, "DVE roster"},
	0x60: {"BATCH_NORM_0x60", StructNone, EngineDVE, noQueue, CAYMAN, MAVERICK, "DVE roster, BatchNorm family (exact name not known)"},
	0x61: {"BATCH_NORM_STATS2", StructNone, EngineDVE, noQueue, SUNDA, MAVERICK, "DVE roster"},
	0x62: {"BATCH_NORM_0x62", StructNone, EngineDVE, noQueue, SUNDA, MAVERICK, "DVE roster, BatchNorm family (exact name not known)"},
	0x63: {"BATCH_NORM_0x63", StructNone, EngineDVE, noQueue, SUNDA, MAVERICK, "DVE roster, BatchNorm family (exact name not known)"},
	0x64: {"BATCH_NORM_0x64", StructNone, EngineDVE, noQueue, SUNDA, MAVERICK, "DVE roster, BatchNorm family (exact name not known)"},
	0x65: {"BATCH_NORM_0x65", StructNone, EngineDVE, noQueue, SUNDA, MAVERICK, "DVE roster, BatchNorm family (exact name not known)"},
	0x66: {"LOAD_PARAMETER_RAM", StructNone, EngineDVE, noQueue, SUNDA, MAVERICK, "DVE roster"},
	0x6C: {"MAX8", StructNone, EngineDVE, noQueue, SUNDA, MAVERICK, "DVE roster"},
	0x6D: {"MATCH_VALUE_LOAD", StructNone, EngineDVE, noQueue, SUNDA, MAVERICK, "DVE roster"},
	0x6E: {"FIND_INDEX8", StructNone, EngineDVE, noQueue, SUNDA, MAVERICK, "DVE roster"},
	0x6F: {"MATCH_REPLACE8", StructNone, EngineDVE, noQueue, SUNDA, MAVERICK, "DVE roster"},
	0x72: {"COPY_PREDICATED", StructNone, EngineDVE, noQueue, SUNDA, MAVERICK, "DVE roster"},
	0x77: {"RAND_GET_STATE", StructNone, EngineDVE, noQueue, MARIANA, MAVERICK, "DVE roster, gen4"},
	0x78: {"RAND_SET_STATE", StructNone, EngineDVE, noQueue, MARIANA, MAVERICK, "DVE roster, gen4"},
	0x7F: {"DROPOUT", StructNone, EngineDVE, noQueue, SUNDA, MAVERICK, "DVE roster"},
	0x82: {"TRANSPOSE_BATCH_NORM_STATS2", StructNone, EngineDVE, noQueue, SUNDA, MAVERICK, "DVE roster"},
	0x8E: {"BATCH_NORM_PARAM_LOAD2", StructNone, EngineDVE, noQueue, SUNDA, MAVERICK, "DVE roster"},
	0x93: {"TRANSPOSE_TENSOR_SCALAR_ARITH_OP", StructNone, EngineDVE, noQueue, CAYMAN, MAVERICK, "DVE roster"},
	0x94: {"BATCH_NORM_GRAD_ACCUMULATE2", StructNone, EngineDVE, noQueue, SUNDA, MAVERICK, "DVE roster"},
	0x98: {"TENSOR_SCALAR_SELECT", StructNone, EngineDVE, noQueue, CAYMAN, MAVERICK, "DVE roster"},
	0x99: {"CAST_PREDICATED", StructNone, EngineDVE, noQueue, SUNDA, MAVERICK, "DVE roster"},
	0x9A: {"TENSOR_SCALAR_CACHE_REDUCE", StructNone, EngineDVE, noQueue, CAYMAN, MAVERICK, "DVE roster"},
	0x9B: {"DVE_READ_ACCUMULATOR", StructNone, EngineDVE, noQueue, CAYMAN, MAVERICK, "DVE roster"},
	0x9D: {"SCALAR_TENSOR_TENSOR_ARITH", StructNone, EngineDVE, noQueue, SUNDA, MAVERICK, "DVE roster"},
	0x9E: {"SCALAR_TENSOR_TENSOR_BITVEC", StructNone, EngineDVE, noQueue, SUNDA, MAVERICK, "DVE roster"},
	0x9F: {"ENGINE_NOP", StructNone, EngineDVE, noQueue, SUNDA, MAVERICK, "DVE roster (gen2 table only)"},
	0xBC: {"RANGE_SELECT", StructNone, EngineDVE, noQueue, CAYMAN, MAVERICK, "DVE roster, gen3+"},
	0xE0: {"SPARSITY_COMPRESS", StructNone, EngineDVE, noQueue, MARIANA, MAVERICK, "DVE roster, gen4"},
	0xE1: {"SPARSITY_COMPRESS_TAG", StructNone, EngineDVE, noQueue, MARIANA, MAVERICK, "DVE roster, gen4"},
	0xE2: {"RAND2", StructNone, EngineDVE, noQueue, MARIANA, MAVERICK, "DVE roster, gen4"},
	0xE3: {"QUANTIZE_MX", StructNone, EngineDVE, noQueue, MARIANA, MAVERICK, "DVE roster, gen4; header bit0 of inst_word_len = SATURATE"},
	0xE5: {"DVE_OP_0xE5", StructNone, EngineDVE, noQueue, SUNDA, MAVERICK, "DVE roster (name not known)"},
	0xE6: {"TENSOR_SCALAR_CACHE_CUMULATIVE", StructNone, EngineDVE, noQueue, CAYMAN, MAVERICK, "DVE roster"},
	0xE8: {"DVE_OP_0xE8", StructNone, EngineDVE, noQueue, SUNDA, MAVERICK, "DVE roster (name not known)"},
	0xE9: {"DVE_READ_INDICES", StructNone, EngineDVE, noQueue, CAYMAN, MAVERICK, "DVE roster"},
	0xEA: {"SELECT_REDUCE", StructNone, EngineDVE, noQueue, SUNDA, MAVERICK, "DVE roster"},
	0xF0: {"EXTENDED_INST", StructNone, EngineDVE, noQueue, CAYMAN, MAVERICK, "DVE roster"},
}

// Info returns the opcode's table row and whether tpbsim knows the opcode at all.
func (o Opcode) Info() (OpcodeInfo, bool) {
	return opcodeArr[o], opcodeKnown[o]
}

func (o Opcode) String() string {
	if opcodeKnown[o] {
		return opcodeArr[o].Name
	}
	return fmt.Sprintf("Opcode(0x%02x)", uint8(o))
}

// Known reports whether tpbsim has a name for o.
func (o Opcode) Known() bool { return opcodeKnown[o] }

// InGen reports whether generation g's ISA has opcode o (as far as FACTS records presence).
func (o Opcode) InGen(g Generation) bool {
	in := &opcodeArr[o]
	return opcodeKnown[o] && g.Valid() && g >= in.First && g <= in.Last
}

// Struct is the operand struct o binds to (StructNone for named-only opcodes).
func (o Opcode) Struct() StructKind { return opcodeArr[o].Struct }

// IsDMA reports whether o is a DMA instruction: one of the DMA descriptor structs (FACTS §C.2-§C.5),
// which a queue issues to the DMA engines rather than executing itself.
func (o Opcode) IsDMA() bool { return o.Struct().IsDMA() }

// IsDMA reports whether k is one of the DMA descriptor structs (FACTS §C.2-§C.5).
func (k StructKind) IsDMA() bool {
	switch k {
	case StructDMA_DIRECT2D, StructDMA_INDIRECT1D, StructDMA_GATHER_XPOSE, StructDMA_DIRECT2D_XPOSE:
		return true
	}
	return false
}

// Engine is the engine whose queue executes o in a bare instruction list.
func (o Opcode) Engine() Engine {
	if opcodeKnown[o] {
		return opcodeArr[o].Engine
	}
	return EngineNone
}

// Engines is the set of engine queues whose executor runs o in tpbsim's machine: the engine
// check of a run (FACTS §F.2, "opcode legal on this engine"). It is empty for an opcode tpbsim
// only names (or does not know): no queue executes it.
func (o Opcode) Engines() EngineSet { return opcodeArr[o].Engines }

// IsPseudo is the pseudo-opcode rule: top 3 bits 0b110 (0xC0..0xDF); the runtime rewrites them
// (FACTS §A.4).
func (o Opcode) IsPseudo() bool { return o&0xE0 == 0xC0 }

// ParseOpcode accepts an opcode name (as printed by String, case-insensitive) or a number.
func ParseOpcode(s string) (Opcode, error) {
	for op, in := range opcodeTable {
		if strings.EqualFold(in.Name, strings.TrimSpace(s)) { // names like BATCH_NORM_0x60 are mixed case
			return op, nil
		}
	}
	var v uint64
	if _, err := fmt.Sscan(s, &v); err == nil && v < 256 {
		return Opcode(v), nil
	}
	if n, err := parseNumber(s); err == nil && n < 256 {
		return Opcode(n), nil
	}
	return 0, parseErr(RuleOpcodeName, "opcode", "unknown opcode %q (a name of AllOpcodes, or a number below 256)", s)
}

// AllOpcodes lists every named opcode in numeric order.
var AllOpcodes = func() []Opcode {
	var out []Opcode
	for c := 0; c < 256; c++ {
		if _, ok := opcodeTable[Opcode(c)]; ok {
			out = append(out, Opcode(c))
		}
	}
	return out
}()

// S4D4TROpcodes are the opcodes bound to NEURON_ISA_TPB_S4D4_TR_STRUCT on generation g
// (11 on CAYMAN+; 13 on SUNDA with the BF16 reduces).
func S4D4TROpcodes(g Generation) []Opcode {
	var out []Opcode
	for _, op := range AllOpcodes {
		if op.Struct() == StructS4D4_TR && op.InGen(g) {
			out = append(out, op)
		}
	}
	return out
}
