package dge

// Backend is a DGE backend of the selector (seed 003 §7: Pool | RTL | software | NO-BACKEND).
type Backend uint8

const (
	BackendNone     Backend = iota // NO-BACKEND
	BackendPool                    // the POOL (Q7) software DGE: "S: DGE: Select backend Pool"
	BackendRTL                     // the hardware DGE (HWDGE)
	BackendSoftware                // the Q7 SWDGE
)

func (b Backend) String() string {
	switch b {
	case BackendPool:
		return "Pool"
	case BackendRTL:
		return "RTL"
	case BackendSoftware:
		return "software"
	}
	return "NO-BACKEND"
}

// selectBackend models the backend selector: the Pool backend is the first the selector tests
// (backend[Pool].available) and the one every DGE request tpbsim models runs on (gather_xpose.h:
// "uses the SW-DGE backend with Q7 processors in the Gpsimd engine"), so where the generation
// has it (Features.Backend) it is selected and logged; without a DGE backend (SUNDA) it is
// NO-BACKEND, and tpbsim's own lowering, without a log line (Provenance dge.backend_select).
func selectBackend(f *Features, lg *logger) Backend {
	if f.Backend != BackendNone {
		lg.add(logSelectBackend.line())
	}
	return f.Backend
}
