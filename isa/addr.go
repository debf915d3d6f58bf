package isa

import (
	"fmt"
	"strings"
)

// Space is the memory a Location points into.
type Space uint8

const (
	SpaceRaw  Space = iota // a raw number: no interpretation
	SpaceSBUF              // state buffer: partition + byte offset in the partition
	SpacePSUM              // partial-sum buffer: partition + byte offset
	SpaceHBM               // device HBM (DMA addresses only)
	SpaceReg               // an address register (ADDR4/ADDR8 register mode)
)

var spaceNames = [...]string{"raw", "sbuf", "psum", "hbm", "reg"}

// String is the address syntax's prefix; a value outside the enum prints as Space(N).
func (s Space) String() string {
	if int(s) < len(spaceNames) {
		return spaceNames[s]
	}
	return fmt.Sprintf("Space(%d)", uint8(s))
}

// Location is an address as written on the command line and in assembly (DESIGN.md §7):
// `sbuf:P:OFF`, `psum:P:OFF`, `hbm:ADDR`, `reg:N`, or a raw number (decimal or 0x-hex).
type Location struct {
	Space     Space
	Partition int    // SBUF / PSUM partition
	Offset    uint64 // byte offset in the partition; HBM address; raw value; register number
}

func (l Location) String() string {
	switch l.Space {
	case SpaceSBUF, SpacePSUM:
		return fmt.Sprintf("%s:%d:0x%x", l.Space, l.Partition, l.Offset)
	case SpaceHBM:
		return fmt.Sprintf("hbm:0x%x", l.Offset)
	case SpaceReg:
		return fmt.Sprintf("reg:%d", l.Offset)
	}
	return fmt.Sprintf("0x%x", l.Offset)
}

// ParseAddress reads the CLI / assembly address syntax for generation g (the partition stride
// differs per generation, FACTS §B.5). A partition must be < 128 and an offset must lie within
// the partition stride; write a raw number to express anything else. `psum:` is refused on a
// generation without PSUM (PSUM_BUF_SZ = 0, MAVERICK): its on-chip addresses are all SBUF.
func ParseAddress(s string, g Generation) (Location, error) {
	if err := g.Check(); err != nil {
		return Location{}, err
	}
	t := strings.TrimSpace(s)
	parts := strings.Split(t, ":")
	geo := g.Geometry()
	switch strings.ToLower(parts[0]) {
	case "sbuf", "psum":
		if len(parts) != 3 {
			return Location{}, parseErr(RuleAddressForm, "address", "address %q: want %s:PARTITION:OFFSET", s, parts[0])
		}
		p, err := parseNumber(parts[1])
		if err != nil {
			return Location{}, parseErr(RuleAddressForm, "address", "address %q: partition: %v", s, err)
		}
		off, err := parseNumber(parts[2])
		if err != nil {
			return Location{}, parseErr(RuleAddressForm, "address", "address %q: offset: %v", s, err)
		}
		sp, stride, n := SpaceSBUF, uint64(geo.StateBufPartitionSize), geo.StateBufNumPartitions
		if strings.EqualFold(parts[0], "psum") {
			if geo.PSUMSize == 0 {
				// MAVERICK: the on-chip window PSUM would occupy is SBUF, so encoding the
				// address would silently name an SBUF partition (audit defect).
				return Location{}, parseErr(RuleAddressForm, "address", "address %q: %v has no PSUM (PSUM_BUF_SZ = 0)", s, g)
			}
			sp, stride, n = SpacePSUM, uint64(geo.PSUMPartitionSize), geo.PSUMNumPartitions
		}
		if p >= uint64(n) {
			return Location{}, parseErr(RuleAddressForm, "address", "address %q: partition %d out of range (0..%d)", s, p, n-1)
		}
		if off >= stride {
			return Location{}, parseErr(RuleAddressForm, "address", "address %q: offset 0x%x beyond the %s partition stride 0x%x on %v", s, off, sp, stride, g)
		}
		return Location{Space: sp, Partition: int(p), Offset: off}, nil
	case "hbm", "reg":
		if len(parts) != 2 {
			return Location{}, parseErr(RuleAddressForm, "address", "address %q: want %s:NUMBER", s, parts[0])
		}
		v, err := parseNumber(parts[1])
		if err != nil {
			return Location{}, parseErr(RuleAddressForm, "address", "address %q: %v", s, err)
		}
		if strings.EqualFold(parts[0], "reg") {
			if v > 255 {
				return Location{}, parseErr(RuleAddressForm, "address", "address %q: register number above 255", s)
			}
			return Location{Space: SpaceReg, Offset: v}, nil
		}
		if v >= DMALocalBase {
			return Location{}, parseErr(RuleAddressForm, "address", "address %q: HBM address must be below 0x%x (tpbsim's on-chip window)", s, DMALocalBase)
		}
		return Location{Space: SpaceHBM, Offset: v}, nil
	}
	if len(parts) != 1 {
		return Location{}, parseErr(RuleAddressForm, "address", "address %q: want sbuf:P:OFF, psum:P:OFF, hbm:ADDR, reg:N or a number", s)
	}
	v, err := parseNumber(t)
	if err != nil {
		return Location{}, parseErr(RuleAddressForm, "address", "address %q: want sbuf:P:OFF, psum:P:OFF, hbm:ADDR, reg:N or a number", s)
	}
	return Location{Space: SpaceRaw, Offset: v}, nil
}

