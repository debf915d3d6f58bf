package ucode

import "testing"

// P09: over the gen2 table's non-idle nonzero lane words, bit 15 (= MUX bit 4) is never set
// while the MUX bits around it are (seed 004 §4: "bit 15 is never set inside the MUX field — a
// hard break"; §7 the split route field 11:15 || 16:20), the highest set bit is 26, and there are
// the seed's 401 such words.
func TestSeedP09MuxBit15(t *testing.T) {
	s, err := Load([]string{"../testdata/ucode/dve_bin_gen2"}, "", GenUnknown)
	if err != nil {
		t.Fatal(err)
	}
	c, err := s.Census()
	if err != nil {
		t.Fatal(err)
	}
	if c.BitCounts[15] != 0 || c.BitCounts[14] == 0 || c.BitCounts[16] == 0 {
		t.Errorf("bit counts 14/15/16 = %d/%d/%d: want bit 15 never set, its neighbours set", c.BitCounts[14], c.BitCounts[15], c.BitCounts[16])
	}
	if c.ActiveWords != 401 || c.HighestBit != 26 {
		t.Errorf("%d active words, highest bit %d; the seed counts 401 and bit 26", c.ActiveWords, c.HighestBit)
	}
}

// P20: OPA[0:8] is an operand/source select, not an ALU opcode (seed 004 §7): the gen2 field map
// puts OPA at bits 0..7 and OPB at 8..10, together the 11-bit selector, below MUX at 11.
func TestSeedP20OPAField(t *testing.T) {
	l, err := LayoutOf(Gen2)
	if err != nil || l.OPA != (BitField{0, 8}) || l.OPB != (BitField{8, 3}) || l.MUX.Lo != 11 {
		t.Errorf("gen2 OPA %v OPB %v MUX %v (%v); the seed's OPA [0:8], OPB [8:11], MUX from 11", l.OPA, l.OPB, l.MUX, err)
	}
	// seed 004 §5: op65 lane0 gen2 0x10041c has OPA 0x1c.
	if f := mustDecode(t, 0x10041c, Gen2); f.OPA != 0x1c || f.OPB != 4 {
		t.Errorf("0x10041c: OPA %#x OPB %d, the seed's 0x1c and 4", f.OPA, f.OPB)
	}
}
