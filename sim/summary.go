package sim

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/tpbsim/tpbsim/timing"
)

// Summary explains a run's end time with the timing model (Result.Summary): when it ended,
// what each engine did with the time, how close the DMA engines came to their peak, the chain
// of instructions and waits that set the end (the critical path) and the bottleneck in one
// line. Its JSON form is what `--summary FILE.json` writes; "end_ns" and "engines" (each with
// "engine", "instructions", "busy_ns", "wait_ns") are read by tools outside the repository.
type Summary struct {
	Gen          string          `json:"gen"`
	EndNs        float64         `json:"end_ns"`
	Engines      []EngineSummary `json:"engines"`
	DMA          DMASummary      `json:"dma"`
	CriticalPath []PathStep      `json:"critical_path"`
	// Bottleneck names what the critical path spends most of its time on, e.g. "DMA-bound: the
	// DMA engines are busy 91% of the run".
	Bottleneck string `json:"bottleneck"`
	// PathShare is the critical path's time by what it was spent on: an engine name, "DMA"
	// (descriptors), "DGE issue" (DMA instructions on their queue) or "latency" (semaphore
	// latency and waits between the steps), in ns.
	PathShare map[string]float64 `json:"critical_path_share_ns"`
}

// EngineSummary is one engine queue (DVE, POOL, ACT, SP, PE) or DMA engine (DMA0..) of a run.
type EngineSummary struct {
	Engine       string  `json:"engine"`
	Instructions int     `json:"instructions"` // descriptors for a DMA engine
	BusyNs       float64 `json:"busy_ns"`
	WaitNs       float64 `json:"wait_ns"` // blocked on semaphore waits
	IdleNs       float64 `json:"idle_ns"` // end_ns - busy_ns - wait_ns
	BusyFraction float64 `json:"busy_fraction"`
	Waits        int     `json:"waits"`
	BytesRead    int64   `json:"bytes_read"`
	BytesWritten int64   `json:"bytes_written"`
	// BytesPerNs is a DMA engine's bytes written over its busy time, against PeakBytesPerNs.
	BytesPerNs     float64 `json:"bytes_per_ns,omitempty"`
	PeakBytesPerNs float64 `json:"peak_bytes_per_ns,omitempty"`
}

// DMASummary is the DMA engines together.
type DMASummary struct {
	Engines int     `json:"engines"` // the generation's DMA engines
	Bytes   int64   `json:"bytes"`   // written by all descriptors
	BusyNs  float64 `json:"busy_ns"` // time during which at least one DMA engine is busy
	// BusyFraction is BusyNs over the run.
	BusyFraction float64 `json:"busy_fraction"`
	// BytesPerNs is Bytes over BusyNs: the achieved bandwidth while the DMA engines worked,
	// against PeakBytesPerNs (all engines at dma.bytes_per_ns).
	BytesPerNs     float64 `json:"bytes_per_ns"`
	PeakBytesPerNs float64 `json:"peak_bytes_per_ns"`
	FractionOfPeak float64 `json:"fraction_of_peak"`
}

// PathStep is one step of the critical path: an instruction, a DMA instruction's issue, or a
// descriptor; consecutive instructions of one queue that followed each other in queue order
// are one step (Count of them, indices First..Last).
type PathStep struct {
	Engine  string  `json:"engine"`
	What    string  `json:"what"`
	First   int     `json:"first"`
	Last    int     `json:"last"`
	Count   int     `json:"count"`
	StartNs float64 `json:"start_ns"`
	EndNs   float64 `json:"end_ns"`
	// Via is how the step's start was set: "start" (the run's start), "queue" (the previous
	// instruction on its queue or engine freed it), "issue" (its DMA instruction issued it), or
	// "sem[N]" (it waited for semaphore N, set by the previous step).
	Via string `json:"via"`
	// LatencyNs is the semaphore latency on the way from the previous step (sem_to_start).
	LatencyNs float64 `json:"latency_ns,omitempty"`
}

func nsOf(ps int64) float64 { return math.Round(float64(ps)) / 1000 }