// OnChip is the 29-bit on-chip byte address of an SBUF / PSUM location on generation g
// (addr = region_base + partition*stride + offset, FACTS §B.3); false for any other space and
// for an invalid generation.
func (l Location) OnChip(g Generation) (uint32, bool) {
	if !g.Valid() {
		return 0, false
	}
	geo := g.Geometry()
	switch l.Space {
	case SpaceSBUF:
		return geo.StateBufOffset + uint32(l.Partition)*geo.StateBufPartitionSize + uint32(l.Offset), true
	case SpacePSUM:
		return geo.PSUMOffset + uint32(l.Partition)*geo.PSUMPartitionSize + uint32(l.Offset), true
	}
	return 0, false
}

// Addr4 encodes the location as an ADDR4 word on generation g. HBM does not fit an ADDR4.
func (l Location) Addr4(g Generation) (Addr4, error) {
	if err := g.Check(); err != nil {
		return 0, err
	}
	switch l.Space {
	case SpaceSBUF, SpacePSUM:
		a, _ := l.OnChip(g)
		return Addr4(a), nil
	case SpaceReg:
		return Addr4(uint32(Addr4MarkerADDR_REG)<<24 | uint32(l.Offset)), nil
	case SpaceRaw:
		if l.Offset > 0xFFFFFFFF {
			return 0, parseErr(RuleAddressForm, "address", "0x%x does not fit a 32-bit ADDR4", l.Offset)
		}
		return Addr4(l.Offset), nil
	}
	return 0, parseErr(RuleAddressForm, "address", "%v: an ADDR4 holds only on-chip (sbuf/psum) addresses", l)
}

// Addr8 encodes the location as an ADDR8 word on generation g (on-chip locations go through
// tpbsim's invented local window DMALocalBase, provenance "isa.addr8_address_map").
func (l Location) Addr8(g Generation) (Addr8, error) {
	if err := g.Check(); err != nil {
		return 0, err
	}
	switch l.Space {
	case SpaceSBUF, SpacePSUM:
		a, _ := l.OnChip(g)
		return LocalAddr8(a), nil
	case SpaceHBM, SpaceRaw:
		return Addr8(l.Offset), nil
	case SpaceReg:
		return Addr8(uint64(Addr8MarkerADDR_REG)<<56 | l.Offset), nil
	}
	return 0, parseErr(RuleAddressForm, "address", "bad location %v", l)
}

// LocateOnChip splits a 29-bit on-chip byte address into SBUF / PSUM partition and offset on
// generation g; ok is false outside both (FACTS §B.3, §B.5).
func LocateOnChip(a uint32, g Generation) (Location, bool) {
	if !g.Valid() {
		return Location{}, false
	}
	geo := &geometries[g]
	if a >= geo.StateBufOffset && a-geo.StateBufOffset < geo.StateBufSize {
		r := a - geo.StateBufOffset
		return Location{Space: SpaceSBUF, Partition: int(r / geo.StateBufPartitionSize), Offset: uint64(r % geo.StateBufPartitionSize)}, true
	}
	if geo.PSUMSize > 0 && a >= geo.PSUMOffset && a-geo.PSUMOffset < uint32(geo.PSUMNumPartitions)*geo.PSUMPartitionSize {
		r := a - geo.PSUMOffset
		return Location{Space: SpacePSUM, Partition: int(r / geo.PSUMPartitionSize), Offset: uint64(r % geo.PSUMPartitionSize)}, true
	}
	return Location{}, false
}

// LocateAddr4 is the Location an ADDR4 word prints as: sbuf/psum for a plain on-chip address,
// reg:N for a clean register-mode word, raw otherwise (markers, reserved bits). It round-trips
// through ParseAddress + Location.Addr4.
func LocateAddr4(a Addr4, g Generation) Location {
	if a.IsAddrReg() && uint32(a)&0x7FFFFF00 == 0 {
		return Location{Space: SpaceReg, Offset: uint64(a.RegNum())}
	}
	if uint32(a)&^TPBPartitionAddrMask == 0 {
		if l, ok := LocateOnChip(uint32(a), g); ok {
			return l
		}
	}
	return Location{Space: SpaceRaw, Offset: uint64(a)}
}

// LocateAddr8 is the Location an ADDR8 word prints as: hbm below the local window, sbuf/psum
// inside it, reg:N for a register word, raw otherwise.
func LocateAddr8(a Addr8, g Generation) Location {
	if a.RawMarker() == 0 {
		ad := a.Address()
		if ad < DMALocalBase {
			return Location{Space: SpaceHBM, Offset: ad}
		}
		if a.IsLocal() {
			if l, ok := LocateOnChip(a.Local(), g); ok {
				return l
			}
		}
	}
	if a.RawMarker() == Addr8MarkerADDR_REG && uint64(a)&0x00FFFFFFFFFFFF00 == 0 {
		return Location{Space: SpaceReg, Offset: uint64(uint8(a))}
	}
	return Location{Space: SpaceRaw, Offset: uint64(a)}
}
