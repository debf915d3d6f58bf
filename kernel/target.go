package kernel

import "github.com/tpbsim/tpbsim/isa"

// TargetOptions are the lowering options for the form as `tpbsim kernel run|lower` and the NKI
// front end choose them: the generation gen (a name) when not "", else the form's "gen", else
// CAYMAN (isa.DefaultGeneration); the NKI release nkiVersion when not "", else the form's
// "nki_version" ("" is the newest). An unknown generation name is isa's error.
func (k *Kernel) TargetOptions(gen, nkiVersion string) (Options, error) {
	o := Options{Gen: isa.DefaultGeneration, NKIVersion: k.NKIVersion}
	if gen == "" {
		gen = k.Gen
	}
	if gen != "" {
		g, err := isa.ParseGeneration(gen)
		if err != nil {
			return Options{}, err
		}
		o.Gen = g
	}
	if nkiVersion != "" {
		o.NKIVersion = nkiVersion
	}
	return o, nil
}
