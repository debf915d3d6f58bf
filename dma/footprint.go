package dma

// DescFootprint is what one descriptor writes and reads, as byte runs of device addresses sorted by
// address and merged (the runs the overlap test of Job.Conflicts compares). Exact is false when
// a walk needed more than the run budget: that side is then its whole extent, a superset.
type DescFootprint struct {
	Writes, Reads []Run
	Exact         bool
}

// DescriptorFootprint returns the bytes descriptor d (on engine eng, position idx) writes and
// reads, for a caller that compares descriptors of different jobs (the machine's race
// detector). Indirect rows are resolved through mem as Run's pre-flight check resolves them, so
// it is called before the job runs; an error is the check's (Run then fails the same way). A
// walk of more than maxRuns runs is given as its extent (Exact false).
func (e *Engines) DescriptorFootprint(mem Memory, d *Descriptor, eng, idx, maxRuns int) (DescFootprint, error) {
	var fp footprinter
	return fp.desc(e, mem, d, eng, idx, maxRuns)
}

// JobFootprints is DescriptorFootprint of every descriptor of job, by queue and position: one
// call and a few allocations for the whole job (the runs of all its descriptors share one
// array; each footprint's slices are capped, so appending to one never writes another's).
func (e *Engines) JobFootprints(mem Memory, job *Job, maxRuns int) ([][]DescFootprint, error) {
	n := 0
	for q := range job.Queues {
		n += len(job.Queues[q])
	}
	all := make([]DescFootprint, n)
	out := make([][]DescFootprint, len(job.Queues))
	fp := footprinter{arena: make([]Run, 0, max(2*n, 64))} // a descriptor's runs: often one a partition
	for q := range job.Queues {
		out[q], all = all[:len(job.Queues[q]):len(job.Queues[q])], all[len(job.Queues[q]):]
		for i := range job.Queues[q] {
			f, err := fp.desc(e, mem, &job.Queues[q][i], q, i, maxRuns)
			if err != nil {
				return nil, err
			}
			out[q][i] = f
		}
	}
	return out, nil
}

// footprinter computes footprints with reused scratch runs, keeping the results in arena.
type footprinter struct {
	jr    jobRuns
	arena []Run
	r     *runner // resolves indirect rows; made on first use
}

// keep copies rs to the arena and returns the copy, capped at its length.
func (fp *footprinter) keep(rs []Run) []Run {
	if len(rs) == 0 {
		return nil
	}
	start := len(fp.arena)
	fp.arena = append(fp.arena, rs...)
	return fp.arena[start:len(fp.arena):len(fp.arena)]
}

func (fp *footprinter) desc(e *Engines, mem Memory, d *Descriptor, eng, idx, maxRuns int) (DescFootprint, error) {
	var p *prepared
	if d.Kind == KindGather || d.Kind == KindGatherXpose {
		var err error
		if fp.r == nil {
			fp.r = newRunner(mem, &e.Regs)
		}
		if p, err = fp.r.check(d, eng, idx, -1, 0); err != nil {
			return DescFootprint{}, err
		}
	}
	jr := &fp.jr
	jr.dw, jr.dr, jr.budget = jr.dw[:0], jr.dr[:0], maxRuns
	if jr.descRuns(d, p) {
		return DescFootprint{Writes: fp.keep(mergeRuns(jr.dw)), Reads: fp.keep(mergeRuns(jr.dr)), Exact: true}, nil
	}
	// Over budget: each side's extent.
	var f DescFootprint
	ext := func(s Side, n [MaxLevels]uint32) []Run {
		for _, v := range n {
			if v == 0 {
				return nil
			}
		}
		lo, hi := span(s, n, MaxLevels-1)
		a, ok1 := addrAt(s.Addr, lo)
		b, ok2 := addrAt(s.Addr, hi)
		if !ok1 || !ok2 {
			return nil // refused by the pre-flight check: the job does not run
		}
		return []Run{{a, b}}
	}
	rowsExt := func(src bool, n uint64) []Run {
		var r Run
		first := true
		for _, rw := range p.rows {
			if rw.skip {
				continue
			}
			a := rw.dst
			if src {
				a = rw.src
			}
			if first || a < r.Lo {
				r.Lo = a
			}
			if first || a+n > r.Hi {
				r.Hi = a + n
			}
			first = false
		}
		if first {
			return nil
		}
		return []Run{r}
	}
	switch d.Kind {
	case KindGather:
		f.Writes, f.Reads = rowsExt(false, uint64(d.Dst.ElemSize)), rowsExt(true, uint64(d.Src.ElemSize))
	case KindGatherXpose:
		if g := d.GatherXpose; g != nil {
			dst := d.Dst
			dst.Addr, _ = addrAt(d.Dst.Addr, int64(g.First)*2)
			dst.Step = [MaxLevels]int64{1, d.Dst.Step[1]}
			f.Writes = ext(dst, [MaxLevels]uint32{uint32(g.Count), uint32(g.Cols), 1, 1})
			src := Side{ElemSize: d.Src.ElemSize, Step: [MaxLevels]int64{d.Src.Step[0]}}
			lo, hi := span(src, [MaxLevels]uint32{uint32(max(g.Cols, 1)), 1, 1, 1}, MaxLevels-1)
			if r := rowsExt(true, 0); r != nil {
				a, ok1 := addrAt(r[0].Lo, lo)
				b, ok2 := addrAt(r[0].Hi, hi)
				if ok1 && ok2 {
					f.Reads = []Run{{a, b}}
				}
			}
		}
	default:
		f.Writes, f.Reads = ext(d.Dst, d.dstNum()), ext(d.Src, d.Num)
	}
	return f, nil
}
