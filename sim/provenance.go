package sim

import (
	"github.com/tpbsim/tpbsim/dge"
	"github.com/tpbsim/tpbsim/dma"
	"github.com/tpbsim/tpbsim/dve"
	"github.com/tpbsim/tpbsim/isa"
	"github.com/tpbsim/tpbsim/mem"
)

// Rule ids the machine's own errors name (InstError.Rule). The ISA's (isa.Validate) keep
// isa.Registry's ids; executor, DGE, DMA and memory errors keep their packages' ids.
const (
	RuleOpcodeLegalOnEngine    = "opcode_legal_on_engine"
	RuleHasValidNeuronHeader   = isa.RuleHasValidNeuronHeader // isa's
	RuleHasValidNeuronEvents   = isa.RuleHasValidNeuronEvents // isa's
	RuleGpSimdCannotAccessPSUM = "gpsimd_cannot_access_psum"
	RuleMaxElements            = "sim.max_elements"
	RuleMaxStreamBytes         = "sim.max_stream_bytes"
	RuleExecutableWaitMode     = "sim.executable_wait_mode"
	RuleExecutableUpdateMode   = "sim.executable_update_mode"
	RuleEngineModelled         = "engine_modelled"
	RuleOpcodeHasEngine        = "opcode_has_engine"
	RuleOpcodeExecutable       = "opcode_executable"
	// RuleDeadlock and RuleRace name the conditions of a DeadlockError and a RaceError (their
	// behaviours' entries).
	RuleDeadlock = "sim.deadlock"
	RuleRace     = "sim.race_model"
)

// RuleIDs lists every rule id a run can print: the machine's own, every rule of isa.Validate
// (isa.Registry), and those of the executor, the DGE, the DMA engines and the memory.
func RuleIDs() []string {
	out := []string{RuleOpcodeLegalOnEngine, RuleHasValidNeuronHeader, RuleHasValidNeuronEvents, RuleGpSimdCannotAccessPSUM,
		RuleMaxElements, RuleMaxStreamBytes, RuleExecutableWaitMode, RuleExecutableUpdateMode, RuleEngineModelled, RuleOpcodeHasEngine, RuleOpcodeExecutable, RuleBoundRegIndex,
		RuleAddrRegIndex, RuleAddrRegSet, RuleAddrRegValue, RuleEventRegOperand}
	for _, p := range isa.Registry() {
		if p.Kind == "rule" {
			out = append(out, p.ID)
		}
	}
	out = append(out, dve.RuleIDs()...)
	out = append(out, dge.RuleIDs()...)
	out = append(out, dma.RuleIDs()...)
	return append(out, mem.RuleIDs()...)
}

