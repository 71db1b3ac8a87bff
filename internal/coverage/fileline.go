package coverage

import (
	"encoding/json"
	"strconv"
)

// appendFileLine appends f as encoding/json would marshal it (the same
// bytes, field order and omissions) and a newline: a stored report's file
// line. encoding/json calls Range's MarshalJSON for every range and checks
// what it returns, which made writing a report most of a small coverage
// call's own time; this writes the numbers straight.
func appendFileLine(b []byte, f *File) []byte {
	b = append(b, `{"path":`...)
	b = appendJSONString(b, f.Path)
	b = append(b, `,"kind":`...)
	b = appendJSONString(b, string(f.Kind))
	b = appendIntField(b, `,"lines":`, f.Lines)
	b = appendIntField(b, `,"covered":`, f.Covered)
	if f.Statements != 0 {
		b = appendIntField(b, `,"statements":`, f.Statements)
	}
	if f.CoveredStatements != 0 {
		b = appendIntField(b, `,"covered_statements":`, f.CoveredStatements)
	}
	if len(f.Uncovered) > 0 {
		b = appendRanges(append(b, `,"uncovered":`...), f.Uncovered)
	}
	if len(f.CoveredRanges) > 0 {
		b = appendRanges(append(b, `,"covered_ranges":`...), f.CoveredRanges)
	}
	if len(f.Funcs) > 0 {
		b = append(b, `,"funcs":[`...)
		for i, fn := range f.Funcs {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"name":`...)
			b = appendJSONString(b, fn.Name)
			b = appendIntField(b, `,"from":`, fn.From)
			b = appendIntField(b, `,"to":`, fn.To)
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	if len(f.NoCode) > 0 {
		b = appendRanges(append(b, `,"no_code":`...), f.NoCode)
	}
	return append(b, "}\n"...)
}

func appendIntField(b []byte, key string, n int) []byte {
	return strconv.AppendInt(append(b, key...), int64(n), 10)
}

func appendRanges(b []byte, rs []Range) []byte {
	b = append(b, '[')
	for i, r := range rs {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendInt(append(b, '['), int64(r.From), 10)
		b = strconv.AppendInt(append(b, ','), int64(r.To), 10)
		b = append(b, ']')
	}
	return append(b, ']')
}

// appendJSONString appends s quoted. A string of plain printable ASCII is
// written as is; any other is left to encoding/json, so that its escapes
// (HTML-safe, invalid UTF-8 replaced) are the same.
func appendJSONString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x20 || c >= 0x7f || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			q, _ := json.Marshal(s) // a string always encodes
			return append(b, q...)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}
