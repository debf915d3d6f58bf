package isa

import "fmt"

// geometries is each generation's Geometry (the zero one for GenInvalid), for the hot paths.
var geometries = func() (t [numGenerations]Geometry) {
	for g := range featureTable {
		t[g] = featureTable[g].Geometry
	}
	return t
}()

type vctx struct {
	g    Generation
	feat *Features
	eng  Engine // the queue the instruction is issued from; EngineNone when the caller does not say
	geo  *Geometry
	lay  *StructLayout
	offs map[string]int // fieldOffsets[lay.Kind]
	rule string
	out  []Violation
	buf  []byte    // dynamic violation text of this call (vtext.go); kept for reuse
	pend []pending // violations whose Value / Legal are spans of buf
}

// fail appends a violation with static texts (failT takes texts of the scratch buffer).
func (v *vctx) fail(field, value, legal string) {
	v.out = append(v.out, Violation{Rule: v.rule, Field: field, Value: value, Legal: legal, Offset: v.offset(field)})
}

// check is one rule of a rule list: its id and the function that tests it.
type check[T any] struct {
	id string
	fn func(v *vctx, i *T)
}

func run[T any](v *vctx, i *T, checks []check[T]) {
	for _, c := range checks {
		v.rule = c.id
		c.fn(v, i)
	}
}

// Validate checks inst against every rule of its opcode on generation g and returns every
// violation (nil when the instruction is valid). Order (FACTS §F.2): opcode present on the
// generation -> has_valid_neuron_header -> has_valid_neuron_events -> the opcode's rules. When
// the opcode does not exist on g (or at all) only that is reported: its struct does not exist.
//
// Validate does not know the engine queue the instruction is issued from: a rule with one arm
// per engine (is_valid_tensor_reduce_arith_engine) is checked against the arm the instruction
// itself selects, the only one it could satisfy. Callers that know the queue use ValidateOn.
func Validate(inst Inst, g Generation) []Violation { return ValidateAppend(nil, inst, g) }

// ValidateOn is Validate for an instruction issued from engine e's queue: the per-engine rules
// check e's arm (an integer reduce op on the DVE, a float reduce on POOL are violations).
// EngineNone is Validate. It does not ask whether e executes the opcode at all (that is the
// caller's engine check: Opcode.Engines, the machine's opcode_legal_on_engine).
func ValidateOn(inst Inst, g Generation, e Engine) []Violation {
	var x Validator
	return x.AppendOn(nil, inst, g, e)
}

// ValidateAppend is Validate appending to dst.
func ValidateAppend(dst []Violation, inst Inst, g Generation) []Violation {
	var x Validator
	return x.Append(dst, inst, g)
}

// Validator validates without allocating when the instruction is valid, and with one allocation
// (the text of its violations) when it is not: reuse dst[:0] and one Validator per goroutine on
// hot paths (ValidateAppend allocates its working state).
type Validator struct{ v vctx }

// Append is Validate appending to dst.
func (x *Validator) Append(dst []Violation, inst Inst, g Generation) []Violation {
	return x.AppendOn(dst, inst, g, EngineNone)
}

// AppendOn is ValidateOn appending to dst.
func (x *Validator) AppendOn(dst []Violation, inst Inst, g Generation, e Engine) []Violation {
	if inst == nil {
		return dst
	}
	if !g.Valid() {
		return append(dst, (&GenerationError{Gen: g}).Violation())
	}
	h := inst.Hdr()
	v := &x.v
	v.g, v.feat, v.eng, v.geo, v.lay, v.out = g, &featureTable[g], e, &geometries[g], LayoutOf(h.Opcode), dst
	v.offs = fieldOffsets[v.lay.Kind]
	if !h.Opcode.Known() {
		v.rule = RuleHasValidNeuronHeader
		v.fail("opcode", hex2Strings[h.Opcode], "an opcode of the ISA (tpbsim names: tpbsim explain opcodes)")
		return x.done()
	}
	if !h.Opcode.InGen(g) {
		v.rule = RuleOpcodeOnGeneration
		v.fail("opcode", h.Opcode.String(), opcodeGenLegal[h.Opcode])
		return x.done()
	}
	v.rule = RuleHasValidNeuronHeader
	if h.InstWordLen != InstWordLen && !(h.Opcode == 0xE3 && h.InstWordLen == InstWordLen|1 && v.feat.QuantizeMXSaturate) {
		v.fail("inst_word_len", decStrings[h.InstWordLen], "16 (dwords = 64 bytes)")
	}
	v.rule = RuleHasValidNeuronEvents
	validEvents(v, inst.Evt())
	runRules(v, inst)
	return x.done()
}

