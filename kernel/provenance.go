package kernel

import "github.com/tpbsim/tpbsim/isa"

// Provenance lists the lowering's choices where the sources do not dictate one (INVENTED) or
// only suggest one (INFERRED), and the NKI-level rules it checks, for `tpbsim explain`.
func Provenance() []isa.Provenance {
	b := isa.Behaviour
	r := func(id, text, source string) isa.Provenance {
		return isa.Rule(id, text, source, isa.MedInferred, nil, "NKI's published constraint, paraphrased; the release range is tpbsim's reading of the docs' history")
	}
	return append(ruleEntries(), []isa.Provenance{
		b("kernel.allocation", "HBM tensors are laid out in order (inputs first), each 4 KiB aligned, without overlap; SBUF and PSUM tiles are placed first-fit over "+
			"(partition range x byte range) when their first call comes, at a start partition the start-partition rule allows, and their bytes are reused once no later call uses them. "+
			"SBUF offsets are 64-byte aligned; a PSUM tile that fits a 2 KiB bank does not cross one. The top 64 bytes of SBUF are the sync carriers' scratch.",
			"NKI.md §4 (capacities, start-partition rule)", isa.Invented, "a compiler's allocator is not public; first-fit with reuse keeps kernels within capacity as a compiler would, and the start-partition rule is every engine's"),
		b("kernel.queue_assignment", "Vector Engine calls run on the DVE queue (tensor_copy with engine=gpsimd on POOL, engine=scalar on ACT); nl.load and direct dma_copy / dma_transpose on the SP queue (hardware DGE), "+
			"nl.store on the ACT queue, indirect DMAs and gather transposes on POOL (software DGE); an engine argument of a DMA call names its queue.",
			"NKI.md §2 (indirect only with software DGE)", isa.Invented, "queues that issue DMAs in the machine: SP and ACT for the hardware DGE, POOL for the software DGE; stores on ACT so loads and stores issue in parallel"),
		b("kernel.sync", "Dependencies between calls are tracked per byte box (partitions x bytes, or HBM bytes) of every lowered instruction: read-after-write, write-after-read and write-after-write on overlapping bytes "+
			"need the earlier instruction complete before the later one issues, unless that is already known: queue order completes a compute instruction before its queue issues the next, and knowledge passes on through "+
			"every wait (a vector clock). Each compute queue counts its signalling instructions' completions on one semaphore (DVE 1, POOL 2, ACT 3; SEM_INC_COMPLETE added only when a later instruction waits), every DMA "+
			"instruction increments a pool semaphore (4..255) on completion, reused only by a DMA that already knows the previous user complete; waits are WAIT_FOR_SEM_GE_IMM.",
			"tpbsim (synchronisation as a compiler inserts it)", isa.Invented, "how the Neuron compiler numbers its semaphores is not public; counting semaphores with GE waits never deadlock (every wait names an earlier instruction) and are race-free by construction"),
		b("kernel.sync_carrier", "An instruction waits on one semaphore (its EVENTS band). When it needs more, each extra wait goes on a wait carrier before it, a 1-element UINT32 COPY between two scratch words of its queue "+
			"(top of SBUF partition 0, zeroed before the run); a DMA on SP, which has no compute instruction, waits for a relay carrier on a compute queue that signals.",
			"FACTS §B.2 (one wait per instruction)", isa.Invented, "the hardware's EVENTS band holds one wait; the sources name no no-op instruction, and a COPY of the queue's own scratch touches nothing the kernel uses"),
		b("kernel.dma_lowering", "A direct DMA call walks both views together: their axes are refined into common levels (innermost first), levels contiguous on both sides merged, the innermost contiguous run folded into the element size "+
			"(up to 64 KiB, no cast), levels over 65535 split; each DMAMEMCPY (DIRECT2D) word takes two levels, outer levels become several words (at most 16384 per call). A cast or dst_rmw_op add keeps the dtype size as the element (the CCE path).",
			"FACTS §C.2 (DIRECT2D: 2 levels, 16-bit counts, elem_size up to 64 KiB)", isa.Invented, "the fewest DIRECT2D words for the walk; the DGE then fans each over the DMA engines"),
		b("kernel.dma_transpose_lowering", "dma_transpose / load_transpose2d (the rank's fixed permutation: (1,0), (2,1,0), (3,1,2,0)) into SBUF becomes DMA_TRANSPOSE (0xBD) words, one per 16-row x 128-column "+
			"(64 for 4-byte dtypes) crossbar tile of each 2-D [rows, cols] slice (the middle axes of (2,1,0) and (3,1,2,0) stay in place), when the generation has the crossbar (not SUNDA) and the machine's check pipeline "+
			"accepts every word (the instruction rules, e.g. tile_src_rows == 16, so rows a multiple of 16; the DGE's plan, 32-byte aligned destinations); otherwise, and for other placements, an element-strided DIRECT2D walk of the permuted source. The gather transpose's second step takes the same route.",
			"NKI.md §2, §3; FACTS §C.5 (DIRECT2D_XPOSE layout partial); dge.direct2d_xpose_layout", isa.Invented, "the crossbar is what the hardware DGE transposes with (TIMING.md's ~90% / ~50%); DMA_TRANSPOSE's layout is partial, so a word the DGE would not plan falls back to the strided walk, which moves the same bytes"),
		b("kernel.dma_transpose_default_path", "The direct dma_transpose shape and dtype rules of NKI 2.27 on (src.shape[0], src.shape[-1], 2-byte dtype) are checked when dge_mode is hwdge; with dge_mode unknown (the default) they are not, "+
			"and a transpose the crossbar cannot run takes the element-strided walk.",
			"NKI.md §3 (the rules name hwdge/unknown; the SDK's own test transposes fp32 [2048, 128] on the default path)", isa.LowInferred,
			"the sources conflict: the stub's rules cover the unknown mode, the SDK's test breaks them there; tpbsim follows the test, where the compiler is free to choose the path, and keeps the rules where the user names the hardware DGE"),
		b("kernel.gather_transpose_lowering", "dma_transpose with an indirect src is two software-DGE DMAs: an INDIRECT1D gather of the rows flat = indices.T.flatten()[:n] into an HBM scratch tensor, then the transposing walk into dst.",
			"NKI.md §2 (0xF1 semantics); dma.gather_xpose.mapping", isa.Invented, "DMA_GATHER_XPOSE bounds an index only through the bound-check registers, which a program cannot set yet, so oob_mode error/skip would not hold; INDIRECT1D bounds by src_num_elem"),
		b("kernel.indirect_index_staging", "An index tile not already laid out as consecutive uint32 in SBUF partition 0 (e.g. [n, 1], one index per partition) is first copied there by an SBUF-to-SBUF DMA on the issuing queue.",
			"has_dma_indirect_idx_addr_in_sbuf_partition0; dma.indirect1d", isa.Invented, "the machine reads INDIRECT1D's index vector as consecutive uint32 in partition 0"),
		b("kernel.ve_transpose_partial", "nc_transpose of a [P, F] tile (P, F <= 32) on the Vector Engine: [32, 32] is one STREAM_TRANSPOSE; otherwise the source is staged into a zeroed 32x32 tile (COPY), or, when P = 32 and F divides 32, "+
			"read with a step-0 level repeating the row, and the result comes through a second 32x32 staging tile (COPY of F partitions x P elements) unless F = 32; mask_enable stays 0.",
			"NKI.md §2 (VE tiles of at most [32, 32]; the SDK's [32, 2] example); dve.mask_enable_geometry", isa.Invented, "StreamTranspose needs 32 channels and a multiple of 32 elements; staging keeps every byte outside the destination tile untouched"),
		b("kernel.shuffle_lowering", "nc_stream_shuffle is LOAD_MASK_SELECT (only when the mask register holds another mask) + STREAM_SHUFFLE with num_active = ceil(max(src, dst partitions)/32)*32; mask entries of channels past the destination are 255, "+
			"and a partial last quadrant of a destination over 32 partitions is a second word with its own mask. A source of a partial quadrant (e.g. 1 partition) is first copied into a zeroed staging tile of whole quadrants, "+
			"since the instruction reads num_active channels from its start; a source of at most 32 partitions feeds every destination quadrant.",
			"NKI.md §2 (shuffle semantics, start partitions)", isa.Invented, "the executor writes every channel whose mask entry is not 255 and reads all num_active source channels; the sync orders the whole destination walk of the active channels, as the machine's race detector counts it"),
		b("kernel.dtype_e4m3fn", "float8_e4m3fn (TRN3's no-Inf E4M3, max 448) shares FP8_EXP4's code; tpbsim converts it as the IEEE-like E4M3 of FP8_EXP4 (max 240, with Inf), so values above 240 differ from TRN3.",
			"NKI.md §5", isa.LowInferred, "one ISA code, two NKI names; tpbsim's num package has the IEEE-like format only"),
		r("nki.start_partition", "Every engine's access starts at a partition the start-partition rule allows: P > 64 at 0; 32 < P <= 64 at 0 or 64; P <= 32 at 0, 32, 64 or 96.", "NKI.md §4"),
		r("nki.dma_transpose.src_rows", "Direct dma_transpose (hwdge/unknown): 2.27-2.31 src.shape[0] == 16; 2.32 2-D src.shape[0] == 16, 3-D/4-D src.shape[0] in {1,2,4,8,16} and src.shape[0]*src.shape[-2] % 16 == 0.", "NKI.md §3"),
		r("nki.dma_transpose.src_cols", "Direct dma_transpose: 2.27-2.31 src.shape[-1] % 128 == 0; 2.32 src.shape[-1] <= 128.", "NKI.md §3"),
		r("nki.dma_transpose.dtype_2byte", "dma_transpose on the DGE paths (2.27 on; indirect 2.28 on) needs a 2-byte dtype.", "NKI.md §3"),
		r("nki.nc_stream_shuffle.start_partition", "2.23 on: with num_active = ceil(max(src, dst)/32)*32, 96/128 -> starts 0; 64 -> 0 or 64; 32 -> 0, 32, 64, 96. Up to 2.22: src and dst the same 32/64/96/128 partitions.", "NKI.md §2"),
		r("nki.tensor_reduce.axes_last", "2.29 on: the reduced axes are the last contiguous free axes ending at the final one; up to 2.28 (nki.tensor_reduce.axes_from_1): consecutive and containing axis 1.", "NKI.md §2"),
		r("nki.dma_transpose.indirect_4d", "Indirect dma_transpose 2.29 on: a 4-D src has dim 1 or dim 2 equal to 1; src.shape[-1] <= 128; indices 2-D uint32 in SBUF, [16..128 (x16), N], N > 1 only with 128 rows, covering src.shape[0] (a multiple of 16); 2.28: 3-D src, last axis 128, one index column.", "NKI.md §3"),
	}...)
}
