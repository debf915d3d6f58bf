package sim

import (
	"bufio"
	"fmt"
	"io"
)

// WriteReport writes `tpbsim dge run`'s report of the request's run res: the generation, the
// plan's kind, its descriptors on how many DMA engines, the bytes and the modelled time (for a
// tensor request also the planner's lower bound, the engines that carried the descriptors when
// the SBUF partitions spread them, the credit waits of a descriptor ring, then the notes — the
// caller's, e.g. of its loads, and the plan's — and the semaphore updates), and the
// verification when it passed.
func (r *DGERun) WriteReport(w io.Writer, res *DGEResult, notes []string) error {
	bw := bufio.NewWriter(w)
	p, g := r.plan, r.gen()
	if r.index != nil {
		fmt.Fprintf(bw, "%v: %v of %d indices, %d descriptors on %d of %d DMA engines, %d bytes, modelled time %d ns\n",
			g, p.Kind, len(r.index.Index), p.Descriptors, p.NumDMA, p.DMAAvail, res.Bytes, res.End)
	} else {
		fmt.Fprintf(bw, "%v: %v, %d descriptors on %d of %d DMA engines (lower bound %d), %d bytes, modelled time %d ns",
			g, p.Kind, p.Descriptors, p.NumDMA, p.DMAAvail, p.LowerBound, res.Bytes, res.End)
		if n := len(res.Summary.Engines); n != p.NumDMA {
			fmt.Fprintf(bw, ", carried by %d engine(s) by SBUF partition (tpbsim explain sim.dma_partition_spread)", n)
		}
		if p.Job.RingDepth > 0 {
			fmt.Fprintf(bw, ", %d credit waits (ring depth %d)", res.CreditWaits, p.Job.RingDepth)
		}
		fmt.Fprintln(bw)
		for _, n := range append(append([]string(nil), notes...), p.Notes...) {
			fmt.Fprintf(bw, "note: %s\n", n)
		}
		for _, s := range res.Sems {
			fmt.Fprintf(bw, "semaphore %d += %d at %d ns (DMA[%d])\n", s.Sem, s.Delta, s.Time, s.Engine)
		}
	}
	if res.Verified {
		fmt.Fprintln(bw, "verify: destination matches the direct reference")
	}
	return bw.Flush()
}
