package entities

// diff collects the names of the fields in which two entities differ.
type diff []string

func (d *diff) check(field string, equal bool) {
	if !equal {
		*d = append(*d, field)
	}
}

func orDefault[T comparable](v, def T) T {
	var zero T
	if v == zero {
		return def
	}
	return v
}
