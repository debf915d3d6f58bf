package nkipy

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// The environment of a script run with the front end (`tpbsim nki run`): tpbsim_nki runs each
// recorded kernel as `$TPBSIM_BIN kernel run` with the flags of $TPBSIM_KERNEL_ARGS (a JSON list
// of strings); each such run numbers its trace and summary files in the session folder
// $TPBSIM_NKI_SESSION (SessionRun); TPBSIM_RAW_BITS=1 hands bf16 / fp8 outputs back as raw
// bits, TPBSIM_KEEP=1 keeps each run's kernel form and data.
const (
	EnvBin        = "TPBSIM_BIN"
	EnvKernelArgs = "TPBSIM_KERNEL_ARGS"
	EnvSession    = "TPBSIM_NKI_SESSION"
	EnvRawBits    = "TPBSIM_RAW_BITS"
	EnvKeep       = "TPBSIM_KEEP"
	EnvPython     = "TPBSIM_PYTHON"
)

// FindPython picks a python3 that imports numpy: explicit when given, else $TPBSIM_PYTHON,
// python3 on PATH, /usr/bin/python3, the first that works.
func FindPython(explicit string) (string, error) {
	cands := []string{}
	if explicit != "" {
		cands = append(cands, explicit)
	} else {
		if p := os.Getenv(EnvPython); p != "" {
			cands = append(cands, p)
		}
		if p, err := exec.LookPath("python3"); err == nil {
			cands = append(cands, p)
		}
		cands = append(cands, "/usr/bin/python3")
	}
	var tried []string
	for _, c := range cands {
		if err := exec.Command(c, "-c", "import numpy").Run(); err == nil {
			return c, nil
		}
		tried = append(tried, c)
	}
	return "", fmt.Errorf("no python3 with numpy found (tried %s); install numpy (Debian: apt-get install python3-numpy) or name one with --python / %s",
		strings.Join(tried, ", "), EnvPython)
}

// Script is a Python file to run with the front end on PYTHONPATH.
type Script struct {
	Python     string   // the interpreter (FindPython)
	PythonPath string   // the front end's folder (Install)
	Bin        string   // the tpbsim binary each kernel run calls
	File       string   // the script
	Args       []string // its arguments
	// KernelArgs are the flags of every `tpbsim kernel run` the script makes.
	KernelArgs []string
	// Session makes a session folder for the run, in which each kernel run numbers its
	// outputs (needed when KernelArgs name a --trace or --summary file).
	Session bool
	RawBits bool
	Keep    bool
}

// Command is the script's command with the front end's environment, and the clean-up to call
// once it has run (it removes the session folder).
func (s *Script) Command() (*exec.Cmd, func(), error) {
	ka := s.KernelArgs
	if ka == nil {
		ka = []string{} // a JSON list, never null: the front end reads a list of strings
	}
	ja, err := json.Marshal(ka)
	if err != nil {
		return nil, nil, err
	}
	pp := s.PythonPath
	if old := os.Getenv("PYTHONPATH"); old != "" {
		pp += string(os.PathListSeparator) + old
	}
	env := append(os.Environ(), "PYTHONPATH="+pp, EnvBin+"="+s.Bin, EnvKernelArgs+"="+string(ja))
	cleanup := func() {}
	if s.Session {
		sess, err := os.MkdirTemp("", "tpbsim-nki-session-")
		if err != nil {
			return nil, nil, err
		}
		cleanup = func() { os.RemoveAll(sess) }
		env = append(env, EnvSession+"="+sess)
	}
	if s.RawBits {
		env = append(env, EnvRawBits+"=1")
	}
	if s.Keep {
		env = append(env, EnvKeep+"=1")
	}
	cmd := exec.Command(s.Python, append([]string{s.File}, s.Args...)...)
	cmd.Env = env
	return cmd, cleanup, nil
}

// SessionRun claims the next kernel run's number (1-based) in the session folder dir: the
// first free run-N marker, created. 1 when the folder cannot be written.
func SessionRun(dir string) int {
	for n := 1; n < 1<<20; n++ {
		fh, err := os.OpenFile(filepath.Join(dir, fmt.Sprintf("run-%d", n)), os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
		if err == nil {
			fh.Close()
			return n
		}
		if !os.IsExist(err) {
			return 1
		}
	}
	return 1
}

// Numbered is the output path of a session's n-th kernel run: the first keeps path, the N-th
// (N >= 2) writes FILE-N.ext; "" and "-" (standard output) stay as they are.
func Numbered(path string, n int) string {
	if path == "" || path == "-" || n < 2 {
		return path
	}
	ext := filepath.Ext(path)
	return fmt.Sprintf("%s-%d%s", strings.TrimSuffix(path, ext), n, ext)
}
