package konnectsim

import (
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"
	"strings"
)

// Core-entity lists page with an opaque cursor, as Konnect does.
const (
	defaultPageSize = 100
	maxPageSize     = 1000
)

// parseListQuery reads size, offset, tags and the name filters of a
// core-entity list. A failure has already been answered.
func (rc *reqCtx) parseListQuery() (listQuery, bool) {
	q := rc.r.URL.Query()
	lq := listQuery{size: defaultPageSize}
	if raw := q.Get("size"); raw != "" {
		n, err := strconv.Atoi(raw)
		if err != nil || n < 1 || n > maxPageSize {
			rc.validationFailed([]fieldError{errField("size", "size must be an integer between 1 and %d", maxPageSize)})
			return lq, false
		}
		lq.size = n
	}
	if raw := q.Get("offset"); raw != "" {
		after, ok := decodeOffset(raw)
		if !ok {
			rc.validationFailed([]fieldError{errField("offset", "invalid offset")})
			return lq, false
		}
		lq.after = after
	}
	if raw := q.Get("tags"); raw != "" {
		hasAnd, hasOr := strings.Contains(raw, ","), strings.Contains(raw, "/")
		switch {
		case hasAnd && hasOr:
			rc.validationFailed([]fieldError{errField("tags", "invalid option (tags: cannot mix 'or' and 'and')")})
			return lq, false
		case hasOr:
			lq.anyTags = strings.Split(raw, "/")
		default:
			lq.allTags = strings.Split(raw, ",")
		}
	}
	lq.nameEq = q.Get("filter[name][eq]")
	lq.nameContains = q.Get("filter[name][contains]")
	lq.customID = q.Get("custom_id")
	return lq, true
}

func encodeOffset(lastID string) string {
	b, _ := json.Marshal([]string{lastID})
	return base64.RawURLEncoding.EncodeToString(b)
}

func decodeOffset(raw string) (string, bool) {
	b, err := base64.RawURLEncoding.DecodeString(raw)
	if err != nil {
		return "", false
	}
	var parts []string
	if err := json.Unmarshal(b, &parts); err != nil || len(parts) != 1 {
		return "", false
	}
	return parts[0], true
}

// writePage answers a core-entity list: {data, next, offset}. next and
// offset are left out on the last page (the document does not let them be null).
func (rc *reqCtx) writePage(items []entity, more bool, render func(entity) entity) {
	data := make([]any, 0, len(items))
	for _, e := range items {
		data = append(data, render(e))
	}
	body := map[string]any{"data": data}
	if more && len(items) > 0 {
		offset := encodeOffset(items[len(items)-1]["id"].(string))
		q := url.Values{}
		for k, v := range rc.r.URL.Query() {
			if k != "offset" {
				q[k] = v
			}
		}
		q.Set("offset", offset)
		body["offset"] = offset
		body["next"] = rc.r.URL.Path + "?" + q.Encode()
	}
	rc.writeJSON(http.StatusOK, contentJSON, body)
}
