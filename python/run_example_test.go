package nkipy_test

import (
	"fmt"
	"os"
	"strings"

	nkipy "github.com/tpbsim/tpbsim/python"
)

// What `tpbsim nki run --trace t.json kernel.py` starts: the script with the front end on
// PYTHONPATH and, for each kernel it runs, the tpbsim binary and its kernel run flags; the
// session folder numbers the trace of the second kernel run t-2.json.
func ExampleScript_Command() {
	s := nkipy.Script{Python: "python3", PythonPath: "/fe", Bin: "/bin/tpbsim", File: "kernel.py",
		KernelArgs: []string{"--trace", "/w/t.json", "--quiet"}, Session: true}
	cmd, cleanup, err := s.Command()
	if err != nil {
		fmt.Println(err)
		return
	}
	defer cleanup()
	fmt.Println(cmd.Args)
	session := ""
	for _, kv := range cmd.Env {
		if strings.HasPrefix(kv, nkipy.EnvKernelArgs+"=") || strings.HasPrefix(kv, nkipy.EnvBin+"=") {
			fmt.Println(kv)
		}
		if v, ok := strings.CutPrefix(kv, nkipy.EnvSession+"="); ok {
			session = v
		}
	}
	first, second := nkipy.SessionRun(session), nkipy.SessionRun(session)
	fmt.Println(nkipy.Numbered("/w/t.json", first), nkipy.Numbered("/w/t.json", second))
	cleanup()
	_, err = os.Stat(session)
	fmt.Println(os.IsNotExist(err))
	// Output:
	// [python3 kernel.py]
	// TPBSIM_BIN=/bin/tpbsim
	// TPBSIM_KERNEL_ARGS=["--trace","/w/t.json","--quiet"]
	// /w/t.json /w/t-2.json
	// true
}
