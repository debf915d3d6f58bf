package isa

import (
	"fmt"
	"strings"

	"github.com/tpbsim/tpbsim/fault"
)

// Features are the facts of one generation that the instruction layer reads: its header banner
// version, its DVE table generation, its memory geometry and which optional ISA forms it has.
// Each generation's row is the previous generation's, copied and patched where the sources say
// the generation differs; nothing else in the package asks which generation it is.
type Features struct {
	Gen         Generation
	NCVersion   int      // the ISA header banner's NeuronCore version (FACTS "Known conflicts")
	DTypes      DTypeSet // the DTYPE codes the generation's header defines (FACTS §A.1)
	DVETableGen int      // DVE microcode table generation (FACTS §E.0); 0: none
	Geometry    Geometry

	// EventWaits: WAIT_MODE has the event waits WAIT_FOR_EVT_0x06/0x07/0x0E/0x0F (FACTS §B.2;
	// dropped on MAVERICK, §G.4).
	EventWaits bool
	// RegOffsetWaits: WAIT_MODE has SEM_*_REG_OFFSET (0x91..0x95) and UNORDERED (0xFE) (MAVERICK).
	RegOffsetWaits bool
	// IndirectTensor4D: a TENSOR4D start address may carry the INDIRECT marker (bit 29), the
	// indirect form of MEM_PATTERN4D (MARIANA on, FACTS §B.3).
	IndirectTensor4D bool
	// QuantizeMXSaturate: QUANTIZE_MX (0xE3) may OR bit 0 (SATURATE) into inst_word_len
	// (MARIANA on, FACTS §B.1).
	QuantizeMXSaturate bool
	// FP4: is_valid_dtype_inc_fp4 admits FP4_EXP2, and FP4_EXP2 has the 1-byte alignment class
	// (MARIANA on, FACTS §A.1, §B.3).
	FP4 bool
	// FP8Exp2Aligned: FP8_EXP2 (0x11) has the 1-byte alignment class (MAVERICK; INFERRED,
	// Provenance isa.maverick_fp8_exp2_alignment).
	FP8Exp2Aligned bool
	// GatherTranspose: the ISA has DMA_GATHER_TRANSPOSE (0xF1), the DGE's gather-by-index then
	// crossbar transpose, which an indirect DMA transpose lowers to (CAYMAN on; NKI.md §3:
	// "TRN2 (CAYMAN) or newer"). Not patched by hand: each row takes it from the opcode table's
	// First/Last columns (Opcode.InGen), where the presence is written.
	GatherTranspose bool
}

