package timing_test

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/tpbsim/tpbsim/isa"
	"github.com/tpbsim/tpbsim/timing"
)

// A calibration file as `tpbsim run --timing FILE` reads it: the keys it gives replace the
// generation's defaults, an unknown key is refused by name.
func ExampleReadFile() {
	dir, _ := os.MkdirTemp("", "timing")
	defer os.RemoveAll(dir)
	good, bad := filepath.Join(dir, "good.json"), filepath.Join(dir, "bad.json")
	os.WriteFile(good, []byte(`{"dge.issue_ns": 100}`), 0o644)
	os.WriteFile(bad, []byte(`{"no_such_key": 1}`), 0o644)
	t, err := timing.ReadFile(good, isa.CAYMAN)
	fmt.Println(t != nil, err)
	_, err = timing.ReadFile(bad, isa.CAYMAN)
	fmt.Println(err != nil)
	// Output:
	// true <nil>
	// true
}
