package konnectsim

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"
)

// ParseTokenSpec reads a token as given on a command line: "TOKEN" (an
// organisation of its own) or "TOKEN=ORG" (tokens naming the same ORG share
// it; ORG is an id when it is a UUID, else a name). The organisation of a
// bare token is named after a hash of it, never the token itself.
func ParseTokenSpec(spec string) (token, org string, err error) {
	token, org, _ = strings.Cut(strings.TrimSpace(spec), "=")
	token, org = strings.TrimSpace(token), strings.TrimSpace(org)
	if token == "" || strings.ContainsAny(token, " \t") {
		return "", "", fmt.Errorf("token spec must be TOKEN or TOKEN=ORG")
	}
	if org == "" {
		sum := sha256.Sum256([]byte(token))
		org = "org-" + hex.EncodeToString(sum[:6])
	}
	return token, org, nil
}

// ParseFaultSpec reads "OPERATION=SETTINGS", where OPERATION is an
// operationId ("create-service"), "METHOD /template", or "*", and SETTINGS
// is a comma-separated list of rate:0.2, status:503, latency:200ms, hang,
// hangfor:5s, after (apply, then fail) and times:3.
func ParseFaultSpec(spec string) (operation string, f Fault, err error) {
	operation, settings, found := strings.Cut(spec, "=")
	operation = strings.TrimSpace(operation)
	if !found || operation == "" {
		return "", f, fmt.Errorf("fault spec %q: want OPERATION=SETTINGS", spec)
	}
	for _, item := range strings.Split(settings, ",") {
		key, value, _ := strings.Cut(strings.TrimSpace(item), ":")
		switch key {
		case "":
		case "rate":
			f.ErrorRate, err = strconv.ParseFloat(value, 64)
			if err == nil && (f.ErrorRate < 0 || f.ErrorRate > 1) {
				err = fmt.Errorf("rate must be within 0..1")
			}
		case "status":
			f.Status, err = strconv.Atoi(value)
			if err == nil && (f.Status < 400 || f.Status > 599) {
				err = fmt.Errorf("status must be 4xx or 5xx")
			}
		case "latency":
			f.Latency, err = time.ParseDuration(value)
		case "hang":
			f.Hang = true
		case "hangfor":
			f.Hang = true
			f.HangFor, err = time.ParseDuration(value)
		case "after":
			f.AfterEffect = true
		case "times":
			f.Times, err = strconv.Atoi(value)
		default:
			err = fmt.Errorf("unknown setting %q", key)
		}
		if err != nil {
			return "", Fault{}, fmt.Errorf("fault spec %q: %w", spec, err)
		}
	}
	if f.Status == 0 && (f.ErrorRate > 0 || f.Times > 0) {
		f.Status = http.StatusInternalServerError
	}
	if f.Hang && f.ErrorRate == 0 && f.Times == 0 {
		f.ErrorRate = 1
	}
	return operation, f, nil
}

// ParseProviderAccountSpec reads a provider account as given on a command
// line: "PROVIDER=ID" or "PROVIDER=ID=CLOUD_ACCOUNT_ID", PROVIDER being
// aws, azure or gcp.
func ParseProviderAccountSpec(spec string) (ProviderAccount, error) {
	parts := strings.Split(strings.TrimSpace(spec), "=")
	if len(parts) < 2 || len(parts) > 3 || parts[1] == "" || !slices.Contains(cloudProviders, parts[0]) {
		return ProviderAccount{}, fmt.Errorf("provider account spec %q: want PROVIDER=ID[=CLOUD_ACCOUNT_ID] with PROVIDER aws, azure or gcp", spec)
	}
	a := ProviderAccount{Provider: parts[0], ID: parts[1], CloudAccountID: parts[1]}
	if len(parts) == 3 && parts[2] != "" {
		a.CloudAccountID = parts[2]
	}
	return a, nil
}