// done materialises the texts of this call and drops the caller's slice from the Validator.
func (x *Validator) done() []Violation {
	out := x.v.finish()
	x.v.out = nil
	return out
}

// opcodeGenLegal[op] is the legal text of opcode_on_generation for op.
var opcodeGenLegal = func() (t [256]string) {
	for op := range t {
		if in, ok := Opcode(op).Info(); ok {
			t[op] = fmt.Sprintf("present on %v..%v only", in.First, in.Last)
		}
	}
	return
}()

// Supported reports whether tpbsim models the struct of inst (false for *Raw: only the
// header and events of such a word are checked).
func Supported(inst Inst) bool {
	_, raw := inst.(*Raw)
	return inst != nil && !raw
}

// ---- HEADER / EVENTS ----------------------------------------------------------------------

// validWaitMode is the INFERRED body of has_valid_neuron_events for wait_mode (FACTS §B.2, §G.4).
func validWaitMode(m WaitMode, g Generation) bool {
	switch {
	case m == WaitNone, m >= 0x01 && m <= 0x05, m >= 0x81 && m <= 0x85:
		return true
	case m == 0x06, m == 0x07, m == 0x0E, m == 0x0F:
		return featureRow(g).EventWaits
	case m >= 0x91 && m <= 0x95, m == WaitUnordered:
		return featureRow(g).RegOffsetWaits
	}
	return false
}

func validUpdateMode(m UpdateMode) bool {
	switch m &^ 0x10 {
	case 0x00:
		return m == 0
	case 0x03, 0x04, 0x05, 0x07, 0x09:
		return true
	}
	return m == SemWrRegComplete
}

// waitModeLegal[g] is what has_valid_neuron_events calls a legal wait_mode on g.
var waitModeLegal = func() (t [numGenerations]string) {
	for g := range featureTable {
		legal := "NONE, WAIT_FOR_SEM_{EQ,LT,LE,GT,GE}_{IMM,REG}"
		if featureTable[g].EventWaits {
			legal += ", WAIT_FOR_EVT_* (0x06, 0x07, 0x0E, 0x0F)"
		}
		if featureTable[g].RegOffsetWaits {
			legal += ", SEM_*_REG_OFFSET (0x91..0x95), UNORDERED"
		}
		t[g] = legal
	}
	return t
}()

func validEvents(v *vctx, e Events) {
	if !validWaitMode(e.WaitMode, v.g) {
		v.fail("events.wait_mode", fmtEnum(KWaitMode, uint64(e.WaitMode)), waitModeLegal[v.g])
	}
	if !validUpdateMode(e.UpdateMode) {
		v.fail("events.update_mode", fmtEnum(KUpdateMode, uint64(e.UpdateMode)),
			"NONE, SEM_{INC,DEC,ADD_IMM,SUB_IMM,WR_IMM}_{READ,COMPLETE}, SEM_WR_REG_COMPLETE")
	}
}

// ---- shared memory checks -----------------------------------------------------------------

