package benchreport

import (
	"fmt"
	"math"
	"strings"
)

// Figure is one row of the report: a metric of a benchmark, the baseline
// measured beside it in the same run, and the target the checked metric is
// judged on.
type Figure struct {
	Title string
	Key   string // Key(pkg, benchmark)
	// Value is the metric shown as measured, in Unit.
	Value, Unit string
	// Base is the metric of the baseline measured in the same run ("" for
	// none), described by BaseLabel.
	Base, BaseLabel string
	// Check is the metric the target applies to (Value when ""), in
	// CheckUnit (Unit when "").
	Check, CheckUnit string
	// Op is "<=" or ">=" ("" for a figure without target) and Limit its bound.
	Op    string
	Limit float64
	// Scale multiplies every sample (0 means 1), for units: 1e-6 for ns to ms.
	Scale float64
	// Or is an alternative target: meeting either is meeting the figure's.
	Or *Target
}

// Target is an alternative bound on another metric of the same benchmark.
type Target struct {
	Check, Unit string
	Op          string
	Limit       float64
}

// samples returns the figure's samples of metric in m, scaled.
func (f Figure) samples(m map[string][]float64, metric string) []float64 {
	if f.Scale == 0 || metric == "" {
		return m[metric]
	}
	out := make([]float64, len(m[metric]))
	for i, v := range m[metric] {
		out[i] = v * f.Scale
	}
	return out
}

// Verdict is how a figure fared.
type Verdict int

const (
	NoTarget    Verdict = iota // informational figure
	NotMeasured                // its benchmark did not run
	Met
	Missed     // worse than the target
	Regression // worse than twice the target: `make bench-quick` fails
)

// Row is a figure with its measurements.
type Row struct {
	Figure
	Value, Base, Check Stat
	HasBase            bool
	Ratio              Stat // Value/Base per run
	Or                 Stat // the alternative target's metric
	Verdict            Verdict
	Why                string // why it was not measured
}

func (f Figure) checkMetric() string {
	if f.Check != "" {
		return f.Check
	}
	return f.Value
}

// Evaluate measures every figure against the results; skips explain the
// figures that were not measured.
func Evaluate(figs []Figure, res Results, skips map[string]string) []Row {
	rows := make([]Row, 0, len(figs))
	for _, f := range figs {
		row := Row{Figure: f}
		m := res[f.Key]
		values, bases := f.samples(m, f.Value), f.samples(m, f.Base)
		v, ok := Summarize(values)
		c, okc := Summarize(f.samples(m, f.checkMetric()))
		if !ok || !okc {
			row.Verdict = NotMeasured
			row.Why = skips[f.Key]
			if row.Why == "" {
				row.Why = "no result (see the run log)"
			}
			rows = append(rows, row)
			continue
		}
		row.Value, row.Check = v, c
		if f.Base != "" {
			if b, ok := Summarize(bases); ok {
				row.Base, row.HasBase = b, true
				var ratios []float64
				for i, x := range values {
					if i < len(bases) && bases[i] != 0 {
						ratios = append(ratios, x/bases[i])
					}
				}
				row.Ratio, _ = Summarize(ratios)
			}
		}
		row.Verdict = judge(f.Op, f.Limit, c.Median)
		if f.Or != nil {
			if o, ok := Summarize(f.samples(m, f.Or.Check)); ok {
				row.Or = o
				// The better of the two verdicts counts.
				row.Verdict = min(row.Verdict, judge(f.Or.Op, f.Or.Limit, o.Median))
			}
		}
		rows = append(rows, row)
	}
	return rows
}

// judge compares a median with its target. Twice the target is the bound
// of a regression: 2×Limit for "<=", Limit/2 for ">=" (and any value above
// a zero "<=" limit).
func judge(op string, limit, v float64) Verdict {
	switch op {
	case "<=":
		switch {
		case v <= limit:
			return Met
		case v > 2*limit:
			return Regression
		}
		return Missed
	case ">=":
		switch {
		case v >= limit:
			return Met
		case v < limit/2:
			return Regression
		}
		return Missed
	}
	return NoTarget
}

// TargetText renders the target ("≤ 3 ms").
func (f Figure) TargetText() string {
	if f.Op == "" {
		return "—"
	}
	op := "≤"
	if f.Op == ">=" {
		op = "≥"
	}
	unit := f.CheckUnit
	if unit == "" {
		unit = f.Unit
	}
	what := ""
	if f.Check != "" && f.Check != f.Value && !strings.HasPrefix(f.Check, "ratio") {
		what, _, _ = strings.Cut(f.Check, "-") // "overhead-ms": "overhead"
		what += " "
	}
	text := fmt.Sprintf("%s%s %s", what, op, withUnit(f.Limit, unit))
	if f.Or != nil {
		text += " or " + Figure{Value: f.Value, Check: f.Or.Check, CheckUnit: f.Or.Unit, Op: f.Or.Op, Limit: f.Or.Limit}.TargetText()
	}
	return text
}

// withUnit formats v with unit: "3 ms", "2×", "+10 %".
func withUnit(v float64, unit string) string {
	s := num(v)
	switch unit {
	case "×", "%":
		return s + unit
	case "":
		return s
	}
	return s + " " + unit
}

// num formats v with three significant digits at most, grouping thousands.
func num(v float64) string {
	a := math.Abs(v)
	var s string
	switch {
	case a == math.Trunc(a) && a < 1e15:
		s = fmt.Sprintf("%.0f", a)
	case a >= 100:
		s = fmt.Sprintf("%.0f", a)
	case a >= 10:
		s = fmt.Sprintf("%.1f", a)
	case a >= 1:
		s = fmt.Sprintf("%.2f", a)
	default:
		s = fmt.Sprintf("%.3f", a)
	}
	if len(s) > 3 && !strings.Contains(s, ".") {
		var g []byte
		for i, c := range []byte(s) {
			if i > 0 && (len(s)-i)%3 == 0 {
				g = append(g, ',')
			}
			g = append(g, c)
		}
		s = string(g)
	}
	if v < 0 {
		s = "−" + s
	}
	return s
}
