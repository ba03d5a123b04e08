package testenv

import "testing"

func TestQuantile(t *testing.T) {
	v := []float64{9, 1, 5, 3, 7}
	for _, tc := range []struct {
		v    []float64
		q    float64
		want float64
	}{
		{v, 0.5, 5},
		{v, 0, 1},
		{v, 1, 9},
		{v, 0.25, 3},
		{v, 0.75, 7},
		{[]float64{4, 2}, 0.5, 4}, // nearest rank rounds half up
		{nil, 0.5, 0},
	} {
		if got := Quantile(tc.v, tc.q); got != tc.want {
			t.Errorf("Quantile(%v, %v) = %v, want %v", tc.v, tc.q, got, tc.want)
		}
	}
	if v[0] != 9 || v[4] != 7 {
		t.Errorf("Quantile sorted its argument: %v", v)
	}
}

func TestPaired(t *testing.T) {
	got := Paired([]float64{2, 9, 5}, []float64{1, 3, 10})
	want := []float64{2, 3, 0.5}
	if len(got) != len(want) {
		t.Fatalf("Paired gave %d ratios, want %d", len(got), len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("Paired()[%d] = %v, want %v", i, got[i], want[i])
		}
	}
}