// Summary explains the run's end time (also of a run that stopped on an error: up to the stop).
func (r *Result) Summary() *Summary {
	s := &Summary{EndNs: nsOf(r.EndPS), PathShare: map[string]float64{}}
	var tt *timing.Table
	if r.timeline != nil {
		tt = r.timeline.t
		s.Gen = r.gen.String()
	}
	end := r.EndPS
	for _, e := range r.Engines {
		es := EngineSummary{Engine: e.Engine, Instructions: e.Instructions, BusyNs: nsOf(e.BusyPS), WaitNs: nsOf(e.WaitPS),
			IdleNs: nsOf(max(0, end-e.BusyPS-e.WaitPS)), Waits: e.Waits, BytesRead: e.BytesRead, BytesWritten: e.BytesWritten}
		if end > 0 {
			es.BusyFraction = round3(float64(e.BusyPS) / float64(end))
		}
		if strings.HasPrefix(e.Engine, "DMA") {
			s.DMA.Bytes += e.BytesWritten
			if e.BusyPS > 0 {
				es.BytesPerNs = round3(float64(e.BytesWritten) / (float64(e.BusyPS) / 1000))
			}
			if tt != nil {
				es.PeakBytesPerNs = tt.DMABytesPerNs
			}
		}
		s.Engines = append(s.Engines, es)
	}
	if r.timeline == nil {
		return s
	}
	s.DMA.Engines = r.gen.Geometry().DMAEngineCount
	s.DMA.PeakBytesPerNs = tt.PeakDMABytesPerNs(s.DMA.Engines)
	busy := r.timeline.dmaBusyPS()
	s.DMA.BusyNs = nsOf(busy)
	if end > 0 {
		s.DMA.BusyFraction = round3(float64(busy) / float64(end))
	}
	if busy > 0 {
		s.DMA.BytesPerNs = round3(float64(s.DMA.Bytes) / (float64(busy) / 1000))
		if s.DMA.PeakBytesPerNs > 0 {
			s.DMA.FractionOfPeak = round3(s.DMA.BytesPerNs / s.DMA.PeakBytesPerNs)
		}
	}
	s.CriticalPath, s.PathShare = r.timeline.criticalPath()
	s.Bottleneck = s.bottleneck()
	return s
}

func round3(x float64) float64 { return math.Round(x*1000) / 1000 }

// dmaBusyPS is the time during which at least one DMA engine works.
func (rt *runTiming) dmaBusyPS() int64 {
	type iv struct{ a, b int64 }
	var ivs []iv
	for i := range rt.nodes {
		if n := &rt.nodes[i]; n.kind == nodeDescriptor && n.end > n.start {
			ivs = append(ivs, iv{n.start, n.end})
		}
	}
	sort.Slice(ivs, func(i, j int) bool { return ivs[i].a < ivs[j].a })
	var total, curA, curB int64
	curA, curB = -1, -1
	for _, v := range ivs {
		if v.a > curB {
			if curB > curA {
				total += curB - curA
			}
			curA, curB = v.a, v.b
		} else {
			curB = max(curB, v.b)
		}
	}
	if curB > curA {
		total += curB - curA
	}
	return total
}

// criticalPath walks back from the node that ends last through the nodes that set each start.
func (rt *runTiming) criticalPath() ([]PathStep, map[string]float64) {
	share := map[string]float64{}
	last := -1
	for i := range rt.nodes {
		if last < 0 || rt.nodes[i].end >= rt.nodes[last].end {
			last = i
		}
	}
	if last < 0 {
		return nil, share
	}
	var chain []int
	for i, guard := last, 0; i >= 0 && guard <= len(rt.nodes); i, guard = int(rt.nodes[i].pred), guard+1 {
		chain = append(chain, i)
	}
	for l, r := 0, len(chain)-1; l < r; l, r = l+1, r-1 {
		chain[l], chain[r] = chain[r], chain[l]
	}
	var steps []PathStep
	for k, i := range chain {
		n := &rt.nodes[i]
		// time attribution: this node until the next step starts (or its end)
		segEnd := n.end
		if k+1 < len(chain) {
			segEnd = rt.nodes[chain[k+1]].start
		}
		if k == 0 && n.start > 0 {
			share["latency"] += nsOf(n.start)
		}
		work := min(n.end, segEnd) - n.start
		if n.via == viaQueue && k > 0 {
			// a queue successor starts when the queue is free, not at completion
			work = min(n.occEnd, segEnd) - n.start
		}
		if k+1 < len(chain) && rt.nodes[chain[k+1]].via == viaQueue {
			work = min(n.occEnd, segEnd) - n.start
		}
		work = max(work, 0)
		share[category(n)] += nsOf(work)
		if gap := segEnd - n.start - work; gap > 0 {
			share["latency"] += nsOf(gap)
		}
		via := n.viaString()
		if len(steps) > 0 && via == "queue" && n.kind == nodeCompute {
			p := &steps[len(steps)-1]
			if p.Engine == n.queue.String() && p.Via != "" && rt.nodes[chain[k-1]].kind == nodeCompute {
				p.Last, p.Count, p.EndNs = int(n.index), p.Count+1, nsOf(n.end)
				if l := n.label(); !strings.Contains(p.What, l) {
					p.What += ", " + l
				}
				continue
			}
		}
		steps = append(steps, PathStep{Engine: n.name(), What: n.label(), First: int(n.index), Last: int(n.index), Count: 1,
			StartNs: nsOf(n.start), EndNs: nsOf(n.end), Via: via, LatencyNs: nsOf(n.viaLatency)})
	}
	for k, v := range share {
		share[k] = round3(v)
		if share[k] == 0 {
			delete(share, k)
		}
	}
	return steps, share
}

