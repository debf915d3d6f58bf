package main

import (
	"bytes"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"testing"

	"github.com/tpbsim/tpbsim/isa"
)

// outInputs are the input files the output tests read (made once per test).
type outInputs struct {
	asmGood, asmBad string // assembly text
	prog, badProg   string // a program that runs; one that breaks a rule
	x               string // a 32x32 fp32 .npy
	tableJSON       string // dtable dump --json of the gen2 default set
}

func makeOutInputs(t *testing.T) outInputs {
	t.Helper()
	dir := t.TempDir()
	var in outInputs
	in.asmGood = filepath.Join(dir, "good.s")
	os.WriteFile(in.asmGood, []byte("COPY nac=32\n"), 0o644)
	in.asmBad = filepath.Join(dir, "bad.s")
	os.WriteFile(in.asmBad, []byte("COPY nac=32\nCOPY nac=999\n"), 0o644)
	mk := func(name string, inst isa.Inst) string {
		p := writeBin(t, dir, inst)
		np := filepath.Join(dir, name)
		if err := os.Rename(p, np); err != nil {
			t.Fatal(err)
		}
		return np
	}
	in.prog = mk("good.bin", transposeInst(32, isa.Events{}))
	in.badProg = mk("bad.bin", transposeInst(48, isa.Events{})) // has_multiple_32_channels
	in.x = filepath.Join(dir, "x.npy")
	writeNPY(t, in.x, "f4", []int{32, 32}, make([]byte, 4096))
	js, errOut, code := runCLI(t, "dtable", "dump", fixtures+"/dve_bin_gen2", "--json")
	if code != 0 {
		t.Fatalf("dtable dump --json: %s", errOut)
	}
	in.tableJSON = filepath.Join(dir, "set.json")
	os.WriteFile(in.tableJSON, []byte(js), 0o644)
	return in
}

// listTree lists every path under dir (relative, folders with a trailing '/'), hidden
// temporary files included.
func listTree(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || p == dir {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		if d.IsDir() {
			rel += "/"
		}
		out = append(out, rel)
		return nil
	})
	sort.Strings(out)
	return out
}

const keepData = "KEEP: a file that was there before"

// outDir makes the folder the output tests write into: keep.bin (a file that must not change
// on failure), sub/ (a folder), fifo (a named pipe), link.bin -> keep.bin, and enc/ whose
// default_datapath_table.bin is a folder (so dtable encode fails after its other files).
func outDir(t *testing.T) string {
	t.Helper()
	d := t.TempDir()
	os.WriteFile(filepath.Join(d, "keep.bin"), []byte(keepData), 0o644)
	os.Mkdir(filepath.Join(d, "sub"), 0o755)
	if err := syscall.Mkfifo(filepath.Join(d, "fifo"), 0o644); err != nil {
		t.Fatal(err)
	}
	os.Symlink("keep.bin", filepath.Join(d, "link.bin"))
	os.MkdirAll(filepath.Join(d, "enc", "default_datapath_table.bin"), 0o755)
	return d
}

