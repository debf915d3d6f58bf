package mem

import "github.com/tpbsim/tpbsim/isa"

// Provenance lists every INFERRED or INVENTED behaviour of the memory model, for the rule and
// provenance registry (`tpbsim explain`). It returns a fresh slice on each call.
func Provenance() []isa.Provenance {
	b := isa.Behaviour
	r := isa.Rule
	return []isa.Provenance{
		b("mem.geometry", "SBUF = 128 partitions x STATE_BUF_PARTITION_SIZE stride, of which STATE_BUF_PARTITION_ACTIVE_SIZE bytes are usable; "+
			"PSUM at 0x2000000 = 128 x 32 KiB stride, 16 KiB active; MAVERICK has no PSUM (PSUM_BUF_SZ = 0). "+
			"addr = region_base + partition*stride + offset; an offset at or past the active size is out of bounds.",
			"FACTS §B.3, §B.5", isa.HighObserved, ""),
		b("mem.maverick_sbuf_window", "On MAVERICK an on-chip address is SBUF when it lies below STATE_BUF_SZ (0x8000000), bits 24..26 included: "+
			"addresses with bits 25..26 set are SBUF partitions 32..127, and an immediate ADDR4 whose byte 3 is 0x01 (the value of MAVERICK's "+
			"ADDR4MARKER_MXTENSOR_V2) is resolved as an address in SBUF partitions 16..31; the MXTENSOR_V2 form is not modelled.",
			"FACTS §B.3, §B.5", isa.MedInferred,
			"FACTS §B.3's placement gate says SBUF addresses have bits 25..28 clear, true only of a 32 MiB SBUF; §B.5 gives MAVERICK a 128 MiB SBUF "+
				"(1 MiB stride x 128) and addr_in_sbuf(a) = a < STATE_BUF_OFFSET + STATE_BUF_SZ, which tpbsim follows. The MXTENSOR_V2 marker has a "+
				"value and no described meaning, and TPB_PARTITION_ADDR_MASK (0x1fffffff) keeps bit 24 as an address bit."),
		b("mem.pattern_walk_order", "A TENSOR4D walk runs dim 0 innermost, dim 3 outermost; for channel c it walks partition start_partition + c "+
			"with the same byte offsets.", "DESIGN.md §1; FACTS §B.4", isa.MedInferred,
			"FACTS says the loop order is not spelled out and that dim 0 innermost is the usual reading; the compiler unit-fills unused dims with {step 1, num 1}, which only makes sense with dim 0 innermost."),
		b("mem.footprint_checked_first", "A pattern's whole footprint (every byte of every element of every channel) is checked against the active "+
			"area before anything is written; a failing instruction changes no memory.", "DESIGN.md §1 (atomic failure)", isa.Invented,
			"Hardware behaviour on an out-of-bounds pattern is not documented; atomic failure is what a user debugging a program wants."),
		b("mem.start_addr_active_channels", "start partition + num_active_channels must not pass the region's 128 partitions.",
			"FACTS §B.3, §G.2", isa.MedInferred, "The body of start_addr_active_channels was not found; this is the reading FACTS gives as likely."),
		b("mem.psum_write_4byte", "PSUM writes are whole 4-byte elements: a pattern writing PSUM needs a 4-byte dtype, and DMA writes into PSUM must be "+
			"4-byte aligned and a multiple of 4 bytes long.", "FACTS §B.3 step 5", isa.MedInferred,
			"The placement gate requires a 4-byte dtype for PSUM writes; extending it to DMA byte writes (alignment and length) is the same rule at byte level."),
		b("mem.hbm_sparse", "HBM is a sparse byte space [0, isa.DMALocalBase) of 64 KiB pages allocated on first write; never-written bytes read as 0.",
			"DESIGN.md §1", isa.Invented, "The model must allow any 47-bit address (a test may use 1 TiB) without allocating it."),
		b("mem.hbm_cap", "HBM allocation is capped (Options.HBMCapBytes, default 4 GiB); a write needing pages past the cap fails with ErrHBMCap and writes nothing. "+
			"The cap counts whole 64 KiB pages: a cap that is not a multiple of the page size allows only the whole pages below it.",
			"DESIGN.md §1 (HBM: a sparse 64-bit byte space, pages allocated on first touch)", isa.Invented, "A crafted program must not exhaust the host's memory; 4 GiB holds any realistic test tensor set."),
		b("mem.dma_address_map", "DMA device addresses below isa.DMALocalBase are HBM; DMALocalBase + an on-chip byte address is SBUF/PSUM. An on-chip DMA "+
			"access may cross into the next partition only where the active area fills the stride; where SBUF's does (MARIANA, MARIANA_PLUS), the on-chip "+
			"space is contiguous from the last SBUF partition into PSUM partition 0 at 0x2000000, and one access may span both (PSUM's 4-byte write rule "+
			"applies to its PSUM part).", "isa.Addr8 (INVENTED map)", isa.Invented,
			"The real ADDR8 address map is not in the sources; bytes past the active area do not exist, so an access through them fails, while "+
				"addresses that exist are treated as one linear space, as a DMA engine walking byte addresses would see them."),
		b("mem.uninit_tracking", "With Options.TrackUninit one bit per byte records writes; a read of a never-written byte fails with fault.ErrUninit and its "+
			"address (on-chip address, or DMA address for ReadAt). Off by default.", "DESIGN.md §1; NKI.md (sentinel fills)", isa.Invented,
			"The official simulator exposes uninitialised reads only through sentinel fills; an error naming the address is more useful and costs nothing when off."),
		b("mem.unresolved_addr4", "The memory resolves immediate ADDR4s only: register, shape-register and indirect forms fail with fault.ErrUnsupported (the machine resolves register mode from its address registers before, sim.addr_regs; the shape-register and indirect forms need registers tpbsim does not model).",
			"FACTS §B.3", isa.Invented, "Guessing a register value would silently produce wrong results."),

		// The rules a memory *Error names (rules.go).
		r(RulePatternElemSize, "A TENSOR4D pattern's element is 1 to 8 bytes: the widest dtype tpbsim executes is 8 bytes.",
			"tpbsim", isa.Invented, []string{"in_dtype", "out_dtype"}, "The dtype table has no wider element; a wider one would be a modelling bug, reported instead of guessed."),
		r(RulePatternSizeModelled, "A TENSOR4D pattern walks at most MaxPatternBytes (1 TiB) over all its channels (num_elem product x element size x channels); "+
			"only a walk that revisits bytes (zero steps) can be that long and still lie in the active area.",
			"tpbsim", isa.Invented, []string{"src_mem_pattern.num_elem", "dst_mem_pattern.num_elem"},
			"65535^4 elements overflow a 64-bit count and the executors buffer a walk whole; such a walk is refused instead of wrapped or allocated."),
		r(RulePSUMWrite4ByteDtype, "A pattern that writes PSUM needs a 4-byte dtype.",
			"FACTS §B.3 step 5", isa.HighObserved, []string{"dst_mem_pattern.start_addr", "out_dtype"}, ""),
		r(RulePatternInActiveArea, "Every byte a TENSOR4D pattern touches, on every channel, lies inside its partition's active area [0, active size); "+
			"checked whole before anything is written (isa rule tensor4d_footprint, checked again where the memory is accessed).",
			"FACTS §B.3, §B.4, §B.5; DESIGN.md §1", isa.MedInferred, []string{"src_mem_pattern", "dst_mem_pattern"},
			"the per-rank extent rules are not spelled out; the active size is the usable part of the partition stride (mem.geometry)"),
		r(RuleAddrInActiveArea, "An on-chip byte address lies at a partition offset below the region's active size (SBUF: STATE_BUF_PARTITION_ACTIVE_SIZE, PSUM: 16 KiB).",
			"FACTS §B.3, §B.5", isa.HighObserved, []string{"start_addr"}, ""),
		r(RuleAddrInSBUFOrPSUM, "An on-chip byte address lies in SBUF or (where the generation has one) PSUM.",
			"FACTS §B.3, §B.5", isa.HighObserved, []string{"start_addr"}, ""),
		r(RuleAddr4Immediate, "The memory resolves only immediate ADDR4 addresses; the machine gives register mode (reg:N) its address register's value first (sim.addr_regs), and shape-register and indirect forms are not executable (see mem.unresolved_addr4).",
			"FACTS §B.3", isa.Invented, []string{"start_addr"}, "their values come from hardware registers tpbsim does not model"),
		r(RulePSUMWrite4Byte, "A byte-level write into PSUM (a DMA) starts 4-byte aligned and is a whole number of 4-byte words (see mem.psum_write_4byte).",
			"FACTS §B.3 step 5", isa.MedInferred, []string{"dst_start_addr"},
			"the placement gate requires 4-byte PSUM writes; the byte-level form of the same rule"),
		r(RulePartitionInRange, "A resolved location names a partition the region has (0..127 in SBUF and PSUM).",
			"FACTS §B.3", isa.HighObserved, nil, ""),
		r(RuleReadInitialised, "With uninitialised-read checking on (--check-uninit, Options.TrackUninit), every byte an instruction or DMA reads was written "+
			"before (by a program, --load or an earlier instruction); the error gives the first never-written address.",
			"tpbsim (DESIGN.md §1; see mem.uninit_tracking)", isa.Invented, []string{"src_mem_pattern", "src_start_addr"},
			"hardware reads whatever the bytes hold; naming the first never-written address is what a user debugging a program needs"),
		r(RuleDMAAddrInRange, "An on-chip DMA range [addr, addr+n) stays inside the 29-bit on-chip window above isa.DMALocalBase.",
			"isa.Addr8 (INVENTED address map); FACTS §B.3", isa.Invented, []string{"src_start_addr", "dst_start_addr"},
			"the real ADDR8 address map is not in the sources (mem.dma_address_map)"),
		r(RuleHBMAddrInRange, "An HBM DMA range [addr, addr+n) stays below isa.DMALocalBase, where the on-chip window begins.",
			"isa.Addr8 (INVENTED address map)", isa.Invented, []string{"src_start_addr", "dst_start_addr"},
			"the real ADDR8 address map is not in the sources (mem.dma_address_map)"),
		r(RuleHBMCap, "A write may not allocate HBM pages past the model's cap (Options.HBMCapBytes, default 4 GiB); a DMA job is checked whole (see mem.hbm_cap).",
			"tpbsim (DESIGN.md §1)", isa.Invented, []string{"dst_start_addr"}, "a crafted program must not exhaust the host's memory"),
	}
}
