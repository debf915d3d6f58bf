package kernel

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/tpbsim/tpbsim/internal/atomicfile"
	"github.com/tpbsim/tpbsim/internal/npy"
	"github.com/tpbsim/tpbsim/sim"
)

// OutputMeta describes one output of a kernel run as result.json lists it: the tensor, its
// file (output<k>.npy) and how its elements are encoded there (OutputArray: native, raw or
// float32).
type OutputMeta struct {
	Tensor   int    `json:"tensor"`
	Name     string `json:"name"`
	File     string `json:"file"`
	DType    string `json:"dtype"`
	Shape    []int  `json:"shape"`
	Encoding string `json:"encoding"`
}

// OutputFiles renders the outputs of a finished run as `tpbsim kernel run --out-dir DIR` writes
// them: output<k>.npy per output (OutputArray; rawBits: bf16 / fp8 as raw bits) and
// result.json (the outputs' OutputMeta, the instruction count, the modelled end time, the
// generation and the NKI release), each in dir. With dir "" no file is rendered, only the
// metadata. WriteOutputs writes them.
func (lw *Lowered) OutputFiles(res *Result, rawBits bool, dir string) ([]sim.OutputFile, []OutputMeta, error) {
	var files []sim.OutputFile
	var metas []OutputMeta
	for i := range res.Outputs {
		o := &res.Outputs[i]
		a, enc, err := OutputArray(o, rawBits)
		if err != nil {
			return nil, nil, err
		}
		name := fmt.Sprintf("output%d.npy", i)
		metas = append(metas, OutputMeta{Tensor: o.Tensor, Name: o.Name, File: name, DType: lw.Kernel.Tensors[o.Tensor].DType, Shape: o.Shape, Encoding: enc})
		if dir == "" {
			continue
		}
		var b bytes.Buffer
		if err := npy.Write(&b, a); err != nil {
			return nil, nil, err
		}
		files = append(files, sim.OutputFile{Flag: "--out-dir", Path: filepath.Join(dir, name), Data: b.Bytes()})
	}
	if dir == "" {
		return nil, metas, nil
	}
	end := 0.0
	if res.Sim != nil {
		end = float64(res.Sim.EndPS) / 1000
	}
	rj, err := json.MarshalIndent(map[string]any{"format": "tpbsim.kernel.result", "version": 1, "outputs": metas,
		"instructions": len(lw.Insts), "end_ns": end, "gen": lw.Gen.String(), "nki_version": lw.NKIVersion}, "", " ")
	if err != nil {
		return nil, nil, err
	}
	files = append(files, sim.OutputFile{Flag: "--out-dir", Path: filepath.Join(dir, "result.json"), Data: append(rj, '\n')})
	return files, metas, nil
}

// WriteOutputs makes dir (when not "") and writes the files, every one whole or none of them,
// then the one named "-" to stdout (a run's --summary -): a failing write leaves no half file.
func WriteOutputs(dir string, files []sim.OutputFile, stdout io.Writer) error {
	if dir != "" && len(files) > 0 {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
	}
	return atomicfile.WriteOutputs(files, stdout)
}
