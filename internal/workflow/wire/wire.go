// Package wire holds the types of the tools' structured results: the public
// shape an MCP client reads, apart from the domain types it is made from.
// A domain package may rename or reshape its types freely; the result a
// client sees changes only when a type here does, and docs/TOOLS.md (its
// "result field" tables, checked by a test) changes with it.
//
// Each type has an Of function converting from the domain, nil or empty in,
// nil or empty out, so optional records stay omitted.
package wire

// list converts every element of xs, nil for none.
func list[T, U any](xs []T, conv func(T) U) []U {
	if len(xs) == 0 {
		return nil
	}
	out := make([]U, len(xs))
	for i, x := range xs {
		out[i] = conv(x)
	}
	return out
}

// ptr converts *x, nil for nil.
func ptr[T, U any](x *T, conv func(T) U) *U {
	if x == nil {
		return nil
	}
	u := conv(*x)
	return &u
}
