package timing

import (
	"os"

	"github.com/tpbsim/tpbsim/isa"
)

// ReadFile is generation g's table with the constants of the JSON file at path applied (Apply:
// the form `tpbsim explain timing --json` prints; a partial file keeps the other defaults), as
// `tpbsim run|dge run|demo|kernel run --timing FILE` reads it. An unreadable file is its
// *os.PathError; a file Apply refuses its *Error, naming the key.
func ReadFile(path string, g isa.Generation) (*Table, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	t, err := For(g)
	if err != nil {
		return nil, err
	}
	if err := t.Apply(path, f); err != nil {
		return nil, err
	}
	return &t, nil
}
