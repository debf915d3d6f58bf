package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/tpbsim/tpbsim/explain"
	"github.com/tpbsim/tpbsim/isa"
)

func newExplainCmd(stdout, stderr io.Writer) *cobra.Command {
	var (
		asJSON bool
		gen    string
	)
	c := &cobra.Command{
		Use:   "explain RULE|OPCODE|rules|opcodes|behaviours|conflicts|timing",
		Short: "Explain a rule, a modelled behaviour or an opcode, with its provenance",
		Long: `explain RULE prints a rule's text, the fields it reads, its source (seed or FACTS
section) and confidence, and the opcodes it applies to. explain OPCODE (a name or a number)
prints the opcode's engine, generations, struct layout and the rules that apply per generation.
'explain rules', 'explain opcodes' and 'explain behaviours' list everything.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if strings.EqualFold(args[0], "timing") {
				o := explain.TimingOptions{JSON: asJSON}
				if cmd.Flags().Changed("gen") {
					g, err := isa.ParseGeneration(gen)
					if err != nil {
						return ioErr(err)
					}
					o.Gen = g
				}
				return explain.WriteTiming(stdout, o)
			}
			if asJSON || cmd.Flags().Changed("gen") {
				return ioErr(fmt.Errorf("explain %s: --json and --gen apply to 'explain timing' only", args[0]))
			}
			// An unknown topic (*explain.UnknownTopicError) has no category: a usage error.
			return explain.Write(stdout, args[0])
		},
	}
	c.Flags().BoolVar(&asJSON, "json", false, "explain timing: print the timing tables as JSON, the form --timing FILE.json reads")
	c.Flags().StringVar(&gen, "gen", "", "explain timing: one generation's table (default: all generations; with --json a flat object for this generation)")
	return c
}
