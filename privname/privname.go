package privname

// The private command names. hpatch-write is the write half of a
// workspace hpatch edit: the router's carrier runs it, and the model is
// not told about it; the model calls the others.
const (
	Hread       = "hread"
	Hgrep       = "hgrep"
	Hsymbol     = "hsymbol"
	InspectFile = "inspect_file"
	HpatchWrite = "hpatch-write"
)

// Is reports whether name is one of the private command names.
func Is(name string) bool {
	switch name {
	case Hread, Hgrep, Hsymbol, InspectFile, HpatchWrite:
		return true
	}
	return false
}