// tensor4dValid is tensor4d_valid(t, dtype, write, allowPSUM, allowSBUF): the placement gate
// tensor_start_addr_valid of FACTS §B.3 and num_elem >= 1 (FACTS §B.4). tpbsim's footprint
// check is a rule of its own, tensor4d_footprint (tensor4dFootprint), because it is INFERRED.
func tensor4dValid(v *vctx, name string, t *Tensor4D, dt DType, dtField string, write, allowPSUM, allowSBUF bool) {
	a := t.StartAddr
	sa := startAddrPath(name)
	// The INDIRECT bit first: INDIRECT_REG (marker 0xA0) has bit 31 too, and is the indirect
	// form of MEM_PATTERN4D, not a register-mode TENSOR4D address.
	if a.IsIndirect() {
		if !v.feat.IndirectTensor4D {
			v.failT(sa, v.hex(uint64(a)), lit("no INDIRECT marker (bit 29) in a TENSOR4D before MARIANA's MEM_PATTERN4D"))
		}
		return // MEM_PATTERN4D indirect form: not checked statically
	}
	if a.IsAddrReg() {
		// ADDR_REG4 {regnum, reserved0[2], marker}: marker ADDR_REG (0x80) or ADDR_SHAPE_REG
		// (0xC0, the shape from a register too); the reserved bytes and the marker's other
		// bits are zero.
		if uint32(a)&addrRegReservedMask != 0 {
			v.failT(sa, v.hex(uint64(a)), lit("register mode: marker 0x80 (ADDR_REG) or 0xC0 (ADDR_SHAPE_REG), bits 8..28 zero"))
		} else if a.RegNum() >= uint8(v.geo.NumAddrRegisters) {
			v.failT(sa, lit(regStrings[a.RegNum()]), v.num("register < ", int64(v.geo.NumAddrRegisters), ""))
		}
		return // resolved at run time
	}
	ad := a.ByteAddr()
	al := dt.Alignment(v.g)
	if al == 0 {
		v.fail(dtField, fmtEnum(KDType, uint64(dt)), "a dtype with an address alignment class (addr_aligned_dtype)")
	} else if ad%uint32(al) != 0 {
		m := v.mark()
		v.s("a multiple of ").d(int64(al)).s(" (").s(dt.String()).s(" alignment)")
		legal := v.since(m)
		v.failT(sa, v.hex(uint64(ad)), legal)
	}
	loc, active, ok := activeArea(v, ad)
	if !ok {
		v.failT(sa, v.hex(uint64(ad)), lit(onChipLegal[v.g]))
		return
	}
	if loc.Space == SpacePSUM {
		if !allowPSUM {
			v.failT(sa, v.loc(loc), lit("SBUF only"))
		}
		if write && dt.Size() != 4 {
			v.fail(dtField, fmtEnum(KDType, uint64(dt)), "a 4-byte dtype (INT32, UINT32, FP32, FP32R) to write PSUM")
		}
	} else if !allowSBUF {
		v.failT(sa, v.loc(loc), lit("PSUM only"))
	}
	if loc.Offset >= uint64(active) {
		m := v.mark()
		v.s("offset < ").hx(uint64(active)).s(" (").s(v.g.String()).s(" active ").s(loc.Space.String()).s(" partition size)")
		legal := v.since(m)
		v.failT(sa, v.loc(loc), legal)
		return
	}
	if a.ShapeFromRegister() {
		return // counts come from a register
	}
	for d := 0; d < 4; d++ {
		if t.NumElem[d] == 0 {
			v.fail(numElemPath(name, d), "0", ">= 1")
		}
	}
}

// tensor4dFootprint is tensor4d_footprint, tpbsim's reading of tensor4d_valid's "per-rank extent
// rules" (INFERRED, isa.footprint_check): every byte the 4-D walk of an immediate, on-chip pattern
// touches lies inside the partition's active area. It says nothing where tensor4d_valid already
// refuses the start, the counts or the dtype, or where the shape or the address is resolved at
// run time.
func tensor4dFootprint(v *vctx, name string, t *Tensor4D, dt DType) {
	a := t.StartAddr
	if a.IsIndirect() || a.IsAddrReg() || a.ShapeFromRegister() {
		return
	}
	bitsz := dt.Bits()
	if bitsz == 0 || dt.Alignment(v.g) == 0 {
		return
	}
	loc, active, ok := activeArea(v, a.ByteAddr())
	if !ok || loc.Offset >= uint64(active) {
		return
	}
	for d := 0; d < 4; d++ {
		if t.NumElem[d] == 0 {
			return
		}
	}
	var lo, hi int64
	for d := 0; d < 4; d++ {
		span := int64(t.StepElem[d]) * int64(t.NumElem[d]-1)
		if span < 0 {
			lo += span
		} else {
			hi += span
		}
	}
	off := int64(loc.Offset)
	blo := off + lo*int64(bitsz)/8
	if lo*int64(bitsz)%8 != 0 {
		blo-- // floor for 4-bit elements
	}
	bhi := off + ((hi+1)*int64(bitsz)+7)/8
	if blo < 0 || bhi > int64(active) {
		v.fail(name, fmt.Sprintf("bytes [%#x, %#x) of %s partitions", blo, bhi, loc.Space),
			footprintLegal(v.g, loc.Space))
	}
}

