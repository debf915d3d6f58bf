// Package ucode reads, decodes, analyses and re-encodes the DVE microcode tables the compiler
// ships as neuronxcc/dve/dve_bin_gen{2,3,4}/<set>_*_table.bin (seed 004, FACTS §E).
//
// The chain the DVE engine follows (FACTS §E.2, seed 004 §1):
//
//	opcode --opcode_table[op]--> fast row R (+ slow row S)
//	       R --control_table / control_fast_table--> sequencer word
//	       S --control_slow_table (gen3/gen4 only)--> slow program word
//	       R --datapath_table--> DatapathBlock R: 8 lanes x one u64-LE LaneWord
//
// A TableSet holds whichever of the tables were given (Load reads a folder or files, inferring
// the generation); Lookup resolves an opcode through the chain; Census, DiffSets and
// CrossGenCheck are the analyses of seed 004 §2-§5 and §9; JSON / DecodeJSON are the readable
// form that re-encodes byte-identically; WriteReport draws a set (and optionally a diff) as one
// self-contained HTML page. Each dtable command is one call here: Info, Census, Dump, Compare,
// LoadJSON + WriteSetFiles, WriteReport; the first four have the text form dtable prints
// (WriteText) and its JSON form.
//
// Every error is an *Error: its fault category (fault.ErrTruncated, fault.ErrInvalid), the rule
// it breaks (a registry entry, tpbsim explain ucode.table_size) and where, e.g.
// "datapath_table: block[12]: lane[3]: MUX". A generation that does not exist is refused by every
// function that reads something of one (rule ucode.table_gen).
//
// Real compiler blobs are not redistributable: BuildFixture assembles full-size synthetic sets
// from every byte-exact word the seed and FACTS quote, plus clearly marked filler.
//
// Every behaviour taken from an INFERRED claim, or chosen here, is listed by Provenance.
package ucode
