package inspect

import (
	"strconv"
	"strings"
	"testing"
)

func TestResidentPages(t *testing.T) {
	tests := []struct {
		line string
		want int64
	}{
		{"2730 1402 874 1193 0 1093 0\n", 1402},
		{"12 0 0 1 0 5 0\n", 0},
		{"100 99999999", 99999999},
		{"", 0},
		{"2730", 0},
		{"2730 x12", 0},
	}
	for _, tc := range tests {
		if got := residentPages([]byte(tc.line)); got != tc.want {
			t.Errorf("residentPages(%q) = %d, want %d", tc.line, got, tc.want)
		}
	}
}

// FuzzResidentPages: residentPages reads what strconv reads from the
// second field of any statm-shaped line, and never panics on others.
func FuzzResidentPages(f *testing.F) {
	f.Add("2730 1402 874 1193 0 1093 0\n")
	f.Add("1 2")
	f.Fuzz(func(t *testing.T, line string) {
		got := residentPages([]byte(line))
		fields := strings.Split(line, " ")
		if len(fields) < 2 {
			if got != 0 {
				t.Fatalf("%q: %d without a second field", line, got)
			}
			return
		}
		digits := strings.TrimRight(fields[1], "\n")
		if want, err := strconv.ParseInt(digits, 10, 64); err == nil && len(digits) < 18 && digits[0] != '+' && digits[0] != '-' && got != want {
			t.Fatalf("%q: %d, strconv reads %d", line, got, want)
		}
	})
}
