package sim

import (
	"bytes"
	"fmt"
	"math/rand"

	"github.com/tpbsim/tpbsim/dge"
	"github.com/tpbsim/tpbsim/dma"
	"github.com/tpbsim/tpbsim/fault"
	"github.com/tpbsim/tpbsim/internal/trace"
	"github.com/tpbsim/tpbsim/isa"
	"github.com/tpbsim/tpbsim/num"
)

// DGERun is one DGE request executed on a machine's DMA engines as a DMA instruction's
// descriptors are in a run (`tpbsim dge run`): planned, held to the configuration's work limits
// before any memory is allocated, loaded or filled, run with the timing table and the placement
// by partition (RunDMAPlan), and verified against dge's direct reference. Build one with
// NewDGERun (a reshape/transpose request) or NewDGEIndexRun (a gather by indices); load or
// Fill its memory; then Execute.
type DGERun struct {
	plan    *dge.Plan
	machine *Machine
	req     *dge.Request      // a tensor request, or
	index   *dge.IndexRequest // an index request
}

// DGEOptions name a request in the work-limit error of CheckLimits.
type DGEOptions struct {
	// Name prefixes a work-limit error ("request --src hbm:0 ..."); "" leaves it bare.
	Name string
	// Raise says how to raise the limits, in that error (default "sim.Config.MaxElements").
	Raise string
}

// NewDGERun plans req, checks the plan against cfg's work limits and builds the machine of cfg
// (on the request's generation): PlanDGE and Start.
func NewDGERun(cfg Config, req dge.Request, o DGEOptions) (*DGERun, error) {
	r, err := PlanDGE(req)
	if err != nil {
		return nil, err
	}
	if err := r.Start(cfg, o); err != nil {
		return nil, err
	}
	return r, nil
}

// NewDGEIndexRun is NewDGERun for an index request: PlanDGEIndex, Start and WriteIndices.
func NewDGEIndexRun(cfg Config, ir *dge.IndexRequest, o DGEOptions) (*DGERun, error) {
	r, err := PlanDGEIndex(ir)
	if err != nil {
		return nil, err
	}
	if err := r.Start(cfg, o); err != nil {
		return nil, err
	}
	return r, r.WriteIndices()
}

// PlanDGE plans a reshape/transpose request; a request the planner refuses is dge's error. The
// run has no machine until Start.
func PlanDGE(req dge.Request) (*DGERun, error) {
	p, err := dge.PlanRequest(req, dge.Options{})
	if err != nil {
		return nil, err
	}
	return &DGERun{plan: p, req: &req}, nil
}

// PlanDGEIndex plans an index request: its instruction validated by the instruction layer's
// rules and planned (dge.IndexRequest.Plan).
func PlanDGEIndex(ir *dge.IndexRequest) (*DGERun, error) {
	p, err := ir.Plan(dge.Options{})
	if err != nil {
		return nil, err
	}
	return &DGERun{plan: p, index: ir}, nil
}

// gen is the request's generation.
func (r *DGERun) gen() isa.Generation {
	if r.index != nil {
		return r.index.Gen
	}
	return r.req.Gen
}

// CheckLimits applies cfg's work limits of a DMA instruction to the plan (Config.CheckPlan):
// the error is a *LimitError, inside o.Name's path when given.
func (r *DGERun) CheckLimits(cfg Config, o DGEOptions) error {
	raise := o.Raise
	if raise == "" {
		raise = "sim.Config.MaxElements"
	}
	if err := cfg.CheckPlan(r.plan, raise); err != nil {
		if o.Name != "" {
			err = fault.Wrap(o.Name, err)
		}
		return err
	}
	return nil
}

// Start checks the work limits (CheckLimits) and builds the machine of cfg on the request's
// generation, memory zeroed: nothing is allocated for a request past the limits.
func (r *DGERun) Start(cfg Config, o DGEOptions) error {
	cfg.Gen = r.gen()
	if err := r.CheckLimits(cfg, o); err != nil {
		return err
	}
	m, err := New(cfg)
	if err != nil {
		return err
	}
	r.machine = m
	return nil
}

// Plan is the request's plan.
func (r *DGERun) Plan() *dge.Plan { return r.plan }

// Machine is the machine the request runs on (for loads before Execute and reads after).
func (r *DGERun) Machine() *Machine { return r.machine }

// WriteIndices writes an index request's indices at its IndexAt (nothing for a tensor request).
func (r *DGERun) WriteIndices() error {
	if r.index == nil {
		return nil
	}
	shape, data := r.index.IndexTensor()
	if err := r.machine.WriteTensor(r.index.IndexAt, shape, 4, data); err != nil {
		return fault.Wrap(fmt.Sprintf("writing the indices at %v", r.index.IndexAt), err)
	}
	return nil
}

// Fill writes random values from seed over the request's source (and, for a compute op, its
// destination, which the op reads); an index request's table. Floats are finite, normal
// values around 0 (N(0, 4)); other types random bytes.
func (r *DGERun) Fill(seed int64) error {
	rng := rand.New(rand.NewSource(seed))
	mm := r.machine.Memory()
	if r.index != nil {
		if err := RandomFill(mm, r.index.TableView(), r.index.DType, rng); err != nil {
			return fault.Wrap("random fill of the table", err)
		}
		return nil
	}
	if err := RandomFill(mm, r.req.Src, r.req.In, rng); err != nil {
		return fault.Wrap("random fill of the source", err)
	}
	if r.req.ComputeOp != isa.DGEComputeNONE {
		if err := RandomFill(mm, r.req.Dst, r.req.Out, rng); err != nil {
			return fault.Wrap("random fill of the destination", err)
		}
	}
	return nil
}