// Provenance lists the machine's modelled behaviours and the choices it made where the seeds and
// FACTS are silent (INVENTED) or only suggestive (INFERRED).
func Provenance() []isa.Provenance {
	return append(append(raceProvenance(), regsProvenance()...), []isa.Provenance{
		{ID: "sim.cost_model", Kind: "behaviour",
			Text: "An S4D4_TR instruction (or MEMSET) holds its queue for its Vector Engine cost formula at the queue's clock: max(ve.min_ii_cycles, N) " +
				"(reciprocal 8N on the DVE, N on ACT; reduce N, N/2 for bf16 add/max), divided by the perf mode (COPY/CAST, SBUF, contiguous) or by the " +
				"SBUF stride rule's factor (an innermost stride above 16 B), plus ve.static_cycles when it waits on a semaphore or is tiny; its reads are " +
				"done then, and it completes ve.access_cycles later. A DMA instruction holds its queue for dge.issue_ns (dge.pool_issue_ns on POOL). " +
				"Semaphore updates reach waiters after dma.sem_to_start_ns from a DMA, sync.engine_sem_ns from a compute instruction. The constants " +
				"are the generation's timing table (tpbsim explain timing; Config.Timing / --timing override).",
			Source: "shared/spec/TIMING.md (see the timing.* entries)", Confidence: isa.MedInferred,
			Reason: "the public per-op formulas and clocks; where they are silent (which instructions pay the static overhead, the completion latency) the timing.* entries say what was chosen"},
		{ID: "sim.dma_partition_spread", Kind: "behaviour",
			Text: "The DMA engines carry each copy descriptor the DGE makes whose SBUF (or PSUM) side lies within one group of dma.partitions_per_engine " +
				"partitions (8 of 128 with 16 engines) on the engine serving that group: group g on the g-th of the engines the DGE could use, at most " +
				"sem_increment of them. Descriptors spanning several groups, HBM-only ones, transposes and gathers keep the DGE's engine. The bytes " +
				"move as the DGE planned them (dma.Engines.RunPlaced): only the timing, the trace's DMA tracks and the completion updates follow " +
				"the placement. The first sem_increment of the engines the DGE could use report the completion (dma.Job.Reporters): one that carried no data writes its 4-byte update at the start, " +
				"as the guide has every engine of a transfer report; the engines that worked add the rest of sem_increment (dma.sem_increment), so a waiter needs all of it.",
			Source:     "shared/spec/TIMING.md (DMA: engines serve 8 partitions each; the [4, 4096] bf16 load carried by one engine); FACTS §C.2 (sem_increment bounds the DMAs used)",
			Confidence: isa.MedInferred,
			Reason:     "the DGE planner spreads bytes evenly over min(engines, sem_increment, bytes/512) engines, which would put a 4-partition load on 4 engines where the hardware measurement shows one; placing by partition reproduces the measurement and keeps the plan (and the results) as they are"},
		{ID: "sim.schedule_order", Kind: "behaviour",
			Text: "A deterministic discrete-event scheduler: each engine issues its queue in order, one instruction at a time. " +
				"Events at the same time run in the order: semaphore updates, then instruction issues, engines in the order DVE, " +
				"POOL, ACT, SP. An instruction's memory effect happens whole at its issue time (a DMA's too: its descriptors were " +
				"all checked first); its semaphore update happens later, when its reads are done or it completes.",
			Source: "DESIGN.md §1", Confidence: isa.Invented,
			Reason: "any fixed order gives reproducible runs; updates first so a waiter sees every update of its instant"},
		{ID: "sim.semaphores", Kind: "behaviour",
			Text: "256 x 32-bit semaphores; a wait is checked before issue (WAIT_FOR_SEM_*_IMM against semaphore_value); " +
				"an update fires when the reads are done (mode bit 0x10 clear) or on completion (set). Their value at the start of a " +
				"run is sim.semaphore_initial; the arithmetic past 0 and 2^32-1 and the signedness of the compares are sim.semaphore_unsigned.",
			Source: "FACTS §B.2", Confidence: isa.HighObserved},
		{ID: "sim.unordered_wait", Kind: "behaviour",
			Text: "The UNORDERED wait mode (0xFE), in the ISA of MAVERICK only (isa.Features.RegOffsetWaits), executes as no wait: the " +
				"instruction issues when its queue reaches it, whatever the semaphore holds. Elsewhere the instruction layer refuses it " +
				"(has_valid_neuron_events).",
			Source: "FACTS §B.2, §G.4 (WAIT_MODE 0xFE UNORDERED on MAVERICK; no semantics given)", Confidence: isa.LowInferred,
			Reason: "the name says the instruction is not ordered by a semaphore; any wait would invent a condition the sources do not give"},
		{ID: "sim.semaphore_initial", Kind: "behaviour",
			Text: "Every semaphore is 0 when a machine is made (sim.New) or reset (Machine.Reset); Machine.SetSemaphore sets another value " +
				"before a run. A second Run on the same machine starts from the semaphores the first left.",
			Source: "none (FACTS §B.2 gives the array, not its value at load)", Confidence: isa.Invented,
			Reason: "a program that waits on a semaphore nothing in it updates is unportable; zero is what a runtime that clears the " +
				"array at load gives, and tests can set any other value"},
		{ID: "sim.stop_on_error", Kind: "behaviour",
			Text: "The first instruction that fails during a run (a run-time check: never-written bytes with --check-uninit, a DMA's " +
				"gathered index, the HBM cap, a shuffle without a loaded mask, ...) stops the machine at its issue time: it changes no " +
				"memory and no semaphore, and no engine issues another instruction (one of an engine later in sim.schedule_order at " +
				"the same instant does not run). Instructions already issued made their memory effect at issue (sim.schedule_order) " +
				"and complete: their pending EVENTS updates and DMA completion-semaphore bumps are applied, so the semaphores the run " +
				"leaves agree with its memory and with the trace, which draws them to their end. An engine still waiting has that " +
				"wait counted, to the stop, in its summary row.",
			Source: "DESIGN.md §1 (atomic failure)", Confidence: isa.Invented,
			Reason: "the sources do not say what the other engines do when one faults; running them on would depend on timing the " +
				"cost model does not claim, so the machine stops at the failure instant; dropping the updates of instructions whose " +
				"data had already moved left, e.g., a completed DMA's data in SBUF with its semaphore never bumped"},
		{ID: "sim.semaphore_unsigned", Kind: "behaviour",
			Text: "Semaphores hold unsigned 32-bit values: SEM_DEC and SEM_SUB_IMM below zero wrap (SEM_DEC from 0 gives 0xFFFFFFFF), and " +
				"WAIT_FOR_SEM_{LT,LE,GT,GE}_IMM compare the semaphore with semaphore_value as unsigned numbers, so a semaphore decremented " +
				"below zero satisfies WAIT_FOR_SEM_GT_IMM 5 and never WAIT_FOR_SEM_LT_IMM 5.",
			Source: "FACTS §B.2 (semaphore_value is a u32; the compare's signedness is not stated)", Confidence: isa.LowInferred,
			Reason: "the sources give a u32 operand and 32-bit semaphores but neither the signedness of the compare nor what a decrement " +
				"below zero does; unsigned wrap-around is what a u32 register does. A program that counts below zero is unportable either way"},
		{ID: "sim.dma_dst_overlap", Kind: "behaviour",
			Text: "A DMA instruction whose destination names a byte more than once (e.g. dst_step_elem=[1,0]) has a deterministic result: " +
				"within one descriptor the walk's later element wins, and when two of its descriptors (on two DMA engines, or on one) " +
				"touch a common byte that one of them writes (dma.Job.Conflicts: the exact byte runs of their walks and of gathered rows " +
				"are compared; more than dma.MaxOverlapRuns runs count as a conflict) the job runs its descriptors one at a time in job " +
				"order (engine by engine, each queue in order) instead of on parallel host workers. Descriptors whose bytes interleave " +
				"without sharing one (the row tiles of a crossbar transpose in every partition) still run in parallel. The DGE gives " +
				"the engines consecutive pieces of the walk in engine order, so for a DMAMEMCPY the walk's last element wins; where the " +
				"DGE reorders the loop levels of a longer nest, the last element in its order wins.",
			Source: "none (the sources say nothing about a DMA whose writes overlap)", Confidence: isa.Invented,
			Reason: "the hardware's DMA engines run concurrently in no defined order; running such a job on parallel host workers made " +
				"the result change from run to run (a data race). Walk order matches the DVE's dve.dst_self_overlap; overlapping " +
				"source and destination are refused by dge_src_dst_disjoint"},
		{ID: "sim.deadlock", Kind: "behaviour",
			Text: "When no event is pending and an engine still has instructions, every such engine waits on a semaphore nothing " +
				"can change: the run stops with each engine's state (pc, instruction, wait, current value). The stop (the deadlock's " +
				"time, and the end of every counted wait) is when the last issued instruction completed.",
			Source: "FACTS §B.2 (no wait mode has a timeout: hardware spins forever)", Confidence: isa.HighInferred,
			Reason: "with no pending update nothing can change a semaphore, so no waiting engine can ever issue"},
		{ID: "sim.check_before_run", Kind: "behaviour",
			Text: "Every instruction is checked by one pipeline (sim.CheckProgram, Machine.Report: engine, isa.Validate, a modelled queue, " +
				"executable EVENTS forms and opcode, immediate ADDR4 start addresses, the executor's op checks, the DGE lowering of DMA " +
				"instructions, the work limits sim.max_elements and sim.max_stream_bytes, gpsimd_cannot_access_psum) before anything runs, " +
				"as the runtime validates a program at load; every failing instruction is reported. tpbsim check prints the same report, " +
				"so a word it calls valid and supported is one run accepts before the run; the executors and the DMA engines then trust " +
				"it (Run executes the DGE plan the check made).",
			Source: "FACTS §F.2 (runtime entry order: engine check -> header -> events -> per-opcode)", Confidence: isa.MedInferred,
			Reason: "a program that cannot run should leave memory untouched and list all its problems at once"},
		{ID: RuleOpcodeLegalOnEngine, Kind: "rule",
			Text: "The machine's engine check, on the queue an instruction is issued from: the queues isa's opcode table lets execute the opcode " +
				"(isa.Opcode.Engines; tpbsim explain opcodes): DVE: the S4D4_TR family, LOAD_MASK_SELECT and MEMSET; " +
				"POOL: COPY, CAST, the (transpose-)reduces and DMA (software DGE, including DMA_GATHER_TRANSPOSE); ACT: COPY, CAST and DMA; " +
				"SP: DMA. An opcode tpbsim only names is legal on its own engine's queue (isa.Opcode.Engine), where it is not executable " +
				"(opcode_executable). A bare instruction list runs each instruction on the queue of isa.Opcode.Engine.",
			Source: "FACTS §D.2 engine surface column, §F.2 engine check, §C.1", Confidence: isa.MedInferred, Fields: []string{"header.opcode"},
			Reason: "the engine surfaces are the wiki's; the exact per-engine opcode lists of the runtime are not known"},
		{ID: "gpsimd_cannot_access_psum", Kind: "rule",
			Text:   "An S4D4_TR instruction on the POOL (GpSimd) queue may not name a PSUM address.",
			Source: "FACTS §B.5 (GPSIMD cannot access PSUM at all), F.2 (NKI: \"GpSimd engine cannot access PSUM\")", Confidence: isa.HighObserved,
			Fields: []string{"src_mem_pattern.start_addr", "dst_mem_pattern.start_addr"}},
		{ID: "sim.executable_wait_mode", Kind: "behaviour",
			Text: "The event waits (WAIT_FOR_EVT_*, 0x06, 0x07, 0x0E, 0x0F) and the register-offset waits (SEM_*_REG_OFFSET, 0x91..0x95, MAVERICK) are valid ISA " +
				"but have no semantics in the sources: such an instruction is reported as not executable. The _REG waits execute (sim.reg_events).",
			Source: "FACTS §B.2", Confidence: isa.Invented,
			Reason: "the sources name the event lines but not what raises them, and give REG_OFFSET only SEM_BASE_OFFSET {reg:8, off:24} without saying what the offset indexes; running such a wait as NONE would fake a result"},
		{ID: "sim.max_elements", Kind: "behaviour",
			Text: "A DVE-family instruction may stream at most 2^26 elements per channel (the larger of its source and destination counts), " +
				"and the descriptors the DGE makes of a DMA instruction may move at most 2^26 elements in all (contiguous runs merged into " +
				"large elements, step-0 walks not); configurable (tpbsim run --max-elements, sim.Config.MaxElements). A step-0 pattern can name " +
				"65535^4 elements in a few bytes. Checked for every instruction before anything runs (fault.ErrLimit, exit 1), and for the " +
				"descriptors of a tpbsim dge run request after planning, before any memory is allocated or filled (Config.CheckPlan; " +
				"tpbsim dge run --max-elements).",
			Source: "none", Confidence: isa.Invented, Reason: "keeps a crafted program from running for years"},
		{ID: RuleMaxStreamBytes, Kind: "behaviour",
			Text: "An instruction may read plus write at most 16 bytes per element of the element limit (1 GiB with the default 2^26; " +
				"sim.Config.MaxStreamBytes sets it apart): a DVE-family instruction num_active_channels x (count(src) x width(in_dtype) + " +
				"count(dst) x width(out_dtype)), a DMA instruction the source plus destination bytes of its descriptors. Checked for every " +
				"instruction before anything runs (fault.ErrLimit, exit 1), and for a tpbsim dge run request as for a DMA instruction " +
				"(Config.CheckPlan); the DVE executor re-checks it itself (dve_max_stream_bytes).",
			Source: "none", Confidence: isa.Invented,
			Reason: "the DVE executor holds whole walks in host buffers (up to about twice this count), so without a byte bound one valid " +
				"instruction within the element limit (128 channels x 65,535,000 fp32 elements) asked for 64 GiB and the process died out " +
				"of memory; deriving it from the element limit lets the one CLI flag raise both"},
		{ID: "sim.dma_queue_mapping", Kind: "behaviour",
			Text: "A DMA instruction on SP, ACT or POOL is lowered by dge.PlanInst (MEMCOPY_DMA_CFG = 0: every DMA engine, queue 0) " +
				"to per-DMA-engine descriptor queues, which dma.Engines checks whole and then runs; the issuing queue is busy for " +
				"600 ns, the descriptors start after that, FIFO per engine and after earlier jobs. The instruction's READ and COMPLETE " +
				"updates both fire when its last descriptor completes; the struct's own semaphore/sem_increment bumps are applied " +
				"at the times the DMA engines report.",
			Source: "DESIGN.md §1, §5; FACTS §C.2", Confidence: isa.Invented,
			Reason: "a DMA has read its source only when its descriptors ran"},
		{ID: "sim.trace", Kind: "behaviour",
			Text: "The trace is Chrome/Perfetto trace-event JSON: a process for the engine queues and one for the DMA engines, a " +
				"named track per engine, an \"X\" slice per instruction (opcode, bytes read/written, addresses, wait, update) and per " +
				"DMA descriptor (engine, queue, bytes, src, dst); a \"wait\" slice on an engine from each blocked attempt to issue to the " +
				"release (semaphore, mode, value), a flow from each semaphore update to the wait it released (at most 16 per wait) and from " +
				"each DMA instruction to its descriptors (at most 64); at a failure the failing instruction's slice with its error and " +
				"a marker; at a deadlock each blocked wait to the stop and a \"deadlock\" marker; a \"race\" marker and flow per race pair.",
			Source: "shared/spec/NKI.md (the profiler's DMA packet vocabulary)", Confidence: isa.Invented,
			Reason: "the format users already open in ui.perfetto.dev, with the hardware profiler's DMA field names"},
		{ID: RuleExecutableUpdateMode, Kind: "behaviour",
			Text: "An update form the sources name without semantics is reported as not executable; of the register-value forms only SEM_WR_REG_COMPLETE (0x99) " +
				"is listed, and it executes (sim.reg_events). The event update modes of the generations before MAVERICK have no listed values (isa's validator refuses them).",
			Source: "FACTS §B.2", Confidence: isa.Invented,
			Reason: "applying an unknown update as NONE would fake a result"},
		{ID: RuleEngineModelled, Kind: "rule",
			Text:   "A program's queues are DVE, POOL, ACT or SP: tpbsim does not model the other engines (PE, ...), so a queue for one is not executable.",
			Source: "tpbsim (DESIGN.md §1)", Confidence: isa.Invented, Fields: []string{"engine"},
			Reason: "the PE array and the other engines have no modelled semantics; refusing names what is missing"},
		{ID: RuleOpcodeHasEngine, Kind: "rule",
			Text:   "Every instruction is on an engine queue: in a bare instruction list the queue of its opcode's engine (isa.Opcode.Engine); a word whose opcode has none (or a source word outside every .engine section, which check reports) is not executable.",
			Source: "tpbsim; FACTS §C.1, §D.2 (engine column)", Confidence: isa.MedInferred, Fields: []string{"header.opcode"},
			Reason: "a raw list carries no queue; the opcode table's engine is the only placement the sources give"},
		{ID: RuleOpcodeExecutable, Kind: "rule",
			Text:   "tpbsim executes the S4D4_TR family, LOAD_MASK_SELECT, MEMSET (dve.memset) and the four DGE DMA instructions; a valid instruction of another struct (MATMUL, ACTIVATE, ...) is not executable.",
			Source: "tpbsim (DESIGN.md §1)", Confidence: isa.Invented, Fields: []string{"header.opcode"},
			Reason: "only these opcodes have semantics in the seeds and FACTS; running the others as no-ops would fake results"},
	}...)
}
