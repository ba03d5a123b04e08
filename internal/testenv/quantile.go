package testenv

import "slices"

// Quantile is the q-quantile (0 ≤ q ≤ 1) of v by the nearest rank, for
// the tables benchmarks print: Quantile(v, 0.5) is the median. It is 0 for
// an empty v and leaves v unchanged.
func Quantile(v []float64, q float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := slices.Clone(v)
	slices.Sort(s)
	return s[int(q*float64(len(s)-1)+0.5)]
}

// Paired is the ratio num[i]/den[i] of each pair of measurements taken in
// the same iteration of an interleaved benchmark, so its quantiles show
// the spread a shared machine load leaves. num and den have one value per
// iteration.
func Paired(num, den []float64) []float64 {
	r := make([]float64, len(num))
	for i := range r {
		r[i] = num[i] / den[i]
	}
	return r
}
