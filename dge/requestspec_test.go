package dge_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/tpbsim/tpbsim/dge"
	"github.com/tpbsim/tpbsim/fault"
	"github.com/tpbsim/tpbsim/isa"
)

// ParseRequestJSON reads both request forms and refuses, as a *SpecError under
// dge_request_form naming the field, what the form would otherwise drop or misread; a request
// that reads but breaks a DGE rule is an *Error under that rule.
func TestParseRequestJSON(t *testing.T) {
	const views = `"src_view":{"base":"hbm:0x0","elem_size":4,"num_elem":[4],"step_elem":[1]},"dst_view":{"base":4096,"elem_size":4,"num_elem":[4],"step_elem":[1]}`
	for _, tc := range []struct {
		name, json string
		gen        isa.Generation
		rule, path string // "" rule: no error
		msg        string // substring of the error
		check      func(t *testing.T, r dge.Request)
	}{
		{"tensor form", `{"src":"hbm:0x0","dst":"sbuf:1:0x40","shape":[2,8],"perm":[1,0],"dtype":"bf16","semaphore":3,"sem_increment":2,"dmas":2}`, 0, "", "", "",
			func(t *testing.T, r dge.Request) {
				want := isa.DMALocalBase + uint64(isa.CAYMAN.Geometry().StateBufPartitionSize) + 0x40
				if r.Gen != isa.CAYMAN || r.Src.Base != 0 || r.Dst.Base != want || r.In != isa.DTypeBFLOAT16 || r.Semaphore != 3 || r.SemIncrement != 2 || r.DMACfg != 3 {
					t.Errorf("request %+v (dst base want 0x%x)", r, want)
				}
			}},
		{"views, gen overridden", `{"gen":"SUNDA",` + views + `,"dma_cfg":"0x30000"}`, isa.MARIANA, "", "", "",
			func(t *testing.T, r dge.Request) {
				if r.Gen != isa.MARIANA || r.Dst.Base != 4096 || r.Src.NumElem != [4]uint32{4, 1, 1, 1} || r.SemIncrement != 0 || r.DMACfg != 0x30000 {
					t.Errorf("request %+v", r)
				}
			}},
		{"out dtype re-lays the destination", `{"src":"hbm:0x0","dst":"hbm:0x1000","shape":[8],"dtype":"fp32","out_dtype":"bf16"}`, 0, "", "", "",
			func(t *testing.T, r dge.Request) {
				if r.Out != isa.DTypeBFLOAT16 || r.Dst.ElemSize*2 != r.Src.ElemSize {
					t.Errorf("request %+v", r)
				}
			}},
		{"a BOM", "\ufeff" + `{"src":"hbm:0","dst":"hbm:0x100","shape":[4],"dtype":"uint8"}`, 0, "", "", "", nil},
		{"key given twice", `{"src":"hbm:0x0","src":"hbm:0x10","dst":"hbm:0x1000","shape":[4],"dtype":"fp32"}`, 0, dge.RuleRequestForm, "src", "given twice", nil},
		{"key in another case", `{"SRC":"hbm:0x0","dst":"hbm:0x1000","shape":[4],"dtype":"fp32"}`, 0, dge.RuleRequestForm, "SRC", `spelled "src"`, nil},
		{"unknown key", `{"source":"hbm:0x0"}`, 0, dge.RuleRequestForm, "", "unknown field", nil},
		{"empty", ``, 0, dge.RuleRequestForm, "", "empty file", nil},
		{"text after the object", `{"src":"hbm:0","dst":"hbm:0x100","shape":[4],"dtype":"uint8"} {}`, 0, dge.RuleRequestForm, "", "byte offset 62", nil},
		{"tensor form beside views", `{"shape":[4],` + views + `}`, 0, dge.RuleRequestForm, "shape", `"shape" is the flag form's`, nil},
		{"one view", `{"src_view":{"base":"hbm:0","elem_size":4,"num_elem":[4],"step_elem":[1]}}`, 0, dge.RuleRequestForm, "src_view", "go together", nil},
		{"missing fields", `{"src":"hbm:0","shape":[4]}`, 0, dge.RuleRequestForm, "dst", "missing dst, dtype", nil},
		{"bad address", `{"src":"sram:0","dst":"hbm:0","shape":[4],"dtype":"uint8"}`, 0, dge.RuleRequestForm, "src: address", "src: ", nil},
		{"raw address past the map", `{"src":"0xffffffffffffffff","dst":"hbm:0","shape":[4],"dtype":"uint8"}`, 0, dge.RuleRequestForm, "src", "outside the device address map", nil},
		{"semaphore without increment", `{"src":"hbm:0","dst":"hbm:0x100","shape":[4],"dtype":"uint8","semaphore":3}`, 0, dge.RuleRequestForm, "sem_increment", "without sem_increment", nil},
		{"increment without semaphore", `{"src":"hbm:0","dst":"hbm:0x100","shape":[4],"dtype":"uint8","sem_increment":3}`, 0, dge.RuleRequestForm, "semaphore", "without semaphore", nil},
		{"register past 32 bits", `{"src":"hbm:0","dst":"hbm:0x100","shape":[4],"dtype":"uint8","carveout_cfg":"0x100000000"}`, 0, dge.RuleRequestForm, "carveout_cfg", "carveout_cfg 0x100000000: the register is 32 bits", nil},
		{"dmas past the engines", `{"src":"hbm:0","dst":"hbm:0x100","shape":[4],"dtype":"uint8","dmas":17}`, 0, dge.RuleRequestForm, "dmas", "dmas 17: CAYMAN has 16 DMA engines", nil},
		{"dmas against dma_cfg", `{"src":"hbm:0","dst":"hbm:0x100","shape":[4],"dtype":"uint8","dmas":2,"dma_cfg":"0xf0"}`, 0, dge.RuleRequestForm, "dmas", "but dma_cfg 0xf0", nil},
		{"compute op", `{"src":"hbm:0","dst":"hbm:0x100","shape":[4],"dtype":"uint8","compute_op":"XOR"}`, 0, dge.RuleRequestForm, "compute_op", `compute_op "XOR": want NONE`, nil},
		{"view of 2^64 elements", `{"src_view":{"base":"hbm:0","elem_size":2,"num_elem":[65536,65536,65536,65536],"step_elem":[0,0,0,0]},` +
			`"dst_view":{"base":"hbm:0x1000","elem_size":2,"num_elem":[65536,65536,65536,65536],"step_elem":[1,1,1,1]}}`, 0, dge.RuleViewValid, "src_view.num_elem", "more than 2^40", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, err := dge.ParseRequestJSON([]byte(tc.json), tc.gen)
			if tc.rule == "" {
				if err != nil {
					t.Fatal(err)
				}
				if tc.check != nil {
					tc.check(t, r)
				}
				return
			}
			if err == nil {
				t.Fatalf("no error, want %s", tc.rule)
			}
			if fault.Rule(err) != tc.rule || fault.Path(err) != tc.path || !errors.Is(err, fault.ErrInvalid) || !strings.Contains(err.Error(), tc.msg) {
				t.Errorf("err %q: rule %q path %q category %v; want %q %q %q", err, fault.Rule(err), fault.Path(err), fault.Category(err), tc.rule, tc.path, tc.msg)
			}
			var se *dge.SpecError
			var de *dge.Error
			if errors.As(err, &se) == (tc.rule != dge.RuleRequestForm) || errors.As(err, &de) != (tc.rule != dge.RuleRequestForm) {
				t.Errorf("%T: a form mistake is a *SpecError, a DGE rule an *Error", err)
			}
		})
	}
}

