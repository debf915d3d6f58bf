package isa

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/tpbsim/tpbsim/fault"
)

// TestGeometryFACTS: each generation's geometry, written out by hand from FACTS §B.5's table
// (one column per generation), against the copied-and-patched feature table.
func TestGeometryFACTS(t *testing.T) {
	type col struct {
		stride, active, sbufSz, psumSz uint32
		banks                          int
		bank                           uint32
		dmas, dmaWidth, peCols         int
	}
	facts := map[Generation]col{
		SUNDA:        {256 * KiB, 192 * KiB, 0x2000000, 0x400000, 16, 1024, 16, 32, 128},
		CAYMAN:       {256 * KiB, 224 * KiB, 0x2000000, 0x400000, 8, 2048, 16, 32, 128},
		MARIANA:      {256 * KiB, 256 * KiB, 0x2000000, 0x400000, 8, 2048, 16, 32, 128},
		MARIANA_PLUS: {256 * KiB, 256 * KiB, 0x2000000, 0x400000, 8, 2048, 16, 32, 128},
		MAVERICK:     {1024 * KiB, 512 * KiB, 0x8000000, 0, 8, 2048, 8, 256, 256},
	}
	for _, g := range Generations {
		t.Run(g.String(), func(t *testing.T) {
			f, err := g.Features()
			if err != nil {
				t.Fatal(err)
			}
			c, geo := facts[g], f.Geometry
			got := col{geo.StateBufPartitionSize, geo.StateBufPartitionActive, geo.StateBufSize, geo.PSUMSize,
				geo.PSUMNumBanks, geo.PSUMBankSize, geo.DMAEngineCount, geo.DMAEngineDataWidthBytes, geo.PEArrayCols}
			if got != c {
				t.Errorf("geometry %+v, FACTS §B.5 %+v", got, c)
			}
			same := geo.StateBufNumPartitions == 128 && geo.PSUMNumPartitions == 128 && geo.PSUMPartitionSize == 32*KiB &&
				geo.PSUMPartitionActive == 16*KiB && geo.StateBufOffset == 0 && geo.PSUMOffset == 0x2000000 &&
				geo.TPBPartitionAddrMask == 0x1fffffff && geo.PoolingNumChannels == 128 && geo.DVENumChannels == 128 &&
				geo.PEArrayRows == 128 && geo.InstNBytes == 64 && geo.InstWordLen == 16
			if !same {
				t.Errorf("a constant FACTS gives as the same on every generation differs: %+v", geo)
			}
			if f.Gen != g || g.Geometry() != geo {
				t.Errorf("row %v, Geometry() disagrees with Features()", f.Gen)
			}
		})
	}
}

// TestFeatureFlags: the ISA forms each generation has, written out by hand from the sources.
func TestFeatureFlags(t *testing.T) {
	type flags struct {
		nc, dve                                                int
		evt, regOff, indirect, saturate, fp4, fp8exp2, gatherT bool
	}
	want := map[Generation]flags{
		SUNDA:        {2, 2, true, false, false, false, false, false, false},
		CAYMAN:       {3, 3, true, false, false, false, false, false, true},
		MARIANA:      {4, 4, true, false, true, true, true, false, true},
		MARIANA_PLUS: {4, 4, true, false, true, true, true, false, true},
		MAVERICK:     {5, 0, false, true, true, true, true, true, true},
	}
	for _, g := range Generations {
		t.Run(g.String(), func(t *testing.T) {
			f, _ := g.Features()
			got := flags{f.NCVersion, f.DVETableGen, f.EventWaits, f.RegOffsetWaits, f.IndirectTensor4D, f.QuantizeMXSaturate, f.FP4, f.FP8Exp2Aligned, f.GatherTranspose}
			if got != want[g] {
				t.Errorf("%+v, want %+v", got, want[g])
			}
			if g.NCVersion() != f.NCVersion || g.DVETableGen() != f.DVETableGen || f.GatherTranspose != OpDMA_GATHER_TRANSPOSE.InGen(g) {
				t.Error("the accessors disagree with the row")
			}
			// FACTS §A.1's presence columns: 0x00..0x0F everywhere; FP4_EXP2 and CPTC1..7 from
			// MARIANA; FP8_EXP2, INT4 and the four SFP8 codes on MAVERICK.
			present := map[Generation]string{SUNDA: "0-15", CAYMAN: "0-15", MARIANA: "0-16,25-31", MARIANA_PLUS: "0-16,25-31", MAVERICK: "0-22,25-31"}
			var runs []string
			for d := 0; d < 256; {
				if !DType(d).InGen(g) {
					d++
					continue
				}
				e := d
				for e+1 < 256 && DType(e+1).InGen(g) {
					e++
				}
				runs = append(runs, fmt.Sprintf("%d-%d", d, e))
				d = e + 1
			}
			if got := strings.Join(runs, ","); got != present[g] {
				t.Errorf("dtype codes %s, FACTS §A.1 %s", got, present[g])
			}
		})
	}
}

