package ucode

import "github.com/tpbsim/tpbsim/isa"

// Provenance lists every behaviour of this package taken from an INFERRED or STRONG claim of
// seed 004 / FACTS §E, or chosen here where they are silent.
func Provenance() []isa.Provenance {
	b := func(id, text, src string, c isa.Confidence, reason string) isa.Provenance {
		return isa.Provenance{ID: id, Kind: "behaviour", Text: text, Source: src, Confidence: c, Reason: reason}
	}
	return append(ruleEntries(), []isa.Provenance{
		b("ucode.datapath_geometry", "datapath_table is a headerless array of 64-byte blocks, 8 u64-LE lanes each, indexed by the fast control row; 128 blocks in gen2, 256 in gen3/gen4.",
			"seed 004 §1", isa.HighObserved, ""),
		b("ucode.block_classes", "A block is OFF (all zero), PASSTHRU (idle lanes, optionally mixed with zero lanes, no active lane) or ACTIVE (any other lane word).",
			"seed 004 §2, §4", isa.HighObserved, ""),
		b("ucode.depth_left_packed", "k = number of active lanes is the pipeline depth; active lanes must be lanes 0..k-1. A block breaking this keeps its class and depth and is reported as a packing violation.",
			"seed 004 §3", isa.HighObserved, "Reporting instead of rejecting lets a reader see a blob that breaks the rule."),
		b("ucode.lane_fields_gen2", "gen2 lane word: OPA[0:8] OPB[8:11] MUX[11:20] VALID[20] MODE[21:24] STAGE[24:27]; bits 27..63 shown raw as HIGH.",
			"seed 004 §4", isa.MedInferred, "The seed marks the OPB/MUX/MODE boundaries INFERRED (value factoring, no firmware packer); roles STRONG."),
		b("ucode.lane_fields_gen3", "gen3: fields at and above VALID move +12 (VALID 32, MODE 33..35, STAGE 36..38); the inserted bits 20..31 are EXT3, shown raw; bits 39..63 HIGH raw.",
			"seed 004 §5", isa.HighInferred, "The +12 move is proved by the BatchNormStats2 XOR; the role of the inserted bits is unknown, so they get a neutral name."),
		b("ucode.lane_fields_gen4", "gen4: VALID 42, MODE 43..45, STAGE 46..48 (+22 from gen2); EXT3 20..31 and EXT4 32..41 raw; HIGH = bits 49..63 raw.",
			"seed 004 §4, §5; FACTS §E.4", isa.LowInferred,
			"The seed says HIGH starts at bit 48 and also that STAGE moves +22 (to 46..48); bit 48 cannot be both. STAGE keeps 3 bits (values up to 7; relocation stated as uniform), so HIGH starts at 49. The quoted gen4 words set only bits 57 and 59 up there. One line in gen4Layout moves the boundary."),
		b("ucode.crossgen_check", "The cross-generation check of an opcode compares VALID, MODE and STAGE lane by lane after relocation and reports OPA/OPB/MUX differences without failing.",
			"seed 004 §5", isa.MedInferred,
			"The seed's own quoted words change OPA (op65 lane0 0x1c -> 0x20 -> 0x38; op66 lane1 0x0c -> 0x0c -> 0x06) and MUX (op88 0x004 -> 0x028), despite its 'OPA low byte survives' remark; only the relocated fields are invariant in every quoted word."),
		b("ucode.xor_proof_typo", "The gen3 BatchNormStats2 mean/M2 XOR is 0x600000000 (bits 33, 34: MODE moved +12).",
			"seed 004 §5", isa.HighObserved, "The seed prints 0x6000000000 (one zero too many) next to the correct bit list {33,34}; the words themselves give 0x600000000."),
		b("ucode.gen_inference", "Without an explicit generation: 8192-B datapath / 2048-B opcode / a control_table mean gen2; 16384 / 1024 / a fast+slow pair mean gen3 or gen4, told apart by which idle word (bit 32 or bit 42) the datapath table holds more of.",
			"seed 004 §2, FACTS §E.1", isa.HighInferred, "The idle word is the VALID bit alone and its position is per generation; a tie or no datapath table is an error asking for --gen."),
		b("ucode.opcode_entry", "opcode_table slot: gen2 u64, row = V & 0x7f, slow field = V >> 7 (no slow table exists); gen3/gen4 u32, fast = V & 0xff, slow = V >> 8, 0 = fast-only; 0 = opcode disabled.",
			"FACTS §E.2", isa.HighObserved, ""),
		b("ucode.control_fields", "Control rows are kept as raw 16-byte words; gen2 lane_mode/step_op_select/issue_marker/operand_mux and gen3/gen4 fast byte0/micro_pc/step_config/issue_marker/step_op_select/high_op_bits are named for display only. gen3 fast rows are read with the gen4 field names.",
			"FACTS §E.3", isa.MedInferred, "FACTS gives the gen4 fast fields (STRONG); gen3 shares the 64-bit fast word size and is assumed to share the fields."),
		b("ucode.slow_steps", "A slow row's bytes 0..5 are shown as four 12-bit steps read low nibble first, byte 6 as the loop count, bytes 8..13 as the loop payload.",
			"FACTS §E.3", isa.LowInferred, "FACTS's own example (slow[48] -> {0x001,0x30c,0x30c,0x30c}) depends on a 'head nibble substitution' rule it does not spell out; the plain read gives {0x300,0x30c,0x30c,0x30c}; the raw bytes stay the authority."),
		b("ucode.orphan_blocks", "An ACTIVE block on an all-zero control row is reported as an orphan (the real blobs have none).",
			"seed 004 §1", isa.HighObserved, ""),
		b("ucode.missing_opcodes", "MissingOpcodes lists the program's opcodes whose slot is zero, like the compiler's checkMissingOpcodes.",
			"FACTS §E.4", isa.HighInferred, "The compiler picks the first set covering every used opcode; a model given one set can only report which are missing."),
		b("ucode.roster_names", "Opcode names from the FACTS §E.2 numbering; 96, 98..101 (BatchNorm*), 229, 232 and the gen2 residents 241, 242 have no published name and print as BatchNorm(96), Op(229), Resident(241).",
			"FACTS §E.2", isa.HighObserved, "Only BatchNormStats2 = 97 is bound among 96..101; guessing the others would invent facts."),
		b("ucode.twins", "Arith/bitvec twins (65/81, 66/82, 67/83, 68/84, 78/94, 131/132, 157/158) are shown as sharing a row when both are enabled on the same fast row.",
			"seed 004 §1 NOTE, FACTS §E.2", isa.HighInferred, "FACTS quotes op65 and op81 sharing 0x3008; the other pairs follow the naming."),
		b("ucode.fixture_depth_carry", "Synthetic gen3/gen4 sets give each op the FACTS §E.4 gen2 depth k.",
			"seed 004 §3", isa.LowInferred, "k tracks the op's semantics (STRONG), which do not change across generations; no gen3/gen4 depths are published."),
		b("ucode.fixture_filler", "Synthetic sets reproduce every quoted word, entry, row and published count; all other words, rows and bytes are deterministic filler (see fixture.go).",
			"seed 004 §8-§9, FACTS §E.2-§E.4", isa.Invented, "The compiler's blobs are not redistributable."),
		b("ucode.saturate_slow", "The synthetic saturate set keeps the opcode table's slow indices and changes 17 control_slow rows.",
			"seed 004 §9, FACTS §E.3", isa.MedInferred, "Seed 004 says 'the slow rows are unchanged' while FACTS §E.3 counts 17 differing slow rows; read together, the opcode entries' slow indices are unchanged and the slow table's contents change."),
		b("ucode.fixture_transformer", "The synthetic gen2 transformer set keeps the default set's opcode_table and control_table: its roster is the default 46 ops (FACTS §E.1 gives the real transformer set 47) and its difference is datapath payload only (588 words in 93 blocks).",
			"seed 004 §9, FACTS §E.1", isa.Invented, "The sources publish the transformer roster's size and the diff's extent, not which op it adds or how its rows are repacked; inventing a roster would pass filler off as a fact. A set diff of the fixture therefore shows no opcode-slot or control-row changes, which the real blobs would."),
		b("ucode.json_form", "The decoded JSON form (dtable dump --json / encode) is read strictly: a key given twice in one object or spelled in another case is an error, number strings are 0x-hex or decimal, and the set name must be usable as a file-name part (not empty, no path separator, not . or ..).",
			"DESIGN.md §7", isa.Invented, "encoding/json keeps the last of two keys and matches keys case-insensitively, a number string without 0x was read as hex, and a set name of \"../x\" made encode write outside its output folder: each read the input as something the writer did not say."),
		b("ucode.atomic_output", "dtable encode and report write each output file to a temporary file in the same folder and rename it, so a file is written whole or not at all.",
			"DESIGN.md §7", isa.Invented, "DESIGN.md asks that output files be written whole or not at all; a same-folder rename is atomic on POSIX file systems."),
		b("ucode.crossgen_differs", "A cross-generation lane that fails names what differs: each relocated field (VALID, MODE, STAGE) whose values differ, with both values, or \"kind\" when one lane is active and the other not.",
			"seed 004 §5", isa.Invented, "The check's verdict alone (FIELDS DIFFER, with only the allowed OPA/OPB/MUX differences listed) sent a reader looking in the wrong field."),
	}...)
}

