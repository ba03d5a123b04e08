package registrytest

import "testing"

// TwoTools loads without problems into a set of its two tools, and an
// empty file into an empty set.
func TestLoadTwoTools(t *testing.T) {
	set := Load(t, TwoTools)
	if set.Len() != 2 || set.Lookup("sql") == nil || set.Lookup("py") == nil {
		t.Fatalf("TwoTools loaded %d tools (sql %v, py %v)", set.Len(), set.Lookup("sql"), set.Lookup("py"))
	}
	if empty := Load(t, ""); empty.Len() != 0 {
		t.Fatalf("an empty file loaded %d tools", empty.Len())
	}
}