// The tensor form written as flags names the fields as the flags do.
func TestRequestSpecFlagNames(t *testing.T) {
	for _, tc := range []struct {
		name string
		s    dge.RequestSpec
		msg  string
	}{
		{"missing", dge.RequestSpec{Flags: true, Src: "hbm:0"}, "missing --dst, --shape, --dtype: a request needs --src, --dst, --shape and --dtype (or --request FILE.json)"},
		{"out dtype without dtype", dge.RequestSpec{Flags: true, SrcView: &dge.ViewSpec{Base: "hbm:0", ElemSize: 2, NumElem: []uint32{4}, StepElem: []int64{1}},
			DstView: &dge.ViewSpec{Base: "hbm:0x100", ElemSize: 2, NumElem: []uint32{4}, StepElem: []int64{1}}, OutDType: "bf16"}, "--out-dtype needs --dtype"},
		{"register", dge.RequestSpec{Flags: true, DMACfg: 1 << 32}, "--dma-cfg 0x100000000: the register is 32 bits"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := tc.s.Request(); err == nil || err.Error() != tc.msg && !strings.HasPrefix(err.Error(), tc.msg) {
				t.Errorf("err %v, want %q", err, tc.msg)
			}
		})
	}
}

// DeviceAddress maps the address syntax onto the DGE's device addresses.
func TestDeviceAddress(t *testing.T) {
	stride := uint64(isa.CAYMAN.Geometry().StateBufPartitionSize)
	for _, tc := range []struct {
		in   string
		want uint64
		err  string
	}{
		{"hbm:0x1000", 0x1000, ""},
		{"sbuf:2:0x40", isa.DMALocalBase + 2*stride + 0x40, ""},
		{"0x800000000100", 0x800000000100, ""},
		{"0xffffffffffffffff", 0, "outside the device address map"},
		{"reg:3", 0, "register addresses"},
	} {
		t.Run(tc.in, func(t *testing.T) {
			got, err := dge.DeviceAddress(tc.in, isa.CAYMAN)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Errorf("got 0x%x, %v; want 0x%x", got, err, tc.want)
			}
		})
	}
}

func ExampleParseRequestJSON() {
	req, err := dge.ParseRequestJSON([]byte(`{"src":"hbm:0","dst":"sbuf:0:0","shape":[64,32],"perm":[1,0],"dtype":"bf16"}`), isa.GenInvalid)
	if err != nil {
		fmt.Println(err)
		return
	}
	p, err := dge.PlanRequest(req, dge.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(p.Kind, p.Descriptors > 0)
	_, err = dge.ParseRequestJSON([]byte(`{"src":"hbm:0","dst":"sbuf:0:0","shape":[64],"dtype":"bf16","semaphore":3}`), isa.GenInvalid)
	fmt.Println(fault.Rule(err)+":", err)
	// Output:
	// XBAR_TRANSPOSE true
	// dge_request_form: semaphore 3 without sem_increment: give the total the engines add to it (1..255; it also caps the engines used)
}
