package konnect

// ref is Konnect's {"id": "…"} reference from one entity to another. This
// package's entity types flatten references into ID fields (Route.ServiceID
// and the like) and marshal them back through ref.
type ref struct {
	ID string `json:"id"`
}

// refTo is nil for an empty id, so that no reference is sent.
func refTo(id string) *ref {
	if id == "" {
		return nil
	}
	return &ref{ID: id}
}

func (r *ref) id() string {
	if r == nil {
		return ""
	}
	return r.ID
}
