package fence

import (
	"fmt"
	"net/http"
)

// WrapTransport refuses, once the Lease is not held with margin, every
// request of rt that writes to the API server (anything but GET, HEAD and
// OPTIONS: status writes, finalizer patches, creates, deletes), with the
// error Check gave; reads go on. It is a rest.Config's WrapTransport.
func (l *Lease) WrapTransport(rt http.RoundTripper) http.RoundTripper {
	return roundTripper(func(req *http.Request) (*http.Response, error) {
		switch req.Method {
		case http.MethodGet, http.MethodHead, http.MethodOptions:
		default:
			if err := l.Check(); err != nil {
				return nil, fmt.Errorf("%s %s not sent: %w", req.Method, req.URL.Path, err)
			}
		}
		return rt.RoundTrip(req)
	})
}

type roundTripper func(*http.Request) (*http.Response, error)

func (f roundTripper) RoundTrip(req *http.Request) (*http.Response, error) { return f(req) }
