package main

import (
	"fmt"

	"github.com/tpbsim/tpbsim/dge"
)

// microOpJSON is one micro-op as structured fields (the log string is micro_ops): op, the
// descriptor index, and the fields of its kind.
type microOpJSON struct {
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

func opToJSON(m dge.MicroOp) microOpJSON {
	j := microOpJSON{Op: m.Op.String(), Engine: m.Engine, Desc: m.Desc}
	switch m.Op {
	case dge.OpGenerate:
		sem := m.Sem
		j.Dir, j.Addr, j.ElemSize, j.Sem = m.Dir, fmt.Sprintf("0x%x", m.Addr), m.ElemSize, &sem
	case dge.OpDimpush:
		n, st := m.Num, m.Step
		j.Num, j.Step = &n, &st
	case dge.OpWaitCredit:
		j.Ring = m.Ring
	}
	return j
}

// boundJSON is the descriptor count explained (README "Descriptor count"): the lower bound's
// parts, the level the spray splits, the 16-bit splits, and the text lines `plan` prints.
type boundJSON struct {
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

func boundToJSON(p *dge.Plan) boundJSON {
	return boundJSON{LowerBound: p.LowerBound, Nests: p.BoundNests, Engines: p.BoundEngines, Enabled: p.DMAAvail, SemCap: p.SemCap,
		Units: p.Units, ShareCap: p.ShareCap, SplitLevel: p.SplitLevel, SplitCount: p.SplitCount, Groups: p.Groups,
		Factored16: p.Factored16, Peeled16: p.Peeled16, Explanation: p.BoundLines()}
}
