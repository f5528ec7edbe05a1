package konnect

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
)

// pager answers the pages of a list: each call returns the page at the
// offset asked for and records what it was asked.
type pager struct {
	pages map[string]struct {
		items []string
		next  *string
	}
	asked []Page
}

func (p *pager) fetch(_ context.Context, page Page) ([]string, *string, error) {
	p.asked = append(p.asked, page)
	offset := ""
	if page.Offset != nil {
		offset = *page.Offset
	}
	got, ok := p.pages[offset]
	if !ok {
		return nil, nil, errors.New("unknown offset " + offset)
	}
	return got.items, got.next, nil
}

func offset(s string) *string { return &s }

func TestListAllFollowsEveryPage(t *testing.T) {
	p := &pager{pages: map[string]struct {
		items []string
		next  *string
	}{
		"":   {[]string{"a", "b"}, offset("o1")},
		"o1": {[]string{"c"}, offset("o2")},
		"o2": {[]string{"d"}, nil},
	}}
	got, err := ListAll(context.Background(), Operation{Verb: "list", Entity: "service", Core: true}, []string{"k8s-kind:KongService", "managed-by:konnect-operator"}, p.fetch)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, []string{"a", "b", "c", "d"}) {
		t.Fatalf("listed %v, want a..d across three pages", got)
	}
	for i, page := range p.asked {
		if page.Size != PageSize || page.Tags == nil || *page.Tags != "k8s-kind:KongService,managed-by:konnect-operator" {
			t.Errorf("page %d asked size %d tags %v, want %d and both tags joined with ,", i, page.Size, page.Tags, PageSize)
		}
	}
}

func TestListAllRefusesARepeatedOffset(t *testing.T) {
	p := &pager{pages: map[string]struct {
		items []string
		next  *string
	}{
		"":     {[]string{"a"}, offset("same")},
		"same": {[]string{"b"}, offset("same")},
	}}
	_, err := ListAll(context.Background(), Operation{Verb: "list", Entity: "service"}, nil, p.fetch)
	var fault *ServerFaultError
	if !errors.As(err, &fault) || fault.Fault != FaultRepeatedPage || !strings.Contains(err.Error(), `"same"`) {
		t.Fatalf("a looping offset: %v, want a refused answer naming the repeated offset", err)
	}
	if len(p.asked) != 2 {
		t.Fatalf("%d pages asked, want 2 (stop at the first repeat)", len(p.asked))
	}
}

func TestListAllRefusesTagsKonnectCannotFilterOn(t *testing.T) {
	p := &pager{}
	for _, tag := range []string{"a,b", "a/b"} {
		if _, err := ListAll(context.Background(), Operation{Verb: "list", Entity: "service"}, []string{tag}, p.fetch); !IsInvalidInput(err) {
			t.Errorf("tag %q: %v, want invalid input", tag, err)
		}
	}
	if len(p.asked) != 0 {
		t.Fatalf("%d requests sent, want none", len(p.asked))
	}
}

// A page is split as encoding/json reads it; what is not compact is left
// to encoding/json.
func TestSplitPageReadsAsADecoderWould(t *testing.T) {
	for _, body := range []string{
		`{"data":[{"id":"a","tags":["x,y"]},{"id":"b","n":{"k":[1,2]}}],"offset":"next"}`,
		`{"data":[],"offset":null}`,
		`{"offset":"o","data":[{"id":"c"}]}`,
		`{"data":[{"id":"d"}]}`,
	} {
		got, ok := splitPage([]byte(body))
		if !ok {
			t.Errorf("%s was not split", body)
			continue
		}
		var want RawPage
		if err := json.Unmarshal([]byte(body), &want); err != nil {
			t.Fatal(err)
		}
		if len(want.Data) == 0 {
			want.Data = nil
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s split into %+v, want %+v", body, got, want)
		}
	}
	for _, body := range []string{
		"{\n  \"data\": [{\"id\":\"a\"}]\n}",
		`{"data":[{"id":"a"}],"offset":"a\"b"}`,
		`{"data":[{"id":"a"}],"offset":3}`,
		`{"offset":"o"}`,
		`{"data":[{"id":"a"},]}`,
	} {
		if _, ok := splitPage([]byte(body)); ok {
			t.Errorf("%s was split; it is for encoding/json", body)
		}
	}
}
