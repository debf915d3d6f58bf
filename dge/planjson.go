package dge

import "fmt"

// PlanJSON is a plan's JSON form, what `tpbsim dge plan --json` prints: the kind and the
// assessment, the fan-out, each DMA engine's micro-op stream (as the log strings and as fields),
// the firmware log, the notes, both analyses and the descriptor count explained (Bound).
type PlanJSON struct {
	Gen          string       `json:"gen"`
	Kind         int          `json:"kind"`
	KindName     string       `json:"kind_name"`
	Requested    int          `json:"requested_kind"`
	SrcStrategy  string       `json:"src_strategy"`
	DstStrategy  string       `json:"dst_strategy"`
	FastPath     bool         `json:"fast_path"`
	Simple       bool         `json:"simple_assessment"`
	DMAAvail     int          `json:"dma_avail"`
	NumDMA       int          `json:"num_dma"`
	EngMask      string       `json:"eng_mask"`
	TileRows     int          `json:"tile_src_rows,omitempty"`
	TileCols     int          `json:"tile_src_cols,omitempty"`
	Descriptors  int          `json:"descriptors"`
	LowerBound   int          `json:"lower_bound"`
	Bytes        uint64       `json:"bytes"`
	RingDepth    int          `json:"ring_depth,omitempty"`
	Engines      []EngineJSON `json:"engines"`
	Log          []string     `json:"log"`
	Notes        []string     `json:"notes,omitempty"`
	SrcAnalysis  Analysis     `json:"src_analysis"`
	DstAnalysis  Analysis     `json:"dst_analysis"`
	ElemSizeSrc  uint32       `json:"elem_size_src"`
	ElemSizeDst  uint32       `json:"elem_size_dst"`
	Verification *bool        `json:"verified,omitempty"`
	Bound        BoundJSON    `json:"bound"`
	Backend      string       `json:"backend"`
}

// EngineJSON is one DMA engine's share of a plan: its descriptors, bytes and micro-ops.
type EngineJSON struct {
	Engine      int           `json:"engine"`
	Descriptors int           `json:"descriptors"`
	Bytes       uint64        `json:"bytes"`
	MicroOps    []string      `json:"micro_ops"`
	Ops         []MicroOpJSON `json:"ops"`
}

// MicroOpJSON is one micro-op as structured fields (the log string is in micro_ops): op, the
// descriptor index, and the fields of its kind.
type MicroOpJSON struct {
	Op       string     `json:"op"` // REGWRITE, GENERATE, DIMPUSH, WAIT_CREDIT
	Engine   int        `json:"engine"`
	Desc     int        `json:"desc"`
	Dir      string     `json:"dir,omitempty"`       // GENERATE: RD or WR
	Addr     string     `json:"addr,omitempty"`      // GENERATE: device address, 0x-hex
	ElemSize uint32     `json:"elem_size,omitempty"` // GENERATE
	Sem      *int       `json:"sem_num,omitempty"`   // GENERATE (-1: none)
	Num      *[2]uint32 `json:"num,omitempty"`       // DIMPUSH [src_num, dst_num]
	Step     *[2]int64  `json:"step,omitempty"`      // DIMPUSH [src_step, dst_step], elements
	Ring     int        `json:"ring,omitempty"`      // WAIT_CREDIT: ring depth
}

// BoundJSON is the descriptor count explained (README "Descriptor count"): the lower bound's
// parts, the level the spray splits, the 16-bit splits, and the text lines `plan` prints.
type BoundJSON struct {
	LowerBound  int      `json:"lower_bound"`
	Nests       int      `json:"g_nests"`
	Engines     int      `json:"e_engines"`
	Enabled     int      `json:"d_enabled"`
	SemCap      int      `json:"sem_increment_cap,omitempty"`
	Units       int      `json:"u_units"`
	ShareCap    uint64   `json:"share_cap"`
	SplitLevel  int      `json:"split_level"`
	SplitCount  int      `json:"split_count"`
	Groups      int      `json:"nests_emitted"`
	Factored16  int      `json:"levels_factored_16bit"`
	Peeled16    int      `json:"levels_peeled_16bit"`
	Explanation []string `json:"explanation"`
}

// JSONForm is the plan's JSON form.
func (p *Plan) JSONForm() PlanJSON {
	j := PlanJSON{Gen: p.Gen.String(), Kind: int(p.Kind), KindName: p.Kind.String(), Requested: int(p.Requested),
		SrcStrategy: p.Src.Strategy.String(), DstStrategy: p.Dst.Strategy.String(), FastPath: p.FastPath, Simple: p.Simple,
		DMAAvail: p.DMAAvail, NumDMA: p.NumDMA, EngMask: fmt.Sprintf("0x%x", p.EngMask), TileRows: p.TileRows, TileCols: p.TileCols,
		Descriptors: p.Descriptors, LowerBound: p.LowerBound, Bytes: p.Bytes, RingDepth: p.Job.RingDepth, Log: p.Log, Notes: p.Notes,
		SrcAnalysis: p.Src, DstAnalysis: p.Dst, ElemSizeSrc: p.ElemSize[0], ElemSizeDst: p.ElemSize[1], Bound: p.boundJSON(), Backend: p.Backend.String()}
	for e, q := range p.Job.Queues {
		if len(q) == 0 {
			continue
		}
		ej := EngineJSON{Engine: e, Descriptors: len(q)}
		for i := range q {
			ej.Bytes += q[i].Bytes()
		}
		for _, op := range p.Streams[e] {
			ej.MicroOps = append(ej.MicroOps, op.String())
			ej.Ops = append(ej.Ops, op.JSONForm())
		}
		j.Engines = append(j.Engines, ej)
	}
	return j
}

// JSONForm is the micro-op's fields.
func (m MicroOp) JSONForm() MicroOpJSON {
	j := MicroOpJSON{Op: m.Op.String(), Engine: m.Engine, Desc: m.Desc}
	switch m.Op {
	case OpGenerate:
		sem := m.Sem
		j.Dir, j.Addr, j.ElemSize, j.Sem = m.Dir, fmt.Sprintf("0x%x", m.Addr), m.ElemSize, &sem
	case OpDimpush:
		n, st := m.Num, m.Step
		j.Num, j.Step = &n, &st
	case OpWaitCredit:
		j.Ring = m.Ring
	}
	return j
}

func (p *Plan) boundJSON() BoundJSON {
	return BoundJSON{LowerBound: p.LowerBound, Nests: p.BoundNests, Engines: p.BoundEngines, Enabled: p.DMAAvail, SemCap: p.SemCap,
		Units: p.Units, ShareCap: p.ShareCap, SplitLevel: p.SplitLevel, SplitCount: p.SplitCount, Groups: p.Groups,
		Factored16: p.Factored16, Peeled16: p.Peeled16, Explanation: p.BoundLines()}
}