// RandomFill writes random values of dtype d over a view: finite floats drawn from N(0, 4) for
// a float type, random bytes otherwise (and for d zero, raw bytes).
func RandomFill(m dma.Memory, v dge.View, d isa.DType, rng *rand.Rand) error {
	buf := make([]byte, v.Elements()*uint64(v.ElemSize))
	k := num.Kind(d)
	if d != 0 && k.IsFloat() && k.Size() > 0 {
		for i := 0; i+k.Size() <= len(buf); i += k.Size() {
			num.StoreF32(k, buf[i:], float32(rng.NormFloat64()*4))
		}
	} else {
		rng.Read(buf)
	}
	return dge.WriteView(m, v, buf)
}

// DGEResult is what Execute returns: the DMA engines' result (every placed descriptor's
// record, the semaphore updates), the run's timing summary, and whether the destination was
// compared with the reference (Verified: it matched).
type DGEResult struct {
	*dma.Result
	Summary  *Summary
	Checked  bool
	Verified bool
}

// TraceJSON renders the descriptors as a Chrome/Perfetto trace: one track per DMA engine of
// a "DMA engines" process, one slice per descriptor, as run's traces name their DMA tracks
// (internal/trace), so both open alike in Perfetto.
func (r *DGEResult) TraceJSON(g isa.Generation) []byte {
	tr := trace.New()
	tr.Process(1, fmt.Sprintf("DMA engines (%v, dge run)", g))
	seen := map[int]bool{}
	for _, rec := range r.Records {
		if !seen[rec.Engine] {
			seen[rec.Engine] = true
			tr.AddTrack(trace.Track{Pid: 1, Tid: rec.Engine, Name: fmt.Sprintf("DMA%d", rec.Engine), Sort: rec.Engine})
		}
		tr.Add(trace.Event{Name: rec.Kind.String(), Cat: "dma", Pid: 1, Tid: rec.Engine, TsPS: rec.Start * 1000, DurPS: (rec.End - rec.Start) * 1000,
			Args: map[string]any{"engine": rec.Engine, "queue": rec.Queue, "bytes": rec.Bytes, "src": fmt.Sprintf("0x%x", rec.Src), "dst": fmt.Sprintf("0x%x", rec.Dst),
				"credit_wait_ns": rec.CreditWait, "credits": rec.Credits, "index": rec.Index}})
	}
	var b bytes.Buffer
	tr.Write(&b) // to memory: no error
	return b.Bytes()
}

// Execute runs the plan on the machine's DMA engines. With verify, the destination is
// compared with dge's direct reference of the request computed from the memory before the run
// (a tensor request's dge.Request.Expect, read back over a self-overlapping destination as the
// engines leave it; an index request's dge.IndexRequest.Expect). A mismatch is a
// *DGEVerifyError returned with the result, which the run produced.
func (r *DGERun) Execute(verify bool) (*DGEResult, error) {
	mm := r.machine.Memory()
	var want, table []byte
	var err error
	switch {
	case r.index != nil:
		if table, err = dge.ReadView(mm, r.index.TableView()); err != nil {
			return nil, err
		}
	case verify:
		src, err := r.req.SourceStream(mm)
		if err != nil {
			return nil, fault.Wrap("verify: reading the source", err)
		}
		before, err := dge.ReadView(mm, r.req.Dst)
		if err != nil {
			return nil, fault.Wrap("verify: reading the destination", err)
		}
		if want, err = r.req.Expect(src, before); err != nil {
			return nil, err
		}
		want = dge.ReadBack(r.req.Dst, want)
	}
	res, sum, err := r.machine.RunDMAPlan(r.plan)
	if err != nil {
		return nil, err
	}
	out := &DGEResult{Result: res, Summary: sum, Checked: verify}
	if !verify {
		return out, nil
	}
	var got []byte
	if r.index != nil {
		got, err = r.index.ReadDst(mm)
		want = r.index.Expect(table)
	} else {
		got, err = dge.ReadView(mm, r.req.Dst)
	}
	if err != nil {
		return nil, err
	}
	if bytes.Equal(got, want) {
		out.Verified = true
		return out, nil
	}
	ve := &DGEVerifyError{}
	if r.index != nil {
		ve.Element = firstDiff(got, want) / r.index.DType.Size()
		ve.Gather = "table[idx]"
		if r.index.Kind == dge.IndexGatherTranspose {
			ve.Gather += ".T"
		}
	} else {
		es := int(r.req.Dst.ElemSize)
		ve.Element = firstDiff(got, want) / es
		ve.Got, ve.Want = got[ve.Element*es:(ve.Element+1)*es], want[ve.Element*es:(ve.Element+1)*es]
	}
	return out, ve
}

// DGEVerifyError is a destination that differs from the reference, first at element Element
// (in the destination's dim order): a tensor request's Got and Want bytes of it, or for an
// index request the gather the reference computed (Gather: "table[idx]" or "table[idx].T").
type DGEVerifyError struct {
	Element   int
	Got, Want []byte
	Gather    string
}

func (e *DGEVerifyError) Error() string {
	if e.Gather != "" {
		return fmt.Sprintf("verify: destination element %d differs from the reference (dst = %s)", e.Element, e.Gather)
	}
	return fmt.Sprintf("verify: destination element %d differs from the reference: got %x, want %x", e.Element, e.Got, e.Want)
}
func (e *DGEVerifyError) Unwrap() error   { return fault.ErrInvalid }
func (e *DGEVerifyError) RuleID() string  { return RuleDGEVerifyMatches }
func (e *DGEVerifyError) ErrPath() string { return fmt.Sprintf("dst element %d", e.Element) }

// firstDiff is the index of the first byte where a and b differ (the shorter length when one
// is a prefix of the other).
func firstDiff(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}
