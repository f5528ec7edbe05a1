package konnect

import (
	"net/http"
)

// WriteRefusedError is a write to Konnect that was not sent because
// Options.WriteFence refused it: the process may no longer hold its
// leader-election Lease, and another may be writing in its place.
type WriteRefusedError struct {
	Operation string
	Err       error
}

func (e *WriteRefusedError) Error() string {
	if e.Operation == "" {
		return "write not sent: " + e.Err.Error()
	}
	return e.Operation + ": write not sent: " + e.Err.Error()
}

func (e *WriteRefusedError) Unwrap() error { return e.Err }

// fenced asks the write fence whether req, if it writes, may be sent.
func (d *doer) fenced(req *http.Request) error {
	if d.writeFence == nil || !writes(req.Method) {
		return nil
	}
	if err := d.writeFence(); err != nil {
		return &WriteRefusedError{Err: err}
	}
	return nil
}

// writes reports whether a request of this method changes what Konnect
// holds.
func writes(method string) bool {
	switch method {
	case http.MethodGet, http.MethodHead, http.MethodOptions:
		return false
	}
	return true
}