// Every command that writes a file goes through internal/atomicfile: a bad target is a usage
// error (exit 2) before any work, a failure writes nothing and leaves an existing file as it
// was, and a single output may be "-" (stdout).
func TestOutputsWholeOrNothing(t *testing.T) {
	in := makeOutInputs(t)
	g2 := fixtures + "/dve_bin_gen2"
	dge := []string{"dge", "run", "--src", "hbm:0x1000", "--shape", "32,8", "--dst", "sbuf:0:64", "--perm", "1,0", "--dtype", "fp16"}
	for _, tc := range []struct {
		name string
		args func(d string) []string
		code int
		msg  string   // in stderr
		made []string // paths the command creates (relative to the output folder)
		// keepIs is what keep.bin must hold afterwards (default: unchanged)
		keepIs string
		// stdout, when set, must start the command's stdout
		stdout string
	}{
		// asm -o
		{name: "asm to a folder", args: func(d string) []string { return []string{"asm", in.asmGood, "-o", filepath.Join(d, "sub")} },
			code: 2, msg: "not a regular file (a directory)"},
		{name: "asm to a named pipe", args: func(d string) []string { return []string{"asm", in.asmGood, "-o", filepath.Join(d, "fifo")} },
			code: 2, msg: "a named pipe"},
		{name: "asm into a missing folder", args: func(d string) []string { return []string{"asm", in.asmGood, "-o", filepath.Join(d, "nope", "x.bin")} },
			code: 2, msg: "nope/x.bin: no such file or directory"},
		{name: "asm bad source over a file", args: func(d string) []string { return []string{"asm", in.asmBad, "-o", filepath.Join(d, "keep.bin")} },
			code: 2, msg: "bad.s:2"},
		{name: "asm through a symlink", args: func(d string) []string { return []string{"asm", in.asmGood, "-o", filepath.Join(d, "link.bin")} },
			keepIs: "64 bytes"},
		{name: "asm new file", args: func(d string) []string { return []string{"asm", in.asmGood, "-o", filepath.Join(d, "new.bin")} },
			made: []string{"new.bin"}},
		{name: "asm to stdout", args: func(string) []string { return []string{"asm", in.asmGood, "-o", "-"} },
			stdout: "\x46"}, // COPY
		// run --dump / --trace
		{name: "run breaks a rule", args: func(d string) []string {
			return []string{"run", in.badProg, "--dump", "sbuf:0:0=4x4:fp32:" + filepath.Join(d, "keep.bin"), "--trace", filepath.Join(d, "t.json")}
		}, code: 1, msg: "has_multiple_32_channels"},
		{name: "run dump to a folder", args: func(d string) []string {
			return []string{"run", in.prog, "--dump", "sbuf:0:0=4x4:fp32:" + filepath.Join(d, "sub")}
		},
			code: 2, msg: "a directory"},
		{name: "run trace to a named pipe", args: func(d string) []string { return []string{"run", in.prog, "--trace", filepath.Join(d, "fifo")} },
			code: 2, msg: "a named pipe"},
		{name: "run trace into a missing folder", args: func(d string) []string {
			return []string{"run", in.prog, "--dump", "sbuf:0:0=4x4:fp32:" + filepath.Join(d, "keep.bin"), "--trace", filepath.Join(d, "nope", "t.json")}
		}, code: 2, msg: "no such file or directory"},
		{name: "run same file twice", args: func(d string) []string {
			return []string{"run", in.prog, "--dump", "sbuf:0:0=4x4:fp32:" + filepath.Join(d, "a.npy"), "--dump", "sbuf:0:0=2x2:fp32:" + filepath.Join(d, ".", "a.npy")}
		}, code: 2, msg: "write the same file"},
		{name: "run same file twice via a link", args: func(d string) []string {
			return []string{"run", in.prog, "--dump", "sbuf:0:0=4x4:fp32:" + filepath.Join(d, "keep.bin"), "--trace", filepath.Join(d, "link.bin")}
		}, code: 2, msg: "write the same file"},
		{name: "run stdout among several outputs", args: func(d string) []string {
			return []string{"run", in.prog, "--dump", "sbuf:0:0=4x4:fp32:-", "--trace", filepath.Join(d, "t.json")}
		}, code: 2, msg: "only when it is the single output"},
		{name: "run dump through a symlink", args: func(d string) []string {
			return []string{"run", in.prog, "--quiet", "--dump", "sbuf:0:0=4x4:fp32:" + filepath.Join(d, "link.bin"), "--trace", filepath.Join(d, "t.json")}
		}, keepIs: "\x93NUMPY", made: []string{"t.json"}},
		{name: "run dump to stdout", args: func(string) []string { return []string{"run", in.prog, "--dump", "sbuf:0:0=4x4:fp32:-"} },
			stdout: "\x93NUMPY", msg: "wrote standard output"},
		{name: "run trace to stdout", args: func(string) []string { return []string{"run", in.prog, "--quiet", "--trace", "-"} },
			stdout: "{"},
		// demo --trace
		{name: "demo trace to a folder", args: func(d string) []string { return []string{"demo", "--trace", filepath.Join(d, "sub")} },
			code: 2, msg: "a directory"},
		{name: "demo trace through a symlink", args: func(d string) []string { return []string{"demo", "--trace", filepath.Join(d, "link.bin")} },
			keepIs: "{"},
		// dtable report -o / encode -o
		{name: "report to a folder", args: func(d string) []string { return []string{"dtable", "report", g2, "-o", filepath.Join(d, "sub")} },
			code: 2, msg: "a directory"},
		{name: "report to stdout", args: func(string) []string { return []string{"dtable", "report", g2, "-o", "-"} },
			stdout: "<!DOCTYPE html>"},
		{name: "encode: one file fails, none is written", args: func(d string) []string {
			return []string{"dtable", "encode", in.tableJSON, "-o", filepath.Join(d, "enc")}
		}, code: 2, msg: "default_datapath_table.bin: not a regular file"},
		{name: "encode to stdout", args: func(d string) []string { return []string{"dtable", "encode", in.tableJSON, "-o", "-"} },
			code: 2, msg: "names a folder"},
		{name: "encode new folder", args: func(d string) []string {
			return []string{"dtable", "encode", in.tableJSON, "-o", filepath.Join(d, "new")}
		},
			made: []string{"new/", "new/default_control_table.bin", "new/default_datapath_table.bin", "new/default_opcode_table.bin"}},
		// dge run --dump / --trace
		{name: "dge dump to a folder", args: func(d string) []string {
			return append(dge, "--dump", "sbuf:0:0=4x4:fp16:"+filepath.Join(d, "sub"))
		}, code: 2, msg: "a directory"},
		{name: "dge refused request writes nothing", args: func(d string) []string {
			// the destination overlaps the source: refused before anything runs
			return []string{"dge", "run", "--src", "sbuf:0:0", "--shape", "32,32", "--dst", "sbuf:0:16", "--perm", "1,0", "--dtype", "fp16", "--verify",
				"--dump", "sbuf:0:0=4x4:fp16:" + filepath.Join(d, "keep.bin"), "--trace", filepath.Join(d, "t.json")}
		}, code: 1, msg: "dge_src_dst_disjoint"},
		{name: "dge trace to stdout", args: func(string) []string { return append(dge, "--trace", "-") },
			stdout: "{"},
		{name: "dge dump past the partitions", args: func(d string) []string {
			return append(dge, "--dump", "sbuf:120:0=32x4:fp16:"+filepath.Join(d, "x.npy"))
		}, code: 2, msg: "pass the last"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := outDir(t)
			before := listTree(t, d)
			var out, errb bytes.Buffer
			code := run(tc.args(d), &out, &errb)
			if code != tc.code {
				t.Fatalf("exit %d, want %d\nstderr: %s", code, tc.code, errb.String())
			}
			if tc.msg != "" && !strings.Contains(errb.String(), tc.msg) {
				t.Errorf("stderr lacks %q:\n%s", tc.msg, errb.String())
			}
			if strings.Contains(errb.String(), ".tmp") {
				t.Errorf("stderr names a temporary file:\n%s", errb.String())
			}
			if tc.stdout != "" && !strings.HasPrefix(out.String(), tc.stdout) {
				t.Errorf("stdout starts %q, want %q", out.String()[:min(out.Len(), 40)], tc.stdout)
			}
			want := append(append([]string(nil), before...), tc.made...)
			sort.Strings(want)
			if got := listTree(t, d); strings.Join(got, " ") != strings.Join(want, " ") {
				t.Errorf("files afterwards:\n  %v\nwant\n  %v", got, want)
			}
			keep, _ := os.ReadFile(filepath.Join(d, "keep.bin"))
			switch {
			case tc.keepIs == "":
				if string(keep) != keepData {
					t.Errorf("keep.bin changed to %q", keep)
				}
			case tc.keepIs == "64 bytes":
				if len(keep) != 64 {
					t.Errorf("keep.bin (through the link) holds %d bytes, want 64", len(keep))
				}
			case !strings.HasPrefix(string(keep), tc.keepIs):
				t.Errorf("keep.bin (through the link) starts %q, want %q", keep[:min(len(keep), 20)], tc.keepIs)
			}
			if fi, err := os.Lstat(filepath.Join(d, "link.bin")); err != nil || fi.Mode()&os.ModeSymlink == 0 {
				t.Errorf("link.bin is no longer a symlink: %v", err)
			}
		})
	}
}

