package entities

import (
	"fmt"
	"math"
	"reflect"
	"strings"

	"k8s.io/apimachinery/pkg/util/intstr"

	configurationv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/configuration/v1alpha1"
	konnectv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/konnect/v1alpha1"
	"github.com/konnect-operator/konnect-operator/pkg/controller"
)

// Reading an Event Gateway entity back into its kind's apiSpec is the
// inverse of egEncoder, by the same rule: Konnect's field names are Kong
// Operator's in snake_case, its booleans the switches, and a union's type
// names the member whose fields it holds (or whose list or string it is).
// Konnect's answers carry more than a spec says (IDs, timestamps, counts,
// a virtual cluster's destination): what has no field is left out, and so
// are the operator's identity labels. Values Konnect never answers stay
// unset: the caller decides what stands in for them.

// EventGatewaySchemaRegistryNames returns the name of the object of the
// schema registry that a consume policy names as Konnect writes it ({id}
// or {name}), or an error when it has none.
type EventGatewaySchemaRegistryNames func(ref map[string]any) (string, error)

// DecodeEventGatewaySpec reads body, an Event Gateway entity as Konnect's
// API writes it, into spec, a pointer to the apiSpec of its kind, so that
// the body the kind writes from spec is what Konnect holds. registries
// resolves a consume policy's schema registry (nil for other kinds).
func DecodeEventGatewaySpec(body map[string]any, spec any, registries EventGatewaySchemaRegistryNames) error {
	v := reflect.ValueOf(spec)
	if v.Kind() != reflect.Pointer || v.Elem().Kind() != reflect.Struct {
		return fmt.Errorf("%T is not a pointer to an apiSpec", spec)
	}
	return egDecoder{registries: registries}.object(v.Elem(), body, "")
}

// egDecoder reads Konnect's JSON values into an apiSpec.
type egDecoder struct {
	registries EventGatewaySchemaRegistryNames
}

// value reads j into v, a settable value, at path (for errors).
func (d egDecoder) value(v reflect.Value, j any, path string) error {
	if j == nil {
		return nil
	}
	if v.Kind() == reflect.Pointer {
		target := reflect.New(v.Type().Elem())
		if err := d.value(target.Elem(), j, path); err != nil {
			return err
		}
		v.Set(target)
		return nil
	}
	switch v.Addr().Interface().(type) {
	case *konnectv1alpha1.Toggle:
		b, ok := j.(bool)
		if !ok {
			return mismatch(path, "a boolean", j)
		}
		v.Set(reflect.ValueOf(konnectv1alpha1.Disabled))
		if b {
			v.Set(reflect.ValueOf(konnectv1alpha1.Enabled))
		}
		return nil
	case *intstr.IntOrString:
		switch x := j.(type) {
		case string:
			v.Set(reflect.ValueOf(intstr.FromString(x)))
			return nil
		case float64:
			n, err := whole(x, path)
			v.Set(reflect.ValueOf(intstr.FromInt(int(n))))
			return err
		}
		return mismatch(path, "a number or a string", j)
	case *configurationv1alpha1.SensitiveDataSource:
		s, ok := j.(string)
		if !ok {
			return mismatch(path, "a string", j)
		}
		v.Set(reflect.ValueOf(configurationv1alpha1.SensitiveDataSource{Type: configurationv1alpha1.SensitiveDataInline, Value: &s}))
		return nil
	case *configurationv1alpha1.EventGatewaySchemaRegistryRef:
		ref, ok := j.(map[string]any)
		if !ok || d.registries == nil {
			return mismatch(path, "a schema registry this kind can name", j)
		}
		name, err := d.registries(ref)
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		v.Set(reflect.ValueOf(configurationv1alpha1.EventGatewaySchemaRegistryRef{Name: name}))
		return nil
	case *configurationv1alpha1.EventGatewaySchemaRegistryByIDOrName:
		ref, _ := j.(map[string]any)
		out := configurationv1alpha1.EventGatewaySchemaRegistryByIDOrName{}
		if id, ok := ref["id"].(string); ok {
			out.Type, out.ID = "id", &configurationv1alpha1.EventGatewayKonnectID{ID: id}
		} else if name, ok := ref["name"].(string); ok {
			out.Type, out.Name = "name", &configurationv1alpha1.EventGatewayEntityName{Name: name}
		} else {
			return mismatch(path, "a schema registry's id or name", j)
		}
		v.Set(reflect.ValueOf(out))
		return nil
	}
	switch v.Kind() {
	case reflect.Struct:
		if object, ok := j.(map[string]any); ok {
			return d.object(v, object, path)
		}
		return d.unionItself(v, j, path)
	case reflect.Slice:
		items, ok := j.([]any)
		if !ok {
			return mismatch(path, "a list", j)
		}
		out := reflect.MakeSlice(v.Type(), len(items), len(items))
		for i, item := range items {
			if err := d.value(out.Index(i), item, fmt.Sprintf("%s[%d]", path, i)); err != nil {
				return err
			}
		}
		v.Set(out)
		return nil
	case reflect.Map:
		object, ok := j.(map[string]any)
		if !ok {
			return mismatch(path, "an object", j)
		}
		out := reflect.MakeMapWithSize(v.Type(), len(object))
		for key, item := range object {
			if strings.HasSuffix(path, "labels") && controller.IsIdentityTag(key) {
				continue // the operator writes its own
			}
			value := reflect.New(v.Type().Elem()).Elem()
			if err := d.value(value, item, path+"."+key); err != nil {
				return err
			}
			out.SetMapIndex(reflect.ValueOf(key).Convert(v.Type().Key()), value)
		}
		if out.Len() > 0 {
			// Konnect answers {} for none: a spec without any says the same.
			v.Set(out)
		}
		return nil
	case reflect.String:
		s, ok := j.(string)
		if !ok {
			return mismatch(path, "a string", j)
		}
		v.SetString(s)
		return nil
	case reflect.Int, reflect.Int32, reflect.Int64:
		f, ok := j.(float64)
		if !ok {
			return mismatch(path, "a number", j)
		}
		n, err := whole(f, path)
		v.SetInt(n)
		return err
	case reflect.Bool:
		b, ok := j.(bool)
		if !ok {
			return mismatch(path, "a boolean", j)
		}
		v.SetBool(b)
		return nil
	}
	return fmt.Errorf("%s: a %s cannot be read from Konnect", path, v.Type())
}

