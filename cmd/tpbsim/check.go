package main

import (
	"io"

	"github.com/spf13/cobra"

	"github.com/tpbsim/tpbsim/explain"
	"github.com/tpbsim/tpbsim/sim"
)

func newCheckCmd(stdout, stderr io.Writer) *cobra.Command {
	var gen string
	var asJSON bool
	var maxElements uint64
	c := &cobra.Command{
		Use:   "check IN.bin [--gen G] [--json] [--max-elements N]",
		Short: "Validate every instruction word against the rules of a generation",
		Long: `Decode and validate each 64-byte word of IN.bin (or an .s / .tpb / .json source, assembled
first) for generation G and report every violation: the word, its byte offset, the opcode, the
rule id (the ISA header's predicate name), the field, the value found, what is legal, and the
rule's source and confidence ('tpbsim explain RULE' says more).

--gen defaults to CAYMAN. Exit status: 0 all words valid; 1 any word invalid; 2 usage or I/O
error (e.g. a file whose length is not a multiple of 64: the offset is named).

check makes every check run makes before it executes anything (sim.CheckProgram: the same
pipeline, the same rule ids): the queue's engine check, the instruction layer, the DGE's
lowering of a DMA instruction (a view past the last partition, overlapping src and dst, a
crossbar placement), the work limits (--max-elements, as run takes it) and the GpSimd PSUM
rule are violations; a word tpbsim does not execute (an opcode it names but does not model,
event or register-offset EVENTS forms, shape-register / indirect ADDR4s, ADDR8 register
markers, a reduce op it does not compute, a word on no modelled queue) is reported as
unsupported with its rule. A word check calls valid and supported is one run accepts before
the run. An address register's value is run-time state: for an ADDR4 in register mode (reg:N)
and a _REG wait check checks the register number; run resolves the register when the
instruction issues and applies the checks of an immediate address then (README "Registers").`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if maxElements == 0 {
				return ioErr(errZeroMaxElements)
			}
			f, err := loadProgramArg(args[0], gen)
			if err != nil {
				return err
			}
			rep, err := sim.CheckFile(f, sim.Config{MaxElements: maxElements})
			if err != nil {
				return ioErr(err)
			}
			if asJSON {
				err = rep.WriteJSON(stdout, explain.RuleProvenance)
			} else {
				err = rep.WriteText(stdout, explain.RuleProvenance)
			}
			if err != nil {
				return ioErr(err)
			}
			if !rep.OK() {
				return errSilentRule
			}
			return nil
		},
	}
	c.Flags().StringVar(&gen, "gen", "", "generation: SUNDA, CAYMAN, MARIANA, MARIANA_PLUS, MAVERICK (default CAYMAN)")
	c.Flags().BoolVar(&asJSON, "json", false, "print one JSON object per word")
	c.Flags().Uint64Var(&maxElements, "max-elements", sim.DefaultMaxElements, maxElementsHelp)
	return c
}