// --load FILE[:DTYPE] and --dump ADDR=SHAPE:DTYPE:FILE: parse errors and address/shape
// errors are usage errors (exit 2) for both flags, before the run.
func TestRunLoadDumpArguments(t *testing.T) {
	in := makeOutInputs(t)
	dir := t.TempDir()
	colon := filepath.Join(dir, "odd.npy:v2") // a file whose name has a ':' in it
	writeNPY(t, colon, "f4", []int{32, 32}, make([]byte, 4096))
	noSuch := filepath.Join(dir, "none.npy")
	out := filepath.Join(dir, "d.npy")
	for _, tc := range []struct {
		name string
		args []string
		code int
		msg  string
	}{
		{"load with dtype", []string{"--load", "sbuf:0:0=" + in.x + ":fp32"}, 0, ""},
		{"load unknown dtype", []string{"--load", "sbuf:0:0=" + in.x + ":NOPE"}, 2, "unknown dtype NOPE"},
		{"load unknown dtype, missing file", []string{"--load", "sbuf:0:0=" + noSuch + ":NOPE"}, 2, "unknown dtype NOPE"},
		{"load empty dtype", []string{"--load", "sbuf:0:0=" + in.x + ":"}, 2, "empty DTYPE"},
		{"load file with a colon", []string{"--load", "sbuf:0:0=" + colon}, 0, ""},
		{"load file with a colon and a dtype", []string{"--load", "sbuf:0:0=" + colon + ":fp32"}, 0, ""},
		{"load missing file", []string{"--load", "sbuf:0:0=" + noSuch}, 2, "no such file or directory"},
		{"load past the partitions", []string{"--load", "sbuf:120:0=" + in.x}, 2, "partition"},
		{"dump past the partitions", []string{"--dump", "sbuf:120:0=32x32:fp32:" + out}, 2, "pass the last"},
		{"dump past the active size", []string{"--dump", "sbuf:0:0=1x1000000:fp32:" + out}, 2, "active size"},
		{"dump past the HBM window", []string{"--dump", "hbm:0x7ffffffffff0=4x4:fp32:" + out}, 2, "HBM window"},
		{"dump hex-looking shape", []string{"--dump", "sbuf:0:0=0x64:bf16:" + out}, 2, "looks like a hex number"},
		{"dump zero dim", []string{"--dump", "sbuf:0:0=4x0:bf16:" + out}, 2, "a dimension is 0"},
		{"dump empty dim", []string{"--dump", "sbuf:0:0=4xx4:bf16:" + out}, 2, "an empty dimension"},
		{"dump leading x", []string{"--dump", "sbuf:0:0=x4:bf16:" + out}, 2, "an empty dimension"},
		{"dump not a number", []string{"--dump", "sbuf:0:0=4xq:bf16:" + out}, 2, "not a decimal number"},
		{"dump negative", []string{"--dump", "sbuf:0:0=-4:bf16:" + out}, 2, "not a decimal number"},
		{"dump huge", []string{"--dump", "hbm:0=100000x100000x100000:bf16:" + out}, 2, "too many elements"},
		{"dump unknown dtype", []string{"--dump", "sbuf:0:0=4x4:NOPE:" + out}, 2, "unknown element type"},
		{"dump ok", []string{"--dump", "sbuf:0:0=4x4:bf16:" + out}, 0, ""},
		{"dump shape with commas (as dge --shape)", []string{"--dump", "sbuf:0:0=4,4:bf16:" + out}, 0, ""},
		{"dump shape with an empty comma item", []string{"--dump", "sbuf:0:0=4,,4:bf16:" + out}, 2, "an empty dimension"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			os.Remove(out)
			code, _, stderr := simCLI(append([]string{"run", in.prog, "--quiet"}, tc.args...)...)
			if code != tc.code {
				t.Fatalf("exit %d, want %d\n%s", code, tc.code, stderr)
			}
			if tc.msg != "" && !strings.Contains(stderr, tc.msg) {
				t.Errorf("stderr lacks %q:\n%s", tc.msg, stderr)
			}
			if _, err := os.Stat(out); (err == nil) != (tc.code == 0 && strings.HasPrefix(tc.name, "dump")) {
				t.Errorf("%s exists: %v", out, err == nil)
			}
		})
	}
}