// egField is a field of a struct as Konnect names it, embedded structs'
// fields included.
type egField struct {
	index []int
	// json is Kong Operator's name, konnect Konnect's.
	json, konnect string
}

// fieldsOf lists the fields of t by Konnect's names.
func fieldsOf(t reflect.Type) []egField {
	var out []egField
	for i := range t.NumField() {
		field := t.Field(i)
		name, _, _ := strings.Cut(field.Tag.Get("json"), ",")
		if !field.IsExported() || name == "-" {
			continue
		}
		if field.Anonymous && name == "" {
			for _, inner := range fieldsOf(field.Type) {
				inner.index = append([]int{i}, inner.index...)
				out = append(out, inner)
			}
			continue
		}
		out = append(out, egField{index: []int{i}, json: name, konnect: snakeCase(name)})
	}
	return out
}

// object reads a JSON object into v, a struct: a union's type names the
// member that holds the object's other fields.
func (d egDecoder) object(v reflect.Value, j map[string]any, path string) error {
	fields := fieldsOf(v.Type())
	byKonnect := map[string]egField{}
	for _, f := range fields {
		byKonnect[f.konnect] = f
	}
	for _, discriminator := range discriminators {
		typ, ok := j[discriminator].(string)
		field, has := byKonnect[discriminator]
		if !ok || !has {
			continue
		}
		member, isMember := byKonnect[typ]
		if !isMember || typ == discriminator {
			v.FieldByIndex(field.index).SetString(typ)
			continue
		}
		v.FieldByIndex(field.index).SetString(member.json)
		rest := make(map[string]any, len(j))
		for k, value := range j {
			if k != discriminator {
				rest[k] = value
			}
		}
		return d.value(v.FieldByIndex(member.index), rest, path+"."+member.json)
	}
	for key, value := range j {
		field, ok := byKonnect[key]
		if !ok || discriminatorOf(key) && v.FieldByIndex(field.index).String() != "" {
			continue
		}
		if err := d.value(v.FieldByIndex(field.index), value, joinPath(path, field.json)); err != nil {
			return err
		}
	}
	return nil
}

// unionItself reads a list or a string into v, a union whose member of
// that shape Konnect writes in its place ([…] for {type: stat, stat: […]}).
func (d egDecoder) unionItself(v reflect.Value, j any, path string) error {
	var typeField, member *egField
	for _, f := range fieldsOf(v.Type()) {
		t := v.Type().FieldByIndex(f.index).Type
		if t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		switch {
		case f.konnect == "type":
			typeField = &f
		case t.Kind() == reflect.Slice && isList(j), t.Kind() == reflect.String && isString(j):
			if member != nil {
				return mismatch(path, "one member of the union", j)
			}
			member = &f
		}
	}
	if typeField == nil || member == nil {
		return mismatch(path, "an object", j)
	}
	v.FieldByIndex(typeField.index).SetString(member.json)
	return d.value(v.FieldByIndex(member.index), j, path+"."+member.json)
}

func discriminatorOf(key string) bool {
	for _, d := range discriminators {
		if key == d {
			return true
		}
	}
	return false
}

func isList(j any) bool   { _, ok := j.([]any); return ok }
func isString(j any) bool { _, ok := j.(string); return ok }

func joinPath(path, field string) string {
	if path == "" {
		return field
	}
	return path + "." + field
}

// whole is a JSON number as an integer.
func whole(f float64, path string) (int64, error) {
	if f != math.Trunc(f) || math.Abs(f) > 1<<53 {
		return 0, fmt.Errorf("%s: %v is not a whole number", path, f)
	}
	return int64(f), nil
}

func mismatch(path, want string, got any) error {
	return fmt.Errorf("%s: Konnect holds %T where the kind takes %s", strings.TrimPrefix(path, "."), got, want)
}