// featureTable holds each generation's row, built oldest first: each row starts as a copy of
// the one before.
var featureTable = func() (t [numGenerations]Features) {
	f := Features{
		Gen: SUNDA, NCVersion: 2, DVETableGen: 2,
		Geometry: Geometry{
			StateBufNumPartitions:   128,
			StateBufPartitionSize:   256 * KiB,
			StateBufPartitionActive: 192 * KiB,
			StateBufOffset:          0,
			StateBufSize:            0x2000000,
			PSUMNumPartitions:       128,
			PSUMPartitionSize:       32 * KiB,
			PSUMPartitionActive:     16 * KiB,
			PSUMNumBanks:            16,
			PSUMBankSize:            1024,
			PSUMOffset:              0x2000000,
			PSUMSize:                0x400000,
			DMAEngineCount:          16,
			DMAEngineDataWidthBytes: 32,
			PoolingNumChannels:      128,
			DVENumChannels:          128,
			PEArrayRows:             128,
			PEArrayCols:             128,
			NumSemaphores:           256,
			NumAddrRegisters:        64,
			NumDGEShapeRegisters:    4,
			TPBPartitionAddrMask:    TPBPartitionAddrMask,
			InstNBytes:              InstNBytes,
			InstWordLen:             InstWordLen,
		},
		EventWaits: true,
		DTypes:     dtypeRange(DTypeINVALID, DTypeFP8_EXP5), // 0x00..0x0F
	}
	t[SUNDA] = f

	f.Gen, f.NCVersion, f.DVETableGen = CAYMAN, 3, 3
	f.Geometry.StateBufPartitionActive = 224 * KiB
	f.Geometry.PSUMNumBanks, f.Geometry.PSUMBankSize = 8, 2048
	t[CAYMAN] = f

	f.Gen, f.NCVersion, f.DVETableGen = MARIANA, 4, 4
	f.Geometry.StateBufPartitionActive = 256 * KiB
	f.IndirectTensor4D, f.QuantizeMXSaturate, f.FP4 = true, true, true
	f.DTypes |= dtypeRange(DTypeFP4_EXP2, DTypeFP4_EXP2) | dtypeRange(DTypeCPTC1, DTypeCPTC7)
	t[MARIANA] = f

	f.Gen = MARIANA_PLUS // shares the MARIANA ISA headers
	t[MARIANA_PLUS] = f

	f.Gen, f.NCVersion, f.DVETableGen = MAVERICK, 5, 0
	f.Geometry.StateBufPartitionSize = 1024 * KiB
	f.Geometry.StateBufPartitionActive = 512 * KiB
	f.Geometry.StateBufSize = 0x8000000
	f.Geometry.PSUMSize = 0 // as read from the v5 header: PSUM predicates never pass
	f.Geometry.DMAEngineCount = 8
	f.Geometry.DMAEngineDataWidthBytes = 256
	f.Geometry.PEArrayCols = 256
	f.EventWaits, f.RegOffsetWaits = false, true
	f.FP8Exp2Aligned = true
	f.DTypes |= dtypeRange(DTypeFP8_EXP2, DTypeSFP8_E5) // FP8_EXP2, INT4, SFP8_E8..E5
	t[MAVERICK] = f

	// Opcode presence is the opcode table's; the rows expose what the layers above ask of it.
	for _, g := range Generations {
		t[g].GatherTranspose = OpDMA_GATHER_TRANSPOSE.InGen(g)
	}
	return t
}()

// DTypeSet is a set of DTYPE codes below 32 (every code FACTS §A.1 lists).
type DTypeSet uint32

// Has reports whether d is in the set.
func (s DTypeSet) Has(d DType) bool { return d < 32 && s&(1<<d) != 0 }

// dtypeRange is the set of codes lo..hi.
func dtypeRange(lo, hi DType) DTypeSet {
	var s DTypeSet
	for d := lo; d <= hi; d++ {
		s |= 1 << d
	}
	return s
}

// featureRow is g's row, or the zero row (Gen g, nothing present) for an invalid g.
func featureRow(g Generation) *Features {
	if g.Valid() {
		return &featureTable[g]
	}
	return &noFeatures
}

var noFeatures Features

// Features returns generation g's row of the feature table; an invalid generation is a
// *GenerationError, never another generation's row.
func (g Generation) Features() (Features, error) {
	if err := g.Check(); err != nil {
		return Features{Gen: g}, err
	}
	return featureTable[g], nil
}

// Check is nil for one of the five modelled generations and a *GenerationError otherwise.
// Every entry point of the package that takes a generation and can fail calls it.
func (g Generation) Check() error {
	if g.Valid() {
		return nil
	}
	return &GenerationError{Gen: g}
}

// RuleGeneration is the rule an invalid generation breaks.
const RuleGeneration = "isa.generation"

// GenerationError is a Generation that is none of the modelled ones (GenInvalid, the zero
// value, or a value past MAVERICK). It unwraps to fault.ErrInvalid.
type GenerationError struct{ Gen Generation }

func (e *GenerationError) Error() string {
	return fmt.Sprintf("invalid generation %v (want %s)", e.Gen, generationList)
}

// Unwrap gives the category.
func (e *GenerationError) Unwrap() error { return fault.ErrInvalid }

// RuleID is RuleGeneration.
func (e *GenerationError) RuleID() string { return RuleGeneration }

// ErrPath names what is wrong: the generation.
func (e *GenerationError) ErrPath() string { return "generation" }

// Violation is the error as a violation of an instruction validated on the generation.
func (e *GenerationError) Violation() Violation {
	return Violation{Rule: RuleGeneration, Field: "generation", Value: e.Gen.String(), Legal: generationList, Offset: -1}
}

// generationList is the legal values, "SUNDA, CAYMAN, MARIANA, MARIANA_PLUS or MAVERICK".
var generationList = func() string {
	names := make([]string, len(Generations))
	for i, g := range Generations {
		names[i] = g.String()
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}()