// activeArea locates on-chip address ad and the active size of its partition (SBUF or PSUM).
func activeArea(v *vctx, ad uint32) (Location, uint32, bool) {
	loc, ok := LocateOnChip(ad, v.g)
	if loc.Space == SpacePSUM {
		return loc, v.geo.PSUMPartitionActive, ok
	}
	return loc, v.geo.StateBufPartitionActive, ok
}

// addrRegReservedMask is what must be zero in a register-mode ADDR4 (marker ADDR_REG 0x80 or
// ADDR_SHAPE_REG 0xC0): reserved0[2] (bits 8..23) and the marker bits 24..28 (bit 29, INDIRECT,
// is handled before register mode; bit 30 is the shape-register flag).
const addrRegReservedMask = 0x1FFFFF00

// startAddrActiveChannels is the INFERRED body of start_addr_active_channels: the start
// partition plus num_active_channels must not pass the last partition.
func startAddrActiveChannels(v *vctx, name string, a Addr4, nac uint8) {
	if a.IsAddrReg() || a.IsIndirect() || nac == 0 || int(nac) > v.geo.StateBufNumPartitions {
		return
	}
	loc, ok := LocateOnChip(a.ByteAddr(), v.g)
	if !ok {
		return
	}
	n := v.geo.StateBufNumPartitions
	if loc.Space == SpacePSUM {
		n = v.geo.PSUMNumPartitions
	}
	if loc.Partition+int(nac) > n {
		val := v.mark()
		v.s("partition ").d(int64(loc.Partition)).s(" with ").d(int64(nac)).s(" active channels")
		value := v.since(val)
		leg := v.mark()
		v.s("start partition <= ").d(int64(n - int(nac))).s(" (start + num_active_channels <= ").d(int64(n)).s(")")
		v.failT(startAddrPath(name), value, v.since(leg))
	}
}

// numElemPath is name + ".num_elem[d]" without allocating on the hot path.
func numElemPath(name string, d int) string {
	switch name {
	case "src_mem_pattern":
		return pathSrcPatternNumElem[d]
	case "dst_mem_pattern":
		return pathDstPatternNumElem[d]
	}
	return fmt.Sprintf("%s.num_elem[%d]", name, d)
}

// startAddrPath is name + ".start_addr" without allocating on the hot path.
func startAddrPath(name string) string {
	switch name {
	case "src_mem_pattern":
		return "src_mem_pattern.start_addr"
	case "dst_mem_pattern":
		return "dst_mem_pattern.start_addr"
	}
	return name + ".start_addr"
}

// onChipLegal[g] is what tensor4d_valid calls legal for an address off the chip of g.
var onChipLegal = func() (t [numGenerations]string) {
	for g := Generation(0); g < numGenerations; g++ {
		geo := &geometries[g]
		legal := fmt.Sprintf("SBUF [0, 0x%x)", geo.StateBufSize)
		if geo.PSUMSize > 0 {
			legal += fmt.Sprintf(" or PSUM [0x%x, 0x%x)", geo.PSUMOffset, geo.PSUMOffset+uint32(geo.PSUMNumPartitions)*geo.PSUMPartitionSize)
		} else {
			legal += fmt.Sprintf(" (no PSUM on %v: PSUM_BUF_SZ = 0)", g)
		}
		t[g] = legal
	}
	return
}()

// footprintLegal is what tensor4d_valid calls legal for a footprint outside the active area.
func footprintLegal(g Generation, sp Space) string {
	if g < numGenerations && (sp == SpaceSBUF || sp == SpacePSUM) {
		return footprintLegals[g][sp-SpaceSBUF]
	}
	return makeFootprintLegal(g, sp)
}

func makeFootprintLegal(g Generation, sp Space) string {
	active := geometries[g].StateBufPartitionActive
	if sp == SpacePSUM {
		active = geometries[g].PSUMPartitionActive
	}
	return fmt.Sprintf("within [0, 0x%x): the %v active %s partition size", active, g, sp)
}

var footprintLegals = func() (t [numGenerations][2]string) {
	for g := Generation(0); g < numGenerations; g++ {
		t[g][0] = makeFootprintLegal(g, SpaceSBUF)
		t[g][1] = makeFootprintLegal(g, SpacePSUM)
	}
	return
}()