// TestInvalidGeneration: every entry point that takes a generation refuses one outside the
// five with a *GenerationError (rule isa.generation, fault.ErrInvalid, the legal values), and
// the value-returning ones give nothing rather than another generation's answer.
func TestInvalidGeneration(t *testing.T) {
	for _, g := range []Generation{GenInvalid, MAVERICK + 1, 0xFF} {
		t.Run(g.String(), func(t *testing.T) {
			errs := map[string]error{}
			_, errs["Features"] = g.Features()
			errs["Check"] = g.Check()
			_, errs["ParseAddress"] = ParseAddress("sbuf:0:0x10", g)
			_, errs["Addr4"] = Location{Space: SpaceSBUF}.Addr4(g)
			_, errs["Addr8"] = Location{Space: SpaceHBM, Offset: 16}.Addr8(g)
			for name, err := range errs {
				var ge *GenerationError
				if !errors.As(err, &ge) || ge.Gen != g || !errors.Is(err, fault.ErrInvalid) || fault.Rule(err) != RuleGeneration {
					t.Errorf("%s: %v, want a *GenerationError for %v", name, err, g)
				}
			}
			if vs := Validate(s4base(OpCOPY), g); len(vs) != 1 || vs[0].Rule != RuleGeneration || vs[0].Value != g.String() || vs[0].Legal != generationList {
				t.Errorf("Validate: %v", vs)
			}
			if g.Geometry() != (Geometry{}) || g.NCVersion() != 0 || g.DVETableGen() != 0 {
				t.Errorf("an invalid generation reads as a real one: %+v", g.Geometry())
			}
			if _, ok := LocateOnChip(0x100, g); ok {
				t.Error("LocateOnChip located an address on no generation")
			}
			if _, ok := (Location{Space: SpaceSBUF}).OnChip(g); ok {
				t.Error("OnChip placed a location on no generation")
			}
			if l := LocateAddr4(0x100, g); l.Space != SpaceRaw {
				t.Errorf("LocateAddr4 = %v, want raw", l)
			}
			if len(S4D4TROpcodes(g)) != 0 || RuleSet(OpCOPY, g) != nil || len(TensorReduceArithOps(EngineDVE, g)) != 0 ||
				OpCOPY.InGen(g) || DTypeFP32.InGen(g) || ALUAdd.InGen(g) || DTypeFP32.Alignment(g) != 0 || IsValidDTypeIncFP4(DTypeFP4_EXP2, g, false) {
				t.Error("an invalid generation has opcodes, rules, ops or dtypes")
			}
		})
	}
	if err := (&GenerationError{Gen: 9}).Error(); err != "invalid generation Generation(9) (want SUNDA, CAYMAN, MARIANA, MARIANA_PLUS or MAVERICK)" {
		t.Errorf("message %q", err)
	}
}