// ruleTexts says what each rule id a ucode error names checks; TestRuleIDsRegistered holds the
// sources to this list.
var ruleTexts = []struct {
	id, text, source string
	c                isa.Confidence
}{
	{RuleTableSize, "A table file is exactly its generation's size: opcode_table 2048 B (gen2) or 1024 B (gen3/gen4), control tables 2048 B or 4096 B, datapath_table 8192 B or 16384 B. A short file is truncated at the offset where it ends.", "FACTS §E.1", isa.HighObserved},
	{RuleTableGen, "The table generation is gen2, gen3 or gen4 (SUNDA, CAYMAN, MARIANA / MARIANA_PLUS); the files of a set agree on one, and gen3 and gen4 are told apart by the datapath table's idle words or given.", "FACTS §E.0-§E.1; seed 004 §2", isa.HighObserved},
	{RuleTableKind, "A table file is named <set>_<table>.bin with one of the five table names, and the table exists in the generation (control_table in gen2 only, control_fast_table and control_slow_table in gen3/gen4 only).", "FACTS §E.1 (dve_table_keys)", isa.HighObserved},
	{RuleTablePresent, "The table an operation reads is in the set (the census and the report read the datapath_table), and a folder holds the set asked for.", "seed 004 §1", isa.Invented},
	{RuleOneSet, "The files given are of one set, each table once; a folder holding several sets and no \"default\" needs the set named.", "FACTS §E.1", isa.Invented},
	{RuleSetName, "A set name is a file-name part: not empty, not . or .., no path separator or control character.", "FACTS §E.1 (<set>_<table>.bin)", isa.Invented},
	{RuleLaneField, "A lane field exists in the generation (EXT3 from gen3, EXT4 in gen4) and its value fits its width; HIGH holds bits above STAGE only.", "seed 004 §4-§5", isa.MedInferred},
	{RuleOpcodeEntry, "An opcode_table slot holds a fast row of 7 bits (gen2) or 8 bits (gen3/gen4) and the slow field above it, within the slot's 8 bytes (gen2) or 4 bytes (gen3/gen4).", "FACTS §E.2", isa.HighObserved},
	{RuleOpcode, "An opcode is a number 0..255 (decimal or 0x-hex) or a DVE opcode name of the FACTS §E.2 numbering.", "FACTS §E.2", isa.Invented},
	{RuleControlRow, "A control row is 16 bytes, written as hex (spaces optional) in the JSON form.", "FACTS §E.3", isa.HighObserved},
	{RuleBlockIndex, "A block number names a block of the datapath table (0..127 in gen2, 0..255 in gen3/gen4).", "seed 004 §1", isa.HighObserved},
	{RuleResolves, "A cross-generation check compares an opcode whose slot is enabled in both sets and whose fast row has a datapath block in both.", "seed 004 §5", isa.Invented},
	{RuleJSONSyntax, "The JSON form is one JSON object of the form's keys, each given once and spelled exactly, with nothing after it but white space.", "DESIGN.md §7", isa.Invented},
	{RuleJSONFormat, "The JSON form names its format, tpbsim.dtable/1.", "DESIGN.md §7", isa.Invented},
	{RuleJSONTables, "\"tables\" lists tables of the generation, and every table the JSON gives entries for.", "DESIGN.md §7", isa.Invented},
	{RuleJSONIndex, "A listed opcode, control row, block or lane is in range for the generation and listed once.", "DESIGN.md §7", isa.Invented},
	{RuleJSONAgree, "A redundant value agrees with what it repeats: an opcode slot's raw with its fast_row and slow_row, a lane's word with its fields; a lane has a word or fields.", "DESIGN.md §7", isa.Invented},
	{RuleJSONNumber, "A number string of the JSON form is 0x-hex or decimal and fits 64 bits.", "DESIGN.md §7", isa.Invented},
	{RuleFixture, "A synthetic table set is one BuildFixture builds (FixtureNames).", "testdata/ucode/README.md", isa.Invented},
	{RuleOutputFolder, "encode writes a set's files into a named folder.", "DESIGN.md §7", isa.Invented},
	{RuleDiffSameGen, "A word-by-word diff compares two sets of one generation; sets of two generations are compared opcode by opcode (the cross-generation check).", "seed 004 §5, §9", isa.HighInferred},
	{RuleOpcodeTable, "A cross-generation check of every opcode reads both sets' opcode tables.", "seed 004 §5", isa.Invented},
	{RuleDumpSelection, "dump's JSON form prints the opcode resolutions or the blocks asked for, not both (they are different JSON arrays).", "DESIGN.md §7", isa.Invented},
}

func ruleEntries() []isa.Provenance {
	out := make([]isa.Provenance, len(ruleTexts))
	for i, r := range ruleTexts {
		reason := ""
		if r.c.Kind != "OBSERVED" {
			reason = "ucode refuses such input with this rule id, naming the file, table, offset or JSON path and what is legal, instead of reading it some other way"
		}
		out[i] = isa.Rule(r.id, r.text, r.source, r.c, nil, reason)
	}
	return out
}
