// Package isa models the NeuronCore TPB instruction layer: generations and their geometry,
// the enums (DTYPE, ALU_OP, TENSOR_SUBDIM, WAIT/UPDATE modes, ...), the 64-byte instruction
// structs with their wire layouts, encode/decode, and the validators with their rule registry.
//
// Facts come from shared/seeds/000_7855b39dab98f942.txt and shared/spec/FACTS.md; each
// identifier keeps the hardware's own name so a reader can search from the seed to the code.
package isa

import (
	"fmt"
	"strings"
)

// Generation is a NeuronCore hardware generation. It is an explicit input to every
// decode, validation and execution step (FACTS §0, §B.5, §F.3). The zero value is invalid.
type Generation uint8

const (
	GenInvalid   Generation = iota
	SUNDA                   // NC-v2, DVE table gen2
	CAYMAN                  // NC-v3, DVE table gen3
	MARIANA                 // NC-v4, DVE table gen4
	MARIANA_PLUS            // NC-v4+, shares the MARIANA ISA headers
	MAVERICK                // NC-v5, header-observed only
	numGenerations
)

// DefaultGeneration is the generation the CLI uses when --gen is not given (DESIGN.md §1).
const DefaultGeneration = CAYMAN

// Generations lists every valid generation, oldest first.
var Generations = []Generation{SUNDA, CAYMAN, MARIANA, MARIANA_PLUS, MAVERICK}

var genNames = [...]string{"INVALID", "SUNDA", "CAYMAN", "MARIANA", "MARIANA_PLUS", "MAVERICK"}

func (g Generation) String() string {
	if int(g) < len(genNames) {
		return genNames[g]
	}
	return fmt.Sprintf("Generation(%d)", uint8(g))
}

// Valid reports whether g is one of the five modelled generations.
func (g Generation) Valid() bool { return g > GenInvalid && g < numGenerations }

// ParseGeneration accepts a codename (any case, '-' or '_'), an NC version ("v3", "nc-v4+"),
// or a DVE table generation ("gen2".."gen4").
func ParseGeneration(s string) (Generation, error) {
	k := strings.ToUpper(strings.ReplaceAll(strings.TrimSpace(s), "-", "_"))
	switch k {
	case "SUNDA", "V2", "NC_V2", "GEN2", "TRN1", "INF2":
		return SUNDA, nil
	case "CAYMAN", "V3", "NC_V3", "GEN3", "TRN2":
		return CAYMAN, nil
	case "MARIANA", "V4", "NC_V4", "GEN4", "TRN3":
		return MARIANA, nil
	case "MARIANA_PLUS", "MARIANAPLUS", "V4+", "NC_V4+", "V4PLUS":
		return MARIANA_PLUS, nil
	case "MAVERICK", "V5", "NC_V5", "TRN4":
		return MAVERICK, nil
	}
	return GenInvalid, parseErr(RuleGenerationName, "generation", "unknown generation %q (want SUNDA, CAYMAN, MARIANA, MARIANA_PLUS or MAVERICK)", s)
}

// NCVersion is the NeuronCore version number of the ISA header banner (SUNDA = 2 ... MAVERICK = 5;
// MARIANA_PLUS 4, v4+); 0 for an invalid generation. FACTS "Known conflicts": the banners win over
// seed 000's "v3" for SUNDA.
func (g Generation) NCVersion() int { return featureRow(g).NCVersion }

// Geometry holds the per-generation memory and engine constants of FACTS §B.5.
type Geometry struct {
	StateBufNumPartitions    int    // STATE_BUF_NUM_PARTITIONS
	StateBufPartitionSize    uint32 // STATE_BUF_PARTITION_SIZE (stride)
	StateBufPartitionActive  uint32 // STATE_BUF_PARTITION_ACTIVE_SIZE
	StateBufOffset           uint32 // STATE_BUF_OFFSET
	StateBufSize             uint32 // STATE_BUF_SZ
	PSUMNumPartitions        int    // PSUM_BUF_NUM_PARTITIONS
	PSUMPartitionSize        uint32 // PSUM_BUF_PARTITION_SIZE (stride)
	PSUMPartitionActive      uint32 // PSUM_BUF_PARTITION_ACTIVE_SIZE
	PSUMNumBanks             int    // PSUM_BUF_NUM_BANKS
	PSUMBankSize             uint32 // PSUM bank size in bytes
	PSUMOffset               uint32 // PSUM_BUF_OFFSET
	PSUMSize                 uint32 // PSUM_BUF_SZ (0 on MAVERICK, as read)
	DMAEngineCount           int    // DMA_ENGINE_COUNT_PER_TPB
	DMAEngineDataWidthBytes  int    // DMA_ENGINE_DATA_WIDTH_BYTES
	PoolingNumChannels       int    // POOLING_NUM_CHANNELS
	DVENumChannels           int    // DVE_NUM_CHANNELS
	PEArrayRows, PEArrayCols int
	NumSemaphores            int // EVT_SEM: 256 x 32-bit
	NumAddrRegisters         int // NUM_ADDR_REGISTERS
	NumDGEShapeRegisters     int // NEURON_ISA_TPB_NUM_DGE_SHAPE_REGISTERS
	TPBPartitionAddrMask     uint32
	InstNBytes               int // NEURON_ISA_TPB_INST_NBYTES
	InstWordLen              int // required inst_word_len (dwords)
}

const (
	KiB = 1 << 10
	MiB = 1 << 20
)

// TPBPartitionAddrMask is the 29-bit on-chip byte address mask of ADDR4 (FACTS §B.3).
const TPBPartitionAddrMask = 0x1FFFFFFF

// InstNBytes is the size of every TPB instruction word (FACTS "Global constants").
const InstNBytes = 64

// Geometry returns the constants of generation g (FACTS §B.5), for callers that have checked
// g (Generation.Check, or Features): an invalid generation gives the zero Geometry, which is no
// machine, not another generation's.
func (g Generation) Geometry() Geometry { return featureRow(g).Geometry }

// DVETableGen is the DVE microcode table generation of g (FACTS §E.0): SUNDA gen2, CAYMAN gen3,
// MARIANA and MARIANA_PLUS gen4; MAVERICK has none, and an invalid generation neither (0).
func (g Generation) DVETableGen() int { return featureRow(g).DVETableGen }
