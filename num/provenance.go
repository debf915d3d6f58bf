package num

// Decision is one behaviour of this package that the seeds and FACTS do not pin down, with the
// evidence it rests on. The fields are plain strings so the isa package's provenance registry
// (isa.Provenance, behaviour entries) can adopt them without num importing isa.
type Decision struct {
	ID         string // behaviour or rule id, "num.<topic>"
	Kind       string // "rule" for a rule a num *Error names (RuleIDs), else "" (a behaviour)
	Text       string // what the model does
	Source     string // FACTS / DESIGN / NKI section the decision reads
	Confidence string // LEVEL/KIND, e.g. "MED/INFERRED", "LOW/INVENTED"
	Reason     string // why this reading was chosen
}

// Provenance lists every INFERRED or INVENTED choice the element types and conversions make.
// It returns a fresh slice on each call.
func Provenance() []Decision {
	return []Decision{
		{
			ID: "num.cast.via_fp32",
			Text: "Every cast between different kinds goes through FP32: the source widens to FP32 (integers rounded to nearest even), " +
				"then FP32 narrows to the destination. Integer-to-integer casts lose the low bits of values beyond 2^24, and 32/64-bit " +
				"integers cast to BF16/FP16/FP8 are rounded twice. A cast to the same kind copies the bits.",
			Source:     "FACTS §A.1 (FP32 \"the cast hub\"); DESIGN.md §4 Cast",
			Confidence: "MED/INFERRED",
			Reason:     "FACTS names FP32 the cast hub and DESIGN says casts go via FP32; no wider integer path is described for the DVE or DMA casts.",
		},
		{
			ID:         "num.cast.float_to_int",
			Text:       "Float to integer rounds toward zero and saturates at the integer type's range; NaN gives 0, +Inf the maximum, -Inf the minimum (0 for unsigned).",
			Source:     "DESIGN.md §4 Cast",
			Confidence: "MED/INFERRED",
			Reason:     "DESIGN fixes toward-zero saturating; NaN -> 0 matches the common accelerator convention (and the saturating-cast behaviour users see from NKI) and is the only value not biased to either end.",
		},
		{
			ID:         "num.cast.rne",
			Text:       "Narrowing into a float kind rounds to nearest, ties to even. Overflow rounds to Inf where the format has Inf (FP32, FP32R, BF16, FP16, FP8 E3M4/E4M3/E5M2) and saturates to the largest finite value where it has none (FP8_EXP2, FP4_EXP2, SFP8_*).",
			Source:     "DESIGN.md §4 Cast",
			Confidence: "MED/INFERRED",
			Reason:     "IEEE 754 default rounding and overflow; formats without Inf cannot do otherwise than saturate.",
		},
		{
			ID:         "num.subnormals",
			Text:       "Subnormals are kept, never flushed to zero, in every format that has them, on widening and on narrowing.",
			Source:     "FACTS §A.1 (silent on denormals)",
			Confidence: "LOW/INFERRED",
			Reason:     "Nothing in the seeds or FACTS mentions flush-to-zero; exact IEEE behaviour is what numpy and ml_dtypes users compare against.",
		},
		{
			ID:         "num.nan",
			Text:       "Widening keeps a NaN's sign and payload bit for bit (a signalling NaN stays signalling). Narrowing keeps the sign and the top payload bits and sets the quiet bit (the mantissa MSB), so a NaN never becomes Inf. Formats without NaN receive +0 (FP8_EXP2, FP4_EXP2) or their NaN code 0xFF (SFP8_*).",
			Source:     "FACTS §A.1 (silent on NaN)",
			Confidence: "LOW/INVENTED",
			Reason:     "IEEE 754 convertFormat quiets signalling NaNs and recommends keeping the payload; numpy float32->float16 keeps the sign and top payload bits as well (but leaves a signalling NaN signalling, e.g. 0x7F800001 -> 0x7C01, where this model quiets it as convertFormat does).",
		},
		{
			ID: "num.alu_nan",
			Text: "Every NaN an FP32 ALU operation produces is the default quiet NaN 0x7FC00000 (positive, no payload), whatever its operands' NaNs: " +
				"the values the DVE's float-class TensorReduce, TransposeTensorReduce and TensorCumulative store (every op, BYPASS and a group of one included; after negated), " +
				"Reciprocal's 1/x, and the DMA's compute_op (dst = dst op src: ADD, MULTIPLY, MAX, MIN). It is then narrowed to the output kind by num.nan " +
				"(BF16 0x7FC0, FP16 0x7E00; integers 0). Copy, Cast, StreamTranspose, StreamShuffle and DMA transfers without a compute_op are not ALU operations and keep num.nan's payload rule.",
			Source:     "none (the seeds and FACTS are silent on the DVE's and DMA's NaN results)",
			Confidence: "LOW/INVENTED",
			Reason: "A simulator's output must not depend on its host, and the host's NaN bits do: Go may swap the operands of a commutative a+b or a*b, x86 returns the first operand's NaN " +
				"when both are NaN, an invalid operation (Inf-Inf, 0*Inf) gives 0xFFC00000 on amd64 and 0x7FC00000 on arm64, and Go's max/min return \"a NaN\". IEEE 754 " +
				"only recommends propagating an input NaN's payload (and not which of two) and leaves the bits of an invalid operation's NaN to the implementation; " +
				"users compare with np.isnan, which any NaN satisfies; and a single canonical NaN is what several accelerators produce (RISC-V F returns 0x7FC00000 " +
				"for every NaN result, as Arm does in default-NaN mode).",
		},
		{
			ID:         "num.fp8.e4m3",
			Text:       "FP8_EXP4 (0x0E) is the IEEE-like E4M3: bias 7, exponent 15 reserved (S.1111.000 = Inf, S.1111.mmm != 0 = NaN, NaN out = S.1111.100|payload), largest finite 240 (0x77), smallest subnormal 2^-9. Not OCP E4M3FN (max 448).",
			Source:     "FACTS §A.1 (E4M3, \"the usual e4m3\"); NKI.md \"Data types users name\"",
			Confidence: "MED/INFERRED",
			Reason:     "NKI lists float8_e4m3 and float8_e4m3fn as two different types; nki.language defines float8_e4m3 as ml_dtypes' float8_e4m3 (IEEE-like, max 240) and documents e4m3fn (no Inf, NaN = S.1111.111) separately, as natively supported only from Trn3 on. The wire code present since SUNDA is therefore the IEEE-like one.",
		},
		{
			ID:         "num.fp8.e5m2",
			Text:       "FP8_EXP5 (0x0F) is the IEEE-like E5M2: bias 15, exponent 31 = Inf/NaN, largest finite 57344 (0x7B), Inf 0x7C, smallest subnormal 2^-16.",
			Source:     "FACTS §A.1; NKI.md (float8_e5m2)",
			Confidence: "MED/INFERRED",
			Reason:     "E5M2 is IEEE-like in every common definition (OCP, ml_dtypes float8_e5m2 which nki.language uses).",
		},
		{
			ID:         "num.fp8.e3m4",
			Text:       "FP8_EXP3 (0x0D) is the IEEE-like E3M4: bias 3, exponent 7 = Inf/NaN, largest finite 15.5 (0x6F), Inf 0x70, smallest subnormal 2^-6.",
			Source:     "FACTS §A.1 (E3M4)",
			Confidence: "LOW/INFERRED",
			Reason:     "It arrived with E4M3 and E5M2 (all three since SUNDA), which are IEEE-like; ml_dtypes' float8_e3m4 is IEEE-like with the same bias.",
		},
		{
			ID:         "num.fp8.e2m5",
			Text:       "FP8_EXP2 (0x11, MAVERICK) is a finite-only E2M5: bias 1, no Inf, no NaN, largest 7.875, smallest subnormal 2^-5; overflow and Inf saturate, NaN gives +0.",
			Source:     "FACTS §A.1 (name and width only)",
			Confidence: "LOW/INVENTED",
			Reason:     "FACTS gives only E2M5. With a 2-bit exponent, reserving the top exponent for Inf/NaN would waste a quarter of the codes; OCP's small formats (FP6 E2M3, FP4 E2M1) are finite-only with bias 1.",
		},
		{
			ID:         "num.fp4.e2m1",
			Text:       "FP4_EXP2 (0x10) is OCP FP4 E2M1: bias 1, values 0, 0.5, 1, 1.5, 2, 3, 4, 6 with sign; no Inf or NaN; overflow and Inf saturate to 6, NaN gives +0.",
			Source:     "FACTS §A.1 (\"OCP FP4 E2M1\")",
			Confidence: "MED/INFERRED",
			Reason:     "FACTS names the OCP format; OCP leaves the NaN conversion to the implementation, and +0 matches num.nan.",
		},
		{
			ID:         "num.nibble_order",
			Text:       "4-bit kinds (FP4_EXP2, INT4) pack element 2j in the low nibble and element 2j+1 in the high nibble of byte j. LoadF32/StoreF32 on a single byte use the low nibble.",
			Source:     "FACTS §A.1 (size 0.5 byte; packing not given)",
			Confidence: "LOW/INVENTED",
			Reason:     "Consistent with the little-endian order of every wider element: the first element sits in the least significant bits.",
		},
		{
			ID:         "num.int4",
			Text:       "INT4 (0x12) is two's complement, range -8..7.",
			Source:     "FACTS §A.1 (signed, 0.5 byte)",
			Confidence: "MED/INFERRED",
			Reason:     "Every other signed integer DTYPE is two's complement.",
		},
		{
			ID:         "num.sfp8.format",
			Text:       "SFP8_E8/E7/E6/E5 (E8M0, E7M1, E6M2, E5M3) are unsigned scale formats with bias 2^(E-1)-1, no subnormals and no zero (code 0 = 2^-bias), and 0xFF = NaN. Narrowing rounds to nearest even; 0 and values below the smallest give 0x00, values above the largest and +Inf give 0xFE, negatives and NaN give 0xFF.",
			Source:     "FACTS §A.1 (\"scale-only\", names only)",
			Confidence: "LOW/INVENTED",
			Reason:     "E8M0 follows OCP MX E8M0 (NKI's float8_e8m0fnu) exactly; E7M1..E5M3 extend the same rule, since a scale needs neither sign, zero nor subnormals.",
		},
		{
			ID:         "num.fp32r",
			Text:       "FP32R as an output is a 4-byte FP32 word whose value is rounded to nearest even at 13 mantissa bits (the 1+8+13 \"FP22\" format) with the low 10 bits cleared; overflow rounds to Inf, NaN is quieted. As an input (which the validators reject) it is read as FP32.",
			Source:     "FACTS §A.1 (FP32R: output-only, \"FP22\" rounded partial fp32 in RTL); FACTS §B.3 PSUM 4-byte write rule lists FP32R with the 4-byte dtypes",
			Confidence: "LOW/INFERRED",
			Reason:     "22 bits keeping FP32's sign and 8-bit exponent leave 13 mantissa bits; round to nearest even is the rounding used everywhere else; the element stays 4 bytes wide per FACTS.",
		},
		{
			ID:         "num.cptc",
			Text:       "CPTC1..CPTC7 (0x19..0x1F) are recognised by name but have no element encoding: they load as NaN/0, store nothing, and ConvertSlice rejects them (rule num.kind_has_encoding).",
			Source:     "FACTS §A.1 (bit count d & 7 only)",
			Confidence: "LOW/INVENTED",
			Reason:     "FACTS gives no layout for the CPTC codes; refusing them is safer than guessing.",
		},
		{
			ID: RuleKindHasEncoding, Kind: "rule",
			Text:       "ConvertSlice converts only kinds with an element encoding: not INVALID, the CPTC codes (see num.cptc) or a code no dtype has.",
			Source:     "FACTS §A.1",
			Confidence: "MED/INFERRED",
			Reason:     "FACTS gives the CPTC codes no element layout and INVALID is no dtype: converting them would invent bits",
		},
		{
			ID: RuleKindName, Kind: "rule",
			Text:       "An element type is named by its wire name (FACTS §A.1), a user name of the one table tools and kernels share (NKI.md §5, numpy spellings, short forms) or its code; float8_e4m3fn stands for FP8_EXP4 in NKI kernels only, and tfloat32 names no storage type.",
			Source:     "FACTS §A.1; NKI.md §5",
			Confidence: "MED/INFERRED",
			Reason:     "the wire names and NKI's names are the sources'; the short forms and the refusal of e4m3fn outside kernels are tpbsim's, so a CLI user never gets IEEE-like e4m3 when asking for OCP e4m3fn",
		},
		{
			ID: RuleElementCount, Kind: "rule",
			Text:       "ConvertSlice's element count n is not negative.",
			Source:     "tpbsim",
			Confidence: "LOW/INVENTED",
			Reason:     "a caller error, reported instead of a panic",
		},
		{
			ID: RuleBufferHoldsElements, Kind: "rule",
			Text:       "Each buffer of ConvertSlice holds n elements of its kind (4-bit kinds: (n+1)/2 bytes).",
			Source:     "tpbsim",
			Confidence: "LOW/INVENTED",
			Reason:     "a caller error, reported instead of a panic",
		},
	}
}
