package jsonline

import "testing"

func TestString(t *testing.T) {
	for in, want := range map[string]string{
		"":            `""`,
		"a.go":        `"a.go"`,
		"<a & b>":     `"<a & b>"`,
		"line\nbreak": `"line\nbreak"`,
		`quote " \ `:  `"quote \" \\ "`,
		"bad \xff":    `"bad \ufffd"`,
		"tab\there":   `"tab\there"`,
	} {
		if got := String(in); got != want {
			t.Errorf("String(%q) = %s, want %s", in, got, want)
		}
	}
}

func TestMarshal(t *testing.T) {
	got, err := Marshal(struct {
		A string `json:"a"`
		B []int  `json:"b"`
	}{"x<y", []int{1, 2}})
	if err != nil || string(got) != `{"a":"x<y","b":[1,2]}` {
		t.Fatalf("%s %v", got, err)
	}
	if _, err := Marshal(func() {}); err == nil {
		t.Fatal("a func encoded")
	}
}
