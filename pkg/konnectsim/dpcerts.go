package konnectsim

import (
	"crypto/x509"
	"encoding/pem"
	"net/http"
	"slices"

	"github.com/google/uuid"
)

// Data-plane client certificates pinned to a control plane. They live on
// Konnect's older control-plane API: {item}/{items} envelopes and bare
// {"message"} errors.

func (rc *reqCtx) legacyControlPlane() (*controlPlane, bool) {
	cp := rc.org.cps[rc.r.PathValue("controlPlaneId")]
	if cp == nil {
		rc.notFound("control plane")
		return nil, false
	}
	return cp, true
}

// dpCertBody reads and checks {cert, title}.
func (rc *reqCtx) dpCertBody() (map[string]any, bool) {
	body, ok := rc.decodeBody()
	if !ok {
		return nil, false
	}
	cert, _ := body["cert"].(string)
	block, _ := pem.Decode([]byte(cert))
	if block == nil {
		rc.validationFailed([]fieldError{errField("cert", "failed to decode PEM certificate")})
		return nil, false
	}
	if _, err := x509.ParseCertificate(block.Bytes); err != nil {
		rc.validationFailed([]fieldError{errField("cert", "invalid certificate: %v", err)})
		return nil, false
	}
	if t, present := body["title"]; present {
		if _, isString := t.(string); !isString {
			rc.validationFailed([]fieldError{errField("title", "must be a string")})
			return nil, false
		}
	}
	return body, true
}

func (s *Server) createDPCert(rc *reqCtx) {
	body, ok := rc.dpCertBody()
	if !ok {
		return
	}
	s.store.mu.Lock()
	defer s.store.mu.Unlock()
	cp, ok := rc.legacyControlPlane()
	if !ok {
		return
	}
	now := float64(s.clock.Now().Unix())
	cert := entity{"id": uuid.NewString(), "cert": body["cert"], "created_at": now, "updated_at": now}
	if t, ok := body["title"]; ok {
		cert["title"] = t
	}
	cp.dpCerts[cert["id"].(string)] = cert
	cp.dpCertOrder = append(cp.dpCertOrder, cert["id"].(string))
	rc.writeJSON(http.StatusCreated, contentJSON, map[string]any{"item": cloneEntity(cert)})
}

func (s *Server) updateDPCert(rc *reqCtx) {
	body, ok := rc.dpCertBody()
	if !ok {
		return
	}
	s.store.mu.Lock()
	defer s.store.mu.Unlock()
	cp, ok := rc.legacyControlPlane()
	if !ok {
		return
	}
	old := cp.dpCerts[rc.r.PathValue("certificateId")]
	if old == nil {
		rc.notFound("certificate")
		return
	}
	cert := cloneEntity(old)
	cert["cert"] = body["cert"]
	if t, ok := body["title"]; ok {
		cert["title"] = t
	}
	cert["updated_at"] = float64(s.clock.Now().Unix())
	cp.dpCerts[cert["id"].(string)] = cert
	rc.writeJSON(http.StatusOK, contentJSON, map[string]any{"item": cloneEntity(cert)})
}

func (s *Server) getDPCert(rc *reqCtx) {
	s.store.mu.RLock()
	defer s.store.mu.RUnlock()
	cp, ok := rc.legacyControlPlane()
	if !ok {
		return
	}
	cert := cp.dpCerts[rc.r.PathValue("certificateId")]
	if cert == nil {
		rc.notFound("certificate")
		return
	}
	rc.writeJSON(http.StatusOK, contentJSON, map[string]any{"item": cloneEntity(cert)})
}

func (s *Server) deleteDPCert(rc *reqCtx) {
	s.store.mu.Lock()
	defer s.store.mu.Unlock()
	cp, ok := rc.legacyControlPlane()
	if !ok {
		return
	}
	id := rc.r.PathValue("certificateId")
	if cp.dpCerts[id] == nil {
		rc.notFound("certificate")
		return
	}
	delete(cp.dpCerts, id)
	cp.dpCertOrder = slices.DeleteFunc(cp.dpCertOrder, func(x string) bool { return x == id })
	rc.noContent()
}

func (s *Server) listDPCerts(rc *reqCtx) {
	s.store.mu.RLock()
	defer s.store.mu.RUnlock()
	cp, ok := rc.legacyControlPlane()
	if !ok {
		return
	}
	items := make([]any, 0, len(cp.dpCertOrder))
	for _, id := range cp.dpCertOrder {
		items = append(items, cloneEntity(cp.dpCerts[id]))
	}
	rc.writeJSON(http.StatusOK, contentJSON, map[string]any{"items": items, "page": map[string]any{"total_count": len(items)}})
}
