package sim

import (
	"math/rand/v2"
	"testing"

	"github.com/tpbsim/tpbsim/isa"
)

// TestUnitsReused: a machine keeps its queues' units (their host buffers) from run to run,
// Reset or not, and a run on it is the run on a machine whose units are new: the same outcome
// (result, trace, error) and machine state, over random programs, among them ones that load
// the DVE's mask register (a reused unit starts a run with none loaded, as a new one does).
func TestUnitsReused(t *testing.T) {
	chains, runs, masked := 12, 12, 0
	if testing.Short() {
		chains, runs = 4, 8
	}
	for chain := uint64(0); chain < uint64(chains); chain++ {
		cfg := Config{Gen: isa.Generations[int(chain)%len(isa.Generations)], MaxElements: 1 << 14, Trace: chain%2 == 0}
		reused, fresh := machinePair(t, cfg)
		for k := uint64(0); k < uint64(runs); k++ {
			if k%3 != 2 { // every third run on the machine the last one left
				reused.Reset()
				fresh.Reset()
			}
			fresh.units = [len(queueEngines)]unit{}
			seed := chain<<32 | k
			rr, rf := rand.New(rand.NewPCG(seed, 11)), rand.New(rand.NewPCG(seed, 11))
			randomSemaphores(rr, reused)
			randomSemaphores(rf, fresh)
			pr, pf := randomProgram(rr, cfg.Gen), randomProgram(rf, cfg.Gen)
			or, of := runOutcome(t, reused, pr), runOutcome(t, fresh, pf)
			if d := diffOutcomes(or, of); d != "" {
				t.Fatalf("chain %d run %d: reused units vs new: %s", chain, k, d)
			}
			if d := diffMachines(reused, fresh); d != "" {
				t.Fatalf("chain %d run %d: after the run: %s", chain, k, d)
			}
			for _, u := range reused.units {
				if du, ok := u.(*dveUnit); ok {
					if _, set := du.d.Mask(); set {
						masked++
					}
				}
			}
		}
	}
	if masked == 0 {
		t.Fatal("no run left a mask loaded for the next: the test checks nothing")
	}
	t.Logf("%d runs left a mask loaded", masked)
}