func category(n *node) string {
	switch n.kind {
	case nodeDescriptor:
		return "DMA"
	case nodeDMAIssue:
		return "DGE issue"
	}
	return n.queue.String()
}

// bottleneck names the largest share of the critical path.
func (s *Summary) bottleneck() string {
	if len(s.PathShare) == 0 {
		return "idle: nothing ran"
	}
	keys := make([]string, 0, len(s.PathShare))
	var total float64
	for k, v := range s.PathShare {
		keys = append(keys, k)
		total += v
	}
	sort.Slice(keys, func(i, j int) bool {
		if s.PathShare[keys[i]] != s.PathShare[keys[j]] {
			return s.PathShare[keys[i]] > s.PathShare[keys[j]]
		}
		return keys[i] < keys[j]
	})
	top := keys[0]
	pct := func(x float64) int { return int(math.Round(100 * x)) }
	switch top {
	case "DMA":
		return fmt.Sprintf("DMA-bound: the DMA engines are busy %d%% of the run, at %d%% of their peak %.0f B/ns while busy",
			pct(s.DMA.BusyFraction), pct(s.DMA.FractionOfPeak), s.DMA.PeakBytesPerNs)
	case "latency", "DGE issue":
		lat := s.PathShare["latency"] + s.PathShare["DGE issue"]
		return fmt.Sprintf("latency-bound: %d%% of the critical path is DMA instruction issue (dge.issue_ns), semaphore-to-start latency (dma.sem_to_start_ns) and waits; the DMA engines are busy %d%% of the run",
			pct(lat/total), pct(s.DMA.BusyFraction))
	}
	for _, e := range s.Engines {
		if e.Engine == top {
			return fmt.Sprintf("%s-bound: the %s is busy %d%% of the run", top, top, pct(e.BusyFraction))
		}
	}
	return top + "-bound"
}

// WriteJSON writes the summary as indented JSON.
func (s *Summary) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(s)
}

// WriteSummary prints the end-of-run table: per engine, the instructions (descriptors for a DMA
// engine), busy, waiting and idle time, bytes read and written; then the DMA bandwidth, the
// critical path and the bottleneck.
func (r *Result) WriteSummary(w io.Writer) {
	s := r.Summary()
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "engine\tinstructions\tbusy\twaits\twaited\tidle\tbytes read\tbytes written\t")
	for _, e := range r.Engines {
		waited := "-"
		if e.WaitPS > 0 {
			waited = fmtPS(e.WaitPS)
		}
		fmt.Fprintf(tw, "%s\t%d\t%s\t%d\t%s\t%s\t%d\t%d\t\n", e.Engine, e.Instructions, fmtPS(e.BusyPS), e.Waits, waited,
			fmtPS(max(0, r.EndPS-e.BusyPS-e.WaitPS)), e.BytesRead, e.BytesWritten)
	}
	tw.Flush()
	gen := ""
	if s.Gen != "" {
		gen = " on " + s.Gen
	}
	fmt.Fprintf(w, "end of run: t = %s (DMA rows count descriptors; times from the timing model%s, tpbsim explain timing)\n", fmtPS(r.EndPS), gen)
	if s.DMA.Bytes > 0 {
		fmt.Fprintf(w, "DMA: %d bytes, engines busy %s (%.0f%% of the run), %.1f B/ns while busy of %.0f B/ns peak (%.0f%%)\n",
			s.DMA.Bytes, fmtPS(int64(s.DMA.BusyNs*1000)), 100*s.DMA.BusyFraction, s.DMA.BytesPerNs, s.DMA.PeakBytesPerNs, 100*s.DMA.FractionOfPeak)
	}
	if len(s.CriticalPath) > 0 {
		fmt.Fprintln(w, "critical path:")
		const show = 12
		for i, p := range s.CriticalPath {
			if len(s.CriticalPath) > show && i == show/2 {
				fmt.Fprintf(w, "  ... %d steps ...\n", len(s.CriticalPath)-show)
			}
			if len(s.CriticalPath) > show && i >= show/2 && i < len(s.CriticalPath)-show/2 {
				continue
			}
			idx := fmt.Sprintf("#%d", p.First)
			if p.Count > 1 {
				idx = fmt.Sprintf("#%d..#%d (%d)", p.First, p.Last, p.Count)
			}
			via := p.Via
			if p.LatencyNs > 0 {
				via += fmt.Sprintf(" +%s", fmtPS(int64(p.LatencyNs*1000)))
			}
			fmt.Fprintf(w, "  %10s - %-10s %-5s %-14s %-28s after %s\n", fmtPS(int64(p.StartNs*1000)), fmtPS(int64(p.EndNs*1000)), p.Engine, idx, p.What, via)
		}
	}
	if s.Bottleneck != "" {
		fmt.Fprintf(w, "bottleneck: %s\n", s.Bottleneck)
	}
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
