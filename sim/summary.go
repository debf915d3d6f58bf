package sim

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"
)

// WriteSummary prints the end-of-run table: per engine, the instructions (descriptors for a DMA
// engine), busy time, waits, bytes read and written.
func (r *Result) WriteSummary(w io.Writer) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "engine\tinstructions\tbusy\twaits\twaited\tbytes read\tbytes written\t")
	for _, e := range r.Engines {
		waited := "-"
		if e.WaitPS > 0 {
			waited = fmtPS(e.WaitPS)
		}
		fmt.Fprintf(tw, "%s\t%d\t%s\t%d\t%s\t%d\t%d\t\n", e.Engine, e.Instructions, fmtPS(e.BusyPS), e.Waits, waited, e.BytesRead, e.BytesWritten)
	}
	tw.Flush()
	fmt.Fprintf(w, "end of run: t = %s (DMA rows count descriptors; times from tpbsim's invented cost model)\n", fmtPS(r.EndPS))
	for _, e := range r.Engines {
		if len(e.Notes) == 0 {
			continue
		}
		keys := make([]string, 0, len(e.Notes))
		for k := range e.Notes {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		var parts []string
		for _, k := range keys {
			parts = append(parts, fmt.Sprintf("%s x%d", k, e.Notes[k]))
		}
		fmt.Fprintf(w, "%s microcode blocks: %s\n", e.Engine, strings.Join(parts, ", "))
	}
	if len(r.Annotated) > 0 {
		fmt.Fprintln(w, "microcode per instruction:")
		for _, a := range r.Annotated {
			keys := make([]string, 0, len(a.Annotation))
			for k := range a.Annotation {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			var parts []string
			for _, k := range keys {
				parts = append(parts, fmt.Sprintf("%s=%v", strings.TrimPrefix(k, "ucode_"), a.Annotation[k]))
			}
			fmt.Fprintf(w, "  %-4s %3d  %-34v %s\n", a.Engine, a.Index, a.Opcode, strings.Join(parts, " "))
		}
	}
}
